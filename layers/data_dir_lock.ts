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

/**
 * Takes `DATA_DIR/.lock` for the life of the process (or until `release`). Throws `DataDirLocked` naming the
 * holder when another live process has it.
 */
export const lockDataDir = async (dataDir: string): Promise<{ readonly release: () => void }> => {
  await makePrivateDir(dataDir);
  const path = join(dataDir, lockFileName);
  const file = await Deno.open(path, { read: true, write: true, create: true, mode: 0o600 });
  if (!(await file.tryLock(true))) {
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
