/**
 * Phase-1 validation through the devnet's submitTransaction: a real payment built and signed with CML is
 * accepted, and every rejection rule answers Ogmios' error object for a deliberately broken transaction,
 * leaving the UTxO set and the mempool as they were.
 */
import assert from "node:assert/strict";
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import { hex } from "@scure/base";
import { Effect, Either, TestClock, TestContext } from "effect";
import { buildTx, openDevnet, payTo, submit, walletUtxos } from "../support/devnet_tx.ts";
import { expectRejection, plainJson } from "../support/devnet_rejection.ts";

const ada = 1_000_000n;

Deno.test("devnet phase-1 rules", async (t) => {
  const f = await openDevnet("devnet_phase1");
  const [alice, bob] = [f.keys[0]!, f.keys[1]!];
  try {
    const aliceUtxos = await walletUtxos(f, alice.address);
    const big = aliceUtxos[0]!;
    const payment = (overrides: Partial<Parameters<typeof buildTx>[1]> = {}) =>
      buildTx(f.params, {
        inputs: [big],
        outputs: [payTo(bob.address, 25n * ada)],
        signers: [alice.privateKey],
        ...overrides,
      });

    await t.step("the funding block gave every wallet its outputs", () => {
      assert.equal(aliceUtxos.length, 4);
      assert.equal(big.output.amount().coin(), 10_000n * ada);
    });

    await t.step("undecodable CBOR is -32602 with a message per era", async () => {
      const error = await expectRejection(f, "deadbeef", -32602);
      assert.deepEqual(Object.keys(error.data as object).sort(), [
        "allegra",
        "alonzo",
        "babbage",
        "conway",
        "mary",
        "shelley",
      ]);
      await expectRejection(f, "not hex at all", -32602);
    });

    await t.step("an unknown input is 3117 (InputsExhausted)", async () => {
      const ghost = {
        input: CML.TransactionInput.new(CML.TransactionHash.from_hex("ab".repeat(32)), 0n),
        output: big.output,
      };
      const error = await expectRejection(f, payment({ inputs: [ghost] }), 3117);
      assert.match(error.message, /^InputsExhausted/);
      assert.deepEqual(error.data, {
        unknownOutputReferences: [{ transaction: { id: "ab".repeat(32) }, index: 0 }],
      });
    });

    await t.step("value not conserved is 3123 (ValueNotConserved, InsufficientFunds)", async () => {
      const tx = payment({ outputs: [payTo(bob.address, 20_000n * ada)] });
      const error = await expectRejection(f, tx, 3123);
      assert.match(error.message, /^ValueNotConserved \(InsufficientFunds\)/);
      const unbalanced = payment({ fee: 400_000n });
      // the builder's change assumes the given fee, so break the balance with more change than allowed
      const body = unbalanced.body();
      const outputs = CML.TransactionOutputList.new();
      outputs.add(payTo(bob.address, 25n * ada));
      outputs.add(payTo(alice.address, 9_975n * ada));
      const raw = CML.TransactionBody.new(body.inputs(), outputs, 400_000n);
      const set = CML.TransactionWitnessSet.new();
      const vkeys = CML.VkeywitnessList.new();
      vkeys.add(CML.make_vkey_witness(CML.hash_transaction(raw), alice.privateKey));
      set.set_vkeywitnesses(vkeys);
      await expectRejection(f, CML.Transaction.new(raw, set, true), 3123);
    });

    await t.step("a fee under the minimum is 3122 (FeeTooSmall)", async () => {
      const error = await expectRejection(f, payment({ fee: 100_000n }), 3122);
      assert.match(error.message, /^FeeTooSmall/);
      const data = error.data as { minimumRequiredFee: { ada: { lovelace: bigint } } };
      assert.ok(data.minimumRequiredFee.ada.lovelace > 150_000n);
    });

    await t.step("an expired transaction is 3118 (TxExpired)", async () => {
      const error = await expectRejection(f, payment({ body: (b) => b.set_ttl(1000n) }), 3118);
      assert.match(error.message, /^TxExpired/);
      assert.deepEqual((error.data as { validityInterval: unknown }).validityInterval, {
        invalidAfter: 1000,
      });
      await expectRejection(f, payment({ body: (b) => b.set_validity_interval_start(10n ** 12n) }), 3118);
    });

    await t.step("a missing signature is 3101", async () => {
      const error = await expectRejection(f, payment({ signers: [] }), 3101);
      assert.deepEqual(error.data, { missingSignatories: [alice.keyHash] });
      await expectRejection(f, payment({ signers: [bob.privateKey] }), 3101);
    });

    await t.step("a signature that does not verify is 3100 (real ed25519)", async () => {
      const forged = payment({
        signers: [],
        witnesses: (set) => {
          const vkeys = CML.VkeywitnessList.new();
          const other = CML.hash_transaction(payment({ fee: 300_000n }).body());
          vkeys.add(CML.make_vkey_witness(other, alice.privateKey));
          set.set_vkeywitnesses(vkeys);
        },
      });
      const error = await expectRejection(f, forged, 3100);
      assert.equal((error.data as { invalidSignatories: Array<string> }).invalidSignatories.length, 1);
    });

    await t.step("an output under the minimum ADA is 3125", async () => {
      const error = await expectRejection(f, payment({ outputs: [payTo(bob.address, 500_000n)] }), 3125);
      const [entry] =
        (error.data as { insufficientlyFundedOutputs: Array<{ minimumRequiredValue: unknown }> })
          .insufficientlyFundedOutputs;
      // (160 + 37 bytes of an enterprise ADA-only output) × coinsPerUtxoByte 4,310
      assert.deepEqual(entry!.minimumRequiredValue, { ada: { lovelace: 849_070n } });
    });

    await t.step("a transaction over the maximum size is 3119", async () => {
      const metadata = CML.Metadata.new();
      const chunks = CML.MetadatumList.new();
      for (let i = 0; i < 300; i++) {
        chunks.add(CML.TransactionMetadatum.new_bytes(new Uint8Array(64).fill(i % 256)));
      }
      metadata.set(674n, CML.TransactionMetadatum.new_list(chunks));
      const error = await expectRejection(
        f,
        payment({ auxiliary: CML.AuxiliaryData.new_shelley(metadata) }),
        3119,
      );
      assert.deepEqual((error.data as { maximumTransactionSize: unknown }).maximumTransactionSize, {
        bytes: 16384,
      });
    });

    await t.step("metadata the body does not commit to is 3105, 3106 or 3107", async () => {
      const note = (text: string) => {
        const m = CML.Metadata.new();
        m.set(674n, CML.TransactionMetadatum.new_text(text));
        return CML.AuxiliaryData.new_shelley(m);
      };
      const plain = payment();
      await expectRejection(
        f,
        CML.Transaction.new(plain.body(), plain.witness_set(), true, note("hi")),
        3105,
      );
      const withNote = payment({ auxiliary: note("hi") });
      await expectRejection(f, CML.Transaction.new(withNote.body(), withNote.witness_set(), true), 3106);
      await expectRejection(
        f,
        CML.Transaction.new(withNote.body(), withNote.witness_set(), true, note("changed")),
        3107,
      );
    });

    await t.step("an output to another network's address is 3124", async () => {
      const testnet = CML.EnterpriseAddress.new(
        0,
        CML.Credential.new_pub_key(CML.Ed25519KeyHash.from_hex(bob.keyHash)),
      )
        .to_address();
      const error = await expectRejection(f, payment({ outputs: [payTo(testnet, 5n * ada)] }), 3124);
      assert.equal((error.data as { expectedNetwork: string }).expectedNetwork, "mainnet");
    });

    await t.step("a valid payment is accepted, and a second spend of its input is 3117", async () => {
      const tx = payment();
      const result = await submit(f, tx);
      assert.ok(
        Either.isRight(result),
        JSON.stringify(Either.isLeft(result) ? plainJson(result.left) : null),
      );
      const id = CML.hash_transaction(tx.body()).to_hex();
      assert.deepEqual(result.right, { transaction: { id } });
      assert.deepEqual(f.devnet.mempool(), [id]);
      const doubleSpend = payment({ outputs: [payTo(bob.address, 30n * ada)] });
      await expectRejection(f, doubleSpend, 3117);
    });

    await t.step("a transaction may spend a pending transaction's output", async () => {
      const [pendingId] = f.devnet.mempool();
      const change = {
        input: CML.TransactionInput.new(CML.TransactionHash.from_hex(pendingId!), 1n),
        output: payTo(alice.address, 10_000n * ada - 25n * ada - payment().body().fee()),
      };
      const chained = buildTx(f.params, {
        inputs: [change],
        outputs: [payTo(bob.address, 7n * ada)],
        signers: [alice.privateKey],
      });
      const result = await submit(f, chained);
      assert.ok(
        Either.isRight(result),
        JSON.stringify(Either.isLeft(result) ? plainJson(result.left) : null),
      );
      assert.equal(f.devnet.mempool().length, 2);
    });

    await t.step("the next block holds both, and the chain's UTxO set follows", async () => {
      const pending = [...f.devnet.mempool()];
      const block = await Effect.runPromise(f.devnet.produceBlock);
      assert.deepEqual(block.txIds, pending);
      assert.deepEqual(f.devnet.mempool(), []);
      const rows = await Effect.runPromise(
        f.chain.sql<{ hash: string; blockNo: number }>`
          select encode(t.hash, 'hex') as hash, b.block_no as "blockNo" from tx t join block b on b.id = t.block_id
          where t.hash in (${CML.TransactionHash.from_hex(pending[0]!).to_raw_bytes()},
                           ${CML.TransactionHash.from_hex(pending[1]!).to_raw_bytes()})
          order by t.block_index`,
      );
      assert.deepEqual(rows.map((r) => r.hash), pending);
      assert.equal(rows[0]!.blockNo, block.blockNo);
      const bobUtxos = await walletUtxos(f, bob.address);
      assert.ok(bobUtxos.some((u) => u.output.amount().coin() === 25n * ada));
      assert.ok(bobUtxos.some((u) => u.output.amount().coin() === 7n * ada));
      assert.ok(
        !(await walletUtxos(f, alice.address)).some((u) =>
          u.input.transaction_id().to_hex() === big.input.transaction_id().to_hex() &&
          u.input.index() === big.input.index()
        ),
      );
    });
    await t.step(
      "a pending transaction that expires before the next block is dropped, with its dependents",
      async () => {
        const [bobUtxo] = await walletUtxos(f, bob.address);
        const slotNow = Math.floor((Date.now() - Date.parse("2026-08-01T00:00:00Z")) / 1000);
        const expiring = buildTx(f.params, {
          inputs: [bobUtxo!],
          outputs: [payTo(alice.address, 4n * ada)],
          signers: [bob.privateKey],
          body: (b) => b.set_ttl(BigInt(slotNow + 60)),
        });
        assert.ok(Either.isRight(await submit(f, expiring)));
        const expiringId = CML.hash_transaction(expiring.body()).to_hex();
        const dependent = buildTx(f.params, {
          inputs: [{
            input: CML.TransactionInput.new(CML.TransactionHash.from_hex(expiringId), 0n),
            output: payTo(alice.address, 4n * ada),
          }],
          outputs: [payTo(bob.address, 2n * ada)],
          signers: [alice.privateKey],
        });
        assert.ok(Either.isRight(await submit(f, dependent)));
        assert.equal(f.devnet.mempool().length, 2);
        // the next block is made two minutes later (TestClock), past the first one's time to live
        const block = await Effect.runPromise(
          Effect.gen(function* () {
            yield* TestClock.setTime(Date.now() + 120_000);
            return yield* f.devnet.produceBlock;
          }).pipe(Effect.provide(TestContext.TestContext)),
        );
        assert.deepEqual(block.txIds, []);
        assert.deepEqual(f.devnet.mempool(), []);
        const still = await walletUtxos(f, bob.address);
        assert.ok(
          still.some((u) => u.input.transaction_id().to_hex() === bobUtxo!.input.transaction_id().to_hex()),
        );
      },
    );
    await t.step(
      "a Byron input needs a bootstrap witness whose key rebuilds its address root (3101 names the root)",
      async () => {
        const icarusKey = (seed: number) =>
          CML.Bip32PrivateKey.from_bip39_entropy(new Uint8Array(16).fill(seed), new Uint8Array());
        const owner = icarusKey(7);
        const byron = CML.AddressContent.icarus_from_key(owner.to_public(), CML.ProtocolMagic.new(764824073))
          .to_address();
        const root = byron.content().address_id().to_hex();
        const [fuel] = await walletUtxos(f, bob.address);
        const funding = buildTx(f.params, {
          inputs: [fuel!],
          outputs: [payTo(byron.to_address(), 10n * ada)],
          signers: [bob.privateKey],
        });
        assert.ok(Either.isRight(await submit(f, funding)));
        await Effect.runPromise(f.devnet.produceBlock);
        const held = {
          input: CML.TransactionInput.new(CML.hash_transaction(funding.body()), 0n),
          output: funding.body().outputs().get(0),
        };
        const spend = (signer?: CML.Bip32PrivateKey) =>
          buildTx(f.params, {
            inputs: [held],
            outputs: [payTo(alice.address, 5n * ada)],
            changeAddress: CML.Address.from_bech32(alice.address),
            signers: [],
            // the witness adds bytes: the fee is computed with it in place
            witnesses: signer
              ? (set, hash) => {
                const list = CML.BootstrapWitnessList.new();
                // wasm arguments passed by value are moved: each fee round gets its own copies
                list.add(CML.make_icarus_bootstrap_witness(
                  hash,
                  CML.ByronAddress.from_cbor_bytes(byron.to_cbor_bytes()),
                  CML.Bip32PrivateKey.from_raw_bytes(signer.to_raw_bytes()),
                ));
                set.set_bootstrap_witnesses(list);
              }
              : undefined,
          });
        const unsigned = await expectRejection(f, spend(), 3101);
        assert.deepEqual(unsigned.data, { missingSignatories: [root] });
        // a valid signature by another key does not rebuild this address's root
        const stranger = await expectRejection(f, spend(icarusKey(8)), 3101);
        assert.deepEqual(stranger.data, { missingSignatories: [root] });
        assert.ok(Either.isRight(await submit(f, spend(owner))), "the owner's bootstrap witness is enough");
      },
    );

    await t.step(
      "maxTxSize bounds the ledger's size: 16,384 bytes without the validity flag is accepted and recorded",
      async () => {
        const [bobUtxo] = await walletUtxos(f, bob.address);
        // metadata padding chosen so that [body, witnesses, auxiliary] is exactly the maximum
        const padded = (chunks: number, last: number) => {
          const list = CML.MetadatumList.new();
          for (let i = 0; i < chunks; i++) list.add(CML.TransactionMetadatum.new_bytes(new Uint8Array(64)));
          list.add(CML.TransactionMetadatum.new_bytes(new Uint8Array(last)));
          const metadata = CML.Metadata.new();
          metadata.set(674n, CML.TransactionMetadatum.new_list(list));
          return buildTx(f.params, {
            inputs: [bobUtxo!],
            outputs: [payTo(alice.address, 3n * ada)],
            signers: [bob.privateKey],
            auxiliary: CML.AuxiliaryData.new_shelley(metadata),
          });
        };
        let exact: CML.Transaction | undefined;
        for (let chunks = 230; chunks < 250 && !exact; chunks++) {
          for (let last = 0; last <= 64 && !exact; last++) {
            const tx = padded(chunks, last);
            if (tx.to_cbor_bytes().length === 16_385) exact = tx;
          }
        }
        assert.ok(exact, "a padding gives 16,385 bytes with the flag");
        const over = await expectRejection(f, padded(250, 0), 3119);
        assert.ok(
          (over.data as { measuredTransactionSize: { bytes: number } }).measuredTransactionSize.bytes >
            16_384,
        );
        const result = await submit(f, exact);
        assert.ok(
          Either.isRight(result),
          JSON.stringify(Either.isLeft(result) ? plainJson(result.left) : null),
        );
        await Effect.runPromise(f.devnet.produceBlock);
        const id = CML.hash_transaction(exact.body()).to_hex();
        const [row] = await Effect.runPromise(
          f.chain.sql<{ size: number }>`select size from tx where hash = ${hex.decode(id)}`,
        );
        assert.equal(row?.size, 16_384, "db-sync's tx.size is the ledger's size");
      },
    );

    await t.step("no mutation of a signed transaction escapes as an exception", async () => {
      const [bobUtxo] = await walletUtxos(f, bob.address);
      const bytes = buildTx(f.params, {
        inputs: [bobUtxo!],
        outputs: [payTo(alice.address, 3n * ada)],
        signers: [bob.privateKey],
        auxiliary: CML.AuxiliaryData.new_shelley((() => {
          const m = CML.Metadata.new();
          m.set(1n, CML.TransactionMetadatum.new_int(CML.Int.new(42n)));
          return m;
        })()),
      }).to_cbor_bytes();
      let state = 20_261_122;
      const random = (n: number) => {
        state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
        return state % n;
      };
      const codes = new Set<number>();
      for (let round = 0; round < 300; round++) {
        const mutated = Uint8Array.from(bytes);
        for (let k = 0; k <= random(3); k++) mutated[random(mutated.length)] = random(256);
        const hexText = Array.from(mutated, (b) => b.toString(16).padStart(2, "0")).join("");
        const exit = await Effect.runPromiseExit(f.devnet.submit(hexText));
        if (exit._tag === "Failure") {
          const failure = exit.cause._tag === "Fail" ? exit.cause.error : undefined;
          assert.ok(failure && failure._tag === "LedgerRejection", `round ${round}: ${String(exit.cause)}`);
          codes.add(failure.error.code);
        }
      }
      assert.ok(codes.has(-32602) && codes.size > 2, `codes seen: ${[...codes]}`);
    });
  } finally {
    await f.close();
  }
});
