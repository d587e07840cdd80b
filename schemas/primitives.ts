/**
 * Wire primitives of the spec ("Resources and their fields"): lovelace as decimal strings, ISO-8601 UTC date-times,
 * hashes as lower-case hex, and the paging parameters with their bounds and defaults.
 */
import { Schema } from "effect";

export const Lovelace = Schema.String.pipe(
  Schema.pattern(/^\d+$/),
  Schema.annotations({
    description: "An amount of lovelace as a string of decimal digits (1 ADA = 1,000,000)",
  }),
);

/** Token quantities and signed mint amounts: decimal strings, a minus sign allowed. */
export const Quantity = Schema.String.pipe(Schema.pattern(/^-?\d+$/));

export const DateTime = Schema.String.pipe(
  Schema.pattern(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/),
  Schema.annotations({ jsonSchema: { format: "date-time" }, description: "ISO-8601 date-time in UTC" }),
);

export const Hash32 = Schema.String.pipe(
  Schema.pattern(/^[a-f0-9]{64}$/),
  Schema.annotations({ description: "64 lower-case hexadecimal characters" }),
);

/**
 * An integer query parameter within bounds, with a default; the message names the bound broken. The OpenAPI
 * document describes parameters by their decoded side (an integer from `min` to `max`), as a client writes them.
 */
const boundedInt = (min: number, max: number, fallback: number) =>
  Schema.optionalWith(
    Schema.NumberFromString.annotations({ message: () => "must be a number" }).pipe(
      Schema.int({ message: () => "must be a whole number" }),
      Schema.greaterThanOrEqualTo(min, { message: () => `must be at least ${min}` }),
      Schema.lessThanOrEqualTo(max, { message: () => `must be at most ${max}` }),
    ).annotations({
      jsonSchema: { type: "integer", minimum: min, maximum: max, default: fallback },
    }),
    { default: () => fallback },
  );

export const PageParam = boundedInt(1, 1_000_000, 1);
export const LimitParam = boundedInt(1, 100, 25);
export const PageSizeParam = boundedInt(1, 100, 25);

export const BooleanParam = (name: string) =>
  Schema.optionalWith(
    Schema.transform(
      Schema.String.pipe(
        Schema.filter((s) => ["true", "false", "1", "0"].includes(s), {
          message: () => `${name} must be true or false`,
          jsonSchema: { enum: ["true", "false", "1", "0"] },
        }),
      ),
      Schema.Boolean,
      { strict: true, decode: (s) => s === "true" || s === "1", encode: (b) => (b ? "true" : "false") },
    ).annotations({ jsonSchema: { type: "boolean", default: false, description: "true or false (1 or 0)" } }),
    { default: () => false },
  );

/** `{total, page, pageSize, hasMore, data}` (spec: PaginationMeta merged with a data array). */
export const Paginated = <A, I>(item: Schema.Schema<A, I>) =>
  Schema.Struct({
    total: Schema.Int,
    page: Schema.Int,
    pageSize: Schema.Int,
    hasMore: Schema.Boolean,
    data: Schema.Array(item),
  });
