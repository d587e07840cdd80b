/**
 * Scripts and datums by hash (db-sync's `script` and `datum` tables, unique by hash): a script's language,
 * serialised size, bytes (Plutus) and JSON (timelocks); a datum's JSON (cardano-node's detailed schema, NULL
 * where jsonb could not hold it) and CBOR.
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import { Effect } from "effect";

export type ScriptType = "timelock" | "plutusV1" | "plutusV2" | "plutusV3";

export interface Script {
  readonly hash: string;
  readonly type: ScriptType;
  /** Plutus scripts' size in bytes; null for timelocks. */
  readonly serialisedSize: number | null;
  /** A Plutus script's bytes (hex) as db-sync keeps them. */
  readonly bytes: string | null;
  /** A timelock's JSON. */
  readonly json: unknown;
}

export interface Datum {
  readonly hash: string;
  readonly value: unknown;
  /** CBOR (hex). */
  readonly bytes: string;
}

export const scriptByHash = (sql: SqlClient, hashHex: string): Effect.Effect<Script | undefined, SqlError> =>
  Effect.map(
    sql<Script>`
      select encode(s.hash, 'hex') as hash, s.type::text as type, s.serialised_size as "serialisedSize",
             encode(s.bytes, 'hex') as bytes, s.json
      from script s where s.hash = decode(${hashHex}, 'hex') limit 1`,
    ([row]) =>
      row && { ...row, serialisedSize: row.serialisedSize === null ? null : Number(row.serialisedSize) },
  );

export const datumByHash = (sql: SqlClient, hashHex: string): Effect.Effect<Datum | undefined, SqlError> =>
  Effect.map(
    sql<Datum>`
      select encode(d.hash, 'hex') as hash, d.value, encode(d.bytes, 'hex') as bytes
      from datum d where d.hash = decode(${hashHex}, 'hex') limit 1`,
    ([row]) => row,
  );
