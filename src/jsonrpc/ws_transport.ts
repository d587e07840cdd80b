/**
 * JSON-RPC over WebSocket (`/v1/ogmios?apikey=KEY`, `/v1/preprod/ogmios?apikey=KEY`): many requests per
 * connection. As in Ogmios, each mini-protocol (queries, chain sync, submission, evaluation) answers in request
 * order, and one that waits (a `nextBlock` at the tip) does not hold up the others. The connection has one
 * chain-sync session. A submission waiting for room in the devnet's mempool when the connection closes is
 * abandoned, with those queued behind it. Every message counts against the key's rate, both ways (spec: Limits);
 * a request past the limit gets JSON-RPC error -32029 with `retryAfter` (ms) and `remaining`, and the connection
 * stays open. A `submitTransaction` also spends the key's hourly submission budget. The key is re-checked per
 * message and watched while the connection is open, so a revoked, deactivated or expired key ends it (1008)
 * within a second, idle or not. A message over the size limit closes the connection with 1009 (Deno has already
 * received the whole message by then, up to its own 64 MiB frame limit; the service parses none of it).
 */
import { type Context, Deferred, Effect, Exit, FiberId } from "effect";
import { AccessDenied, type AccessShape, type Grant } from "@layers/access.ts";
import type { Network } from "@schemas/network.ts";
import { makeChainSync } from "./chain_sync.ts";
import { answerNow, type Lane, laneOf, run as runRequest } from "./dispatch.ts";
import {
  encodeReply,
  idOptionalOnWebSocket,
  isRefused,
  parseFrame,
  type Refused,
  type Reply,
  type Request as RpcRequest,
} from "./frame.ts";
import { errorReply } from "./failures.ts";
import { InvalidRequest } from "./protocol_errors.ts";
import { refusalFailure } from "./refusal.ts";
import type { MethodServices } from "./method.ts";

export interface WebSocketContext {
  readonly request: Request;
  readonly network: Network;
  readonly secret: string;
  readonly grant: Grant;
  readonly access: AccessShape;
  /** The largest message accepted, in bytes of UTF-8. */
  readonly maxMessageBytes: number;
  readonly run: <A>(effect: Effect.Effect<A, never, MethodServices>) => Promise<A>;
  /** The services as built, for replies given without a fiber (a tip heartbeat). */
  readonly services: Context.Context<MethodServices>;
}

/** Policy-violation close code, used when the key stops being valid mid-connection. */
const closeRevoked = 1008;
/** "Message too big". */
const closeTooBig = 1009;

/** Lanes whose requests may wait indefinitely (a nextBlock at the tip, a submission waiting for room). */
const interruptibleLane = (lane: Lane) => lane === "chainSync" || lane === "submission";

const encoder = new TextEncoder();

/** A message's size in bytes, counted only as far as needed (a string of n characters has n to 3n bytes). */
const exceeds = (data: unknown, limit: number): boolean => {
  if (typeof data !== "string") {
    return data instanceof ArrayBuffer ? data.byteLength > limit : data instanceof Blob && data.size > limit;
  }
  if (data.length > limit) return true;
  if (data.length * 3 <= limit) return false;
  return encoder.encode(data).byteLength > limit;
};

/** The open connections, so a draining shutdown can close them (main.ts). */
const openSockets = new Set<WebSocket>();

/** Closes every open connection, e.g. with 1001 "going away" at shutdown; resolves once all have closed. */
export const closeWebSockets = (code: number, reason: string, waitMs = 2_000): Promise<void> => {
  const closing = [...openSockets].map((socket) =>
    new Promise<void>((resolve) => {
      socket.addEventListener("close", () => resolve(), { once: true });
      try {
        socket.close(code, reason);
      } catch {
        resolve();
      }
    })
  );
  return Promise.race([Promise.all(closing).then(() => {}), new Promise<void>((r) => setTimeout(r, waitMs))]);
};

export const ogmiosWebSocket = (ctx: WebSocketContext): Response => {
  const { socket, response } = Deno.upgradeWebSocket(ctx.request);
  const session = makeChainSync(ctx.network);
  const lanes: Record<Lane, Promise<void>> = {
    query: Promise.resolve(),
    chainSync: Promise.resolve(),
    submission: Promise.resolve(),
    evaluation: Promise.resolve(),
  };
  /** Chain-sync requests received and not yet answered (the client pipelines them). */
  let chainSyncWaiting = 0;
  let key = ctx.grant.key;
  /**
   * Completed when the connection closes: a nextBlock still waiting at the tip is then interrupted, and so is a
   * submission waiting for room in the mempool (it must not be added once its client is gone).
   */
  const closed = Deferred.unsafeMake<undefined>(FiberId.none);
  const unwatch = ctx.access.watch(ctx.secret, (denied) => {
    const end = () => socket.close(closeRevoked, denied.message);
    if (socket.readyState === WebSocket.OPEN) end();
    else if (socket.readyState === WebSocket.CONNECTING) socket.addEventListener("open", end, { once: true });
  });
  openSockets.add(socket);
  socket.addEventListener("close", () => {
    openSockets.delete(socket);
    unwatch();
    Deferred.unsafeDone(closed, Exit.succeed(undefined));
    // a read-ahead left running would hold the embedded database's single session for blocks nobody reads
    void ctx.run(session.close);
  }, { once: true });

  const send = (reply: Reply) => {
    if (socket.readyState !== WebSocket.OPEN) return;
    socket.send(encodeReply(reply));
    if (ctx.access.chargeNow) ctx.access.chargeNow(key, Date.now());
    else void ctx.run(ctx.access.charge(key));
  };

  /** What a request spends: a submission its key's hourly budget too, anything else one request. */
  const spendOf = (parsed: RpcRequest | Refused, lane: Lane) =>
    lane === "submission" && !isRefused(parsed) ? "submission" : "request";

  /**
   * After the key's decision (undefined: allowed, the key unchanged, e.g. the service database unreachable):
   * refuses, answers at once (a tip, a block already read), or gives the program that answers.
   */
  const settle = (
    parsed: RpcRequest | Refused,
    decision: Grant | AccessDenied | undefined,
  ): Effect.Effect<Reply, never, MethodServices> | undefined => {
    if (decision instanceof AccessDenied) {
      const failure = refusalFailure(decision);
      send(errorReply(parsed.method, parsed.id, failure));
      if (failure._tag !== "RateLimited") socket.close(closeRevoked, decision.message); // a rate limit keeps it open
      return undefined;
    }
    if (decision) key = decision.key;
    if (isRefused(parsed)) return void send(errorReply(parsed.method, parsed.id, parsed.failure));
    const now = answerNow(ctx.network, parsed, session, ctx.services);
    if (now) return void send(now);
    return runRequest(ctx.network, parsed, session, chainSyncWaiting);
  };

  /** Runs a program; requests that may wait indefinitely end with the connection, the others on their own. */
  const answer = async (program: Effect.Effect<Reply, never, MethodServices>, lane: Lane) => {
    const reply = await ctx.run(
      interruptibleLane(lane) ? Effect.raceFirst(program, Deferred.await(closed)) : program,
    );
    if (reply) send(reply);
  };

  /** `triedNow`: the message handler already asked `authorizeNow` (it could not decide), so it is not asked twice. */
  const handle = async (parsed: RpcRequest | Refused, lane: Lane, triedNow: boolean) => {
    if (interruptibleLane(lane) && socket.readyState !== WebSocket.OPEN) return;
    const spend = spendOf(parsed, lane);
    const decision =
      (triedNow
        ? undefined
        : ctx.access.authorizeNow(ctx.secret, "ogmios", spend, Date.now(), ctx.network)) ??
        await ctx.run(
          ctx.access.authorize(ctx.secret, "ogmios", spend, ctx.network).pipe(
            Effect.catchTag("DatabaseUnavailable", () => Effect.succeed(undefined)),
            Effect.catchTag("AccessDenied", (denied) => Effect.succeed(denied)),
          ),
        );
    const program = settle(parsed, decision);
    if (program) await answer(program, lane);
  };

  /** Requests received on each lane and not yet answered: a lane with none may answer a new one at once. */
  const pending: Record<Lane, number> = { query: 0, chainSync: 0, submission: 0, evaluation: 0 };

  const enqueue = (lane: Lane, work: () => Promise<void>) => {
    pending[lane]++;
    if (lane === "chainSync") chainSyncWaiting++;
    lanes[lane] = lanes[lane]
      .then(work)
      .catch(() => {})
      .finally(() => {
        pending[lane]--;
        if (lane === "chainSync") chainSyncWaiting--;
      });
  };

  socket.onmessage = (event) => {
    if (exceeds(event.data, ctx.maxMessageBytes)) {
      return socket.close(closeTooBig, `message larger than the limit of ${ctx.maxMessageBytes} bytes`);
    }
    const parsed: RpcRequest | Refused = typeof event.data === "string"
      ? parseFrame(event.data, idOptionalOnWebSocket)
      : {
        method: undefined,
        id: null,
        failure: new InvalidRequest({ detail: "binary frames are not supported; send JSON text" }),
      };
    const lane = laneOf(parsed.method);
    // nothing ahead of it on its lane and the key decided from memory: no promise, no fiber for a tip query
    const idle = pending[lane] === 0 && socket.readyState === WebSocket.OPEN;
    if (idle) {
      const decision = ctx.access.authorizeNow(
        ctx.secret,
        "ogmios",
        spendOf(parsed, lane),
        Date.now(),
        ctx.network,
      );
      if (decision !== undefined) {
        if (lane === "chainSync") chainSyncWaiting++; // this request sizes the read-ahead too
        const program = settle(parsed, decision);
        if (lane === "chainSync") chainSyncWaiting--;
        if (program) enqueue(lane, () => answer(program, lane));
        return;
      }
    }
    enqueue(lane, () => handle(parsed, lane, idle));
  };
  return response;
};
