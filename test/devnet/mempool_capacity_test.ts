/**
 * The devnet's mempool holds two blocks' worth, as a node's (twice the maximum block body size less 1,024, in the
 * ledger's sizes + 4 per transaction): a submission that does not fit waits until a block makes room, first come
 * first served (a small transaction that would fit does not overtake a big one waiting), and is validated when
 * its turn comes (an input spent meanwhile is 3117; one spending a waiting transaction's output is accepted after
 * it). A waiting submission whose client is gone is never added; over maxTxSize is answered at once, without
 * waiting; evaluation does not wait. The mempool never holds more than its capacity.
 */
import assert from "node:assert/strict";
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import { Effect, Either, Exit, Fiber } from "effect";
import type { LedgerRejection } from "@src/devnet/errors.ts";
import { buildTx, openDevnet, payTo, type Utxo, walletUtxos } from "../support/devnet_tx.ts";
import { expectAccepted } from "../support/devnet_rejection.ts";
import { bulkyNativeScript } from "../support/reference_script_outputs.ts";

const ada = 1_000_000n;

Deno.test("devnet mempool: two blocks' worth, then submissions wait their turn", async (t) => {
  const f = await openDevnet("devnet_mempool_capacity");
  const [alice, bob] = [f.keys[0]!, f.keys[1]!];
  const capacityBytes = 2 * (f.params.row.maxBlockSize - 1_024);
  /** Every transaction the test made, by id: the mempool's contents are measured from these. */
  const made = new Map<string, CML.Transaction>();
  const idOf = (tx: CML.Transaction) => {
    const id = CML.hash_transaction(tx.body()).to_hex();
    made.set(id, tx);
    return id;
  };
  // the ledger's size leaves out the validity flag's byte; the forge adds 4 per transaction
  const measure = (tx: CML.Transaction) => tx.to_cbor_bytes().length - 1 + 4;
  const mempoolBytes = () => f.devnet.mempool().reduce((s, id) => s + measure(made.get(id)!), 0);
  const withinCapacity = () =>
    assert.ok(mempoolBytes() <= capacityBytes, `${mempoolBytes()} bytes pending, capacity ${capacityBytes}`);
  const produce = async () => {
    const block = await Effect.runPromise(f.devnet.produceBlock);
    withinCapacity();
    return block;
  };
  /** Submits without waiting for the answer; resolves once the submission is queued for room. */
  const submitWaiting = async (tx: CML.Transaction) => {
    const id = idOf(tx);
    const fiber = Effect.runFork(Effect.either(f.devnet.submit(tx.to_cbor_hex())));
    await until(() => f.devnet.waiting().includes(id), `${id} waits for room`);
    return fiber;
  };
  const accepted = async (
    fiber: Fiber.RuntimeFiber<Either.Either<{ transaction: { id: string } }, unknown>>,
  ) => {
    const result = await Effect.runPromise(Fiber.join(fiber));
    assert.ok(Either.isRight(result), JSON.stringify(Either.isLeft(result) ? String(result.left) : null));
    return result.right.transaction.id;
  };

  const script = bulkyNativeScript(460);
  const carrier = (address: string, coin: bigint) =>
    CML.TransactionOutput.new(
      CML.Address.from_bech32(address),
      CML.Value.from_coin(coin),
      undefined,
      CML.Script.new_native(CML.NativeScript.from_cbor_bytes(script.to_cbor_bytes())),
    );
  const carrierAda = CML.min_ada_required(carrier(alice.address, 100n * ada), f.params.coinsPerUtxoByte);
  /** About 15 kB: one input, an output carrying the bulky script, change. */
  const big = (input: Utxo) =>
    buildTx(f.params, {
      inputs: [input],
      outputs: [carrier(alice.address, carrierAda)],
      signers: [alice.privateKey],
    });
  const small = (input: Utxo) =>
    buildTx(f.params, {
      inputs: [input],
      outputs: [payTo(alice.address, 2n * ada)],
      signers: [bob.privateKey],
    });

  try {
    // fifty 100-ADA outputs for alice and ten for bob, on chain before the mempool fills
    const fanOut = async (who: typeof alice, count: number) => {
      const [fuel] = await walletUtxos(f, who.address);
      const tx = buildTx(f.params, {
        inputs: [fuel!],
        outputs: Array.from({ length: count }, () => payTo(who.address, 100n * ada)),
        signers: [who.privateKey],
      });
      await expectAccepted(f, tx);
      const id = CML.hash_transaction(tx.body());
      return Array.from({ length: count }, (_, i) => ({
        input: CML.TransactionInput.new(id, BigInt(i)),
        output: tx.body().outputs().get(i),
      }));
    };
    const aliceOutputs = await fanOut(alice, 50);
    const bobOutputs = await fanOut(bob, 10);
    await produce();
    assert.deepEqual(f.devnet.mempool(), []);
    const nextAlice = () => aliceOutputs.shift()!;
    /** Eleven big ones: as much as the mempool holds. */
    const fill = async () => {
      for (let i = 0; i < 11; i++) {
        const tx = big(nextAlice());
        assert.equal(await expectAccepted(f, tx), idOf(tx));
      }
      withinCapacity();
    };

    await t.step(
      "eleven 15 kB transactions fill it; a twelfth waits, and so does a small one after it",
      async () => {
        const first = Array.from({ length: 11 }, () => big(nextAlice()));
        const unit = measure(first[0]!);
        assert.ok(first.every((tx) => measure(tx) === unit));
        // eleven fit in 178,176 bytes, twelve do not; a block holds five (89,088 bytes)
        assert.ok(11 * unit <= capacityBytes && 12 * unit > capacityBytes && 5 * unit <= capacityBytes / 2);
        assert.ok(6 * unit > capacityBytes / 2);
        for (const tx of first) {
          assert.equal(await expectAccepted(f, tx), idOf(tx));
          withinCapacity();
        }
        const twelfth = big(nextAlice());
        const waitingBig = await submitWaiting(twelfth);
        // the small one would fit, yet it is behind the big one
        const smallTx = small(bobOutputs[0]!);
        assert.ok(measure(smallTx) < capacityBytes - mempoolBytes());
        const waitingSmall = await submitWaiting(smallTx);
        const more = Array.from({ length: 6 }, () => big(nextAlice()));
        const waitingMore = [];
        for (const tx of more) waitingMore.push(await submitWaiting(tx));
        assert.deepEqual(f.devnet.waiting(), [twelfth, smallTx, ...more].map(idOf));
        assert.equal(f.devnet.mempool().length, 11, "nothing got in while full");
        assert.equal(waitingSmall.unsafePoll(), null, "the small one has no answer yet");

        // evaluation does not queue: it answers while the mempool is full
        assert.deepEqual(await Effect.runPromise(f.devnet.evaluate(more[5]!.to_cbor_hex())), []);

        // a block takes five (89,088 bytes); the twelfth, the small one and four more fit in the room made
        const block = await produce();
        assert.deepEqual(block.txIds, first.slice(0, 5).map(idOf));
        assert.equal(await accepted(waitingBig), idOf(twelfth));
        assert.equal(await accepted(waitingSmall), idOf(smallTx));
        for (const fiber of waitingMore.slice(0, 4)) await accepted(fiber);
        await until(() => f.devnet.waiting().length === 2, "the last two wait again");
        assert.deepEqual(f.devnet.waiting(), more.slice(4).map(idOf));
        withinCapacity();
        assert.deepEqual(
          f.devnet.mempool(),
          [...first.slice(5), twelfth, smallTx, ...more.slice(0, 4)].map(idOf),
        );

        // the next block makes room for them; every block took the oldest first
        const second = await produce();
        for (const fiber of waitingMore.slice(4)) await accepted(fiber);
        const rest = [];
        while (f.devnet.mempool().length > 0) rest.push(await produce());
        assert.deepEqual(
          [block, second, ...rest].flatMap((b) => b.txIds),
          [...first, twelfth, smallTx, ...more].map(idOf),
          "in submission order",
        );
      },
    );

    await t.step("over maxTxSize is 3119 at once, though the mempool is full", async () => {
      await fill();
      const metadata = CML.Metadata.new();
      const chunks = CML.MetadatumList.new();
      for (let i = 0; i < 300; i++) {
        chunks.add(CML.TransactionMetadatum.new_bytes(new Uint8Array(64).fill(i)));
      }
      metadata.set(674n, CML.TransactionMetadatum.new_list(chunks));
      const tooLarge = buildTx(f.params, {
        inputs: [bobOutputs[1]!],
        outputs: [],
        signers: [bob.privateKey],
        auxiliary: CML.AuxiliaryData.new_shelley(metadata),
      });
      const result = await Effect.runPromise(Effect.either(f.devnet.submit(tooLarge.to_cbor_hex())));
      assert.ok(Either.isLeft(result));
      assert.equal((result.left as LedgerRejection).error.code, 3119);
      assert.deepEqual(f.devnet.waiting(), []);
    });

    await t.step(
      "waiting transactions are validated when they get in: an input spent by the one before is 3117, " +
        "an output of the one before is spendable",
      async () => {
        const contested = nextAlice();
        const first = big(contested);
        const rival = buildTx(f.params, {
          inputs: [contested, nextAlice()],
          outputs: [carrier(alice.address, carrierAda)],
          signers: [alice.privateKey],
        });
        // spends the change of `first`, which is not even in the mempool when submitted
        const firstChange = {
          input: CML.TransactionInput.new(CML.hash_transaction(first.body()), 1n),
          output: first.body().outputs().get(1),
        };
        const chained = buildTx(f.params, {
          inputs: [firstChange],
          outputs: [payTo(bob.address, 2n * ada)],
          signers: [alice.privateKey],
        });
        const waitingFirst = await submitWaiting(first);
        const waitingRival = await submitWaiting(rival);
        const waitingChained = await submitWaiting(chained);
        assert.deepEqual(f.devnet.waiting(), [first, rival, chained].map(idOf));
        await produce();
        assert.equal(await accepted(waitingFirst), idOf(first));
        const refused = await Effect.runPromise(Fiber.join(waitingRival));
        assert.ok(Either.isLeft(refused), "the rival is refused");
        const error = (refused.left as LedgerRejection).error;
        assert.equal(error.code, 3117);
        assert.deepEqual(error.data, {
          unknownOutputReferences: [{
            transaction: { id: contested.input.transaction_id().to_hex() },
            index: Number(contested.input.index()),
          }],
        });
        assert.equal(await accepted(waitingChained), idOf(chained));
        assert.ok(!f.devnet.mempool().includes(idOf(rival)));
        withinCapacity();
        while (f.devnet.mempool().length > 0) await produce();
      },
    );

    await t.step(
      "a submission whose client is gone while it waits is never added; the next one's turn comes",
      async () => {
        await fill();
        const abandoned = big(nextAlice());
        const next = big(nextAlice());
        const waitingAbandoned = await submitWaiting(abandoned);
        const waitingNext = await submitWaiting(next);
        const exit = await Effect.runPromise(Fiber.interrupt(waitingAbandoned));
        assert.ok(Exit.isInterrupted(exit));
        // the next one tries, finds no room either, and waits
        await until(() => f.devnet.waiting().join() === idOf(next), "the next one waits, first in line");
        await produce();
        assert.equal(await accepted(waitingNext), idOf(next));
        const blocks = [];
        while (f.devnet.mempool().length > 0) blocks.push(await produce());
        assert.ok(blocks.flatMap((b) => b.txIds).includes(idOf(next)));
        const [row] = await Effect.runPromise(f.chain.sql<{ n: number }>`
        select count(*)::int as n from tx where hash = ${
          CML.hash_transaction(abandoned.body()).to_raw_bytes()
        }`);
        assert.equal(row?.n, 0, "the abandoned transaction is on no block");
        assert.deepEqual(f.devnet.waiting(), []);
      },
    );
  } finally {
    await f.close();
  }
});

/** Waits for something another fiber does (bounded, so a regression fails instead of hanging). */
const until = async (condition: () => boolean, what: string) => {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.ok(condition(), what);
};
