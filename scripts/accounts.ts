/**
 * `npm run accounts -- <command>`: accounts for operators (issue 16). Works on SERVICE_DATABASE_URL, or on the
 * embedded service database under DATA_DIR, through the running service's socket when it runs (changes apply
 * within a second) and directly when it does not, exactly as `npm run keys` does.
 *
 *   list                          every account: email (or name), plan, credits, state, keys
 *   show EMAIL                    one account with its keys and today's usage
 *   plan EMAIL free|paid          the plan (FREE accounts may create FREE keys only)
 *   credits EMAIL N|unlimited     prepaid requests left (each request spends one; 401 `Insufficient credits`)
 *   disable EMAIL | enable EMAIL  a disabled account cannot log in and its keys answer 403
 *   reset-link EMAIL              a password reset link (valid 24 h, once), for installations without SMTP
 *
 * On the embedded database, a DATA_DIR that holds none is refused unless `--init` (create one there); while
 * the service holding DATA_DIR is still starting, the CLI waits for it (`--wait SECONDS`, 120 by default).
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import { Effect, Either, Layer, Option } from "effect";
import { type AccountRecord, AccountStore, makeAccountStore } from "@layers/account_store.ts";
import { AppConfig, type AppConfigShape } from "@layers/config.ts";
import { normalizeEmail } from "@src/domain/accounts.ts";
import { issueResetLink } from "@src/programs/accounts/issue_reset_link.ts";
import { fail, runServiceDbCli } from "./service_db_cli.ts";

const usage = `usage: npm run accounts -- <command> [--init] [--wait SECONDS]
  list
  show EMAIL
  plan EMAIL free|paid
  credits EMAIL N|unlimited
  disable EMAIL | enable EMAIL
  reset-link EMAIL`;

const emailOf = (text: string | undefined): string =>
  text === undefined
    ? fail("an email address is required", true)
    : Either.getOrElse(normalizeEmail(text), (e) => fail(e.message));

const day = (d: Date) => d.toISOString().slice(0, 19) + "Z";

const state = (a: AccountRecord) =>
  a.disabled ? "disabled" : a.email !== null && !a.emailConfirmed ? "unconfirmed" : "active";

const header = "  id  plan  credits     state        keys  created               account";
const row = (a: AccountRecord & { keys: number }) =>
  [
    String(a.id).padStart(4),
    a.plan.padEnd(4),
    (a.credits === null ? "unlimited" : String(a.credits)).padEnd(10),
    state(a).padEnd(11),
    String(a.keys).padStart(4),
    day(a.createdAt),
    a.email ?? `${a.name} (operator's, no email)`,
  ].join("  ");

const run = (sql: SqlClient, config: AppConfigShape, args: Array<string>) =>
  Effect.gen(function* () {
    const store = makeAccountStore(sql, config.apiKeyPrefix);
    const [command, ...rest] = args;
    const found = (done: boolean, email: string) => done || fail(`no account ${email}`);
    switch (command) {
      case "list":
        return [header, ...(yield* store.list).map(row)].join("\n");
      case "show": {
        const email = emailOf(rest[0]);
        const account = yield* store.byEmail(email);
        if (Option.isNone(account)) return fail(`no account ${email}`);
        const a = account.value;
        const keys = yield* store.keys(a.id);
        const today = new Date().toISOString().slice(0, 10);
        const used = (yield* store.usage(a.id)).daily.filter((d) => d.day === today);
        return [
          `account ${a.id}: ${a.email}`,
          `  plan ${a.plan}, credits ${a.credits ?? "unlimited"}, ${state(a)}, since ${day(a.createdAt)}`,
          `  keys (${keys.length}):`,
          ...keys.map((k) =>
            `    ${String(k.id).padStart(4)}  ${k.tier.padEnd(4)}  ${k.status.padEnd(8)}  ${k.hint}  ` +
            `last used ${k.lastUsedAt ? day(k.lastUsedAt) : "never"}  ${k.name}  ` +
            `[${k.permissions.networks.join(",")}; ${k.permissions.families.join(",")}]`
          ),
          `  today: ${used.reduce((n, d) => n + d.requests, 0)} requests, ` +
          `${used.reduce((n, d) => n + d.rateLimited, 0)} refused with 429`,
        ].join("\n");
      }
      case "plan": {
        const email = emailOf(rest[0]);
        const plan = rest[1]?.toUpperCase();
        if (plan !== "FREE" && plan !== "PAID") {
          return fail(`plan must be free or paid, got ${JSON.stringify(rest[1] ?? "")}`);
        }
        const demoted = yield* store.setPlan(email, plan);
        found(demoted !== undefined, email);
        return [
          `${email} is now on the ${plan} plan`,
          ...(demoted ? [`its ${demoted} PAID key(s) are FREE keys now, with the FREE limits`] : []),
        ].join("\n");
      }
      case "credits": {
        const email = emailOf(rest[0]);
        const text = rest[1] ?? "";
        const credits = text === "unlimited"
          ? null
          : /^\d{1,15}$/.test(text)
          ? Number(text)
          : fail(`credits must be a whole number or "unlimited", got ${JSON.stringify(text)}`);
        found(yield* store.setCredits(email, credits), email);
        return `${email} now has ${credits ?? "unlimited"} credits`;
      }
      case "disable":
      case "enable": {
        const email = emailOf(rest[0]);
        found(yield* store.setDisabled(email, command === "disable"), email);
        return command === "disable"
          ? `${email} is disabled: it cannot log in and its keys answer 403`
          : `${email} is enabled again`;
      }
      case "reset-link": {
        const email = emailOf(rest[0]);
        const issued = yield* issueResetLink(email).pipe(
          Effect.provide(Layer.mergeAll(
            Layer.succeed(AccountStore, store),
            Layer.succeed(AppConfig, config),
          )),
          Effect.catchTag("NotFoundError", () => Effect.sync(() => fail(`no account ${email}`))),
          Effect.catchTag("InvalidEmail", (e) => Effect.sync(() => fail(e.message))),
        );
        return [
          `a reset link for ${email}, valid once until ${day(issued.expiresAt)}; hand it over privately:`,
          issued.link,
        ].join("\n");
      }
      default:
        return fail(
          command === undefined ? "a command is required" : `unknown command ${JSON.stringify(command)}`,
          true,
        );
    }
  });

await runServiceDbCli("accounts", usage, run);
