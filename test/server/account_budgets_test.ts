/**
 * FREE limits per account, over real HTTP (issue 19): the FREE keys of one signed-up account share one set of
 * FREE budgets (rate per second, GraphQL rate, daily quota, submissions per hour), while the operator's keys made
 * by the CLI and PAID keys keep their own; /v1/key, the dashboard and `keys usage` say the budget is shared; a
 * FREE account holds at most FREE_KEYS_PER_ACCOUNT active keys, also against concurrent creations. With
 * REDIS_URL, the shared budget holds across two instances.
 */
import assert from "node:assert/strict";
import { startService } from "../support/service.ts";
import { createKey, createTestEnvironment, keysCli, redisUrl } from "../support/environment.ts";
import { accountsCli } from "../support/accounts.ts";
import { csrfOf, DashboardClient, secretOf } from "../support/dashboard_client.ts";

const password = "a long enough password";
const rate = 10;
const quota = 20;
const limits = {
  RATE_LIMIT_FREE: String(rate),
  GRAPHQL_RATE_FREE: "2",
  DAILY_QUOTA_FREE: String(quota),
  SUBMISSIONS_PER_HOUR_FREE: "2",
  FREE_KEYS_PER_ACCOUNT: "10",
};
const allPermissions = {
  networks: ["mainnet", "preprod"],
  families: ["rest", "explorer", "graphql", "jsonrpc", "submission"],
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const keyInfo = async (base: string, key: string) => {
  const r = await fetch(`${base}/v1/key`, { headers: { apikey: key } });
  return { status: r.status, body: await r.json() };
};

/** One submission (undecodable: it is counted before it is read); true when the hourly budget refused it. */
const submitRefused = async (base: string, key: string) => {
  const r = await fetch(`${base}/v1/ogmios`, {
    method: "POST",
    headers: { apikey: key, "content-type": "application/json" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      method: "submitTransaction",
      params: { transaction: { cbor: "00" } },
      id: 1,
    }),
  });
  const body = await r.json();
  return body.error?.code === -32029;
};

/**
 * Fires every call at once just after a wall-clock second starts (the budgets' window); returns the statuses
 * and how many windows the burst touched (a loaded machine may spread it over two).
 */
const burst = async (calls: ReadonlyArray<() => Promise<number>>) => {
  await sleep(1000 - (Date.now() % 1000) + 10);
  const first = Math.floor(Date.now() / 1000);
  const statuses = await Promise.all(calls.map((call) => call()));
  const windows = Math.floor(Date.now() / 1000) - first + 1;
  return { statuses, windows, served: statuses.filter((s) => s === 200).length };
};

const times = <A>(n: number, f: () => A): Array<A> => Array.from({ length: n }, f);

Deno.test({
  name: "FREE limits per account over HTTP",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const environment = await createTestEnvironment("account_budgets");
    const env = { ...environment.env, ...limits };
    let service = await startService(env);
    let base = service.base;
    const get = (key: string, at = base) => async () => {
      const r = await fetch(`${at}/v1/key`, { headers: { apikey: key } });
      await r.body?.cancel();
      return r.status;
    };
    /** A signed-up account (its dashboard session) and its keys: the sign-up's and `more` made on the dashboard. */
    const account = async (email: string, more: number) => {
      const client = new DashboardClient(base);
      const keys = [await client.signUp(email, password)];
      for (let i = 0; i < more; i++) {
        keys.push((await client.createKey({ name: `key ${i + 2}`, tier: "FREE", ...allPermissions })).secret);
      }
      return { client, keys };
    };
    try {
      await t.step("two FREE keys of one account spend one rate budget", async () => {
        const { keys } = await account("rate@example.com", 1);
        const b = await burst(keys.flatMap((key) => times(rate, () => get(key))));
        console.log(
          `2 keys x ${rate} requests at once (FREE rate ${rate}/s): ${b.served} x 200, ` +
            `${b.statuses.filter((s) => s === 429).length} x 429, over ${b.windows} window(s)`,
        );
        assert.ok(b.served <= rate * b.windows, `${b.served} served, one budget is ${rate} a second`);
        assert.ok(b.served >= 1);
      });

      await t.step("and one GraphQL rate budget", async () => {
        const { keys } = await account("graphql@example.com", 1);
        const query = (key: string) => async () => {
          const r = await fetch(`${base}/v1/graphql`, {
            method: "POST",
            headers: { apikey: key, "content-type": "application/json" },
            body: JSON.stringify({ query: "{ __typename }" }),
          });
          await r.body?.cancel();
          return r.status;
        };
        const b = await burst(keys.flatMap((key) => times(4, () => query(key))));
        console.log(`2 keys x 4 GraphQL requests at once (FREE GraphQL rate 2/s): ${b.served} x 200`);
        assert.ok(b.served <= 2 * b.windows, `${b.served} GraphQL requests served, one budget is 2 a second`);
      });

      await t.step("and one daily quota", async () => {
        const { keys } = await account("daily@example.com", 1);
        const statuses: Array<number> = [];
        for (const key of keys) {
          for (let i = 0; i < 12; i++) {
            statuses.push(await get(key)());
            await sleep(150); // under the per-second rate: only the quota may refuse
          }
        }
        const served = statuses.filter((s) => s === 200).length;
        console.log(`2 keys x 12 paced requests (FREE daily quota ${quota}): ${served} x 200`);
        assert.equal(served, quota);
        const refused = await fetch(`${base}/v1/key`, { headers: { apikey: keys[0]! } });
        assert.equal(refused.status, 429);
        assert.match((await refused.json()).error.message, /^Daily request limit exceeded for the FREE tier/);
        // a restarted instance starts from the account's recorded usage, all its keys together
        await sleep(1_500); // the usage flush
        await service.stop();
        service = await startService(env);
        base = service.base;
        for (const key of keys) {
          const r = await fetch(`${base}/v1/key`, { headers: { apikey: key } });
          assert.equal(r.status, 429, "the day's shared quota stays spent after a restart");
          await r.body?.cancel();
        }
      });

      await t.step("and one hourly submission budget", async () => {
        const { keys } = await account("subs@example.com", 1);
        assert.deepEqual(
          [
            await submitRefused(base, keys[0]!),
            await submitRefused(base, keys[1]!),
            await submitRefused(base, keys[1]!),
            await submitRefused(base, keys[0]!),
          ],
          [false, false, true, true],
        );
        const info = await keyInfo(base, keys[1]!);
        assert.equal(info.status, 200);
        assert.deepEqual(
          { ...info.body.budget, requestsToday: undefined },
          {
            shared: true,
            keys: 2,
            description: "shared by the account's 2 active FREE keys: " +
              "their requests and submissions count against these limits together",
            requestsToday: undefined,
            requestsLeftToday: quota - info.body.budget.requestsToday,
            submissionsLastHour: 2,
            submissionsLeftThisHour: 0,
          },
        );
        // 4 submissions and this request, whichever key made them
        assert.equal(info.body.budget.requestsToday, 5);
      });

      await t.step("the operator's CLI keys without an account keep a budget each", async () => {
        const one = await createKey(env, "--tier", "free", "--name", "operator one");
        const two = await createKey(env, "--tier", "free", "--name", "operator two");
        const b = await burst([one.key, two.key].flatMap((key) => times(rate, () => get(key))));
        console.log(`2 operator FREE keys x ${rate} requests at once: ${b.served} x 200`);
        assert.ok(b.served > rate, `${b.served} served: each key has its own ${rate} a second`);
        await sleep(1_100); // a fresh second: the submissions below meet no rate refusal
        assert.deepEqual(
          [
            await submitRefused(base, one.key),
            await submitRefused(base, one.key),
            await submitRefused(base, two.key),
            await submitRefused(base, two.key),
            await submitRefused(base, one.key),
          ],
          [false, false, false, false, true],
        );
        const info = await keyInfo(base, one.key);
        assert.deepEqual(
          [info.body.budget.shared, info.body.budget.keys, info.body.budget.description],
          [false, 1, "this key's own"],
        );
        assert.equal(info.body.budget.submissionsLastHour, 2);
      });

      await t.step("a PAID key keeps its own budget beside its account's spent FREE one", async () => {
        const plan = await accountsCli(env, "plan", "subs@example.com", "paid");
        assert.equal(plan.code, 0, plan.stderr);
        const paid = await createKey(
          env,
          "--tier",
          "paid",
          "--name",
          "paid",
          "--account",
          "subs@example.com",
        );
        assert.equal(await submitRefused(base, paid.key), false);
        const info = await keyInfo(base, paid.key);
        assert.equal(info.body.budget.shared, false);
      });

      await t.step("the dashboard and `keys usage` show the shared budget as such", async () => {
        const { client, keys } = await account("shown@example.com", 1);
        for (const key of keys) assert.equal(await get(key)(), 200);
        await sleep(1_500); // the usage flush
        const page = await client.get("/dashboard");
        assert.match(page.text, /one FREE budget, shared by your 2 active FREE keys/);
        // the quota left is the one budget's, not one per key
        assert.match(
          page.text,
          new RegExp(`<div class="figure">${quota - 2}</div>\\s*<div class="label">of today`),
        );
        const usage = await keysCli(env, "usage");
        assert.equal(usage.code, 0, usage.stderr.join("\n"));
        assert.ok(
          usage.stdout.some((l) =>
            l.includes(`shown@example.com: 2 active FREE keys share one budget; today 2 of ${quota} requests`)
          ),
          usage.stdout.join("\n"),
        );
      });

      await t.step(
        "the 11th active FREE key is refused; below the limit again, one can be made",
        async () => {
          const { client } = await account("cap@example.com", 9);
          const refused = await client.submit("/dashboard/keys/new", "/dashboard/keys/new", {
            name: "eleventh",
            tier: "FREE",
            ...allPermissions,
          });
          assert.equal(refused.status, 409);
          assert.match(refused.text, /A FREE account holds at most 10 active keys/);
          const ids = [...(await client.get("/dashboard")).text.matchAll(/href="\/dashboard\/keys\/(\d+)"/g)]
            .map((m) => Number(m[1]));
          const csrf = csrfOf((await client.get("/dashboard")).text)!;
          const off = await client.post(`/dashboard/keys/${ids[0]}/deactivate`, { csrf });
          assert.equal(off.status, 303);
          await client.createKey({ name: "tenth again", tier: "FREE", ...allPermissions });
          const back = await client.post(`/dashboard/keys/${ids[0]}/activate`, { csrf });
          assert.equal(back.status, 409);
          assert.match(back.text, /A FREE account holds at most 10 active keys/);
        },
      );

      await t.step("concurrent creations never pass the limit", async () => {
        const { client } = await account("race@example.com", 0);
        const csrf = csrfOf((await client.get("/dashboard/keys/new")).text)!;
        const answers = await Promise.all(
          Array.from(
            { length: 20 },
            (_, i) =>
              client.post("/dashboard/keys/new", {
                csrf,
                name: `racer ${i}`,
                tier: "FREE",
                ...allPermissions,
              }),
          ),
        );
        const made = answers.filter((a) => a.status === 200 && secretOf(a.text) !== undefined).length;
        const refused = answers.filter((a) => a.status === 409).length;
        console.log(`20 concurrent creations on an account holding 1 key: ${made} made, ${refused} refused`);
        assert.deepEqual([made, refused], [9, 11]);
        const listed = (await client.get("/dashboard")).text.match(/status-active/g)?.length;
        assert.equal(listed, 10);
      });

      if (redisUrl) {
        await t.step("with Redis, two instances share the account's budget", async () => {
          const second = await startService(env);
          try {
            const { keys } = await account("instances@example.com", 1);
            const b = await burst([
              ...times(rate, () => get(keys[0]!)),
              ...times(rate, () => get(keys[1]!, second.base)),
            ]);
            console.log(`2 keys on 2 instances x ${rate} requests at once: ${b.served} x 200`);
            assert.ok(b.served <= rate * b.windows, `${b.served} served across instances`);
          } finally {
            await second.stop();
          }
        });
      }
    } finally {
      await service.stop();
      await environment.close();
    }
  },
});
