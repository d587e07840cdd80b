/**
 * Getting an embedded PGlite directory ready before it is opened for serving: created and, for a chain
 * database, seeded with the demo chain on first start. Creating a database (PGlite's initdb) takes seconds of
 * synchronous wasm and about 700 MB that the process keeps, so it is done once per start in a one-shot Web
 * Worker, into a template directory that each new database is copied from. Seeding runs in a worker of its own
 * (`embedded_prepare_worker.ts`): the main thread keeps logging progress, the two networks seed on two cores
 * at once, and what seeding grew goes away with the worker. A prepared directory is marked, so later starts
 * open it directly.
 */
import { Data, Effect } from "effect";
import type { Network } from "@schemas/network.ts";
import { dirname, join } from "node:path";
import type { PrepareMessage, PrepareRequest } from "./embedded_prepare_worker.ts";

const preparedMarker = ".cds-prepared";

const exists = (path: string) => Deno.stat(path).then(() => true, () => false);

/** True when `dataDir` has been prepared before: it can be opened directly. */
export const isPrepared = (dataDir: string): Promise<boolean> => exists(join(dataDir, preparedMarker));

export class PrepareError extends Data.TaggedError("PrepareError")<{ readonly message: string }> {}

export type Prepared = Extract<PrepareMessage, { type: "done" }>["seeded"];

const failure = (what: string) => (cause: unknown) =>
  new PrepareError({ message: `${what}: ${cause instanceof Error ? cause.message : String(cause)}` });

/** Runs one request in a fresh worker, which ends with it. */
const inWorker = (
  request: PrepareRequest,
  onProgress: (text: string) => void,
  onSeeding: () => void,
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
        worker.postMessage(request);
      }),
    (worker) => Effect.sync(() => worker.terminate()),
  );

interface Template {
  readonly path: string;
  readonly ready: Promise<void>;
  users: number;
}

/** The template being shared, per parent directory; removed when its last user is done. */
const templates = new Map<string, Template>();

/** Templates left by a start that was killed while preparing (none is in use: DATA_DIR is locked). */
const removeStaleTemplates = async (parent: string) => {
  for await (const entry of Deno.readDir(parent)) {
    if (entry.name.startsWith(".initdb-")) await Deno.remove(join(parent, entry.name), { recursive: true });
  }
};

const acquireTemplate = (parent: string) =>
  Effect.tryPromise({
    try: async (): Promise<Template> => {
      const template: Template = templates.get(parent) ?? (() => {
        const path = join(parent, `.initdb-${Deno.pid}-${crypto.randomUUID().slice(0, 8)}`);
        const created: Template = {
          path,
          ready: removeStaleTemplates(parent).then(async () => {
            await Effect.runPromise(inWorker({ dataDir: path, network: null }, () => {}, () => {}));
          }),
          users: 0,
        };
        templates.set(parent, created);
        return created;
      })();
      template.users++;
      try {
        await template.ready;
      } catch (error) {
        releaseTemplate(parent, template);
        throw error;
      }
      return template;
    },
    catch: failure("cannot create a database"),
  });

const releaseTemplate = (parent: string, template: Template) => {
  if (--template.users > 0) return;
  if (templates.get(parent) === template) templates.delete(parent);
  Deno.remove(template.path, { recursive: true }).catch(() => {});
};

/** Copies a closed database directory; PG_VERSION last, so its presence means the copy is whole. */
const copyCluster = async (from: string, to: string, top = true): Promise<void> => {
  await Deno.mkdir(to, { recursive: true, mode: 0o700 });
  for await (const entry of Deno.readDir(from)) {
    if (top && entry.name === "PG_VERSION") continue;
    const [source, target] = [join(from, entry.name), join(to, entry.name)];
    if (entry.isDirectory) await copyCluster(source, target, false);
    else if (entry.isFile) await Deno.copyFile(source, target);
  }
  if (top) await Deno.copyFile(join(from, "PG_VERSION"), join(to, "PG_VERSION"));
};

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
  Effect.gen(function* () {
    if (!(yield* Effect.promise(() => exists(join(dataDir, "PG_VERSION"))))) {
      onProgress("creating the database");
      const parent = dirname(dataDir);
      yield* Effect.acquireUseRelease(
        acquireTemplate(parent),
        (template) =>
          Effect.tryPromise({
            try: () => copyCluster(template.path, dataDir),
            catch: failure(`cannot create ${dataDir}`),
          }),
        (template) => Effect.sync(() => releaseTemplate(parent, template)),
      );
    }
    const seeded = network === null ? null : yield* inWorker({ dataDir, network }, onProgress, onSeeding);
    yield* Effect.tryPromise({
      try: () => Deno.writeTextFile(join(dataDir, preparedMarker), new Date().toISOString() + "\n"),
      catch: failure(`cannot mark ${dataDir} prepared`),
    });
    return seeded;
  });
