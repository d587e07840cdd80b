/**
 * `AccountStore`: accounts, their sessions, their mailed links and their keys in the service database
 * (migration 0004). Secrets are stored as SHA-256 only (session secrets, link tokens, key secrets: all 256 or
 * 190 random bits, so a fast hash is enough); passwords as scrypt strings made by password_hash.ts. Every
 * multi-step write is one transaction. Key operations take the account's id and touch only its own keys, so
 * another account's key id is simply not found.
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import { Context, Effect, Layer, Option } from "effect";
import { sha256 } from "@noble/hashes/sha2.js";
import { generateApiKey, hashApiKey, keyHint } from "@src/domain/api_key.ts";
import type { Plan } from "@src/domain/accounts.ts";
import { EmailTaken, KeyLimitReached } from "@src/domain/account_errors.ts";
import { DatabaseUnavailable } from "@src/domain/errors.ts";
import type { CheckedKey } from "@src/domain/key_policy.ts";
import { keyColumns, type KeyRecord, type KeyStatus, storedPermissions, toRecord } from "./key_store.ts";
import { type KeyChange, KeyChanges, type KeyChangesShape } from "./key_changes.ts";
import { ServiceDatabase } from "./service_db.ts";

export interface AccountRecord {
  readonly id: number;
  /** Null for the operator's own accounts (made by the keys CLI, by name). */
  readonly email: string | null;
  readonly name: string;
  readonly plan: Plan;
  /** Prepaid requests left; null = unlimited. */
  readonly credits: number | null;
  readonly disabled: boolean;
  readonly emailConfirmed: boolean;
  readonly createdAt: Date;
}

export interface SessionRecord {
  readonly id: number;
  readonly csrfToken: string;
  readonly createdAt: Date;
  readonly expiresAt: Date;
}

export type TokenKind = "confirm" | "reset";

export interface NewSecretKey {
  readonly secret: string;
  readonly record: KeyRecord;
}

export interface UsageRow {
  readonly keyId: number;
  readonly day: string;
  readonly family: string;
  readonly requests: number;
  readonly rateLimited: number;
}

export interface AccountUsage {
  /** Last 30 UTC days, newest first. */
  readonly daily: ReadonlyArray<UsageRow>;
  /** Submissions per key in the last hour. */
  readonly submissionsLastHour: ReadonlyMap<number, number>;
}

type Fail = DatabaseUnavailable;

export interface AccountStoreShape {
  /**
   * The account with its FREE key (signed up without mail), or with its confirmation token (by mail: the key
   * comes with the confirmation), in one transaction.
   */
  readonly signUp: <K extends CheckedKey | undefined>(input: {
    readonly email: string;
    readonly passwordHash: string;
    readonly confirmed: boolean;
    readonly key: K;
    readonly confirmToken?: { readonly secret: string; readonly expiresAt: Date };
    /** A session opened with the account (usable at once): in the same transaction. */
    readonly session?: { readonly secret: string; readonly csrfToken: string; readonly expiresAt: Date };
  }) => Effect.Effect<
    { readonly account: AccountRecord; readonly key: K extends CheckedKey ? NewSecretKey : undefined },
    EmailTaken | Fail
  >;
  readonly byEmail: (
    email: string,
  ) => Effect.Effect<Option.Option<AccountRecord & { readonly passwordHash: string | null }>, Fail>;
  readonly byId: (id: number) => Effect.Effect<Option.Option<AccountRecord>, Fail>;
  readonly passwordHashOf: (id: number) => Effect.Effect<Option.Option<string>, Fail>;
  readonly list: Effect.Effect<ReadonlyArray<AccountRecord & { readonly keys: number }>, Fail>;

  readonly createSession: (input: {
    readonly accountId: number;
    readonly secret: string;
    readonly csrfToken: string;
    readonly expiresAt: Date;
  }) => Effect.Effect<SessionRecord, Fail>;
  /** A live session (not expired, its account neither disabled nor deleted), its last use noted. */
  readonly session: (
    secret: string,
  ) => Effect.Effect<
    Option.Option<{ readonly account: AccountRecord; readonly session: SessionRecord }>,
    Fail
  >;
  readonly endSession: (secret: string) => Effect.Effect<void, Fail>;

  /** New password; every session but `keepSession`'s ends and unused reset links die, in one transaction. */
  readonly setPassword: (
    accountId: number,
    passwordHash: string,
    keepSession?: string,
  ) => Effect.Effect<void, Fail>;
  /**
   * The same password under a stronger hash (sessions stay): only while the stored hash is still `previous`,
   * so a password changed meanwhile is not undone. True when it was replaced.
   */
  readonly upgradePasswordHash: (
    accountId: number,
    previous: string,
    passwordHash: string,
  ) => Effect.Effect<boolean, Fail>;
  /** Revokes its keys, ends its sessions and links, frees its email; usage stays with the revoked keys. */
  readonly deleteAccount: (accountId: number) => Effect.Effect<void, Fail>;

  readonly addToken: (
    accountId: number,
    kind: TokenKind,
    secret: string,
    expiresAt: Date,
  ) => Effect.Effect<void, Fail>;
  /** The account of a live token, without using it: none for unknown, used or expired ones. */
  readonly tokenAccount: (
    kind: TokenKind,
    secret: string,
  ) => Effect.Effect<Option.Option<{ readonly accountId: number; readonly email: string | null }>, Fail>;
  /**
   * Uses a live confirmation link once and confirms its account's address, in one transaction; an account that
   * has never had a key gets `firstKey` in the same transaction (its secret returned here once).
   */
  readonly confirmWithToken: (
    secret: string,
    firstKey: CheckedKey,
  ) => Effect.Effect<
    Option.Option<{ readonly accountId: number; readonly key: NewSecretKey | undefined }>,
    Fail
  >;
  /**
   * Uses a live reset link once and sets the new password (every session and other reset link ends, the address
   * is confirmed: whoever holds the link reads its mail), in one transaction.
   */
  readonly resetWithToken: (
    secret: string,
    passwordHash: string,
  ) => Effect.Effect<Option.Option<number>, Fail>;

  readonly keys: (accountId: number) => Effect.Effect<ReadonlyArray<KeyRecord>, Fail>;
  readonly key: (accountId: number, keyId: number) => Effect.Effect<Option.Option<KeyRecord>, Fail>;
  /**
   * `freeKeysLimit`: on a FREE account, the active keys it may hold; counted and inserted in one transaction
   * holding the account's row, so concurrent creations cannot pass the limit together.
   */
  readonly createKey: (
    accountId: number,
    key: CheckedKey,
    freeKeysLimit?: number,
  ) => Effect.Effect<NewSecretKey, KeyLimitReached | Fail>;
  /** False when the account has no such key (or it is revoked, for the changes a revoked key cannot take). */
  readonly renameKey: (accountId: number, keyId: number, name: string) => Effect.Effect<boolean, Fail>;
  readonly rotateKey: (accountId: number, keyId: number) => Effect.Effect<Option.Option<string>, Fail>;
  /** Re-activating a key holds to `freeKeysLimit` as `createKey` does. */
  readonly setKeyStatus: (
    accountId: number,
    keyId: number,
    status: KeyStatus,
    freeKeysLimit?: number,
  ) => Effect.Effect<boolean, KeyLimitReached | Fail>;
  readonly usage: (accountId: number, keyId?: number) => Effect.Effect<AccountUsage, Fail>;

  /**
   * The account's plan; undefined when no such account, else how many of its keys became FREE: a FREE plan has
   * FREE keys, so a move to FREE gives its PAID keys (operator overrides included) the FREE limits.
   */
  readonly setPlan: (email: string, plan: Plan) => Effect.Effect<number | undefined, Fail>;
  /** Operator changes, by email; false when no such account. */
  readonly setCredits: (email: string, credits: number | null) => Effect.Effect<boolean, Fail>;
  readonly setDisabled: (email: string, disabled: boolean) => Effect.Effect<boolean, Fail>;
  /** An account by name (the keys CLI's `--account`): its plan, to apply the key policy. */
  readonly byName: (name: string) => Effect.Effect<Option.Option<AccountRecord>, Fail>;
}

export class AccountStore extends Context.Tag("AccountStore")<AccountStore, AccountStoreShape>() {}

export const hashSecret = (secret: string): Uint8Array => sha256(new TextEncoder().encode(secret));

interface AccountRow {
  readonly id: string;
  readonly email: string | null;
  readonly name: string;
  readonly plan: Plan;
  readonly credits: string | null;
  readonly disabled: boolean;
  readonly emailConfirmed: boolean;
  readonly createdAt: Date;
}

const accountColumns = `a.id::text as id, a.email, a.name, a.plan, a.credits::text as credits,
  (a.disabled_at is not null) as disabled, (a.email_confirmed_at is not null) as "emailConfirmed",
  a.created_at as "createdAt"`;

const toAccount = (r: AccountRow): AccountRecord => ({
  id: Number(r.id),
  email: r.email,
  name: r.name,
  plan: r.plan,
  credits: r.credits === null ? null : Number(r.credits),
  disabled: r.disabled,
  emailConfirmed: r.emailConfirmed,
  createdAt: r.createdAt,
});

/** The driver's own message says what failed (never the statement's parameters: they may hold hashes). */
const unavailable = (e: SqlError) =>
  new DatabaseUnavailable({
    network: "service",
    message: e.cause instanceof Error ? `${e.message}: ${e.cause.message}` : e.message,
  });

/** PostgreSQL's unique_violation, from node-postgres or PGlite. */
const isUniqueViolation = (e: SqlError): boolean => {
  const cause = e.cause as { code?: unknown } | undefined;
  return cause?.code === "23505" || /duplicate key|unique constraint/i.test(e.message);
};

export const makeAccountStore = (sql: SqlClient, prefix: string): AccountStoreShape => {
  const columns = sql.literal(accountColumns);
  const oneAccount = (where: ReturnType<SqlClient["and"]>) =>
    Effect.map(
      sql<AccountRow>`select ${columns} from cds.account a where ${where} and a.deleted_at is null`,
      (rows) => Option.map(Option.fromNullable(rows[0]), toAccount),
    );
  const keysWhere = (where: ReturnType<SqlClient["and"]>) =>
    Effect.map(
      sql<Parameters<typeof toRecord>[0]>`
        select ${sql.literal(keyColumns)} from cds.api_key k join cds.account a on a.id = k.account_id
        where ${where} order by k.id`,
      (rows) => rows.map(toRecord),
    );
  const insertKey = (accountId: number, key: CheckedKey) =>
    Effect.gen(function* () {
      const secret = generateApiKey(prefix);
      const { networks, families } = storedPermissions(key.permissions);
      const [row] = yield* sql<{ id: string }>`
        insert into cds.api_key (account_id, name, tier, secret_sha256, hint, expires_at, networks, families)
        values (${accountId}, ${key.name}, ${key.tier}, ${hashApiKey(secret)}, ${keyHint(secret)},
          ${key.expiresAt}, ${networks}::text[], ${families}::text[])
        returning id::text as id`;
      const [record] = yield* keysWhere(sql.and([sql`k.id = ${Number(row!.id)}`]));
      return { secret, record: record! };
    });
  /**
   * Fails with KeyLimitReached when the account is on the FREE plan and holds `limit` usable keys (active, not
   * expired) besides `except`. Locks the account's row first: in a transaction, a concurrent creation waits
   * for this one's insert and then counts it.
   */
  const holdFreeKeyLimit = (accountId: number, limit: number | undefined, except?: number) =>
    Effect.gen(function* () {
      if (limit === undefined) return;
      const [account] = yield* sql<{ plan: string }>`
        select plan from cds.account where id = ${accountId} for update`;
      if (account?.plan !== "FREE") return;
      const [row] = yield* sql<{ n: string }>`
        select count(*)::text as n from cds.api_key where account_id = ${accountId} and status = 'active'
          and (expires_at is null or expires_at > now()) and id <> ${except ?? 0}`;
      if (Number(row!.n) >= limit) return yield* Effect.fail(new KeyLimitReached({ limit }));
    });
  /** The key's status may change (or the key take a change) only while it is not revoked. */
  const ownKey = (accountId: number, keyId: number) =>
    sql`id = ${keyId} and account_id = ${accountId} and status <> 'revoked'`;
  const bumpKeys = sql`update cds.key_generation set value = value + 1`;
  /** Uses a live token once (atomically): its account id, or none for unknown, used or expired ones. */
  const useToken = (kind: TokenKind, secret: string) =>
    Effect.map(
      sql<{ accountId: string }>`
        update cds.account_token t set used_at = now()
        from cds.account a
        where t.secret_sha256 = ${hashSecret(secret)} and t.kind = ${kind} and t.used_at is null
          and t.expires_at > now() and a.id = t.account_id and a.deleted_at is null
        returning t.account_id::text as "accountId"`,
      (rows) => Option.map(Option.fromNullable(rows[0]), (r) => Number(r.accountId)),
    );
  /** The new password's statements: every session but `keepSession`'s ends, and unused reset links die. */
  const replacePassword = (accountId: number, passwordHash: string, keepSession?: string) =>
    Effect.gen(function* () {
      yield* sql`update cds.account set password_hash = ${passwordHash} where id = ${accountId}`;
      yield* keepSession === undefined
        ? sql`delete from cds.session where account_id = ${accountId}`
        : sql`delete from cds.session where account_id = ${accountId}
            and secret_sha256 <> ${hashSecret(keepSession)}`;
      yield* sql`update cds.account_token set used_at = now()
        where account_id = ${accountId} and kind = 'reset' and used_at is null`;
    });
  const confirmEmail = (accountId: number) =>
    sql`update cds.account set email_confirmed_at = coalesce(email_confirmed_at, now()) where id = ${accountId}`;

  return {
    signUp: (input) =>
      sql.withTransaction(Effect.gen(function* () {
        const [row] = yield* sql<{ id: string }>`
          insert into cds.account (name, email, password_hash, plan, email_confirmed_at)
          values (${input.email}, ${input.email}, ${input.passwordHash}, 'FREE',
            ${input.confirmed ? sql`now()` : null})
          returning id::text as id`;
        const accountId = Number(row!.id);
        const key = input.key === undefined ? undefined : yield* insertKey(accountId, input.key);
        if (input.confirmToken) {
          yield* sql`insert into cds.account_token (secret_sha256, account_id, kind, expires_at)
            values (${hashSecret(input.confirmToken.secret)}, ${accountId}, 'confirm',
              ${input.confirmToken.expiresAt})`;
        }
        if (input.session) {
          yield* sql`insert into cds.session (secret_sha256, account_id, csrf_token, expires_at)
            values (${hashSecret(input.session.secret)}, ${accountId}, ${input.session.csrfToken},
              ${input.session.expiresAt})`;
        }
        const account = yield* oneAccount(sql.and([sql`a.id = ${accountId}`]));
        return {
          account: Option.getOrThrow(account),
          key: key as typeof input.key extends CheckedKey ? NewSecretKey : undefined,
        };
      })).pipe(
        Effect.mapError((e): EmailTaken | DatabaseUnavailable =>
          isUniqueViolation(e) ? new EmailTaken() : unavailable(e)
        ),
      ),
    byEmail: (email) =>
      Effect.map(
        sql<AccountRow & { passwordHash: string | null }>`
          select ${columns}, a.password_hash as "passwordHash" from cds.account a
          where a.email = ${email} and a.deleted_at is null`,
        (rows) =>
          Option.map(
            Option.fromNullable(rows[0]),
            (r) => ({ ...toAccount(r), passwordHash: r.passwordHash }),
          ),
      ).pipe(Effect.mapError(unavailable)),
    byId: (id) => oneAccount(sql.and([sql`a.id = ${id}`])).pipe(Effect.mapError(unavailable)),
    byName: (name) => oneAccount(sql.and([sql`a.name = ${name}`])).pipe(Effect.mapError(unavailable)),
    passwordHashOf: (id) =>
      Effect.map(
        sql<{ hash: string | null }>`select password_hash as hash from cds.account
          where id = ${id} and deleted_at is null`,
        (rows) => Option.fromNullable(rows[0]?.hash),
      ).pipe(Effect.mapError(unavailable)),
    list: Effect.map(
      sql<AccountRow & { keys: string }>`
        select ${columns}, (select count(*) from cds.api_key k where k.account_id = a.id
          and k.status <> 'revoked')::text as keys
        from cds.account a where a.deleted_at is null order by a.id`,
      (rows) => rows.map((r) => ({ ...toAccount(r), keys: Number(r.keys) })),
    ).pipe(Effect.mapError(unavailable)),

    createSession: (input) =>
      sql.withTransaction(Effect.gen(function* () {
        // the account's ended sessions and links go as it logs in: the tables hold live rows only, roughly
        yield* sql`delete from cds.session where account_id = ${input.accountId} and expires_at <= now()`;
        yield* sql`delete from cds.account_token where account_id = ${input.accountId}
          and (expires_at <= now() - interval '1 day' or used_at <= now() - interval '1 day')`;
        const [row] = yield* sql<{ id: string; createdAt: Date }>`
          insert into cds.session (secret_sha256, account_id, csrf_token, expires_at)
          values (${hashSecret(input.secret)}, ${input.accountId}, ${input.csrfToken}, ${input.expiresAt})
          returning id::text as id, created_at as "createdAt"`;
        return {
          id: Number(row!.id),
          csrfToken: input.csrfToken,
          createdAt: row!.createdAt,
          expiresAt: input.expiresAt,
        };
      })).pipe(Effect.mapError(unavailable)),
    session: (secret) =>
      Effect.gen(function* () {
        const rows = yield* sql<
          AccountRow & {
            sessionId: string;
            csrfToken: string;
            sessionCreatedAt: Date;
            expiresAt: Date;
            stale: boolean;
          }
        >`
          select ${columns}, s.id::text as "sessionId", s.csrf_token as "csrfToken",
            s.created_at as "sessionCreatedAt", s.expires_at as "expiresAt",
            (s.last_seen_at < now() - interval '1 minute') as stale
          from cds.session s join cds.account a on a.id = s.account_id
          where s.secret_sha256 = ${hashSecret(secret)} and s.expires_at > now()
            and a.disabled_at is null and a.deleted_at is null`;
        const row = rows[0];
        if (!row) return Option.none();
        // noted once a minute at most: a page view need not write
        if (row.stale) {
          yield* sql`update cds.session set last_seen_at = now() where id = ${Number(row.sessionId)}`;
        }
        return Option.some({
          account: toAccount(row),
          session: {
            id: Number(row.sessionId),
            csrfToken: row.csrfToken,
            createdAt: row.sessionCreatedAt,
            expiresAt: row.expiresAt,
          },
        });
      }).pipe(Effect.mapError(unavailable)),
    endSession: (secret) =>
      sql`delete from cds.session where secret_sha256 = ${hashSecret(secret)}`.pipe(
        Effect.asVoid,
        Effect.mapError(unavailable),
      ),

    upgradePasswordHash: (accountId, previous, passwordHash) =>
      Effect.map(
        sql<{ id: string }>`update cds.account set password_hash = ${passwordHash}
          where id = ${accountId} and password_hash = ${previous} returning id::text as id`,
        (rows) => rows.length === 1,
      ).pipe(Effect.mapError(unavailable)),
    setPassword: (accountId, passwordHash, keepSession) =>
      sql.withTransaction(replacePassword(accountId, passwordHash, keepSession)).pipe(
        Effect.mapError(unavailable),
      ),
    deleteAccount: (accountId) =>
      sql.withTransaction(Effect.gen(function* () {
        yield* sql`update cds.api_key set status = 'revoked', updated_at = now()
          where account_id = ${accountId} and status <> 'revoked'`;
        yield* sql`delete from cds.session where account_id = ${accountId}`;
        yield* sql`update cds.account_token set used_at = now() where account_id = ${accountId} and used_at is null`;
        yield* sql`update cds.account set email = null, password_hash = null, name = ${`deleted-${accountId}`},
          deleted_at = now() where id = ${accountId}`;
      })).pipe(Effect.mapError(unavailable)),

    addToken: (accountId, kind, secret, expiresAt) =>
      sql`insert into cds.account_token (secret_sha256, account_id, kind, expires_at)
        values (${hashSecret(secret)}, ${accountId}, ${kind}, ${expiresAt})`.pipe(
        Effect.asVoid,
        Effect.mapError(unavailable),
      ),
    tokenAccount: (kind, secret) =>
      Effect.map(
        sql<{ accountId: string; email: string | null }>`
          select t.account_id::text as "accountId", a.email from cds.account_token t
          join cds.account a on a.id = t.account_id
          where t.secret_sha256 = ${hashSecret(secret)} and t.kind = ${kind} and t.used_at is null
            and t.expires_at > now() and a.deleted_at is null`,
        (rows) =>
          Option.map(
            Option.fromNullable(rows[0]),
            (r) => ({ accountId: Number(r.accountId), email: r.email }),
          ),
      ).pipe(Effect.mapError(unavailable)),
    confirmWithToken: (secret, firstKey) =>
      sql.withTransaction(Effect.gen(function* () {
        const accountId = yield* useToken("confirm", secret);
        if (Option.isNone(accountId)) return Option.none();
        yield* confirmEmail(accountId.value);
        const [had] = yield* sql`select 1 from cds.api_key where account_id = ${accountId.value} limit 1`;
        const key = had ? undefined : yield* insertKey(accountId.value, firstKey);
        return Option.some({ accountId: accountId.value, key });
      })).pipe(Effect.mapError(unavailable)),
    resetWithToken: (secret, passwordHash) =>
      sql.withTransaction(Effect.gen(function* () {
        const accountId = yield* useToken("reset", secret);
        if (Option.isNone(accountId)) return accountId;
        yield* replacePassword(accountId.value, passwordHash);
        yield* confirmEmail(accountId.value);
        return accountId;
      })).pipe(Effect.mapError(unavailable)),

    keys: (accountId) =>
      keysWhere(sql.and([sql`k.account_id = ${accountId}`])).pipe(Effect.mapError(unavailable)),
    key: (accountId, keyId) =>
      Effect.map(
        keysWhere(sql.and([sql`k.account_id = ${accountId}`, sql`k.id = ${keyId}`])),
        (rows) => Option.fromNullable(rows[0]),
      ).pipe(Effect.mapError(unavailable)),
    createKey: (accountId, key, freeKeysLimit) =>
      sql.withTransaction(
        Effect.zipRight(holdFreeKeyLimit(accountId, freeKeysLimit), insertKey(accountId, key)),
      ).pipe(Effect.mapError((e) => e._tag === "KeyLimitReached" ? e : unavailable(e))),
    renameKey: (accountId, keyId, name) =>
      Effect.map(
        sql`update cds.api_key set name = ${name}, updated_at = now() where ${ownKey(accountId, keyId)}
          returning id`,
        (rows) => rows.length > 0,
      ).pipe(Effect.mapError(unavailable)),
    rotateKey: (accountId, keyId) => {
      const secret = generateApiKey(prefix);
      return Effect.map(
        sql`update cds.api_key set secret_sha256 = ${hashApiKey(secret)}, hint = ${keyHint(secret)},
          updated_at = now() where ${ownKey(accountId, keyId)} returning id`,
        (rows) => (rows.length > 0 ? Option.some(secret) : Option.none()),
      ).pipe(Effect.mapError(unavailable));
    },
    setKeyStatus: (accountId, keyId, status, freeKeysLimit) =>
      sql.withTransaction(Effect.gen(function* () {
        if (status === "active") yield* holdFreeKeyLimit(accountId, freeKeysLimit, keyId);
        const rows = yield* sql`update cds.api_key set status = ${status}, updated_at = now()
          where ${ownKey(accountId, keyId)} returning id`;
        return rows.length > 0;
      })).pipe(Effect.mapError((e) => e._tag === "KeyLimitReached" ? e : unavailable(e))),
    usage: (accountId, keyId) =>
      Effect.gen(function* () {
        const only = keyId === undefined ? sql`true` : sql`k.id = ${keyId}`;
        const daily = yield* sql<
          { keyId: string; day: string; family: string; requests: string; rateLimited: string }
        >`
          select u.key_id::text as "keyId", u.day::text as day, u.family, u.requests::text as requests,
            u.rate_limited::text as "rateLimited"
          from cds.usage_daily u join cds.api_key k on k.id = u.key_id
          where k.account_id = ${accountId} and ${only} and u.day > current_date - 30
          order by u.day desc, u.key_id, u.family`;
        const subs = yield* sql<{ keyId: string; n: string }>`
          select s.key_id::text as "keyId", count(*)::text as n
          from cds.submission s join cds.api_key k on k.id = s.key_id
          where k.account_id = ${accountId} and ${only} and s.at > now() - interval '1 hour'
          group by s.key_id`;
        return {
          daily: daily.map((d) => ({
            keyId: Number(d.keyId),
            day: d.day,
            family: d.family,
            requests: Number(d.requests),
            rateLimited: Number(d.rateLimited),
          })),
          submissionsLastHour: new Map(subs.map((s) => [Number(s.keyId), Number(s.n)])),
        };
      }).pipe(Effect.mapError(unavailable)),

    setPlan: (email, plan) =>
      sql.withTransaction(Effect.gen(function* () {
        const [account] = yield* sql<{ id: string }>`update cds.account set plan = ${plan}
          where email = ${email} and deleted_at is null returning id::text as id`;
        if (!account) return undefined;
        if (plan === "PAID") return 0;
        // the key table's trigger tells running services, which apply the FREE limits within a second
        const demoted = yield* sql`update cds.api_key set tier = 'FREE'
          where account_id = ${account.id} and tier = 'PAID' and status <> 'revoked' returning id`;
        return demoted.length;
      })).pipe(Effect.mapError(unavailable)),
    setCredits: (email, credits) =>
      sql.withTransaction(Effect.gen(function* () {
        const rows = yield* sql`update cds.account set credits = ${credits}
          where email = ${email} and deleted_at is null returning id`;
        // running services re-read their keys' records, and with them the new balance
        if (rows.length > 0) yield* bumpKeys;
        return rows.length > 0;
      })).pipe(Effect.mapError(unavailable)),
    setDisabled: (email, disabled) =>
      sql.withTransaction(Effect.gen(function* () {
        const rows = yield* sql<{ id: string }>`update cds.account
          set disabled_at = ${disabled ? sql`coalesce(disabled_at, now())` : null}
          where email = ${email} and deleted_at is null returning id::text as id`;
        if (disabled && rows[0]) yield* sql`delete from cds.session where account_id = ${Number(rows[0].id)}`;
        return rows.length > 0;
      })).pipe(Effect.mapError(unavailable)),
  };
};

/** The store, telling every instance's key cache (KeyChanges) about each change it makes to keys or accounts. */
export const announcingAccountStore = (
  store: AccountStoreShape,
  changes: KeyChangesShape,
): AccountStoreShape => {
  const after = <A, E>(effect: Effect.Effect<A, E>, change: (a: A) => KeyChange | undefined) =>
    Effect.tap(effect, (a) => {
      const c = change(a);
      return c ? changes.publish(c) : Effect.void;
    });
  return {
    ...store,
    signUp: (input) => after(store.signUp(input), ({ account }) => ({ accountId: account.id })),
    deleteAccount: (accountId) => after(store.deleteAccount(accountId), () => ({ accountId })),
    confirmWithToken: (secret, firstKey) =>
      after(
        store.confirmWithToken(secret, firstKey),
        (o) => Option.isSome(o) ? { accountId: o.value.accountId } : undefined,
      ),
    createKey: (accountId, key, limit) =>
      after(store.createKey(accountId, key, limit), () => ({ accountId })),
    renameKey: (accountId, keyId, name) =>
      after(store.renameKey(accountId, keyId, name), (ok) => ok ? { keyId } : undefined),
    rotateKey: (accountId, keyId) =>
      after(store.rotateKey(accountId, keyId), (o) => Option.isSome(o) ? { keyId } : undefined),
    setKeyStatus: (accountId, keyId, status, limit) =>
      after(store.setKeyStatus(accountId, keyId, status, limit), (ok) => ok ? { keyId } : undefined),
    // by email: every cached key is dropped (these are the operator's rare changes)
    setPlan: (email, plan) => after(store.setPlan(email, plan), (n) => n === undefined ? undefined : {}),
    setCredits: (email, credits) => after(store.setCredits(email, credits), (ok) => ok ? {} : undefined),
    setDisabled: (email, disabled) => after(store.setDisabled(email, disabled), (ok) => ok ? {} : undefined),
  };
};

export const AccountStoreLive = (
  prefix: string,
): Layer.Layer<AccountStore, never, ServiceDatabase | KeyChanges> =>
  Layer.effect(
    AccountStore,
    Effect.gen(function* () {
      const db = yield* ServiceDatabase;
      return announcingAccountStore(makeAccountStore(db.sql, prefix), yield* KeyChanges);
    }),
  );
