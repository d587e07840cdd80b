/**
 * The operator's accounts CLI (`npm run accounts`) on the embedded service database (through the socket of the
 * process holding it, as with a running service) or PostgreSQL: list, show, plan, credits, disable/enable and
 * reset links; and the keys CLI applying the same key policy (a FREE account's PAID key refused unless
 * `--override-plan`; permissions with `--networks` / `--families`).
 */
import assert from "node:assert/strict";
import { createTestEnvironment, keysCli } from "../support/environment.ts";
import { accountsCli, accountsHarness, outcome, serviceDatabaseOf } from "../support/accounts.ts";
import { signUp } from "@src/programs/accounts/sign_up.ts";
import { logIn } from "@src/programs/accounts/log_in.ts";
import { listKeys } from "@src/programs/accounts/list_keys.ts";
import { resetPassword } from "@src/programs/accounts/reset_password.ts";

const password = "operator test password";

Deno.test({
  name: "accounts CLI",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const environment = await createTestEnvironment("accounts_cli");
    const env = environment.env;
    const db = await serviceDatabaseOf(env);
    try {
      const { ok, run } = await accountsHarness(db.sql);
      const { account } = await ok(signUp({ email: "carol@example.com", password }));
      const login = () => run(logIn({ email: "carol@example.com", password, clientAddress: "192.0.2.30" }));

      await t.step("list and show", async () => {
        assert.equal(
          (await keysCli(env, "create", "--tier", "paid", "--name", "ops", "--account", "acme")).code,
          0,
        );
        const list = await accountsCli(env, "list");
        assert.equal(list.code, 0, list.stderr);
        assert.match(list.stdout, /FREE\s+unlimited\s+active\s+1\s+\S+\s+carol@example\.com/);
        assert.match(list.stdout, /PAID\s+unlimited\s+active\s+1\s+\S+\s+acme \(operator's, no email\)/);
        const show = await accountsCli(env, "show", "Carol@Example.com");
        assert.equal(show.code, 0, show.stderr);
        assert.match(show.stdout, /plan FREE, credits unlimited, active/);
        assert.match(show.stdout, /FREE\s+active\s+cds_….{4}\s+last used never\s+Default key/);
      });

      await t.step(
        "a FREE account's PAID key: refused by the keys CLI as by the dashboard, unless overridden",
        async () => {
          const refused = await keysCli(
            env,
            "create",
            "--tier",
            "paid",
            "--name",
            "x",
            "--account",
            "carol@example.com",
          );
          assert.equal(refused.code, 2);
          assert.match(refused.stderr.join("\n"), /FREE plan.*--override-plan/);
          const forced = await keysCli(
            env,
            ...[
              "create",
              "--tier",
              "paid",
              "--name",
              "forced",
              "--account",
              "carol@example.com",
              "--override-plan",
            ],
          );
          assert.equal(forced.code, 0, forced.stderr.join("\n"));
        },
      );

      await t.step("plan: PAID accounts may create PAID keys; back on FREE, its keys are FREE", async () => {
        const plan = await accountsCli(env, "plan", "carol@example.com", "paid");
        assert.equal(plan.code, 0, plan.stderr);
        assert.equal(plan.stdout, "carol@example.com is now on the PAID plan");
        const made = await keysCli(
          env,
          "create",
          "--tier",
          "paid",
          "--name",
          "paid",
          "--account",
          "carol@example.com",
        );
        assert.equal(made.code, 0, made.stderr.join("\n"));
        const back = await accountsCli(env, "plan", "carol@example.com", "free");
        assert.equal(
          back.stdout,
          "carol@example.com is now on the FREE plan\nits 2 PAID key(s) are FREE keys now, with the FREE limits",
        );
        const tiers = (await ok(listKeys(account.id))).map((k) => `${k.name}: ${k.tier}`).sort();
        assert.deepEqual(tiers, ["Default key: FREE", "forced: FREE", "paid: FREE"]);
        assert.equal((await accountsCli(env, "plan", "carol@example.com", "gold")).code, 2);
      });

      await t.step("--networks and --families limit a key; unknown ones are refused", async () => {
        const made = await keysCli(
          env,
          ...["create", "--tier", "free", "--name", "limited", "--account", "carol@example.com"],
          ...["--networks", "preprod", "--families", "rest,graphql"],
        );
        assert.equal(made.code, 0, made.stderr.join("\n"));
        assert.match(made.stdout[1]!, /carol@example\.com\/limited\s+\[preprod; rest,graphql\]$/);
        const key = (await ok(listKeys(account.id))).find((k) => k.name === "limited")!;
        assert.deepEqual(key.permissions, { networks: ["preprod"], families: ["rest", "graphql"] });
        const bad = await keysCli(env, "create", "--tier", "free", "--name", "bad", "--families", "ftp");
        assert.equal(bad.code, 2);
        assert.match(bad.stderr.join("\n"), /--families: unknown "ftp"/);
      });

      await t.step("credits", async () => {
        const set = await accountsCli(env, "credits", "carol@example.com", "5000");
        assert.equal(set.stdout, "carol@example.com now has 5000 credits");
        assert.match((await accountsCli(env, "show", "carol@example.com")).stdout, /credits 5000/);
        assert.equal((await accountsCli(env, "credits", "carol@example.com", "-1")).code, 2);
        assert.equal((await accountsCli(env, "credits", "carol@example.com", "unlimited")).code, 0);
        assert.match((await accountsCli(env, "show", "carol@example.com")).stdout, /credits unlimited/);
      });

      await t.step("disable and enable", async () => {
        assert.equal(outcome(await login()), "success");
        assert.equal((await accountsCli(env, "disable", "carol@example.com")).code, 0);
        assert.equal(outcome(await login()), "AccountDisabled");
        assert.match((await accountsCli(env, "list")).stdout, /disabled\s+\d+\s+\S+\s+carol@example\.com/);
        assert.equal((await accountsCli(env, "enable", "carol@example.com")).code, 0);
        assert.equal(outcome(await login()), "success");
      });

      await t.step("reset-link: a link that resets the password once", async () => {
        const issued = await accountsCli(env, "reset-link", "carol@example.com");
        assert.equal(issued.code, 0, issued.stderr);
        const link = issued.stdout.split("\n").at(-1)!;
        assert.match(link, /^http:\/\/127\.0\.0\.1:3000\/reset-password\?token=[A-Za-z0-9_-]{43}$/);
        const token = new URL(link).searchParams.get("token")!;
        await ok(resetPassword(token, "a password from the operator"));
        assert.equal(
          outcome(await run(resetPassword(token, "a password from the operator"))),
          "TokenInvalid",
        );
        assert.equal(outcome(await login()), "InvalidCredentials");
      });

      await t.step("unknown accounts and commands: one line, exit 2", async () => {
        for (
          const args of [
            ["show", "nobody@example.com"],
            ["plan", "nobody@example.com", "paid"],
            [
              "reset-link",
              "nobody@example.com",
            ],
            ["show", "not an email"],
            ["frobnicate"],
            [],
          ]
        ) {
          const r = await accountsCli(env, ...args);
          assert.equal(r.code, 2, args.join(" "));
          assert.match(r.stderr, /^accounts: /);
        }
      });
    } finally {
      await db.close();
      await environment.close();
    }
  },
});
