/**
 * The CLIs work on the service's own DATA_DIR. Run from the wrong directory, they used to create an empty
 * `./data/service` (or a wallet seed nobody funds) without a word; now a directory that holds no service
 * database is refused unless `--init` says to start one there. A directory a running service holds (its
 * `.lock`) is never refused that way: the service is still starting and creating it, so the CLI waits for it
 * (`--wait SECONDS`, 120 by default), then works, or says to try again.
 */
import { join, resolve } from "node:path";
import process from "node:process";
import { type LockHolder, lockHolder } from "@layers/data_dir_lock.ts";

const exists = (path: string) => Deno.stat(path).then(() => true, () => false);

/** True when `dataDir` holds an embedded service database (the service or the keys CLI created it). */
export const holdsServiceDatabase = (dataDir: string): Promise<boolean> =>
  exists(join(dataDir, "service", "PG_VERSION"));

/**
 * True when a service has run on `dataDir`: it holds the service database, an embedded chain database (the
 * devnet's; with SERVICE_DATABASE_URL set there is no service database here) or the devnet's wallet seed.
 */
export const holdsServiceData = async (dataDir: string): Promise<boolean> =>
  (await Promise.all(
    ["service/PG_VERSION", "mainnet/PG_VERSION", "preprod/PG_VERSION", "devnet/wallet-seed"]
      .map((file) => exists(join(dataDir, file))),
  )).some(Boolean);

export interface DataDirFlags {
  /** `--init`: a new installation may be created in DATA_DIR. */
  readonly init: boolean;
  /** `--wait SECONDS`: how long to wait for a service that is still starting in DATA_DIR. */
  readonly waitSeconds: number;
  /** The other arguments. */
  readonly rest: Array<string>;
}

/**
 * As long as the service itself waits for its databases (STARTUP_TIMEOUT's default): a first start creates the
 * service database with the chain databases, 42 s after `npm start` on this 2-core machine at load 16.
 */
const defaultWaitSeconds = 120;

/** Removes `--init` and `--wait SECONDS` from the arguments; stops the CLI (exit 2) on a bad `--wait`. */
export const takeDataDirFlags = (tool: string, args: ReadonlyArray<string>): DataDirFlags => {
  const rest: Array<string> = [];
  let init = false;
  let waitSeconds = defaultWaitSeconds;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--init") init = true;
    else if (arg === "--wait" || arg.startsWith("--wait=")) {
      const text = arg === "--wait" ? args[++i] ?? "" : arg.slice("--wait=".length);
      waitSeconds = Number(text);
      if (!/^\d+(\.\d+)?$/.test(text) || waitSeconds > 3600) {
        console.error(`${tool}: --wait: expected seconds from 0 to 3600, got ${JSON.stringify(text)}`);
        Deno.exit(2);
      }
    } else rest.push(arg);
  }
  return { init, waitSeconds, rest };
};

/** A service that started longer ago than this has finished starting (or given up: STARTUP_TIMEOUT is 120 s). */
const startedLongAgoMs = 10 * 60_000;

const describe = (dataDir: string, holder: Partial<LockHolder>) =>
  `the service in DATA_DIR ${resolve(dataDir)}${
    typeof holder.pid === "number" ? ` (process ${holder.pid})` : ""
  }`;

/**
 * When a service holds `dataDir` (it runs, or is starting), polls `ready` until it gives a value, for up to
 * `waitSeconds`, saying once on stderr that it waits. Undefined when no service holds the directory (or its
 * holder went away meanwhile): the caller goes on as without one. Stops the CLI (exit 1) when the time runs out.
 */
export const waitForStartingService = async <A>(
  tool: string,
  dataDir: string,
  waitSeconds: number,
  ready: () => Promise<A | undefined>,
): Promise<A | undefined> => {
  const deadline = performance.now() + waitSeconds * 1000;
  let said = false;
  for (;;) {
    const holder = await lockHolder(dataDir);
    if (holder === undefined) return undefined;
    const value = await ready();
    if (value !== undefined) return value;
    const runningMs = Date.now() - Date.parse(holder.startedAt ?? "");
    if (runningMs > startedLongAgoMs) {
      // no start takes this long: a service that keeps its own tables elsewhere
      console.error(
        `${tool}: ${describe(dataDir, holder)} has run since ${holder.startedAt} without serving a service ` +
          `database from it; if it uses SERVICE_DATABASE_URL, set that for this command too`,
      );
      Deno.exit(1);
    }
    if (performance.now() >= deadline) {
      console.error(`${tool}: ${describe(dataDir, holder)} is still starting; try again in a few seconds`);
      Deno.exit(1);
    }
    if (!said) {
      console.error(
        `${tool}: ${describe(dataDir, holder)} is still starting; waiting up to ${waitSeconds} s…`,
      );
      said = true;
    }
    await new Promise((r) => setTimeout(r, Math.min(500, Math.max(0, deadline - performance.now()))));
  }
};

/**
 * Stops the CLI (exit 2, one line) unless `found` holds for `dataDir` or `init` is set; while a service holds
 * the directory, waits for `found` instead (it is creating what `found` looks for). Files the CLI creates are
 * private (umask 0077).
 */
export const requireServiceDataDir = async (
  tool: string,
  dataDir: string,
  flags: Pick<DataDirFlags, "init" | "waitSeconds">,
  found: (dataDir: string) => Promise<boolean> = holdsServiceDatabase,
): Promise<void> => {
  process.umask(0o077);
  if (await found(dataDir)) return;
  const isFound = async () => (await found(dataDir)) || undefined;
  if (await waitForStartingService(tool, dataDir, flags.waitSeconds, isFound)) return;
  if (flags.init) return;
  console.error(
    `${tool}: DATA_DIR ${resolve(dataDir)} holds no service database; set DATA_DIR to the service's ` +
      `(the one \`npm start\` uses), or pass --init to start a new one there`,
  );
  Deno.exit(2);
};
