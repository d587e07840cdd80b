/**
 * The single binary (`npm run compile`) holds the service's module graph, the compile command's `--include`
 * paths and node_modules, nothing else of the source tree; its runtime download is blocked here, so the binary
 * itself cannot be built. Instead the service runs from source allowed to read exactly those files and DATA_DIR:
 * it must start and serve the README's requests, its pages and their assets, so nothing it needs at run time is
 * read from a path the binary would not have (an SQL file, a worker, an asset left out of the compile command).
 */
import assert from "node:assert/strict";
import { createKey, createTestEnvironment, redisUrl } from "../support/environment.ts";
import { startService } from "../support/service.ts";
import { testDatabaseUrl } from "../support/databases.ts";
import { localModuleFiles, packageCompile, root } from "./compile.ts";

const tx = "4fba177c12ef78d9f7adefdac3c90230e35fa9f01807d441e61375ce4d5361c2";

/**
 * deno's arguments: every permission of `npm start` but reads (and writes) limited to what the binary has. The
 * service runs in DATA_DIR rather than the repository (as a binary runs anywhere), so a path read relative to
 * the working directory finds nothing either.
 */
const binaryArgs = async (dataDir: string): Promise<Array<string>> => {
  const { entry, includes } = await packageCompile();
  const graph = await localModuleFiles([entry, ...includes]);
  const nodeModules = `${root}node_modules`;
  const readable = [
    dataDir,
    nodeModules,
    await Deno.realPath(nodeModules), // a worktree's node_modules is a link
    ...includes.map((p) => `${root}${p}`),
    ...graph,
  ];
  return [
    "run",
    `--allow-read=${readable.join(",")}`,
    `--allow-write=${dataDir}`,
    "--allow-net",
    "--allow-env",
    "--allow-sys",
    "--allow-run",
    "--allow-ffi",
    "--config",
    `${root}deno.json`,
    `${root}${entry}`,
  ];
};

const denied = (lines: ReadonlyArray<string>) =>
  lines.filter((l) => /NotCapable|Requires (read|write) access|PermissionDenied/i.test(l));

/** The README's requests and the pages' assets, each answered 200. */
const serves = async (base: string, key: string) => {
  const headers = { apikey: key };
  const gets: Array<[string, HeadersInit]> = [
    ["/health", {}],
    ["/ready", {}],
    ["/", {}],
    ["/openapi.json", {}],
    ["/docs", {}],
    ["/docs/swagger-ui-bundle.js", {}],
    ["/docs/swagger-ui.css", {}],
    ["/v1/graphql", {}],
    ["/v1/graphiql/graphiql.min.js", {}],
    ["/v1/graphiql/react.production.min.js", {}],
    ["/signup", {}],
    [`/api/public/tx-status?txHash=${tx}`, headers],
    ["/v2/explorer/mainnet/block/1000", headers],
  ];
  for (const [path, h] of gets) {
    const response = await fetch(`${base}${path}`, { headers: h });
    await response.body?.cancel();
    assert.equal(response.status, 200, `GET ${path}`);
  }
  const graphql = await fetch(`${base}/v1/graphql`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify({ query: "{ block(limit: 3, order_by: {block_no: desc}) { block_no hash } }" }),
  });
  assert.equal((await graphql.json()).data.block.length, 3, "GraphQL");
  const rpc = await fetch(`${base}/v1/ogmios`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", method: "queryNetwork/tip", id: 1 }),
  });
  assert.ok("result" in await rpc.json(), "JSON-RPC");
};

Deno.test("the service starts and serves reading only its module graph, compile's includes and DATA_DIR", async () => {
  const environment = await createTestEnvironment("binary_reads");
  try {
    const dataDir = environment.env.DATA_DIR!;
    const service = await startService(environment.env, 180_000, await binaryArgs(dataDir), dataDir);
    try {
      const { key } = await createKey(environment.env, "--tier", "paid", "--name", "binary");
      await serves(service.base, key);
      assert.deepEqual(denied(service.lines), []);
    } finally {
      await service.stop();
    }
  } finally {
    await environment.close();
  }
});

Deno.test({
  name: "a first start (both demo chains created and seeded in workers) reads nothing more",
  // embedded databases only: with TEST_DATABASE_URL the chains are PostgreSQL's
  ignore: testDatabaseUrl !== undefined,
  fn: async () => {
    const dataDir = await Deno.makeTempDir({ prefix: "cds-binary-first-" });
    try {
      const env: Record<string, string> = { DATA_DIR: dataDir };
      if (redisUrl) env.REDIS_URL = redisUrl;
      const service = await startService(env, 300_000, await binaryArgs(dataDir), dataDir);
      try {
        const { key } = await createKey(env, "--tier", "paid", "--name", "binary");
        await serves(service.base, key);
        assert.deepEqual(denied(service.lines), []);
      } finally {
        await service.stop();
      }
    } finally {
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});
