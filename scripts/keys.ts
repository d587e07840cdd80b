/**
 * `npm run keys -- <command>`: API keys for operators (the spec's dashboard actions). Works on
 * SERVICE_DATABASE_URL, or on the embedded service database under DATA_DIR, through the running service's socket
 * when it runs (changes apply within a second) and directly when it does not.
 *
 *   create --tier free|paid --name NAME [--expires ISO-8601] [--account NAME]   prints the key on its last line
 *          [--networks mainnet,preprod] [--families rest,explorer,...] [--override-plan]   (src/domain/families.ts)
 *   list | revoke ID | deactivate ID | activate ID | rename ID NAME | rotate ID | usage [ID]
 *
 * `usage` also prints each signed-up account's shared FREE budget (its FREE keys spend one: budget_subject.ts).
 *
 * `create` applies the key policy the dashboard applies (src/domain/key_policy.ts): a FREE account (a sign-up,
 * or one the operator moved to FREE) gets FREE keys only, unless `--override-plan` says the operator means it;
 * names and permissions are checked the same way. An account named for the first time is the operator's own
 * and starts on the PAID plan. Unlike the dashboard, the operator may give an expiry in the past.
 *
 * On the embedded database, a DATA_DIR that holds none is refused unless `--init` (create one there); while
 * the service holding DATA_DIR is still starting, the CLI waits for it (`--wait SECONDS`, 120 by default).
 */
import { parseArgs } from "node:util";
import type { SqlClient } from "@effect/sql/SqlClient";
import { Effect, Either, Option } from "effect";
import { makeAccountStore } from "@layers/account_store.ts";
import { checkKeyName, checkPermissions, mayCreate } from "@src/domain/key_policy.ts";
import { allNetworks, allPermissions, keyFamilies } from "@src/domain/accounts.ts";
import { type KeyRecord, type KeyStatus, makeKeyStore } from "@layers/key_store.ts";
import type { AppConfigShape, Limits } from "@layers/config.ts";
import { fail, runServiceDbCli } from "./service_db_cli.ts";

const usage = `usage: npm run keys -- <command> [--init] [--wait SECONDS]
  create --tier free|paid --name NAME [--expires ISO-8601] [--account NAME]
         [--networks ${allNetworks.join(",")}] [--families ${keyFamilies.join(",")}] [--override-plan]
  list
  revoke ID | deactivate ID | activate ID
  rename ID NEW-NAME
  rotate ID
  usage [ID]`;

const idOf = (text: string | undefined): number => {
  if (!text || !/^\d+$/.test(text)) {
    return fail(`expected a key id (see "list"), got ${JSON.stringify(text ?? "")}`);
  }
  return Number(text);
};

const row = (k: KeyRecord) =>
  [
    String(k.id).padStart(4),
    k.tier.padEnd(4),
    k.status.padEnd(8),
    k.hint.padEnd(10),
    k.createdAt.toISOString().slice(0, 19) + "Z",
    (k.expiresAt ? k.expiresAt.toISOString().slice(0, 19) + "Z" : "never").padEnd(20),
    `${k.account}/${k.name}${restricted(k)}`,
  ].join("  ");

/** A key limited to some networks or families says so after its name. */
const restricted = (k: KeyRecord) =>
  k.permissions.networks.length < allPermissions.networks.length ||
    k.permissions.families.length < allPermissions.families.length
    ? `  [${k.permissions.networks.join(",")}; ${k.permissions.families.join(",")}]`
    : "";

const header = "  id  tier  status    hint        created               expires               account/name";

/**
 * The shared FREE budgets (src/domain/budget_subject.ts): per signed-up account with FREE keys, what all of them
 * spent together today and in the last hour, against the FREE limits; only the key's account when `id` is given.
 */
const sharedBudgets = (sql: SqlClient, limits: Limits, id: number | null) =>
  Effect.map(
    sql<{ email: string; keys: string; today: string; subs: string }>`
      select a.email,
        (select count(*) from cds.api_key k where k.account_id = a.id and k.tier = 'FREE' and k.status = 'active'
          and (k.expires_at is null or k.expires_at > now()))::text as keys,
        (select coalesce(sum(u.requests), 0) from cds.usage_daily u join cds.api_key k on k.id = u.key_id
          where k.account_id = a.id and k.tier = 'FREE' and u.day = (now() at time zone 'utc')::date)::text as today,
        (select count(*) from cds.submission s join cds.api_key k on k.id = s.key_id
          where k.account_id = a.id and k.tier = 'FREE' and s.at > now() - interval '1 hour')::text as subs
      from cds.account a
      where a.email is not null and exists (select 1 from cds.api_key k where k.account_id = a.id
          and k.tier = 'FREE' and k.status <> 'revoked' and (${id}::bigint is null or k.id = ${id}))
      order by a.id`,
    (rows) => {
      const of = (n: string, limit: number) => limit > 0 ? `${n} of ${limit}` : `${n} (no limit)`;
      return rows.length === 0
        ? ["  none"]
        : rows.map((r) =>
          `  ${r.email}: ${r.keys} active FREE keys share one budget; today ${
            of(r.today, limits.dailyRequests.FREE)
          } requests, ${of(r.subs, limits.submissionsPerHour.FREE)} submissions in the last hour`
        );
    },
  );

const run = (sql: SqlClient, config: AppConfigShape, args: Array<string>) =>
  Effect.gen(function* () {
    const prefix = config.apiKeyPrefix;
    const store = makeKeyStore(sql, prefix);
    const [command, ...rest] = args;
    const setStatus = (status: KeyStatus) =>
      Effect.gen(function* () {
        const id = idOf(rest[0]);
        if (!(yield* store.setStatus(id, status))) fail(`no key with id ${id}`);
        return `key ${id} is now ${status}`;
      });
    switch (command) {
      case "create": {
        const { values } = (() => {
          try {
            return parseArgs({
              args: rest,
              options: {
                tier: { type: "string" },
                name: { type: "string" },
                expires: { type: "string" },
                account: { type: "string" },
                networks: { type: "string" },
                families: { type: "string" },
                "override-plan": { type: "boolean" },
              },
              strict: true,
            });
          } catch (error) {
            return fail(error instanceof Error ? error.message : String(error), true);
          }
        })();
        const tier = values.tier?.toUpperCase();
        if (tier !== "FREE" && tier !== "PAID") {
          fail(`--tier must be free or paid, got ${JSON.stringify(values.tier)}`);
        }
        const name = Either.getOrElse(checkKeyName(values.name ?? ""), (e) => fail(`--name: ${e.reason}`));
        const list = (text: string | undefined) =>
          text?.split(",").map((t) => t.trim()).filter((t) => t !== "");
        const permissions = Either.getOrElse(
          checkPermissions({ networks: list(values.networks), families: list(values.families) }),
          (e) => fail(`--${e.field}: ${e.reason}`),
        );
        const account = yield* makeAccountStore(sql, prefix).byName(values.account ?? "default");
        if (Option.isSome(account) && !values["override-plan"]) {
          Either.getOrElse(
            mayCreate(account.value.plan, tier as "FREE" | "PAID"),
            (e) => fail(`${e.message} (the operator may pass --override-plan)`),
          );
        }
        let expiresAt: Date | null = null;
        if (values.expires !== undefined) {
          expiresAt = new Date(values.expires);
          if (Number.isNaN(expiresAt.getTime())) {
            fail(`--expires must be an ISO-8601 date-time, got ${values.expires}`);
          }
        }
        const { key, record } = yield* store.create({
          name,
          tier: tier as "FREE" | "PAID",
          account: values.account,
          expiresAt,
          permissions,
        });
        return [
          header,
          row(record),
          "Store this key now: it is shown once and only its hash is kept.",
          key,
        ].join("\n");
      }
      case "list":
        return [header, ...(yield* store.list).map(row)].join("\n");
      case "revoke":
        return yield* setStatus("revoked");
      case "deactivate":
        return yield* setStatus("inactive");
      case "activate":
        return yield* setStatus("active");
      case "rename": {
        const id = idOf(rest[0]);
        const name = Either.getOrElse(
          checkKeyName(rest.slice(1).join(" ")),
          (e) => fail(`rename needs a new name: ${e.reason}`),
        );
        if (!(yield* store.rename(id, name))) fail(`no key with id ${id}`);
        return `key ${id} renamed to ${name}`;
      }
      case "rotate": {
        const id = idOf(rest[0]);
        const key = yield* store.rotate(id);
        if (Option.isNone(key)) return fail(`no key with id ${id}`);
        return [`key ${id} rotated: the old secret no longer works`, key.value].join("\n");
      }
      case "usage": {
        const id = rest[0] === undefined ? null : idOf(rest[0]);
        const daily = yield* sql<{ id: string; day: string; family: string; requests: string }>`
          select key_id::text as id, day::text as day, family, requests::text as requests from cds.usage_daily
          where (${id}::bigint is null or key_id = ${id}) and day > current_date - 30
          order by day desc, key_id, family`;
        const subs = yield* sql<{ id: string; n: string }>`
          select key_id::text as id, count(*)::text as n from cds.submission
          where (${id}::bigint is null or key_id = ${id}) and at > now() - interval '1 hour' group by key_id`;
        return [
          "requests per UTC day and endpoint family (last 30 days):",
          "  key  day         family    requests",
          ...daily.map((d) => `${d.id.padStart(5)}  ${d.day}  ${d.family.padEnd(8)}  ${d.requests}`),
          "transaction submissions in the last hour:",
          ...(subs.length > 0 ? subs.map((s) => `  key ${s.id}: ${s.n}`) : ["  none"]),
          "FREE budgets shared by an account's FREE keys (the figures above are per key):",
          ...(yield* sharedBudgets(sql, config.limits, id)),
        ].join("\n");
      }
      default:
        return fail(
          command === undefined ? "a command is required" : `unknown command ${JSON.stringify(command)}`,
          true,
        );
    }
  });

await runServiceDbCli("keys", usage, (sql, config, args) => run(sql, config, args));
