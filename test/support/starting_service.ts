/**
 * A service that is still starting, held at that point until told to go on, for tests of the CLIs meanwhile:
 * it takes DATA_DIR's lock as `npm start` does (layers/data_dir_lock.ts) and prints `locked`; on a `serve` line on
 * stdin it creates, serves and migrates the embedded service database as the service's start-up does
 * (layers/service_db.ts) and prints `serving`; it runs until stdin closes or it is killed.
 *
 *   deno run -A test/support/starting_service.ts DATA_DIR
 */
import * as Reactivity from "@effect/experimental/Reactivity";
import { Effect, Exit, Logger, Scope } from "effect";
import { join } from "node:path";
import { lockDataDir } from "@layers/data_dir_lock.ts";
import { openAndServe } from "@layers/embedded_service_db.ts";
import { loadMigrations, migrate } from "@layers/service_db.ts";

const dataDir = Deno.args[0]!;
await lockDataDir(dataDir);
console.log("locked");
const scope = Effect.runSync(Scope.make());
const lines = Deno.stdin.readable.pipeThrough(new TextDecoderStream());
let buffer = "";
for await (const chunk of lines) {
  buffer += chunk;
  if (!buffer.includes("serve\n")) continue;
  buffer = "";
  await Effect.runPromise(
    Effect.gen(function* () {
      const sql = yield* openAndServe(join(dataDir, "service"));
      yield* migrate(sql, yield* loadMigrations());
    }).pipe(
      Scope.extend(scope),
      Effect.provide(Reactivity.layer),
      Effect.provide(Logger.remove(Logger.defaultLogger)),
    ),
  );
  console.log("serving");
}
await Effect.runPromise(Scope.close(scope, Exit.void));
