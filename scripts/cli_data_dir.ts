/**
 * The CLIs work on the service's own DATA_DIR. Run from the wrong directory, they used to create an empty
 * `./data/service` (or a wallet seed nobody funds) without a word; now a directory that holds no service
 * database is refused unless `--init` says to start one there.
 */
import { join, resolve } from "node:path";
import process from "node:process";

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

/** Removes `--init` from the arguments; tells whether it was there. */
export const takeInitFlag = (args: ReadonlyArray<string>): { init: boolean; rest: Array<string> } => ({
  init: args.includes("--init"),
  rest: args.filter((a) => a !== "--init"),
});

/**
 * Stops the CLI (exit 2, one line) unless `found` holds for `dataDir` or `init` is set. Files the CLI creates
 * are private (umask 0077).
 */
export const requireServiceDataDir = async (
  tool: string,
  dataDir: string,
  init: boolean,
  found: (dataDir: string) => Promise<boolean> = holdsServiceDatabase,
): Promise<void> => {
  process.umask(0o077);
  if (init || await found(dataDir)) return;
  console.error(
    `${tool}: DATA_DIR ${resolve(dataDir)} holds no service database; set DATA_DIR to the service's ` +
      `(the one \`npm start\` uses), or pass --init to start a new one there`,
  );
  Deno.exit(2);
};
