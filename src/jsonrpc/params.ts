/**
 * Params are decoded by an effect Schema; the first problem found becomes `InvalidParams` with the schema's own
 * message (each schema here says which param is wrong and how).
 */
import { Effect, Either, ParseResult, Schema } from "effect";
import { InvalidParams } from "./protocol_errors.ts";

export type Params = Readonly<Record<string, unknown>> | undefined;

/** A decoder of a request's params (absent params decode as `{}`). */
export const paramsDecoder = <A, I>(schema: Schema.Schema<A, I>) => {
  const decode = Schema.decodeUnknownEither(schema, { errors: "first" });
  return (params: Params): Effect.Effect<A, InvalidParams> =>
    Either.match(decode(params ?? {}), {
      onLeft: (e) =>
        Effect.fail(
          new InvalidParams({
            detail: ParseResult.ArrayFormatter.formatErrorSync(e)[0]?.message ?? e.message,
          }),
        ),
      onRight: Effect.succeed,
    });
};

/** Anything, checked and converted by `check`: the value (right) or the message saying what is wrong (left). */
export const checked = <A>(check: (input: unknown) => Either.Either<A, string>): Schema.Schema<A, unknown> =>
  Schema.transformOrFail(Schema.Unknown, Schema.Any, {
    strict: false,
    decode: (input, _, ast) =>
      Either.match(check(input), {
        onLeft: (problem) => ParseResult.fail(new ParseResult.Type(ast, input, problem)),
        onRight: (value) => ParseResult.succeed(value),
      }),
    encode: ParseResult.succeed,
  });

/** An array of at most `max` items (at least one unless `allowEmpty`), each decoded by `item`, in that order. */
export const arrayOf = <A>(
  item: Schema.Schema<A, unknown>,
  messages: { readonly notArray: string; readonly tooMany: string },
  options: { readonly max: number; readonly allowEmpty?: boolean },
) =>
  Schema.compose(
    Schema.Array(Schema.Unknown).annotations({ message: () => messages.notArray }).pipe(
      Schema.filter((a) => options.allowEmpty === true || a.length > 0, { message: () => messages.notArray }),
      Schema.filter((a) => a.length <= options.max, { message: () => messages.tooMany }),
    ),
    Schema.Array(item),
  );
