/**
 * One decision per request (issue 19): the access check and the program must read the same request. Hostile
 * cases first (each answered with the other network's data before the fix: a repeated `network` or `address`
 * whose first value the check read and whose last the program read; an upper-case `STAKE_TEST1…` or
 * `POOL_TEST1…` the check took for mainnet and the program for preprod), then a walk of every operation in
 * /openapi.json × {as is, a repeated parameter, upper-case ids, an upper-case network name} with network- and
 * family-limited keys: a 2xx only when the key may read that family and the network the data came from (told by
 * the same request's answer to an unrestricted key, against each network's plain answer).
 */
import assert from "node:assert/strict";
import { Effect } from "effect";
import { bech32 } from "@scure/base";
import type { Network } from "@schemas/network.ts";
import { createKey, createTestEnvironment } from "../support/environment.ts";
import { startService } from "../support/service.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

interface Answer {
  readonly status: number;
  readonly type: string;
  readonly body: Json;
}

/** A request: path, query pairs in order, and a JSON body for POSTs. */
interface Sample {
  readonly method: "GET" | "POST";
  readonly path: string;
  readonly query: ReadonlyArray<readonly [string, string]>;
  readonly body?: unknown;
}

type Family = "rest" | "explorer" | "graphql" | "jsonrpc";

interface Operation {
  /** `METHOD /documented/path` as /openapi.json writes it. */
  readonly id: string;
  /** Undefined for keyless operations, and for /v1/key, which any key may read. */
  readonly family?: Family;
  /** The request on each network; one entry keyed `any` when the data belongs to no network. */
  readonly samples: Partial<Record<Network | "any", Sample>>;
}

interface KeySpec {
  readonly name: string;
  readonly args: ReadonlyArray<string>;
  readonly networks: ReadonlyArray<Network>;
  readonly families: ReadonlyArray<Family>;
}

const allFamilies: ReadonlyArray<Family> = ["rest", "explorer", "graphql", "jsonrpc"];
const limitedKeys: ReadonlyArray<KeySpec> = [
  { name: "mainnet only", args: ["--networks", "mainnet"], networks: ["mainnet"], families: allFamilies },
  { name: "preprod only", args: ["--networks", "preprod"], networks: ["preprod"], families: allFamilies },
  { name: "rest only", args: ["--families", "rest"], networks: ["mainnet", "preprod"], families: ["rest"] },
  {
    name: "explorer only",
    args: ["--families", "explorer"],
    networks: ["mainnet", "preprod"],
    families: ["explorer"],
  },
  {
    name: "graphql only",
    args: ["--families", "graphql"],
    networks: ["mainnet", "preprod"],
    families: ["graphql"],
  },
  {
    name: "jsonrpc only",
    args: ["--families", "jsonrpc"],
    networks: ["mainnet", "preprod"],
    families: ["jsonrpc"],
  },
];

const other = (network: Network): Network => (network === "mainnet" ? "preprod" : "mainnet");
const isBech32Id = (value: string) => /^(addr|stake|pool)[a-z_]*1[02-9ac-hj-np-z]+$/.test(value);
const upperIds = (text: string) =>
  text.split("/").map((s) => (isBech32Id(s) ? s.toUpperCase() : s)).join("/");
const upperNetwork = (text: string) => text.replace(/^(mainnet|preprod)$/, (n) => n.toUpperCase());

/** The request's variants: as is, a parameter given twice, ids in upper case, the network name in upper case. */
const variants = (sample: Sample, otherSample: Sample | undefined, key: string) => {
  const repeatedQuery = sample.query.length > 0
    ? [...sample.query, ...(otherSample ?? sample).query.filter(([k]) => sample.query.some(([q]) => q === k))]
    : [["apikey", key], ["apikey", key]] as const;
  return {
    plain: sample,
    repeated: { ...sample, query: repeatedQuery },
    upperIds: {
      ...sample,
      path: upperIds(sample.path),
      query: sample.query.map(([k, v]) => [k, isBech32Id(v) ? v.toUpperCase() : v] as const),
    },
    upperNetwork: {
      ...sample,
      path: sample.path.split("/").map(upperNetwork).join("/"),
      query: sample.query.map(([k, v]) => [k, k === "network" ? upperNetwork(v) : v] as const),
    },
  } satisfies Record<string, Sample>;
};

const same = (a: unknown, b: unknown) => {
  try {
    assert.deepEqual(a, b);
    return true;
  } catch {
    return false;
  }
};

Deno.test({
  name: "one decision per request: the key is checked against what the program reads",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const environment = await createTestEnvironment("one_decision");
    const sql = async <A extends object>(network: Network, text: string) =>
      Effect.runPromise((await environment.chainSql(network)).unsafe<A>(text));
    const env = environment.env;
    const service = await startService(env);
    try {
      const base = service.base;
      const request = async (s: Sample, key?: string): Promise<Answer> => {
        const url = new URL(`${base}${s.path}`);
        for (const [k, v] of s.query) url.searchParams.append(k, v);
        const r = await fetch(url, {
          method: s.method,
          headers: {
            ...(key ? { apikey: key } : {}),
            ...(s.body ? { "content-type": "application/json" } : {}),
          },
          body: s.body === undefined ? undefined : JSON.stringify(s.body),
        });
        const text = await r.text();
        const type = r.headers.get("content-type") ?? "";
        return {
          status: r.status,
          type,
          body: type.startsWith("application/json") ? JSON.parse(text) : text,
        };
      };
      const get = (path: string, query: Array<[string, string]>, key?: string) =>
        request({ method: "GET", path, query }, key);

      const { key: all } = await createKey(env, "--tier", "paid", "--name", "unrestricted");
      const keys = await Promise.all(
        limitedKeys.map(async (spec) => ({
          spec,
          key: (await createKey(env, "--tier", "paid", "--name", spec.name, ...spec.args)).key,
        })),
      );
      const keyOf = (name: string) => keys.find((k) => k.spec.name === name)!.key;

      // sample ids from each network's chain
      const ids = Object.fromEntries(
        await Promise.all((["mainnet", "preprod"] as const).map(async (network) => {
          const prefix = network === "mainnet" ? "addr1" : "addr_test1";
          const [tx] = await sql<{ hash: string }>(
            network,
            "select encode(hash, 'hex') as hash from tx order by id desc limit 1",
          );
          const [block] = await sql<{ n: number; hash: string }>(
            network,
            "select block_no as n, encode(hash, 'hex') as hash from block where block_no is not null " +
              "and tx_count > 0 order by id desc limit 1",
          );
          const [address] = await sql<{ address: string }>(
            network,
            `select address from tx_out where address like '${prefix}%' order by id limit 1`,
          );
          const [stake] = await sql<{ view: string }>(
            network,
            "select sa.view from stake_address sa join delegation d on d.addr_id = sa.id order by sa.id limit 1",
          );
          const [pool] = await sql<{ view: string }>(
            network,
            "select ph.view from pool_hash ph join pool_update pu on pu.hash_id = ph.id order by ph.id limit 1",
          );
          const poolWords = bech32.decode(pool!.view as `${string}1${string}`, 1023).words;
          return [network, {
            tx: tx!.hash,
            block: block!,
            address: address!.address,
            stake: stake!.view,
            // the id that names its network: pool_test1… on preprod
            pool: network === "mainnet" ? pool!.view : bech32.encode("pool_test", poolWords, 1023),
          }] as const;
        })),
      ) as Record<
        Network,
        { tx: string; block: { n: number; hash: string }; address: string; stake: string; pool: string }
      >;
      assert.notEqual(ids.mainnet.tx, ids.preprod.tx, "the two chains differ");
      for (const network of ["mainnet", "preprod"] as const) {
        assert.equal(
          (await get("/api/public/tx-status", [["txHash", ids[network].tx], ["network", network]], all))
            .body.found,
          true,
        );
      }

      await t.step("a repeated network: 400 naming it, not the last value's data", async () => {
        const r = await get("/api/public/tx-status", [
          ["txHash", ids.mainnet.tx],
          ["network", "preprod"],
          ["network", "mainnet"],
        ], keyOf("preprod only"));
        assert.equal(r.status, 400, JSON.stringify(r.body));
        assert.deepEqual(r.body, {
          error: "Bad Request",
          message: "The query parameter network is given 2 times; give it once",
        });
      });

      await t.step("a repeated address: 400, not the second address's account", async () => {
        const r = await get(
          "/api/public/stake-account",
          [["address", ids.preprod.stake], ["address", ids.mainnet.stake]],
          keyOf("preprod only"),
        );
        assert.equal(r.status, 400, JSON.stringify(r.body));
        assert.match(r.body.message, /query parameter address is given 2 times/);
      });

      await t.step(
        "upper-case preprod ids are preprod to the key check too: 403 for a mainnet key",
        async () => {
          const lacks = {
            error: { code: 403, message: "This key may not be used on preprod (allowed: mainnet)" },
          };
          const stake = await get(
            "/api/public/stake-account",
            [["address", ids.preprod.stake.toUpperCase()]],
            keyOf("mainnet only"),
          );
          assert.deepEqual([stake.status, stake.body], [403, lacks]);
          const pool = await get(
            "/api/public/pool-info",
            [["poolId", ids.preprod.pool.toUpperCase()]],
            keyOf("mainnet only"),
          );
          assert.deepEqual([pool.status, pool.body], [403, lacks]);
        },
      );

      await t.step("upper-case bech32 is read as the same id everywhere", async () => {
        for (const network of ["mainnet", "preprod"] as const) {
          const { stake, pool, address } = ids[network];
          const lower = await get("/api/public/stake-account", [["address", stake]], all);
          assert.equal(lower.status, 200);
          assert.deepEqual(
            await get("/api/public/stake-account", [["address", stake.toUpperCase()]], all),
            lower,
          );
          const poolLower = await get("/api/public/pool-info", [["poolId", pool]], all);
          assert.equal(poolLower.status, 200);
          assert.deepEqual(
            (await get("/api/public/pool-info", [["poolId", pool.toUpperCase()]], all)).body,
            poolLower.body,
          );
          const explorer = `/v2/explorer/${network}/address/`;
          const addressLower = await get(explorer + address, [], all);
          assert.equal(addressLower.status, 200);
          assert.deepEqual((await get(explorer + address.toUpperCase(), [], all)).body, addressLower.body);
          const rpc = (keys: Array<string>) =>
            request({
              method: "POST",
              path: network === "mainnet" ? "/v1/ogmios" : "/v1/preprod/ogmios",
              query: [],
              body: {
                jsonrpc: "2.0",
                method: "queryLedgerState/rewardAccountSummaries",
                params: { keys },
                id: 1,
              },
            }, all);
          const rpcLower = await rpc([stake]);
          assert.equal(rpcLower.status, 200, JSON.stringify(rpcLower.body));
          assert.deepEqual(await rpc([stake.toUpperCase()]), rpcLower);
        }
      });

      await t.step("a repeated parameter is 400 in every interface's own envelope, apikey too", async () => {
        const twice = (name: string, value = "1"): Array<[string, string]> => [[name, value], [name, value]];
        const rest = await get("/v1/key", twice("apikey", all));
        assert.deepEqual([rest.status, rest.body], [400, {
          error: "Bad Request",
          message: "The query parameter apikey is given 2 times; give it once",
        }]);
        const mixed = await get("/v1/key", [["apikey", all], ["apiKey", all]]);
        assert.equal(mixed.status, 400);
        const explorer = await get("/v2/explorer/mainnet/blocks", twice("page"), all);
        assert.deepEqual([explorer.status, explorer.body.error], [400, "Bad Request"]);
        const graphql = await request(
          {
            method: "POST",
            path: "/v1/graphql",
            query: twice("x"),
            body: { query: "{ block(limit: 1) { hash } }" },
          },
          all,
        );
        assert.equal(graphql.status, 400);
        assert.deepEqual(graphql.body.errors[0].extensions, { path: "$", code: "bad-request" });
        assert.match(graphql.body.errors[0].message, /query parameter x is given 2 times/);
        const rpc = await request({
          method: "POST",
          path: "/v1/ogmios",
          query: twice("x"),
          body: { jsonrpc: "2.0", method: "queryNetwork/tip", id: 1 },
        }, all);
        assert.equal(rpc.status, 400);
        assert.equal(rpc.body.error.code, -32600);
        assert.match(rpc.body.error.message, /query parameter x is given 2 times/);
        const ws = await get("/v1/ogmios", twice("apikey", all));
        assert.deepEqual([ws.status, ws.body.error], [400, "Bad Request"]);
        const page = await get("/login", twice("done", "logged-out"));
        assert.equal(page.status, 400);
        assert.ok(page.type.startsWith("text/html"));
        assert.match(page.body, /query parameter done is given 2 times/);
        const health = await get("/health", twice("x"));
        assert.equal(health.status, 400);
      });

      await t.step(
        "every documented operation × variant × limited key: no data the key may not read",
        async () => {
          const doc: Json = (await get("/openapi.json", [])).body;
          const documented = Object.entries(doc.paths).flatMap(([path, ops]: [string, Json]) =>
            Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`)
          );
          const on = (network: Network) => ids[network];
          const both = (f: (n: Network) => Sample) => ({ mainnet: f("mainnet"), preprod: f("preprod") });
          const getOn = (
            path: (n: Network) => string,
            query: (n: Network) => Array<[string, string]> = () => [],
          ) => both((n) => ({ method: "GET", path: path(n), query: query(n) }));
          const explorer = (rest: (n: Network) => string, query?: (n: Network) => Array<[string, string]>) =>
            getOn((n) => `/v2/explorer/${n}${rest(n)}`, query);
          const graphqlPath = (n: Network) => (n === "mainnet" ? "/v1/graphql" : "/v1/preprod/graphql");
          const ogmiosPath = (n: Network) => (n === "mainnet" ? "/v1/ogmios" : "/v1/preprod/ogmios");
          const one = (path: string, n: Network, s: Partial<Sample> = {}) => ({
            [n]: { method: "GET", path, query: [], ...s } as Sample,
          });
          const operations: ReadonlyArray<Operation> = [
            {
              id: "GET /api/public/pool-info",
              family: "rest",
              // no network parameter: the id says it (pool_test1… preprod, pool1… mainnet)
              samples: getOn(() => "/api/public/pool-info", (n) => [["poolId", on(n).pool]]),
            },
            {
              id: "GET /api/public/pool-status",
              family: "rest",
              samples: getOn(() => "/api/public/pool-status", (n) => [["network", n]]),
            },
            {
              id: "GET /api/public/stake-account",
              family: "rest",
              samples: getOn(() => "/api/public/stake-account", (n) => [["address", on(n).stake]]),
            },
            {
              id: "GET /api/public/tx-status",
              family: "rest",
              samples: getOn(() => "/api/public/tx-status", (n) => [["txHash", on(n).tx], ["network", n]]),
            },
            {
              id: "GET /api/public/protocol-parameters",
              family: "rest",
              samples: getOn(() => "/api/public/protocol-parameters", (n) => [["network", n]]),
            },
            {
              id: "GET /api/public/price",
              family: "rest",
              samples: { any: { method: "GET", path: "/api/public/price", query: [] } },
            },
            {
              id: "GET /v2/explorer/{network}/pool/{poolId}",
              family: "explorer",
              samples: explorer((n) => `/pool/${on(n).pool}`),
            },
            {
              id: "GET /v2/explorer/{network}/address/{addr}",
              family: "explorer",
              samples: explorer((n) => `/address/${on(n).address}`),
            },
            {
              id: "GET /v2/explorer/{network}/address/{addr}/utxos",
              family: "explorer",
              samples: explorer((n) => `/address/${on(n).address}/utxos`, () => [["limit", "2"]]),
            },
            {
              id: "GET /v2/explorer/{network}/tx/{hash}",
              family: "explorer",
              samples: explorer((n) => `/tx/${on(n).tx}`),
            },
            {
              id: "GET /v2/explorer/{network}/blocks",
              family: "explorer",
              samples: explorer(() => "/blocks", () => [["limit", "3"]]),
            },
            {
              id: "GET /v2/explorer/{network}/block/{id}",
              family: "explorer",
              samples: explorer((n) => `/block/${on(n).block.hash}`),
            },
            {
              id: "GET /v2/explorer/{network}/block/{id}/txs",
              family: "explorer",
              samples: explorer((n) => `/block/${on(n).block.n}/txs`, () => [["limit", "2"]]),
            },
            { id: "GET /v2/explorer/{network}/stats", family: "explorer", samples: explorer(() => "/stats") },
            {
              id: "GET /v2/explorer/{network}/dreps",
              family: "explorer",
              samples: explorer(() => "/dreps", () => [["pageSize", "3"]]),
            },
            { id: "GET /health", samples: { any: { method: "GET", path: "/health", query: [] } } },
            { id: "GET /ready", samples: { any: { method: "GET", path: "/ready", query: [] } } },
            { id: "GET /v1/key", samples: { any: { method: "GET", path: "/v1/key", query: [] } } },
            {
              id: "GET /openapi.json",
              samples: { any: { method: "GET", path: "/openapi.json", query: [] } },
            },
            ...(["mainnet", "preprod"] as const).flatMap((n): Array<Operation> => [
              {
                id: `POST ${graphqlPath(n)}`,
                family: "graphql",
                samples: one(graphqlPath(n), n, {
                  method: "POST",
                  body: { query: "{ block(limit: 2, order_by: {block_no: desc}) { hash block_no } }" },
                }),
              },
              { id: `GET ${graphqlPath(n)}`, samples: one(graphqlPath(n), n) },
              {
                id: `GET ${graphqlPath(n)}/schema.graphql`,
                samples: one(`${graphqlPath(n)}/schema.graphql`, n),
              },
              {
                id: `POST ${ogmiosPath(n)}`,
                family: "jsonrpc",
                samples: one(ogmiosPath(n), n, {
                  method: "POST",
                  body: { jsonrpc: "2.0", method: "queryNetwork/tip", id: 1 },
                }),
              },
              { id: `GET ${ogmiosPath(n)}`, family: "jsonrpc", samples: one(ogmiosPath(n), n) },
              { id: `GET ${ogmiosPath(n)}/health`, samples: one(`${ogmiosPath(n)}/health`, n) },
            ]),
          ];
          assert.deepEqual(
            operations.map((o) => o.id).sort(),
            documented.sort(),
            "every documented operation walked",
          );

          // each network's plain answer to the unrestricted key: what its data looks like
          const baseline = new Map<string, Answer>();
          for (const op of operations) {
            for (const [network, sample] of Object.entries(op.samples)) {
              baseline.set(`${op.id} ${network}`, await request(sample!, all));
            }
          }
          const dataFrom = (op: Operation, answer: Answer): Array<Network> =>
            (["mainnet", "preprod"] as const).filter((n) => {
              const b = baseline.get(`${op.id} ${n}`);
              return b !== undefined && b.status === answer.status && same(b.body, answer.body);
            });

          const problems: Array<string> = [];
          let requests = 0, granted = 0;
          for (const op of operations) {
            for (const [network, sample] of Object.entries(op.samples)) {
              const otherSample = network === "any" ? undefined : op.samples[other(network as Network)];
              for (const [variant, s] of Object.entries(variants(sample!, otherSample, all))) {
                const open = await request(s, all);
                requests++;
                if (open.status >= 500 && open.status !== 503) {
                  problems.push(`${op.id} ${variant}: ${open.status}`);
                }
                for (const { spec, key } of keys) {
                  const v = variant === "repeated" && s.query[0]?.[0] === "apikey"
                    ? { ...s, query: s.query.map(([k, x]) => [k, k === "apikey" ? key : x] as const) }
                    : s;
                  const answer = await request(v, key);
                  requests++;
                  const where = `${op.id} [${network}, ${variant}] with ${spec.name}: ${answer.status}`;
                  if (answer.status >= 500 && answer.status !== 503) problems.push(where);
                  if (answer.status < 200 || answer.status > 299 || op.family === undefined) continue;
                  granted++;
                  if (!spec.families.includes(op.family)) {
                    problems.push(`${where}: family ${op.family} served`);
                  }
                  if (network === "any") continue;
                  // the network the data came from: the same request's answer to the unrestricted key
                  const from = dataFrom(op, open);
                  if (from.length === 0) {
                    problems.push(`${where}: the unrestricted answer is neither network's (${open.status})`);
                  } else if (!from.some((n) => spec.networks.includes(n))) {
                    problems.push(`${where}: ${from.join("/")} data served`);
                  } else if (!same(answer.body, open.body) && dataFrom(op, answer).length === 0) {
                    problems.push(`${where}: an answer unlike either network's`);
                  }
                }
              }
            }
          }
          console.log(
            `${requests} requests, ${granted} granted to a limited key, ${problems.length} problems`,
          );
          assert.deepEqual(problems, []);
        },
      );
    } finally {
      await service.stop();
      await environment.close();
    }
  },
});
