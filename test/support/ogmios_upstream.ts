/**
 * A small stand-in for Ogmios + cardano-node (which cannot run here), speaking Ogmios' real wire format: each
 * answer is one of the upstream test vectors in schemas/reference/ogmios/vectors, sent back under the request's id
 * with big integers kept exact. Tests choose which vector answers a method, see what the upstream received, and
 * can drop every connection to exercise reconnection.
 */
import { parseExact, stringify } from "@src/domain/json.ts";

const vectors = new URL("../../schemas/reference/ogmios/vectors/", import.meta.url);

/** A vector's reply, e.g. "SubmitTransactionResponse/172.json". */
export const vector = (path: string): Record<string, unknown> =>
  parseExact(Deno.readTextFileSync(new URL(path, vectors))) as Record<string, unknown>;

const defaults: Readonly<Record<string, string>> = {
  submitTransaction: "SubmitTransactionResponse/172.json",
  evaluateTransaction: "EvaluateTransactionResponse/010.json",
  "queryNetwork/tip": "QueryNetworkTip/000.json",
  "queryLedgerState/tip": "QueryLedgerStateTip/000.json",
  "queryLedgerState/epoch": "QueryLedgerStateEpoch/000.json",
  "queryNetwork/blockHeight": "QueryNetworkBlockHeight/000.json",
};

export interface UpstreamRequest {
  readonly method: string;
  readonly params: unknown;
  readonly id: unknown;
}

export interface FakeOgmios {
  readonly url: string;
  /** Every request received, in order. */
  readonly received: Array<UpstreamRequest>;
  /** The vector that answers the next request for `method` (then back to the default). */
  readonly answerNext: (method: string, vectorPath: string) => void;
  /** How many WebSocket connections have been opened to it so far. */
  readonly connections: () => number;
  /** Closes every open connection (the service should reconnect). */
  readonly dropConnections: () => void;
  readonly stop: () => Promise<void>;
}

/** On `port` when given (a test may start it after the service that expects it), else any free port. */
export const startFakeOgmios = (port = 0): FakeOgmios => {
  const received: Array<UpstreamRequest> = [];
  const next = new Map<string, string>();
  const sockets = new Set<WebSocket>();
  let opened = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port, onListen: () => {} }, (request) => {
    if (request.headers.get("upgrade") !== "websocket") {
      return new Response("Ogmios stand-in", { status: 426 });
    }
    const { socket, response } = Deno.upgradeWebSocket(request);
    opened++;
    sockets.add(socket);
    socket.onclose = () => sockets.delete(socket);
    socket.onmessage = (event) => {
      const frame = parseExact(String(event.data)) as UpstreamRequest;
      received.push(frame);
      const path = next.get(frame.method) ?? defaults[frame.method];
      next.delete(frame.method);
      const reply = path ? vector(path) : {
        jsonrpc: "2.0",
        error: { code: -32601, message: "Method not found (stand-in)" },
      };
      socket.send(stringify({ ...reply, id: frame.id ?? null }));
    };
    return response;
  });
  return {
    url: `ws://127.0.0.1:${server.addr.port}`,
    received,
    answerNext: (method, vectorPath) => next.set(method, vectorPath),
    connections: () => opened,
    dropConnections: () => {
      for (const s of sockets) s.close();
    },
    stop: async () => {
      for (const s of sockets) s.close();
      await server.shutdown();
    },
  };
};
