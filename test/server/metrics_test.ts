/**
 * Prometheus `/metrics` against the real service: off by default (404), behind METRICS_TOKEN on the main port
 * (401 without it or with a wrong one), or on a METRICS_PORT listener of its own without a token. After a known
 * mix of requests (REST and explorer 200s, a 404, a 401, a GraphQL query, 429s of a FREE key) the exposition
 * parses line by line, the request counters moved by exactly what was sent per route family and status, the
 * histograms are cumulative with `_count` equal to the requests counted, and the database, cache, limiter,
 * process and (with the devnet running) devnet figures are there.
 */
import assert from "node:assert/strict";
import { testDatabaseUrl } from "../support/databases.ts";
import { createKey, createTestEnvironment, type TestEnvironment } from "../support/environment.ts";
import { type RunningService, startService } from "../support/service.ts";

interface Series {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** Every line is a `# HELP`/`# TYPE` comment or `name{labels} value`; anything else fails the parse. */
const parseExposition = (text: string) => {
  const types = new Map<string, string>();
  const series: Array<Series> = [];
  const seen = new Set<string>();
  assert.ok(text.endsWith("\n"), "the exposition ends with a newline");
  for (const line of text.slice(0, -1).split("\n")) {
    if (line.startsWith("#")) {
      const m = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/.exec(line);
      assert.ok(m, `a malformed comment: ${line}`);
      if (m[1] === "TYPE") {
        assert.ok(["counter", "gauge", "histogram"].includes(m[3]!), `unknown type: ${line}`);
        types.set(m[2]!, m[3]!);
      }
      continue;
    }
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    assert.ok(m, `a malformed sample: ${JSON.stringify(line)}`);
    const labels: Record<string, string> = {};
    if (m[2] !== undefined && m[2] !== "") {
      const pair = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)/y;
      let at = 0;
      while (at < m[2].length) {
        pair.lastIndex = at;
        const p = pair.exec(m[2]);
        assert.ok(p, `malformed labels in ${line}`);
        labels[p[1]!] = p[2]!.replace(/\\(.)/g, (_, c) => (c === "n" ? "\n" : c));
        at = pair.lastIndex;
      }
    }
    const value = m[3] === "+Inf" ? Infinity : m[3] === "-Inf" ? -Infinity : Number(m[3]);
    assert.ok(m[3] === "NaN" || !Number.isNaN(value), `not a number: ${line}`);
    const base = m[1]!.replace(/_(bucket|sum|count)$/, "");
    assert.ok(types.has(m[1]!) || types.get(base) === "histogram", `no # TYPE before ${m[1]}`);
    const identity = `${m[1]}{${Object.entries(labels).sort().map(([k, v]) => `${k}=${v}`).join(",")}}`;
    assert.ok(!seen.has(identity), `a series twice: ${identity}`);
    seen.add(identity);
    series.push({ name: m[1]!, labels, value });
  }
  return { types, series };
};

type Parsed = ReturnType<typeof parseExposition>;

const select = (p: Parsed, name: string, labels: Record<string, string> = {}) =>
  p.series.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));

const valueOf = (p: Parsed, name: string, labels: Record<string, string> = {}) =>
  select(p, name, labels).reduce((sum, s) => sum + s.value, 0);

const requestCounts = (p: Parsed) =>
  new Map(
    select(p, "cds_http_requests_total").map((s) =>
      [`${s.labels.family} ${s.labels.status}`, s.value] as const
    ),
  );

/** Each family's histogram: buckets cumulative, +Inf = _count = the requests counted for the family. */
const assertHistograms = (p: Parsed) => {
  const families = new Set(select(p, "cds_http_requests_total").map((s) => s.labels.family!));
  assert.ok(families.size > 0);
  for (const family of families) {
    const buckets = select(p, "cds_http_request_duration_seconds_bucket", { family });
    assert.ok(buckets.length >= 10, `${family}: buckets`);
    const bounds = buckets.map((b) => b.labels.le === "+Inf" ? Infinity : Number(b.labels.le));
    assert.deepEqual(bounds, [...bounds].sort((a, b) => a - b), `${family}: buckets in order`);
    assert.equal(bounds[0], 0.005);
    assert.equal(bounds.at(-2), 10);
    assert.equal(bounds.at(-1), Infinity);
    for (let i = 1; i < buckets.length; i++) {
      assert.ok(
        buckets[i]!.value >= buckets[i - 1]!.value,
        `${family}: cumulative at le=${buckets[i]!.labels.le}`,
      );
    }
    const count = valueOf(p, "cds_http_request_duration_seconds_count", { family });
    assert.equal(buckets.at(-1)!.value, count, `${family}: +Inf bucket = _count`);
    assert.equal(count, valueOf(p, "cds_http_requests_total", { family }), `${family}: _count = requests`);
    assert.ok(valueOf(p, "cds_http_request_duration_seconds_sum", { family }) >= 0);
  }
};

const token = "metrics-token-0123456789abcdef";

Deno.test({
  name: "Prometheus /metrics",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const environments: Array<TestEnvironment> = await Promise.all([
      createTestEnvironment("metrics-off"),
      createTestEnvironment("metrics-token"),
      createTestEnvironment("metrics-port"),
    ]);
    const services: Array<RunningService> = [];
    try {
      const tokenEnv = { ...environments[1]!.env, METRICS_TOKEN: token, RATE_LIMIT_FREE: "2" };
      // the devnet on (it runs on the embedded default only): a block a second
      const portEnv = { ...environments[2]!.env, METRICS_PORT: "0", DEVNET_BLOCK_SECONDS: "1" };
      const [off, withToken, withPort] = await Promise.all([
        startService(environments[0]!.env),
        startService(tokenEnv),
        startService(portEnv),
      ]);
      services.push(off!, withToken!, withPort!);

      await t.step("off by default: 404", async () => {
        const r = await fetch(`${off!.base}/metrics`, { headers: { authorization: `Bearer ${token}` } });
        assert.equal(r.status, 404);
        assert.equal((await r.json()).error, "Not Found");
      });

      const scrape = async (base: string, headers: HeadersInit = { authorization: `Bearer ${token}` }) => {
        const r = await fetch(`${base}/metrics`, { headers });
        assert.equal(r.status, 200);
        assert.match(r.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);
        return parseExposition(await r.text());
      };

      await t.step("METRICS_TOKEN: 401 without the token or with a wrong one, 200 with it", async () => {
        for (
          const headers of [
            {},
            { authorization: `Bearer ${token}x` },
            { authorization: `Bearer ${token.slice(0, -1)}` },
            { authorization: `Basic ${btoa(`user:${token}`)}` },
            { apikey: token },
          ] as Array<Record<string, string>>
        ) {
          const r = await fetch(`${withToken!.base}/metrics`, { headers });
          assert.equal(r.status, 401, JSON.stringify(headers));
          const body = await r.json();
          assert.equal(body.error, "Unauthorized");
          assert.ok(!JSON.stringify(body).includes(token));
        }
        await scrape(withToken!.base);
      });

      await t.step("after known requests: counters by family and status, histograms, gauges", async () => {
        const base = withToken!.base;
        const { key } = await createKey(tokenEnv, "--tier", "paid", "--name", "metrics paid");
        const { key: freeKey } = await createKey(tokenEnv, "--tier", "free", "--name", "metrics free");
        const before = await scrape(base);
        const sent = new Map<string, number>([["public 200", 1]]); // the scrape above counts once answered
        const count = (family: string, status: number) => {
          const k = `${family} ${status}`;
          sent.set(k, (sent.get(k) ?? 0) + 1);
        };
        const get = async (family: string, path: string, headers: Record<string, string> = {}) => {
          const r = await fetch(`${base}${path}`, { headers });
          await r.body?.cancel();
          count(family, r.status);
          return r.status;
        };
        assert.equal(await get("explorer", "/v2/explorer/mainnet/stats", { apikey: key }), 200);
        assert.equal(
          await get("rest", "/api/public/protocol-parameters?network=mainnet", { apikey: key }),
          200,
        );
        assert.equal(
          await get("rest", "/api/public/protocol-parameters?network=mainnet", { apikey: key }),
          200,
        );
        // the REST answer is kept encoded per tip (its second request reads no cache): the JSON-RPC query reads
        // the same cached value
        for (let i = 0; i < 2; i++) {
          const rpc = await fetch(`${base}/v1/ogmios`, {
            method: "POST",
            headers: { apikey: key, "content-type": "application/json" },
            body: JSON.stringify({ jsonrpc: "2.0", method: "queryLedgerState/protocolParameters", id: i }),
          });
          assert.equal(rpc.status, 200);
          assert.ok((await rpc.json()).result, "protocol parameters over JSON-RPC");
          count("ogmios", 200);
        }
        assert.equal(await get("account", "/v1/key", { apikey: key }), 200);
        assert.equal(await get("none", "/no/such/route"), 404);
        assert.equal(await get("explorer", "/v2/explorer/mainnet/stats"), 401);
        assert.equal(await get("public", "/health"), 200);
        const gql = await fetch(`${base}/v1/graphql`, {
          method: "POST",
          headers: { apikey: key, "content-type": "application/json" },
          body: JSON.stringify({ query: "{ __typename }" }),
        });
        assert.equal(gql.status, 200);
        assert.equal((await gql.json()).data.__typename, "query_root");
        count("graphql", 200);
        // a FREE key at 2 requests a second: most of a burst of 8 is refused
        const burst = await Promise.all(
          Array.from({ length: 8 }, () => get("explorer", "/v2/explorer/mainnet/stats", { apikey: freeKey })),
        );
        const refused = burst.filter((s) => s === 429).length;
        assert.ok(refused >= 4, `429s in the burst: ${burst.join(",")}`);
        assert.ok(burst.every((s) => s === 200 || s === 429), burst.join(","));

        const after = await scrape(base);
        const was = requestCounts(before);
        const now = requestCounts(after);
        const moved = new Map<string, number>();
        for (const [k, v] of now) if (v - (was.get(k) ?? 0) !== 0) moved.set(k, v - (was.get(k) ?? 0));
        assert.deepEqual(
          [...moved].sort(),
          [...sent].sort(),
          "requests by family and status moved by exactly what was sent",
        );
        assertHistograms(after);

        const delta = (name: string, labels: Record<string, string>) =>
          valueOf(after, name, labels) - valueOf(before, name, labels);
        assert.equal(delta("cds_rate_limited_total", { budget: "rate" }), refused, "429s by budget");
        assert.equal(delta("cds_auth_failures_total", { status: "401" }), 1, "the missing key");

        for (const database of ["mainnet", "preprod", "service"]) {
          for (
            const name of ["cds_db_connections_open", "cds_db_connections_busy", "cds_db_connections_waiting"]
          ) {
            assert.equal(select(after, name, { database }).length, 1, `${name}{database="${database}"}`);
            assert.equal(after.types.get(name), "gauge");
          }
          assert.ok(valueOf(after, "cds_db_connections_open", { database }) >= 1, `${database}: open`);
          assert.ok(valueOf(after, "cds_db_acquire_wait_seconds_total", { database }) >= 0);
        }
        assert.ok(delta("cds_db_acquisitions_total", { database: "mainnet" }) >= 2, "mainnet statements ran");
        const backend = testDatabaseUrl ? "postgres" : "pglite";
        assert.equal(
          select(after, "cds_db_connections_open", { database: "mainnet" })[0]!.labels.backend,
          backend,
        );
        if (!testDatabaseUrl) {
          assert.equal(valueOf(after, "cds_db_restarts_total", { database: "mainnet" }), 0);
        }

        for (
          const name of [
            "cds_cache_hits_total",
            "cds_cache_misses_total",
            "cds_cache_entries",
            "cds_cache_bytes",
          ]
        ) {
          assert.equal(select(after, name).length, 1, name);
        }
        // protocol parameters are cached for an hour: REST's first request computed or read them, and the
        // JSON-RPC queries after it read the cached value
        assert.ok(delta("cds_cache_hits_total", {}) + delta("cds_cache_misses_total", {}) >= 2);
        assert.ok(valueOf(after, "cds_cache_hits_total") >= 1, "a later protocol-parameters read hit");
        assert.ok(valueOf(after, "cds_cache_entries") >= 1);
        assert.ok(valueOf(after, "cds_cache_bytes") > 0);

        assert.ok(valueOf(after, "process_resident_memory_bytes") > 10e6);
        assert.ok(valueOf(after, "process_heap_used_bytes") > 1e6);
        assert.ok(valueOf(after, "process_uptime_seconds") > 0);
        assert.ok(valueOf(after, "cds_event_loop_lag_seconds_count") > 0, "the lag sampler runs");
        assert.ok(valueOf(after, "cds_event_loop_lag_max_seconds") >= 0);
        // the devnet is off in this environment: no devnet figures
        assert.equal(select(after, "cds_devnet_blocks_total").length, 0);
      });

      await t.step("METRICS_PORT: a listener of its own, no token; the main port says 404", async () => {
        const main = await fetch(`${withPort!.base}/metrics`);
        assert.equal(main.status, 404);
        await main.body?.cancel();
        const line = withPort!.lines.find((l) => l.includes("metrics served on"));
        assert.ok(line, "the metrics listener is logged");
        const metricsBase = /metrics served on (http:\/\/\S+?)\/metrics"/.exec(line)![1]!;
        assert.notEqual(metricsBase, withPort!.base);
        const other = await fetch(`${metricsBase}/v2/explorer/mainnet/stats`);
        assert.equal(other.status, 404, "nothing but /metrics there");
        await other.body?.cancel();
        let parsed = await scrape(metricsBase, {});
        assertHistograms(parsed);
        assert.ok(valueOf(parsed, "cds_http_requests_total", { family: "public", status: "404" }) >= 1);
        if (testDatabaseUrl) {
          assert.equal(select(parsed, "cds_devnet_blocks_total").length, 0, "no devnet on PostgreSQL");
          return;
        }
        // the devnet writes a block a second: its figures are there and blocks are counted
        const deadline = Date.now() + 20_000;
        while (
          valueOf(parsed, "cds_devnet_blocks_total", { network: "mainnet" }) < 1 && Date.now() < deadline
        ) {
          await new Promise((resolve) => setTimeout(resolve, 500));
          parsed = await scrape(metricsBase, {});
        }
        for (const network of ["mainnet", "preprod"]) {
          for (
            const name of [
              "cds_devnet_mempool_transactions",
              "cds_devnet_mempool_bytes",
              "cds_devnet_waiting_submissions",
              "cds_devnet_blocks_total",
            ]
          ) {
            assert.equal(select(parsed, name, { network }).length, 1, `${name}{network="${network}"}`);
          }
          assert.equal(valueOf(parsed, "cds_devnet_mempool_transactions", { network }), 0);
          assert.deepEqual(
            select(parsed, "cds_devnet_dropped_transactions_total", { network }).map((s) => s.labels.reason)
              .sort(),
            ["expired", "isolation", "orphaned"],
          );
        }
        assert.ok(valueOf(parsed, "cds_devnet_blocks_total", { network: "mainnet" }) >= 1, "blocks produced");
      });
    } finally {
      await Promise.all(services.map((s) => s.stop()));
      await Promise.all(environments.map((e) => e.close()));
    }
  },
});
