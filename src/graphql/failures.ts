/**
 * What a GraphQL request may fail with, and how each failure reaches the wire as the spec's Hasura-style
 * `{errors: [{message, extensions: {path, code}}]}`. The request reader, the cost walk, the validator, the
 * compiler, the planner's guard and the statement fail with these tags; only `toResponse` knows statuses, codes
 * and the envelope. Database failures are told apart by their SQLSTATE (`fromStatementFailure`).
 */
import type { SqlError } from "@effect/sql/SqlError";
import { Data, Match } from "effect";
import type { Network } from "@schemas/network.ts";
import { DatabaseUnavailable } from "@src/domain/errors.ts";
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

/** Status, errors, and statements issued: a failure of the statement itself counts its one statement. */
const envelope = (failure: GraphqlFailure): readonly [number, ReadonlyArray<GraphqlError>, number] =>
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
    }),
  );

export const toResponse = (failure: GraphqlFailure): Response => {
  const [status, errors, statements] = envelope(failure);
  return graphqlResponse(JSON.stringify({ errors }), status, statements);
};
