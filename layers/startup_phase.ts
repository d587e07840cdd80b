/**
 * Start-up is told as phases: one log line when a phase starts, one when it ends (with `ms`), and while it runs
 * a line every few seconds with its progress, so a slow start is never a silent one. Every line carries
 * `phase` (and what the caller annotates, such as `network`).
 */
import { Duration, Effect, Ref } from "effect";

/** What a phase reports while it runs: a short text such as "1,200 of 2,240 blocks". */
export type Progress = Ref.Ref<string | undefined>;

export const heartbeatInterval = Duration.seconds(3);

/**
 * Runs `body` as the phase `name`: logs its start, its progress every `heartbeatInterval` while it runs, and
 * its end with `ms` (or its failure). `body` receives a `Progress` to set.
 */
export const phase = <A, E, R>(
  name: string,
  body: (progress: Progress) => Effect.Effect<A, E, R>,
  annotations: Record<string, unknown> = {},
): Effect.Effect<A, E, R> =>
  Effect.gen(function* () {
    const progress = yield* Ref.make<string | undefined>(undefined);
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    yield* Effect.logInfo(`${name}: started`);
    const heartbeat = Effect.gen(function* () {
      const now = yield* Ref.get(progress);
      yield* Effect.logInfo(`${name}: running${now ? `, ${now}` : ""}`).pipe(
        Effect.annotateLogs({ ms: elapsed(), ...(now ? { progress: now } : {}) }),
      );
    }).pipe(Effect.delay(heartbeatInterval), Effect.forever);
    return yield* Effect.raceFirst(
      body(progress).pipe(
        Effect.tap(() => Effect.logInfo(`${name}: done`).pipe(Effect.annotateLogs({ ms: elapsed() }))),
        Effect.tapErrorCause(() =>
          Effect.logWarning(`${name}: failed`).pipe(Effect.annotateLogs({ ms: elapsed() }))
        ),
      ),
      Effect.as(heartbeat, undefined as never),
    );
  }).pipe(Effect.annotateLogs({ phase: name, ...annotations }));
