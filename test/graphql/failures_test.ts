/**
 * How a failed GraphQL statement is classified: by its SQLSTATE (the driver's `code`), never by its message, and
 * what each class answers on the wire.
 */
import assert from "node:assert/strict";
import { SqlError } from "@effect/sql/SqlError";
import { fromStatementFailure, toResponse } from "@src/graphql/failures.ts";

const failed = (code: string | undefined, message: string) =>
  fromStatementFailure("mainnet", 4_000)(
    new SqlError({ cause: Object.assign(new Error(message), { code }) }),
  );

const answer = async (response: Response) => ({
  status: response.status,
  statements: response.headers.get("x-sql-statements"),
  body: await response.json(),
});

Deno.test("57014 is the statement timeout, whatever its message says", async () => {
  for (const message of ["canceling statement due to statement timeout", "canceling statement"]) {
    const failure = failed("57014", message);
    assert.equal(failure._tag, "StatementTimeout");
    const { status, statements, body } = await answer(toResponse(failure));
    assert.equal(status, 200);
    assert.equal(statements, "1");
    assert.deepEqual(body.errors[0].extensions, { path: "$", code: "statement-timeout" });
    assert.match(body.errors[0].message, /^the query ran longer than 4 s and was cancelled/);
  }
});

Deno.test("class 22 (a data exception) is the query's fault, with PostgreSQL's words", async () => {
  const failure = failed("22008", 'date/time field value out of range: "2026-02-30"');
  assert.equal(failure._tag, "ValueRefused");
  const { status, body } = await answer(toResponse(failure));
  assert.equal(status, 200);
  assert.deepEqual(body.errors, [{
    message: 'a value was refused: date/time field value out of range: "2026-02-30"',
    extensions: { path: "$", code: "validation-failed" },
  }]);
});

Deno.test("connection classes, shutdowns and anything else are the database's: 503 unexpected", async () => {
  for (const code of ["08006", "57P01", "57P03", "53300", "ECONNREFUSED", undefined]) {
    const failure = failed(code, "statement timeout mentioned in a message is not a timeout");
    assert.equal(failure._tag, "DatabaseUnavailable", String(code));
    const { status, body } = await answer(toResponse(failure));
    assert.equal(status, 503);
    assert.deepEqual(body.errors[0].extensions, { path: "$", code: "unexpected" });
  }
});
