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

/** A required field whose absence is said with the same `message` as a wrong value. */
export const required = <A, I>(schema: Schema.Schema<A, I>, message: string) =>
  Schema.propertySignature(schema).annotations({ missingMessage: () => message });

/** `schema`, failing anywhere inside with the one message `message` gives for the value it was given. */
export const withMessage = <A, I>(schema: Schema.Schema<A, I>, message: (actual: unknown) => string) =>
  schema.annotations({ message: (issue) => ({ message: message(issue.actual), override: true }) });

/**
 * An array (non-empty unless `allowEmpty`, of at most `max.count` items when given), each decoded by `item`, in
 * order; the array's own problems are reported before its items'.
 */
export const arrayOf = <A, I>(
  item: Schema.Schema<A, I>,
  options: {
    readonly notArray: string;
    readonly allowEmpty?: boolean;
    readonly max?: { readonly count: number; readonly message: string };
  },
) =>
  Schema.compose(
    Schema.Array(Schema.Unknown).annotations({ message: () => options.notArray }).pipe(
      Schema.filter((a) => options.allowEmpty === true || a.length > 0 || options.notArray),
      Schema.filter((a) => options.max === undefined || a.length <= options.max.count || options.max.message),
    ),
    Schema.Array(item),
    { strict: false },
  );
