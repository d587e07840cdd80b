/**
 * What a chain database is, read at start (facts: shared/notes/dbsync.md section 0): db-sync release from
 * `schema_version`, core or address-table layout, how spent outputs are tracked, which indexes are missing. A
 * database the service cannot answer correctly is refused with one line saying why, never served wrongly.
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import { Data, Effect } from "effect";
import { indexNamesIn, readSchemaFile } from "./schema_files.ts";

export type SpentTracking = "enable" | "consumed" | "prune" | "bootstrap";

export interface DbSyncInfo {
  readonly schemaVersion: {
    readonly stageOne: number;
    readonly stageTwo: number;
    readonly stageThree: number;
  };
  /** The db-sync line the schema version belongs to. */
  readonly release: string;
  readonly layout: "core";
  /** 13.7.2 made `epoch` a view over finalised epochs plus the one in progress. */
  readonly epochIs: "table" | "view";
  /** `enable`: spent-ness from tx_in; the others fill tx_out.consumed_by_tx_id (prune/bootstrap delete spent rows). */
  readonly spentTracking: SpentTracking;
  readonly hasChain: boolean;
  /** db-sync's own stage-4 indexes not (yet) present: it creates them near the tip. */
  readonly missingDbSyncIndexes: ReadonlyArray<string>;
  /** Indexes from schemas/db/extra_indexes.sql not present. */
  readonly missingExtraIndexes: ReadonlyArray<string>;
}

export class DbSyncUnsupported extends Data.TaggedError("DbSyncUnsupported")<{ readonly message: string }> {}

const releaseOf = (stageTwo: number): string =>
  stageTwo === 44
    ? "13.6"
    : stageTwo >= 45 && stageTwo <= 48
    ? "13.7.0-13.7.1"
    : stageTwo === 49 || stageTwo === 50
    ? "13.7.2"
    : `newer than 13.7.2 (stage_two ${stageTwo})`;

const spentTrackingOf = (tokens: ReadonlyArray<string>): SpentTracking =>
  tokens.some((t) => t.startsWith("Bootstrap"))
    ? "bootstrap"
    : tokens.includes("PruneTxOutFlagPreviouslySet")
    ? "prune"
    : tokens.includes("ConsumeTxOutPreviouslySet")
    ? "consumed"
    : "enable";

const unsupported = (message: string) => Effect.fail(new DbSyncUnsupported({ message }));

export const detectDbSync = (sql: SqlClient): Effect.Effect<DbSyncInfo, DbSyncUnsupported | SqlError> =>
  Effect.gen(function* () {
    const [present] = yield* sql<{ schemaVersion: boolean; extraMigrations: boolean }>`
      select to_regclass('public.schema_version') is not null as "schemaVersion",
             to_regclass('public.extra_migrations') is not null as "extraMigrations"`;
    if (!present?.schemaVersion) {
      return yield* unsupported("not a cardano-db-sync database (no schema_version table)");
    }
    const [version] = yield* sql<{ stageOne: string; stageTwo: string; stageThree: string }>`
      select stage_one::text as "stageOne", stage_two::text as "stageTwo", stage_three::text as "stageThree"
      from schema_version order by id desc limit 1`;
    if (!version) return yield* unsupported("not a cardano-db-sync database (schema_version is empty)");
    const schemaVersion = {
      stageOne: Number(version.stageOne),
      stageTwo: Number(version.stageTwo),
      stageThree: Number(version.stageThree),
    };
    if (schemaVersion.stageTwo < 44) {
      return yield* unsupported(
        `db-sync schema stage_two ${schemaVersion.stageTwo} is older than 13.6 (44); upgrade db-sync to 13.6 or later`,
      );
    }
    const columns = (yield* sql<{ name: string }>`
      select column_name as name from information_schema.columns
      where table_schema = 'public' and table_name = 'tx_out'`).map((c) => c.name);
    if (columns.includes("address_id") || !columns.includes("address")) {
      return yield* unsupported(
        columns.includes("address_id")
          ? "the address-table variant (tx_out.address_id) is not supported yet; use a db-sync database in the default core layout"
          : "unknown db-sync layout: tx_out has neither an address nor an address_id column",
      );
    }
    const [epoch] = yield* sql<{ kind: string }>`
      select table_type as kind from information_schema.tables where table_schema = 'public' and table_name = 'epoch'`;
    const tokens = present.extraMigrations
      ? (yield* sql<{ token: string }>`select token from extra_migrations`).map((r) => r.token)
      : [];
    const [chain] = yield* sql<{ hasChain: boolean; hasOutputs: boolean; hasTxs: boolean }>`
      select exists (select 1 from block where block_no is not null) as "hasChain",
             exists (select 1 from tx_out) as "hasOutputs", exists (select 1 from tx) as "hasTxs"`;
    if (chain?.hasTxs && !chain.hasOutputs) {
      return yield* unsupported(
        "this db-sync stores no transaction outputs (insert_options tx_out.value = disable); addresses and UTxOs cannot be answered",
      );
    }
    const existing = new Set((yield* sql<{ name: string }>`
      select indexname as name from pg_indexes where schemaname = 'public'`).map((r) => r.name));
    const [dbSyncIndexes, extraIndexes] = yield* Effect.promise(() =>
      Promise.all([readSchemaFile("dbsync_indexes.sql"), readSchemaFile("extra_indexes.sql")])
    );
    return {
      schemaVersion,
      release: releaseOf(schemaVersion.stageTwo),
      layout: "core",
      epochIs: epoch?.kind === "VIEW" ? "view" : "table",
      spentTracking: spentTrackingOf(tokens),
      hasChain: chain?.hasChain ?? false,
      missingDbSyncIndexes: indexNamesIn(dbSyncIndexes).filter((n) => !existing.has(n)),
      missingExtraIndexes: indexNamesIn(extraIndexes).filter((n) => !existing.has(n)),
    } satisfies DbSyncInfo;
  });

/** One log line: what the database is and what it lacks. */
export const describeDbSync = (info: DbSyncInfo): string => {
  const v = info.schemaVersion;
  const parts = [
    `db-sync ${info.release} schema (${v.stageOne}/${v.stageTwo}/${v.stageThree})`,
    `${info.layout} layout`,
    `epoch is a ${info.epochIs}`,
    info.spentTracking === "enable"
      ? "spent outputs from tx_in"
      : `spent outputs from tx_out.consumed_by_tx_id (${info.spentTracking} mode)`,
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
