/**
 * How every GraphQL answer goes out, `{data}` or `{errors}` alike: JSON, never cached, and `X-SQL-Statements`
 * saying how many statements the request issued.
 */
import { responseWith } from "@src/http/response_headers.ts";

export const graphqlResponse = (body: string, status: number, statements: number): Response =>
  responseWith(body, status, "application/json; charset=utf-8", {
    "cache-control": "no-store",
    "x-sql-statements": String(statements),
  });
