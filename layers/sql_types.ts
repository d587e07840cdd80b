/**
 * One value contract for both database backends (PostgreSQL through `pg`, embedded PGlite): callers cannot tell
 * them apart. int8 and numeric come back as decimal strings (lovelace never loses precision), int2/int4 and
 * floats as numbers, `timestamp without time zone` (db-sync stores UTC) as a UTC `Date`, bytea as `Uint8Array`,
 * json/jsonb parsed.
 */
export const Oid = {
  INT8: 20,
  NUMERIC: 1700,
  TIMESTAMP: 1114,
  INT8_ARRAY: 1016,
  NUMERIC_ARRAY: 1231,
} as const;

/** `2026-01-01 00:00:00.123` (no zone) read as UTC; `infinity` kept as an invalid date rather than local time. */
export const parseUtcTimestamp = (text: string): Date => new Date(text.replace(" ", "T") + "Z");

const identity = (text: string): string => text;

/** PostgreSQL array literal of plain scalars (`{1,2,NULL}`) as strings; the only arrays we read are int8/numeric. */
export const parseScalarArray = (text: string): Array<string | null> =>
  text === "{}" ? [] : text.slice(1, -1).split(",").map((v) => (v === "NULL" ? null : v));

export const textParsers: Record<number, (text: string) => unknown> = {
  [Oid.INT8]: identity,
  [Oid.NUMERIC]: identity,
  [Oid.TIMESTAMP]: parseUtcTimestamp,
  [Oid.INT8_ARRAY]: parseScalarArray,
  [Oid.NUMERIC_ARRAY]: parseScalarArray,
};
