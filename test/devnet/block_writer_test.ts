/**
 * Blocks the devnet writes, read back as db-sync rows: a multi-asset mint (ma_tx_mint, multi_asset, ma_tx_out),
 * a stake registration and delegations (stake_registration, delegation, the tx deposit) with the certificate
 * rules refusing what a node refuses (3146, 3145, 3140, 3151), metadata, the epoch boundaries crossed since the
 * demo chain's tip (epoch_param, ada_pots adding up to 45 billion ADA, epoch_stake), and chain-sync subscribers
 * and the timed producer seeing each block.
 */
import assert from "node:assert/strict";
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import { Duration, Effect, Either, Exit, Queue, Scope } from "effect";
import type { LedgerRejection } from "@src/devnet/errors.ts";
import { buildTx, openDevnet, payTo, submit, walletUtxos } from "../support/devnet_tx.ts";

const ada = 1_000_000n;
const plainJson = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value, (_k, v) => (typeof v === "bigint" ? Number(v) : v)));

Deno.test("devnet blocks as db-sync rows", async (t) => {
  const f = await openDevnet("devnet_blocks");
  const alice = f.keys[0]!;
  const query = <A extends object>(s: Effect.Effect<ReadonlyArray<A>, unknown>) => Effect.runPromise(s);
  const expectCode = async (tx: CML.Transaction, code: number) => {
    const result = await submit(f, tx);
    assert.ok(Either.isLeft(result), `expected ${code}, accepted`);
    const error = (result.left as LedgerRejection).error;
    assert.equal(error.code, code, JSON.stringify(plainJson(error)));
    return error;
  };
  try {
    const [u1, u2, u3, u4] = await walletUtxos(f, alice.address);

    await t.step(
      "the epochs crossed since the demo chain's tip have parameters, pots and stake",
      async () => {
        const [tip] = await query(f.chain.sql<{ epoch: number }>`
        select epoch_no as epoch from block b where block_no is not null order by b.id desc limit 1`);
        const params = await query(f.chain.sql<{ epoch: number }>`
        select epoch_no as epoch from epoch_param order by epoch_no`);
        assert.deepEqual(params.map((p) => p.epoch), Array.from({ length: tip!.epoch + 1 }, (_, i) => i));
        const pots = await query(f.chain.sql<{ epoch: number; sum: string }>`
        select epoch_no as epoch, (treasury + reserves + rewards + utxo + deposits_stake + fees + deposits_drep
          + deposits_proposal)::text as sum from ada_pots order by epoch_no`);
        assert.equal(pots.at(-1)!.epoch, tip!.epoch);
        for (const p of pots) assert.equal(p.sum, "45000000000000000", `ada_pots of epoch ${p.epoch}`);
        const [stake] = await query(f.chain.sql<{ n: string }>`
        select count(*)::text as n from epoch_stake where epoch_no = ${tip!.epoch + 1}`);
        assert.ok(Number(stake!.n) > 0);
        const [finalized] = await query(f.chain.sql<{ blocks: string }>`
        select blk_count::text as blocks from epoch_finalized where no = 5`);
        assert.equal(finalized!.blocks, "240");
      },
    );

    await t.step("a multi-asset mint under a native-script policy", async () => {
      const policy = CML.NativeScript.new_script_pubkey(CML.Ed25519KeyHash.from_hex(alice.keyHash));
      const policyId = policy.hash();
      const name = CML.AssetName.from_str("DEVNET");
      const mint = CML.Mint.new();
      mint.set(policyId, name, 1_000n);
      const assets = CML.MultiAsset.new();
      assets.set(policyId, name, 1_000n);
      const tx = buildTx(f.params, {
        inputs: [u1!],
        outputs: [payTo(alice.address, 2n * ada, assets)],
        signers: [alice.privateKey],
        body: (b) => b.set_mint(mint),
        witnesses: (set) => {
          const list = CML.NativeScriptList.new();
          list.add(policy);
          set.set_native_scripts(list);
        },
      });
      // minted tokens balance the transaction; without the mint the same outputs are ValueNotConserved
      const result = await submit(f, tx);
      assert.ok(
        Either.isRight(result),
        JSON.stringify(Either.isLeft(result) ? plainJson(result.left) : null),
      );
      const block = await Effect.runPromise(f.devnet.produceBlock);
      assert.deepEqual(block.txIds, [result.right.transaction.id]);
      const [row] = await query(
        f.chain.sql<{ minted: string; held: string; fingerprint: string; script: string }>`
        select (select quantity::text from ma_tx_mint m where m.tx_id = t.id) as minted,
          (select mo.quantity::text from ma_tx_out mo join tx_out o on o.id = mo.tx_out_id where o.tx_id = t.id)
            as held,
          (select fingerprint from multi_asset where policy = decode(${policyId.to_hex()}, 'hex')) as fingerprint,
          (select type::text from script where hash = decode(${policyId.to_hex()}, 'hex')) as script
        from tx t where t.hash = decode(${result.right.transaction.id}, 'hex')`,
      );
      assert.equal(row!.minted, "1000");
      assert.equal(row!.held, "1000");
      assert.match(row!.fingerprint, /^asset1/);
      assert.equal(row!.script, "timelock");
    });

    const stakeKey = CML.PrivateKey.from_normal_bytes(new Uint8Array(32).fill(42));
    const stakeCredential = CML.Credential.new_pub_key(stakeKey.to_public().hash());
    const [pool] = await query(f.chain.sql<{ hash: string; view: string }>`
      select encode(h.hash_raw, 'hex') as hash, h.view from pool_hash h
      where exists (select 1 from pool_update u where u.hash_id = h.id)
        and not exists (select 1 from pool_retire r where r.hash_id = h.id)
      order by h.id limit 1`);
    const certs = (...list: Array<CML.Certificate>) => (b: CML.TransactionBody) => {
      const l = CML.CertificateList.new();
      for (const c of list) l.add(c);
      b.set_certs(l);
    };
    const poolHash = CML.Ed25519KeyHash.from_hex(pool!.hash);

    await t.step(
      "certificate rules: unknown credential 3146, unknown pool 3140, deposit mismatch 3151",
      async () => {
        const error = await expectCode(
          buildTx(f.params, {
            inputs: [u2!],
            outputs: [],
            signers: [alice.privateKey, stakeKey],
            body: certs(CML.Certificate.new_stake_delegation(stakeCredential, poolHash)),
          }),
          3146,
        );
        assert.deepEqual(error.data, {
          unknownCredential: stakeKey.to_public().hash().to_hex(),
          from: "verificationKey",
        });
        await expectCode(
          buildTx(f.params, {
            inputs: [u2!],
            outputs: [],
            balanceAdjust: f.params.keyDeposit,
            signers: [alice.privateKey, stakeKey],
            body: certs(
              CML.Certificate.new_reg_cert(stakeCredential, f.params.keyDeposit),
              CML.Certificate.new_stake_delegation(
                stakeCredential,
                CML.Ed25519KeyHash.from_hex("00".repeat(28)),
              ),
            ),
          }),
          3140,
        );
        await expectCode(
          buildTx(f.params, {
            inputs: [u2!],
            outputs: [],
            balanceAdjust: 5n * ada,
            signers: [alice.privateKey, stakeKey],
            body: certs(CML.Certificate.new_reg_cert(stakeCredential, 5n * ada)),
          }),
          3151,
        );
      },
    );

    await t.step("a stake registration and delegation land as db-sync rows", async () => {
      // the vote goes to the always-abstain DRep: from protocol version 10 on, rewards are withdrawable only so
      const tx = buildTx(f.params, {
        inputs: [u2!],
        outputs: [],
        balanceAdjust: f.params.keyDeposit,
        signers: [alice.privateKey, stakeKey],
        body: certs(
          CML.Certificate.new_reg_cert(stakeCredential, f.params.keyDeposit),
          CML.Certificate.new_stake_delegation(stakeCredential, poolHash),
          CML.Certificate.new_vote_deleg_cert(stakeCredential, CML.DRep.new_always_abstain()),
        ),
      });
      const result = await submit(f, tx);
      assert.ok(
        Either.isRight(result),
        JSON.stringify(Either.isLeft(result) ? plainJson(result.left) : null),
      );
      // registering again while the first is pending is refused
      await expectCode(
        buildTx(f.params, {
          inputs: [u3!],
          outputs: [],
          balanceAdjust: f.params.keyDeposit,
          signers: [alice.privateKey, stakeKey],
          body: certs(CML.Certificate.new_reg_cert(stakeCredential, f.params.keyDeposit)),
        }),
        3145,
      );
      const block = await Effect.runPromise(f.devnet.produceBlock);
      const view = CML.RewardAddress.new(1, stakeCredential).to_address().to_bech32();
      const [row] = await query(
        f.chain.sql<{ deposit: string; registered: string; pool: string; active: number }>`
        select t.deposit::text as deposit,
          (select r.deposit::text from stake_registration r where r.tx_id = t.id) as registered,
          (select p.view from delegation d join pool_hash p on p.id = d.pool_hash_id where d.tx_id = t.id) as pool,
          (select d.active_epoch_no::int from delegation d where d.tx_id = t.id) as active
        from tx t where t.hash = decode(${result.right.transaction.id}, 'hex')`,
      );
      assert.deepEqual(row, {
        deposit: String(f.params.keyDeposit),
        registered: String(f.params.keyDeposit),
        pool: pool!.view,
        active: block.epoch + 2,
      });
      const [address] = await query(f.chain.sql<{ view: string }>`
        select view from stake_address where hash_raw = decode(${
        CML.RewardAddress.new(1, stakeCredential).to_address().to_hex()
      }, 'hex')`);
      assert.equal(address!.view, view);
      // and once on chain, registering again is still 3145
      await expectCode(
        buildTx(f.params, {
          inputs: [u3!],
          outputs: [],
          balanceAdjust: f.params.keyDeposit,
          signers: [alice.privateKey, stakeKey],
          body: certs(CML.Certificate.new_reg_cert(stakeCredential, f.params.keyDeposit)),
        }),
        3145,
      );
    });

    await t.step("a withdrawal must take the whole reward balance (3141)", async () => {
      const account = CML.RewardAddress.new(1, stakeCredential);
      const withdraw = (amount: bigint) =>
        buildTx(f.params, {
          inputs: [u3!],
          outputs: [],
          balanceAdjust: -amount,
          signers: [alice.privateKey, stakeKey],
          body: (b) => {
            const w = CML.MapRewardAccountToCoin.new();
            w.insert(account, amount);
            b.set_withdrawals(w);
          },
        });
      const error = await expectCode(withdraw(ada), 3141);
      assert.deepEqual(error.data, {
        incompleteWithdrawals: { [account.to_address().to_bech32()]: { ada: { lovelace: ada } } },
      });
      const empty = await submit(f, withdraw(0n));
      assert.ok(Either.isRight(empty), JSON.stringify(Either.isLeft(empty) ? plainJson(empty.left) : null));
      await Effect.runPromise(f.devnet.produceBlock);
      const [row] = await query(f.chain.sql<{ amount: string }>`
        select w.amount::text as amount from withdrawal w join tx t on t.id = w.tx_id
        where t.hash = decode(${empty.right.transaction.id}, 'hex')`);
      assert.equal(row!.amount, "0");
    });

    await t.step("metadata is stored as json and CBOR", async () => {
      const metadata = CML.Metadata.new();
      metadata.set(
        674n,
        CML.encode_json_str_to_metadatum('{"msg":["hello devnet"]}', CML.MetadataJsonSchema.NoConversions),
      );
      const tx = buildTx(f.params, {
        inputs: [u4!],
        outputs: [payTo(f.keys[1]!.address, 3n * ada)],
        signers: [alice.privateKey],
        auxiliary: CML.AuxiliaryData.new_shelley(metadata),
      });
      const result = await submit(f, tx);
      assert.ok(
        Either.isRight(result),
        JSON.stringify(Either.isLeft(result) ? plainJson(result.left) : null),
      );
      await Effect.runPromise(f.devnet.produceBlock);
      const [row] = await query(f.chain.sql<{ key: string; json: unknown }>`
        select m.key::text as key, m.json from tx_metadata m join tx t on t.id = m.tx_id
        where t.hash = decode(${result.right.transaction.id}, 'hex')`);
      assert.deepEqual(row, { key: "674", json: { msg: ["hello devnet"] } });
    });

    await t.step("chain-sync subscribers and the timed producer see each block", async () => {
      const scope = Effect.runSync(Scope.make());
      try {
        const queue = await Effect.runPromise(Scope.extend(f.devnet.subscribe, scope));
        const made = await Effect.runPromise(f.devnet.produceBlock);
        assert.equal((await Effect.runPromise(Queue.take(queue))).hash, made.hash);
        // the producer writes a block per interval (3 s by default) with no one asking
        await Effect.runPromise(Scope.extend(f.devnet.start, scope));
        const next = await Effect.runPromise(Queue.take(queue).pipe(Effect.timeout(Duration.seconds(10))));
        assert.equal(next.blockNo, made.blockNo + 1);
      } finally {
        await Effect.runPromise(Scope.close(scope, Exit.void));
      }
    });
  } finally {
    await f.close();
  }
});
