/**
 * Governance across devnet epoch boundaries (TestClock moves the chain's epochs):
 * - proposals nobody ratifies: votable through their last epoch, then expired_epoch (votes are 3160), then
 *   dropped_epoch with the deposit refunded to the registered return account (reward_rest proposal_refund,
 *   withdrawable exactly) or, when that account is gone, to the treasury; deposits_proposal moves and ada_pots
 *   still add up; an InfoAction is never ratified, however the DReps vote;
 * - ratification and enactment with keys the test controls, past the epoch where the demo chain's DReps went
 *   inactive: a whale (the stake the genesis outputs still hold, paid as the faucet pays) runs a pool and the only
 *   active DRep, and a committee as a Conway genesis would name one (the demo chain has none, and no committee can
 *   be elected on it: its pools hold more stake than the whale) authorises hot keys. A treasury withdrawal and a
 *   parameter change the DRep and five of seven members approve are ratified, then enacted the epoch after:
 *   reward_rest treasury (withdrawable), the treasury pot moves, the next epoch_param carries the change, the
 *   enacted change's sibling is dropped, deposits come back. A withdrawal only four members approve, and an
 *   UpdateCommittee the pools do not carry, are not ratified.
 */
import assert from "node:assert/strict";
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import { Effect, TestClock, TestContext } from "effect";
import { demoNetworks } from "@src/demo_chain/network_params.ts";
import {
  buildTx,
  type DevnetFixture,
  fundAddress,
  openDevnet,
  type TxParts,
  type Utxo,
} from "../support/devnet_tx.ts";
import {
  actionId,
  certs,
  committeeVoter,
  credential,
  drepVoter,
  key,
  keyHash,
  poolVoter,
  proposal,
  proposals,
  rewardAddress,
  seedGenesisCommittee,
  votes,
} from "../support/governance_tx.ts";
import { makeAccept, makeExpectRejection } from "../support/devnet_rejection.ts";

const ada = 1_000_000n;
const maxSupply = "45000000000000000";
const epochStartMs = (epoch: number) => demoNetworks.mainnet.systemStart.getTime() + epoch * 432_000_000;

/** A funded test key spending its change from one transaction to the next. */
const wallet = (f: DevnetFixture, payer: CML.PrivateKey, first: Utxo) => {
  let fuel = first;
  const acceptTx = makeAccept(f);
  return {
    tx: (parts: Partial<TxParts> & { extraSigners?: Array<CML.PrivateKey> }) =>
      buildTx(f.params, {
        inputs: [fuel],
        outputs: [],
        ...parts,
        signers: [payer, ...(parts.extraSigners ?? [])],
      }),
    accept: async (built: CML.Transaction) => {
      const id = await acceptTx(built);
      const outputs = built.body().outputs();
      fuel = {
        input: CML.TransactionInput.new(CML.TransactionHash.from_hex(id), BigInt(outputs.len() - 1)),
        output: outputs.get(outputs.len() - 1),
      };
      return id;
    },
  };
};

const harness = (f: DevnetFixture) => ({
  query: <A extends object>(text: string) => Effect.runPromise(f.chain.sql.unsafe<A>(text)),
  produceAt: (ms: number) =>
    Effect.runPromise(
      Effect.gen(function* () {
        yield* TestClock.setTime(ms);
        return yield* f.devnet.produceBlock;
      }).pipe(Effect.provide(TestContext.TestContext)),
    ),
  checkPots: async () => {
    const pots = await Effect.runPromise(f.chain.sql.unsafe<{ epoch: number; sum: string }>(`
      select epoch_no as epoch, (treasury + reserves + rewards + utxo + deposits_stake + fees + deposits_drep
        + deposits_proposal)::text as sum from ada_pots order by epoch_no`));
    for (const p of pots) assert.equal(p.sum, maxSupply, `ada_pots of epoch ${p.epoch}`);
  },
});

Deno.test({
  name: "devnet proposals expire, are dropped and refund their deposits",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const f = await openDevnet("devnet_governance_expiry");
    const { query, produceAt, checkPots } = harness(f);
    const [payer, holder, gone, drep] = [80, 81, 82, 83].map(key) as [
      CML.PrivateKey,
      CML.PrivateKey,
      CML.PrivateKey,
      CML.PrivateKey,
    ];
    const address = CML.EnterpriseAddress.new(1, credential(payer)).to_address();
    const w = wallet(f, payer, await fundAddress(f, address, 500_000n * ada));
    const expectRejection = makeExpectRejection(f, [address.to_bech32()]);
    const deposit = f.params.govActionDeposit;
    try {
      const [tip] = await query<{ epoch: number }>(`
        select epoch_no as epoch from block where block_no is not null order by id desc limit 1`);
      const n = tip!.epoch;
      let kept = "";
      let orphaned = "";

      await t.step(
        "two InfoActions in epoch N, one of whose return accounts leaves; a DRep votes yes",
        async () => {
          await w.accept(w.tx({
            balanceAdjust: 2n * f.params.keyDeposit + f.params.drepDeposit,
            extraSigners: [holder, gone, drep],
            body: certs(
              CML.Certificate.new_reg_cert(credential(holder), f.params.keyDeposit),
              CML.Certificate.new_vote_deleg_cert(credential(holder), CML.DRep.new_always_abstain()),
              CML.Certificate.new_reg_cert(credential(gone), f.params.keyDeposit),
              CML.Certificate.new_reg_drep_cert(credential(drep), f.params.drepDeposit),
            ),
          }));
          kept = await w.accept(w.tx({
            balanceAdjust: deposit,
            body: proposals(proposal(deposit, rewardAddress(holder), CML.GovAction.new_info_action())),
          }));
          orphaned = await w.accept(w.tx({
            balanceAdjust: deposit,
            body: proposals(proposal(deposit, rewardAddress(gone), CML.GovAction.new_info_action())),
          }));
          await w.accept(w.tx({
            balanceAdjust: -f.params.keyDeposit,
            extraSigners: [gone, drep],
            body: (b) => {
              certs(CML.Certificate.new_unreg_cert(credential(gone), f.params.keyDeposit))(b);
              votes({ voter: drepVoter(drep), on: [[actionId(kept), "yes"], [actionId(orphaned), "yes"]] })(
                b,
              );
            },
          }));
          const block = await produceAt(Date.now());
          assert.equal(block.txIds.length, 4);
          const rows = await query<{ expiration: number }>(`
          select g.expiration from gov_action_proposal g join tx t on t.id = g.tx_id
          where t.hash in (decode('${kept}', 'hex'), decode('${orphaned}', 'hex'))`);
          assert.deepEqual(rows.map((r) => r.expiration), [block.epoch + 7, block.epoch + 7]);
          assert.equal(block.epoch, n);
        },
      );

      await t.step("through epoch N + 6 they stay open (InfoActions are never ratified)", async () => {
        for (let e = n + 1; e <= n + 6; e++) await produceAt(epochStartMs(e) + 5_000);
        const rows = await query(`
          select ratified_epoch, expired_epoch, dropped_epoch, enacted_epoch from gov_action_proposal g
          join tx t on t.id = g.tx_id where t.hash = decode('${kept}', 'hex')`);
        assert.deepEqual(rows, [{
          ratified_epoch: null,
          expired_epoch: null,
          dropped_epoch: null,
          enacted_epoch: null,
        }]);
        await w.accept(w.tx({
          extraSigners: [drep],
          body: votes({ voter: drepVoter(drep), on: [[actionId(kept), "no"]] }),
        }));
      });

      await t.step("entering N + 7 they expire: votes are 3160", async () => {
        await produceAt(epochStartMs(n + 7) + 5_000);
        const rows = await query<{ expired: number | null; dropped: number | null }>(`
          select expired_epoch as expired, dropped_epoch as dropped from gov_action_proposal g
          join tx t on t.id = g.tx_id where t.hash in (decode('${kept}', 'hex'), decode('${orphaned}', 'hex'))`);
        assert.deepEqual(rows, [{ expired: n + 7, dropped: null }, { expired: n + 7, dropped: null }]);
        const error = await expectRejection(
          w.tx({
            extraSigners: [drep],
            body: votes({ voter: drepVoter(drep), on: [[actionId(kept), "yes"]] }),
          }),
          3160,
        );
        assert.deepEqual(error.data, {
          invalidVotes: [{
            proposal: { transaction: { id: kept }, index: 0 },
            voter: { role: "delegateRepresentative", id: keyHash(drep), from: "verificationKey" },
          }],
        });
      });

      await t.step(
        "entering N + 8 they are dropped: refund or treasury, deposits_proposal moves",
        async () => {
          await produceAt(epochStartMs(n + 8) + 5_000);
          const rows = await query<{ dropped: number | null }>(`
          select dropped_epoch as dropped from gov_action_proposal g join tx t on t.id = g.tx_id
          where t.hash in (decode('${kept}', 'hex'), decode('${orphaned}', 'hex'))`);
          assert.deepEqual(rows, [{ dropped: n + 8 }, { dropped: n + 8 }]);
          const refunds = await query(`
          select s.view, r.type::text as type, r.amount::text as amount, r.spendable_epoch::int as spendable,
            r.earned_epoch::int as earned
          from reward_rest r join stake_address s on s.id = r.addr_id where r.type = 'proposal_refund'
            and r.spendable_epoch = ${n + 8}`);
          assert.deepEqual(refunds, [{
            view: rewardAddress(holder).to_address().to_bech32(),
            type: "proposal_refund",
            amount: String(deposit),
            spendable: n + 8,
            earned: n + 7,
          }]);
          const [pots] = await query<{ proposals: string; before: string; treasury: string; cut: string }>(`
          select a.deposits_proposal::text as proposals, b.deposits_proposal::text as before,
            (a.treasury - b.treasury)::text as treasury, b.reserves::text as cut
          from ada_pots a join ada_pots b on b.epoch_no = a.epoch_no - 1 where a.epoch_no = ${n + 8}`);
          assert.equal(BigInt(pots!.before) - BigInt(pots!.proposals), 2n * deposit);
          // the treasury gets its cut of the reward pot, and the deposit nobody can claim
          assert.ok(BigInt(pots!.treasury) >= deposit, `treasury moved by ${pots!.treasury}`);
          await checkPots();
        },
      );

      await t.step(
        "the refund is withdrawable, exactly; votes on the dropped proposal are 3138",
        async () => {
          const withdraw = (amount: bigint) =>
            w.tx({
              balanceAdjust: -amount,
              extraSigners: [holder],
              body: (b) => {
                const m = CML.MapRewardAccountToCoin.new();
                m.insert(rewardAddress(holder), amount);
                b.set_withdrawals(m);
              },
            });
          await expectRejection(withdraw(deposit - 1n), 3141);
          await w.accept(withdraw(deposit));
          await expectRejection(
            w.tx({
              extraSigners: [drep],
              body: votes({ voter: drepVoter(drep), on: [[actionId(kept), "yes"]] }),
            }),
            3138,
          );
          await produceAt(epochStartMs(n + 8) + 60_000);
          await checkPots();
        },
      );
    } finally {
      await f.close();
    }
  },
});

Deno.test({
  name: "devnet ratifies and enacts a treasury withdrawal and a parameter change, and no more",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const f = await openDevnet("devnet_governance_enactment");
    const { query, produceAt, checkPots } = harness(f);
    const [whale, whaleStake, whalePool, whaleDrep, beneficiary, newcomer] = [100, 101, 102, 103, 104, 105]
      .map(
        key,
      ) as [CML.PrivateKey, CML.PrivateKey, CML.PrivateKey, CML.PrivateKey, CML.PrivateKey, CML.PrivateKey];
    const colds = Array.from({ length: 7 }, (_, i) => key(110 + i));
    const hots = Array.from({ length: 7 }, (_, i) => key(120 + i));
    const deposit = f.params.govActionDeposit;
    const proposalRow = (tx: string) =>
      query<Record<string, unknown>>(`
        select g.id::text as id, g.ratified_epoch as ratified, g.enacted_epoch as enacted,
          g.dropped_epoch as dropped, g.expired_epoch as expired
        from gov_action_proposal g join tx t on t.id = g.tx_id where t.hash = decode('${tx}', 'hex') order by g.index`);
    try {
      // past epoch 26 the demo chain's DReps (last active by epoch 5, 20 epochs of activity) no longer count
      const [tip] = await query<{ epoch: number }>(`
        select epoch_no as epoch from block where block_no is not null order by id desc limit 1`);
      const n = Math.max(tip!.epoch + 1, 27);
      await produceAt(epochStartMs(n) + 5_000);
      await Effect.runPromise(seedGenesisCommittee(f.chain.sql, {
        members: colds,
        expiration: n + 50,
        epoch: n,
        quorum: [2n, 3n],
      }));
      // all the stake the genesis outputs still hold (9.26 billion ADA): less than the demo chain's pools have
      const address = CML.BaseAddress.new(1, credential(whale), credential(whaleStake)).to_address();
      const w = wallet(f, whale, await fundAddress(f, address, 9_000_000_000n * ada));
      let committeeTx = "";
      let withdrawalTx = "";
      let changeTx = "";
      let outvotedTx = "";

      await t.step(
        "epoch N: the whale's pool and DRep, hot keys, four proposals and their votes",
        async () => {
          const owners = CML.Ed25519KeyHashList.new();
          owners.add(whaleStake.to_public().hash());
          await w.accept(w.tx({
            balanceAdjust: 2n * f.params.keyDeposit + f.params.poolDeposit + f.params.drepDeposit,
            extraSigners: [whaleStake, whalePool, whaleDrep, beneficiary, ...colds],
            body: certs(
              CML.Certificate.new_reg_cert(credential(whaleStake), f.params.keyDeposit),
              CML.Certificate.new_pool_registration(CML.PoolParams.new(
                whalePool.to_public().hash(),
                CML.VRFKeyHash.from_raw_bytes(new Uint8Array(32).fill(9)),
                0n,
                170n * ada,
                CML.UnitInterval.new(1n, 100n),
                rewardAddress(whaleStake),
                owners,
                CML.RelayList.new(),
              )),
              CML.Certificate.new_reg_drep_cert(credential(whaleDrep), f.params.drepDeposit),
              CML.Certificate.new_stake_vote_deleg_cert(
                credential(whaleStake),
                whalePool.to_public().hash(),
                CML.DRep.new_key(whaleDrep.to_public().hash()),
              ),
              CML.Certificate.new_reg_cert(credential(beneficiary), f.params.keyDeposit),
              CML.Certificate.new_vote_deleg_cert(credential(beneficiary), CML.DRep.new_always_abstain()),
              ...colds.map((c, i) =>
                CML.Certificate.new_auth_committee_hot_cert(credential(c), credential(hots[i]!))
              ),
            ),
          }));
          const members = CML.MapCommitteeColdCredentialToEpoch.new();
          members.insert(credential(newcomer), BigInt(n + 40));
          committeeTx = await w.accept(w.tx({
            balanceAdjust: deposit,
            body: proposals(proposal(
              deposit,
              rewardAddress(whaleStake),
              CML.GovAction.new_update_committee(
                undefined,
                CML.CommitteeColdCredentialList.new(),
                members,
                CML.UnitInterval.new(2n, 3n),
              ),
            )),
          }));
          const withdrawal = (lovelace: bigint) => {
            const map = CML.MapRewardAccountToCoin.new();
            map.insert(rewardAddress(beneficiary), lovelace);
            return proposal(
              deposit,
              rewardAddress(whaleStake),
              CML.GovAction.new_treasury_withdrawals_action(map),
            );
          };
          withdrawalTx = await w.accept(
            w.tx({ balanceAdjust: deposit, body: proposals(withdrawal(1_234n * ada)) }),
          );
          outvotedTx = await w.accept(
            w.tx({ balanceAdjust: deposit, body: proposals(withdrawal(99n * ada)) }),
          );
          const change = (percent: bigint) => {
            const update = CML.ProtocolParamUpdate.new();
            update.set_collateral_percentage(percent);
            return proposal(
              deposit,
              rewardAddress(whaleStake),
              CML.GovAction.new_parameter_change_action(undefined, update),
            );
          };
          changeTx = await w.accept(
            w.tx({ balanceAdjust: 2n * deposit, body: proposals(change(175n), change(190n)) }),
          );
          const approved: Array<[CML.GovActionId, "yes"]> = [[actionId(withdrawalTx), "yes"], [
            actionId(changeTx),
            "yes",
          ]];
          await w.accept(w.tx({
            extraSigners: [whaleDrep, whalePool, ...hots],
            body: votes(
              {
                voter: drepVoter(whaleDrep),
                on: [...approved, [actionId(changeTx, 1), "yes"], [actionId(outvotedTx), "yes"], [
                  actionId(committeeTx),
                  "yes",
                ]],
              },
              { voter: poolVoter(whalePool), on: [[actionId(committeeTx), "yes"]] },
              // five of seven members approve two actions; four (less than two thirds) the other withdrawal
              ...hots.slice(0, 5).map((h, i) => ({
                voter: committeeVoter(h),
                on: i < 4
                  ? [...approved, [actionId(outvotedTx), "yes"] as [CML.GovActionId, "yes"]]
                  : approved,
              })),
            ),
          }));
          assert.equal((await produceAt(epochStartMs(n) + 60_000)).txIds.length, 6);
          const [proposed] = await query<{ members: string }>(`
          select (select count(*) from committee_member m where m.committee_id = c.id)::text as members
          from committee c join gov_action_proposal g on g.id = c.gov_action_proposal_id
          join tx t on t.id = g.tx_id where t.hash = decode('${committeeTx}', 'hex')`);
          assert.deepEqual(proposed, { members: "8" }, "the committee the proposal would make: 7 + 1");
        },
      );

      await t.step(
        "entering N + 1 what DReps and the committee approve is ratified, nothing else",
        async () => {
          await produceAt(epochStartMs(n + 1) + 5_000);
          assert.deepEqual((await proposalRow(withdrawalTx)).map((r) => r.ratified), [n + 1]);
          assert.deepEqual((await proposalRow(changeTx)).map((r) => r.ratified), [n + 1, null]);
          // four of seven is under the quorum; the pools (the demo chain's hold more) outweigh the whale's
          assert.deepEqual((await proposalRow(outvotedTx)).map((r) => r.ratified), [null]);
          assert.deepEqual((await proposalRow(committeeTx)).map((r) => r.ratified), [null]);
        },
      );

      await t.step(
        "entering N + 2 they are enacted: the treasury pays, epoch_param changes, the sibling drops",
        async () => {
          await produceAt(epochStartMs(n + 2) + 5_000);
          assert.deepEqual((await proposalRow(withdrawalTx)).map((r) => r.enacted), [n + 2]);
          assert.deepEqual(
            (await proposalRow(changeTx)).map((r) => [r.enacted, r.dropped]),
            [[n + 2, null], [null, n + 2]],
          );
          assert.deepEqual((await proposalRow(outvotedTx)).map((r) => [r.enacted, r.dropped]), [[
            null,
            null,
          ]]);
          const paid = await query(`
          select s.view, r.amount::text as amount, r.spendable_epoch::int as spendable, r.earned_epoch::int as earned
          from reward_rest r join stake_address s on s.id = r.addr_id where r.type = 'treasury'
            and r.spendable_epoch = ${n + 2}`);
          assert.deepEqual(paid, [{
            view: rewardAddress(beneficiary).to_address().to_bech32(),
            amount: String(1_234n * ada),
            spendable: n + 2,
            earned: n + 1,
          }]);
          const refunds = await query<{ n: string; total: string }>(`
          select count(*)::text as n, sum(amount)::text as total from reward_rest
          where type = 'proposal_refund' and spendable_epoch = ${n + 2}`);
          assert.deepEqual(refunds, [{ n: "3", total: String(3n * deposit) }]);
          const params = await query<{ epoch: number; percent: number }>(`
          select epoch_no as epoch, collateral_percent as percent from epoch_param
          where epoch_no in (${n + 1}, ${n + 2}) order by epoch_no`);
          assert.deepEqual(params, [{ epoch: n + 1, percent: 150 }, { epoch: n + 2, percent: 175 }]);
          const [pots] = await query<{ treasury: string; reserves: string; fees: string }>(`
          select (a.treasury - b.treasury)::text as treasury, b.reserves::text as reserves,
            (select coalesce(sum(t.fee), 0) from tx t join block k on k.id = t.block_id
              where k.epoch_no = ${n})::text as fees
          from ada_pots a join ada_pots b on b.epoch_no = a.epoch_no - 1 where a.epoch_no = ${n + 2}`);
          const pot = Number((BigInt(pots!.reserves) * 3n) / 1000n) + Number(pots!.fees);
          assert.equal(BigInt(pots!.treasury), BigInt(Math.floor(pot * 0.2)) - 1_234n * ada);
          await checkPots();
        },
      );

      await t.step("the beneficiary withdraws what the treasury paid it", async () => {
        await w.accept(w.tx({
          balanceAdjust: -(1_234n * ada),
          extraSigners: [beneficiary],
          body: (b) => {
            const m = CML.MapRewardAccountToCoin.new();
            m.insert(rewardAddress(beneficiary), 1_234n * ada);
            b.set_withdrawals(m);
          },
        }));
        await produceAt(epochStartMs(n + 2) + 60_000);
        await checkPots();
      });
    } finally {
      await f.close();
    }
  },
});
