/**
 * JSON-RPC over HTTP (`POST /v1/ogmios`, `/v1/preprod/ogmios`): one request per body, as Ogmios' own HTTP
 * endpoint: 200 with the reply, 400 when the reply is an error.
 */
import { Effect } from "effect";
import type { MethodServices } from "@src/jsonrpc/method.ts";
import type { Network } from "@schemas/network.ts";
import { dispatch } from "@src/jsonrpc/dispatch.ts";
import { encodeReply, errors } from "@src/jsonrpc/frame.ts";

/** Far above any real request (a 16 KiB transaction is 32 KiB of hex). */
export const maxBodyBytes = 1 << 20;

const reply = (text: string, failed: boolean) =>
  new Response(text, {
    status: failed ? 400 : 200,
    headers: { "content-type": "application/json; charset=utf-8" },
  });

export const ogmiosHttp = (
  request: Request,
  network: Network,
): Effect.Effect<Response, never, MethodServices> =>
  Effect.gen(function* () {
    const declared = Number(request.headers.get("content-length") ?? 0);
    const body = declared > maxBodyBytes
      ? undefined
      : yield* Effect.promise(() => request.text().catch(() => ""));
    if (body === undefined || body.length > maxBodyBytes) {
      const error = errors.invalidRequest(`the body is larger than ${maxBodyBytes} bytes`);
      return reply(encodeReply({ method: undefined, id: null, error }), true);
    }
    const answer = yield* dispatch(network, body);
    return reply(encodeReply(answer), "error" in answer);
  });
