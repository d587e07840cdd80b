/**
 * Account keys through the real HTTP service (issue 16): the key made at sign-up works at once; a rotated
 * secret and a revoked key are refused within a second; a key's permissions hold on every interface (REST,
 * explorer, GraphQL, JSON-RPC over HTTP and WebSocket, and transaction submission) with a 403 naming what the
 * key lacks; prepaid credits run out with 401 `Insufficient credits` and come back with a top-up; last use and
 * 429s reach the account's usage; and no secret ever appears in the service's logs.
 */
import assert from "node:assert/strict";
import { Effect, Option } from "effect";
import { startService } from "../support/service.ts";
import { createTestEnvironment } from "../support/environment.ts";
import { connect } from "../support/ogmios_ws.ts";
import { accountsHarness, serviceDatabaseOf } from "../support/accounts.ts";
import { makeAccountStore } from "@layers/account_store.ts";
import { signUp } from "@src/programs/accounts/sign_up.ts";
import { logIn } from "@src/programs/accounts/log_in.ts";
import { createKey } from "@src/programs/accounts/create_key.ts";
import { rotateKey } from "@src/programs/accounts/rotate_key.ts";
import { revokeKey } from "@src/programs/accounts/revoke_key.ts";
import { listKeys } from "@src/programs/accounts/list_keys.ts";
import { usageReport } from "@src/programs/accounts/usage_report.ts";
import { within } from "../support/within.ts";

const password = "a long enough password";

Deno.test({
  name: "account keys over HTTP",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const environment = await createTestEnvironment("account_keys");
    // debug logs every answer: they must hold no secret either
    const env = { ...environment.env, LOG_LEVEL: "debug", RATE_LIMIT_FREE: "20" };
    const service = await startService(env);
    const db = await serviceDatabaseOf(env);
    const secrets: Array<string> = [password];
    try {
      const { ok, logs } = await accountsHarness(db.sql);
      const base = service.base;
      const ws = base.replace(/^http/, "ws");
      const get = async (path: string, key: string) => {
        const r = await fetch(`${base}${path}`, { headers: { apikey: key } });
        return { status: r.status, body: await r.json() };
      };
      const post = async (path: string, key: string, body: unknown) => {
        const r = await fetch(`${base}${path}?apikey=${key}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        });
        return { status: r.status, body: await r.json() };
      };
      const refusal = (status: number, message: string) => ({
        status,
        body: { error: { code: status, message } },
      });
      /** The same refusal on a GraphQL endpoint: a GraphQL error (403s are `access-denied`). */
      const graphqlRefusal = (status: number, message: string) => ({
        status,
        body: { errors: [{ message, extensions: { path: "$", code: "access-denied" } }] },
      });

      const { account, key } = await ok(
        signUp({ email: "dev@example.com", password, clientAddress: "127.0.0.1" }),
      );
      secrets.push(key.secret);
      const session = await ok(logIn({ email: "dev@example.com", password, clientAddress: "127.0.0.1" }));
      secrets.push(session.session.secret, session.session.csrfToken);

      await t.step("the key made at sign-up works at once", async () => {
        const r = await get("/v1/key", key.secret);
        assert.equal(r.status, 200);
        assert.deepEqual([r.body.name, r.body.tier], ["Default key", "FREE"]);
      });

      await t.step("rotate: the old secret is refused within a second, the new one works", async () => {
        const { secret } = await ok(rotateKey(account.id, key.id));
        secrets.push(secret);
        const ms = await within(1000, async () => (await get("/v1/key", key.secret)).status === 401);
        assert.deepEqual(await get("/v1/key", key.secret), refusal(401, "Invalid API key"));
        assert.equal((await get("/v1/key", secret)).status, 200);
        console.log(`old secret refused after ${Math.round(ms)} ms`);
      });

      await t.step("revoke: 401 Key revoked within a second", async () => {
        const made = await ok(createKey(account.id, { name: "short-lived", tier: "FREE" }));
        secrets.push(made.secret);
        assert.equal((await get("/v1/key", made.secret)).status, 200);
        await ok(revokeKey(account.id, made.id));
        await within(1000, async () => (await get("/v1/key", made.secret)).status === 401);
        assert.deepEqual(await get("/v1/key", made.secret), refusal(401, "Key revoked"));
      });

      await t.step(
        "a preprod-only key: 403 naming mainnet on every interface, served on preprod",
        async () => {
          const { secret } = await ok(createKey(account.id, {
            name: "preprod only",
            tier: "FREE",
            permissions: { networks: ["preprod"] },
          }));
          secrets.push(secret);
          const lacks = refusal(403, "This key may not be used on mainnet (allowed: preprod)");
          assert.deepEqual(await get("/v2/explorer/mainnet/stats", secret), lacks);
          assert.equal((await get("/v2/explorer/preprod/stats", secret)).status, 200);
          assert.deepEqual(await get("/api/public/protocol-parameters", secret), lacks);
          assert.deepEqual(await get("/api/public/protocol-parameters?network=mainnet", secret), lacks);
          assert.equal((await get("/api/public/protocol-parameters?network=preprod", secret)).status, 200);
          const query = { query: "{ cardano { tip { number } } }" };
          assert.deepEqual(
            await post("/v1/graphql", secret, query),
            graphqlRefusal(403, "This key may not be used on mainnet (allowed: preprod)"),
          );
          assert.equal((await post("/v1/preprod/graphql", secret, query)).status, 200);
          const tip = { jsonrpc: "2.0", method: "queryNetwork/tip", id: 1 };
          assert.deepEqual(await post("/v1/ogmios", secret, tip), lacks);
          assert.equal((await post("/v1/preprod/ogmios", secret, tip)).status, 200);
          await assert.rejects(connect(`${ws}/v1/ogmios?apikey=${secret}`), /HTTP 403/);
          const c = await connect(`${ws}/v1/preprod/ogmios?apikey=${secret}`);
          c.send(tip);
          assert.ok("result" in await c.next());
          c.close();
        },
      );

      await t.step("a key without GraphQL: 403 naming GraphQL; its other families served", async () => {
        const { secret } = await ok(createKey(account.id, {
          name: "no graphql",
          tier: "FREE",
          permissions: { families: ["rest", "explorer", "jsonrpc"] },
        }));
        secrets.push(secret);
        assert.deepEqual(
          await post("/v1/graphql", secret, { query: "{ cardano { tip { number } } }" }),
          graphqlRefusal(403, "This key may not be used for GraphQL (allowed: REST, explorer, JSON-RPC)"),
        );
        assert.equal((await get("/api/public/protocol-parameters", secret)).status, 200);
        assert.equal((await get("/v2/explorer/mainnet/stats", secret)).status, 200);
        assert.equal(
          (await post("/v1/ogmios", secret, { jsonrpc: "2.0", method: "queryNetwork/tip", id: 1 })).status,
          200,
        );
      });

      await t.step(
        "a GraphQL-only key: 403 naming REST, explorer and JSON-RPC (HTTP and WebSocket)",
        async () => {
          const { secret } = await ok(createKey(account.id, {
            name: "graphql only",
            tier: "FREE",
            permissions: { families: ["graphql"] },
          }));
          secrets.push(secret);
          const lacks = (family: string) =>
            refusal(403, `This key may not be used for ${family} (allowed: GraphQL)`);
          assert.deepEqual(await get("/api/public/protocol-parameters", secret), lacks("REST"));
          assert.deepEqual(await get("/v2/explorer/mainnet/stats", secret), lacks("explorer"));
          assert.deepEqual(
            await post("/v1/ogmios", secret, { jsonrpc: "2.0", method: "queryNetwork/tip", id: 1 }),
            lacks("JSON-RPC"),
          );
          await assert.rejects(connect(`${ws}/v1/ogmios?apikey=${secret}`), /HTTP 403/);
          assert.equal(
            (await post("/v1/graphql", secret, { query: "{ cardano { tip { number } } }" })).status,
            200,
          );
        },
      );

      await t.step(
        "a key without submission: queries served, submitTransaction refused naming it",
        async () => {
          // the account's FREE keys share one rate budget, which the step before may have spent this second
          await new Promise((r) => setTimeout(r, 1_100));
          const { secret } = await ok(createKey(account.id, {
            name: "no submission",
            tier: "FREE",
            permissions: { families: ["jsonrpc"] },
          }));
          secrets.push(secret);
          const submit = {
            jsonrpc: "2.0",
            method: "submitTransaction",
            params: { transaction: { cbor: "84a300" } },
            id: 7,
          };
          const message = "This key may not be used for transaction submission (allowed: JSON-RPC)";
          const r = await post("/v1/ogmios", secret, submit);
          assert.equal(r.status, 403);
          assert.deepEqual([r.body.id, r.body.error.code, r.body.error.message], [7, -32403, message]);
          const c = await connect(`${ws}/v1/ogmios?apikey=${secret}`);
          c.send({ jsonrpc: "2.0", method: "queryNetwork/tip", id: 1 });
          assert.ok("result" in await c.next());
          c.send(submit);
          const reply = await c.next();
          assert.deepEqual([reply.id, reply.error.code, reply.error.message], [7, -32403, message]);
          c.close();
        },
      );

      await t.step("credits: N requests, then 401 Insufficient credits; a top-up serves again", async () => {
        const store = makeAccountStore(db.sql, "cds");
        await Effect.runPromise(store.setPlan("dev@example.com", "PAID"));
        await Effect.runPromise(store.setCredits("dev@example.com", 5));
        const { secret } = await ok(createKey(account.id, { name: "prepaid", tier: "PAID" }));
        secrets.push(secret);
        const statuses = [];
        for (let i = 0; i < 7; i++) statuses.push((await get("/v1/key", secret)).status);
        assert.deepEqual(statuses, [200, 200, 200, 200, 200, 401, 401]);
        assert.deepEqual(await get("/v1/key", secret), refusal(401, "Insufficient credits"));
        // the spent credits reach the database with the next flush
        await within(
          3000,
          async () => Option.getOrThrow(await Effect.runPromise(store.byId(account.id))).credits === 0,
        );
        await Effect.runPromise(store.setCredits("dev@example.com", 2));
        await within(1000, async () => (await get("/v1/key", secret)).status === 200);
        assert.equal((await get("/v1/key", secret)).status, 200);
        assert.equal((await get("/v1/key", secret)).status, 401);
        await Effect.runPromise(store.setCredits("dev@example.com", null));
        await within(1000, async () => (await get("/v1/key", secret)).status === 200);
        for (let i = 0; i < 5; i++) assert.equal((await get("/v1/key", secret)).status, 200);
      });

      await t.step("a JSON-RPC submission over HTTP is one request: one credit, counted once", async () => {
        const store = makeAccountStore(db.sql, "cds");
        await Effect.runPromise(store.setCredits("dev@example.com", 3));
        const { id, secret } = await ok(createKey(account.id, { name: "submitter", tier: "PAID" }));
        secrets.push(secret);
        const submit = {
          jsonrpc: "2.0",
          method: "submitTransaction",
          params: { transaction: { cbor: "84a300" } },
        };
        const submitted = await post("/v1/ogmios", secret, { ...submit, id: 1 });
        assert.equal(submitted.body.method, "submitTransaction", JSON.stringify(submitted.body));
        const statuses = [];
        for (let i = 0; i < 3; i++) statuses.push((await get("/v1/key", secret)).status);
        assert.deepEqual(statuses, [200, 200, 401], "the submission spent one credit of three");
        await within(3000, async () => (await ok(usageReport(account.id, id))).keys[0]!.requestsToday === 3);
        await Effect.runPromise(store.setCredits("dev@example.com", null));
        await within(1000, async () => (await get("/v1/key", secret)).status === 200);
      });

      await t.step(
        "an account moved to the FREE plan: its PAID keys answer as FREE within a second",
        async () => {
          const store = makeAccountStore(db.sql, "cds");
          const { secret } = await ok(createKey(account.id, { name: "was paid", tier: "PAID" }));
          secrets.push(secret);
          assert.equal((await get("/v1/key", secret)).body.tier, "PAID");
          assert.ok((await Effect.runPromise(store.setPlan("dev@example.com", "FREE")))! >= 1);
          const ms = await within(1000, async () => (await get("/v1/key", secret)).body.tier === "FREE");
          console.log(`FREE limits after ${Math.round(ms)} ms`);
          await Effect.runPromise(store.setPlan("dev@example.com", "PAID"));
        },
      );

      await t.step("last use and 429s reach the account's keys and usage", async () => {
        const { id, secret } = await ok(createKey(account.id, { name: "busy", tier: "FREE" }));
        secrets.push(secret);
        await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 20));
        const statuses = await Promise.all(
          Array.from({ length: 40 }, () => get("/v1/key", secret).then((r) => r.status)),
        );
        const refused = statuses.filter((s) => s === 429).length;
        assert.ok(refused >= 1, JSON.stringify(statuses));
        await within(3000, async () => {
          const report = await ok(usageReport(account.id, id));
          return report.days[29]!.rateLimited === refused && report.keys[0]!.requestsToday === 40 - refused;
        });
        const listed = (await ok(listKeys(account.id))).find((k) => k.id === id)!;
        assert.ok(listed.lastUsedAt && Date.now() - listed.lastUsedAt.getTime() < 10_000);
      });

      await t.step("no secret appears in the service's logs or the programs' logs", () => {
        assert.ok(service.lines.some((l) => l.includes("answered")), "debug lines were written");
        const text = [...service.lines, ...logs].join("\n");
        for (const secret of secrets) assert.ok(!text.includes(secret), "a secret was logged");
      });
    } finally {
      await db.close();
      await service.stop();
      await environment.close();
    }
  },
});
