/**
 * Opening an embedded PGlite database with the value contract of `sql_types.ts`: used by the workers that hold a
 * database (`pglite_worker.ts`, `embedded_prepare_worker.ts`) and by `sql_pglite.ts`, so a worker loads no
 * SqlClient of its own.
 */
import { PGlite } from "@electric-sql/pglite";
import { textParsers } from "./sql_types.ts";

export interface PgliteOpenOptions {
  /**
   * PostgreSQL's `shared_buffers` (e.g. "32MB"); PGlite's default is 128MB, all of it resident once opened.
   * Its files are read through the OS page cache, so a small pool costs little for our data sizes.
   */
  readonly sharedBuffers?: string;
}

/** Opens (creating on first use) a PGlite database with our parsers. */
export const openPglite = (dataDir?: string, o: PgliteOpenOptions = {}): Promise<PGlite> =>
  PGlite.create({
    dataDir,
    parsers: textParsers,
    ...(o.sharedBuffers
      ? { startParams: [...PGlite.defaultStartParams, "-c", `shared_buffers=${o.sharedBuffers}`] }
      : {}),
  });
