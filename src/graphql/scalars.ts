/**
 * The GraphQL scalars of column types (named as Hasura names them in src/queries/schema_model.ts: `Int`, `bigint`,
 * `numeric`, `bytea`, `timestamp`, `jsonb`, ...), with how a value goes into SQL (always a parameter) and comes out as JSON. db-sync's domains
 * (`hash32type`, `lovelace`, `word63type`, ...) take their base type's scalar, so a `bigint!` variable fits every
 * 64-bit column. Exactness first: `bigint` and `numeric` are JSON strings (lovelace sums pass 2^53), bytea is
 * lowercase hex without a prefix (a `\x` prefix is accepted on input).
 */
import {
  GraphQLBoolean,
  GraphQLError,
  GraphQLFloat,
  GraphQLInt,
  GraphQLScalarType,
  GraphQLString,
  Kind,
  valueFromASTUntyped,
  type ValueNode,
} from "graphql";
import type { ScalarName } from "@src/queries/schema_model.ts";

const invalid = (scalar: string, why: string) => new GraphQLError(`${scalar}: ${why}`);

const integerText = (scalar: string, value: unknown): string => {
  if (typeof value === "number" && Number.isSafeInteger(value)) return String(value);
  if (typeof value === "string" && /^-?\d{1,40}$/.test(value)) return value.replace(/^(-?)0+(?=\d)/, "$1");
  throw invalid(
    scalar,
    `expected an integer (a number, or digits in a string), got ${JSON.stringify(value)}`,
  );
};

const decimalText = (value: unknown): string => {
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  if (typeof value === "string" && /^-?\d{1,40}(\.\d{1,40})?([eE][-+]?\d{1,3})?$/.test(value)) return value;
  throw invalid(
    "numeric",
    `expected a decimal number (a number, or a decimal in a string), got ${JSON.stringify(value)}`,
  );
};

const hexText = (value: unknown): string => {
  if (typeof value === "string") {
    const hex = value.startsWith("\\x") ? value.slice(2) : value;
    if (/^([0-9a-fA-F]{2})*$/.test(hex)) return hex.toLowerCase();
  }
  throw invalid("bytea", `expected hex digits (an even number of 0-9, a-f), got ${JSON.stringify(value)}`);
};

const timestampPattern = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?)?(Z|[+-]\d{2}(:?\d{2})?)?$/;
const timeText = (scalar: string) => (value: unknown): string => {
  if (
    typeof value === "string" && timestampPattern.test(value) && !Number.isNaN(Date.parse(value.slice(0, 10)))
  ) {
    return value;
  }
  throw invalid(
    scalar,
    `expected an ISO 8601 date-time such as "2024-05-01T12:00:00", got ${JSON.stringify(value)}`,
  );
};

const smallintValue = (value: unknown): number => {
  if (typeof value === "number" && Number.isInteger(value) && value >= -32768 && value <= 32767) return value;
  throw invalid("smallint", `expected an integer from -32768 to 32767, got ${JSON.stringify(value)}`);
};

/** A literal's value, for scalars whose literals may be numbers or strings. */
const literal = (node: ValueNode): unknown =>
  node.kind === Kind.INT || node.kind === Kind.FLOAT || node.kind === Kind.STRING ? node.value : undefined;

const scalar = (
  name: string,
  description: string,
  parse: (value: unknown) => unknown,
  parseLiteral: (node: ValueNode) => unknown = (node) => parse(literal(node)),
) =>
  new GraphQLScalarType({
    name,
    description,
    serialize: (v) => v,
    parseValue: parse,
    // the error names its node, so the answer's path points at the value in the query
    parseLiteral: (node) => {
      try {
        return parseLiteral(node);
      } catch (e) {
        throw e instanceof GraphQLError ? new GraphQLError(e.message, { nodes: node }) : e;
      }
    },
  });

const bigint = scalar(
  "bigint",
  "64-bit integer, as a JSON string (exact); input as a number or a string of digits",
  (v) => integerText("bigint", v),
  (node) =>
    integerText("bigint", node.kind === Kind.INT || node.kind === Kind.STRING ? node.value : undefined),
);
const numeric = scalar(
  "numeric",
  "Exact decimal (lovelace and other amounts), as a JSON string; input as a number or a string",
  decimalText,
);
const smallint = scalar(
  "smallint",
  "16-bit integer",
  smallintValue,
  (node) => smallintValue(node.kind === Kind.INT ? Number(node.value) : undefined),
);
const float8 = scalar(
  "float8",
  "Double-precision number",
  (v) => {
    if (typeof v === "number" && Number.isFinite(v)) return v;
    throw invalid("float8", `expected a number, got ${JSON.stringify(v)}`);
  },
  (node) => {
    if (node.kind === Kind.INT || node.kind === Kind.FLOAT) return Number(node.value);
    throw invalid("float8", "expected a number");
  },
);
const bytea = scalar(
  "bytea",
  "Bytes as lowercase hex (hashes, keys, CBOR); input accepts an optional \\x prefix",
  hexText,
);
const timestamp = scalar(
  "timestamp",
  "Date-time without time zone (db-sync stores UTC), e.g. 2024-05-01T12:00:00",
  timeText("timestamp"),
);
const timestamptz = scalar("timestamptz", "Date-time with time zone", timeText("timestamptz"));
const date = scalar("date", "Calendar date, e.g. 2024-05-01", timeText("date"));
const jsonScalar = (name: string) =>
  scalar(name, "Any JSON value", (v) => v, (node) => valueFromASTUntyped(node));

const builtIn: Readonly<Record<string, GraphQLScalarType>> = {
  Int: GraphQLInt,
  Boolean: GraphQLBoolean,
  String: GraphQLString,
  Float: GraphQLFloat,
  bigint,
  numeric,
  smallint,
  float8,
  bytea,
  timestamp,
  timestamptz,
  date,
  jsonb: jsonScalar("jsonb"),
  json: jsonScalar("json"),
};

/** The scalar types of one schema (enum scalars are made per schema, validated against the database's labels). */
export const makeScalars = (enums: ReadonlyMap<string, ReadonlyArray<string>>) => {
  const made = new Map<string, GraphQLScalarType>(Object.entries(builtIn));
  return (name: ScalarName): GraphQLScalarType => {
    const found = made.get(name);
    if (found) return found;
    const enumName = name.slice("enum:".length);
    const labels = enums.get(enumName) ?? [];
    const check = (v: unknown) => {
      if (typeof v === "string" && labels.includes(v)) return v;
      throw invalid(enumName, `expected one of ${labels.join(", ")}, got ${JSON.stringify(v)}`);
    };
    const type = scalar(enumName, `db-sync enum ${enumName}: ${labels.join(", ")}`, check);
    made.set(name, type);
    return type;
  };
};

/** GraphQL name of a scalar (enum scalars are named after their database type, as in Hasura). */
export const scalarTypeName = (name: ScalarName): string => name.startsWith("enum:") ? name.slice(5) : name;

export const isNumeric = (s: ScalarName) =>
  s === "Int" || s === "smallint" || s === "bigint" || s === "numeric" || s === "float8";

/** Types with an order: comparisons beyond equality, min/max. */
export const isOrdered = (s: ScalarName) =>
  isNumeric(s) || s === "String" || s === "bytea" || s === "timestamp" || s === "timestamptz" ||
  s === "date" ||
  s === "Boolean";

export const isJson = (s: ScalarName) => s === "jsonb" || s === "json";

/** A column read into the result JSON: exact strings for 64-bit and decimal numbers, hex for bytes. */
export const outputSql = (s: ScalarName, column: string): string =>
  s === "bytea" ? `encode(${column}, 'hex')` : s === "bigint" || s === "numeric" ? `${column}::text` : column;

/** A parameter as SQL of the column's type, so comparisons use the column's indexes. */
export const parameterSql = (s: ScalarName, placeholder: string): string => {
  switch (s) {
    case "bytea":
      return `decode(${placeholder}, 'hex')`;
    case "Int":
      return `${placeholder}::int4`;
    case "smallint":
      return `${placeholder}::int2`;
    case "bigint":
      return `${placeholder}::int8`;
    case "numeric":
      return `${placeholder}::numeric`;
    case "float8":
      return `${placeholder}::float8`;
    case "Boolean":
      return `${placeholder}::boolean`;
    case "timestamp":
      return `${placeholder}::timestamp`;
    case "timestamptz":
      return `${placeholder}::timestamptz`;
    case "date":
      return `${placeholder}::date`;
    case "jsonb":
    case "json":
      return `${placeholder}::jsonb`;
    default:
      return `${placeholder}::text`; // String and enum labels (enum columns are compared as text)
  }
};

/** A column as the left side of a comparison (enum columns compare as text: no cast of the user's value). */
export const comparedSql = (s: ScalarName, column: string): string =>
  s.startsWith("enum:") ? `${column}::text` : s === "json" ? `${column}::jsonb` : column;

/** A parameter value as the driver should send it. */
export const parameterValue = (s: ScalarName, value: unknown): unknown =>
  isJson(s)
    ? JSON.stringify(value)
    : typeof value === "number" || typeof value === "boolean"
    ? String(value)
    : value;
