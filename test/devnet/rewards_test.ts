/**
 * Rewards on the devnet, through its own transactions and boundaries (TestClock moves the chain epochs ahead):
 * ada_pots add up to 45 billion ADA every epoch with the treasury and reserves moving by the reward update;
 * blocks go to pools with active stake; a stake key registered and delegated in epoch N is in the snapshot of
 * N + 2, earns a member reward for it paid at N + 4 (spendable then, as the formula gives it), and can withdraw
 * exactly that (3141 for any other amount); a pool retiring returns its deposit to its registered reward account
 * as a refund, or to the treasury when that account is not registered.
 */
import assert from "node:assert/strict";
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import { Effect, Either, TestClock, TestContext } from "effect";
import { demoNetworks } from "@src/demo_chain/network_params.ts";
import type { LedgerRejection } from "@src/devnet/errors.ts";
import { buildTx, openDevnet, payTo, submit, walletUtxos } from "../support/devnet_tx.ts";

const ada = 1_000_000n;
const maxSupply = "45000000000000000";
const epochStartMs = (epoch: number) => demoNetworks.mainnet.systemStart.getTime() + epoch * 432_000_000;
const key = (byte: number) => CML.PrivateKey.from_normal_bytes(new Uint8Array(32).fill(byte));
const credential = (k: CML.PrivateKey) => CML.Credential.new_pub_key(k.to_public().hash());
const rewardAddress = (k: CML.PrivateKey) => CML.RewardAddress.new(1, credential(k));
const certs = (...list: Array<CML.Certificate>) => (b: CML.TransactionBody) => {
  const l = CML.CertificateList.new();
  for (const c of list) l.add(c);
  b.set_certs(l);
};
const poolRegistration = (cold: CML.PrivateKey, owner: CML.PrivateKey, vrf: number) => {
  const owners = CML.Ed25519KeyHashList.new();
  owners.add(owner.to_public().hash());
  return CML.Certificate.new_pool_registration(CML.PoolParams.new(
    cold.to_public().hash(),
    CML.VRFKeyHash.from_raw_bytes(new Uint8Array(32).fill(vrf)),
    0n,
    170n * ada,
    CML.UnitInterval.new(1n, 100n),
    rewardAddress(owner),
    owners,
    CML.RelayList.new(),
  ));
};

Deno.test({
  name: "devnet rewards, withdrawals and pool refunds across boundaries",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const started = performance.now();
    const f = await openDevnet("devnet_rewards");
    console.log(
      `seed and first block (crossing to the wall clock's epoch): ${
        Math.round(performance.now() - started)
      } ms`,
    );
    const alice = f.keys[0]!;
    const query = <A extends object>(text: string) => Effect.runPromise(f.chain.sql.unsafe<A>(text));
    const produceAt = async (ms: number) => {
      const begun = performance.now();
      const block = await Effect.runPromise(
        Effect.gen(function* () {
          yield* TestClock.setTime(ms);
          return yield* f.devnet.produceBlock;
        }).pipe(Effect.provide(TestContext.TestContext)),
      );
      return { block, ms: performance.now() - begun };
    };
    const accept = async (tx: CML.Transaction) => {
      const result = await submit(f, tx);
      assert.ok(Either.isRight(result), JSON.stringify(Either.isLeft(result) ? String(result.left) : null));
    };
    const reject = async (tx: CML.Transaction, code: number) => {
      const result = await submit(f, tx);
      assert.ok(Either.isLeft(result), `expected ${code}, accepted`);
      assert.equal((result.left as LedgerRejection).error.code, code);
    };
    const stakeAddressId = async (k: CML.PrivateKey) =>
      (await query<{ id: string }>(`
        select id::text as id from stake_address where hash_raw = decode('${
        rewardAddress(k).to_address().to_hex()
      }', 'hex')`))[0]?.id;
    const checkPots = async () => {
      const pots = await query<{ epoch: number; sum: string }>(`
        select epoch_no as epoch, (treasury + reserves + rewards + utxo + deposits_stake + fees + deposits_drep
          + deposits_proposal)::text as sum from ada_pots order by epoch_no`);
      for (const p of pots) assert.equal(p.sum, maxSupply, `ada_pots of epoch ${p.epoch}`);
      return pots.length;
    };

    try {
      const [tip] = await query<{ epoch: number }>(`
        select epoch_no as epoch from block where block_no is not null order by id desc limit 1`);
      const n = tip!.epoch;

      await t.step(
        "every boundary crossed at start moves the treasury and reserves by the reward update",
        async () => {
          assert.ok(n > 7, `the devnet starts in epoch ${n}`);
          await checkPots();
          const pots = await query<
            { epoch: number; treasury: string; reserves: string; fees: string; paid: string }
          >(`
          select p.epoch_no as epoch, p.treasury::text as treasury, p.reserves::text as reserves,
            (select coalesce(sum(t.fee), 0) from tx t join block b on b.id = t.block_id
              where b.epoch_no = p.epoch_no - 2)::text as fees,
            (select coalesce(sum(amount), 0) from reward where earned_epoch = p.epoch_no - 2
              and type in ('leader', 'member'))::text as paid
          from ada_pots p order by p.epoch_no`);
          for (let i = 1; i < pots.length; i++) {
            const [before, after] = [pots[i - 1]!, pots[i]!];
            if (after.epoch <= 5) continue;
            const expansion = (BigInt(before.reserves) * 3n) / 1000n;
            const pot = expansion + BigInt(after.fees);
            const toTreasury = BigInt(Math.floor(Number(pot) * 0.2));
            const paid = BigInt(after.paid);
            assert.ok(paid <= pot - toTreasury, `epoch ${after.epoch}: paid ${paid} of ${pot - toTreasury}`);
            assert.equal(
              BigInt(after.reserves),
              BigInt(before.reserves) - expansion + pot - toTreasury - paid,
            );
            // the treasury takes its cut, plus the deposits of retiring pools whose reward account is gone
            const refunded = BigInt(after.treasury) - BigInt(before.treasury) - toTreasury;
            assert.ok(refunded >= 0n && refunded % (500n * ada) === 0n, `epoch ${after.epoch}: ${refunded}`);
          }
          // epoch 5's blocks earn rewards paid entering 7; the empty epochs after it earn none
          const earned = await query<{ earned: number; spendable: number; n: string }>(`
          select earned_epoch::int as earned, spendable_epoch::int as spendable, count(*)::text as n from reward
          where type in ('leader', 'member') group by 1, 2 order by 1`);
          assert.deepEqual(earned.map((r) => r.spendable - r.earned), earned.map(() => 2));
          assert.equal(earned.at(-1)!.earned, 5);
          assert.equal(earned.at(-1)!.spendable, 7);
        },
      );

      const delegator = key(42);
      const owner = key(43);
      const unregisteredOwner = key(44);
      const [poolP, poolQ] = [key(45), key(46)];
      const [target] = await query<{ id: string; hash: string; stake: string }>(`
        select s.pool_id::text as id, encode(h.hash_raw, 'hex') as hash, sum(s.amount)::text as stake
        from epoch_stake s join pool_hash h on h.id = s.pool_id
        where s.epoch_no = ${n + 1} and (select u.margin from pool_update u where u.hash_id = s.pool_id
          order by u.registered_tx_id desc limit 1) < 0.1
        group by s.pool_id, h.hash_raw order by sum(s.amount) desc limit 1`);
      const [u1, u2, u3, u4] = await walletUtxos(f, alice.address);

      await t.step("a stake key registered and delegated, two pools registered and retiring", async () => {
        const staked = CML.BaseAddress.new(
          1,
          CML.Credential.new_pub_key(CML.Ed25519KeyHash.from_hex(alice.keyHash)),
          credential(delegator),
        ).to_address();
        await accept(buildTx(f.params, {
          inputs: [u1!, u2!],
          outputs: [payTo(staked, 19_000n * ada)],
          balanceAdjust: f.params.keyDeposit,
          signers: [alice.privateKey, delegator],
          body: certs(
            CML.Certificate.new_reg_cert(credential(delegator), f.params.keyDeposit),
            CML.Certificate.new_stake_delegation(
              credential(delegator),
              CML.Ed25519KeyHash.from_hex(target!.hash),
            ),
            // protocol version 10: rewards are withdrawable only by accounts that delegate their vote
            CML.Certificate.new_vote_deleg_cert(credential(delegator), CML.DRep.new_always_abstain()),
          ),
        }));
        await accept(buildTx(f.params, {
          inputs: [u3!],
          outputs: [],
          balanceAdjust: f.params.keyDeposit + 2n * f.params.poolDeposit,
          signers: [alice.privateKey, owner, unregisteredOwner, poolP, poolQ],
          body: certs(
            CML.Certificate.new_reg_cert(credential(owner), f.params.keyDeposit),
            poolRegistration(poolP, owner, 1),
            poolRegistration(poolQ, unregisteredOwner, 2),
          ),
        }));
        const { block } = await produceAt(Date.now());
        assert.equal(block.txIds.length, 2);
        await accept(buildTx(f.params, {
          inputs: [u4!],
          outputs: [],
          signers: [alice.privateKey, poolP, poolQ],
          body: certs(
            CML.Certificate.new_pool_retirement(poolP.to_public().hash(), BigInt(n + 1)),
            CML.Certificate.new_pool_retirement(poolQ.to_public().hash(), BigInt(n + 1)),
          ),
        }));
        assert.equal((await produceAt(Date.now() + 1_000)).block.txIds.length, 1);
      });

      await t.step(
        "entering N + 1: refunds, the treasury, and the delegator in the snapshot of N + 2",
        async () => {
          const { block, ms } = await produceAt(epochStartMs(n + 1) + 5_000);
          console.log(`block entering epoch ${n + 1} (one boundary): ${Math.round(ms)} ms`);
          assert.equal(block.epoch, n + 1);
          const [pool] = await query<{ id: string }>(`
          select id::text as id from pool_hash where hash_raw = decode('${poolP.to_public().hash().to_hex()}', 'hex')`);
          const refunds = await query(`
          select addr_id::text, type::text, amount::text, spendable_epoch::int, pool_id::text, earned_epoch::int
          from reward where type = 'refund' and spendable_epoch = ${n + 1}`);
          assert.deepEqual(refunds, [{
            addr_id: await stakeAddressId(owner),
            type: "refund",
            amount: String(f.params.poolDeposit),
            spendable_epoch: n + 1,
            pool_id: pool!.id,
            earned_epoch: n,
          }]);
          const [pots] = await query<
            { treasury: string; reserves: string; fees: string; deposits: string; before: string }
          >(`
          select (a.treasury - b.treasury)::text as treasury, b.reserves::text as reserves,
            (select coalesce(sum(t.fee), 0) from tx t join block k on k.id = t.block_id
              where k.epoch_no = ${n - 1})::text as fees,
            a.deposits_stake::text as deposits, b.deposits_stake::text as before
          from ada_pots a join ada_pots b on b.epoch_no = a.epoch_no - 1 where a.epoch_no = ${n + 1}`);
          const pot = Number((BigInt(pots!.reserves) * 3n) / 1000n) + Number(pots!.fees);
          // Q's reward account is not registered: its deposit goes to the treasury, with the treasury's cut
          assert.equal(BigInt(pots!.treasury), BigInt(Math.floor(pot * 0.2)) + f.params.poolDeposit);
          // two key deposits and two pool deposits came in, both pool deposits went out
          assert.equal(BigInt(pots!.deposits), BigInt(pots!.before) + 2n * f.params.keyDeposit);
          const [stake] = await query<{ amount: string; pool: string }>(`
          select amount::text, pool_id::text as pool from epoch_stake
          where epoch_no = ${n + 2} and addr_id = ${await stakeAddressId(delegator)}`);
          assert.deepEqual(stake, { amount: String(19_000n * ada), pool: target!.id });
          const [retired] = await query<{ n: string }>(`
          select count(*)::text as n from epoch_stake e join pool_hash h on h.id = e.pool_id
          where e.epoch_no = ${
            n + 2
          } and h.hash_raw in (decode('${poolP.to_public().hash().to_hex()}', 'hex'),
            decode('${poolQ.to_public().hash().to_hex()}', 'hex'))`);
          assert.equal(retired!.n, "0");
        },
      );

      await t.step("blocks of N + 2 go to pools with active stake, with their own keys", async () => {
        for (let k = 0; k < 40; k++) await produceAt(epochStartMs(n + 2) + 5_000 + k * 20_000);
        const made = await query<{ pool: string; blocks: string; staked: boolean; keys: boolean }>(`
          select sl.pool_hash_id::text as pool, count(*)::text as blocks,
            bool_and(exists (select 1 from epoch_stake s where s.epoch_no = ${n + 2}
              and s.pool_id = sl.pool_hash_id)) as staked,
            bool_and(exists (select 1 from block e where e.slot_leader_id = b.slot_leader_id and e.epoch_no <= 5
              and e.vrf_key = b.vrf_key and e.op_cert = b.op_cert)) as keys
          from block b join slot_leader sl on sl.id = b.slot_leader_id
          where b.epoch_no = ${n + 2} group by sl.pool_hash_id`);
        assert.ok(made.length > 5, `${made.length} pools made blocks`);
        assert.ok(made.every((m) => m.staked && m.keys), JSON.stringify(made));
        assert.ok(made.some((m) => m.pool === target!.id), "the delegator's pool made a block");
      });

      let reward = 0n;
      await t.step("entering N + 4, the delegator is paid for N + 2 as the formula gives", async () => {
        await produceAt(epochStartMs(n + 3) + 5_000);
        const addr = await stakeAddressId(delegator);
        const early = await query(`select 1 from reward where addr_id = ${addr}`);
        assert.deepEqual(early, [], "nothing before the epoch its stake was active in is paid");
        await produceAt(epochStartMs(n + 4) + 5_000);
        const rows = await query<
          { type: string; amount: string; spendable: number; earned: number; pool: string }
        >(`
          select type::text, amount::text, spendable_epoch::int as spendable, earned_epoch::int as earned,
            pool_id::text as pool from reward where addr_id = ${addr}`);
        assert.equal(rows.length, 1);
        const row = rows[0]!;
        assert.deepEqual({ ...row, amount: undefined }, {
          type: "member",
          amount: undefined,
          spendable: n + 4,
          earned: n + 2,
          pool: target!.id,
        });
        // the formula from the database, written out: pot, the pool's share by stake and blocks, the member's
        const [i] = await query<Record<string, string>>(`
          select (select reserves::text from ada_pots where epoch_no = ${n + 3}) as reserves,
            (select sum(t.fee)::text from tx t join block b on b.id = t.block_id where b.epoch_no = ${n + 2})
              as fees,
            (select sum(amount)::text from epoch_stake where epoch_no = ${n + 2} and pool_id = ${target!.id})
              as stake,
            (select count(*)::text from block b join slot_leader sl on sl.id = b.slot_leader_id
              where b.epoch_no = ${n + 2} and sl.pool_hash_id is not null) as blocks,
            (select count(*)::text from block b join slot_leader sl on sl.id = b.slot_leader_id
              where b.epoch_no = ${n + 2} and sl.pool_hash_id = ${target!.id}) as produced,
            (select fixed_cost::text from pool_update where hash_id = ${target!.id}
              order by registered_tx_id desc limit 1) as cost,
            (select margin::text from pool_update where hash_id = ${target!.id}
              order by registered_tx_id desc limit 1) as margin`);
        const reserves = BigInt(i!.reserves!);
        const pot = Number((reserves * 3n) / 1000n) + Number(i!.fees);
        const net = pot - Math.floor(pot * 0.2);
        const stake = Number(i!.stake);
        // summed as the boundary sums it (in snapshot order, as doubles: the total passes 2^53)
        const active = (await query<{ amount: string }>(`
          select amount::text from epoch_stake where epoch_no = ${n + 2} order by id`))
          .reduce((sum, r) => sum + Number(r.amount), 0);
        const performance = Math.min(1, Number(i!.produced) / (Number(i!.blocks) * stake / active));
        const poolReward = Math.floor(net * (stake / Number(BigInt(maxSupply) - reserves)) * performance);
        const cost = Number(i!.cost);
        const leader = poolReward <= cost
          ? poolReward
          : cost + Math.floor((poolReward - cost) * Number(i!.margin));
        const expected = Math.floor(((poolReward - leader) * 19_000_000_000) / stake);
        assert.ok(expected > 0);
        assert.equal(row.amount, String(expected));
        reward = BigInt(row.amount);
        assert.equal(await checkPots(), n + 4);
      });

      await t.step("the reward is withdrawable, exactly (3141 otherwise)", async () => {
        const account = rewardAddress(delegator);
        const [u] = await walletUtxos(f, f.keys[1]!.address);
        const withdraw = (amount: bigint) =>
          buildTx(f.params, {
            inputs: [u!],
            outputs: [],
            balanceAdjust: -amount,
            signers: [f.keys[1]!.privateKey, delegator],
            body: (b) => {
              const w = CML.MapRewardAccountToCoin.new();
              w.insert(account, amount);
              b.set_withdrawals(w);
            },
          });
        await reject(withdraw(reward - 1n), 3141);
        await reject(withdraw(reward + 1n), 3141);
        await accept(withdraw(reward));
        await produceAt(epochStartMs(n + 4) + 60_000);
        const [row] = await query<{ amount: string }>(`
          select amount::text from withdrawal where addr_id = ${await stakeAddressId(delegator)}`);
        assert.equal(row!.amount, String(reward));
        // the balance is spent: withdrawing it again is 3141
        const [again] = await walletUtxos(f, f.keys[2]!.address);
        await reject(
          buildTx(f.params, {
            inputs: [again!],
            outputs: [],
            balanceAdjust: -reward,
            signers: [f.keys[2]!.privateKey, delegator],
            body: (b) => {
              const w = CML.MapRewardAccountToCoin.new();
              w.insert(account, reward);
              b.set_withdrawals(w);
            },
          }),
          3141,
        );
        await produceAt(epochStartMs(n + 5) + 5_000);
        assert.equal(await checkPots(), n + 5);
      });
    } finally {
      await f.close();
    }
  },
});
