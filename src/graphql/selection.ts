/**
 * The parts of a validated query the compiler reads: fields by response key (through fragments, honouring @skip
 * and @include), merged sub-selections, and arguments as written (for key order, which coercion loses).
 */
import {
  type FieldNode,
  type FragmentDefinitionNode,
  getDirectiveValues,
  type GraphQLField,
  GraphQLIncludeDirective,
  type GraphQLObjectType,
  type GraphQLSchema,
  GraphQLSkipDirective,
  Kind,
  type SelectionSetNode,
  valueFromASTUntyped,
} from "graphql";
import type { PlanProbe } from "./plan_guard.ts";
import type { SchemaModel } from "@src/queries/schema_model.ts";
import { QueryRejected } from "./failures.ts";
import type { SqlBuilder } from "./sql_text.ts";

/** What compiling one query carries along. */
export interface Context {
  readonly b: SqlBuilder;
  readonly schema: GraphQLSchema;
  readonly model: SchemaModel;
  readonly fragments: Readonly<Record<string, FragmentDefinitionNode>>;
  /** Coerced variable values (graphql-js getVariableValues). */
  readonly variables: Readonly<Record<string, unknown>>;
  /** The variables as sent, for the key order of order_by objects (coercion reorders keys). */
  readonly rawVariables: Readonly<Record<string, unknown>>;
  /** Root accesses for the plan guard (compile.ts); undefined while writing a probe itself. */
  readonly probes: Array<PlanProbe> | undefined;
  /** Row sources standing in for relations by name (db-sync's `epoch` view: epoch_source.ts). */
  readonly sources?: RowSources;
  /** The relations lists and aggregates read (compile.ts), so a caller knows whether a source was needed. */
  readonly read?: Set<string>;
}

/** A relation's stand-in: a parenthesised subquery with the relation's columns, values as parameters. */
export type RowSources = ReadonlyMap<string, (b: SqlBuilder) => string>;

export type Fields = Map<string, Array<FieldNode>>;

const included = (ctx: Context, node: Parameters<typeof getDirectiveValues>[1]) => {
  if (getDirectiveValues(GraphQLSkipDirective, node, ctx.variables)?.if === true) return false;
  return getDirectiveValues(GraphQLIncludeDirective, node, ctx.variables)?.if !== false;
};

/** The fields of a selection set by response key, through fragments, honouring @skip and @include. */
export const collect = (ctx: Context, set: SelectionSetNode, into: Fields = new Map()): Fields => {
  for (const s of set.selections) {
    if (!included(ctx, s)) continue;
    if (s.kind === Kind.FIELD) {
      const key = s.alias?.value ?? s.name.value;
      const same = into.get(key);
      if (same) same.push(s);
      else into.set(key, [s]);
    } else if (s.kind === Kind.INLINE_FRAGMENT) {
      collect(ctx, s.selectionSet, into);
    } else {
      const fragment = ctx.fragments[s.name.value];
      if (fragment) collect(ctx, fragment.selectionSet, into);
    }
  }
  return into;
};

/** The merged sub-selection of same-key fields (validation has made sure they agree). */
export const subfields = (ctx: Context, nodes: ReadonlyArray<FieldNode>): Fields => {
  const into: Fields = new Map();
  for (const n of nodes) if (n.selectionSet) collect(ctx, n.selectionSet, into);
  return into;
};

export const fieldDef = (
  type: GraphQLObjectType,
  name: string,
  path: string,
): GraphQLField<unknown, unknown> => {
  const def = type.getFields()[name];
  if (!def) throw new QueryRejected(`field ${name} not found in type: ${type.name}`, path);
  return def;
};

/** The argument as written, before coercion (for key order); undefined when absent. */
export const rawArgument = (ctx: Context, node: FieldNode, name: string): unknown => {
  const arg = node.arguments?.find((a) => a.name.value === name);
  return arg ? valueFromASTUntyped(arg.value, ctx.rawVariables) : undefined;
};

export const asList = <A>(v: A | ReadonlyArray<A> | undefined): ReadonlyArray<A> =>
  v === undefined ? [] : Array.isArray(v) ? v : [v as A];
