/**
 * What protects the database from a GraphQL query: nesting depth per tier (spec: FREE 3, PAID 10), a default
 * and a maximum `limit` per level, a budget for the rows a nested query may produce, a statement timeout, and
 * the refusal of queries that would walk a chain-sized table without an index to start from.
 */
import {
  type FieldNode,
  type FragmentDefinitionNode,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from "graphql";
import type { Tier } from "@layers/key_store.ts";
import type { ColumnModel, TableModel } from "./schema_model.ts";

export const maxDepth: Readonly<Record<Tier, number>> = { FREE: 3, PAID: 10 };
/** Rows per list when the query sets no `limit`, and the largest `limit` accepted. */
export const defaultLimit = 100;
export const maxLimit = 1000;
export const maxOffset = 100_000;
/**
 * The product of the limits along any path of nested lists (100 blocks with 100 txs each = 10,000); a list
 * filtered by equality on a unique column counts its values. Real fan-out is far smaller than the limits, so
 * this only stops queries that could explode.
 */
export const maxRows = 1_000_000;
/** Values in one `_in` / `_nin` list. */
export const maxListValues = 1000;
export const statementTimeoutMs = 10_000;

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

/** The fields a selection set asks for, through fragments (directives are honoured when compiling). */
const fieldsOf = (
  set: SelectionSetNode,
  fragments: Readonly<Record<string, FragmentDefinitionNode>>,
  seen: Set<string> = new Set(),
): Array<FieldNode> =>
  set.selections.flatMap((s) => {
    if (s.kind === Kind.FIELD) return [s];
    if (s.kind === Kind.INLINE_FRAGMENT) return fieldsOf(s.selectionSet, fragments, seen);
    const name = s.name.value;
    const fragment = fragments[name];
    if (!fragment || seen.has(name)) return []; // validation reports unknown and cyclic fragments
    return fieldsOf(fragment.selectionSet, fragments, new Set([...seen, name]));
  });

/**
 * Nesting depth: the levels of fields with a selection of their own. `{ block { hash } }` is 1,
 * `{ block { txes { hash } } }` is 2. Introspection (`__schema`, `__type`) answers from memory and is not counted.
 */
export const queryDepth = (
  operation: OperationDefinitionNode,
  fragments: Readonly<Record<string, FragmentDefinitionNode>>,
): { readonly depth: number; readonly path: string } => {
  let deepest = { depth: 0, path: "$" };
  const walk = (set: SelectionSetNode, depth: number, path: string, visiting: number) => {
    if (visiting > 64) return; // fragment cycles are a validation error; do not recurse forever before it
    for (const field of fieldsOf(set, fragments)) {
      if (!field.selectionSet) continue;
      const here = `${path}.selectionSet.${field.alias?.value ?? field.name.value}`;
      if (depth + 1 > deepest.depth) deepest = { depth: depth + 1, path: here };
      walk(field.selectionSet, depth + 1, here, visiting + 1);
    }
  };
  const roots = fieldsOf(operation.selectionSet, fragments).filter((f) =>
    f.name.value !== "__schema" && f.name.value !== "__type"
  );
  walk({ kind: Kind.SELECTION_SET, selections: roots }, 0, "$", 0);
  return deepest;
};
