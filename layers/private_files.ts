/**
 * Files holding data are private to the user running the service. The process umask (0077) covers what is
 * created through it, but PGlite's file system creates its files with an explicit mode 0666 (Deno's `node:fs`
 * applies such a mode as given), so the embedded databases' directories are also made private after they are
 * opened: directories 0700, files and sockets 0600. A directory 0700 keeps out whatever PGlite creates later.
 */
import process from "node:process";
import { join } from "node:path";

/** Sets the process umask to 0077 (new files 0600, new directories 0700). */
export const restrictUmask = (): void => {
  process.umask(0o077);
};

/** Creates a directory (and its parents) owner-only, and makes it 0700 if it already existed. */
export const makePrivateDir = async (path: string): Promise<void> => {
  await Deno.mkdir(path, { recursive: true, mode: 0o700 });
  await Deno.chmod(path, 0o700);
};

/** Makes everything under `path` (itself included) owner-only: directories 0700, everything else 0600. */
export const makePrivateTree = async (path: string): Promise<void> => {
  const info = await Deno.lstat(path);
  if (info.isSymlink) return;
  if (!info.isDirectory) {
    if (((info.mode ?? 0) & 0o077) !== 0) await Deno.chmod(path, 0o600);
    return;
  }
  if (((info.mode ?? 0) & 0o777) !== 0o700) await Deno.chmod(path, 0o700);
  for await (const entry of Deno.readDir(path)) {
    // a file may vanish while we walk (PGlite removes temporary files): nothing left to protect
    await makePrivateTree(join(path, entry.name)).catch((e) => {
      if (!(e instanceof Deno.errors.NotFound)) throw e;
    });
  }
};
