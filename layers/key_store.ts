/**
 * `KeyStore`: API keys in the service database (`cds.api_key`, migration 0002). Only hashes are stored; the
 * secret is returned once, by `create` and `rotate`. `generation` changes with every key change, so callers can
 * cache lookups and still see a revocation within their poll interval.
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import { Context, Effect, Layer, Option } from "effect";
import { generateApiKey, hashApiKey, keyHint } from "@src/domain/api_key.ts";
import { DatabaseUnavailable } from "@src/domain/errors.ts";
import { ServiceDatabase } from "./service_db.ts";

export type Tier = "FREE" | "PAID";
export type KeyStatus = "active" | "inactive" | "revoked";

export interface KeyRecord {
  readonly id: number;
  readonly account: string;
  readonly name: string;
  readonly tier: Tier;
  readonly status: KeyStatus;
  readonly hint: string;
  readonly createdAt: Date;
  readonly expiresAt: Date | null;
}

export interface NewKey {
  readonly name: string;
  readonly tier: Tier;
  readonly account?: string;
  readonly expiresAt?: Date | null;
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

/** A row as SQL returns it: bigint ids come back as decimal strings. */
type KeyRow = Omit<KeyRecord, "id"> & { readonly id: string };

const toRecord = (r: KeyRow): KeyRecord => ({ ...r, id: Number(r.id) });

const unavailable = (e: SqlError) => new DatabaseUnavailable({ network: "service", message: e.message });

export const makeKeyStore = (sql: SqlClient, prefix: string): KeyStoreShape => {
  const select = (where: ReturnType<SqlClient["and"]>) =>
    sql<KeyRow>`
      select k.id::text as id, a.name as account, k.name, k.tier, k.status, k.hint,
             k.created_at as "createdAt", k.expires_at as "expiresAt"
      from cds.api_key k join cds.account a on a.id = k.account_id
      where ${where} order by k.id`;
  const one = (where: ReturnType<SqlClient["and"]>) =>
    Effect.map(select(where), (rows) => Option.map(Option.fromNullable(rows[0]), toRecord));

  return {
    create: (input) =>
      sql.withTransaction(Effect.gen(function* () {
        const key = generateApiKey(prefix);
        const account = input.account ?? "default";
        yield* sql`insert into cds.account (name) values (${account}) on conflict (name) do nothing`;
        const [row] = yield* sql<{ id: string }>`
          insert into cds.api_key (account_id, name, tier, secret_sha256, hint, expires_at)
          select id, ${input.name}, ${input.tier}, ${hashApiKey(key)}, ${keyHint(key)}, ${
          input.expiresAt ?? null
        }
          from cds.account where name = ${account}
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

export const KeyStoreLive = (prefix: string): Layer.Layer<KeyStore, never, ServiceDatabase> =>
  Layer.effect(KeyStore, Effect.map(ServiceDatabase, (db) => makeKeyStore(db.sql, prefix)));
