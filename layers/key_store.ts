/**
 * `KeyStore`: API keys in the service database (`cds.api_key`, migration 0002). Only hashes are stored; the
 * secret is returned once, by `create` and `rotate`. `generation` changes with every key change, so callers can
 * cache lookups and still see a revocation within their poll interval.
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import { Context, Effect, Layer, Option } from "effect";
import { generateApiKey, hashApiKey, keyHint } from "@src/domain/api_key.ts";
import { allPermissions, type KeyFamily, type KeyPermissions, type Plan } from "@src/domain/accounts.ts";
import { budgetSubject } from "@src/domain/budget_subject.ts";
import { DatabaseUnavailable } from "@src/domain/errors.ts";
import type { Network } from "@schemas/network.ts";
import { type KeyChange, KeyChanges, type KeyChangesShape } from "./key_changes.ts";
import { ServiceDatabase } from "./service_db.ts";

export type Tier = "FREE" | "PAID";
export type KeyStatus = "active" | "inactive" | "revoked";

export interface KeyRecord {
  readonly id: number;
  readonly account: string;
  readonly accountId: number;
  readonly name: string;
  readonly tier: Tier;
  readonly status: KeyStatus;
  readonly hint: string;
  readonly createdAt: Date;
  readonly expiresAt: Date | null;
  /** Networks and families the key may be used for (all, for keys made before permissions existed). */
  readonly permissions: KeyPermissions;
  /** As of the last usage flush (at most a second behind). */
  readonly lastUsedAt: Date | null;
  /** The owning account's plan, prepaid credits (null = unlimited) and state, when the record was read. */
  readonly plan: Plan;
  readonly credits: number | null;
  readonly accountDisabled: boolean;
  /** The account has an email address (a person's sign-up), not one of the operator's own. */
  readonly personalAccount: boolean;
  /** Whose budgets its requests spend (src/domain/budget_subject.ts): the account's for FREE keys of a person. */
  readonly budget: string;
}

export interface NewKey {
  readonly name: string;
  readonly tier: Tier;
  /** The account by name (created, on the PAID plan, when new: the operator's own); default `default`. */
  readonly account?: string;
  /** Or by id (an account's own key, from the dashboard); takes precedence over `account`. */
  readonly accountId?: number;
  readonly expiresAt?: Date | null;
  readonly permissions?: KeyPermissions;
}

export interface KeyStoreShape {
  /** Creates a key; the returned secret is never stored or shown again. */
  readonly create: (
    input: NewKey,
  ) => Effect.Effect<{ readonly key: string; readonly record: KeyRecord }, DatabaseUnavailable>;
  readonly findBySecret: (secret: string) => Effect.Effect<Option.Option<KeyRecord>, DatabaseUnavailable>;
  readonly get: (id: number) => Effect.Effect<Option.Option<KeyRecord>, DatabaseUnavailable>;
  readonly list: Effect.Effect<ReadonlyArray<KeyRecord>, DatabaseUnavailable>;
  /** Returns false when no key has that id. */
  readonly setStatus: (id: number, status: KeyStatus) => Effect.Effect<boolean, DatabaseUnavailable>;
  readonly rename: (id: number, name: string) => Effect.Effect<boolean, DatabaseUnavailable>;
  /** A new secret for the same key (tier, usage, name kept); the old one stops working at once. */
  readonly rotate: (id: number) => Effect.Effect<Option.Option<string>, DatabaseUnavailable>;
  readonly generation: Effect.Effect<number, DatabaseUnavailable>;
}

export class KeyStore extends Context.Tag("KeyStore")<KeyStore, KeyStoreShape>() {}

/** A row as SQL returns it: bigint ids come back as decimal strings, permissions as nullable arrays. */
interface KeyRow {
  readonly id: string;
  readonly account: string;
  readonly accountId: string;
  readonly name: string;
  readonly tier: Tier;
  readonly status: KeyStatus;
  readonly hint: string;
  readonly createdAt: Date;
  readonly expiresAt: Date | null;
  readonly networks: ReadonlyArray<Network> | null;
  readonly families: ReadonlyArray<KeyFamily> | null;
  readonly lastUsedAt: Date | null;
  readonly plan: Plan;
  readonly credits: string | null;
  readonly accountDisabled: boolean;
  readonly personalAccount: boolean;
}

export const toRecord = (r: KeyRow): KeyRecord => {
  const holder = {
    id: Number(r.id),
    tier: r.tier,
    accountId: Number(r.accountId),
    personalAccount: r.personalAccount,
  };
  return {
    id: Number(r.id),
    account: r.account,
    accountId: Number(r.accountId),
    name: r.name,
    tier: r.tier,
    status: r.status,
    hint: r.hint,
    createdAt: r.createdAt,
    expiresAt: r.expiresAt,
    permissions: {
      networks: r.networks ?? allPermissions.networks,
      families: r.families ?? allPermissions.families,
    },
    lastUsedAt: r.lastUsedAt,
    plan: r.plan,
    credits: r.credits === null ? null : Number(r.credits),
    accountDisabled: r.accountDisabled,
    personalAccount: r.personalAccount,
    budget: budgetSubject(holder),
  };
};

/** The columns of a `KeyRow`, from `cds.api_key k join cds.account a`. */
export const keyColumns = `k.id::text as id, a.name as account, a.id::text as "accountId", k.name, k.tier,
  k.status, k.hint, k.created_at as "createdAt", k.expires_at as "expiresAt", k.networks, k.families,
  k.last_used_at as "lastUsedAt", a.plan, a.credits::text as credits,
  (a.disabled_at is not null or a.deleted_at is not null) as "accountDisabled",
  (a.email is not null) as "personalAccount"`;

/**
 * As array literals (`{mainnet}`: the values are our own fixed words), or null (= all) when the permissions
 * are everything, so such keys keep up with families added later.
 */
export const storedPermissions = (p: KeyPermissions | undefined) => ({
  networks: !p || p.networks.length === allPermissions.networks.length ? null : `{${p.networks.join(",")}}`,
  families: !p || p.families.length === allPermissions.families.length ? null : `{${p.families.join(",")}}`,
});

const unavailable = (e: SqlError) => new DatabaseUnavailable({ network: "service", message: e.message });

export const makeKeyStore = (sql: SqlClient, prefix: string): KeyStoreShape => {
  const select = (where: ReturnType<SqlClient["and"]>) =>
    sql<KeyRow>`
      select ${sql.literal(keyColumns)}
      from cds.api_key k join cds.account a on a.id = k.account_id
      where ${where} order by k.id`;
  const one = (where: ReturnType<SqlClient["and"]>) =>
    Effect.map(select(where), (rows) => Option.map(Option.fromNullable(rows[0]), toRecord));

  return {
    create: (input) =>
      sql.withTransaction(Effect.gen(function* () {
        const key = generateApiKey(prefix);
        const account = input.account ?? "default";
        if (input.accountId === undefined) {
          yield* sql`insert into cds.account (name) values (${account}) on conflict (name) do nothing`;
        }
        const { networks, families } = storedPermissions(input.permissions);
        const [row] = yield* sql<{ id: string }>`
          insert into cds.api_key (account_id, name, tier, secret_sha256, hint, expires_at, networks, families)
          select id, ${input.name}, ${input.tier}, ${hashApiKey(key)}, ${keyHint(key)}, ${
          input.expiresAt ?? null
        }, ${networks}::text[], ${families}::text[]
          from cds.account where ${
          input.accountId === undefined ? sql`name = ${account}` : sql`id = ${input.accountId}`
        }
          returning id::text as id`;
        const record = yield* one(sql.and([sql`k.id = ${Number(row!.id)}`]));
        return { key, record: Option.getOrThrow(record) };
      })).pipe(Effect.mapError(unavailable)),
    findBySecret: (secret) =>
      one(sql.and([sql`k.secret_sha256 = ${hashApiKey(secret)}`])).pipe(Effect.mapError(unavailable)),
    get: (id) => one(sql.and([sql`k.id = ${id}`])).pipe(Effect.mapError(unavailable)),
    list: Effect.map(select(sql.and([sql`true`])), (rows) => rows.map(toRecord)).pipe(
      Effect.mapError(unavailable),
    ),
    setStatus: (id, status) =>
      Effect.map(
        sql<
          { id: string }
        >`update cds.api_key set status = ${status}, updated_at = now() where id = ${id} returning id::text as id`,
        (rows) => rows.length > 0,
      ).pipe(Effect.mapError(unavailable)),
    rename: (id, name) =>
      Effect.map(
        sql<
          { id: string }
        >`update cds.api_key set name = ${name}, updated_at = now() where id = ${id} returning id::text as id`,
        (rows) => rows.length > 0,
      ).pipe(Effect.mapError(unavailable)),
    rotate: (id) => {
      const key = generateApiKey(prefix);
      return Effect.map(
        sql<{ id: string }>`
          update cds.api_key set secret_sha256 = ${hashApiKey(key)}, hint = ${
          keyHint(key)
        }, updated_at = now()
          where id = ${id} returning id::text as id`,
        (rows) => (rows.length > 0 ? Option.some(key) : Option.none()),
      ).pipe(Effect.mapError(unavailable));
    },
    generation: Effect.map(
      sql<{ value: string }>`select value::text as value from cds.key_generation`,
      (rows) => Number(rows[0]?.value ?? 0),
    ).pipe(Effect.mapError(unavailable)),
  };
};

/** The store, telling every instance's key cache (KeyChanges) about each change it makes. */
export const announcingKeyStore = (store: KeyStoreShape, changes: KeyChangesShape): KeyStoreShape => {
  const after = <A, E>(effect: Effect.Effect<A, E>, change: (a: A) => KeyChange | undefined) =>
    Effect.tap(effect, (a) => {
      const c = change(a);
      return c ? changes.publish(c) : Effect.void;
    });
  return {
    ...store,
    // a new key: only the caches of unknown keys matter, which every change clears
    create: (input) => after(store.create(input), ({ record }) => ({ keyId: record.id })),
    setStatus: (id, status) => after(store.setStatus(id, status), (ok) => ok ? { keyId: id } : undefined),
    rename: (id, name) => after(store.rename(id, name), (ok) => ok ? { keyId: id } : undefined),
    rotate: (id) => after(store.rotate(id), (o) => Option.isSome(o) ? { keyId: id } : undefined),
  };
};

export const KeyStoreLive = (prefix: string): Layer.Layer<KeyStore, never, ServiceDatabase | KeyChanges> =>
  Layer.effect(
    KeyStore,
    Effect.gen(function* () {
      const db = yield* ServiceDatabase;
      return announcingKeyStore(makeKeyStore(db.sql, prefix), yield* KeyChanges);
    }),
  );
