/**
 * Keeps the databases' states on the `Dependencies` board current after start-up: one `select 1` per database
 * every second, failing after two, so `/ready` turns 503 within about three seconds of a loss and back to 200
 * within a second of the return, without a query of its own.
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import { Effect, Layer, Option, Schedule } from "effect";
import { ChainDatabases } from "./chain_db.ts";
import { Dependencies } from "./dependencies.ts";
import { ServiceDatabase } from "./service_db.ts";

const probeEvery = "1 second";
const probeTimeout = "2 seconds";

export const DependencyMonitorLive: Layer.Layer<never, never, ChainDatabases | ServiceDatabase> = Layer
  .scopedDiscard(
    Effect.gen(function* () {
      const found = yield* Effect.serviceOption(Dependencies);
      if (Option.isNone(found)) return;
      const board = found.value;
      const chains = yield* ChainDatabases;
      const service = yield* ServiceDatabase;
      const probe = (name: string, sql: SqlClient) =>
        sql`select 1`.pipe(
          Effect.timeoutFail({ duration: probeTimeout, onTimeout: () => new Error(`no answer within 2 s`) }),
          Effect.match({
            onFailure: (e) => board.set(name, "down", e.message),
            onSuccess: () => board.set(name, "ok"),
          }),
        );
      const targets = [
        ...chains.all.map((c) => [`${c.network} chain database`, c.sql] as const),
        ["service database", service.sql] as const,
      ];
      for (const [name, sql] of targets) {
        board.set(name, "ok");
        yield* Effect.forkScoped(Effect.repeat(probe(name, sql), Schedule.spaced(probeEvery)));
      }
    }),
  );
