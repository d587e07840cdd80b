/**
 * Every JSON-RPC error code of the endpoint, over raw HTTP and raw WebSocket alike: the same code and a message
 * saying what is wrong, `method` and `id` carried when readable, HTTP 400, and the WebSocket still answering
 * afterwards (also after a binary frame).
 */
import assert from "node:assert/strict";
import { startRestFixture } from "../support/rest.ts";
import { connect } from "../support/ogmios_ws.ts";

const frame = (method: string, params?: unknown, id: unknown = "e") =>
  JSON.stringify({ jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }), id });

/** [frame, code, message pattern, the method echoed] */
const cases: Array<[string, number, RegExp, string | undefined]> = [
  ['{"jsonrpc":"2.0","method":"queryNetwork/tip",', -32700, /^Parse error: invalid JSON received/, undefined],
  ["[]", -32600, /batches are not supported/, undefined],
  ["42", -32600, /must be a JSON object/, undefined],
  [
    '{"jsonrpc":"1.0","method":"queryNetwork/tip","id":1}',
    -32600,
    /'jsonrpc' must be "2\.0"/,
    "queryNetwork/tip",
  ],
  ['{"jsonrpc":"2.0","method":7,"id":1}', -32600, /'method' must be a string/, undefined],
  [
    frame("queryNetwork/Tip"),
    -32601,
    /Method not found: 'queryNetwork\/Tip'.*case-sensitive/,
    "queryNetwork/Tip",
  ],
  [frame("nope"), -32601, /Method not found/, "nope"],
  [frame("queryNetwork/tip", "x"), -32602, /'params' must be an object/, "queryNetwork/tip"],
  [frame("queryLedgerState/utxo", {}), -32602, /whole UTxO set/, "queryLedgerState/utxo"],
  [frame("queryLedgerState/utxo"), -32602, /whole UTxO set/, "queryLedgerState/utxo"],
  [frame("queryLedgerState/utxo", { addresses: [] }), -32602, /non-empty array/, "queryLedgerState/utxo"],
  [
    frame("queryLedgerState/utxo", { addresses: ["61" + "ab".repeat(28)] }),
    -32602,
    /is hex; give it in bech32/,
    "queryLedgerState/utxo",
  ],
  [
    frame("queryLedgerState/utxo", { outputReferences: [{ transaction: { id: "zz" }, index: 0 }] }),
    -32602,
    /output reference must be/,
    "queryLedgerState/utxo",
  ],
  [
    frame("queryLedgerState/stakePools", { includeStake: 1 }),
    -32602,
    /'includeStake' must be a boolean/,
    undefined,
  ],
  [
    frame("findIntersection", { points: [] }),
    -32602,
    /'points' must be a non-empty array/,
    "findIntersection",
  ],
  [frame("submitTransaction", {}), -32602, /'transaction\.cbor'/, "submitTransaction"],
  [frame("evaluateTransaction", { transaction: { cbor: 12 } }), -32602, /'transaction\.cbor'/, undefined],
  // the spec: a request without jsonrpc, method or id is malformed (src/jsonrpc/frame.ts names the WebSocket
  // exceptions the official client needs: nextBlock, evaluateTransaction and submitTransaction)
  [
    '{"jsonrpc":"2.0","method":"queryNetwork/tip"}',
    -32600,
    /^Invalid request: 'id' is required/,
    "queryNetwork/tip",
  ],
  [
    '{"jsonrpc":"2.0","method":"findIntersection","params":{"points":["origin"]}}',
    -32600,
    /'id' is required/,
    "findIntersection",
  ],
];

Deno.test({
  name: "JSON-RPC errors over HTTP and WebSocket",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const f = await startRestFixture("rpc_errors");
    try {
      await t.step("HTTP: 400 with the code, a message, method and id", async () => {
        for (const [body, code, message, method] of cases) {
          const r = await fetch(`${f.service.base}/v1/ogmios`, {
            method: "POST",
            headers: { apikey: f.key },
            body,
          });
          const reply = await r.json();
          assert.equal(r.status, 400, body);
          assert.equal(reply.error.code, code, body);
          assert.match(reply.error.message, message, body);
          if (method) assert.equal(reply.method, method, body);
          if (code !== -32700) assert.ok("id" in reply, body);
        }
      });

      await t.step("WebSocket: the same errors, and the connection survives them all", async () => {
        const c = await connect(`${f.service.base.replace("http", "ws")}/v1/ogmios?apikey=${f.key}`);
        for (const [body, code, message, method] of cases) {
          c.send(body);
          const reply = await c.next();
          assert.equal(reply.error?.code, code, body);
          assert.match(reply.error.message, message, body);
          if (method) assert.equal(reply.method, method, body);
        }
        c.send(new Uint8Array([1, 2, 3]));
        const binary = await c.next();
        assert.equal(binary.error.code, -32600);
        assert.match(binary.error.message, /binary frames/);
        c.send(frame("queryNetwork/tip", undefined, { after: "errors" }));
        const alive = await c.next();
        assert.deepEqual(alive.id, { after: "errors" });
        assert.equal(typeof alive.result.slot, "number");
        c.close();
      });
    } finally {
      await f.close();
    }
  },
});
