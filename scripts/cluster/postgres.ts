/**
 * The harness's own PostgreSQL: a primary made with initdb and a streaming replica made from it with
 * pg_basebackup, each with its own data directory and port. Its own rather than the machine's server, whose
 * pg_hba.conf usually allows no replication connection. Both run as the `postgres` OS user when the harness
 * runs as root (PostgreSQL refuses root), as the caller otherwise.
 */
export const postgresBin = "/usr/lib/postgresql/15/bin";

const isRoot = Deno.uid() === 0;

/** Runs a PostgreSQL program as the `postgres` OS user when we are root (PostgreSQL refuses root); its output. */
export const runAsPostgres = async (command: string, args: Array<string>): Promise<string> => {
  const [cmd, argv] = isRoot ? ["runuser", ["-u", "postgres", "--", command, ...args]] : [command, args];
  const out = await new Deno.Command(cmd, { args: argv, stdout: "piped", stderr: "piped" }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  if (!out.success) throw new Error(`${command} ${args.join(" ")} failed:\n${text}`);
  return text;
};

/** Makes `dir` usable by the PostgreSQL OS user (the harness's temp dir is the caller's, mode 0700). */
export const giveToPostgres = async (dir: string) => {
  if (isRoot) await new Deno.Command("chown", { args: ["-R", "postgres", dir] }).output();
};

export interface Server {
  readonly port: number;
  readonly dataDir: string;
  readonly url: (database: string) => string;
  /** The postmaster's process id (from postmaster.pid). */
  readonly pid: () => Promise<number>;
  /** Fast shutdown (pg_ctl signals the postmaster's pid); a server already gone is fine. */
  readonly stop: () => Promise<void>;
  /** Starts it again after `stop`, with the same options. */
  readonly start: () => Promise<void>;
}

const server = async (dir: string, name: string, port: number): Promise<Server> => {
  const dataDir = `${dir}/${name}`;
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=off`;
  const start = async () => {
    await runAsPostgres(`${postgresBin}/pg_ctl`, [
      "-D",
      dataDir,
      "-o",
      options,
      "-l",
      `${dir}/${name}.log`,
      "-w",
      "start",
    ]);
  };
  await start();
  return {
    start,
    port,
    dataDir,
    url: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`,
    pid: async () => Number((await Deno.readTextFile(`${dataDir}/postmaster.pid`)).split("\n")[0]),
    stop: async () => {
      await runAsPostgres(`${postgresBin}/pg_ctl`, ["-D", dataDir, "-m", "fast", "-w", "stop"]).catch(
        () => {},
      );
    },
  };
};

/** A new cluster in `dataDir`: superuser postgres, trust authentication, UTF-8, not synced to disk. */
export const initdb = (dataDir: string) =>
  runAsPostgres(`${postgresBin}/initdb`, [
    "-D",
    dataDir,
    "-U",
    "postgres",
    "--auth=trust",
    "-E",
    "UTF8",
    "--no-sync",
  ]);

/** initdb (trust authentication; its pg_hba.conf allows local replication) and start. */
export const startPrimary = async (dir: string, port: number): Promise<Server> => {
  await initdb(`${dir}/primary`);
  return await server(dir, "primary", port);
};

/** pg_basebackup from the running primary (`-R` writes standby.signal and primary_conninfo), then start. */
export const startReplica = async (dir: string, primary: Server, port: number): Promise<Server> => {
  await runAsPostgres(`${postgresBin}/pg_basebackup`, [
    "-h",
    "127.0.0.1",
    "-p",
    String(primary.port),
    "-U",
    "postgres",
    "-D",
    `${dir}/replica`,
    "-R",
    "-X",
    "stream",
    "-c",
    "fast",
  ]);
  return await server(dir, "replica", port);
};
