/**
 * Memory soak: does the service's RSS stay near its warm level under a long mixed workload, and does it come
 * back down after hostile requests? (The hardening issue's "memory is bounded" item.)
 *
 *   deno run -A scripts/soak.ts                     # starts its own service on a fresh embedded DATA_DIR
 *   SERVICE_URL=http://127.0.0.1:3000 APIKEY=cds_… SERVICE_PID=1234 deno run -A scripts/soak.ts
 *
 * Phases: (1) capacity, a closed loop of the mixed workload at rising concurrency (CAPACITY_SECONDS, 20),
 * the best requests/s; (2) warm-up at the soak rate (WARM_SECONDS, 60), then the warm RSS; (3) the soak at
 * half the capacity (SOAK_SECONDS, 600; SOAK_RATE overrides the rate), RSS sampled every 10 s; (4) the
 * hostile requests of `scripts/hostile_requests.ts`; (5) light load (RECOVERY_SECONDS, 60) and RSS again.
 * After the soak every request kind's p50 / p99 is logged, slowest p99 first (the table keeps the five).
 * The workload spreads over thousands of real ids read from the service's own GraphQL first, so the caches
 * see a realistic key spread. Its own service gets per-key rate limits high enough not to be what is
 * measured; against SERVICE_URL the key's limits apply (429s are counted by status).
 */
import { hostileRequests } from "./hostile_requests.ts";
import { rssMb, type Target, targetService } from "./target_service.ts";
import { reportRows } from "./bench/results.ts";

const env = (name: string, fallback: number) => Number(Deno.env.get(name) ?? fallback);
const capacitySeconds = env("CAPACITY_SECONDS", 20);
const warmSeconds = env("WARM_SECONDS", 60);
const soakSeconds = env("SOAK_SECONDS", 600);
const recoverySeconds = env("RECOVERY_SECONDS", 60);
const chainSyncSessions = env("CHAIN_SYNC_SESSIONS", 3);
const maxInFlight = env("MAX_IN_FLIGHT", 128);
const requestTimeoutMs = 30_000;

const target: Target = await targetService("soak", "paid", {
  MEMORY_LOG_SECONDS: "5",
  RATE_LIMIT_PAID: "1000000",
  GRAPHQL_RATE_PAID: "1000000",
});

const headers = { apikey: target.key, "content-type": "application/json" };

const graphqlData = async (query: string): Promise<Record<string, Array<Record<string, unknown>>>> => {
  const response = await fetch(`${target.base}/v1/graphql`, {
    method: "POST",
    headers,
    body: JSON.stringify({ query }),
  });
  const body = await response.json();
  if (!body.data) throw new Error(`GraphQL ${response.status}: ${JSON.stringify(body).slice(0, 300)}`);
  return body.data;
};

/** Real ids from the service itself, a few thousand of each kind where the chain has them. */
const readIds = async () => {
  const pages = async (table: string, fields: string, count: number) => {
    const rows: Array<Record<string, unknown>> = [];
    for (let offset = 0; offset < count; offset += 1000) {
      const data = await graphqlData(
        `{ ${table}(limit: 1000, offset: ${offset}, order_by: {id: desc}) { ${fields} } }`,
      );
      rows.push(...data[table]!);
      if (data[table]!.length < 1000) break;
    }
    return rows;
  };
  const blocks = (await pages("block", "block_no hash slot_no", 5000)).filter((b) => b.block_no !== null);
  const txs = (await pages("tx", "hash", 5000)).map((t) => String(t.hash));
  const addresses = [...new Set((await pages("tx_out", "address", 10000)).map((o) => String(o.address)))];
  const pools = (await pages("pool_hash", "view", 2000)).map((p) => String(p.view));
  const stakes = (await pages("stake_address", "view", 5000)).map((s) => String(s.view));
  if (!blocks.length || !txs.length || !addresses.length || !pools.length || !stakes.length) {
    throw new Error("the service's chain has no blocks, transactions, addresses, pools or stake addresses");
  }
  return {
    blocks: blocks.map((b) => ({ no: Number(b.block_no), hash: String(b.hash), slot: Number(b.slot_no) })),
    txs,
    addresses,
    pools,
    stakes,
  };
};

const pick = <A>(items: ReadonlyArray<A>): A => items[Math.floor(Math.random() * items.length)]!;
const upTo = (n: number) => 1 + Math.floor(Math.random() * n);

const ids = await readIds();
const explorer = `${target.base}/v2/explorer/mainnet`;
const rest = `${target.base}/api/public`;

/** One request of the mix: a name for the table and the fetch to make. */
type Request = { readonly kind: string; readonly url: string; readonly body?: string };

const get = (kind: string, url: string): Request => ({ kind, url });
const post = (kind: string, url: string, body: unknown): Request => ({
  kind,
  url,
  body: JSON.stringify(body),
});
const rpc = (method: string, params?: unknown) =>
  post(`jsonrpc ${method}`, `${target.base}/v1/ogmios`, { jsonrpc: "2.0", method, params, id: 1 });
const gql = (kind: string, query: string) => post(`graphql ${kind}`, `${target.base}/v1/graphql`, { query });

const makers: ReadonlyArray<() => Request> = [
  () => get("rest tx-status", `${rest}/tx-status?txHash=${pick(ids.txs)}`),
  () => get("rest pool-info", `${rest}/pool-info?poolId=${pick(ids.pools)}`),
  () => get("rest stake-account", `${rest}/stake-account?address=${pick(ids.stakes)}`),
  () => get("rest protocol-parameters", `${rest}/protocol-parameters`),
  () => get("rest price", `${rest}/price`),
  () => get("explorer blocks", `${explorer}/blocks?page=${upTo(100)}&limit=20`),
  () => get("explorer block by number", `${explorer}/block/${pick(ids.blocks).no}`),
  () => get("explorer block by hash", `${explorer}/block/${pick(ids.blocks).hash}`),
  () => get("explorer block txs", `${explorer}/block/${pick(ids.blocks).hash}/txs?page=1&limit=20`),
  () => get("explorer tx", `${explorer}/tx/${pick(ids.txs)}`),
  () => get("explorer address", `${explorer}/address/${pick(ids.addresses)}`),
  () =>
    get(
      "explorer address utxos",
      `${explorer}/address/${pick(ids.addresses)}/utxos?page=${upTo(3)}&limit=20`,
    ),
  () => get("explorer pool", `${explorer}/pool/${pick(ids.pools)}`),
  () => get("explorer stats", `${explorer}/stats`),
  () => get("explorer dreps", `${explorer}/dreps?page=${upTo(5)}&pageSize=20`),
  () =>
    gql(
      "block by hash",
      `{ block(where: {hash: {_eq: "${pick(ids.blocks).hash}"}}) { block_no slot_no epoch_no tx_count } }`,
    ),
  () =>
    gql(
      "tx with outputs",
      `{ tx(where: {hash: {_eq: "${pick(ids.txs)}"}}) { fee size tx_outs: tx_out { address value } } }`,
    ),
  () => gql("recent blocks", `{ block(limit: ${upTo(50)}, order_by: {id: desc}) { block_no hash time } }`),
  () => rpc("queryNetwork/tip"),
  () => rpc("queryLedgerState/utxo", { addresses: [pick(ids.addresses)] }),
  () => rpc("queryLedgerState/protocolParameters"),
];

/** What the client saw: counts by request kind and status, and every latency (also by kind). */
class Tally {
  readonly byStatus = new Map<string, number>();
  readonly byKind = new Map<string, { count: number; failed: number; latencies: Array<number> }>();
  latencies: Array<number> = [];
  count = 0;
  record(kind: string, status: string, ms: number) {
    this.count++;
    this.byStatus.set(status, (this.byStatus.get(status) ?? 0) + 1);
    const k = this.byKind.get(kind) ?? { count: 0, failed: 0, latencies: [] };
    k.count++;
    k.latencies.push(ms);
    if (status !== "200") k.failed++;
    this.byKind.set(kind, k);
    this.latencies.push(ms);
  }
}

const send = async (tally: Tally) => {
  const request = pick(makers)();
  const started = performance.now();
  let status: string;
  try {
    const response = await fetch(request.url, {
      method: request.body ? "POST" : "GET",
      headers,
      body: request.body,
      signal: AbortSignal.timeout(requestTimeoutMs),
    });
    await response.arrayBuffer();
    status = String(response.status);
  } catch (error) {
    status = error instanceof Error ? error.name : "error";
  }
  tally.record(request.kind, status, performance.now() - started);
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Closed loop: `concurrency` workers sending back to back for `seconds`; gives the requests/s achieved. */
const closedLoop = async (concurrency: number, seconds: number) => {
  const tally = new Tally();
  const until = performance.now() + seconds * 1000;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (performance.now() < until) await send(tally);
  }));
  return { rate: tally.count / seconds, tally };
};

/**
 * Open loop at `rate` requests/s (a token bucket refilled every 10 ms) for `seconds`, at most `maxInFlight`
 * at once; a token that finds the pool full waits, and the tokens never sent are counted as `behind`.
 */
const openLoop = async (rate: number, seconds: number, tally: Tally, onTick?: (elapsed: number) => void) => {
  const started = performance.now();
  const until = started + seconds * 1000;
  const inFlight = new Set<Promise<void>>();
  let issued = 0;
  while (performance.now() < until) {
    const due = Math.floor(((performance.now() - started) / 1000) * rate) - issued;
    for (let i = 0; i < due && inFlight.size < maxInFlight; i++) {
      issued++;
      const p: Promise<void> = send(tally).finally(() => inFlight.delete(p));
      inFlight.add(p);
    }
    onTick?.((performance.now() - started) / 1000);
    await sleep(10);
  }
  await Promise.all(inFlight);
  return { issued, behind: Math.max(0, Math.floor(seconds * rate) - issued) };
};

/** Chain-sync sessions over WebSocket until stopped: intersect at a random block, read 100 blocks, reconnect. */
const chainSync = (sessions: number) => {
  let running = true;
  const stats = { sessions: 0, blocks: 0, errors: 0 };
  /** What the errors were, so a report says more than a count. */
  const kinds = new Map<string, number>();
  const failed = (kind: string) => {
    stats.errors++;
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
  };
  const session = () =>
    new Promise<void>((resolve) => {
      const ws = new WebSocket(`${target.base.replace("http", "ws")}/v1/ogmios?apikey=${target.key}`);
      const start = pick(ids.blocks);
      let received = 0;
      const done = () => (ws.readyState === WebSocket.OPEN && ws.close(), resolve());
      const timer = setTimeout(
        () => (failed(`no reply within ${requestTimeoutMs} ms`), done()),
        requestTimeoutMs,
      );
      ws.onopen = () =>
        ws.send(JSON.stringify({
          jsonrpc: "2.0",
          method: "findIntersection",
          params: { points: [{ slot: start.slot, id: start.hash }] },
          id: "intersection",
        }));
      ws.onmessage = (e) => {
        const message = JSON.parse(String(e.data));
        if (message.error) {
          failed(`${message.method}: ${message.error.code} ${message.error.message}`.slice(0, 120));
        }
        if (message.method === "findIntersection" || message.method === "nextBlock") {
          if (message.method === "nextBlock") stats.blocks++;
          // ten in flight, then one more per reply; stop at 100 or at the tip (a wait there never ends)
          const want = message.method === "findIntersection" ? 10 : 1;
          received += message.method === "nextBlock" ? 1 : 0;
          // (intersecting near the tip counts too: the first nextBlock answers backward, the next ones wait)
          const height = message.result?.block?.height ??
            (message.method === "findIntersection" ? start.no : undefined);
          const atTip = height !== undefined && height >= message.result?.tip?.height - 10;
          if (received >= 100 || atTip || message.error) {
            clearTimeout(timer);
            done();
            return;
          }
          for (let i = 0; i < want; i++) {
            ws.send(JSON.stringify({ jsonrpc: "2.0", method: "nextBlock", id: received + i }));
          }
        }
      };
      ws.onerror = (e) => failed(`WebSocket error: ${(e as ErrorEvent).message ?? "unknown"}`);
      ws.onclose = () => (clearTimeout(timer), resolve());
    });
  const loops = Array.from({ length: sessions }, async () => {
    while (running) {
      stats.sessions++;
      await session();
      await sleep(200);
    }
  });
  return async () => {
    running = false;
    await Promise.all(loops);
    return { ...stats, kinds: [...kinds].map(([kind, n]) => `${n} × ${kind}`).join("; ") };
  };
};

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
const ms = (v: number) => `${v.toFixed(v < 10 ? 1 : 0)} ms`;
const loadAverage = async () => (await Deno.readTextFile("/proc/loadavg")).split(" ").slice(0, 3).join(" ");
const heap = () => {
  const m = target.memory();
  return m ? ` (service: ${Object.entries(m).map(([k, v]) => `${k} ${v}`).join(", ")})` : "";
};
const log = (line: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`);

const median = (values: ReadonlyArray<number>) =>
  [...values].sort((a, b) => a - b)[values.length >> 1] ?? NaN;

/** RSS every `every` seconds of a phase from `from` on, logged; `done` gives the samples. */
const sampler = (phase: string, every: number, from: number, tally?: Tally) => {
  const samples: Array<number> = [];
  const pending: Array<Promise<void>> = [];
  let next = Math.max(every, from);
  return {
    tick: (elapsed: number) => {
      if (elapsed < next) return;
      next += every;
      pending.push(
        rssMb(target.pid).then((rss) => {
          if (rss !== undefined) samples.push(rss);
          log(
            `${phase} ${elapsed.toFixed(0)} s: RSS ${rss} MB${
              tally ? `, ${tally.count} answers` : ""
            }${heap()}`,
          );
        }),
      );
    },
    done: async () => (await Promise.all(pending), samples),
  };
};

const rows: Array<[string, string]> = [];
try {
  log(
    `service ${target.base} (pid ${
      target.pid ?? "?"
    }); ids: ${ids.blocks.length} blocks, ${ids.txs.length} txs, ` +
      `${ids.addresses.length} addresses, ${ids.pools.length} pools, ${ids.stakes.length} stake addresses; ` +
      `load ${await loadAverage()}`,
  );
  rows.push(["load average at start", await loadAverage()]);
  rows.push(["RSS before capacity", `${await rssMb(target.pid) ?? "?"} MB`]);

  // (1) capacity
  const steps = [8, 32, 64];
  let capacity = 0;
  const capacityLines: Array<string> = [];
  for (const concurrency of steps) {
    const { rate, tally } = await closedLoop(concurrency, capacitySeconds / steps.length);
    const sorted = tally.latencies.sort((a, b) => a - b);
    capacityLines.push(`${concurrency}: ${rate.toFixed(0)}/s (p99 ${ms(percentile(sorted, 0.99))})`);
    log(
      `capacity at concurrency ${concurrency}: ${rate.toFixed(0)} req/s, statuses ${
        [...tally.byStatus].map(([s, n]) => `${s}: ${n}`)
      }`,
    );
    capacity = Math.max(capacity, rate);
  }
  const soakRate = Deno.env.get("SOAK_RATE") ? Number(Deno.env.get("SOAK_RATE")) : Math.round(capacity / 2);
  rows.push(["capacity (closed loop, by concurrency)", capacityLines.join("; ")]);
  rows.push(["soak rate", `${soakRate} req/s (half of ${capacity.toFixed(0)})`]);

  // (2) warm-up at the soak rate with the chain-sync sessions; RSS swings with garbage collection, so the
  // warm level is the median of the samples of the warm-up's second half
  const warmSampler = sampler("warm-up", 5, warmSeconds / 2);
  const stopWarmSync = chainSync(chainSyncSessions);
  await openLoop(soakRate, warmSeconds, new Tally(), warmSampler.tick);
  await stopWarmSync();
  const warmSamples = await warmSampler.done();
  const warm = median(warmSamples);
  log(`warm RSS ${warm} MB`);
  rows.push([
    "warm RSS",
    `${warm} MB: median of ${warmSamples.length} samples (${Math.min(...warmSamples)}–${
      Math.max(...warmSamples)
    }) in the last ${warmSeconds / 2} s of ${warmSeconds} s at the soak rate${heap()}`,
  ]);

  // (3) the soak
  const tally = new Tally();
  const soakSampler = sampler("soak", 10, 0, tally);
  const stopSync = chainSync(chainSyncSessions);
  const soakStarted = performance.now();
  const { issued, behind } = await openLoop(soakRate, soakSeconds, tally, soakSampler.tick);
  const sync = await stopSync();
  const samples = await soakSampler.done();
  const soakTook = (performance.now() - soakStarted) / 1000;
  const soakEnd = (await rssMb(target.pid)) ?? NaN;
  const sorted = tally.latencies.sort((a, b) => a - b);
  rows.push([
    "soak",
    `${soakSeconds} s: ${tally.count} requests (${
      (tally.count / soakTook).toFixed(0)
    }/s), ${behind} not sent ` +
    `(in-flight cap ${maxInFlight}); issued ${issued}`,
  ]);
  rows.push(["answers by status", [...tally.byStatus].sort().map(([s, n]) => `${s}: ${n}`).join(", ")]);
  const failing = [...tally.byKind].filter(([, k]) => k.failed > 0);
  rows.push([
    "kinds with non-200 answers",
    failing.length ? failing.map(([kind, k]) => `${kind} ${k.failed}/${k.count}`).join(", ") : "none",
  ]);
  rows.push([
    "latency p50 / p99 / max",
    `${ms(percentile(sorted, 0.5))} / ${ms(percentile(sorted, 0.99))} / ${ms(sorted.at(-1) ?? NaN)}`,
  ]);
  // where the tail comes from: the kinds with the slowest p99, for the performance work to start at
  const byP99 = [...tally.byKind]
    .map(([kind, k]) => ({ kind, sorted: k.latencies.sort((a, b) => a - b) }))
    .sort((a, b) => percentile(b.sorted, 0.99) - percentile(a.sorted, 0.99));
  const kindLine = ({ kind, sorted }: (typeof byP99)[number]) =>
    `${kind} ${ms(percentile(sorted, 0.5))} / ${ms(percentile(sorted, 0.99))} (${sorted.length})`;
  rows.push(["slowest kinds (p50 / p99)", byP99.slice(0, 5).map(kindLine).join("; ")]);
  // every kind, slowest p99 first, each on a line of its own in the log (the table keeps to the five)
  for (const k of byP99) log(`soak latency p50 / p99 (count): ${kindLine(k)}`);
  rows.push([
    "chain-sync (WebSocket)",
    `${chainSyncSessions} at a time: ${sync.sessions} sessions, ${sync.blocks} blocks, ${sync.errors} errors` +
    (sync.kinds ? ` (${sync.kinds})` : ""),
  ]);
  const min = Math.min(...samples), max = Math.max(...samples);
  const lastMinute = median(samples.slice(-6));
  rows.push([
    "RSS samples every 10 s (min / max / end)",
    `${min} / ${max} / ${soakEnd} MB (${samples.length}; median of the last minute ${lastMinute} MB)${heap()}`,
  ]);

  // (4) hostile requests
  const hostile: Array<string> = [];
  for (const request of hostileRequests(target, 60_000)) {
    let answer: string;
    try {
      answer = await request.run();
    } catch (error) {
      answer = `failed: ${error instanceof Error ? error.message : error}`;
    }
    const rss = await rssMb(target.pid);
    hostile.push(`${request.name}: ${rss} MB`);
    log(`hostile: ${request.name}: ${answer.slice(0, 100)}; RSS ${rss} MB`);
  }
  const afterHostile = (await rssMb(target.pid)) ?? NaN;
  rows.push(["RSS after each hostile request", hostile.join("; ")]);
  rows.push(["RSS after the hostile requests", `${afterHostile} MB${heap()}`]);

  // (5) recovery under light load (a tenth of the soak rate); the random-key burst has the client's address
  // throttled for 10 s, so the first seconds get 429s
  const recovery = new Tally();
  const recoverySampler = sampler("recovery", 10, 0);
  await openLoop(Math.max(1, Math.round(soakRate / 10)), recoverySeconds, recovery, recoverySampler.tick);
  const recoverySamples = await recoverySampler.done();
  const recovered = (await rssMb(target.pid)) ?? NaN;
  rows.push([
    "RSS after recovery",
    `${recovered} MB (${recoverySeconds} s at ${Math.max(1, Math.round(soakRate / 10))} req/s; ` +
    `statuses ${[...recovery.byStatus].map(([s, n]) => `${s}: ${n}`).join(", ")}; samples ${
      recoverySamples.join(", ")
    } MB)${heap()}`,
  ]);
  rows.push(["load average at end", await loadAverage()]);

  const within = (v: number) => `${v} MB is ${(((v - warm) / warm) * 100).toFixed(1)}% of warm`;
  // coming down below the warm level is fine; growing past it by more than 10% is not
  const ok = (v: number) => v <= warm * 1.1;
  rows.push([
    "verdict (at most 10% above warm)",
    [
      `soak max ${within(max)} ${ok(max) ? "PASS" : "FAIL"}`,
      `soak end ${within(soakEnd)} ${ok(soakEnd) ? "PASS" : "FAIL"}`,
      `soak's last minute (median) ${within(lastMinute)} ${ok(lastMinute) ? "PASS" : "FAIL"}`,
      `after recovery ${within(recovered)} ${ok(recovered) ? "PASS" : "FAIL"}`,
    ].join("; "),
  ]);
  await reportRows("soak", [
    {
      workload: `soak at half capacity, ${soakSeconds} s, mixed workload`,
      ours: tally.count / soakTook,
      unit: "req/s",
      reference: capacity,
      referenceName: "capacity, closed loop",
      p50Ms: percentile(sorted, 0.5),
      p99Ms: percentile(sorted, 0.99),
      errors: failing.reduce((n, [, k]) => n + k.failed, 0),
    },
    {
      workload: "RSS over the soak's last minute (median)",
      ours: lastMinute,
      unit: "MB",
      reference: warm,
      referenceName: "warm",
    },
  ]);
} finally {
  console.log("\n| measure | value |\n| --- | --- |");
  for (const [name, value] of rows) console.log(`| ${name} | ${value.replaceAll("|", "\\|")} |`);
  await target.stop();
}
