/**
 * Hostile input to the account programs (issue 16), below the web pages (their HTTP-level cases belong to the
 * dashboard's tests): huge emails, passwords, names and tokens are refused quickly and typed, never as a defect
 * and never after hashing megabytes; SQL-looking text is only ever data; many sign-ups from one address are
 * throttled; malformed and unknown tokens and session secrets cost no harm; a flood of log-ins for unknown
 * addresses is throttled before it can keep the CPU busy with scrypt.
 */
import assert from "node:assert/strict";
import { Effect, Option } from "effect";
import { createTestDatabase } from "../support/databases.ts";
import { accountsHarness, outcome } from "../support/accounts.ts";
import { signUp } from "@src/programs/accounts/sign_up.ts";
import { logIn } from "@src/programs/accounts/log_in.ts";
import { sessionOf } from "@src/programs/accounts/session_of.ts";
import { logOut } from "@src/programs/accounts/log_out.ts";
import { confirmEmail } from "@src/programs/accounts/confirm_email.ts";
import { resetPassword } from "@src/programs/accounts/reset_password.ts";
import { requestPasswordReset } from "@src/programs/accounts/request_password_reset.ts";
import { createKey } from "@src/programs/accounts/create_key.ts";
import { renameKey } from "@src/programs/accounts/rename_key.ts";
import { listKeys } from "@src/programs/accounts/list_keys.ts";
import { changePassword } from "@src/programs/accounts/change_password.ts";

const password = "resilient password";
const mib = "x".repeat(1024 * 1024);

/** Milliseconds a promise took. */
const timed = async <A>(p: () => Promise<A>) => {
  const started = performance.now();
  const value = await p();
  return { value, ms: performance.now() - started };
};

Deno.test({
  name: "account programs under hostile input",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const db = await createTestDatabase("accounts_bounds");
    try {
      const { run, ok } = await accountsHarness(db.sql);
      // deno-lint-ignore no-explicit-any
      const any = (v: unknown) => v as any;

      await t.step("huge fields are refused at once, typed", async () => {
        const cases = [
          [signUp({ email: `${mib}@example.com`, password }), "InvalidEmail"],
          [signUp({ email: "huge@example.com", password: mib }), "WeakPassword"],
          [
            logIn({ email: `${mib}@example.com`, password, clientAddress: "192.0.2.1" }),
            "InvalidCredentials",
          ],
          [
            logIn({ email: "huge@example.com", password: mib, clientAddress: "192.0.2.1" }),
            "InvalidCredentials",
          ],
          [confirmEmail(mib), "TokenInvalid"],
          [resetPassword(mib, password), "TokenInvalid"],
          [requestPasswordReset(mib), "success"],
        ] as const;
        for (const [program, expected] of cases) {
          const { value, ms } = await timed(() => run(program as Effect.Effect<unknown, unknown, never>));
          assert.equal(outcome(value), expected);
          assert.ok(ms < 1000, `${expected} took ${ms} ms`);
        }
        assert.ok(Option.isNone(await ok(sessionOf(mib))));
        await ok(logOut(mib));
      });

      await t.step("values of the wrong type are refused, typed, not defects", async () => {
        for (const value of [undefined, null, 42, {}, [], { toString: () => "a@b.co" }]) {
          assert.equal(
            outcome(await run(signUp({ email: any(value), password }))),
            "InvalidEmail",
            String(value),
          );
          assert.equal(
            outcome(await run(signUp({ email: "typed@example.com", password: any(value) }))),
            "WeakPassword",
            String(value),
          );
          assert.equal(
            outcome(
              await run(
                logIn({ email: "typed@example.com", password: any(value), clientAddress: "192.0.2.2" }),
              ),
            ),
            "InvalidCredentials",
          );
          assert.ok(Option.isNone(await ok(sessionOf(any(value)))));
        }
      });

      await t.step("SQL-looking text is data", async () => {
        for (const email of ["a'--@example.com", "x'; drop table cds.account;--@example.com"]) {
          // the first is a valid address (an apostrophe is allowed), the second is not one
          const exit = await run(signUp({ email, password }));
          assert.ok(["success", "InvalidEmail"].includes(outcome(exit)), outcome(exit));
        }
        const { account } = await ok(signUp({ email: "o'brien@example.com", password }));
        const session = await ok(
          logIn({ email: "O'Brien@example.com", password, clientAddress: "192.0.2.3" }),
        );
        assert.equal(session.account.email, "o'brien@example.com");
        const name = "'); delete from cds.api_key; --";
        const made = await ok(createKey(account.id, { name, tier: "FREE" }));
        await ok(renameKey(account.id, made.id, `${name} again`));
        const keys = await ok(listKeys(account.id));
        assert.deepEqual(keys.map((k) => k.name), ["Default key", `${name} again`]);
        const [n] = await Effect.runPromise(
          db.sql<{ n: string }>`select count(*)::text as n from cds.account`,
        );
        assert.ok(Number(n!.n) >= 2);
      });

      await t.step(
        "key requests: oversized, control characters, unknown permissions are typed refusals",
        async () => {
          const { account } = await ok(signUp({ email: "keys@example.com", password }));
          for (
            const request of [
              { name: mib, tier: "FREE" },
              { name: "bell\u0007", tier: "FREE" },
              { name: "line\nbreak", tier: "FREE" },
              { name: "ok", tier: "GOLD" },
              { name: "ok", tier: "FREE", permissions: { networks: ["mainnet", "testnet"] } },
              { name: "ok", tier: "FREE", permissions: { families: any("rest") } },
              {
                name: "ok",
                tier: "FREE",
                permissions: { families: Array(100_000).fill("rest").concat(["x"]) },
              },
              { name: "ok", tier: "FREE", expiresAt: any("tomorrow") },
              { name: any({}), tier: "FREE" },
            ]
          ) {
            const exit = await run(createKey(account.id, any(request)));
            assert.equal(outcome(exit), "InvalidKeyRequest", JSON.stringify(request).slice(0, 80));
          }
        },
      );

      await t.step("many sign-ups from one address are throttled; another address is not", async () => {
        const results: Array<string> = [];
        for (let i = 0; i < 12; i++) {
          results.push(
            outcome(
              await run(signUp({ email: `bulk${i}@example.com`, password, clientAddress: "198.51.100.77" })),
            ),
          );
        }
        assert.deepEqual(results.slice(0, 10), Array(10).fill("success"));
        assert.deepEqual(results.slice(10), ["LoginThrottled", "LoginThrottled"]);
        assert.equal(
          outcome(
            await run(signUp({ email: "other@example.com", password, clientAddress: "198.51.100.78" })),
          ),
          "success",
        );
      });

      await t.step("unknown and malformed tokens and sessions", async () => {
        const unknown = "A".repeat(43);
        for (const token of [unknown, "", "short", "A".repeat(44), "é".repeat(43), "../../etc/passwd"]) {
          assert.equal(outcome(await run(confirmEmail(token))), "TokenInvalid", token);
          assert.equal(
            outcome(await run(resetPassword(token, "a good new password"))),
            "TokenInvalid",
            token,
          );
          assert.ok(Option.isNone(await ok(sessionOf(token))));
        }
      });

      await t.step(
        "a log-in flood for unknown addresses is throttled before it costs scrypt each",
        async () => {
          const { ms } = await timed(async () => {
            for (let i = 0; i < 200; i++) {
              await run(logIn({ email: `flood${i}@example.com`, password, clientAddress: "203.0.113.200" }));
            }
          });
          // 20 hashes (the address's allowance), then refusals without hashing
          const last = await run(
            logIn({ email: "flood@example.com", password, clientAddress: "203.0.113.200" }),
          );
          assert.equal(outcome(last), "LoginThrottled");
          console.log(`200 log-ins for unknown addresses from one address: ${Math.round(ms)} ms`);
        },
      );

      await t.step(
        "a stolen session cannot guess the password: wrong guesses are throttled too",
        async () => {
          const { account } = await ok(signUp({ email: "victim@example.com", password }));
          const results: Array<string> = [];
          for (let i = 0; i < 12; i++) {
            results.push(outcome(await run(changePassword(account.id, `guess ${i}`, "a new password!!"))));
          }
          assert.deepEqual(results.slice(0, 10), Array(10).fill("InvalidCredentials"));
          assert.deepEqual(results.slice(10), ["LoginThrottled", "LoginThrottled"]);
        },
      );
    } finally {
      await db.close();
    }
  },
});
