/**
 * Getting an embedded PGlite directory ready before it is opened for serving: created (initdb) and, for a chain
 * database, seeded with the demo chain on first start. Both are long synchronous wasm work, so they run in a
 * one-shot Web Worker (`embedded_prepare_worker.ts`): the main thread keeps logging progress, two networks prepare on
 * two cores at once, and the memory seeding grew is released when the worker ends. Opening a prepared
 * directory is quick.
 */
import { Data, Effect } from "effect";
import type { Network } from "@schemas/network.ts";
import { join } from "node:path";
import type { PrepareMessage, PrepareRequest } from "./embedded_prepare_worker.ts";

/** Mirrors `preparedMarker` of the worker (imported from there, its module would start listening here). */
const preparedMarker = ".cds-prepared";

/** True when a worker has prepared `dataDir` before: it can be opened directly. */
export const isPrepared = (dataDir: string): Promise<boolean> =>
  Deno.stat(join(dataDir, preparedMarker)).then(() => true, () => false);

export class PrepareError extends Data.TaggedError("PrepareError")<{ readonly message: string }> {}

export type Prepared = Extract<PrepareMessage, { type: "done" }>["seeded"];

/**
 * Prepares `dataDir` (seeding `network`'s demo chain when it holds none; null = only create it). `onSeeding`
 * is called when seeding begins, `onProgress` with how far it is.
 */
export const prepareEmbedded = (
  dataDir: string,
  network: Network | null,
  onProgress: (text: string) => void = () => {},
  onSeeding: () => void = () => {},
): Effect.Effect<Prepared, PrepareError> =>
  Effect.acquireUseRelease(
    Effect.sync(() =>
      new Worker(new URL("./embedded_prepare_worker.ts", import.meta.url), { type: "module" })
    ),
    (worker) =>
      Effect.async<Prepared, PrepareError>((resume) => {
        worker.onmessage = (event: MessageEvent<PrepareMessage>) => {
          const message = event.data;
          if (message.type === "progress") onProgress(message.text);
          else if (message.type === "seeding") onSeeding();
          else if (message.type === "done") resume(Effect.succeed(message.seeded));
          else resume(Effect.fail(new PrepareError({ message: message.message })));
        };
        worker.onerror = (event) => {
          event.preventDefault();
          resume(Effect.fail(new PrepareError({ message: event.message })));
        };
        worker.postMessage({ dataDir, network } satisfies PrepareRequest);
      }),
    (worker) => Effect.sync(() => worker.terminate()),
  );
