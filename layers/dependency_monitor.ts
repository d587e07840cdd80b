/**
 * Keeps the PostgreSQL databases' states on the `Dependencies` board current after start-up: one `select 1` per
 * database every second, failing after two, so `/ready` turns 503 within about three seconds of a loss and back
 * to 200 within a second of the return, without a query of its own. Each probe has a connection of its own, so a
 * busy pool under load is not mistaken for a lost server. Embedded PGlite databases live in the process: they
 * cannot be lost, and a probe would only queue behind their one session.
 */
import { Effect, Layer, Option, Redacted, Schedule } from "effect";
import pg from "pg";
import { networks } from "@schemas/network.ts";
import { AppConfig } from "./config.ts";
import { Dependencies } from "./dependencies.ts";

const probeEveryMs = 1_000;
const probeTimeoutMs = 2_000;

const describe = (cause: unknown) => cause instanceof Error ? cause.message || cause.name : String(cause);

export const DependencyMonitorLive: Layer.Layer<never, never, AppConfig> = Layer.scopedDiscard(
  Effect.gen(function* () {
    const found = yield* Effect.serviceOption(Dependencies);
    if (Option.isNone(found)) return;
    const board = found.value;
    const config = yield* AppConfig;
    const targets = [
      // a database given as several URLs posts its own state (chain_replicas.ts): in use while one member is
      ...networks.map((n) => {
        const urls = config.networks[n].databaseUrls;
        return [`${n} chain database`, urls.length === 1 ? Option.some(urls[0]!) : Option.none()] as const;
      }),
      ["service database", config.serviceDatabaseUrl] as const,
    ].flatMap(([name, url]) => Option.isSome(url) ? [[name, Redacted.value(url.value)] as const] : []);
    for (const [name, url] of targets) {
      const pool = yield* Effect.acquireRelease(
        Effect.sync(() => {
          const p = new pg.Pool({
            connectionString: url,
            max: 1,
            connectionTimeoutMillis: probeTimeoutMs,
            application_name: "cardano-data-service/probe",
          });
          p.on("error", () => {});
          return p;
        }),
        (p) => Effect.promise(() => p.end().catch(() => {})),
      );
      // start-up reports its own waiting (dependencies.ts `waitFor`); the probes take over once it is done
      const probe = Effect.tryPromise(() => pool.query("select 1")).pipe(
        Effect.timeoutFail({
          duration: probeTimeoutMs,
          onTimeout: () => new Error(`no answer within ${probeTimeoutMs / 1000} s`),
        }),
        Effect.match({
          onFailure: (e) => board.set(name, "down", describe(e instanceof Error && e.cause ? e.cause : e)),
          onSuccess: () => board.set(name, "ok"),
        }),
      );
      const whenStarted = Effect.suspend(() => board.started() ? probe : Effect.void);
      yield* Effect.forkScoped(Effect.repeat(whenStarted, Schedule.spaced(probeEveryMs)));
    }
  }),
);
