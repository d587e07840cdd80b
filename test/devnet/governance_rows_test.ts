/**
 * Governance transactions on the devnet, read back as db-sync rows: a DRep registration with its anchor
 * (drep_registration, voting_anchor), a stake key delegating its vote to it (delegation_vote), an InfoAction and a
 * treasury withdrawal proposed (gov_action_proposal with db-sync's expiration and description JSON,
 * treasury_withdrawal, the proposals' deposits in tx.deposit), and votes by the DRep (voting_procedure numbered
 * per voter, the vote anchor); chain sync shows the DRep certificates, proposals and votes in Ogmios' shape.
 */
import assert from "node:assert/strict";
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import { Effect, Either } from "effect";
import { chainBatch } from "@src/queries/chain_blocks.ts";
import { ogmiosBlockTexts } from "@src/jsonrpc/ogmios_block.ts";
import { buildTx, fundKey, openDevnet, submit, walletUtxos } from "../support/devnet_tx.ts";
import { assertMatchesOgmiosSchema } from "../support/ogmios_schema.ts";
import {
  actionId,
  all,
  anchor,
  certs,
  credential,
  drepVoter,
  key,
  keyHash,
  proposal,
  proposals,
  rewardAddress,
  votes,
} from "../support/governance_tx.ts";

const plainJson = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value, (_k, v) => (typeof v === "bigint" ? Number(v) : v)));

Deno.test("devnet governance transactions as db-sync rows", async (t) => {
  const f = await openDevnet("devnet_governance_rows");
  const alice = f.keys[0]!;
  const query = <A extends object>(text: string) => Effect.runPromise(f.chain.sql.unsafe<A>(text));
  const accept = async (tx: CML.Transaction) => {
    const result = await submit(f, tx);
    assert.ok(Either.isRight(result), JSON.stringify(Either.isLeft(result) ? plainJson(result.left) : null));
    return result.right.transaction.id;
  };
  const drep = key(70);
  const holder = key(71);
  try {
    const [u1, , , u4] = await walletUtxos(f, alice.address);
    // two proposal deposits (100,000 ADA each) are more than the wallets hold
    const proposer = key(72);
    const funds = await fundKey(f, proposer, 250_000n * 1_000_000n);
    let proposalTx = "";

    await t.step("a DRep registers, a stake key delegates its vote, two actions are proposed", async () => {
      await accept(buildTx(f.params, {
        inputs: [u1!],
        outputs: [],
        balanceAdjust: f.params.drepDeposit + f.params.keyDeposit,
        signers: [alice.privateKey, drep, holder],
        body: certs(
          CML.Certificate.new_reg_drep_cert(
            credential(drep),
            f.params.drepDeposit,
            anchor("https://drep.invalid/a"),
          ),
          CML.Certificate.new_reg_cert(credential(holder), f.params.keyDeposit),
          CML.Certificate.new_vote_deleg_cert(credential(holder), CML.DRep.new_key(drep.to_public().hash())),
        ),
      }));
      const withdrawals = CML.MapRewardAccountToCoin.new();
      withdrawals.insert(rewardAddress(holder), 1_000_000_000n);
      proposalTx = await accept(buildTx(f.params, {
        inputs: [funds],
        outputs: [],
        balanceAdjust: 2n * f.params.govActionDeposit,
        signers: [proposer],
        body: proposals(
          proposal(f.params.govActionDeposit, rewardAddress(holder), CML.GovAction.new_info_action()),
          proposal(
            f.params.govActionDeposit,
            rewardAddress(holder),
            CML.GovAction.new_treasury_withdrawals_action(withdrawals),
          ),
        ),
      }));
    });

    await t.step("the DRep votes on both while they are pending", async () => {
      await accept(buildTx(f.params, {
        inputs: [u4!],
        outputs: [],
        signers: [alice.privateKey, drep],
        body: all(
          votes({
            voter: drepVoter(drep),
            on: [[actionId(proposalTx, 1), "no"], [actionId(proposalTx, 0), "yes"]],
            anchor: anchor("https://drep.invalid/rationale", 3),
          }),
        ),
      }));
      const block = await Effect.runPromise(f.devnet.produceBlock);
      assert.equal(block.txIds.length, 3);
    });

    await t.step("the rows are db-sync's", async () => {
      const [registration] = await query<Record<string, unknown>>(`
        select r.deposit::text as deposit, a.url, encode(a.data_hash, 'hex') as hash, a.type::text as type, h.view
        from drep_registration r join drep_hash h on h.id = r.drep_hash_id
        join voting_anchor a on a.id = r.voting_anchor_id
        where h.raw = decode('${keyHash(drep)}', 'hex')`);
      assert.deepEqual(registration, {
        deposit: String(f.params.drepDeposit),
        url: "https://drep.invalid/a",
        hash: "07".repeat(32),
        type: "drep",
        view: CML.Ed25519KeyHash.from_hex(keyHash(drep)).to_bech32("drep"),
      });
      const rows = await query<Record<string, unknown>>(`
        select g.index::int as index, g.type::text as type, g.deposit::text as deposit, g.expiration,
          g.description, s.view as "returnAddress", a.url, a.type::text as "anchorType",
          g.prev_gov_action_proposal as prev, g.param_proposal as param, b.epoch_no as epoch, t.deposit::text as "txDeposit"
        from gov_action_proposal g join tx t on t.id = g.tx_id join block b on b.id = t.block_id
        join stake_address s on s.id = g.return_address join voting_anchor a on a.id = g.voting_anchor_id
        where t.hash = decode('${proposalTx}', 'hex') order by g.index`);
      const epoch = rows[0]!.epoch as number;
      const common = {
        deposit: String(f.params.govActionDeposit),
        expiration: epoch + 6 + 1,
        returnAddress: rewardAddress(holder).to_address().to_bech32(),
        url: "https://gov.devnet.invalid/proposal.jsonld",
        anchorType: "gov_action",
        prev: null,
        param: null,
        epoch,
        txDeposit: String(2n * f.params.govActionDeposit),
      };
      assert.deepEqual(rows, [
        { index: 0, type: "InfoAction", description: { tag: "InfoAction" }, ...common },
        {
          index: 1,
          type: "TreasuryWithdrawals",
          description: {
            tag: "TreasuryWithdrawals",
            contents: [
              [[{ network: "Mainnet", credential: { keyHash: keyHash(holder) } }, 1_000_000_000]],
              null,
            ],
          },
          ...common,
        },
      ]);
      const withdrawal = await query(`
        select s.view, w.amount::text as amount from treasury_withdrawal w join stake_address s on s.id = w.stake_address_id`);
      assert.deepEqual(withdrawal, [{
        view: rewardAddress(holder).to_address().to_bech32(),
        amount: "1000000000",
      }]);
      const cast = await query(`
        select v.index, g.index::int as proposal, v.voter_role::text as role, h.view as drep, v.vote::text as vote,
          a.url, a.type::text as "anchorType", v.pool_voter, v.committee_voter, v.invalid
        from voting_procedure v join gov_action_proposal g on g.id = v.gov_action_proposal_id
        join drep_hash h on h.id = v.drep_voter join voting_anchor a on a.id = v.voting_anchor_id
        where h.raw = decode('${keyHash(drep)}', 'hex') order by v.id`);
      const view = CML.Ed25519KeyHash.from_hex(keyHash(drep)).to_bech32("drep");
      const vote = { role: "DRep", drep: view, url: "https://drep.invalid/rationale", anchorType: "vote" };
      assert.deepEqual(cast, [
        {
          index: 0,
          proposal: 0,
          ...vote,
          vote: "Yes",
          pool_voter: null,
          committee_voter: null,
          invalid: null,
        },
        {
          index: 1,
          proposal: 1,
          ...vote,
          vote: "No",
          pool_voter: null,
          committee_voter: null,
          invalid: null,
        },
      ]);
    });

    await t.step("chain sync shows the certificates, proposals and votes in Ogmios' shape", async () => {
      const [row] = await query<{ block: string }>(`
        select (t.block_id - 1)::text as block from tx t where t.hash = decode('${proposalTx}', 'hex')`);
      const batch = await Effect.runPromise(chainBatch(f.chain.sql, row!.block, 1, "enable"));
      const [block] = ogmiosBlockTexts(batch).map((text) => JSON.parse(text)) as Array<
        { transactions: Array<Record<string, unknown>> }
      >;
      const [registration, proposing, voting] = block!.transactions;
      await assertMatchesOgmiosSchema("cardano.json#/definitions/Block", plainJson(block));
      assert.deepEqual(plainJson(registration!.certificates), [
        {
          type: "delegateRepresentativeRegistration",
          delegateRepresentative: { type: "registered", id: keyHash(drep), from: "verificationKey" },
          deposit: { ada: { lovelace: Number(f.params.drepDeposit) } },
          metadata: { url: "https://drep.invalid/a", hash: "07".repeat(32) },
        },
        {
          type: "stakeCredentialRegistration",
          credential: keyHash(holder),
          from: "verificationKey",
          deposit: { ada: { lovelace: Number(f.params.keyDeposit) } },
        },
        {
          type: "stakeDelegation",
          credential: keyHash(holder),
          from: "verificationKey",
          delegateRepresentative: { type: "registered", id: keyHash(drep), from: "verificationKey" },
        },
      ]);
      const returnAccount = rewardAddress(holder).to_address().to_bech32();
      const metadata = { url: "https://gov.devnet.invalid/proposal.jsonld", hash: "09".repeat(32) };
      const deposit = { ada: { lovelace: Number(f.params.govActionDeposit) } };
      assert.deepEqual(plainJson(proposing!.proposals), [
        { deposit, returnAccount, metadata, action: { type: "information" } },
        {
          deposit,
          returnAccount,
          metadata,
          action: {
            type: "treasuryWithdrawals",
            withdrawals: { [returnAccount]: { ada: { lovelace: 1_000_000_000 } } },
            guardrails: null,
          },
        },
      ]);
      const issuer = { role: "delegateRepresentative", id: keyHash(drep), from: "verificationKey" };
      const rationale = { url: "https://drep.invalid/rationale", hash: "03".repeat(32) };
      assert.deepEqual(plainJson(voting!.votes), [
        { issuer, metadata: rationale, vote: "yes", proposal: { transaction: { id: proposalTx }, index: 0 } },
        { issuer, metadata: rationale, vote: "no", proposal: { transaction: { id: proposalTx }, index: 1 } },
      ]);
    });
  } finally {
    await f.close();
  }
});
