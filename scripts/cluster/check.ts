/**
 * `npm run cluster -- --check`: the README's requests through HAProxy, spread over the three instances, the
 * replica holding the primary's rows, the replica stopped and started under traffic (replica_check.ts), and one
 * instance stopped (SIGTERM) while requests keep coming: none may
 * fail, and the proxy must take it out of rotation.
 */
import pg from "pg";
import type { Child } from "./processes.ts";
import type { Server } from "./postgres.ts";
import { runReplicaChecks } from "./replica_check.ts";

export interface Cluster {
  readonly base: string;
  readonly key: string;
  readonly instances: ReadonlyArray<{ name: string; port: number; child: Child }>;
  readonly primary: Server;
  readonly replica: Server;
  readonly replicaLag: (primary: Server) => Promise<string>;
  readonly say: (text: string) => void;
}

const tx = "4fba177c12ef78d9f7adefdac3c90230e35fa9f01807d441e61375ce4d5361c2";

const count = async (url: string, text: string): Promise<number> => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return Number((await client.query(text)).rows[0].n);
  } finally {
    await client.end();
  }
};

export const runChecks = async (cluster: Cluster): Promise<Array<string>> => {
  const { base, key, say } = cluster;
  const failures: Array<string> = [];
  const expect = (ok: boolean, what: string) => {
    say(`${ok ? "ok" : "FAILED"}: ${what}`);
    if (!ok) failures.push(what);
  };
  const headers = { apikey: key };

  // the README's requests, each answered 200 through the proxy
  const gets = [
    `/api/public/tx-status?txHash=${tx}`,
    "/api/public/pool-info?poolId=pool1n3euxsyxhpgx84aagn8986nfxlk3wmu267xuywflwwzd5etafh5",
    "/v2/explorer/mainnet/block/1000",
    `/v2/explorer/mainnet/tx/${tx}`,
  ];
  const servedBy = new Map<string, number>();
  for (let round = 0; round < 6; round++) {
    for (const path of gets) {
      const response = await fetch(`${base}${path}`, { headers });
      await response.body?.cancel();
      const by = response.headers.get("x-served-by") ?? "?";
      servedBy.set(by, (servedBy.get(by) ?? 0) + 1);
      if (response.status !== 200) failures.push(`GET ${path}: ${response.status}`);
    }
  }
  expect(
    servedBy.size === 3,
    `24 REST and explorer requests spread over the instances: ${
      JSON.stringify(Object.fromEntries(servedBy))
    }`,
  );
  const graphql = await fetch(`${base}/v1/graphql`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify({ query: "{ block(limit: 3, order_by: {block_no: desc}) { block_no hash } }" }),
  });
  expect(
    graphql.status === 200 && (await graphql.json()).data?.block?.length === 3,
    "GraphQL through HAProxy",
  );
  const tip = await new Promise<string>((resolve) => {
    const ws = new WebSocket(`${base.replace("http", "ws")}/v1/ogmios?apikey=${key}`);
    const timer = setTimeout(() => resolve("timeout"), 10_000);
    ws.onopen = () => ws.send(JSON.stringify({ jsonrpc: "2.0", method: "queryNetwork/tip", id: 1 }));
    ws.onmessage = (e) => {
      clearTimeout(timer);
      resolve(String(e.data));
      ws.close();
    };
    ws.onerror = () => resolve("error");
  });
  expect(tip.includes('"slot"'), `JSON-RPC over WebSocket through HAProxy: ${tip.slice(0, 100)}`);

  // the replica serves what the primary holds
  const blocks = "select count(*) as n from block";
  const [onPrimary, onReplica] = await Promise.all([
    count(cluster.primary.url("mainnet"), blocks),
    count(cluster.replica.url("mainnet"), blocks),
  ]);
  expect(onPrimary > 0 && onPrimary === onReplica, `replica has the primary's ${onPrimary} mainnet blocks`);
  say(`replica: ${await cluster.replicaLag(cluster.primary)}`);

  // one rate budget for the whole deployment (Redis): a burst of 250 at once over three instances is cut to the
  // key's 100 in any second (RATE_LIMIT_FREE's default), where per-instance budgets (3 x 100) would let all of it
  // through; a burst that took longer than a second may have had a second's budget more
  await new Promise((r) => setTimeout(r, 1100));
  const burstStarted = performance.now();
  const burst = await Promise.all(
    Array.from({ length: 250 }, async () => {
      const response = await fetch(`${base}/v2/explorer/mainnet/block/1000`, { headers });
      await response.body?.cancel();
      return response.status;
    }),
  );
  const burstSeconds = (performance.now() - burstStarted) / 1000;
  const passed = burst.filter((s) => s === 200).length;
  const budget = 100 * Math.ceil(burstSeconds);
  expect(
    passed >= 98 && passed <= budget && burst.every((s) => s === 200 || s === 429),
    `a burst of 250 over 3 instances in ${
      burstSeconds.toFixed(2)
    } s: ${passed} answered (at most ${budget}), ${250 - passed} limited (429) by the shared budget`,
  );
  await new Promise((r) => setTimeout(r, 1100));

  // the replica stopped under traffic and started again (replica_check.ts)
  await runReplicaChecks(cluster, expect);
  await new Promise((r) => setTimeout(r, 1100));

  // a rolling restart's first half: SIGTERM one instance under traffic (~40 requests per second); nothing fails, it leaves rotation
  const [first] = cluster.instances;
  let sent = 0;
  const bad: Array<string> = [];
  const after = new Set<string>();
  let stopped = false;
  const load = (async () => {
    const until = performance.now() + 6000;
    while (performance.now() < until) {
      const response = await fetch(`${base}/v2/explorer/mainnet/block/1000`, { headers }).catch((e) => e);
      sent++;
      await new Promise((r) => setTimeout(r, 20)); // under the key's 100 per second
      if (!(response instanceof Response)) bad.push(String(response));
      else {
        await response.body?.cancel();
        if (response.status !== 200) {
          bad.push(`${response.status} from ${response.headers.get("x-served-by")}`);
        }
        if (stopped) after.add(response.headers.get("x-served-by") ?? "?");
      }
    }
  })();
  await new Promise((r) => setTimeout(r, 1000));
  Deno.kill(first!.child.pid, "SIGTERM");
  const code = await first!.child.exited;
  stopped = true;
  await load;
  expect(
    bad.length === 0,
    `${sent} requests while ${first!.name} stopped (exit ${code}): ${bad.length} failed ${
      JSON.stringify(bad.slice(0, 5))
    }`,
  );
  expect(!after.has(first!.name) && after.size > 0, `after it exited only ${[...after].join(", ")} answered`);
  return failures;
};
