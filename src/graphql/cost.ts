/**
 * What a GraphQL request would cost, decided from the document before anything runs, validation included (the
 * validator's rules grow faster than the document; a hostile document must not reach them): rows, field values,
 * root fields, introspection and nesting depth of the whole operation, per tier (limits.ts).
 *
 * Each fragment is costed once per context and reused wherever it is spread, so the pass is linear in the
 * document however the fragments spread each other; a fragment spread twice counts twice, as the document
 * expands. The pass stops as soon as a budget is exceeded, so its figures are lower bounds ("at least").
 * It runs on documents not yet validated: unknown fields count as plain fields, unknown fragments and fragment
 * cycles count nothing (validation then reports them).
 */
import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  getIntrospectionQuery,
  getNamedType,
  getNullableType,
  type GraphQLObjectType,
  type GraphQLSchema,
  isListType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  parse,
  type SelectionNode,
  type SelectionSetNode,
  valueFromASTUntyped,
} from "graphql";
import type { Tier } from "@layers/key_store.ts";
import {
  defaultLimit,
  introspectionBudget,
  maxDepth,
  maxLimit,
  type QueryBudget,
  queryBudget,
} from "./limits.ts";
import type { SchemaModel, TableModel } from "@src/queries/schema_model.ts";
import { CostOverBudget } from "./failures.ts";

/** What a selection set costs for one row of its parent. */
interface Cost {
  rows: number;
  fields: number;
  /** Field selections as the document expands, not multiplied by rows. */
  selections: number;
  introspection: number;
  /** Fields at the top of the set (root fields, for the operation). */
  roots: number;
  /** Levels of data fields with a selection of their own, and the path to the deepest. */
  depth: number;
  deepest: string;
}

const zero = (): Cost => ({
  rows: 0,
  fields: 0,
  selections: 0,
  introspection: 0,
  roots: 0,
  depth: 0,
  deepest: "",
});

/**
 * Introspection types: "all" when the objects at hand are each element of their kind once (the types under
 * `__schema.types`, their fields, those fields' arguments), so the schema's totals bound what they list;
 * "any" for objects that may repeat (`type`, `ofType`, `__type`), which may each list the largest count.
 */
type Mode = "data" | "all" | "any";

/** Sizes of the schema's introspection answer: totals and the largest per type (or field, directive). */
interface SchemaSizes {
  readonly types: number;
  readonly fields: readonly [total: number, most: number];
  readonly args: readonly [total: number, most: number];
  readonly inputFields: readonly [total: number, most: number];
  readonly enumValues: readonly [total: number, most: number];
  readonly interfaces: readonly [total: number, most: number];
  readonly possibleTypes: readonly [total: number, most: number];
  readonly directives: number;
  readonly directiveArgs: readonly [total: number, most: number];
}

const sizesBySchema = new WeakMap<GraphQLSchema, SchemaSizes>();
/** What the fullest standard introspection query costs, per schema. */
const fullIntrospectionBySchema = new WeakMap<GraphQLSchema, number>();

const tally = () => {
  const t = [0, 0] as [number, number];
  return { t, add: (n: number) => (t[0] += n, t[1] = Math.max(t[1], n)) };
};

const sizesOf = (schema: GraphQLSchema): SchemaSizes => {
  const known = sizesBySchema.get(schema);
  if (known) return known;
  const [fields, args, inputFields, enumValues, interfaces, possibleTypes, directiveArgs] = Array.from(
    { length: 7 },
    tally,
  );
  const types = Object.values(schema.getTypeMap());
  for (const type of types) {
    if ("getFields" in type) {
      const own = Object.values(type.getFields());
      (isObjectType(type) || "getInterfaces" in type ? fields! : inputFields!).add(own.length);
      for (const f of own) if ("args" in f) args!.add(f.args.length);
    }
    if ("getValues" in type) enumValues!.add(type.getValues().length);
    if ("getInterfaces" in type) interfaces!.add(type.getInterfaces().length);
    if ("getTypes" in type) possibleTypes!.add(type.getTypes().length);
  }
  for (const d of schema.getDirectives()) directiveArgs!.add(d.args.length);
  const sizes: SchemaSizes = {
    types: types.length,
    fields: fields!.t,
    args: args!.t,
    inputFields: inputFields!.t,
    enumValues: enumValues!.t,
    interfaces: interfaces!.t,
    possibleTypes: possibleTypes!.t,
    directives: schema.getDirectives().length,
    directiveArgs: directiveArgs!.t,
  };
  sizesBySchema.set(schema, sizes);
  return sizes;
};

const fullIntrospectionOf = (schema: GraphQLSchema, model: SchemaModel): number => {
  const known = fullIntrospectionBySchema.get(schema);
  if (known !== undefined) return known;
  const full = parse(getIntrospectionQuery({
    descriptions: true,
    specifiedByUrl: true,
    directiveIsRepeatable: true,
    schemaDescription: true,
    inputValueDeprecation: true,
  }));
  const unlimited = { rows: Infinity, fields: Infinity, selections: Infinity, rootFields: Infinity };
  const measured = measure(schema, model, full, operationOf(full), {}, unlimited, Infinity);
  const cost = "cost" in measured ? measured.cost.introspection : Infinity;
  fullIntrospectionBySchema.set(schema, cost);
  return cost;
};

const amount = (n: number) => Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : "too many";

/**
 * Selection sets open at once, through fragments too: far beyond any tier's depth, so the walk stops there
 * rather than recurse through a pathological document.
 */
const maxNesting = 500;

interface Walk {
  readonly schema: GraphQLSchema;
  readonly model: SchemaModel;
  readonly fragments: ReadonlyMap<string, FragmentDefinitionNode>;
  /** The variables as sent, with the operation's defaults for those not sent. */
  readonly variables: Readonly<Record<string, unknown>>;
  readonly budget: QueryBudget;
  readonly introspectionLimit: number;
  readonly tier: Tier | undefined;
  readonly sizes: SchemaSizes;
  /** Fragment costs by name and context; null while being costed (a cycle). */
  readonly memo: Map<string, Cost | null>;
  /** Selection sets being walked now. */
  nesting: number;
}

const argument = (w: Walk, node: FieldNode, name: string): unknown => {
  const arg = node.arguments?.find((a) => a.name.value === name);
  return arg ? valueFromASTUntyped(arg.value, w.variables) : undefined;
};

/** @skip and @include as the compiler honours them; a condition not yet known counts as included. */
const included = (w: Walk, s: SelectionNode): boolean => {
  for (const d of s.directives ?? []) {
    const name = d.name.value;
    if (name !== "skip" && name !== "include") continue;
    const arg = d.arguments?.find((a) => a.name.value === "if");
    const value = arg ? valueFromASTUntyped(arg.value, w.variables) : undefined;
    if (name === "skip" && value === true) return false;
    if (name === "include" && value === false) return false;
  }
  return true;
};

/** A list's `limit` as the compiler applies it (100 when not set); a value it will refuse counts as the maximum. */
const limitOf = (w: Walk, node: FieldNode): number => {
  const limit = argument(w, node, "limit");
  if (limit === undefined || limit === null) return defaultLimit;
  return typeof limit === "number" && Number.isInteger(limit) && limit >= 0
    ? Math.min(limit, maxLimit)
    : maxLimit;
};

/** Rows a list may return: its limit, or fewer when a unique column is matched by _eq or _in. */
const listRows = (w: Walk, table: TableModel | undefined, node: FieldNode): number => {
  let rows = limitOf(w, node);
  if (!table || table.unique.size === 0 || rows <= 1) return rows;
  const where = argument(w, node, "where");
  if (where === null || typeof where !== "object") return rows;
  for (const [key, ops] of Object.entries(where)) {
    if (!table.unique.has(key) || ops === null || typeof ops !== "object") continue;
    const { _eq, _in } = ops as { _eq?: unknown; _in?: unknown };
    if (_eq !== undefined && _eq !== null) rows = Math.min(rows, 1);
    else if (Array.isArray(_in)) rows = Math.min(rows, _in.length);
  }
  return rows;
};

/** What one field with a selection leads to: the type of its objects, how many per parent row, the mode. */
interface Step {
  readonly type: GraphQLObjectType | undefined;
  readonly each: number;
  readonly rows: boolean;
  readonly mode: Mode;
  /** The limit of an aggregate's `nodes`, set on the aggregate field. */
  readonly nodesLimit?: number;
}

const objectType = (schema: GraphQLSchema, name: string): GraphQLObjectType | undefined => {
  const t = schema.getType(name);
  return t && isObjectType(t) ? t : undefined;
};

/** Introspection lists: totals when the parents are each element once, the largest count otherwise. */
const introspectionEach = (c: SchemaSizes, parent: string, field: string, mode: Mode): number => {
  const per = (t: readonly [number, number], among: number) =>
    mode === "all" ? t[0] / Math.max(1, among) : t[1];
  switch (`${parent}.${field}`) {
    case "__Schema.types":
      return c.types;
    case "__Schema.directives":
      return c.directives;
    case "__Type.fields":
      return per(c.fields, c.types);
    case "__Type.inputFields":
      return per(c.inputFields, c.types);
    case "__Type.enumValues":
      return per(c.enumValues, c.types);
    case "__Type.interfaces":
      return per(c.interfaces, c.types);
    case "__Type.possibleTypes":
      return per(c.possibleTypes, c.types);
    case "__Field.args":
      return per(c.args, c.fields[0]);
    case "__Directive.args":
      return per(c.directiveArgs, c.directives);
    default:
      return 1;
  }
};

/** Lists of every element of their kind: `__schema.types`, and the fields, arguments... of every type. */
const fromSchema = new Set(["__Schema.types", "__Schema.directives"]);
const ofEach = new Set([
  "__Type.fields",
  "__Type.inputFields",
  "__Type.enumValues",
  "__Field.args",
  "__Directive.args",
]);

const step = (
  w: Walk,
  parent: GraphQLObjectType | undefined,
  mode: Mode,
  node: FieldNode,
  root: boolean,
  nodesLimit: number | undefined,
): Step => {
  const name = node.name.value;
  if (mode === "data" && root && (name === "__schema" || name === "__type")) {
    return {
      type: objectType(w.schema, name === "__schema" ? "__Schema" : "__Type"),
      each: 1,
      rows: false,
      mode: "any",
    };
  }
  const def = parent?.getFields()[name];
  if (!def) return { type: undefined, each: 1, rows: false, mode };
  const named = getNamedType(def.type);
  const type = isObjectType(named) ? named : undefined;
  const list = isListType(getNullableType(def.type));
  if (mode !== "data") {
    const key = `${parent!.name}.${name}`;
    const each = introspectionEach(w.sizes, parent!.name, name, mode);
    const all = fromSchema.has(key) || mode === "all" && ofEach.has(key);
    return { type, each: Math.max(1, each), rows: false, mode: all ? "all" : "any" };
  }
  const table = type ? w.model.tables.get(type.name) : undefined;
  const aggregated = type?.name.endsWith("_aggregate")
    ? w.model.tables.get(type.name.slice(0, -"_aggregate".length))
    : undefined;
  if (!list) {
    return { type, each: 1, rows: false, mode, ...(aggregated ? { nodesLimit: limitOf(w, node) } : {}) };
  }
  const each = name === "nodes" && nodesLimit !== undefined ? nodesLimit : listRows(w, table, node);
  return { type, each: Math.max(1, each), rows: true, mode };
};

const check = (w: Walk, c: Cost, path: string, operation: boolean) => {
  const tier = w.tier ?? "FREE";
  const other = tier === "FREE" ? "PAID" : "FREE";
  const limit = (what: string, n: number, max: number, otherMax: number, how: string) =>
    new CostOverBudget(
      `the query would return at least ${amount(n)} ${what}; the ${tier} limit is ${amount(max)} per query ` +
        `(${other} ${amount(otherMax)}): ${how}`,
      path,
    );
  const others = queryBudget[other];
  if (c.rows > w.budget.rows) {
    throw limit(
      "rows (each list's limit times its parents', 100 when not set, summed over all root fields and aliases)",
      c.rows,
      w.budget.rows,
      others.rows,
      "set smaller limits or ask for fewer lists",
    );
  }
  if (c.fields > w.budget.fields) {
    throw limit(
      "field values (each selected field times the rows it is produced for, fragments expanded)",
      c.fields,
      w.budget.fields,
      others.fields,
      "select fewer fields or rows",
    );
  }
  if (c.selections > w.budget.selections) {
    throw new CostOverBudget(
      `the query has at least ${
        amount(c.selections)
      } field selections once its fragments are expanded; the ` +
        `${tier} limit is ${amount(w.budget.selections)} per query (${other} ${
          amount(others.selections)
        }): ` +
        `spread each fragment once where it is needed`,
      path,
    );
  }
  if (c.introspection > w.introspectionLimit) {
    throw new CostOverBudget(
      `the query's introspection would produce at least ${amount(c.introspection)} values; the limit is ` +
        `${introspectionBudget} full schema introspections (${amount(w.introspectionLimit)}) per query: ` +
        `ask for the schema once`,
      path,
    );
  }
  if (operation && c.roots > w.budget.rootFields) {
    throw new CostOverBudget(
      `the query has at least ${amount(c.roots)} root fields (aliases count); the ${tier} limit is ` +
        `${w.budget.rootFields} per query (${other} ${others.rootFields})`,
      path,
    );
  }
};

/** Adds what `set` costs, for `each` rows of its parent, to `into`. */
const walkSet = (
  w: Walk,
  set: SelectionSetNode,
  parent: GraphQLObjectType | undefined,
  mode: Mode,
  each: number,
  depth: number,
  root: boolean,
  path: string,
  into: Cost,
  operation: boolean,
  nodesLimit: number | undefined,
): void => {
  if (++w.nesting > maxNesting) {
    throw new CostOverBudget(`the query nests more than ${maxNesting} selections (fragments included)`, path);
  }
  for (const s of set.selections) {
    if (!included(w, s)) continue;
    if (s.kind === Kind.FIELD) {
      const key = s.alias?.value ?? s.name.value;
      const here = `${path}.selectionSet.${key}`;
      if (root) into.roots++;
      into.selections++;
      const next = s.selectionSet ? step(w, parent, mode, s, root, nodesLimit) : undefined;
      if (mode === "data" && (next === undefined || next.mode === "data")) into.fields += each;
      else into.introspection += each;
      if (next && s.selectionSet) {
        const rows = each * next.each;
        if (next.rows) into.rows += rows;
        let below = depth;
        if (next.mode === "data") {
          below = depth + 1;
          if (below > into.depth) [into.depth, into.deepest] = [below, here];
        }
        check(w, into, here, operation);
        walkSet(
          w,
          s.selectionSet,
          next.type,
          next.mode,
          rows,
          below,
          false,
          here,
          into,
          operation,
          next.nodesLimit,
        );
      } else {
        check(w, into, here, operation);
      }
    } else if (s.kind === Kind.INLINE_FRAGMENT) {
      const type = s.typeCondition ? objectType(w.schema, s.typeCondition.name.value) : parent;
      walkSet(w, s.selectionSet, type, mode, each, depth, root, path, into, operation, nodesLimit);
    } else {
      const cost = fragmentCost(w, s.name.value, mode, nodesLimit);
      if (!cost) continue;
      into.rows += each * cost.rows;
      into.fields += each * cost.fields;
      into.introspection += each * cost.introspection;
      into.selections += cost.selections;
      if (root) into.roots += cost.roots;
      if (depth + cost.depth > into.depth) {
        [into.depth, into.deepest] = [depth + cost.depth, path + cost.deepest];
      }
      check(w, into, path, operation);
    }
  }
  w.nesting--;
};

/** A fragment's cost for one row, computed once per context; undefined for unknown or cyclic fragments. */
const fragmentCost = (
  w: Walk,
  name: string,
  mode: Mode,
  nodesLimit: number | undefined,
): Cost | undefined => {
  const key = `${name}\u0000${mode}\u0000${nodesLimit ?? ""}`;
  const known = w.memo.get(key);
  if (known !== undefined) return known ?? undefined;
  const fragment = w.fragments.get(name);
  if (!fragment) return undefined;
  w.memo.set(key, null);
  const cost = zero();
  const at = `$.fragments.${name}`;
  // a fragment is costed for one row of its parent: every use costs at least that, so its own total already
  // tells when a budget is exceeded
  walkSet(
    w,
    fragment.selectionSet,
    objectType(w.schema, fragment.typeCondition.name.value),
    mode,
    1,
    0,
    true,
    at,
    cost,
    false,
    nodesLimit,
  );
  cost.deepest = cost.deepest.slice(at.length); // where its deepest field is, from where it is spread
  w.memo.set(key, cost);
  return cost;
};

const operationOf = (document: DocumentNode): OperationDefinitionNode =>
  document.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION) as OperationDefinitionNode;

/** The variables as sent, with the operation's defaults for those not sent. */
const withDefaults = (operation: OperationDefinitionNode, sent: Readonly<Record<string, unknown>>) => {
  const all: Record<string, unknown> = { ...sent };
  for (const d of operation.variableDefinitions ?? []) {
    const name = d.variable.name.value;
    if (!(name in all) && d.defaultValue) all[name] = valueFromASTUntyped(d.defaultValue, {});
  }
  return all;
};

const measure = (
  schema: GraphQLSchema,
  model: SchemaModel,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Readonly<Record<string, unknown>>,
  budget: QueryBudget,
  introspectionLimit: number,
  tier?: Tier,
): { readonly cost: Cost } | CostOverBudget => {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) {
    if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  }
  const w: Walk = {
    schema,
    model,
    fragments,
    variables: withDefaults(operation, variables),
    budget,
    introspectionLimit,
    tier,
    sizes: sizesOf(schema),
    memo: new Map(),
    nesting: 0,
  };
  const cost = zero();
  try {
    const root = schema.getRootType(operation.operation) ?? undefined;
    walkSet(w, operation.selectionSet, root, "data", 1, 0, true, "$", cost, true, undefined);
  } catch (e) {
    if (e instanceof CostOverBudget) return e;
    throw e;
  }
  return { cost };
};

/**
 * The request's cost against the tier's budgets and depth; undefined when it may run. The document need not be
 * validated yet.
 */
export const refuseCostly = (
  schema: GraphQLSchema,
  model: SchemaModel,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Readonly<Record<string, unknown>>,
  tier: Tier,
): CostOverBudget | undefined => {
  const measured = measure(
    schema,
    model,
    document,
    operation,
    variables,
    queryBudget[tier],
    introspectionBudget * fullIntrospectionOf(schema, model),
    tier,
  );
  if (measured instanceof CostOverBudget) return measured;
  const { depth, deepest } = measured.cost;
  if (depth > maxDepth[tier]) {
    return new CostOverBudget(
      `the query is nested ${depth} levels deep; the ${tier} tier allows at most ${
        maxDepth[tier]
      } (PAID ${maxDepth.PAID})`,
      deepest,
    );
  }
  return undefined;
};
