/**
 * The NodeClient behind `/v1/ogmios`: with an Ogmios upstream (mainnet here, a stand-in speaking Ogmios' wire
 * format from the reference vectors), submission, evaluation and ledger queries are relayed under our own ids,
 * results and errors come back unchanged (big integers exact) to the official client, and a dropped upstream
 * connection is re-established. Without one (preprod here), evaluation and submission are refused with an error
 * that says no node is configured. A FREE key's hourly submissions are limited on both transports.
 */
import assert from "node:assert/strict";
import { createInteractionContext, createTransactionSubmissionClient } from "@cardano-ogmios/client";
import { startService } from "../support/service.ts";
import { createKey, createTestEnvironment, keysCli } from "../support/environment.ts";
import { connect } from "../support/ogmios_ws.ts";
import { startFakeOgmios, vector } from "../support/ogmios_upstream.ts";
import { assertMatchesOgmiosSchema } from "../support/ogmios_schema.ts";
import { testDatabaseUrl } from "../support/databases.ts";

const cbor = "84a400818258203b40265111d8bb3c3c608d95b3a0bf83461ace32d79336579a1939b3aad1c0b700018182581d61";

Deno.test({
  name: "node client: Ogmios upstream relay, no node, submission limits",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const upstream = startFakeOgmios();
    const environment = await createTestEnvironment("nodeclient");
    const env = { ...environment.env, MAINNET_OGMIOS_URL: upstream.url, SUBMISSIONS_PER_HOUR_FREE: "2" };
    const service = await startService(env);
    const ws = service.base.replace("http", "ws");
    const post = async (key: string, body: unknown, path = "/v1/ogmios") => {
      const r = await fetch(`${service.base}${path}`, {
        method: "POST",
        headers: { apikey: key },
        body: JSON.stringify(body),
      });
      return { status: r.status, body: await r.json(), headers: r.headers };
    };
    try {
      const paid = await createKey(env, "--tier", "paid", "--name", "node client");
      const clientFor = async (network: "mainnet" | "preprod", key = paid.key) => {
        const path = network === "mainnet" ? "/v1/ogmios" : "/v1/preprod/ogmios";
        const context = await createInteractionContext(() => {}, () => {}, {
          connection: {
            address: { http: `${service.base}${path}`, webSocket: `${ws}${path}?apikey=${key}` },
          },
        });
        return createTransactionSubmissionClient(context);
      };

      await t.step("the official client submits and evaluates through the upstream", async () => {
        const client = await clientFor("mainnet");
        try {
          const expectedId =
            (vector("SubmitTransactionResponse/172.json").result as { transaction: { id: string } })
              .transaction.id;
          assert.equal(await client.submitTransaction(cbor), expectedId);
          const budgets = await client.evaluateTransaction(cbor);
          // the vector's budgets exceed 2^53: they arrive exact
          assert.deepEqual(budgets, vector("EvaluateTransactionResponse/010.json").result);
          assert.equal(typeof budgets[0]!.budget.memory, "bigint");
          upstream.answerNext("submitTransaction", "SubmitTransactionResponse/000.json");
          await assert.rejects(client.submitTransaction(cbor), (e: { code?: number; data?: unknown }) => {
            assert.equal(e.code, 3140);
            assert.deepEqual(
              e.data,
              (vector("SubmitTransactionResponse/000.json").error as { data: unknown }).data,
            );
            return true;
          });
        } finally {
          await client.shutdown();
        }
        const relayed = upstream.received.filter((r) => r.method === "submitTransaction");
        assert.equal(relayed.length, 2);
        for (const r of relayed) {
          assert.match(String(r.id), /^cds-\d+$/, "the upstream sees our ids, not the client's");
          assert.deepEqual(r.params, { transaction: { cbor } });
        }
      });

      await t.step(
        "raw replies keep the client's id, pass errors through and match Ogmios' schema",
        async () => {
          const c = await connect(`${ws}/v1/ogmios?apikey=${paid.key}`);
          upstream.answerNext("evaluateTransaction", "EvaluateTransactionResponse/000.json");
          c.send({
            jsonrpc: "2.0",
            method: "evaluateTransaction",
            params: { transaction: { cbor } },
            id: { n: 1 },
          });
          c.send({ jsonrpc: "2.0", method: "submitTransaction", params: { transaction: { cbor } }, id: "s" });
          const evaluated = await c.next();
          const submitted = await c.next();
          const [e, s] = evaluated.method === "evaluateTransaction"
            ? [evaluated, submitted]
            : [submitted, evaluated];
          assert.deepEqual(e.id, { n: 1 });
          assert.equal(e.error.code, 3010);
          await assertMatchesOgmiosSchema("ogmios.json#/properties/EvaluateTransactionResponse", e);
          assert.equal(s.id, "s");
          await assertMatchesOgmiosSchema("ogmios.json#/properties/SubmitTransactionResponse", s);
          // ledger queries go to the upstream too
          c.send({ jsonrpc: "2.0", method: "queryNetwork/tip", id: 5 });
          const tip = await c.next();
          assert.deepEqual(tip.result, vector("QueryNetworkTip/000.json").result);
          // ... but not the whole UTxO set, nor the whole ledger, nor per-connection node state
          const before = upstream.received.length;
          for (
            const [method, params, code] of [
              ["queryLedgerState/utxo", {}, -32602],
              ["queryLedgerState/dump", undefined, -32601],
              ["acquireMempool", undefined, -32601],
            ] as const
          ) {
            c.send({ jsonrpc: "2.0", method, ...(params ? { params } : {}), id: method });
            const refused = await c.next();
            assert.deepEqual([refused.id, refused.error.code], [method, code]);
          }
          assert.equal(upstream.received.length, before, "none of them reached the upstream");
          for (
            const params of [undefined, { transaction: {} }, { transaction: { cbor: "xyz" } }, {
              transaction: { cbor: "84" },
              additionalUtxo: "no",
            }]
          ) {
            c.send({
              jsonrpc: "2.0",
              method: "evaluateTransaction",
              ...(params ? { params } : {}),
              id: "bad",
            });
            const bad = await c.next();
            assert.equal(bad.error.code, -32602, JSON.stringify(params));
            assert.equal(bad.method, "evaluateTransaction");
          }
          c.close();
        },
      );

      await t.step("a dropped upstream connection is re-established", async () => {
        const before = upstream.connections();
        upstream.dropConnections();
        // a request that meets a connection while it closes fails with Ogmios' -32000 (its fate is unknown, so
        // it is not sent again); the pool reconnects, and within a few seconds requests go through
        const deadline = Date.now() + 5_000;
        let r = await post(paid.key, {
          jsonrpc: "2.0",
          method: "submitTransaction",
          params: { transaction: { cbor } },
          id: "again",
        });
        while (r.status !== 200 && Date.now() < deadline) {
          assert.equal(r.body.error?.code, -32000, JSON.stringify(r.body));
          await new Promise((resolve) => setTimeout(resolve, 100));
          r = await post(paid.key, {
            jsonrpc: "2.0",
            method: "submitTransaction",
            params: { transaction: { cbor } },
            id: "again",
          });
        }
        assert.equal(r.status, 200, JSON.stringify(r.body));
        assert.equal(r.body.id, "again");
        assert.ok(upstream.connections() > before, "reconnected");
      });

      await t.step(
        "without an upstream, evaluation and submission say that no node is configured",
        async () => {
          const client = await clientFor("preprod");
          try {
            for (
              const call of [() => client.submitTransaction(cbor), () => client.evaluateTransaction(cbor)]
            ) {
              await assert.rejects(call(), (e: { code?: number; message?: string }) => {
                assert.equal(e.code, -32000);
                assert.match(e.message!, /No node is configured for preprod.*PREPROD_OGMIOS_URL/);
                // on the embedded demo chain the devnet is the other way to take transactions
                assert.equal(
                  /DEVNET_BLOCK_SECONDS/.test(e.message!),
                  testDatabaseUrl === undefined,
                  e.message,
                );
                return true;
              });
            }
          } finally {
            await client.shutdown();
          }
          const r = await post(
            paid.key,
            { jsonrpc: "2.0", method: "submitTransaction", params: { transaction: { cbor } }, id: 1 },
            "/v1/preprod/ogmios",
          );
          assert.equal(r.status, 400);
          assert.equal(r.body.method, "submitTransaction");
        },
      );

      await t.step("a FREE key's submissions per hour are limited, on WebSocket and HTTP", async () => {
        const free = await createKey(env, "--tier", "free", "--name", "submitter");
        const c = await connect(`${ws}/v1/ogmios?apikey=${free.key}`);
        const submit = { jsonrpc: "2.0", method: "submitTransaction", params: { transaction: { cbor } } };
        for (let i = 0; i < 2; i++) {
          c.send(submit);
          assert.ok("result" in await c.next());
        }
        c.send(submit);
        const refused = await c.next();
        assert.equal(refused.error.code, -32029);
        assert.equal(refused.method, "submitTransaction");
        assert.equal(refused.id, null);
        assert.match(refused.error.message, /submission limit exceeded for the FREE tier/);
        assert.ok(refused.error.data.retryAfter > 3_500_000 * 0.9);
        c.send({ jsonrpc: "2.0", method: "queryNetwork/tip", id: "still" });
        assert.equal((await c.next()).id, "still", "queries go on");
        c.close();
        /** The key's JSON-RPC requests counted today, once the usage of the last second is written. */
        const served = async () => {
          await new Promise((resolve) => setTimeout(resolve, 1_500));
          const usage = await keysCli(env, "usage", String(free.id));
          const line = usage.stdout.find((l) => /\sogmios\s+\d+$/.test(l));
          return Number(line?.trim().split(/\s+/).at(-1) ?? 0);
        };
        const servedBefore = await served();
        const http = await post(free.key, { ...submit, id: 9 });
        assert.equal(http.status, 429);
        assert.equal(await served(), servedBefore, "a refused submission is counted as refused, not served");
        assert.deepEqual([http.body.error.code, http.body.id], [-32029, 9]);
        // the headers describe the hourly submission budget that refused it, not the per-second rate
        assert.deepEqual(
          [http.headers.get("x-ratelimit-limit"), http.headers.get("x-ratelimit-remaining")],
          [env.SUBMISSIONS_PER_HOUR_FREE, "0"],
        );
        assert.ok(Number(http.headers.get("retry-after")) > 3_000, http.headers.get("retry-after") ?? "none");
      });

      await t.step("an unreachable upstream gives Ogmios' connection error", async () => {
        await upstream.stop();
        // a request may still leave on a socket whose close the service has not yet seen: that one fails as a
        // lost connection; once the pool knows, requests fail as unreachable. Both are Ogmios' -32000.
        let r = await post(paid.key, { jsonrpc: "2.0", method: "queryNetwork/tip", id: 1 });
        for (let i = 0; i < 50 && !/unreachable/.test(r.body.error?.message ?? ""); i++) {
          assert.equal(r.status, 400);
          assert.equal(r.body.error.code, -32000);
          assert.match(r.body.error.message, /lost or failed/);
          await new Promise((resolve) => setTimeout(resolve, 100));
          r = await post(paid.key, { jsonrpc: "2.0", method: "queryNetwork/tip", id: 1 });
        }
        assert.equal(r.status, 400);
        assert.equal(r.body.error.code, -32000);
        assert.match(r.body.error.message, /unreachable/);
      });
    } finally {
      await upstream.stop().catch(() => {});
      await service.stop();
      await environment.close();
    }
  },
});
