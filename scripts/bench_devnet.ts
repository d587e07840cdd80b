/**
 * Devnet benchmark: submissions validated per second (phase 1 against the chain database and the mempool, real
 * ed25519 checks, CML decoding), Plutus script spends evaluated and submitted per second (phase 2 with the UPLC
 * evaluator), and the time from submission to `found` (tx-status' query) with the block producer running. On a
 * fresh PGlite demo chain by default; on PostgreSQL with BENCH_POSTGRES_URL (a server URL: a scratch database is
 * created, seeded and dropped).
 *   npm run bench:devnet   BENCH_SUBMISSIONS=800 BENCH_PLUTUS=200 BENCH_BLOCK_MS=1000 BENCH_POSTGRES_URL=postgres://…
 */
import * as Reactivity from "@effect/experimental/Reactivity";
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import type { SqlClient } from "@effect/sql/SqlClient";
import { Effect, Exit, Scope } from "effect";
import pg from "pg";
import { makePgSqlClient } from "@layers/sql_pg.ts";
import { makePgliteSqlClientFrom, openPglite } from "@layers/sql_pglite.ts";
import { seedDemoChainPglite, seedDemoChainPostgres } from "@src/demo_chain/seed.ts";
import { makeDevnet } from "@src/devnet/devnet.ts";
import { type LedgerParams, readLedgerParams } from "@src/devnet/rules/ledger_view.ts";
import { deriveWallets, loadOrCreateSeed } from "@src/devnet/wallets/wallets.ts";
import { txConfirmation } from "@src/queries/tx_status.ts";
import { unspentOutputs } from "@src/queries/utxo.ts";
import { reportRows } from "./bench/results.ts";

const submissions = Number(Deno.env.get("BENCH_SUBMISSIONS") ?? "800");
const plutusSpends = Number(Deno.env.get("BENCH_PLUTUS") ?? "200");
const blockMs = Number(Deno.env.get("BENCH_BLOCK_MS") ?? "1000");
const postgresUrl = Deno.env.get("BENCH_POSTGRES_URL");
const ada = 1_000_000n;

const scope = Effect.runSync(Scope.make());
const run = <A, E>(e: Effect.Effect<A, E, Scope.Scope | Reactivity.Reactivity>) =>
  Effect.runPromise(e.pipe(Scope.extend(scope), Effect.provide(Reactivity.layer)));

const openChain = async (): Promise<{ sql: SqlClient; backend: string; cleanup: () => Promise<void> }> => {
  if (postgresUrl) {
    const name = `bench_devnet_${crypto.randomUUID().slice(0, 8)}`;
    const admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
    await admin.query(`create database "${name}"`);
    const url = new URL(postgresUrl);
    url.pathname = `/${name}`;
    await Effect.runPromise(seedDemoChainPostgres(url.toString(), { network: "mainnet", scale: 1 }));
    const sql = await run(makePgSqlClient({ url: url.toString(), maxConnections: 4 }));
    return {
      sql,
      backend: "PostgreSQL",
      cleanup: async () => {
        await Effect.runPromise(Scope.close(scope, Exit.void));
        await admin.query(`drop database if exists "${name}" with (force)`);
        await admin.end();
      },
    };
  }
  // as the embedded service does: seed, then serve from a fresh instance (seeding grows the wasm heap for good)
  const dir = await Deno.makeTempDir({ prefix: "bench-devnet-chain-" });
  const seeding = await openPglite(dir);
  await Effect.runPromise(seedDemoChainPglite(seeding, { network: "mainnet", scale: 1 }));
  await seeding.close();
  const db = await openPglite(dir);
  const sql = await run(makePgliteSqlClientFrom(db));
  return {
    sql,
    backend: "embedded PGlite (on disk, reopened after seeding)",
    cleanup: async () => {
      await Effect.runPromise(Scope.close(scope, Exit.void));
      await db.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
};

interface Utxo {
  readonly input: CML.TransactionInput;
  readonly coin: bigint;
}

/** A signed payment spending `from`, paying each of `to`, change back to `change`; the fee is the minimum. */
const payment = (
  params: LedgerParams,
  key: CML.PrivateKey,
  from: Utxo,
  to: ReadonlyArray<readonly [CML.Address, bigint, "inline unit datum"?]>,
  change: CML.Address,
) => {
  const make = (fee: bigint) => {
    const inputs = CML.TransactionInputList.new();
    inputs.add(from.input);
    const outputs = CML.TransactionOutputList.new();
    for (const [address, coin, datum] of to) {
      outputs.add(CML.TransactionOutput.new(
        address,
        CML.Value.from_coin(coin),
        datum ? CML.DatumOption.new_datum(unitData()) : undefined,
      ));
    }
    const rest = from.coin - to.reduce((s, [, c]) => s + c, 0n) - fee;
    outputs.add(CML.TransactionOutput.new(change, CML.Value.from_coin(rest)));
    const body = CML.TransactionBody.new(inputs, outputs, fee);
    const witnesses = CML.TransactionWitnessSet.new();
    const vkeys = CML.VkeywitnessList.new();
    vkeys.add(CML.make_vkey_witness(CML.hash_transaction(body), key));
    witnesses.set_vkeywitnesses(vkeys);
    return CML.Transaction.new(body, witnesses, true);
  };
  const fee = CML.min_fee(make(300_000n), params.linearFee, params.prices, 0n);
  const tx = make(fee);
  return {
    tx,
    id: CML.hash_transaction(tx.body()).to_hex(),
    change: from.coin - fee - to.reduce((s, [, c]) => s + c, 0n),
  };
};

/** The always-succeeds Plutus V2 validator the demo chain uses, and a unit datum/redeemer. */
const alwaysSucceeds = CML.PlutusV2Script.from_cbor_hex("4e4d01000033222220051200120011");
const unitData = () => CML.PlutusData.from_cbor_hex("d87980");

/**
 * A signed spend of `locked` (at the always-succeeds script) with `fuel` paying the fee and serving as
 * collateral, as a dApp builds it: `units` come from evaluateTransaction (placeholders before that).
 */
const scriptSpend = (
  params: LedgerParams,
  key: CML.PrivateKey,
  locked: Utxo,
  fuel: Utxo,
  change: CML.Address,
  units: { memory: bigint; cpu: bigint },
) => {
  const lockedFirst = locked.input.transaction_id().to_hex() < fuel.input.transaction_id().to_hex() ||
    (locked.input.transaction_id().to_hex() === fuel.input.transaction_id().to_hex() &&
      locked.input.index() < fuel.input.index());
  const make = (fee: bigint) => {
    const inputs = CML.TransactionInputList.new();
    inputs.add(locked.input);
    inputs.add(fuel.input);
    const outputs = CML.TransactionOutputList.new();
    outputs.add(CML.TransactionOutput.new(change, CML.Value.from_coin(locked.coin + fuel.coin - fee)));
    const body = CML.TransactionBody.new(inputs, outputs, fee);
    const collateral = CML.TransactionInputList.new();
    collateral.add(fuel.input);
    body.set_collateral_inputs(collateral);
    const redeemerList = CML.LegacyRedeemerList.new();
    redeemerList.add(CML.LegacyRedeemer.new(
      CML.RedeemerTag.Spend,
      lockedFirst ? 0n : 1n,
      unitData(),
      CML.ExUnits.new(units.memory, units.cpu),
    ));
    const redeemers = CML.Redeemers.new_arr_legacy_redeemer(redeemerList);
    const languages = CML.LanguageList.new();
    languages.add(CML.Language.PlutusV2);
    body.set_script_data_hash(
      CML.calc_script_data_hash(redeemers, CML.PlutusDataList.new(), params.costModels, languages)!,
    );
    const witnesses = CML.TransactionWitnessSet.new();
    const vkeys = CML.VkeywitnessList.new();
    vkeys.add(CML.make_vkey_witness(CML.hash_transaction(body), key));
    witnesses.set_vkeywitnesses(vkeys);
    const scripts = CML.PlutusV2ScriptList.new();
    scripts.add(alwaysSucceeds);
    witnesses.set_plutus_v2_scripts(scripts);
    witnesses.set_redeemers(redeemers);
    return CML.Transaction.new(body, witnesses, true);
  };
  let fee = CML.min_fee(make(400_000n), params.linearFee, params.prices, 0n);
  fee = CML.min_fee(make(fee), params.linearFee, params.prices, 0n);
  return make(fee).to_cbor_hex();
};

const started = performance.now();
const chain = await openChain();
const seeded = performance.now();
const dataDir = await Deno.makeTempDir({ prefix: "bench-devnet-" });
try {
  const devnet = await Effect.runPromise(
    makeDevnet(chain.sql, { network: "mainnet", dataDir, blockIntervalMs: blockMs }),
  );
  const params = await Effect.runPromise(readLedgerParams(chain.sql));
  /**
   * Submits in rounds of what a block holds, writing the blocks between rounds (timed apart): a node's mempool
   * holds two blocks, and a submission beyond that waits for a block, which this loop does not make by itself.
   */
  const submitAll = async (cbors: ReadonlyArray<string>, perRound = 100) => {
    let submitMs = 0, blockMs = 0, blocks = 0;
    for (let i = 0; i < cbors.length; i += perRound) {
      const t0 = performance.now();
      for (const cbor of cbors.slice(i, i + perRound)) await Effect.runPromise(devnet.submit(cbor));
      submitMs += performance.now() - t0;
      const t1 = performance.now();
      while (devnet.mempool().length > 0) {
        await Effect.runPromise(devnet.produceBlock);
        blocks++;
      }
      blockMs += performance.now() - t1;
    }
    return { submitMs, blockMs, blocks };
  };
  const [alice, bob] = deriveWallets(await loadOrCreateSeed(dataDir), "mainnet", 1);
  const aliceAddress = CML.Address.from_bech32(alice!.address);
  const bobAddress = CML.Address.from_bech32(bob!.address);
  const rows = await Effect.runPromise(chain.sql<{ hash: string; index: number; value: string }>`
    select encode(t.hash, 'hex') as hash, o.index, o.value::text as value from tx_out o join tx t on t.id = o.tx_id
    where o.payment_cred = decode(${alice!.keyHash}, 'hex') order by o.value desc`);

  // fan out: chain outputs to spend independently (each submission then resolves its input in the database)
  const perFanOut = 200;
  const fanOuts = Math.ceil((submissions + 10 + plutusSpends) / perFanOut);
  let source: Utxo = {
    input: CML.TransactionInput.new(CML.TransactionHash.from_hex(rows[0]!.hash), BigInt(rows[0]!.index)),
    coin: BigInt(rows[0]!.value),
  };
  const spendable: Array<Utxo> = [];
  for (let k = 0; k < fanOuts; k++) {
    // each fan-out spends the previous one's change (a mempool output)
    const fan = payment(
      params,
      alice!.privateKey,
      source,
      Array.from({ length: perFanOut }, () => [aliceAddress, 5n * ada]),
      aliceAddress,
    );
    await Effect.runPromise(devnet.submit(fan.tx.to_cbor_hex()));
    for (let i = 0; i < perFanOut; i++) {
      spendable.push({
        input: CML.TransactionInput.new(CML.TransactionHash.from_hex(fan.id), BigInt(i)),
        coin: 5n * ada,
      });
    }
    source = {
      input: CML.TransactionInput.new(CML.TransactionHash.from_hex(fan.id), BigInt(perFanOut)),
      coin: fan.change,
    };
  }
  while (devnet.mempool().length > 0) await Effect.runPromise(devnet.produceBlock);

  const buildStarted = performance.now();
  const built = spendable.slice(0, submissions).map((u) =>
    payment(params, alice!.privateKey, u, [[bobAddress, 2n * ada]], aliceAddress)
  );
  const txs = built.map((b) => b.tx.to_cbor_hex());
  const buildMs = performance.now() - buildStarted;
  // the database part alone: the same UTxO lookups phase 1 makes, one per submission
  const lookupStarted = performance.now();
  for (const u of spendable.slice(0, submissions)) {
    await Effect.runPromise(unspentOutputs(chain.sql, {
      references: [{ txHash: u.input.transaction_id().to_hex(), index: Number(u.input.index()) }],
    }, "enable"));
  }
  const lookupMs = performance.now() - lookupStarted;
  // the irreducible CPU of a submission: decode, hash the body, verify its signature
  const rawStarted = performance.now();
  for (const cbor of txs) {
    const tx = CML.Transaction.from_cbor_hex(cbor);
    const hash = CML.hash_transaction(tx.body()).to_raw_bytes();
    const witness = tx.witness_set().vkeywitnesses()!.get(0);
    if (!witness.vkey().verify(hash, witness.ed25519_signature())) throw new Error("bad signature");
  }
  const rawMs = performance.now() - rawStarted;
  const { submitMs, blockMs: blockMsTaken, blocks } = await submitAll(txs);

  // Plutus: lock outputs at the script (inline datum), then spend each as a dApp does: evaluate, then submit
  const scriptAddress = CML.EnterpriseAddress.new(1, CML.Credential.new_script(alwaysSucceeds.hash()))
    .to_address();
  const locking = payment(
    params,
    alice!.privateKey,
    source,
    Array.from({ length: plutusSpends }, () => [scriptAddress, 3n * ada, "inline unit datum"]),
    aliceAddress,
  );
  const lockTx = locking.tx;
  const lockId = CML.hash_transaction(lockTx.body()).to_hex();
  await Effect.runPromise(devnet.submit(lockTx.to_cbor_hex()));
  while (devnet.mempool().length > 0) await Effect.runPromise(devnet.produceBlock);
  const fuels = spendable.slice(submissions + 10, submissions + 10 + plutusSpends);
  const lockedUtxos: Array<Utxo> = Array.from({ length: plutusSpends }, (_, i) => ({
    input: CML.TransactionInput.new(CML.TransactionHash.from_hex(lockId), BigInt(i)),
    coin: 3n * ada,
  }));
  const placeholder = { memory: 1_000_000n, cpu: 500_000_000n };
  const drafts = lockedUtxos.map((u, i) =>
    scriptSpend(params, alice!.privateKey, u, fuels[i]!, aliceAddress, placeholder)
  );
  const evaluateStarted = performance.now();
  const budgets: Array<{ memory: bigint; cpu: bigint }> = [];
  for (const draft of drafts) budgets.push((await Effect.runPromise(devnet.evaluate(draft)))[0]!.budget);
  const evaluateMs = performance.now() - evaluateStarted;
  const plutusTxs = lockedUtxos.map((u, i) =>
    scriptSpend(params, alice!.privateKey, u, fuels[i]!, aliceAddress, budgets[i]!)
  );
  const { submitMs: plutusMs } = await submitAll(plutusTxs);

  // time to found: the producer runs; each submission is polled through tx-status' query every 50 ms
  const producer = Effect.runSync(Scope.make());
  await Effect.runPromise(Scope.extend(devnet.start, producer));
  const waits: Array<number> = [];
  for (let k = 0; k < 10; k++) {
    const p = payment(
      params,
      alice!.privateKey,
      spendable[submissions + k]!,
      [[bobAddress, 2n * ada]],
      aliceAddress,
    );
    const t0 = performance.now();
    await Effect.runPromise(devnet.submit(p.tx.to_cbor_hex()));
    while (!(await Effect.runPromise(txConfirmation(chain.sql, p.id)))) {
      await new Promise((r) => setTimeout(r, 50));
    }
    waits.push(performance.now() - t0);
    await new Promise((r) => setTimeout(r, Math.random() * blockMs));
  }
  await Effect.runPromise(Scope.close(producer, Exit.void));
  waits.sort((a, b) => a - b);
  const f = (ms: number) => `${Math.round(ms)} ms`;
  console.log(`devnet benchmark on ${chain.backend}, demo chain scale 1 (seeded in ${f(seeded - started)})`);
  console.log(`  built and signed ${txs.length} payments with CML in ${f(buildMs)}`);
  console.log(
    `  submitted ${txs.length} (phase 1: decode, UTxO lookup, ed25519, fee, balance, min-UTxO) in ${
      f(submitMs)
    }: ` +
      `${(txs.length / (submitMs / 1000)).toFixed(0)} submissions/s, ${
        (submitMs / txs.length).toFixed(2)
      } ms each`,
  );
  console.log(
    `  the UTxO lookups alone take ${(lookupMs / txs.length).toFixed(2)} ms each, decoding + hashing + one ` +
      `ed25519 check alone ${(rawMs / txs.length).toFixed(2)} ms: together ` +
      `${((lookupMs + rawMs) / submitMs).toFixed(2)} of a submission's time`,
  );
  console.log(
    `  ${blocks} blocks holding them written in ${
      f(blockMsTaken)
    } (block body limit ${params.row.maxBlockSize} bytes)`,
  );
  console.log(
    `  Plutus spends (always-succeeds V2, inline datum): ${plutusSpends} evaluated in ${f(evaluateMs)} ` +
      `(${(plutusSpends / (evaluateMs / 1000)).toFixed(0)} evaluations/s), submitted with phase 2 in ` +
      `${f(plutusMs)} (${(plutusSpends / (plutusMs / 1000)).toFixed(0)} submissions/s, ` +
      `${(plutusMs / plutusSpends).toFixed(2)} ms each)`,
  );
  console.log(
    `  submission to found (block every ${blockMs} ms, polled every 50 ms): median ${f(waits[5]!)}, ` +
      `min ${f(waits[0]!)}, max ${f(waits[9]!)}`,
  );
  await reportRows("devnet", [
    {
      workload: `payments submitted (phase 1), ${chain.backend}`,
      ours: txs.length / (submitMs / 1000),
      unit: "tx/s",
      // the share of a submission that is its bare lookups and checks
      reference: txs.length / ((lookupMs + rawMs) / 1000),
      referenceName: "its UTxO lookup + decode + ed25519 alone",
    },
    {
      workload: `Plutus spends evaluated, ${chain.backend}`,
      ours: plutusSpends / (evaluateMs / 1000),
      unit: "tx/s",
    },
    {
      workload: `Plutus spends submitted (phase 2), ${chain.backend}`,
      ours: plutusSpends / (plutusMs / 1000),
      unit: "tx/s",
    },
    {
      workload: `submission to found, median, blocks every ${blockMs} ms, ${chain.backend}`,
      ours: waits[5]!,
      unit: "ms",
    },
  ]);
} finally {
  await chain.cleanup();
  await Deno.remove(dataDir, { recursive: true });
}
