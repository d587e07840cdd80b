/**
 * The per-second rate is exact across instances over real HTTP (issue 22): two service instances on one Redis,
 * one FREE key, three times its rate sent through both across a wall-clock second boundary (where aligned
 * windows used to hand out two budgets). No one-second interval may hold more 200s than the rate. The server's
 * grant times are not visible, so a 200 is only known to have been granted between its send and its receive: a
 * violation is counted only when rate + 1 answers certainly fit in one second (first send to last receive). The
 * refused requests spend nothing of the daily quota.
 */
import assert from "node:assert/strict";
import { startService } from "../support/service.ts";
import { createKey, createTestEnvironment, redisUrl } from "../support/environment.ts";
import { testDatabaseUrl } from "../support/databases.ts";

const rate = 20;

interface Answer {
  readonly status: number;
  readonly sent: number;
  readonly received: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The most 200s certainly granted within one second: all sent and answered in less than a second. */
const surelyInOneSecond = (answers: ReadonlyArray<Answer>): number => {
  const served = answers.filter((a) => a.status === 200);
  let most = 0;
  for (const first of served) {
    // the 200s sent no earlier than `first`, whose answers came within a second of its send
    const within = served.filter((a) => a.sent >= first.sent && a.received - first.sent < 1000).length;
    most = Math.max(most, within);
  }
  return most;
};

Deno.test({
  name: "two instances on one Redis never serve more than the rate in any one second",
  ignore: !redisUrl || !testDatabaseUrl,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const environment = await createTestEnvironment("exact_limits");
    const env = { ...environment.env, RATE_LIMIT_FREE: String(rate) };
    const one = await startService(env);
    const two = await startService(env);
    try {
      const { key } = await createKey(env, "--tier", "free", "--name", "exact");
      const call = async (base: string): Promise<Answer> => {
        const sent = performance.now();
        const r = await fetch(`${base}/v1/key`, { headers: { apikey: key } });
        await r.body?.cancel();
        return { status: r.status, sent, received: performance.now() };
      };
      // 3 x the rate in 12 waves 25 ms apart, from 150 ms before a second boundary to 150 ms after it
      await sleep(1000 - (Date.now() % 1000) + 850);
      const pending: Array<Promise<Answer>> = [];
      for (let wave = 0; wave < 12; wave++) {
        for (let i = 0; i < (3 * rate) / 12; i++) pending.push(call(i % 2 === 0 ? one.base : two.base));
        await sleep(25);
      }
      const answers = await Promise.all(pending);
      const served = answers.filter((a) => a.status === 200).length;
      assert.equal(served + answers.filter((a) => a.status === 429).length, answers.length);
      assert.ok(served >= 1, "some were served");
      const most = surelyInOneSecond(answers);
      assert.ok(
        most <= rate,
        `${most} answers served within one second (of ${served} served), the rate is ${rate}`,
      );
      // the refused ones spent nothing of the day: only the served ones, and this call, count
      await sleep(1100);
      const info = await fetch(`${two.base}/v1/key`, { headers: { apikey: key } });
      assert.equal(info.status, 200);
      assert.equal((await info.json()).budget.requestsToday, served + 1);
    } finally {
      await two.stop();
      await one.stop();
      await environment.close();
    }
  },
});
