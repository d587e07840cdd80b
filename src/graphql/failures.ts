/**
 * What a GraphQL request may fail with, and how each failure reaches the wire as the spec's Hasura-style
 * `{errors: [{message, extensions: {path, code}}]}`. The request reader, the cost walk, the validator, the
 * compiler, the planner's guard and the statement fail with these tags, and the router refuses GraphQL requests
 * with the front door's refusals (src/http/refusal.ts: key, limits, address throttle, key store); only
 * `toResponse` knows statuses, codes and the envelope. Database failures are told apart by their SQLSTATE
 * (`fromStatementFailure`).
 */
import type { SqlError } from "@effect/sql/SqlError";
import { Data, Match } from "effect";
import { type AccessDenied, insufficientCredits, keyRequired } from "@layers/access.ts";
import type { Network } from "@schemas/network.ts";
import { DatabaseUnavailable } from "@src/domain/errors.ts";
import { keyStoreDownMessage, type Refusal, throttledMessage } from "@src/http/refusal.ts";
import { rateLimitHeaders, retryAfterSeconds } from "@src/http/rate_limit_headers.ts";
import { graphqlResponse } from "./answer.ts";
import { type GraphqlError, graphqlError } from "./errors.ts";

/** The body is not a GraphQL request (not JSON, not an object with a string `query`...): HTTP 400. */
export class RequestMalformed extends Data.TaggedError("RequestMalformed")<{
  readonly message: string;
  readonly path: string;
  readonly code: "invalid-json" | "parse-failed" | "bad-request";
}> {}

/** The body is over the size limit: HTTP 413. */
export class BodyTooLarge extends Data.TaggedError("BodyTooLarge")<{ readonly message: string }> {}

/** One thing wrong with the query, and where in the request it is. */
export interface Issue {
  readonly message: string;
  readonly path: string;
}

/**
 * The query does not parse, names no operation to run, does not validate against the schema, its variables do
 * not coerce, or its introspection fails: every issue found.
 */
export class QueryInvalid extends Data.TaggedError("QueryInvalid")<{
  readonly code: "parse-failed" | "validation-failed";
  readonly issues: ReadonlyArray<Issue>;
}> {}

/**
 * The compiler refuses the query (a limit out of range, an unknown field or operator...). Thrown inside the
 * recursive compile walk and failed with at its boundary (execute.ts), never escaping as a defect.
 */
export class QueryRejected extends Data.TaggedError("QueryRejected")<Issue> {
  constructor(message: string, path: string) {
    super({ message, path });
  }
}

/** The query's cost (rows, field values, selections, depth, root fields, introspection) is over the tier's budget. */
export class CostOverBudget extends Data.TaggedError("CostOverBudget")<Issue> {
  constructor(message: string, path: string) {
    super({ message, path });
  }
}

/** The planner judges a filter on a chain-sized table unselective, or the reads too costly (plan_guard.ts). */
export class StatementRefused extends Data.TaggedError("StatementRefused")<Issue> {}

/** PostgreSQL refused a value the query carries (SQLSTATE class 22, such as 2026-02-30): the query's fault. */
export class ValueRefused extends Data.TaggedError("ValueRefused")<{ readonly detail: string }> {}

/** The statement ran past the statement timeout and was cancelled (SQLSTATE 57014). */
export class StatementTimeout extends Data.TaggedError("StatementTimeout")<{ readonly timeoutMs: number }> {}

export type GraphqlFailure =
  | RequestMalformed
  | BodyTooLarge
  | QueryInvalid
  | QueryRejected
  | CostOverBudget
  | StatementRefused
  | ValueRefused
  | StatementTimeout
  | DatabaseUnavailable;

/** The SQLSTATE PostgreSQL (or PGlite) gave the failed statement, when the driver kept it. */
const sqlState = (e: SqlError): string | undefined => {
  const code = (e.cause as { code?: unknown } | undefined)?.code;
  return typeof code === "string" ? code : undefined;
};

/**
 * A failed statement as the query's fault (class 22: data exception), a timeout (57014: query_canceled, which
 * the statement timeout raises), or the database's: connection classes 08 and 57P0x, and anything else a query
 * the compiler wrote cannot cause.
 */
export const fromStatementFailure =
  (network: Network, timeoutMs: number) =>
  (e: SqlError): ValueRefused | StatementTimeout | DatabaseUnavailable => {
    const state = sqlState(e);
    if (state === "57014") return new StatementTimeout({ timeoutMs });
    if (state?.startsWith("22")) {
      return new ValueRefused({ detail: String((e.cause as { message?: unknown }).message) });
    }
    return new DatabaseUnavailable({ network, message: e.message });
  };

const one = (message: string, path: string, code: string): ReadonlyArray<GraphqlError> => [
  graphqlError(message, path, code),
];

/** A refused key's code: what a client branches on (the message says which key problem or which budget). */
const accessCode = (d: AccessDenied): string =>
  d.status === 429
    ? d.limit?.exceeded === "daily" ? "daily-quota-exceeded" : "rate-limit-exceeded"
    : d.status === 403
    ? "access-denied"
    : d.message === keyRequired
    ? "api-key-required"
    : d.message === insufficientCredits
    ? "insufficient-credits"
    : "invalid-api-key";

/** The access signals REST's access envelope carries, on the errors array too. */
const accessHeaders = (d: AccessDenied): Record<string, string> => ({
  ...rateLimitHeaders(d.limit),
  ...(d.status === 429 && d.limit ? { "retry-after": retryAfterSeconds(d.limit.resetMs) } : {}),
  ...(d.status === 401 ? { "www-authenticate": 'apikey realm="cardano-data-service"' } : {}),
});

/**
 * Status, errors, statements issued (a failure of the statement itself counts its one statement), and the
 * headers a refusal carries.
 */
const envelope = (
  failure: GraphqlFailure | Refusal,
): readonly [number, ReadonlyArray<GraphqlError>, number, Record<string, string>?] =>
  Match.value(failure).pipe(
    Match.tagsExhaustive({
      RequestMalformed: (e) => [400, one(e.message, e.path, e.code), 0] as const,
      BodyTooLarge: (e) => [413, one(e.message, "$", "body-too-large"), 0] as const,
      QueryInvalid: (e) => [200, e.issues.map((i) => graphqlError(i.message, i.path, e.code)), 0] as const,
      QueryRejected: (e) => [200, one(e.message, e.path, "validation-failed"), 0] as const,
      CostOverBudget: (e) => [200, one(e.message, e.path, "validation-failed"), 0] as const,
      StatementRefused: (e) => [200, one(e.message, e.path, "validation-failed"), 0] as const,
      ValueRefused: (e) =>
        [200, one(`a value was refused: ${e.detail}`, "$", "validation-failed"), 1] as const,
      StatementTimeout: (e) =>
        [
          200,
          one(
            `the query ran longer than ${e.timeoutMs / 1000} s and was cancelled: filter on indexed ` +
              `columns or ask for fewer rows`,
            "$",
            "statement-timeout",
          ),
          1,
        ] as const,
      // an outage, not the query's fault: 503 with the errors array
      DatabaseUnavailable: () =>
        [503, one("the chain database could not answer; try again shortly", "$", "unexpected"), 1] as const,
      // refused at the door, before the query is read: the same statuses and messages as REST's access envelope
      AccessDenied: (e) => [e.status, one(e.message, "$", accessCode(e)), 0, accessHeaders(e)] as const,
      AuthThrottled: (e) => {
        const seconds = retryAfterSeconds(e.waitMs);
        const errors = one(throttledMessage(seconds), "$", "too-many-auth-failures");
        return [429, errors, 0, { "retry-after": seconds }] as const;
      },
      KeyStoreUnavailable: () => [503, one(keyStoreDownMessage, "$", "key-store-unavailable"), 0] as const,
    }),
  );

export const toResponse = (failure: GraphqlFailure | Refusal): Response => {
  const [status, errors, statements, headers] = envelope(failure);
  const response = graphqlResponse(JSON.stringify({ errors }), status, statements);
  for (const [name, value] of Object.entries(headers ?? {})) response.headers.set(name, value);
  return response;
};
