/**
 * The account programs on a real service database (PGlite, or PostgreSQL with TEST_DATABASE_URL): sign-up is
 * atomic, emails and passwords are checked, log-in fails alike for wrong passwords and unknown addresses and is
 * throttled per account and per address, every log-in makes a new session, password hashes carry their
 * parameters (and old ones are upgraded at log-in), sign-up without mail opens its own session, keys of other accounts are not found, FREE accounts get FREE keys only, and password changes,
 * resets and deletion do what they say.
 */
import assert from "node:assert/strict";
import { Effect, Option } from "effect";
import { createTestDatabase } from "../support/databases.ts";
import { accountsHarness, failureOf, outcome } from "../support/accounts.ts";
import { signUp } from "@src/programs/accounts/sign_up.ts";
import { logIn } from "@src/programs/accounts/log_in.ts";
import { sessionOf } from "@src/programs/accounts/session_of.ts";
import { logOut } from "@src/programs/accounts/log_out.ts";
import { changePassword } from "@src/programs/accounts/change_password.ts";
import { deleteAccount } from "@src/programs/accounts/delete_account.ts";
import { issueResetLink } from "@src/programs/accounts/issue_reset_link.ts";
import { resetPassword } from "@src/programs/accounts/reset_password.ts";
import { listKeys } from "@src/programs/accounts/list_keys.ts";
import { createKey } from "@src/programs/accounts/create_key.ts";
import { renameKey } from "@src/programs/accounts/rename_key.ts";
import { rotateKey } from "@src/programs/accounts/rotate_key.ts";
import { setKeyActive } from "@src/programs/accounts/set_key_active.ts";
import { revokeKey } from "@src/programs/accounts/revoke_key.ts";
import { usageReport } from "@src/programs/accounts/usage_report.ts";
import { makeAccountStore } from "@layers/account_store.ts";
import { defaultParameters, hashPassword } from "@layers/password_hash.ts";
import { makeKeyStore } from "@layers/key_store.ts";
import type { LoginThrottled, PlanForbids } from "@src/domain/account_errors.ts";

const password = "correct horse battery";

Deno.test({
  name: "account programs",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const db = await createTestDatabase("accounts");
    try {
      const { run, ok, logs } = await accountsHarness(db.sql);
      const sql = db.sql;
      const count = async (table: string) =>
        Number(
          (await Effect.runPromise(sql<{ n: string }>`select count(*)::text as n from ${sql(table)}`))[0]!.n,
        );
      const secrets: Array<string> = [password];

      await t.step(
        "sign-up makes the account and its FREE key in one go; the secret is shown once",
        async () => {
          const { account, key } = await ok(signUp({ email: "  Alice@Example.COM ", password }));
          secrets.push(key.secret);
          assert.equal(account.email, "alice@example.com");
          assert.equal(account.plan, "FREE");
          assert.equal(account.credits, null);
          assert.equal(key.record.tier, "FREE");
          assert.equal(key.record.accountId, account.id);
          assert.equal(key.record.status, "active");
          const stored = await makeKeyStore(sql, "cds").findBySecret(key.secret).pipe(Effect.runPromise);
          assert.equal(Option.getOrThrow(stored).id, key.id);
        },
      );

      await t.step(
        "the password hash carries its parameters and a salt; the password is not stored",
        async () => {
          const [row] = await Effect.runPromise(
            sql<
              { hash: string }
            >`select password_hash as hash from cds.account where email = 'alice@example.com'`,
          );
          // the harness hashes at testHashParameters; the defaults are test/layers/password_hash_test.ts's
          assert.match(row!.hash, /^scrypt\$1024\$8\$1\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}$/);
          assert.ok(!row!.hash.includes(password));
        },
      );

      await t.step("a failure half-way through sign-up leaves nothing behind", async () => {
        const [accounts, keys] = [await count("cds.account"), await count("cds.api_key")];
        // a real failure of the second insert: the key table refuses rows for a moment
        await Effect.runPromise(sql.unsafe(`
          create function cds.refuse_key() returns trigger language plpgsql as $$
          begin raise exception 'no keys today'; end $$;
          create trigger refuse_key before insert on cds.api_key for each row execute function cds.refuse_key();`));
        try {
          const exit = await run(signUp({ email: "half@example.com", password }));
          assert.equal(outcome(exit), "DatabaseUnavailable");
        } finally {
          await Effect.runPromise(
            sql.unsafe(`drop trigger refuse_key on cds.api_key; drop function cds.refuse_key()`),
          );
        }
        assert.equal(await count("cds.account"), accounts);
        assert.equal(await count("cds.api_key"), keys);
        // and the address is free for a sign-up that works
        await ok(signUp({ email: "half@example.com", password }));
      });

      await t.step(
        "a duplicate email (however written), a weak password, a malformed email are refused",
        async () => {
          assert.equal(outcome(await run(signUp({ email: "ALICE@example.com", password }))), "EmailTaken");
          assert.equal(
            outcome(await run(signUp({ email: "bob@example.com", password: "short" }))),
            "WeakPassword",
          );
          assert.equal(
            outcome(await run(signUp({ email: "bob@example.com", password: "x".repeat(1025) }))),
            "WeakPassword",
          );
          assert.equal(
            outcome(
              await run(signUp({ email: "longenough@example.com", password: "LongEnough@Example.com" })),
            ),
            "WeakPassword",
          );
          for (const email of ["", "bob", "bob@", "@example.com", "bob@example", "a b@example.com"]) {
            assert.equal(outcome(await run(signUp({ email, password }))), "InvalidEmail", email);
          }
        },
      );

      await t.step("log-in: a wrong password and an unknown address fail alike", async () => {
        const address = "198.51.100.1";
        assert.equal(
          outcome(
            await run(
              logIn({ email: "alice@example.com", password: "wrong password!", clientAddress: address }),
            ),
          ),
          "InvalidCredentials",
        );
        assert.equal(
          outcome(await run(logIn({ email: "nobody@example.com", password, clientAddress: address }))),
          "InvalidCredentials",
        );
        const { session, account } = await ok(
          logIn({ email: "ALICE@example.com", password, clientAddress: address }),
        );
        assert.equal(account.email, "alice@example.com");
        assert.ok(!("passwordHash" in account), "the hash never leaves the program");
        secrets.push(session.secret, session.csrfToken);
      });

      await t.step("every log-in makes a new session; only its hash is stored; log-out ends it", async () => {
        const a = await ok(logIn({ email: "alice@example.com", password, clientAddress: "198.51.100.2" }));
        const b = await ok(logIn({ email: "alice@example.com", password, clientAddress: "198.51.100.2" }));
        secrets.push(a.session.secret, b.session.secret);
        assert.notEqual(a.session.secret, b.session.secret);
        assert.notEqual(a.session.csrfToken, b.session.csrfToken);
        assert.match(a.session.secret, /^[A-Za-z0-9_-]{43}$/);
        const found = Option.getOrThrow(await ok(sessionOf(a.session.secret)));
        assert.equal(found.account.email, "alice@example.com");
        assert.equal(found.session.csrfToken, a.session.csrfToken);
        const stored = await Effect.runPromise(sql<{ n: string }>`
          select count(*)::text as n from cds.session where encode(secret_sha256, 'escape') like ${
          "%" + a.session.secret.slice(0, 20) + "%"
        }`);
        assert.equal(stored[0]!.n, "0");
        await ok(logOut(a.session.secret));
        assert.ok(Option.isNone(await ok(sessionOf(a.session.secret))));
        assert.ok(Option.isSome(await ok(sessionOf(b.session.secret))));
        for (const junk of [undefined, "", "x", a.session.secret + "x", "!".repeat(43)]) {
          assert.ok(Option.isNone(await ok(sessionOf(junk))), String(junk));
        }
      });

      await t.step("20 wrong passwords: throttled per account, whatever the address", async () => {
        await ok(signUp({ email: "target@example.com", password }));
        const results: Array<string> = [];
        for (let i = 0; i < 20; i++) {
          results.push(
            outcome(
              await run(
                logIn({
                  email: "target@example.com",
                  password: `wrong guess ${i}`,
                  clientAddress: `203.0.113.${i}`,
                }),
              ),
            ),
          );
        }
        assert.deepEqual(results.slice(0, 10), Array(10).fill("InvalidCredentials"));
        assert.deepEqual(results.slice(10), Array(10).fill("LoginThrottled"));
        // even the right password waits now
        const exit = await run(logIn({ email: "target@example.com", password, clientAddress: "192.0.2.99" }));
        assert.equal(outcome(exit), "LoginThrottled");
        const wait = (failureOf(exit) as LoginThrottled).retryAfterSeconds;
        assert.ok(wait > 800 && wait <= 900, String(wait));
      });

      await t.step("20 wrong passwords: throttled per address, whatever the account", async () => {
        const results: Array<string> = [];
        for (let i = 0; i < 22; i++) {
          results.push(
            outcome(
              await run(
                logIn({ email: `guess${i}@example.com`, password, clientAddress: "2001:db8:7:7::1" }),
              ),
            ),
          );
        }
        assert.deepEqual(results.slice(0, 20), Array(20).fill("InvalidCredentials"));
        assert.deepEqual(results.slice(20), ["LoginThrottled", "LoginThrottled"]);
        // the same /64 is the same address; another /64 is not
        assert.equal(
          outcome(
            await run(logIn({ email: "alice@example.com", password, clientAddress: "2001:db8:7:7::2" })),
          ),
          "LoginThrottled",
        );
        assert.equal(
          outcome(
            await run(logIn({ email: "alice@example.com", password, clientAddress: "2001:db8:7:8::1" })),
          ),
          "success",
        );
      });

      const alice =
        (await ok(logIn({ email: "alice@example.com", password, clientAddress: "192.0.2.1" }))).account;
      const bob = (await ok(signUp({ email: "bob@example.com", password }))).account;

      await t.step("a FREE account cannot create PAID keys, and is told why; a PAID one can", async () => {
        const exit = await run(createKey(alice.id, { name: "paid one", tier: "PAID" }));
        assert.equal(outcome(exit), "PlanForbids");
        assert.match((failureOf(exit) as PlanForbids).message, /FREE plan.*PAID plan/);
        await Effect.runPromise(makeAccountStore(sql, "cds").setPlan("alice@example.com", "PAID"));
        const paid = await ok(createKey(alice.id, {
          name: "paid one",
          tier: "PAID",
          permissions: { networks: ["preprod"], families: ["rest", "graphql"] },
        }));
        secrets.push(paid.secret);
        assert.equal(paid.record.tier, "PAID");
        assert.deepEqual(paid.record.permissions, { networks: ["preprod"], families: ["rest", "graphql"] });
      });

      await t.step("key requests are checked: name, permissions, expiry", async () => {
        const bad = [
          { name: "", tier: "FREE" as const },
          { name: "x".repeat(65), tier: "FREE" as const },
          { name: "tab\there", tier: "FREE" as const },
          { name: "ok", tier: "FREE" as const, permissions: { networks: [] } },
          { name: "ok", tier: "FREE" as const, permissions: { families: ["ftp"] } },
          { name: "ok", tier: "FREE" as const, expiresAt: new Date(Date.now() - 1000) },
        ];
        for (const request of bad) {
          assert.equal(
            outcome(await run(createKey(bob.id, request))),
            "InvalidKeyRequest",
            JSON.stringify(request),
          );
        }
      });

      await t.step("another account's key id is not found, for every key program", async () => {
        const [aliceKey] = await ok(listKeys(alice.id));
        for (
          const program of [
            renameKey(bob.id, aliceKey!.id, "mine now"),
            rotateKey(bob.id, aliceKey!.id),
            setKeyActive(bob.id, aliceKey!.id, false),
            revokeKey(bob.id, aliceKey!.id),
            usageReport(bob.id, aliceKey!.id),
            renameKey(bob.id, 999_999, "nothing"),
          ]
        ) {
          assert.equal(
            outcome(await run(program as Effect.Effect<unknown, unknown, never>)),
            "NotFoundError",
          );
        }
        assert.equal((await ok(listKeys(alice.id)))[0]!.status, "active");
      });

      await t.step(
        "rename, deactivate, activate, rotate, revoke one's own key; a revoked key stays revoked",
        async () => {
          const { id } = await ok(createKey(bob.id, { name: "second", tier: "FREE" }));
          await ok(renameKey(bob.id, id, "  renamed  "));
          await ok(setKeyActive(bob.id, id, false));
          let key = (await ok(listKeys(bob.id))).find((k) => k.id === id)!;
          assert.deepEqual([key.name, key.status], ["renamed", "inactive"]);
          await ok(setKeyActive(bob.id, id, true));
          const rotated = await ok(rotateKey(bob.id, id));
          secrets.push(rotated.secret);
          await ok(revokeKey(bob.id, id));
          key = (await ok(listKeys(bob.id))).find((k) => k.id === id)!;
          assert.equal(key.status, "revoked");
          assert.equal(outcome(await run(setKeyActive(bob.id, id, true))), "NotFoundError");
          assert.equal(outcome(await run(rotateKey(bob.id, id))), "NotFoundError");
        },
      );

      await t.step("the usage report lists 30 days and each key's quota left", async () => {
        const report = await ok(usageReport(bob.id));
        assert.equal(report.days.length, 30);
        assert.equal(report.days[29]!.day, new Date().toISOString().slice(0, 10));
        const first = report.keys[0]!;
        assert.equal(first.quotaLeftToday, 100_000);
        assert.equal(first.submissionsPerHour, 10);
      });

      await t.step("changing the password needs the current one and ends the other sessions", async () => {
        const keep = await ok(logIn({ email: "bob@example.com", password, clientAddress: "192.0.2.5" }));
        const other = await ok(logIn({ email: "bob@example.com", password, clientAddress: "192.0.2.6" }));
        secrets.push(keep.session.secret, other.session.secret, "another good password");
        assert.equal(
          outcome(
            await run(
              changePassword(bob.id, "not the password", "another good password", keep.session.secret),
            ),
          ),
          "InvalidCredentials",
        );
        assert.equal(
          outcome(await run(changePassword(bob.id, password, "short", keep.session.secret))),
          "WeakPassword",
        );
        await ok(changePassword(bob.id, password, "another good password", keep.session.secret));
        assert.ok(Option.isSome(await ok(sessionOf(keep.session.secret))));
        assert.ok(Option.isNone(await ok(sessionOf(other.session.secret))));
        assert.equal(
          outcome(await run(logIn({ email: "bob@example.com", password, clientAddress: "192.0.2.7" }))),
          "InvalidCredentials",
        );
        await ok(
          logIn({ email: "bob@example.com", password: "another good password", clientAddress: "192.0.2.7" }),
        );
      });

      await t.step("an operator's reset link works once and ends every session", async () => {
        const session = await ok(logIn({ email: "half@example.com", password, clientAddress: "192.0.2.8" }));
        const { link } = await ok(issueResetLink("HALF@example.com"));
        const token = new URL(link).searchParams.get("token")!;
        secrets.push(token, "a brand new password");
        assert.equal(outcome(await run(resetPassword(token, "short"))), "WeakPassword");
        // the same rule as sign-up, and a refused password leaves the link working
        assert.equal(outcome(await run(resetPassword(token, " Half@Example.com "))), "WeakPassword");
        await ok(resetPassword(token, "a brand new password"));
        assert.equal(outcome(await run(resetPassword(token, "a brand new password"))), "TokenInvalid");
        assert.ok(Option.isNone(await ok(sessionOf(session.session.secret))));
        await ok(
          logIn({ email: "half@example.com", password: "a brand new password", clientAddress: "192.0.2.8" }),
        );
        assert.equal(outcome(await run(issueResetLink("nobody@example.com"))), "NotFoundError");
      });

      await t.step(
        "deleting an account needs its password, revokes its keys and frees its email",
        async () => {
          const { account, key } = await ok(signUp({ email: "leaving@example.com", password }));
          const session = await ok(
            logIn({ email: "leaving@example.com", password, clientAddress: "192.0.2.9" }),
          );
          assert.equal(outcome(await run(deleteAccount(account.id, "wrong password"))), "InvalidCredentials");
          await ok(deleteAccount(account.id, password));
          const stored = Option.getOrThrow(await Effect.runPromise(makeKeyStore(sql, "cds").get(key.id)));
          assert.equal(stored.status, "revoked");
          assert.ok(Option.isNone(await ok(sessionOf(session.session.secret))));
          assert.equal(
            outcome(await run(logIn({ email: "leaving@example.com", password, clientAddress: "192.0.2.9" }))),
            "InvalidCredentials",
          );
          await ok(signUp({ email: "leaving@example.com", password }));
        },
      );

      await t.step(
        "without mail, sign-up opens the account's first session itself (no log-in that a throttle could refuse)",
        async () => {
          const made = await ok(
            signUp({ email: "at-once@example.com", password, clientAddress: "192.0.2.77" }),
          );
          assert.ok(made.session !== undefined && made.deviceToken !== undefined);
          const live = await ok(sessionOf(made.session.secret));
          assert.equal(Option.getOrThrow(live).account.id, made.account.id);
          secrets.push(made.session.secret, made.session.csrfToken, made.deviceToken);
        },
      );

      await t.step(
        "a hash made at N=2^15 is upgraded to today's N=2^17 at the next successful log-in",
        async () => {
          const strong = await accountsHarness(sql, { hashParameters: defaultParameters });
          const made = await ok(signUp({ email: "old-hash@example.com", password }));
          const old = await Effect.runPromise(hashPassword(password, { N: 2 ** 15, r: 8, p: 1 }));
          await Effect.runPromise(
            sql`update cds.account set password_hash = ${old} where id = ${made.account.id}`,
          );
          const hashOf = async () =>
            (await Effect.runPromise(
              sql<
                { hash: string }
              >`select password_hash as hash from cds.account where id = ${made.account.id}`,
            ))[0]!.hash;
          assert.equal(
            outcome(
              await strong.run(
                logIn({ email: "old-hash@example.com", password: "wrong", clientAddress: "192.0.2.78" }),
              ),
            ),
            "InvalidCredentials",
          );
          assert.equal(await hashOf(), old, "a wrong password upgrades nothing");
          const first = await strong.ok(
            logIn({ email: "old-hash@example.com", password, clientAddress: "192.0.2.78" }),
          );
          const upgraded = await hashOf();
          assert.match(upgraded, /^scrypt\$131072\$8\$1\$/);
          assert.ok(Option.isSome(await ok(sessionOf(first.session.secret))), "the upgrade ends no session");
          await strong.ok(logIn({ email: "old-hash@example.com", password, clientAddress: "192.0.2.78" }));
          assert.equal(await hashOf(), upgraded, "upgraded once");
        },
      );

      await t.step("a disabled account cannot log in; enabled again, it can", async () => {
        const store = makeAccountStore(sql, "cds");
        await Effect.runPromise(store.setDisabled("alice@example.com", true));
        assert.equal(
          outcome(await run(logIn({ email: "alice@example.com", password, clientAddress: "192.0.2.10" }))),
          "AccountDisabled",
        );
        await Effect.runPromise(store.setDisabled("alice@example.com", false));
        await ok(logIn({ email: "alice@example.com", password, clientAddress: "192.0.2.10" }));
      });

      await t.step("no password, session secret, key secret or token appears in the programs' logs", () => {
        const text = logs.join("\n");
        for (const secret of secrets) assert.ok(!text.includes(secret), `a secret was logged`);
      });
    } finally {
      await db.close();
    }
  },
});
