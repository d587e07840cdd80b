/**
 * The Blockfrost dialect's wire primitives, as Blockfrost publishes them (the `@blockfrost/openapi` package):
 * quantities as decimal strings, amounts as `[{unit, quantity}]` (`unit` is `lovelace` or policy id + hex
 * asset name), the `{status_code, error, message}` error envelope, and the `count` / `page` / `order` paging.
 */
import * as HttpApiSchema from "@effect/platform/HttpApiSchema";
import { Schema } from "effect";

/** Lovelace and token quantities: decimal strings. */
export const BfQuantity = Schema.String.pipe(
  Schema.pattern(/^-?\d+$/),
  Schema.annotations({ description: "A quantity as a string of decimal digits" }),
);

export const BfAmount = Schema.Array(Schema.Struct({
  unit: Schema.String.annotations({
    description: "`lovelace`, or policy id and hex asset name concatenated",
  }),
  quantity: BfQuantity,
})).annotations({ identifier: "BlockfrostAmount" });

const envelope = (status: number, error: string, description: string) =>
  Schema.Struct({
    status_code: Schema.Literal(status),
    error: Schema.Literal(error),
    message: Schema.String,
  }).annotations({ ...HttpApiSchema.annotations({ status }), description });

export const BfBadRequest = envelope(
  400,
  "Bad Request",
  "A parameter or the body is malformed; the message says why",
)
  .annotations({ identifier: "BlockfrostBadRequest" });
export const BfForbidden = envelope(
  403,
  "Forbidden",
  "The key is missing, unknown, revoked or not allowed here",
)
  .annotations({ identifier: "BlockfrostForbidden" });
export const BfNotFound = envelope(404, "Not Found", "The component asked for does not exist on this network")
  .annotations({ identifier: "BlockfrostNotFound" });
export const BfTooManyRequests = envelope(
  429,
  "Too Many Requests",
  "A limit of the key is spent (Retry-After)",
)
  .annotations({ identifier: "BlockfrostTooManyRequests" });
export const BfServiceUnavailable = envelope(
  503,
  "Service Unavailable",
  "A database or the node does not answer; try again shortly",
).annotations({ identifier: "BlockfrostServiceUnavailable" });

/** Blockfrost's paging: `count` 1-100 (100), `page` from 1 (1), `order` asc or desc (asc: oldest first). */
const bounded = (name: string, min: number, max: number, fallback: number) =>
  Schema.optionalWith(
    Schema.NumberFromString.annotations({ message: () => `${name} must be a number` }).pipe(
      Schema.int({ message: () => `${name} must be a whole number` }),
      Schema.greaterThanOrEqualTo(min, { message: () => `${name} must be at least ${min}` }),
      Schema.lessThanOrEqualTo(max, { message: () => `${name} must be at most ${max}` }),
    ).annotations({ jsonSchema: { type: "integer", minimum: min, maximum: max, default: fallback } }),
    { default: () => fallback },
  );

export const BfOrder = Schema.Literal("asc", "desc").annotations({
  // a union's own message only wins over its members' when it overrides them
  message: () => ({ message: "must be asc or desc", override: true }),
});
export type BfOrder = typeof BfOrder.Type;

export const BfPaging = Schema.Struct({
  count: bounded("count", 1, 100, 100),
  page: bounded("page", 1, 21_474_836, 1),
  order: Schema.optionalWith(BfOrder, { default: () => "asc" as const }),
});
export type BfPaging = typeof BfPaging.Type;
