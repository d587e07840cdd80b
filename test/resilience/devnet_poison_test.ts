/**
 * No transaction the devnet accepted can stop its blocks. Through the running service (a block a second): a
 * payment whose metadata text holds U+0000 (a node accepts it; PostgreSQL's jsonb cannot hold `\u0000`) is
 * stored as db-sync stores it, json NULL and the CBOR kept, and an honest payment submitted after it is confirmed
 * within a few blocks, with /health quick throughout. Against the devnet engine (PGlite, or PostgreSQL with
 * TEST_DATABASE_URL): the other control characters db-sync nulls the JSON for; NUL in a DRep anchor URL or a pool
 * relay's DNS name (varchar, which db-sync has no stored form for) refused at submission with 3997; and a
 * transaction whose rows the database refuses (its hash already in `tx`, written there first) left out of its
 * block with the one spending its output, while the rest of the block is written and blocks keep coming; a
 * failure even the empty block meets (a constraint on every new block row) drops nothing.
 */
import assert from "node:assert/strict";
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import * as CSL from "@emurgo/cardano-serialization-lib-nodejs";
import { hex } from "@scure/base";
import { Effect, Logger } from "effect";
import { big } from "../../scripts/devnet_example.ts";
import { type Json, type OgmiosUtxo, openDevnetService, sleep } from "../support/devnet_service.ts";
import { buildTx, openDevnet, payTo, walletUtxos } from "../support/devnet_tx.ts";
import { expectAccepted, expectRejection } from "../support/devnet_rejection.ts";
import { anchor, certs, credential, key, rewardAddress } from "../support/governance_tx.ts";

const ada = 1_000_000n;

Deno.test({
  name:
    "devnet poison: metadata with U+0000 stored as db-sync stores it, an honest payment after it confirmed",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    // the devnet lives on the embedded chain: on the PostgreSQL pass the service database (and Redis) are real
    // servers and mainnet's chain is embedded all the same
    const s = await openDevnetService("devnet_poison_e2e", { embeddedChain: true });
    try {
      const [payer, payee] = s.wallets;
      const signingKey = CSL.PrivateKey.from_bech32(payer!.signingKey);
      const payerAddress = CSL.Address.from_bech32(payer!.address);
      const payment = (input: OgmiosUtxo, lovelace: number, metadata?: CSL.GeneralTransactionMetadata) => {
        const builder = CSL.TransactionBuilder.new(s.config);
        builder.add_regular_input(
          payerAddress,
          CSL.TransactionInput.new(CSL.TransactionHash.from_hex(input.transaction.id), input.index),
          CSL.Value.new(big(input.value.ada.lovelace)),
        );
        builder.add_output(
          CSL.TransactionOutput.new(CSL.Address.from_bech32(payee!.address), CSL.Value.new(big(lovelace))),
        );
        if (metadata) {
          const auxiliary = CSL.AuxiliaryData.new();
          auxiliary.set_metadata(metadata);
          builder.set_auxiliary_data(auxiliary);
        }
        builder.add_change_if_needed(payerAddress);
        const fixed = CSL.FixedTransaction.from_bytes(builder.build_tx().to_bytes());
        fixed.sign_and_add_vkey_signature(signingKey);
        return { cbor: fixed.to_hex(), id: fixed.transaction_hash().to_hex() };
      };
      const poisonText = "before\u0000after";
      const poisonMetadatum = CSL.TransactionMetadatum.new_text(poisonText);
      const metadata = CSL.GeneralTransactionMetadata.new();
      metadata.insert(CSL.BigNum.from_str("674"), poisonMetadatum);
      // the start's own work done first (a fresh chain's first block crosses the epochs since its end): two blocks
      const height = async () => (await s.rpc("queryNetwork/blockHeight")).result as number;
      const start = await height();
      for (let i = 0; i < 40 && await height() < start + 2; i++) await sleep(250);
      const [first, second] = await s.utxosOf(payer!.address);
      await s.syncFromTip();
      const poisoned = payment(first!, 3_000_000, metadata);
      const honest = payment(second!, 4_000_000);

      /** /health answer times (and any status but 200) from now until the returned stop is called. */
      const watchHealth = () => {
        const times: Array<number> = [];
        const failures: Array<string> = [];
        let watching = true;
        const loop = (async () => {
          while (watching) {
            const started = performance.now();
            try {
              const r = await fetch(`${s.base}/health`);
              await r.body?.cancel();
              if (r.status !== 200) failures.push(`HTTP ${r.status}`);
            } catch (e) {
              failures.push(String(e));
            }
            times.push(performance.now() - started);
            await sleep(100);
          }
        })();
        return async () => {
          watching = false;
          await loop;
          return { times, failures };
        };
      };
      /** Polls tx-status every 250 ms; the time it took, or undefined past `ms`. */
      const confirmedWithin = async (id: string, ms: number) => {
        const started = performance.now();
        while (performance.now() - started < ms) {
          const status = await s.get(`/api/public/tx-status?txHash=${id}&network=mainnet`);
          assert.equal(status.status, 200);
          if (status.body.found) return performance.now() - started;
          await sleep(250);
        }
        return undefined;
      };

      await t.step(
        "both are accepted; the honest one is confirmed within a few block intervals",
        async () => {
          const stop = watchHealth();
          let took: number | undefined;
          try {
            assert.equal(await s.client.submitTransaction(poisoned.cbor), poisoned.id);
            await sleep(1_500); // a block with the poisoned transaction alone is due first
            assert.equal(await s.client.submitTransaction(honest.cbor), honest.id);
            // a block a second: five intervals are plenty, even on a loaded machine
            took = await confirmedWithin(honest.id, 5_000);
          } finally {
            const { times, failures } = await stop();
            const sorted = [...times].sort((a, b) => a - b);
            const p99 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))]!;
            console.log(
              `honest payment confirmed in ${took === undefined ? "-" : Math.round(took)} ms; /health ` +
                `${times.length} samples, median ${sorted[sorted.length >> 1]!.toFixed(1)} ms, p99 ` +
                `${p99.toFixed(1)} ms, max ${sorted.at(-1)!.toFixed(1)} ms`,
            );
            assert.deepEqual(failures, [], "/health answers 200 throughout");
            // typical answers under 100 ms; no stall. Single samples on a loaded 2-core machine reach 100-250 ms
            // while an embedded block write holds the thread (a worker per embedded database is issue 14 item 1)
            const median = sorted[sorted.length >> 1]!;
            assert.ok(median < 100, `/health median ${median.toFixed(1)} ms during the poisoned blocks`);
            assert.ok(sorted.at(-1)! < 1_000, `/health max ${sorted.at(-1)!.toFixed(1)} ms: no stall`);
          }
          assert.ok(took !== undefined, "the honest payment is confirmed within five block intervals");
          assert.ok((await confirmedWithin(poisoned.id, 1_000)) !== undefined, "the poisoned one too");
        },
      );

      await t.step("the metadata row is db-sync's: json NULL, the label's CBOR kept", async () => {
        const data = await s.graphql(`{
          tx_metadata(where: {tx: {hash: {_eq: "${poisoned.id}"}}}) { key json bytes }
        }`);
        assert.deepEqual(data.tx_metadata, [{
          key: "674",
          json: null,
          bytes: poisonMetadatum.to_hex(),
        }]);
      });

      await t.step("every interface answers for it without a 5xx", async () => {
        const explorer = await s.get(`/v2/explorer/mainnet/tx/${poisoned.id}`);
        assert.equal(explorer.status, 200, JSON.stringify(explorer.body));
        const seen: Json = await s.syncUntil(poisoned.id);
        // Ogmios' label without its JSON form, as for any metadatum db-sync kept no JSON of
        assert.deepEqual(seen.metadata.labels["674"], { cbor: poisonMetadatum.to_hex() });
        const paid = (await s.utxosOf(payee!.address)).filter((u) =>
          u.transaction.id === honest.id || u.transaction.id === poisoned.id
        );
        assert.equal(paid.length, 2, "both payments reached the payee");
      });
    } finally {
      await s.close();
    }
  },
});

/** Runs `effect`, collecting its warnings as text. */
const withWarnings = async <A>(effect: Effect.Effect<A, unknown>) => {
  const warnings: Array<string> = [];
  const logger = Logger.make(({ logLevel, message }) => {
    if (logLevel._tag === "Warning") warnings.push((Array.isArray(message) ? message : [message]).join(" "));
  });
  const value = await Effect.runPromise(
    effect.pipe(Effect.provide(Logger.replace(Logger.defaultLogger, logger))),
  );
  return { value, warnings };
};

Deno.test("devnet poison: what db-sync cannot store, and a block whose write fails on one transaction", async (t) => {
  const f = await openDevnet("devnet_poison");
  const [alice, bob] = [f.keys[0]!, f.keys[1]!];
  const query = <A extends object>(s: Effect.Effect<ReadonlyArray<A>, unknown>) => Effect.runPromise(s);
  try {
    const [a1, a2, a3] = await walletUtxos(f, alice.address);
    const [b1, b2, b3] = await walletUtxos(f, bob.address);

    await t.step("control characters db-sync nulls the JSON for: json NULL, bytes kept", async () => {
      const texts: Record<string, string> = {
        "674": "nul\u0000",
        "675": "bell\u0007",
        "676": "literal \\u0000, as typed",
        "677": "tab\tnewline\ncarriage return\r", // short escapes in Aeson: kept
        "678": "unit separator\u001f", // \u001f: kept, no \u000 in it
      };
      const metadata = CML.Metadata.new();
      for (const [label, text] of Object.entries(texts)) {
        metadata.set(BigInt(label), CML.TransactionMetadatum.new_text(text));
      }
      const id = await expectAccepted(
        f,
        buildTx(f.params, {
          inputs: [a1!],
          outputs: [payTo(bob.address, 3n * ada)],
          signers: [alice.privateKey],
          auxiliary: CML.AuxiliaryData.new_shelley(metadata),
        }),
      );
      assert.deepEqual((await Effect.runPromise(f.devnet.produceBlock)).txIds, [id]);
      const rows = await query(f.chain.sql<{ key: string; json: unknown; bytes: string }>`
        select m.key::text as key, m.json, encode(m.bytes, 'hex') as bytes from tx_metadata m
        join tx t on t.id = m.tx_id where t.hash = decode(${id}, 'hex') order by m.key`);
      assert.deepEqual(
        rows,
        Object.entries(texts).map(([key, text]) => ({
          key,
          json: ["677", "678"].includes(key) ? text : null,
          bytes: hex.encode(CML.TransactionMetadatum.new_text(text).to_cbor_bytes()),
        })),
      );
    });

    await t.step(
      "NUL in a DRep anchor URL or a pool relay's DNS name: refused at submission, 3997",
      async () => {
        const drep = key(41);
        const withNul = (url: string) => CML.Url.from_json(JSON.stringify(url));
        const registration = buildTx(f.params, {
          inputs: [a2!],
          outputs: [],
          signers: [alice.privateKey, drep],
          balanceAdjust: f.params.drepDeposit,
          body: certs(
            CML.Certificate.new_reg_drep_cert(
              credential(drep),
              f.params.drepDeposit,
              CML.Anchor.new(
                withNul("https://d.invalid/\u0000"),
                anchor("https://d.invalid").anchor_doc_hash(),
              ),
            ),
          ),
        });
        const error = await expectRejection(f, registration, 3997);
        assert.match(String((error.data as { error: string }).error), /DRep anchor URL contains a NUL/);

        const pool = key(42);
        const owners = CML.Ed25519KeyHashList.new();
        owners.add(pool.to_public().hash());
        const relays = CML.RelayList.new();
        relays.add(
          CML.Relay.new_single_host_name(3001, CML.DNSName.from_json(JSON.stringify("relay\u0000.invalid"))),
        );
        const poolRegistration = buildTx(f.params, {
          inputs: [a2!],
          outputs: [],
          signers: [alice.privateKey, pool],
          balanceAdjust: f.params.poolDeposit,
          body: certs(CML.Certificate.new_pool_registration(CML.PoolParams.new(
            pool.to_public().hash(),
            CML.VRFKeyHash.from_raw_bytes(new Uint8Array(32).fill(6)),
            0n,
            170n * ada,
            CML.UnitInterval.new(1n, 100n),
            rewardAddress(pool),
            owners,
            relays,
          ))),
        });
        const relayError = await expectRejection(f, poolRegistration, 3997);
        assert.match(
          String((relayError.data as { error: string }).error),
          /pool relay DNS name contains a NUL/,
        );
      },
    );

    await t.step(
      "a transaction whose rows the database refuses is left out with its child; the rest is written",
      async () => {
        const honest = await expectAccepted(
          f,
          buildTx(f.params, {
            inputs: [a2!],
            outputs: [payTo(bob.address, 5n * ada)],
            signers: [alice.privateKey],
          }),
        );
        const poisonedTx = buildTx(f.params, {
          inputs: [a3!],
          outputs: [payTo(alice.address, 20n * ada)],
          signers: [alice.privateKey],
        });
        const poisoned = await expectAccepted(f, poisonedTx);
        const child = await expectAccepted(
          f,
          buildTx(f.params, {
            inputs: [{
              input: CML.TransactionInput.new(CML.TransactionHash.from_hex(poisoned), 0n),
              output: poisonedTx.body().outputs().get(0),
            }],
            outputs: [payTo(bob.address, 2n * ada)],
            signers: [alice.privateKey],
          }),
        );
        const later = await expectAccepted(
          f,
          buildTx(f.params, {
            inputs: [b1!],
            outputs: [payTo(alice.address, 6n * ada)],
            signers: [bob.privateKey],
          }),
        );
        assert.deepEqual(f.devnet.mempool(), [honest, poisoned, child, later]);

        // another writer got there first: a tx row with the poisoned transaction's hash (unique in db-sync's
        // schema), far above the ids the devnet takes next
        await query(f.chain.sql`
          insert into tx (id, hash, block_id, block_index, out_sum, fee, deposit, size, valid_contract,
                          script_size, treasury_donation)
          select (select max(id) + 1000 from tx), decode(${poisoned}, 'hex'), (select max(id) from block), 0,
                 0, 0, 0, 0, true, 0, 0`);

        const before = f.devnet.stats();
        assert.equal(before.mempoolTransactions, 4);
        assert.ok(before.mempoolBytes > 4 * 150, `the mempool's bytes: ${before.mempoolBytes}`);
        const { value: block, warnings } = await withWarnings(f.devnet.produceBlock);
        assert.deepEqual(block.txIds, [honest, later], "the block holds the rest, in order");
        assert.deepEqual(f.devnet.mempool(), [], "the poisoned one and its child left the mempool");
        // what the metrics read (cds_devnet_*)
        const after = f.devnet.stats();
        assert.deepEqual([after.mempoolTransactions, after.mempoolBytes], [0, 0]);
        assert.equal(after.blocksProduced, before.blocksProduced + 1);
        assert.deepEqual(after.dropped, {
          isolation: before.dropped.isolation + 2, // the poisoned one, and its child left out with it
          expired: before.dropped.expired,
          orphaned: before.dropped.orphaned,
        });
        const [written] = await query(f.chain.sql<{ txs: number; hashes: Array<string> }>`
          select b.tx_count::int as txs,
                 (select array_agg(encode(t.hash, 'hex') order by t.block_index) from tx t where t.block_id = b.id)
                   as hashes
          from block b where b.hash = decode(${block.hash}, 'hex')`);
        assert.deepEqual(written, { txs: 2, hashes: [honest, later] });
        const [outputs] = await query(f.chain.sql<{ n: string }>`
          select count(*)::text as n from tx_out o join tx t on t.id = o.tx_id where t.hash = decode(${poisoned}, 'hex')`);
        assert.equal(outputs!.n, "0", "nothing of the poisoned transaction was written");
        assert.ok(
          warnings.some((w) => w.includes(poisoned) && /23505|unique/i.test(w)),
          `a warning names ${poisoned} and the database's error: ${JSON.stringify(warnings)}`,
        );
        assert.ok(warnings.some((w) => w.includes(child)), `a warning names the child ${child}`);
      },
    );

    await t.step(
      "a failure the empty block shares is no transaction's fault: the mempool stays whole",
      async () => {
        const waiting = await expectAccepted(
          f,
          buildTx(f.params, {
            inputs: [b2!],
            outputs: [payTo(alice.address, 8n * ada)],
            signers: [bob.privateKey],
          }),
        );
        // every new block row violates this (23514, the class a transaction's own rows fail with)
        await query(
          f.chain.sql`alter table block add constraint poison_test_no_blocks check (block_no < 0) not valid`,
        );
        try {
          const failed = await withWarnings(Effect.either(f.devnet.produceBlock));
          assert.ok(failed.value._tag === "Left", "the block is not written");
          assert.deepEqual(failed.warnings, [], "nothing is dropped");
          assert.deepEqual(f.devnet.mempool(), [waiting]);
        } finally {
          await query(f.chain.sql`alter table block drop constraint poison_test_no_blocks`);
        }
        assert.deepEqual((await Effect.runPromise(f.devnet.produceBlock)).txIds, [waiting]);
      },
    );

    await t.step("blocks keep coming, with new transactions", async () => {
      const next = await expectAccepted(
        f,
        buildTx(f.params, {
          inputs: [b3!],
          outputs: [payTo(alice.address, 7n * ada)],
          signers: [bob.privateKey],
        }),
      );
      const block = await Effect.runPromise(f.devnet.produceBlock);
      assert.deepEqual(block.txIds, [next]);
      const after = await Effect.runPromise(f.devnet.produceBlock);
      assert.equal(after.blockNo, block.blockNo + 1);
    });
  } finally {
    await f.close();
  }
});
