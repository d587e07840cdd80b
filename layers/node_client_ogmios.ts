/**
 * The NodeClient in front of a real Ogmios (`<NETWORK>_OGMIOS_URL`): a small pool of WebSocket connections, each
 * request sent on the least busy open one under an id of our own (the client's id never reaches the upstream;
 * the reply goes back under the client's id), the upstream's result or error passed through unchanged (big
 * integers kept exact). A dropped connection fails its in-flight requests with Ogmios' own -32000 and reconnects
 * with exponential backoff (250 ms doubling to 30 s); while none is open, a request waits up to 5 s for one.
 * Start-up waits for a first open connection (until STARTUP_TIMEOUT).
 */
import { Effect, Option } from "effect";
import type { Network } from "@schemas/network.ts";
import { parseExact, stringifyExact as stringify } from "@src/domain/json.ts";
import { NodeRejected, type OgmiosError } from "@src/domain/errors.ts";
import { Dependencies, waitFor } from "./dependencies.ts";
import type { NodeClient } from "./node_client.ts";

export const poolSize = 4;
const firstBackoffMs = 250;
const maxBackoffMs = 30_000;
const connectWaitMs = 5_000;
/** Evaluation of a large script transaction can take seconds upstream; nothing legitimate takes this long. */
const replyTimeoutMs = 60_000;

type Reply = { readonly result: unknown } | { readonly error: OgmiosError };

const lost: OgmiosError = { code: -32000, message: "Connection with the node lost or failed." };

interface Connection {
  socket: WebSocket | undefined;
  readonly pending: Map<string, (reply: Reply) => void>;
  backoffMs: number;
}

/** The pool itself, outside Effect: sockets and callbacks. */
const makePool = (url: string, onOpenCount: (open: number) => void) => {
  let closed = false;
  let counter = 0;
  const waiting = new Set<() => void>();
  const connections: Array<Connection> = Array.from({ length: poolSize }, () => ({
    socket: undefined,
    pending: new Map(),
    backoffMs: firstBackoffMs,
  }));

  const report = () => onOpenCount(connections.filter((c) => c.socket !== undefined).length);

  const connect = (c: Connection) => {
    if (closed) return;
    const socket = new WebSocket(url);
    socket.onopen = () => {
      c.socket = socket;
      c.backoffMs = firstBackoffMs;
      report();
      for (const wake of waiting) wake();
    };
    socket.onmessage = (event) => {
      let reply: { id?: unknown; result?: unknown; error?: OgmiosError };
      try {
        reply = parseExact(String(event.data)) as typeof reply;
      } catch {
        return; // not JSON: nothing to route it to
      }
      const done = typeof reply.id === "string" ? c.pending.get(reply.id) : undefined;
      if (!done) return;
      c.pending.delete(reply.id as string);
      done(reply.error !== undefined ? { error: reply.error } : { result: reply.result });
    };
    socket.onerror = () => {};
    socket.onclose = () => {
      if (c.socket === socket) c.socket = undefined;
      report();
      const failed = [...c.pending.values()];
      c.pending.clear();
      for (const done of failed) done({ error: lost });
      if (closed) return;
      setTimeout(() => connect(c), c.backoffMs);
      c.backoffMs = Math.min(maxBackoffMs, c.backoffMs * 2);
    };
  };
  connections.forEach(connect);

  const leastBusy = () =>
    connections
      .filter((c) => c.socket?.readyState === WebSocket.OPEN)
      .sort((a, b) => a.pending.size - b.pending.size)[0];

  /** Sends one request; `done` receives the reply. Returns a canceller. */
  const send = (method: string, params: unknown, done: (reply: Reply) => void): () => void => {
    let cancelled = false;
    let forget = () => {};
    const attempt = () => {
      const c = leastBusy();
      if (!c) return false;
      const id = `cds-${++counter}`;
      const timer = setTimeout(() => {
        c.pending.delete(id);
        done({ error: { code: -32000, message: "The Ogmios upstream did not answer in time." } });
      }, replyTimeoutMs);
      c.pending.set(id, (reply) => {
        clearTimeout(timer);
        done(reply);
      });
      forget = () => {
        clearTimeout(timer);
        c.pending.delete(id);
      };
      c.socket!.send(stringify({ jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }), id }));
      return true;
    };
    if (attempt()) return () => forget();
    // no connection open: wait for one, within limits
    const wake = () => {
      if (cancelled || !attempt()) return;
      waiting.delete(wake);
      clearTimeout(giveUp);
    };
    const giveUp = setTimeout(() => {
      waiting.delete(wake);
      done({ error: { ...lost, message: "The Ogmios upstream is unreachable; try again shortly." } });
    }, connectWaitMs);
    waiting.add(wake);
    return () => {
      cancelled = true;
      waiting.delete(wake);
      clearTimeout(giveUp);
      forget();
    };
  };

  const close = () => {
    closed = true;
    for (const c of connections) c.socket?.close();
  };
  const isOpen = () => connections.some((c) => c.socket?.readyState === WebSocket.OPEN);
  return { send, close, isOpen };
};

export class OgmiosUnreachable extends Error {
  override readonly name = "OgmiosUnreachable";
}

const redactedUrl = (url: string) => {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    u.search = u.search ? "?…" : "";
    return u.toString();
  } catch {
    return "<unparseable URL>";
  }
};

export const ogmiosNodeClient = (network: Network, url: string) =>
  Effect.gen(function* () {
    const name = `${network} Ogmios upstream`;
    const board = yield* Effect.serviceOption(Dependencies);
    const onOpenCount = (open: number) =>
      Option.map(board, (b) =>
        b.started() && b.set(name, open > 0 ? "ok" : "down", open > 0 ? undefined : "no connection open"));
    const pool = yield* Effect.acquireRelease(
      Effect.sync(() =>
        makePool(url, onOpenCount)
      ),
      (p) => Effect.sync(p.close),
    );
    // start-up waits for a first connection (the pool keeps reconnecting on its own meanwhile)
    yield* waitFor(
      name,
      Effect.suspend(() =>
        pool.isOpen()
          ? Effect.void
          : Effect.fail(new OgmiosUnreachable(`${name}: no connection to ${redactedUrl(url)}`))
      ),
      { critical: false },
    );
    const relay = (method: string, params: unknown) =>
      Effect.async<unknown, NodeRejected>((resume) => {
        const cancel = pool.send(
          method,
          params,
          (reply) =>
            resume(
              "error" in reply
                ? Effect.fail(new NodeRejected({ error: reply.error }))
                : Effect.succeed(reply.result),
            ),
        );
        return Effect.sync(cancel);
      });
    const transaction = (tx: { cbor: string; additionalUtxo?: ReadonlyArray<unknown> }) => ({
      transaction: { cbor: tx.cbor },
      ...(tx.additionalUtxo ? { additionalUtxo: tx.additionalUtxo } : {}),
    });
    return {
      description: `the Ogmios upstream at ${redactedUrl(url)} (${network})`,
      relay,
      evaluateTransaction: (tx) => relay("evaluateTransaction", transaction(tx)),
      submitTransaction: (tx) => relay("submitTransaction", { transaction: { cbor: tx.cbor } }),
    } satisfies NodeClient;
  });
