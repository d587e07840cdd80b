/**
 * A route's path or query parameters decoded with its endpoint's Schema, once, before the access check: the first
 * issue becomes an `InvalidParameter` naming the parameter (each dialect's mapper turns it into its 400).
 */
import { Either, Option, ParseResult, Schema } from "effect";
import { InvalidParameter } from "@src/domain/errors.ts";

/** The first decoding issue as `parameter: why`. */
const firstIssue = (error: ParseResult.ParseError, fallback: string): InvalidParameter => {
  const [issue] = ParseResult.ArrayFormatter.formatErrorSync(error);
  const parameter = issue?.path.map(String).join(".") || fallback;
  const reason = issue?.message.replace(/^Expected /, "expected ") ?? "is malformed";
  return new InvalidParameter({ parameter, reason });
};

/** A value decoded with a Schema, or the `InvalidParameter` of its first issue (`fallback` names the root). */
export const decodeAt = <A, I>(
  schema: Schema.Schema<A, I>,
  input: unknown,
  fallback: string,
): Either.Either<A, InvalidParameter> =>
  Either.mapLeft(
    Schema.decodeUnknownEither(schema, { errors: "first" })(input),
    (e) => firstIssue(e, fallback),
  );

export const decodeParameters = <A>(
  schema: Option.Option<Schema.Schema<A, unknown>>,
  input: unknown,
  fallback: string,
) =>
  Option.match(schema, {
    onNone: () => Either.right(undefined as A),
    onSome: (s) => decodeAt(s, input, fallback),
  });
