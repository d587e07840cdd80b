/**
 * What protects the service from a GraphQL query: nesting depth per tier (spec: FREE 3, PAID 10), a default
 * and a maximum `limit` per level, budgets per query for rows, field values, root fields and introspection
 * (cost.ts), a bound on the planner's estimate for chain-sized tables (plan_guard.ts), a statement timeout, and
 * the refusal of queries that would walk a chain-sized table without an index to start from.
 */
import type { Tier } from "@layers/key_store.ts";
import type { ColumnModel, TableModel } from "@src/queries/schema_model.ts";

export const maxDepth: Readonly<Record<Tier, number>> = { FREE: 3, PAID: 10 };
/** Rows per list when the query sets no `limit`, and the largest `limit` accepted. */
export const defaultLimit = 100;
export const maxLimit = 1000;
export const maxOffset = 100_000;

/**
 * What one query may ask for, counted over the whole document before any work (cost.ts). Rows: the sum over
 * every list of the product of the limits along its path (100 blocks with 100 txs each = 100 + 10,000; a list
 * filtered by equality on a unique column counts its values), over all root fields and aliases. Field values:
 * each selected field times the rows it is produced for. Selections: fields as the document expands its
 * fragments (what validating and compiling walk). Root fields: aliases included.
 */
export interface QueryBudget {
  readonly rows: number;
  readonly fields: number;
  readonly selections: number;
  readonly rootFields: number;
}
export const queryBudget: Readonly<Record<Tier, QueryBudget>> = {
  FREE: { rows: 20_000, fields: 200_000, selections: 2_000, rootFields: 20 },
  PAID: { rows: 2_000_000, fields: 5_000_000, selections: 5_000, rootFields: 100 },
};
/** Introspection per request, in full schema introspections (what GraphiQL and code generators send once). */
export const introspectionBudget = 2;
/**
 * The planner's estimated cost (PostgreSQL cost units, about one sequential page read each) of the root accesses
 * to chain-sized tables one query may make; a filter matching at least `unselective` of a table does not narrow
 * the scan, and once such filters of a query match more rows than the tier's row budget they count as no filter
 * (plan_guard.ts): the guard judges what a query costs on this chain, so a small chain answers what mainnet
 * refuses.
 */
export const planCostBudget: Readonly<Record<Tier, number>> = { FREE: 100_000, PAID: 1_000_000 };
export const unselective = 0.5;

/** What the plan guard allows one query: rows its unselective filters may match, and the planner's cost. */
export interface PlanBudget {
  readonly rows: number;
  readonly cost: number;
}
export const planBudget = (tier: Tier): PlanBudget => ({
  rows: queryBudget[tier].rows,
  cost: planCostBudget[tier],
});
/** Values in one `_in` / `_nin` list. */
export const maxListValues = 1000;

/**
 * Tables that grow with the chain (millions of rows on mainnet): a query must reach their rows through an index.
 * The same rule applies to the small demo chain, so what works in tests works on mainnet; any other table the
 * database estimates at over a million rows counts too.
 */
const chainSizedTables = new Set([
  "block",
  "tx",
  "tx_out",
  "tx_in",
  "collateral_tx_in",
  "collateral_tx_out",
  "reference_tx_in",
  "ma_tx_out",
  "ma_tx_mint",
  "multi_asset",
  "datum",
  "script",
  "redeemer",
  "redeemer_data",
  "tx_metadata",
  "tx_cbor",
  "extra_key_witness",
  "stake_address",
  "stake_registration",
  "stake_deregistration",
  "delegation",
  "delegation_vote",
  "withdrawal",
  "reward",
  "reward_rest",
  "epoch_stake",
  "drep_distr",
  "voting_procedure",
]);

export const isLarge = (t: TableModel): boolean =>
  chainSizedTables.has(t.name) || t.estimatedRows > 1_000_000;

export const indexedForEquality = (t: TableModel, column: string) =>
  t.btree.has(column) || t.hashed.has(column);
export const indexedForRange = (t: TableModel, column: string) => t.btree.has(column);

/** The columns a filter or ordering may start from, for messages. */
export const indexedColumns = (t: TableModel): string =>
  [...t.columns.values()].filter((c: ColumnModel) => indexedForEquality(t, c.name)).map((c) => c.name).join(
    ", ",
  );
