/**
 * GraphQL benchmark on a large db-sync database: for the documented query shapes, the latency of one request at
 * a time through the service (wrk, POST, 1 connection: p50/p99 apart from saturation) next to the compiled
 * statement run directly one at a time, then requests/s and p50/p99 through the service at 32 connections
 * (loopback), the SQL statements each request issued (the X-SQL-Statements header), and the same compiled
 * statement run directly with the same concurrency, measured in the same run. Ratio = service / direct (32).
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/scale_360 npm run bench:graphql   (needs wrk)
 *   BENCH_ONLY=epoch        only the queries whose name contains this
 *   BENCH_SQL=1             also print each query's compiled statement and parameters (for EXPLAIN)
 * The database must hold a chain (npm run seed -- --scale 360 gives ~9 M tx_out rows).
 */
import { startBenchService } from "./bench/service.ts";
import * as Reactivity from "@effect/experimental/Reactivity";
import { Effect, Exit, Scope } from "effect";
import { type FragmentDefinitionNode, getOperationAST, getVariableValues, Kind, parse } from "graphql";
import pg from "pg";
import { makePgSqlClient } from "@layers/sql_pg.ts";
import { buildSchema } from "@src/graphql/build_schema.ts";
import { compileQuery } from "@src/graphql/compile.ts";
import { epochSource } from "@src/graphql/epoch_source.ts";
import { preparedStandInText } from "@src/graphql/epoch_progress_cache.ts";
import type { SqlBuilder } from "@src/graphql/sql_text.ts";
import { advanceEpochProgress, epochIsFinalizedView, noEpochProgress } from "@src/queries/epoch_progress.ts";
import { readSchemaModel } from "@src/queries/schema_model.ts";
import { latencyMs, reportRows } from "./bench/results.ts";

const databaseUrl = Deno.env.get("BENCH_DATABASE_URL") ?? "postgres://postgres@127.0.0.1:5432/scale_360";
const seconds = Number(Deno.env.get("BENCH_SECONDS") ?? "8");
const connections = Number(Deno.env.get("BENCH_CONNECTIONS") ?? "32");
const only = Deno.env.get("BENCH_ONLY");
const printSql = Deno.env.get("BENCH_SQL") === "1";
const port = 3312;

interface Case {
  readonly name: string;
  readonly query: string;
  readonly variables: Record<string, unknown>;
}

const scope = Effect.runSync(Scope.make());
const sql = await Effect.runPromise(
  // as the service's GraphQL pool (layers/graphql_schemas.ts): no JIT, stand-in statements prepared
  makePgSqlClient({
    url: databaseUrl,
    maxConnections: connections,
    readOnly: true,
    noJit: true,
    prepareMarked: true,
  })
    .pipe(
      Scope.extend(scope),
      Effect.provide(Reactivity.layer),
    ),
);
const admin = new pg.Client({ connectionString: databaseUrl });
await admin.connect();
const one = async (text: string) => (await admin.query(text)).rows[0];
const txHash = (await one(
  `select encode(t.hash, 'hex') as h from tx t where t.id >= (select max(id) / 2 from tx)
     and exists (select 1 from tx_out o join ma_tx_out m on m.tx_out_id = o.id where o.tx_id = t.id)
   order by t.id limit 1`,
)).h;
const poolView = (await one(
  "select h.view from pool_hash h join pool_update u on u.hash_id = h.id group by h.view order by count(*) desc limit 1",
)).view;
const epochNo = (await one("select max(epoch_no) as e from block")).e;
const vrfKeyHash = (await one(
  "select encode(vrf_key_hash, 'hex') as v from pool_update group by vrf_key_hash order by count(*) desc limit 1",
)).v;
await admin.end();

const allCases: Array<Case> = [
  {
    // README.md's GraphQL example
    name: "latest blocks",
    query: `{ block(limit: 3, order_by: {block_no: desc}) { block_no hash tx_count time } }`,
    variables: {},
  },
  {
    name: "latest blocks with their transactions",
    query: `{ block(order_by: {id: desc}, limit: 10) {
      block_no hash time tx_count slot_leader { pool_hash { view } }
      txes(order_by: {block_index: asc}, limit: 20) { hash fee out_sum } } }`,
    variables: {},
  },
  {
    name: "transaction with inputs, outputs and assets",
    query: `query Tx($hash: bytea!) { tx(where: {hash: {_eq: $hash}}) {
      hash fee deposit size block { block_no epoch_no time }
      tx_ins { tx_out_index out_tx { hash } tx_out { address value } }
      tx_outs(order_by: {index: asc}) { index address value
        ma_tx_outs { quantity multi_asset { policy name fingerprint } } } } }`,
    variables: { hash: txHash },
  },
  {
    name: "pool with its updates",
    query: `query Pool($id: String!) { pool_hash(where: {view: {_eq: $id}}) { view
      pool_updates(order_by: {id: desc}) { pledge margin fixed_cost active_epoch_no vrf_key_hash
        pool_metadata_ref { url } pool_relays { ipv4 dns_name port } } } }`,
    variables: { id: poolView },
  },
  {
    name: "pool updates by VRF key",
    query:
      `query Vrf($v: bytea!) { pool_update(where: {vrf_key_hash: {_eq: $v}}, order_by: {active_epoch_no: desc}) {
      pledge margin fixed_cost active_epoch_no vrf_key_hash pool_hash { view } } }`,
    variables: { v: vrfKeyHash },
  },
  {
    name: "blocks of a finished epoch, newest first, paged",
    query: `query Blocks($e: Int!, $n: Int!, $o: Int!) {
      block(where: {epoch_no: {_eq: $e}}, order_by: {block_no: desc}, limit: $n, offset: $o) {
        block_no epoch_no slot_no time tx_count hash } }`,
    variables: { e: epochNo - 1, n: 10, o: 20 },
  },
  {
    name: "blocks of the current epoch, oldest first",
    query: `query Blocks($e: Int!) {
      block(where: {epoch_no: {_eq: $e}}, order_by: {block_no: asc}, limit: 10) {
        block_no epoch_no slot_no time tx_count hash } }`,
    variables: { e: epochNo },
  },
  {
    name: "epoch aggregates (finished epoch)",
    query: `query Epoch($e: Int!) {
      epoch_finalized(where: {no: {_eq: $e}}) { no blk_count tx_count fees out_sum start_time end_time }
      block_aggregate(where: {epoch_no: {_eq: $e}}) { aggregate { count sum { size tx_count } max { block_no } } }
      ada_pots(where: {epoch_no: {_eq: $e}}) { epoch_no treasury reserves rewards utxo } }`,
    variables: { e: epochNo - 1 },
  },
  {
    // db-sync 13.7.2's epoch view sums the current epoch's blocks and transactions on every read
    name: "latest epochs (db-sync's epoch view)",
    query:
      `{ epoch(order_by: {no: desc}, limit: 5) { no blk_count tx_count fees out_sum start_time end_time } }`,
    variables: {},
  },
  {
    name: "one epoch by number (db-sync's epoch view)",
    query:
      `query Epoch($e: bigint!) { epoch(where: {no: {_eq: $e}}) { no blk_count tx_count fees out_sum } }`,
    variables: { e: epochNo },
  },
  {
    name: "epochs from a number, paged (db-sync's epoch view)",
    query: `query Epochs($from: bigint!) {
      epoch(where: {no: {_gte: $from}}, order_by: {no: asc}, limit: 3, offset: 1) {
        no start_time end_time blk_count tx_count fees out_sum } }`,
    variables: { from: Math.max(0, epochNo - 4) },
  },
  {
    name: "epoch view aggregates",
    query: `{ epoch_aggregate { aggregate { count sum { tx_count fees out_sum } max { no } } } }`,
    variables: {},
  },
];
const cases = allCases.filter((c) => !only || c.name.includes(only));

/** The statement the service runs for a case, compiled by the same code from the same database's catalog. */
const model = await Effect.runPromise(readSchemaModel(sql));
const schema = buildSchema(model);
// the epoch view's stand-in from totals taken now, as the service keeps them (src/graphql/epoch_progress_cache.ts)
const progress = await Effect.runPromise(epochIsFinalizedView(sql)) &&
  await Effect.runPromise(advanceEpochProgress(sql, noEpochProgress));
const sources = progress ? new Map([["epoch", (b: SqlBuilder) => epochSource(b, progress)]]) : undefined;
const compiled = cases.map((c) => {
  const document = parse(c.query);
  const operation = getOperationAST(document)!;
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments[d.name.value] = d;
  const variables = getVariableValues(schema, operation.variableDefinitions ?? [], c.variables);
  if (variables.errors) throw new Error(`${c.name}: ${variables.errors[0]!.message}`);
  return compileQuery(schema, model, operation, fragments, variables.coerced, c.variables, sources);
});

const wrk = async (c: Case, key: string, conns: number) => {
  const script = await Deno.makeTempFile({ suffix: ".lua" });
  await Deno.writeTextFile(
    script,
    `wrk.method = "POST"\nwrk.body = ${
      JSON.stringify(JSON.stringify({ query: c.query, variables: c.variables }))
    }\n` +
      `wrk.headers["Content-Type"] = "application/json"\nwrk.headers["apikey"] = "${key}"\n`,
  );
  const out = await new Deno.Command("wrk", {
    args: [
      `-t${Math.min(2, conns)}`,
      `-c${conns}`,
      `-d${seconds}s`,
      "--timeout",
      "30s",
      "--latency",
      "-s",
      script,
      `http://127.0.0.1:${port}/v1/graphql`,
    ],
    stdout: "piped",
  }).output();
  await Deno.remove(script);
  const text = new TextDecoder().decode(out.stdout);
  return {
    rps: Number(text.match(/Requests\/sec:\s+([\d.]+)/)?.[1] ?? 0),
    p50: text.match(/50%\s+([\d.]+\w+)/)?.[1] ?? "?",
    p99: text.match(/99%\s+([\d.]+\w+)/)?.[1] ?? "?",
    errors: Number(text.match(/Non-2xx or 3xx responses: (\d+)/)?.[1] ?? 0) +
      Number(text.match(/timeout (\d+)/)?.[1] ?? 0),
  };
};

/** The compiled statement without HTTP: `conns` fibers running it for `seconds`; rate, p50 and p99. */
const direct = (text: string, params: ReadonlyArray<unknown>, conns: number) =>
  Effect.gen(function* () {
    const until = Date.now() + seconds * 1000;
    const latencies: Array<number> = [];
    const worker = Effect.whileLoop({
      while: () => Date.now() < until,
      body: () =>
        Effect.suspend(() => {
          const started = performance.now();
          return Effect.ignore(sql.unsafe(text, params as Array<unknown>)).pipe(
            Effect.tap(() => void latencies.push(performance.now() - started)),
          );
        }),
      step: () => {},
    });
    yield* Effect.all(Array.from({ length: conns }, () => worker), { concurrency: "unbounded" });
    latencies.sort((a, b) => a - b);
    return {
      rps: latencies.length / seconds,
      p50: latencies[Math.floor(latencies.length * 0.5)] ?? 0,
      p99: latencies[Math.floor(latencies.length * 0.99)] ?? 0,
    };
  });

// GraphQL's own rate limit (per key) lifted too: the bench measures the work, not the limit
const service = await startBenchService({ databaseUrl, port, env: { GRAPHQL_RATE_PAID: "0" } });
const { key } = service;
try {
  console.log(
    `database ${
      new URL(databaseUrl).pathname.slice(1)
    }; 1 and ${connections} concurrent; ${seconds} s each\n`,
  );
  console.log(
    "| query | p50 (1 conn) | p99 (1 conn) | direct p50 (1 conn) | service req/s | p50 | p99 | " +
      "SQL statements | direct query/s | direct p99 | ratio | errors |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|---|---|---|");
  const sqlText: Array<string> = [];
  for (const [i, c] of cases.entries()) {
    // the first answers are 503 while the service connects its databases after /health already answers
    let probe: Response;
    for (let tries = 0;; tries++) {
      probe = await fetch(`http://127.0.0.1:${port}/v1/graphql`, {
        method: "POST",
        headers: { apikey: key, "content-type": "application/json" },
        body: JSON.stringify({ query: c.query, variables: c.variables }),
      });
      if (probe.status !== 503 || tries >= 300) break;
      await probe.body?.cancel();
      await new Promise((r) => setTimeout(r, 200));
    }
    const answer = await probe.json();
    if (answer.errors || probe.status !== 200) {
      throw new Error(`${c.name}: ${probe.status} ${JSON.stringify(answer.errors ?? answer)}`);
    }
    const statements = probe.headers.get("x-sql-statements");
    const { sql: compiledText, read, params } = compiled[i]!;
    // run as the service runs it: a statement over the epoch view's stand-in prepared
    const text = sources && read.has("epoch") ? preparedStandInText(compiledText!) : compiledText;
    if (printSql) sqlText.push(`-- ${c.name}\n-- ${JSON.stringify(params)}\n${text};\n`);
    await wrk(c, key, connections); // warm-up
    const alone = await wrk(c, key, 1);
    const served = await wrk(c, key, connections);
    const directAlone = await Effect.runPromise(direct(text!, params, 1));
    const baseline = await Effect.runPromise(direct(text!, params, connections));
    console.log(
      `| ${c.name} | ${alone.p50} | ${alone.p99} | ${directAlone.p50.toFixed(1)}ms | ` +
        `${Math.round(served.rps)} | ${served.p50} | ${served.p99} | ${statements} | ` +
        `${Math.round(baseline.rps)} | ${baseline.p99.toFixed(1)}ms | ${
          (served.rps / baseline.rps).toFixed(2)
        } | ` +
        `${served.errors + alone.errors} |`,
    );
    await reportRows("graphql", [
      {
        workload: `${c.name}, 1 connection`,
        ours: alone.rps,
        unit: "req/s",
        reference: directAlone.rps,
        referenceName: "compiled SQL directly, 1 at a time",
        p50Ms: latencyMs(alone.p50),
        p99Ms: latencyMs(alone.p99),
        errors: alone.errors,
      },
      {
        workload: c.name,
        ours: served.rps,
        unit: "req/s",
        reference: baseline.rps,
        referenceName: "compiled SQL directly",
        p50Ms: latencyMs(served.p50),
        p99Ms: latencyMs(served.p99),
        errors: served.errors,
      },
    ]);
  }
  if (printSql) console.log(`\n${sqlText.join("\n")}`);
} finally {
  await service.stop();
  await Effect.runPromise(Scope.close(scope, Exit.void));
}
