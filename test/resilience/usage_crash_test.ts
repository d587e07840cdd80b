/**
 * Usage survives a crash to within a second (issue 14: a crash lost up to 5 s of usage): requests, SIGKILL a
 * little over a second later, and every one of them is counted in the service database.
 */
import assert from "node:assert/strict";
import { createKey, createTestEnvironment } from "../support/environment.ts";
import { sleep, usageOf } from "../support/private_servers.ts";
import { spawnService } from "../support/service.ts";

Deno.test({
  name: "SIGKILL 1.5 s after the last request: every request counted",
  sanitizeResources: false,
  fn: async () => {
    const environment = await createTestEnvironment("usage_crash");
    const service = spawnService(environment.env);
    try {
      const base = await service.listening;
      const { key, id } = await createKey(environment.env, "--tier", "paid", "--name", "usage crash");
      const statuses = await Promise.all(Array.from({ length: 30 }, async () => {
        const r = await fetch(`${base}/v1/key`, { headers: { apikey: key } });
        await r.body?.cancel();
        return r.status;
      }));
      assert.ok(statuses.every((s) => s === 200), `${statuses}`);
      // a one-second flush has run by now (a 1 s period, plus the flush's own write)
      await sleep(1_500);
      service.kill("SIGKILL");
      assert.notEqual(await service.exited, 0, "killed, not stopped");
      assert.equal(await usageOf(environment.env, id, "account"), 30);
    } finally {
      service.kill("SIGKILL");
      await service.exited;
      await environment.close();
    }
  },
});
