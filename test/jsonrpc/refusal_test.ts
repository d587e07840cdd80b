/**
 * The one JSON-RPC refusal mapper both transports use (src/jsonrpc/refusal.ts): a spent limit is -32029 with
 * `retryAfter` and `remaining` (a spent submission budget names itself, the general rate keeps the default
 * message) and the spent budget's headers; any other refusal is the key's, with REST's status and no headers.
 */
import assert from "node:assert/strict";
import { AccessDenied } from "@layers/access.ts";
import { errorReply } from "@src/jsonrpc/failures.ts";
import type { Reply } from "@src/jsonrpc/frame.ts";
import { refusalFailure, refusalHeaders } from "@src/jsonrpc/refusal.ts";

const errorOf = (r: Reply) => ("error" in r ? r.error : undefined);

const spent = (budget: "rate" | "submissions") =>
  new AccessDenied({
    status: 429,
    message: budget === "submissions"
      ? "Submission limit exceeded"
      : "Rate limit exceeded. Please slow down.",
    limit: { allowed: false, exceeded: budget, budget, limit: 10, remaining: 0, resetMs: 1500 },
  });

Deno.test("a spent submission budget is -32029 naming it, with that budget's headers", () => {
  const denied = spent("submissions");
  assert.deepEqual(errorOf(errorReply("submitTransaction", 7, refusalFailure(denied))), {
    code: -32029,
    message: "Submission limit exceeded",
    data: { retryAfter: 1500, remaining: 0 },
  });
  assert.deepEqual(refusalHeaders(denied), {
    "x-ratelimit-limit": "10",
    "x-ratelimit-remaining": "0",
    "x-ratelimit-reset": "2",
    "retry-after": "2",
  });
});

Deno.test("a spent rate is -32029 with the default message", () => {
  const reply = errorReply("queryNetwork/tip", 1, refusalFailure(spent("rate")));
  assert.equal(errorOf(reply)?.code, -32029);
  assert.equal(errorOf(reply)?.message, "Rate limit exceeded. Please slow down.");
});

Deno.test("any other refusal is the key's, with no limit headers", () => {
  const denied = new AccessDenied({
    status: 403,
    message: "This key may not be used for transaction submission",
  });
  const failure = refusalFailure(denied);
  assert.equal(failure._tag, "AccessRefused");
  assert.equal(errorOf(errorReply("submitTransaction", 1, failure))?.message, denied.message);
  assert.deepEqual(refusalHeaders(denied), {});
});
