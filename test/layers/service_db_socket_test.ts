/**
 * The embedded service database's socket serves several connections at once without mixing their statements:
 * two clients running parameterized statements (extended protocol) concurrently each get their own answers,
 * with no `unnamed prepared statement does not exist` (layers/pglite_socket_exchanges.ts).
 */
import assert from "node:assert/strict";
import * as Reactivity from "@effect/experimental/Reactivity";
import { Effect, Exit, Logger, Scope } from "effect";
import { openAndServe, socketUrl } from "@layers/embedded_service_db.ts";
import { makePgSqlClient } from "@layers/sql_pg.ts";
import { join } from "node:path";

Deno.test({
  name: "embedded service database: concurrent connections keep their statements apart",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const root = await Deno.makeTempDir({ prefix: "cds-socket-" });
    const scope = Effect.runSync(Scope.make());
    const run = <A, E>(e: Effect.Effect<A, E, Scope.Scope | Reactivity.Reactivity>) =>
      Effect.runPromise(
        e.pipe(
          Scope.extend(scope),
          Effect.provide(Reactivity.layer),
          Effect.provide(Logger.remove(Logger.defaultLogger)),
        ),
      );
    try {
      const directory = join(root, "service");
      await run(openAndServe(directory));
      const clients = await Promise.all(
        [1, 2, 3].map(() => run(makePgSqlClient({ url: socketUrl(directory), maxConnections: 2 }))),
      );
      // statements of different shapes (parameter order, transactions), as the service's own mix is
      const statement = (c: number, i: number) => {
        const sql = clients[c]!;
        const text = `client ${c}`;
        return c === 0
          ? sql<{ n: number; text: string }>`select ${i}::int as n, ${text}::text as text`
          : c === 1
          ? sql<{ n: number; text: string }>`select ${text}::text as text, ${i}::int as n`
          : sql.withTransaction(
            sql<{ n: number; text: string }>`select ${i}::int as n, ${text}::text as text`,
          );
      };
      const answers = await Promise.all(
        clients.flatMap((_, c) =>
          Array.from(
            { length: 150 },
            (_, i) => Effect.runPromise(Effect.either(statement(c, i))).then((r) => ({ c, i, r })),
          )
        ),
      );
      const wrong = answers.filter(({ c, i, r }) =>
        r._tag === "Left" || r.right[0]?.n !== i || r.right[0]?.text !== `client ${c}`
      );
      assert.deepEqual(
        wrong.slice(0, 3).map((
          { r },
        ) => (r._tag === "Left" ? r.left.message + ": " + String(r.left.cause) : r.right)),
        [],
      );
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void));
      await Deno.remove(root, { recursive: true });
    }
  },
});
