/**
 * What a REST program may fail with, and how each failure reaches the wire as the spec's `{error, message}`.
 * Programs fail with these tagged errors; only `toResponse` knows statuses.
 */
import { Data, Effect, Match } from "effect";
import type { Decoded } from "@src/domain/cardano_ids.ts";
import type { DatabaseUnavailable } from "@src/domain/errors.ts";
import type { PriceUnavailable } from "@layers/price_feed.ts";
import { restError } from "@src/server/responses.ts";

/** A parameter the client sent is malformed: 400, naming the parameter and why. */
export class InvalidParameter extends Data.TaggedError("InvalidParameter")<{
  readonly parameter: string;
  readonly reason: string;
}> {}

/** The thing asked for does not exist on this network: 404. */
export class NotFoundError extends Data.TaggedError("NotFoundError")<{ readonly message: string }> {}

/** The node client (an Ogmios upstream) failed or refused: 503 with what it said. */
export class NodeUnavailable extends Data.TaggedError("NodeUnavailable")<{ readonly message: string }> {}

export type RestFailure =
  | InvalidParameter
  | NotFoundError
  | DatabaseUnavailable
  | PriceUnavailable
  | NodeUnavailable;

export const toResponse = (failure: RestFailure): Response =>
  Match.value(failure).pipe(
    Match.tagsExhaustive({
      InvalidParameter: (e) => restError(400, `Invalid ${e.parameter}: ${e.reason}`),
      NotFoundError: (e) => restError(404, e.message),
      DatabaseUnavailable: (e) =>
        restError(503, `The ${e.network} database is unavailable; try again shortly`),
      PriceUnavailable: (e) => restError(503, e.message),
      NodeUnavailable: (e) => restError(503, e.message),
    }),
  );

/** A decoded identifier, or the 400 that names the parameter and says what is wrong with it. */
export const decodedOr = <A>(parameter: string, decoded: Decoded<A>): Effect.Effect<A, InvalidParameter> =>
  decoded.ok
    ? Effect.succeed(decoded.value)
    : Effect.fail(new InvalidParameter({ parameter, reason: decoded.reason }));
