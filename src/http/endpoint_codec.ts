/**
 * What every dialect does with an endpoint declared as an `HttpApiEndpoint` (schemas/api.ts,
 * schemas/blockfrost/): its path and query decoded once with the endpoint's own Schemas (the first issue an
 * `InvalidParameter`, which each dialect's mapper turns into its 400), and its program's value encoded with the
 * endpoint's success Schema into a conditional JSON answer, or its failure answered through the dialect's mapper.
 */
import type * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint";
import { Effect, Either, type Option, Schema } from "effect";
import type { InvalidParameter } from "@src/domain/errors.ts";
import { answerEncoded, type EncodedJson, encodedJson } from "./conditional_json.ts";
import { decodeParameters } from "./decode_parameters.ts";
import type { RequestInput, Route } from "./route.ts";

type E = HttpApiEndpoint.HttpApiEndpoint.Any;
export type PathOf<X extends E> = HttpApiEndpoint.HttpApiEndpoint.PathParsed<X>;
export type QueryOf<X extends E> = HttpApiEndpoint.HttpApiEndpoint.UrlParams<X>;
export type SuccessOf<X extends E> = HttpApiEndpoint.HttpApiEndpoint.Success<X>;

/** An endpoint's parameters, decoded once: what the access check judged is what the program gets. */
export interface Decoded<P, Q> {
  readonly path: P;
  readonly query: Q;
}

export interface EndpointCodec<P, Q, A> {
  readonly method: Route["method"];
  /** The endpoint's path as declared (`:name` segments). */
  readonly path: string;
  readonly decode: (request: RequestInput) => Either.Either<Decoded<P, Q>, InvalidParameter>;
  /**
   * The program's value as conditional JSON with `headers`, or its failure through `toResponse`: a route's
   * answer never fails. `keep` receives a value with its encoded answer (to answer the next request from it).
   */
  readonly answer: <F, R>(
    request: Request,
    program: Effect.Effect<A, F, R>,
    headers: (value: A) => Record<string, string>,
    toResponse: (failure: F) => Response,
    keep?: (answer: EncodedJson, value: A) => void,
  ) => Effect.Effect<Response, never, R>;
}

/**
 * Decoded parameters kept per endpoint by their text: clients ask the same few things again and again (a cached
 * answer's request is mostly its Schema decode: 3 KB of garbage and most of its CPU), and decoding is pure.
 * Bounded: emptied when full; long inputs are decoded every time.
 */
const keptDecodings = 512;
const maxKeyLength = 512;

/** The parameters as one unambiguous text, or undefined when too long to keep. */
const decodingKey = (params: Readonly<Record<string, string>>, query: Readonly<Record<string, string>>) => {
  const key = JSON.stringify(params) + JSON.stringify(query);
  return key.length > maxKeyLength ? undefined : key;
};

export const endpointCodec = <X extends E>(
  endpoint: X,
): EndpointCodec<PathOf<X>, QueryOf<X>, SuccessOf<X>> => {
  const e = endpoint as unknown as HttpApiEndpoint.HttpApiEndpoint<
    string,
    "GET",
    PathOf<X>,
    QueryOf<X>,
    never,
    never,
    SuccessOf<X>
  >;
  const encode = Schema.encodeSync(e.successSchema as unknown as Schema.Schema<SuccessOf<X>, unknown>);
  const pathSchema = e.pathSchema as Option.Option<Schema.Schema<PathOf<X>, unknown>>;
  const querySchema = e.urlParamsSchema as Option.Option<Schema.Schema<QueryOf<X>, unknown>>;
  const decoded = new Map<string, Either.Either<Decoded<PathOf<X>, QueryOf<X>>, InvalidParameter>>();
  const decodeAfresh = (request: RequestInput) => {
    const path = decodeParameters(pathSchema, request.params, "path");
    if (Either.isLeft(path)) return Either.left(path.left);
    const query = decodeParameters(querySchema, request.query, "query");
    if (Either.isLeft(query)) return Either.left(query.left);
    return Either.right({ path: path.right, query: query.right });
  };
  return {
    method: e.method,
    path: e.path,
    decode: (request) => {
      const key = decodingKey(request.params, request.query);
      if (key === undefined) return decodeAfresh(request);
      let result = decoded.get(key);
      if (result === undefined) {
        result = decodeAfresh(request);
        if (decoded.size >= keptDecodings) decoded.clear();
        decoded.set(key, result);
      }
      return result;
    },
    answer: (request, program, headers, toResponse, keep) =>
      program.pipe(
        Effect.map((value) => {
          const answer = encodedJson(encode(value), headers(value));
          keep?.(answer, value);
          return answerEncoded(request, answer);
        }),
        Effect.catchAll((failure) => Effect.succeed(toResponse(failure))),
      ),
  };
};
