/**
 * Attacks on log-in (issue 19). Against a running service, over real HTTP: hundreds of wrong passwords for one
 * account from one address at once are counted before any is checked, so at most the account's allowance is
 * hashed and the rest is refused (429, or 503 when the hashes' queue is full) while /health keeps answering
 * and memory stays bounded; the owner's browser, which logged in before (its device cookie), still logs in,
 * a browser without one meets the account's lock; and a sign-up from an address whose log-ins are throttled
 * still shows its key's secret. Below the pages: a stranger's flood from hundreds of addresses does not lock
 * out the owner's browser, and log-ins for hundreds of accounts at once run no more password hashes at a time
 * than the gate allows (the rest `PasswordHashBusy`), at the service's real scrypt parameters.
 */
import assert from "node:assert/strict";
import { cpus } from "node:os";
import { Exit } from "effect";
import { createTestEnvironment } from "../support/environment.ts";
import { createTestDatabase } from "../support/databases.ts";
import { startService } from "../support/service.ts";
import { csrfOf, DashboardClient, secretOf } from "../support/dashboard_client.ts";
import { accountsHarness, outcome } from "../support/accounts.ts";
import { assertHealthKeptUp, describeLatency, healthWhile, percentile } from "../support/health_latency.ts";
import { defaultRules } from "@layers/attempt_throttle.ts";
import { defaultParameters, passwordHashGate } from "@layers/password_hash.ts";
import { logIn } from "@src/programs/accounts/log_in.ts";
import { signUp } from "@src/programs/accounts/sign_up.ts";

const password = "the owner's real password";
const mib = 1024 * 1024;
const accountLimit = defaultRules["login-account"].limit;
const addressLimit = defaultRules["login-address"].limit;
/** What one scrypt at today's parameters holds while it runs. */
const hashMib = (128 * defaultParameters.N * defaultParameters.r) / mib;

/** A process's resident memory, or undefined once it has exited (a zombie's status has no VmRSS line). */
const rssIfRunning = async (pid: number | "self"): Promise<number | undefined> => {
  const status = await Deno.readTextFile(`/proc/${pid}/status`).catch(() => "");
  const kb = status.match(/VmRSS:\s+(\d+) kB/)?.[1];
  return kb === undefined ? undefined : Number(kb) * 1024;
};

const rssOfPid = async (pid: number | "self"): Promise<number> => {
  const rss = await rssIfRunning(pid);
  if (rss === undefined) throw new Error(`process ${pid} is not running`);
  return rss;
};

/** Runs `work` while sampling RSS every 10 ms: before and peak. Sampling stops early if the process exits
 * (the flood process prints its result and ends, possibly before `work` has read it). */
const withRss = async <T>(pid: number | "self", work: () => Promise<T>) => {
  const before = await rssOfPid(pid);
  let peak = before;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const rss = await rssIfRunning(pid);
      if (rss === undefined) break;
      peak = Math.max(peak, rss);
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  try {
    const result = await work();
    return { result, before, peak };
  } finally {
    sampling = false;
    await sampler;
  }
};

/** 300 password checks at once in a process of their own (test/support/password_hash_flood.ts), its RSS sampled. */
const hashFloodRss = async (count: number) => {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "test/support/password_hash_flood.ts", String(count)],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  const line = async () => {
    for (;;) {
      const nl = text.indexOf("\n");
      if (nl >= 0) {
        const first = text.slice(0, nl);
        text = text.slice(nl + 1);
        return first;
      }
      const { value, done } = await lines.read();
      if (done) throw new Error("the flood process ended early");
      text += value;
    }
  };
  assert.equal(await line(), "ready");
  const writer = child.stdin.getWriter();
  const { result, before, peak } = await withRss(child.pid, async () => {
    await writer.write(new TextEncoder().encode("go\n"));
    return JSON.parse(await line()) as { checked: number; busy: number; slots: number };
  });
  await writer.close().catch(() => {});
  await lines.cancel().catch(() => {});
  await child.status;
  return { ...result, before, peak };
};

const tally = (statuses: ReadonlyArray<number>) => {
  const counts: Record<number, number> = {};
  for (const s of statuses) counts[s] = (counts[s] ?? 0) + 1;
  return counts;
};

const newEmail = (label: string) => `${label}.${crypto.randomUUID().slice(0, 8)}@example.com`;

Deno.test({
  name: "log-in floods against a running service: counted before checked, the owner not locked out",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const environment = await createTestEnvironment("login_flood");
    const service = await startService(environment.env);
    const base = service.base;
    try {
      const email = newEmail("owner");
      const owner = new DashboardClient(base);
      await owner.signUp(email, password);
      assert.ok(owner.cookies.has("cds_device"), "sign-up trusts the browser it was made from");

      await t.step("300 wrong passwords for one account from one address at once", async () => {
        const attacker = new DashboardClient(base);
        const csrf = csrfOf((await attacker.get("/login")).text)!;
        const attempts = 300;
        // as many page requests at once first: what the service grows by for 300 connections and pages is
        // not what the hashes cost. /health meanwhile, for comparison: every answer page is compressed on the
        // event loop (src/server/compression.ts), which a burst of pages pays whatever the route
        const pages = await healthWhile(
          base,
          () => Promise.all(Array.from({ length: attempts }, () => attacker.get("/login"))),
        );
        console.log(`/health during ${attempts} log-in pages at once: ${describeLatency(pages.latencies)}`);
        // the flood asks for its answers uncompressed: what is measured is the log-in path, hashes included
        const flood = withRss(service.pid, () =>
          healthWhile(base, () =>
            Promise.all(
              Array.from(
                { length: attempts },
                (_, i) =>
                  attacker.post("/login", { csrf, email, password: `wrong guess ${i}` }, {
                    "accept-encoding": "identity",
                  }),
              ),
            )));
        const { result: { result: answers, latencies }, before, peak } = await flood;
        await new Promise((r) => setTimeout(r, 1000));
        const after = await rssOfPid(service.pid);
        const counts = tally(answers.map((a) => a.status));
        const hashed = counts[401] ?? 0;
        console.log(
          `${attempts} wrong passwords at once: ${hashed} hashed (401), statuses ${
            JSON.stringify(counts)
          }; ` +
            `service RSS before ${Math.round(before / mib)} MB, peak ${Math.round(peak / mib)} MB, after ${
              Math.round(after / mib)
            } MB; /health p99 ${percentile(latencies, 0.99).toFixed(1)} ms (${describeLatency(latencies)})`,
        );
        assert.ok(
          hashed <= accountLimit,
          `${hashed} wrong passwords were checked: ${JSON.stringify(counts)}`,
        );
        assert.equal((counts[429] ?? 0) + (counts[503] ?? 0), attempts - hashed, JSON.stringify(counts));
        for (const a of answers.filter((a) => a.status === 429 || a.status === 503)) {
          assert.ok(Number(a.headers.get("retry-after")) > 0, `${a.status} without Retry-After`);
        }
        // at most one hash per core at a time, whatever the flood (unbounded, the allowance alone would be
        // accountLimit hashes at once: 1.3 GB)
        const bound = (Math.max(1, cpus().length) * hashMib + 300) * mib;
        assert.ok(peak - before < bound, `RSS grew by ${Math.round((peak - before) / mib)} MB`);
        assertHealthKeptUp(latencies, "during the log-in flood", 5);
      });

      await t.step(
        "the owner's browser logs in; a browser that never did meets the account's lock",
        async () => {
          // a flood's 503s (the hash gate full) give their attempts back: on a loaded machine fewer than the
          // limit may have been checked, so wrong passwords one at a time until the account's lock holds
          const attacker = new DashboardClient(base);
          const csrf = csrfOf((await attacker.get("/login")).text)!;
          for (let i = 0; i <= accountLimit; i++) {
            const guess = await attacker.post("/login", { csrf, email, password: `one more guess ${i}` });
            if (guess.status === 429) break;
          }
          const stranger = new DashboardClient(base);
          const refused = await stranger.logIn(email, password);
          assert.equal(refused.status, 429, refused.text.slice(0, 300));
          assert.ok(Number(refused.headers.get("retry-after")) > 0);
          const logged = await owner.logIn(email, password);
          assert.equal(logged.status, 303, logged.text.slice(0, 300));
          assert.equal(logged.headers.get("location"), "/dashboard");
          assert.equal((await owner.get("/dashboard")).status, 200);
          // a forged device cookie is a browser like any other: the nonce's first character changed (the MAC's
          // last one would not do: its two low bits are base64 padding, so A and B there decode alike — CI
          // logged a "forger" in once in 16 or so)
          const forger = new DashboardClient(base);
          const [id, nonce, mac] = owner.cookies.get("cds_device")!.split(".");
          forger.cookies.set("cds_device", `${id}.${nonce![0] === "A" ? "B" : "A"}${nonce!.slice(1)}.${mac}`);
          assert.equal((await forger.logIn(email, password)).status, 429);
        },
      );

      await t.step(
        "sign-up from an address whose log-ins are throttled still shows the key's secret",
        async () => {
          // the address has the flood's counted failures; wrong passwords for unknown accounts fill the rest
          const prober = new DashboardClient(base);
          let status = 0;
          for (let i = 0; i < addressLimit && status !== 429; i++) {
            status = (await prober.logIn(newEmail("nobody"), "not a password of anyone")).status;
          }
          assert.equal(status, 429, "the address's log-ins are throttled");
          const newcomer = new DashboardClient(base);
          const answer = await newcomer.submit("/signup", "/signup", {
            email: newEmail("newcomer"),
            password,
          });
          assert.equal(answer.status, 200, answer.text.slice(0, 500));
          assert.match(secretOf(answer.text) ?? "", /^cds_[A-Za-z0-9]{32}$/);
          assert.ok(newcomer.cookies.has("cds_session"), "logged in by the sign-up itself");
          assert.equal((await newcomer.get("/dashboard")).status, 200);
        },
      );
    } finally {
      await service.stop();
      await environment.close();
    }
  },
});

Deno.test({
  name: "log-in floods below the pages: no lock-out by a stranger, hashes bounded by the gate",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const db = await createTestDatabase("login_flood_programs");
    try {
      const { run, ok } = await accountsHarness(db.sql);

      await t.step(
        "a stranger's flood from 300 addresses does not lock out the owner's browser",
        async () => {
          const email = "victim@example.com";
          const made = await ok(signUp({ email, password, clientAddress: "192.0.2.1" }));
          const device = made.deviceToken!;
          const flood = await Promise.all(
            Array.from({ length: 300 }, (_, i) =>
              run(logIn({
                email,
                password: `guess ${i}`,
                clientAddress: `2001:db8:${i.toString(16)}::1`,
              }))),
          );
          const kinds = flood.map(outcome);
          const checked = kinds.filter((k) => k === "InvalidCredentials").length;
          const refused = kinds.filter((k) => k === "LoginThrottled" || k === "PasswordHashBusy").length;
          assert.ok(checked <= accountLimit, `${checked} wrong passwords were checked`);
          assert.equal(refused, 300 - checked);
          assert.equal(
            outcome(await run(logIn({ email, password, clientAddress: "192.0.2.2" }))),
            "LoginThrottled",
            "a browser without the device token",
          );
          const forged = device.slice(0, -2) + (device.endsWith("AA") ? "BB" : "AA");
          assert.equal(
            outcome(await run(logIn({ email, password, clientAddress: "192.0.2.2", deviceToken: forged }))),
            "LoginThrottled",
          );
          const other = await ok(
            signUp({ email: "other@example.com", password, clientAddress: "192.0.2.3" }),
          );
          assert.equal(
            outcome(
              await run(
                logIn({ email, password, clientAddress: "192.0.2.2", deviceToken: other.deviceToken }),
              ),
            ),
            "LoginThrottled",
            "another account's device token",
          );
          const owner = await ok(logIn({ email, password, clientAddress: "192.0.2.1", deviceToken: device }));
          assert.equal(owner.account.email, email);
          // the browser's own wrong passwords count against it: the same lock, for it alone
          const guesses = await Promise.all(
            Array.from({ length: 30 }, (_, i) =>
              run(logIn({
                email,
                password: `device guess ${i}`,
                clientAddress: "192.0.2.1",
                deviceToken: owner.deviceToken,
              }))),
          );
          assert.equal(guesses.filter((e) => outcome(e) === "InvalidCredentials").length, accountLimit);
          assert.equal(
            outcome(
              await run(
                logIn({ email, password, clientAddress: "192.0.2.1", deviceToken: owner.deviceToken }),
              ),
            ),
            "LoginThrottled",
          );
        },
      );

      await t.step(
        "log-ins for 300 accounts from 300 addresses at once: no more hashes than the gate holds",
        async () => {
          const strong = await accountsHarness(db.sql, { hashParameters: defaultParameters });
          // the same 300 log-ins first with cheap hashes (other addresses, so no throttle is spent): the
          // database's own working memory (in this process on PGlite) is then grown, and what is measured
          // below is the hashes
          await Promise.all(
            Array.from({ length: 300 }, (_, i) =>
              run(logIn({
                email: `warm${i}@example.com`,
                password: "a guess",
                clientAddress: `203.0.113.${i % 250}`,
              }))),
          );
          const exits = await Promise.all(
            Array.from({ length: 300 }, (_, i) =>
              strong.run(logIn({
                email: `unknown${i}@example.com`,
                password: "a guess",
                clientAddress: `198.51.100.${i % 250}`,
              }))),
          );
          const kinds = exits.map(outcome);
          const checked = kinds.filter((k) => k === "InvalidCredentials").length;
          const busy = kinds.filter((k) => k === "PasswordHashBusy").length;
          assert.ok(exits.every((e) => Exit.isFailure(e)));
          assert.equal(checked + busy, 300, [...new Set(kinds)].join(", "));
          assert.ok(checked <= passwordHashGate.slots + passwordHashGate.waiting, `${checked} hashed`);
          // the memory they hold, measured in a process of their own: test files run side by side in this one
          // (its RSS moved by 400-750 MB with the same hashes, PGlite and other files growing meanwhile)
          const flood = await hashFloodRss(300);
          console.log(
            `300 log-ins for unknown accounts from 300 addresses at once: ${checked} hashed, ${busy} busy ` +
              `(gate ${passwordHashGate.slots} + ${passwordHashGate.waiting}); the same 300 checks in a process ` +
              `of their own: ${flood.checked} hashed, RSS before ${Math.round(flood.before / mib)} MB, peak ${
                Math.round(flood.peak / mib)
              } MB`,
          );
          assert.ok(flood.checked <= flood.slots * 5, `${flood.checked} hashed in the flood process`);
          assert.ok(
            flood.peak - flood.before < (flood.slots * hashMib + 200) * mib,
            `RSS grew by ${Math.round((flood.peak - flood.before) / mib)} MB`,
          );
        },
      );
    } finally {
      await db.close();
    }
  },
});
