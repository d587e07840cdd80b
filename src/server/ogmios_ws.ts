/**
 * JSON-RPC over WebSocket (`/v1/ogmios?apikey=KEY`, `/v1/preprod/ogmios?apikey=KEY`): many requests per
 * connection, answered in order. Every message counts against the key's rate, both ways (spec: Limits); a request
 * past the limit gets JSON-RPC error -32029 with `retryAfter` (ms) and `remaining`, and the connection stays open.
 * The key is re-checked per message, so a revocation also ends an open connection.
 */
import { Effect } from "effect";
import { AccessDenied, type AccessShape, type Grant } from "@layers/access.ts";
import type { Network } from "@schemas/network.ts";
import { run as runRequest } from "@src/jsonrpc/dispatch.ts";
import { encodeReply, errors, isReply, parseFrame, type Reply } from "@src/jsonrpc/frame.ts";
import type { MethodServices } from "@src/jsonrpc/method.ts";

export interface WebSocketContext {
  readonly request: Request;
  readonly network: Network;
  readonly secret: string;
  readonly grant: Grant;
  readonly access: AccessShape;
  readonly run: <A>(effect: Effect.Effect<A, never, MethodServices>) => Promise<A>;
}

/** Policy-violation close code, used when the key stops being valid mid-connection. */
const closeRevoked = 1008;

export const ogmiosWebSocket = (ctx: WebSocketContext): Response => {
  const { socket, response } = Deno.upgradeWebSocket(ctx.request);
  let queue: Promise<void> = Promise.resolve();
  let key = ctx.grant.key;

  const send = (reply: Reply) => {
    if (socket.readyState !== WebSocket.OPEN) return;
    socket.send(encodeReply(reply));
    void ctx.run(ctx.access.charge(key));
  };

  const handle = async (data: unknown) => {
    const text = typeof data === "string" ? data : undefined;
    const parsed = text === undefined
      ? {
        method: undefined,
        id: null,
        error: errors.invalidRequest("binary frames are not supported; send JSON text"),
      }
      : parseFrame(text);
    const method = parsed.method;
    const id = parsed.id;
    const decision = ctx.access.authorizeNow(ctx.secret, "ogmios", "request", Date.now()) ??
      await ctx.run(
        ctx.access.authorize(ctx.secret, "ogmios", "request").pipe(
          Effect.catchTag("DatabaseUnavailable", () => Effect.succeed(undefined)),
          Effect.catchTag("AccessDenied", (denied) => Effect.succeed(denied)),
        ),
      );
    if (decision instanceof AccessDenied) {
      if (decision.status === 429 && decision.limit) {
        return send({
          method,
          id,
          error: errors.rateLimited(decision.limit.resetMs, decision.limit.remaining),
        });
      }
      send({ method, id, error: { code: -32000 - decision.status, message: decision.message } });
      return socket.close(closeRevoked, decision.message);
    }
    if (decision) key = decision.key;
    if (isReply(parsed)) return send(parsed);
    send(await ctx.run(runRequest(ctx.network, parsed)));
  };

  socket.onmessage = (event) => {
    queue = queue.then(() => handle(event.data)).catch(() => {});
  };
  return response;
};
