/**
 * What a REST program may fail with, and how each failure reaches the wire as the spec's `{error, message}`.
 * Programs fail with the tagged errors of src/domain/errors.ts; only `toResponse` knows statuses.
 */
import { Match } from "effect";
import type {
  DatabaseUnavailable,
  InvalidParameter,
  NodeUnavailable,
  NotFoundError,
  PriceUnavailable,
} from "@src/domain/errors.ts";
import { restError } from "@src/server/responses.ts";

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
