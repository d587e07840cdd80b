/**
 * The Blockfrost dialect's node routes as a production deployment runs them: db-sync's chain database and an
 * Ogmios upstream (the local stand-in of test/support/ogmios_upstream.ts, answering with Ogmios' own test
 * vectors), on both networks. With TEST_DATABASE_URL the chain databases are PostgreSQL; on PGlite they are the
 * embedded copies, the devnet off. `POST /tx/submit` answers the upstream's id (Blockfrost's schema) or its
 * refusal as a 400 envelope; `/utils/txs/evaluate` and `/utils/txs/evaluate/utxos` answer Ogmios v5.6's shape,
 * or v6's with `?version=6` (Blockfrost publishes "an object" for both; the v6 reply is checked against Ogmios'
 * schema too), failures inside the answer, the extra UTxOs relayed in v6's shape. `/txs/{hash}/cbor`: the seeded
 * chain has no `tx_cbor` rows (db-sync's default; src/demo_chain writes none), so its documented 404; on
 * PostgreSQL a row written as db-sync's `tx_cbor` option writes one is then found. On PGlite the service serves
 * its own copy of the chain, which the test cannot write: the found case there is tx_submit_test.ts's, on the
 * devnet.
 */
import assert from "node:assert/strict";
import { hex } from "@scure/base";
import { parseExact } from "@src/domain/json.ts";
import type { Network } from "@schemas/network.ts";
import { assertBlockfrostShape, startBlockfrostFixture } from "../support/blockfrost.ts";
import { testDatabaseUrl } from "../support/databases.ts";
import { assertMatchesOgmiosSchema } from "../support/ogmios_schema.ts";
import { startFakeOgmios, vector } from "../support/ogmios_upstream.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** The head of a transaction's CBOR: the stand-in does not read it, the service relays it as it came. */
const cbor = "84a400818258203b40265111d8bb3c3c608d95b3a0bf83461ace32d79336579a1939b3aad1c0b700018182581d61";
const networks: ReadonlyArray<Network> = ["mainnet", "preprod"];

Deno.test({
  name: "blockfrost: submit and evaluate through an Ogmios upstream, CBOR on the chain database",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const upstream = startFakeOgmios();
    const f = await startBlockfrostFixture("bf_upstream", {
      MAINNET_OGMIOS_URL: upstream.url,
      PREPROD_OGMIOS_URL: upstream.url,
    });
    /** A POST as the providers send it; `body` read as JSON, `exact` with integers beyond 2^53 kept. */
    const post = async (network: Network, path: string, body: BodyInit, contentType: string) => {
      const base = f.baseUrl(network).replace(f.service.base, "");
      const r = await fetch(`${f.service.base}${base}${path}`, {
        method: "POST",
        headers: { project_id: f.key, "content-type": contentType },
        body,
      });
      const text = await r.text();
      return { status: r.status, body: JSON.parse(text) as Json, exact: parseExact(text) as Json };
    };
    const relayed = (method: string) => upstream.received.filter((q) => q.method === method);
    try {
      for (const network of networks) {
        await t.step(`${network}: tx/submit answers the upstream's id, or its refusal as a 400`, async () => {
          const before = relayed("submitTransaction").length;
          const r = await post(network, "/tx/submit", hex.decode(cbor) as BodyInit, "application/cbor");
          assert.equal(r.status, 200, JSON.stringify(r.body));
          assertBlockfrostShape("POST", "/tx/submit", r);
          const id = (vector("SubmitTransactionResponse/172.json").result as Json).transaction.id;
          assert.equal(r.body, id);
          const hexText = await post(network, "/tx/submit", cbor, "application/cbor");
          assert.equal(hexText.body, id);
          const sent = relayed("submitTransaction").slice(before);
          assert.deepEqual(sent.map((q) => q.params), [{ transaction: { cbor } }, { transaction: { cbor } }]);

          upstream.answerNext("submitTransaction", "SubmitTransactionResponse/000.json");
          const refused = await post(network, "/tx/submit", cbor, "application/cbor");
          assert.equal(refused.status, 400, JSON.stringify(refused.body));
          assertBlockfrostShape("POST", "/tx/submit", refused);
          assert.match(refused.body.message, /unknown stake pool.*\(code 3140\).*unknownStakePool/);
        });

        await t.step(`${network}: evaluate answers v5.6's shape, v6's with ?version=6`, async () => {
          const budgets = vector("EvaluateTransactionResponse/010.json").result as Json;
          const v5 = await post(network, "/utils/txs/evaluate", cbor, "application/cbor");
          assert.equal(v5.status, 200, JSON.stringify(v5.body));
          assertBlockfrostShape("POST", "/utils/txs/evaluate", v5);
          assert.deepEqual(
            [v5.body.type, v5.body.version, v5.body.servicename, v5.body.methodname],
            ["jsonwsp/response", "1.0", "ogmios", "EvaluateTx"],
          );
          // v6's purposes by v5.6's names, the budgets exact
          assert.deepEqual(v5.exact.result, {
            EvaluationResult: {
              "mint:0": { memory: budgets[0].budget.memory, steps: budgets[0].budget.cpu },
              "certificate:7": { memory: budgets[1].budget.memory, steps: budgets[1].budget.cpu },
            },
          });
          const v6 = await post(network, "/utils/txs/evaluate?version=6", cbor, "application/cbor");
          assert.equal(v6.status, 200);
          assertBlockfrostShape("POST", "/utils/txs/evaluate", v6);
          await assertMatchesOgmiosSchema("ogmios.json#/properties/EvaluateTransactionResponse", v6.body);
          assert.deepEqual(v6.exact, {
            jsonrpc: "2.0",
            method: "evaluateTransaction",
            result: budgets,
            id: null,
          });

          // a failed evaluation is an answer, in each shape
          upstream.answerNext("evaluateTransaction", "EvaluateTransactionResponse/000.json");
          const failed = await post(network, "/utils/txs/evaluate", cbor, "application/cbor");
          assert.equal(failed.status, 200);
          assertBlockfrostShape("POST", "/utils/txs/evaluate", failed);
          assert.ok(
            failed.body.result.EvaluationFailure.ScriptFailures["mint:5"],
            JSON.stringify(failed.body),
          );
          upstream.answerNext("evaluateTransaction", "EvaluateTransactionResponse/000.json");
          const failedV6 = await post(network, "/utils/txs/evaluate?version=6", cbor, "application/cbor");
          assert.equal(failedV6.status, 200);
          assertBlockfrostShape("POST", "/utils/txs/evaluate", failedV6);
          await assertMatchesOgmiosSchema(
            "ogmios.json#/properties/EvaluateTransactionResponse",
            failedV6.body,
          );
          assert.equal(failedV6.body.error.code, 3010);
        });

        await t.step(`${network}: evaluate/utxos relays the extra UTxOs in v6's shape`, async () => {
          const txId = "ab".repeat(32);
          const address = (await f.query<{ address: string }>(
            network,
            `select address from tx_out where address like 'addr%' order by id limit 1`,
          ))[0]!.address;
          const body = JSON.stringify({
            cbor,
            additionalUtxoSet: [[{ txId, index: 1 }, {
              address,
              value: { coins: 2_000_000 },
              datum: "d87980",
            }]],
          });
          const before = relayed("evaluateTransaction").length;
          const v5 = await post(network, "/utils/txs/evaluate/utxos", body, "application/json");
          assert.equal(v5.status, 200, JSON.stringify(v5.body));
          assertBlockfrostShape("POST", "/utils/txs/evaluate/utxos", v5);
          assert.deepEqual(Object.keys(v5.body.result.EvaluationResult), ["mint:0", "certificate:7"]);
          const v6 = await post(network, "/utils/txs/evaluate/utxos?version=6", body, "application/json");
          assertBlockfrostShape("POST", "/utils/txs/evaluate/utxos", v6);
          await assertMatchesOgmiosSchema("ogmios.json#/properties/EvaluateTransactionResponse", v6.body);
          assert.equal(v6.body.method, "evaluateTransaction");
          const sent = relayed("evaluateTransaction").slice(before);
          assert.equal(sent.length, 2);
          for (const q of sent) {
            assert.deepEqual(q.params, {
              transaction: { cbor },
              additionalUtxo: [{
                transaction: { id: txId },
                index: 1,
                address,
                value: { ada: { lovelace: 2_000_000 } },
                datum: "d87980",
              }],
            });
          }
        });

        await t.step(
          `${network}: a transaction's CBOR from db-sync's tx_cbor, or its documented 404`,
          async () => {
            const [first, second] = await f.query<{ id: string; hash: string }>(
              network,
              `select id::text as id, encode(hash, 'hex') as hash from tx order by id desc limit 2`,
            );
            const kept = await f.query<{ n: number }>(network, `select count(*)::int as n from tx_cbor`);
            assert.equal(kept[0]!.n, 0, "the seeded chain keeps no CBOR, as db-sync by default");
            const missing = await f.bf(`/txs/${first!.hash}/cbor`, network);
            assert.equal(missing.status, 404);
            assertBlockfrostShape("GET", "/txs/{hash}/cbor", missing);
            assert.match(missing.body.message, /keeps no CBOR.*tx_cbor option is off/);
            const unknown = await f.bf(`/txs/${"00".repeat(32)}/cbor`, network);
            assert.equal(unknown.status, 404);
            assertBlockfrostShape("GET", "/txs/{hash}/cbor", unknown);
            assert.doesNotMatch(unknown.body.message, /tx_cbor/);
            if (testDatabaseUrl === undefined) return; // PGlite: the service's copy is not the test's (doc comment)
            // as db-sync with tx_cbor enabled writes it; the route gives the bytes back, it does not re-hash them
            await f.query(
              network,
              `insert into tx_cbor (tx_id, bytes) values ($1::bigint, decode($2, 'hex'))`,
              second!.id,
              cbor,
            );
            const found = await f.bf(`/txs/${second!.hash}/cbor`, network);
            assert.equal(found.status, 200, JSON.stringify(found.body));
            assertBlockfrostShape("GET", "/txs/{hash}/cbor", found);
            assert.deepEqual(found.body, { cbor });
          },
        );
      }
    } finally {
      await f.close();
      await upstream.stop();
    }
  },
});
