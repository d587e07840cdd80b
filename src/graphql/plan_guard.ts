/**
 * The planner as judge of filters on chain-sized tables. An indexed column in a filter is not enough: `id > 0`
 * uses the index and still reads the whole table. So before a query runs, each root access to a chain-sized
 * table through a filter is EXPLAINed on its own (a plan only, nothing executes), unless a unique column's `_eq`
 * bounds it to one row (filters.ts matchesAtMostOneRow: a block or transaction by hash). A filter the planner expects
 * to match most of the table does not narrow the scan; what it costs is the rows it matches, so such filters
 * may match up to the tier's row budget together (on a small chain, half of `tx` is a few thousand rows), and
 * past it count as no filter (the rule for unfiltered reads then applies: an index order, or none, and a
 * limit). The planner's estimated cost of all these accesses is bounded per tier too. PGlite is PostgreSQL, so
 * the same rule holds on both backends. Estimates are remembered per statement and parameters for a minute, a
 * table's size likewise.
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import { Effect } from "effect";
import type { Tier } from "@layers/key_store.ts";
import { StatementRefused } from "./failures.ts";
import { type PlanBudget, planBudget, planCostBudget, unselective } from "./limits.ts";
import { ident } from "./sql_text.ts";

/** One root access to a chain-sized table through a filter, as compile.ts writes it for the guard. */
export interface PlanProbe {
  readonly table: string;
  /** Where the access is in the query, for the error. */
  readonly path: string;
  /** The access alone, `select 1 as one ... from T where ... order by ... limit ...`, and its parameters. */
  readonly sql: string;
  readonly params: ReadonlyArray<unknown>;
  /** Why the table may not be read this way without a filter; undefined when an index order and a limit do. */
  readonly withoutFilter: string | undefined;
}

interface Estimate {
  /** The planner's total cost. */
  readonly cost: number;
  /** Rows the filter matches (before any limit). */
  readonly rows: number;
}

interface PlanNode {
  readonly "Node Type"?: string;
  readonly "Total Cost"?: number;
  readonly "Plan Rows"?: number;
  readonly Plans?: ReadonlyArray<PlanNode>;
}

const rememberMs = 60_000;
const maxRemembered = 1000;
/** Longer statements are explained every time, so the memory stays small. */
const maxRememberedKey = 16 * 1024;

interface Remembered<A> {
  readonly value: A;
  readonly at: number;
}
const estimates = new WeakMap<SqlClient, Map<string, Remembered<Estimate>>>();
const tableRows = new WeakMap<SqlClient, Map<string, Remembered<number>>>();

const memoryOf = <A>(all: WeakMap<SqlClient, Map<string, Remembered<A>>>, sql: SqlClient) => {
  let m = all.get(sql);
  if (!m) all.set(sql, m = new Map());
  return m;
};

/** Looks `key` up, or computes and keeps it (failures are not kept). */
const remembered = <A, E>(
  memory: Map<string, Remembered<A>>,
  key: string,
  compute: Effect.Effect<A | undefined, E>,
): Effect.Effect<A | undefined, E> =>
  Effect.suspend(() => {
    const known = memory.get(key);
    if (known && Date.now() - known.at < rememberMs) return Effect.succeed(known.value);
    return Effect.tap(compute, (value) => {
      if (value === undefined || key.length > maxRememberedKey) return;
      if (memory.size >= maxRemembered) memory.clear();
      memory.set(key, { value, at: Date.now() });
    });
  });

/** The plan's root node; the JSON column arrives parsed or as text depending on the driver. */
const planOf = (rows: ReadonlyArray<Record<string, unknown>>): PlanNode | undefined => {
  const value = rows[0] ? Object.values(rows[0])[0] : undefined;
  const parsed = typeof value === "string" ? JSON.parse(value) : value;
  return Array.isArray(parsed) ? (parsed[0] as { Plan?: PlanNode })?.Plan : undefined;
};

/** The planner's estimate, or undefined when it cannot plan the statement (running it will say why). */
const explain = (sql: SqlClient, text: string, params: ReadonlyArray<unknown>) =>
  sql.unsafe<Record<string, unknown>>(`explain (format json) ${text}`, params as Array<unknown>).pipe(
    Effect.map((rows): Estimate | undefined => {
      const plan = planOf(rows);
      if (!plan) return undefined;
      // under a Limit, its input is what the filter matches; otherwise the root is
      const matched = plan["Node Type"] === "Limit" ? plan.Plans?.[0] : plan;
      return { cost: plan["Total Cost"] ?? 0, rows: matched?.["Plan Rows"] ?? 0 };
    }),
    Effect.orElseSucceed(() => undefined),
  );

const estimate = (sql: SqlClient, probe: PlanProbe) =>
  remembered(
    memoryOf(estimates, sql),
    `${probe.sql}\u0000${JSON.stringify(probe.params)}`,
    explain(sql, probe.sql, probe.params),
  );

const rowsOf = (sql: SqlClient, table: string) =>
  remembered(
    memoryOf(tableRows, sql),
    table,
    Effect.map(explain(sql, `select 1 from ${ident(table)}`, []), (e) => e?.rows),
  );

const amount = (n: number) => Math.round(n).toLocaleString("en-US");

/**
 * Fails with the access whose unselective filter takes the rows such filters match past the budget's rows, or
 * with the cost of all the accesses together over the budget's cost; succeeds when the query may run. `budget`
 * is the tier's (limits.ts) unless a caller passes its own.
 */
export const refuseUnselective = (
  sql: SqlClient,
  probes: ReadonlyArray<PlanProbe>,
  tier: Tier,
  budget: PlanBudget = planBudget(tier),
): Effect.Effect<void, StatementRefused> =>
  Effect.gen(function* () {
    let cost = 0;
    /** Rows matched by the filters so far that do not narrow their scan. */
    let unselectiveRows = 0;
    for (const probe of probes) {
      const e = yield* estimate(sql, probe);
      if (!e) continue;
      if (probe.withoutFilter !== undefined) {
        const size = (yield* rowsOf(sql, probe.table)) ?? e.rows;
        const narrows = e.rows < unselective * size;
        if (!narrows) unselectiveRows += e.rows;
        if (!narrows && unselectiveRows > budget.rows) {
          return yield* new StatementRefused({
            message:
              `the filter matches about ${
                Math.min(100, Math.round((100 * e.rows) / Math.max(1, size)))
              }% of ` +
              `${probe.table}'s ${
                amount(size)
              } rows (the planner's estimate): it does not narrow the scan, so ` +
              `it counts as no filter, and ${probe.withoutFilter}`,
            path: probe.path,
          });
        }
      }
      cost += e.cost;
      if (cost > budget.cost) {
        const other = tier === "FREE" ? "PAID" : "FREE";
        return yield* new StatementRefused({
          message:
            `the planner estimates the query's reads of chain-sized tables at ${
              amount(cost)
            } (cost units, about ` +
            `one page read each); the ${tier} limit is ${amount(budget.cost)} per query (${other} ` +
            `${amount(planCostBudget[other])}): filter on an indexed column with _eq, _in or a narrow range`,
          path: probe.path,
        });
      }
    }
  });
