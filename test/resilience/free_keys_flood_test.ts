/**
 * A FREE account that makes keys to multiply its limits (issue 19): ten FREE keys of one account, all used at
 * once as fast as they go, get one FREE budget between them: never more than one rate budget a second, nor more
 * than one daily quota in all. The eleventh key is not made at all. Over real HTTP against the running service
 * (and, with REDIS_URL, its Redis limiter).
 */
import assert from "node:assert/strict";
import { startService } from "../support/service.ts";
import { createTestEnvironment } from "../support/environment.ts";
import { DashboardClient } from "../support/dashboard_client.ts";

const rate = 10;
/** Under what three seconds of the rate would serve (a refused request spends nothing), so the flood meets it. */
const quota = 30;
const keysPerAccount = 10;
const allPermissions = {
  networks: ["mainnet", "preprod"],
  families: ["rest", "explorer", "graphql", "jsonrpc", "submission"],
};

Deno.test({
  name: "ten FREE keys of one account used at once get one FREE budget",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const environment = await createTestEnvironment("free_keys_flood");
    const service = await startService({
      ...environment.env,
      RATE_LIMIT_FREE: String(rate),
      DAILY_QUOTA_FREE: String(quota),
      FREE_KEYS_PER_ACCOUNT: String(keysPerAccount),
    });
    const base = service.base;
    try {
      const client = new DashboardClient(base);
      const keys = [await client.signUp("many-keys@example.com", "a long enough password")];
      while (keys.length < keysPerAccount) {
        keys.push(
          (await client.createKey({ name: `key ${keys.length + 1}`, tier: "FREE", ...allPermissions }))
            .secret,
        );
      }

      const call = async (key: string, i: number) => {
        // REST and the key's own info alike: one budget whatever the endpoint
        const path = i % 2 === 0 ? "/v1/key" : "/api/public/price";
        const r = await fetch(`${base}${path}`, { headers: { apikey: key } });
        await r.body?.cancel();
        return r.status;
      };

      // all ten keys at once, just after a second starts
      await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 10));
      let first = Math.floor(Date.now() / 1000);
      const burst = await Promise.all(
        keys.flatMap((key) => Array.from({ length: rate }, (_, i) => call(key, i))),
      );
      let windows = Math.floor(Date.now() / 1000) - first + 1;
      const burstServed = burst.filter((s) => s === 200).length;
      console.log(
        `${keysPerAccount} keys x ${rate} requests at once (FREE rate ${rate}/s): ${burstServed} x 200, ` +
          `${burst.filter((s) => s === 429).length} x 429, over ${windows} window(s)`,
      );
      assert.ok(burstServed <= rate * windows, `${burstServed} served: one budget is ${rate} a second`);
      assert.deepEqual(new Set(burst), new Set([200, 429]));

      // then every key as fast as it goes for three seconds: one daily quota in all
      first = Math.floor(Date.now() / 1000);
      const until = Date.now() + 3_000;
      const flood = (await Promise.all(keys.map(async (key) => {
        const statuses: Array<number> = [];
        for (let i = 0; Date.now() < until; i++) statuses.push(await call(key, i));
        return statuses;
      }))).flat();
      windows = Math.floor(Date.now() / 1000) - first + 1;
      const floodServed = flood.filter((s) => s === 200).length;
      console.log(
        `${keysPerAccount} keys flooding for 3 s: ${flood.length} requests, ${floodServed} x 200 ` +
          `(${burstServed + floodServed} today, FREE daily quota ${quota}) over ${windows} window(s)`,
      );
      assert.ok(floodServed <= rate * windows, `${floodServed} served in ${windows} s`);
      assert.ok(burstServed + floodServed <= quota, `${burstServed + floodServed} served today`);
      await new Promise((r) => setTimeout(r, 1_100)); // a fresh second: only the quota may refuse
      const spent = await fetch(`${base}/v1/key`, { headers: { apikey: keys[keysPerAccount - 1]! } });
      assert.equal(spent.status, 429);
      assert.match((await spent.json()).error.message, /^Daily request limit exceeded/);
      // and more keys are not the way around it
      const eleventh = await client.submit("/dashboard/keys/new", "/dashboard/keys/new", {
        name: "one more",
        tier: "FREE",
        ...allPermissions,
      });
      assert.equal(eleventh.status, 409);
    } finally {
      await service.stop();
      await environment.close();
    }
  },
});
