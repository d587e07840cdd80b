/**
 * What a chain database is, read at start (facts: shared/notes/dbsync.md section 0): db-sync release from
 * `schema_version`, core or address-table layout, how spent outputs are tracked, which indexes are missing. A
 * database the service cannot answer correctly is refused with one line saying why, never served wrongly.
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import { Data, Effect } from "effect";
import { readSchemaSql } from "./create_schema.ts";
import { readExtraIndexes } from "./extra_indexes.ts";

export type SpentTracking = "enable" | "consumed" | "prune" | "bootstrap";

/** The db-sync line a `schema_version.stage_two` belongs to (44 and later; older ones are refused). */
export type DbSyncRelease = "13.6" | "13.7.0/13.7.1" | "13.7.2" | "unreleased";

export interface DbSyncInfo {
  readonly schemaVersion: {
    readonly stageOne: number;
    readonly stageTwo: number;
    readonly stageThree: number;
  };
  readonly release: DbSyncRelease;
  /** The address-table variant is refused, so only the default layout gets this far. */
  readonly layout: "core";
  /** 13.7.2 made `epoch` a view over finalised epochs plus the one in progress. */
  readonly epochIs: "table" | "view";
  /** `enable`: spent-ness from tx_in; the others fill tx_out.consumed_by_tx_id (prune/bootstrap delete spent rows). */
  readonly spentTracking: SpentTracking;
  /** Why we think so: an extra_migrations token, the default, or tx_in being empty although blocks hold txs. */
  readonly spentTrackingEvidence: string;
  /** tx_in has rows (enable mode, or force_tx_in in the other modes). */
  readonly txInPopulated: boolean;
  /** At least one real block (the genesis pseudo-block and nothing else = no chain yet). */
  readonly hasChain: boolean;
  /** db-sync's own stage-3/4 indexes and runtime constraints not (yet) present: it creates them near the tip. */
  readonly missingDbSyncIndexes: ReadonlyArray<string>;
  /** Indexes from schemas/db/extra_indexes.sql present neither by name nor as an equivalent index. */
  readonly missingExtraIndexes: ReadonlyArray<string>;
}

export class DbSyncUnsupported extends Data.TaggedError("DbSyncUnsupported")<{ readonly message: string }> {}

// Last stage_two of each release line (from the migrations shipped with each tag); 44 is the oldest we serve.
const olderReleases: ReadonlyArray<readonly [number, string]> = [
  [25, "13.1 or older"],
  [33, "13.2"],
  [41, "13.3"],
  [42, "13.4"],
  [43, "13.5"],
];

const releaseOf = (stageTwo: number): DbSyncRelease =>
  stageTwo === 44 ? "13.6" : stageTwo <= 48 ? "13.7.0/13.7.1" : stageTwo <= 50 ? "13.7.2" : "unreleased";

const tokenModes: ReadonlyArray<readonly [string, SpentTracking]> = [
  ["BootstrapStarted", "bootstrap"],
  ["BootstrapFinished", "bootstrap"],
  ["PruneTxOutFlagPreviouslySet", "prune"],
  ["ConsumeTxOutPreviouslySet", "consumed"],
];

/** db-sync creates this one only in the consumed/prune/bootstrap modes; our queries then depend on it. */
const consumedIndex = "idx_tx_out_consumed_by_tx_id";

const unsupported = (message: string) => Effect.fail(new DbSyncUnsupported({ message }));

interface IndexRow {
  readonly table: string;
  readonly name: string;
  readonly method: string;
  /** Key columns, comma-separated; null for expression or partial indexes. */
  readonly columns: string | null;
  /** Every column the index holds (keys and INCLUDE), comma-separated; null as `columns`. */
  readonly held: string | null;
}

/** Index and constraint names a db-sync SQL file creates. */
const createdNames = (text: string): Array<string> =>
  [...text.matchAll(/^(?:CREATE (?:UNIQUE )?INDEX|ALTER TABLE \w+ ADD CONSTRAINT) (\w+)/gm)].map((m) =>
    m[1]!
  );

export const detectDbSync = (sql: SqlClient): Effect.Effect<DbSyncInfo, DbSyncUnsupported | SqlError> =>
  Effect.gen(function* () {
    const [present] = yield* sql<{ schemaVersion: boolean; extraMigrations: boolean }>`
      select to_regclass('schema_version') is not null as "schemaVersion",
             to_regclass('extra_migrations') is not null as "extraMigrations"`;
    if (!present?.schemaVersion) {
      return yield* unsupported("not a cardano-db-sync database (no schema_version table)");
    }
    const [version] = yield* sql<{ stageOne: number; stageTwo: number; stageThree: number }>`
      select stage_one::int as "stageOne", stage_two::int as "stageTwo", stage_three::int as "stageThree"
      from schema_version order by id desc limit 1`;
    if (!version) return yield* unsupported("not a cardano-db-sync database (schema_version is empty)");
    const schemaVersion = {
      stageOne: version.stageOne,
      stageTwo: version.stageTwo,
      stageThree: version.stageThree,
    };
    if (schemaVersion.stageTwo < 44) {
      const older = olderReleases.find(([last]) => schemaVersion.stageTwo <= last)?.[1] ?? "13.5";
      return yield* unsupported(
        `db-sync ${older} (schema stage_two ${schemaVersion.stageTwo}) is too old: the service needs db-sync 13.6 ` +
          `or later (stage_two 44+)`,
      );
    }

    const txOut = (yield* sql<{ name: string }>`
      select column_name as name from information_schema.columns
      where table_schema = current_schema() and table_name = 'tx_out'`).map((c) => c.name);
    if (txOut.includes("address_id")) {
      return yield* unsupported(
        "the address-table variant (tx_out.address_id) is not supported yet; use a db-sync database in the default core layout",
      );
    }
    if (txOut.length === 0) return yield* unsupported("unknown db-sync layout: there is no tx_out table");
    if (!txOut.includes("address")) {
      return yield* unsupported(
        "unknown db-sync layout: tx_out has neither an address nor an address_id column",
      );
    }
    const [epoch] = yield* sql<{ kind: string }>`
      select table_type as kind from information_schema.tables
      where table_schema = current_schema() and table_name = 'epoch'`;
    if (!epoch) return yield* unsupported("unknown db-sync layout: there is no epoch table or view");

    // each exists() stops at the first row: cheap on a full mainnet database
    const [chain] = yield* sql<
      { hasChain: boolean; blockTxs: boolean; txs: boolean; outputs: boolean; inputs: boolean }
    >`
      select exists (select 1 from block where block_no is not null) as "hasChain",
             exists (select 1 from block where block_no is not null and tx_count > 0) as "blockTxs",
             exists (select 1 from tx) as "txs",
             exists (select 1 from tx_out) as "outputs",
             exists (select 1 from tx_in) as "inputs"`;
    if (chain?.txs && !chain.outputs) {
      return yield* unsupported(
        "this db-sync stores no transaction outputs (insert_options tx_out.value = disable); addresses and UTxOs cannot be answered",
      );
    }
    const tokens = present.extraMigrations
      ? (yield* sql<{ token: string }>`select token from extra_migrations`).map((r) => r.token)
      : [];
    const byToken = tokenModes.find(([token]) => tokens.includes(token));
    // every transaction of a real block spends inputs: an empty tx_in then means they are not stored
    const inputsMissing = (chain?.blockTxs ?? false) && !chain?.inputs;
    const [spentTracking, spentTrackingEvidence]: [SpentTracking, string] = byToken
      ? [byToken[1], `extra_migrations token ${byToken[0]}`]
      : inputsMissing
      ? ["consumed", "tx_in is empty although blocks hold transactions"]
      : ["enable", "default (no extra_migrations token)"];

    const indexes = yield* sql<IndexRow>`
      select t.relname::text as "table", i.relname::text as "name", am.amname::text as "method",
             case when ix.indexprs is null and ix.indpred is null then
               (select string_agg(a.attname::text, ',' order by k.o)
                from unnest(ix.indkey) with ordinality k(n, o)
                join pg_attribute a on a.attrelid = t.oid and a.attnum = k.n
                where k.o <= ix.indnkeyatts)
             end as "columns",
             case when ix.indexprs is null and ix.indpred is null then
               (select string_agg(a.attname::text, ',' order by k.o)
                from unnest(ix.indkey) with ordinality k(n, o)
                join pg_attribute a on a.attrelid = t.oid and a.attnum = k.n)
             end as "held"
      from pg_index ix
      join pg_class i on i.oid = ix.indexrelid
      join pg_class t on t.oid = ix.indrelid
      join pg_am am on am.oid = i.relam
      join pg_namespace ns on ns.oid = t.relnamespace
      where ns.nspname = current_schema()`;
    const names = new Set(indexes.map((i) => i.name));
    const dbSyncNames = createdNames(yield* readSchemaSql("dbsync_indexes.sql"));
    if (spentTracking !== "enable") dbSyncNames.push(consumedIndex);
    const extra = yield* readExtraIndexes;
    // an operator's own index serves as well: a btree whose leading key columns are ours and that holds the
    // columns ours includes (an index-only lookup stays one), or, for our hash indexes (equality only), also a
    // hash index on exactly our column
    const covered = (
      table: string,
      method: string,
      columns: ReadonlyArray<string>,
      included: ReadonlyArray<string>,
    ) =>
      indexes.some((i) =>
        i.table === table && i.columns !== null &&
        (i.method === "btree"
          ? `${i.columns},`.startsWith(`${columns.join(",")},`) &&
            included.every((c) => (i.held ?? "").split(",").includes(c))
          : i.method === "hash" && method === "hash" && i.columns === columns.join(","))
      );

    return {
      schemaVersion,
      release: releaseOf(schemaVersion.stageTwo),
      layout: "core",
      epochIs: epoch.kind === "VIEW" ? "view" : "table",
      spentTracking,
      spentTrackingEvidence,
      txInPopulated: chain?.inputs ?? false,
      hasChain: chain?.hasChain ?? false,
      missingDbSyncIndexes: dbSyncNames.filter((n) => !names.has(n)),
      missingExtraIndexes: extra
        .filter((i) => !names.has(i.name) && !covered(i.table, i.method, i.columns, i.included))
        .map((i) => i.name),
    } satisfies DbSyncInfo;
  });

/** One log line: what the database is and what it lacks. */
export const describeDbSync = (info: DbSyncInfo): string => {
  const v = info.schemaVersion;
  const spent = info.spentTracking === "enable"
    ? "spent outputs from tx_in (enable mode)"
    : `spent outputs from tx_out.consumed_by_tx_id (${info.spentTracking} mode, ${info.spentTrackingEvidence})`;
  const parts = [
    `db-sync ${info.release} schema (${v.stageOne}/${v.stageTwo}/${v.stageThree})`,
    `${info.layout} layout`,
    `epoch is a ${info.epochIs}`,
    spent,
    info.hasChain ? "holds a chain" : "holds no block yet",
  ];
  if (info.missingDbSyncIndexes.length > 0) {
    parts.push(`missing db-sync indexes (created near the tip): ${info.missingDbSyncIndexes.join(", ")}`);
  }
  if (info.missingExtraIndexes.length > 0) {
    parts.push(
      `missing recommended indexes (run schemas/db/extra_indexes.sql): ${
        info.missingExtraIndexes.join(", ")
      }`,
    );
  }
  return parts.join("; ");
};
