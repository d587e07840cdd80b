/**
 * One service process per `DATA_DIR`: the embedded databases must not be opened twice. The process takes an
 * exclusive OS lock on `DATA_DIR/.lock` without waiting and writes who it is there (pid, start time, host); a
 * second process fails at once with a line naming the holder. The OS drops the lock when its holder dies, so a
 * lock file left by a dead process is simply taken over.
 */
import { hostname } from "node:os";
import { join } from "node:path";
import { makePrivateDir } from "./private_files.ts";

export const lockFileName = ".lock";

export interface LockHolder {
  readonly pid: number;
  readonly startedAt: string;
  readonly host: string;
}

export class DataDirLocked extends Error {
  override readonly name = "DataDirLocked";
}

const describeHolder = (text: string): string => {
  try {
    const h = JSON.parse(text) as Partial<LockHolder>;
    if (typeof h.pid === "number") {
      return `process ${h.pid}${h.host ? ` on ${h.host}` : ""}${
        h.startedAt ? `, started ${h.startedAt}` : ""
      }`;
    }
  } catch {
    // a holder still writing its line, or a file from an older version: say what we know
  }
  return "another process (it has not said who it is)";
};

/** Tries the lock a few times over ~0.1 s: a CLI checking whether a service runs (`lockHolder`) takes it a moment. */
const tryLockBriefly = async (file: Deno.FsFile): Promise<boolean> => {
  for (let attempt = 0; attempt < 5; attempt++) {
    if (await file.tryLock(true)) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
};

/**
 * Takes `DATA_DIR/.lock` for the life of the process (or until `release`). Throws `DataDirLocked` naming the
 * holder when another live process has it.
 */
export const lockDataDir = async (dataDir: string): Promise<{ readonly release: () => void }> => {
  await makePrivateDir(dataDir);
  const path = join(dataDir, lockFileName);
  const file = await Deno.open(path, { read: true, write: true, create: true, mode: 0o600 });
  if (!(await tryLockBriefly(file))) {
    file.close();
    const holder = await Deno.readTextFile(path).catch(() => "");
    throw new DataDirLocked(
      `DATA_DIR ${dataDir} is in use by ${describeHolder(holder)}; stop it or choose another DATA_DIR`,
    );
  }
  const me: LockHolder = { pid: Deno.pid, startedAt: new Date().toISOString(), host: hostname() };
  await file.truncate(0);
  await file.write(new TextEncoder().encode(JSON.stringify(me) + "\n"));
  return {
    release: () => {
      try {
        file.unlockSync();
        file.close();
      } catch {
        // already released
      }
    },
  };
};

/**
 * Who holds `DATA_DIR/.lock`, for tools that must tell a running (or still starting) service from none: undefined
 * when nobody does. Checking takes the lock for an instant when it is free; creates nothing.
 */
export const lockHolder = async (dataDir: string): Promise<Partial<LockHolder> | undefined> => {
  const path = join(dataDir, lockFileName);
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { read: true });
  } catch {
    return undefined; // no lock file: no service has run here
  }
  try {
    if (await file.tryLock(true)) {
      await file.unlock();
      return undefined;
    }
  } finally {
    file.close();
  }
  try {
    const holder = JSON.parse(await Deno.readTextFile(path)) as Partial<LockHolder>;
    return typeof holder === "object" && holder !== null ? holder : {};
  } catch {
    return {}; // a holder still writing its line
  }
};
