/**
 * Conway governance on the devnet end to end, built with CSL and submitted with the official client: the wallets'
 * outputs gathered (a proposal deposit is 100,000 ADA), a DRep registered with an anchor, a stake key registered
 * and delegating its vote to it, an InfoAction proposed and the DRep voting on it. The explorer's DRep list counts
 * the vote and the delegator, GraphQL shows gov_action_proposal and voting_procedure as db-sync writes them, and
 * chain sync shows the certificates, the proposal and the vote; a proposal with the wrong deposit is 3155 with
 * the UTxO set unchanged.
 */
import assert from "node:assert/strict";
import * as CSL from "@emurgo/cardano-serialization-lib-nodejs";
import { bech32, hex } from "@scure/base";
import { big } from "../../scripts/devnet_example.ts";
import { type OgmiosUtxo, openDevnetService, sleep } from "../support/devnet_service.ts";
import { testDatabaseUrl } from "../support/databases.ts";

const anchor = (url: string, byte: number) =>
  CSL.Anchor.new(
    CSL.URL.new(url),
    CSL.AnchorDataHash.from_hex(byte.toString(16).padStart(2, "0").repeat(32)),
  );

Deno.test({
  name: "devnet end to end: a DRep, a delegation, an InfoAction and a vote with CSL, seen by every interface",
  // the devnet runs on the embedded demo chain (the PostgreSQL run serves db-sync databases)
  ignore: testDatabaseUrl !== undefined,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const s = await openDevnetService("devnet_e2e_governance");
    try {
      const [wallet] = s.wallets;
      const keys = s.wallets.map((w) => CSL.PrivateKey.from_bech32(w.signingKey));
      const paymentKey = keys[0]!;
      const drepKey = CSL.PrivateKey.generate_ed25519();
      const stakeKey = CSL.PrivateKey.generate_ed25519();
      const drepCredential = CSL.Credential.from_keyhash(drepKey.to_public().hash());
      const stakeCredential = CSL.Credential.from_keyhash(stakeKey.to_public().hash());
      const drepHash = drepKey.to_public().hash().to_hex();
      const stakeHash = stakeKey.to_public().hash().to_hex();
      // CIP-129: header 0x22 (key-based DRep) before the hash
      const drepId = bech32.encode(
        "drep",
        bech32.toWords(Uint8Array.from([0x22, ...hex.decode(drepHash)])),
        1023,
      );
      const rewardAccount = CSL.RewardAddress.new(1, stakeCredential);
      const rewardBech32 = rewardAccount.to_address().to_bech32();
      const baseAddress = CSL.BaseAddress.new(
        1,
        CSL.Credential.from_keyhash(paymentKey.to_public().hash()),
        stakeCredential,
      ).to_address();
      const pp = s.protocolParameters as unknown as Record<string, { ada: { lovelace: number } }>;
      const drepDeposit = BigInt(pp.delegateRepresentativeDeposit!.ada.lovelace);
      const keyDeposit = BigInt(pp.stakeCredentialDeposit!.ada.lovelace);
      const proposalDeposit = BigInt(pp.governanceActionDeposit!.ada.lovelace);

      /** A transaction from the first wallet's `inputs`, change back to it, signed by `signers`. */
      const build = (
        inputs: Array<{ address: string; utxo: OgmiosUtxo }>,
        signers: Array<CSL.PrivateKey>,
        edit: (b: CSL.TransactionBuilder) => void,
      ) => {
        const builder = CSL.TransactionBuilder.new(s.config);
        for (const { address, utxo } of inputs) {
          builder.add_regular_input(
            CSL.Address.from_bech32(address),
            CSL.TransactionInput.new(CSL.TransactionHash.from_hex(utxo.transaction.id), utxo.index),
            CSL.Value.new(big(utxo.value.ada.lovelace)),
          );
        }
        edit(builder);
        builder.add_change_if_needed(CSL.Address.from_bech32(wallet!.address));
        const tx = CSL.FixedTransaction.from_bytes(builder.build_tx().to_bytes());
        for (const k of signers) tx.sign_and_add_vkey_signature(k);
        return { cbor: tx.to_hex(), id: tx.transaction_hash().to_hex() };
      };
      const largest = async () => (await s.utxosOf(wallet!.address))[0]!;
      const proposalWith = (deposit: bigint) => (b: CSL.TransactionBuilder) => {
        const proposals = CSL.VotingProposalBuilder.new();
        proposals.add(CSL.VotingProposal.new(
          CSL.GovernanceAction.new_info_action(CSL.InfoAction.new()),
          anchor("https://gov.e2e.invalid/info.jsonld", 0xab),
          rewardAccount,
          big(deposit),
        ));
        b.set_voting_proposal_builder(proposals);
      };
      await s.syncFromTip();

      let registration = { cbor: "", id: "" };
      await t.step(
        "the wallets' outputs gathered; a DRep and a delegating stake key registered",
        async () => {
          const gathered: Array<{ address: string; utxo: OgmiosUtxo }> = [];
          for (const w of s.wallets) {
            for (const utxo of (await s.utxosOf(w.address)).slice(0, 3)) {
              gathered.push({ address: w.address, utxo });
            }
          }
          const gather = build(gathered, keys, () => {});
          assert.equal(await s.client.submitTransaction(gather.cbor), gather.id);
          await s.confirmed(gather.id);
          const funds = await largest();
          assert.ok(
            BigInt(funds.value.ada.lovelace) > proposalDeposit + drepDeposit,
            "enough for the deposits",
          );
          registration = build(
            [{ address: wallet!.address, utxo: funds }],
            [paymentKey, drepKey, stakeKey],
            (b) => {
              const certs = CSL.CertificatesBuilder.new();
              certs.add(CSL.Certificate.new_drep_registration(
                CSL.DRepRegistration.new_with_anchor(
                  drepCredential,
                  big(drepDeposit),
                  anchor("https://drep.e2e.invalid", 0xcd),
                ),
              ));
              certs.add(CSL.Certificate.new_reg_cert(
                CSL.StakeRegistration.new_with_explicit_deposit(stakeCredential, big(keyDeposit)),
              ));
              certs.add(CSL.Certificate.new_vote_delegation(
                CSL.VoteDelegation.new(stakeCredential, CSL.DRep.new_key_hash(drepKey.to_public().hash())),
              ));
              b.set_certs_builder(certs);
              b.add_output(CSL.TransactionOutput.new(baseAddress, CSL.Value.new(big(40_000_000))));
            },
          );
          assert.equal(await s.client.submitTransaction(registration.cbor), registration.id);
          const status = await s.confirmed(registration.id);
          assert.ok(status.blockNo! > 0);
        },
      );

      let proposal = { cbor: "", id: "" };
      let vote = { cbor: "", id: "" };
      await t.step("an InfoAction is proposed and the DRep votes yes on it", async () => {
        proposal = build(
          [{ address: wallet!.address, utxo: await largest() }],
          [paymentKey],
          proposalWith(proposalDeposit),
        );
        assert.equal(await s.client.submitTransaction(proposal.cbor), proposal.id);
        await s.confirmed(proposal.id);
        vote = build([{ address: wallet!.address, utxo: await largest() }], [paymentKey, drepKey], (b) => {
          const voting = CSL.VotingBuilder.new();
          voting.add(
            CSL.Voter.new_drep_credential(drepCredential),
            CSL.GovernanceActionId.new(CSL.TransactionHash.from_hex(proposal.id), 0),
            CSL.VotingProcedure.new_with_anchor(
              CSL.VoteKind.Yes,
              anchor("https://drep.e2e.invalid/why", 0xef),
            ),
          );
          b.set_voting_builder(voting);
        });
        assert.equal(await s.client.submitTransaction(vote.cbor), vote.id);
        await s.confirmed(vote.id);
      });

      await t.step("a proposal with the wrong deposit: 3155, UTxO set unchanged", async () => {
        const before = await s.utxosOf(wallet!.address);
        const wrong = build(
          [{ address: wallet!.address, utxo: before[0]! }],
          [paymentKey],
          proposalWith(1_000_000n),
        );
        await assert.rejects(
          s.client.submitTransaction(wrong.cbor),
          (e: { code?: number; data?: unknown }) => {
            assert.equal(e.code, 3155);
            // the official client reads lovelace as exact integers (BigInt)
            assert.deepEqual(e.data, {
              expectedDeposit: { ada: { lovelace: proposalDeposit } },
              providedDeposit: { ada: { lovelace: 1_000_000n } },
            });
            return true;
          },
        );
        await sleep(2_500); // two blocks later
        assert.deepEqual(await s.utxosOf(wallet!.address), before);
      });

      await t.step("the explorer's DRep list: registered, active, one delegator, one vote", async () => {
        let found: Record<string, unknown> | undefined;
        for (let page = 1; !found; page++) {
          const list = await s.get(`/v2/explorer/mainnet/dreps?pageSize=100&page=${page}`);
          assert.equal(list.status, 200);
          found = list.body.data.find((d: { drepIdBech32: string }) => d.drepIdBech32 === drepId);
          if (!list.body.hasMore) break;
        }
        assert.ok(found, `${drepId} is listed`);
        assert.deepEqual(
          { ...found, votingPower: undefined, name: undefined, givenName: undefined },
          {
            drepIdBech32: drepId,
            type: "registered",
            isActive: true,
            delegatorCount: 1,
            votesCount: 1,
            votingPower: undefined,
            name: undefined,
            givenName: undefined,
          },
        );
      });

      await t.step("GraphQL: gov_action_proposal and voting_procedure as db-sync writes them", async () => {
        const data = await s.graphql(`{
          gov_action_proposal(where: {tx: {hash: {_eq: "${proposal.id}"}}}) {
            index type deposit description ratified_epoch enacted_epoch dropped_epoch expired_epoch
            stake_address { view } voting_anchor { url type } tx { block { epoch_no } }
          }
          voting_procedure(where: {tx: {hash: {_eq: "${vote.id}"}}}) {
            index voter_role vote invalid drep_hash { view } gov_action_proposal { index }
            voting_anchor { url type }
          }
          drep_registration(where: {tx: {hash: {_eq: "${registration.id}"}}}) {
            deposit voting_anchor { url type }
          }
        }`);
        const [row] = data.gov_action_proposal;
        assert.deepEqual({ ...row, tx: undefined }, {
          index: "0",
          type: "InfoAction",
          deposit: String(proposalDeposit),
          description: { tag: "InfoAction" },
          ratified_epoch: null,
          enacted_epoch: null,
          dropped_epoch: null,
          expired_epoch: null,
          stake_address: { view: rewardBech32 },
          voting_anchor: { url: "https://gov.e2e.invalid/info.jsonld", type: "gov_action" },
          tx: undefined,
        });
        assert.deepEqual(data.voting_procedure, [{
          index: 0,
          voter_role: "DRep",
          vote: "Yes",
          invalid: null,
          drep_hash: { view: CSL.Ed25519KeyHash.from_hex(drepHash).to_bech32("drep") },
          gov_action_proposal: { index: "0" },
          voting_anchor: { url: "https://drep.e2e.invalid/why", type: "vote" },
        }]);
        assert.deepEqual(data.drep_registration, [{
          deposit: String(drepDeposit),
          voting_anchor: { url: "https://drep.e2e.invalid", type: "drep" },
        }]);
      });

      await t.step("chain sync: the DRep certificates, the proposal and the vote", async () => {
        const registered = await s.syncUntil(registration.id);
        assert.deepEqual(registered.certificates, [
          {
            type: "delegateRepresentativeRegistration",
            delegateRepresentative: { type: "registered", id: drepHash, from: "verificationKey" },
            deposit: { ada: { lovelace: Number(drepDeposit) } },
            metadata: { url: "https://drep.e2e.invalid", hash: "cd".repeat(32) },
          },
          {
            type: "stakeCredentialRegistration",
            credential: stakeHash,
            from: "verificationKey",
            deposit: { ada: { lovelace: Number(keyDeposit) } },
          },
          {
            type: "stakeDelegation",
            credential: stakeHash,
            from: "verificationKey",
            delegateRepresentative: { type: "registered", id: drepHash, from: "verificationKey" },
          },
        ]);
        const proposed = await s.syncUntil(proposal.id);
        assert.deepEqual(proposed.proposals, [{
          deposit: { ada: { lovelace: Number(proposalDeposit) } },
          returnAccount: rewardBech32,
          metadata: { url: "https://gov.e2e.invalid/info.jsonld", hash: "ab".repeat(32) },
          action: { type: "information" },
        }]);
        const voted = await s.syncUntil(vote.id);
        assert.deepEqual(voted.votes, [{
          issuer: { role: "delegateRepresentative", id: drepHash, from: "verificationKey" },
          metadata: { url: "https://drep.e2e.invalid/why", hash: "ef".repeat(32) },
          vote: "yes",
          proposal: { transaction: { id: proposal.id }, index: 0 },
        }]);
      });
    } finally {
      await s.close();
    }
  },
});
