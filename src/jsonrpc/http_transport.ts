/**
 * JSON-RPC over HTTP (`POST /v1/ogmios`, `/v1/preprod/ogmios`): one request per body, as Ogmios' own HTTP
 * endpoint: 200 with the reply, 400 when the reply is an error. The router granted the request (one unit of rate,
 * quota and credit); a `submitTransaction` then spends the key's hourly submission budget alone (429 with a -32029
 * reply past it, 403 when the key may not submit); a body over the size limit gets 413 with a -32600 reply
 * (the body is read under that limit, `request_body.ts`); a submission still waiting for room in a devnet's
 * mempool when its client disconnects is abandoned. Chain sync over HTTP starts a fresh session per request, as
 * Ogmios does (so `nextBlock` always gives the first block).
 */
import { Effect } from "effect";
import type { AccessShape, Grant } from "@layers/access.ts";
import type { MethodServices } from "./method.ts";
import type { Network } from "@schemas/network.ts";
import { makeChainSync } from "./chain_sync.ts";
import { run } from "./dispatch.ts";
import { encodeReply, isRefused, parseFrame } from "./frame.ts";
import { errorReply } from "./failures.ts";
import { BodyTooLarge, InvalidRequest } from "./protocol_errors.ts";
import { refusalFailure, refusalHeaders } from "./refusal.ts";
import { readBody, tooLargeMessage } from "@src/http/request_body.ts";
import { responseWith } from "@src/http/response_headers.ts";

/** Completes when the client disconnects before its answer (the request's signal aborts). */
const clientGone = (signal: AbortSignal) =>
  Effect.async<undefined>((resume) => {
    if (signal.aborted) return resume(Effect.succeed(undefined));
    const onAbort = () => resume(Effect.succeed(undefined));
    signal.addEventListener("abort", onAbort, { once: true });
    return Effect.sync(() => signal.removeEventListener("abort", onAbort));
  });

const reply = (text: string, status: number, headers?: Record<string, string>) =>
  responseWith(text, status, "application/json; charset=utf-8", headers);

/** The 400 for a request the router cannot read (a repeated query parameter), as a JSON-RPC error reply. */
export const ogmiosBadRequest = (message: string): Response =>
  reply(encodeReply(errorReply(undefined, null, new InvalidRequest({ detail: message }))), 400);

export const ogmiosHttp = (
  request: Request,
  network: Network,
  access: AccessShape,
  grant: Grant,
  maxBodyBytes: number,
): Effect.Effect<Response, never, MethodServices> =>
  Effect.gen(function* () {
    const body = yield* readBody(request, maxBodyBytes);
    if (body._tag === "TooLarge") {
      const tooLarge = new BodyTooLarge({ detail: tooLargeMessage(body.limit) });
      return reply(encodeReply(errorReply(undefined, null, tooLarge)), 413);
    }
    const parsed = parseFrame(body.text);
    if (isRefused(parsed)) {
      return reply(encodeReply(errorReply(parsed.method, parsed.id, parsed.failure)), 400);
    }
    if (parsed.method === "submitTransaction") {
      const denied = yield* access.spendSubmission(grant, network).pipe(
        Effect.as(undefined),
        Effect.catchTag("AccessDenied", (d) => Effect.succeed(d)),
      );
      if (denied) {
        const failure = refusalFailure(denied);
        return reply(
          encodeReply(errorReply(parsed.method, parsed.id, failure)),
          denied.status,
          refusalHeaders(denied),
        );
      }
    }
    const program = run(network, parsed, makeChainSync(network));
    // a submission waiting for room in a devnet's mempool ends with its client: nothing is added once it left
    const answer = parsed.method === "submitTransaction"
      ? yield* Effect.raceFirst(program, clientGone(request.signal))
      : yield* program;
    if (answer === undefined) return new Response(null, { status: 499 }); // nobody is listening
    return reply(encodeReply(answer), "error" in answer ? 400 : 200);
  });
