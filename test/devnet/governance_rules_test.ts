/**
 * Conway governance rules through the devnet's submitTransaction (protocol version 10, no constitutional
 * committee): every broken transaction answers Ogmios' error object and leaves the UTxO set and the mempool as
 * they were: missing DRep, committee, voter and guardrails witnesses (3101, 3102, 3109), DRep certificates (3152,
 * 3153, 3151), a vote delegated to an unregistered DRep (3146), committee certificates of non-members (3154),
 * proposals (3155, 3146, 3124, 3168, 3163, 3139, 3159, 3162, 3156, 3157), votes (3167, 3138, 3137), the treasury
 * value (3158) and withdrawals by accounts that delegate no vote (3150, also once their DRep retired).
 */
import assert from "node:assert/strict";
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import { buildTx, fundKey, openDevnet, type TxParts, type Utxo } from "../support/devnet_tx.ts";
import {
  actionId,
  anchor,
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
  votes,
} from "../support/governance_tx.ts";
import { makeAccept, makeExpectRejection, produceBlock } from "../support/devnet_rejection.ts";

const ada = 1_000_000n;
/** `(program 1.0.0 (lam d (lam r (lam c (con unit ())))))`-style always-succeeds (as scripts_test.ts). */
const alwaysSucceeds = CML.PlutusV2Script.from_cbor_hex("4e4d01000033222220051200120011");
const from = (k: CML.PrivateKey) => ({ id: keyHash(k), from: "verificationKey" });

Deno.test("devnet governance rules", async (t) => {
  const f = await openDevnet("devnet_governance_rules");
  const proposer = key(90);
  const [drep, holder, cold, hot, pool, stranger, plain] = [91, 92, 93, 94, 95, 96, 97].map(key) as [
    CML.PrivateKey,
    CML.PrivateKey,
    CML.PrivateKey,
    CML.PrivateKey,
    CML.PrivateKey,
    CML.PrivateKey,
    CML.PrivateKey,
  ];
  const proposerAddress = CML.EnterpriseAddress.new(1, credential(proposer)).to_address();
  let fuel: Utxo = await fundKey(f, proposer, 2_000_000n * ada);
  const expectRejection = makeExpectRejection(f, [proposerAddress.to_bech32()]);
  const acceptTx = makeAccept(f);
  const tx = (parts: Partial<TxParts> & { extraSigners?: Array<CML.PrivateKey> }) =>
    buildTx(f.params, {
      inputs: [fuel],
      outputs: [],
      ...parts,
      signers: parts.signers ?? [proposer, ...(parts.extraSigners ?? [])],
    });
  /** Accepts a transaction and spends its change next. */
  const accept = async (built: CML.Transaction) => {
    const id = await acceptTx(built);
    const outputs = built.body().outputs();
    fuel = {
      input: CML.TransactionInput.new(CML.TransactionHash.from_hex(id), BigInt(outputs.len() - 1)),
      output: outputs.get(outputs.len() - 1),
    };
    return id;
  };
  const info = (returnAccount = rewardAddress(holder), deposit = f.params.govActionDeposit) =>
    proposal(deposit, returnAccount, CML.GovAction.new_info_action());
  const treasury = (account: CML.RewardAddress, amount: bigint, policy?: CML.ScriptHash) => {
    const w = CML.MapRewardAccountToCoin.new();
    w.insert(account, amount);
    return proposal(
      f.params.govActionDeposit,
      rewardAddress(holder),
      CML.GovAction.new_treasury_withdrawals_action(w, policy),
    );
  };
  const propose = (...list: Array<CML.ProposalProcedure>) =>
    tx({ balanceAdjust: BigInt(list.length) * f.params.govActionDeposit, body: proposals(...list) });
  const parameterChange = (
    update: CML.ProtocolParamUpdate,
    prev?: CML.GovActionId,
    policy?: CML.ScriptHash,
  ) =>
    proposal(
      f.params.govActionDeposit,
      rewardAddress(holder),
      CML.GovAction.new_parameter_change_action(prev, update, policy),
    );
  const nativeScript = CML.NativeScript.new_script_pubkey(proposer.to_public().hash());
  const withNative = (set: CML.TransactionWitnessSet) => {
    const list = CML.NativeScriptList.new();
    list.add(nativeScript);
    set.set_native_scripts(list);
  };

  try {
    let infoId = "";
    let treasuryId = "";
    await t.step("a DRep, a delegating stake key, a pool and two proposals are accepted", async () => {
      const owners = CML.Ed25519KeyHashList.new();
      owners.add(holder.to_public().hash());
      await accept(tx({
        balanceAdjust: f.params.drepDeposit + 2n * f.params.keyDeposit + f.params.poolDeposit,
        extraSigners: [drep, holder, pool, plain],
        body: certs(
          CML.Certificate.new_reg_drep_cert(
            credential(drep),
            f.params.drepDeposit,
            anchor("https://d.invalid"),
          ),
          CML.Certificate.new_reg_cert(credential(holder), f.params.keyDeposit),
          CML.Certificate.new_vote_deleg_cert(credential(holder), CML.DRep.new_key(drep.to_public().hash())),
          CML.Certificate.new_reg_cert(credential(plain), f.params.keyDeposit),
          CML.Certificate.new_pool_registration(CML.PoolParams.new(
            pool.to_public().hash(),
            CML.VRFKeyHash.from_raw_bytes(new Uint8Array(32).fill(5)),
            0n,
            170n * ada,
            CML.UnitInterval.new(1n, 100n),
            rewardAddress(holder),
            owners,
            CML.RelayList.new(),
          )),
        ),
      }));
      infoId = await accept(propose(info()));
      treasuryId = await accept(propose(treasury(rewardAddress(holder), 1_000n * ada)));
      assert.equal((await produceBlock(f)).txIds.length, 3);
    });

    await t.step("DRep, committee, voter and guardrails credentials need their witnesses", async () => {
      const missing = await expectRejection(
        tx({
          balanceAdjust: f.params.drepDeposit,
          body: certs(CML.Certificate.new_reg_drep_cert(credential(stranger), f.params.drepDeposit)),
        }),
        3101,
      );
      assert.deepEqual(missing.data, { missingSignatories: [keyHash(stranger)] });
      const scriptDrep = CML.Credential.new_script(nativeScript.hash());
      const noScript = await expectRejection(
        tx({
          balanceAdjust: f.params.drepDeposit,
          body: certs(CML.Certificate.new_reg_drep_cert(scriptDrep, f.params.drepDeposit)),
        }),
        3102,
      );
      assert.deepEqual(noScript.data, { missingScripts: [nativeScript.hash().to_hex()] });
      const plutusDrep = CML.Credential.new_script(alwaysSucceeds.hash());
      const withPlutus = (set: CML.TransactionWitnessSet) => {
        const list = CML.PlutusV2ScriptList.new();
        list.add(alwaysSucceeds);
        set.set_plutus_v2_scripts(list);
      };
      const noRedeemer = await expectRejection(
        tx({
          balanceAdjust: f.params.drepDeposit,
          body: certs(CML.Certificate.new_reg_drep_cert(plutusDrep, f.params.drepDeposit)),
          witnesses: withPlutus,
        }),
        3109,
      );
      assert.deepEqual(noRedeemer.data, {
        missingRedeemers: [{
          purpose: "publish",
          certificate: {
            type: "delegateRepresentativeRegistration",
            delegateRepresentative: {
              type: "registered",
              id: alwaysSucceeds.hash().to_hex(),
              from: "script",
            },
            deposit: { ada: { lovelace: f.params.drepDeposit } },
          },
        }],
      });
      const scriptVote = await expectRejection(
        tx({
          body: votes({
            voter: CML.Voter.new_d_rep_script_hash(alwaysSucceeds.hash()),
            on: [[actionId(infoId), "yes"]],
          }),
          witnesses: withPlutus,
        }),
        3109,
      );
      assert.deepEqual(scriptVote.data, {
        missingRedeemers: [{
          purpose: "vote",
          issuer: { role: "delegateRepresentative", id: alwaysSucceeds.hash().to_hex(), from: "script" },
        }],
      });
      for (
        const [voter, signer] of [[drepVoter(drep), drep], [poolVoter(pool), pool]] as const
      ) {
        const unsigned = await expectRejection(
          tx({ body: votes({ voter, on: [[actionId(infoId), "yes"]] }) }),
          3101,
        );
        assert.deepEqual(unsigned.data, { missingSignatories: [keyHash(signer)] });
      }
      const coldUnsigned = await expectRejection(
        tx({ body: certs(CML.Certificate.new_auth_committee_hot_cert(credential(cold), credential(hot))) }),
        3101,
      );
      assert.deepEqual(coldUnsigned.data, { missingSignatories: [keyHash(cold)] });
      const guardrails = await expectRejection(
        propose(treasury(rewardAddress(holder), ada, nativeScript.hash())),
        3102,
      );
      assert.deepEqual(guardrails.data, { missingScripts: [nativeScript.hash().to_hex()] });
    });

    await t.step(
      "DRep certificates: already registered 3152, not registered 3153, deposits 3151",
      async () => {
        const again = await expectRejection(
          tx({
            balanceAdjust: f.params.drepDeposit,
            extraSigners: [drep],
            body: certs(CML.Certificate.new_reg_drep_cert(credential(drep), f.params.drepDeposit)),
          }),
          3152,
        );
        assert.deepEqual(again.data, { knownDelegateRepresentative: { type: "registered", ...from(drep) } });
        for (
          const cert of [
            CML.Certificate.new_update_drep_cert(credential(stranger)),
            CML.Certificate.new_unreg_drep_cert(credential(stranger), f.params.drepDeposit),
          ]
        ) {
          const unknown = await expectRejection(
            tx({ balanceAdjust: 0n, extraSigners: [stranger], body: certs(cert) }),
            3153,
          );
          assert.deepEqual(unknown.data, {
            unknownDelegateRepresentative: { type: "registered", ...from(stranger) },
          });
        }
        const deposit = await expectRejection(
          tx({
            balanceAdjust: ada,
            extraSigners: [stranger],
            body: certs(CML.Certificate.new_reg_drep_cert(credential(stranger), ada)),
          }),
          3151,
        );
        assert.deepEqual(deposit.data, {
          providedDeposit: { ada: { lovelace: ada } },
          expectedDeposit: { ada: { lovelace: f.params.drepDeposit } },
        });
        const refund = await expectRejection(
          tx({
            balanceAdjust: -ada,
            extraSigners: [drep],
            body: certs(CML.Certificate.new_unreg_drep_cert(credential(drep), ada)),
          }),
          3151,
        );
        assert.deepEqual(refund.data, {
          providedDeposit: { ada: { lovelace: ada } },
          expectedDeposit: { ada: { lovelace: f.params.drepDeposit } },
        });
      },
    );

    await t.step("a vote delegated to an unregistered DRep is 3146, as Ogmios maps it", async () => {
      const error = await expectRejection(
        tx({
          extraSigners: [holder],
          body: certs(
            CML.Certificate.new_vote_deleg_cert(
              credential(holder),
              CML.DRep.new_key(stranger.to_public().hash()),
            ),
          ),
        }),
        3146,
      );
      assert.deepEqual(error.data, { unknownCredential: keyHash(stranger), from: "verificationKey" });
    });

    await t.step("committee certificates for a credential that is no member are 3154", async () => {
      for (
        const cert of [
          CML.Certificate.new_auth_committee_hot_cert(credential(cold), credential(hot)),
          CML.Certificate.new_resign_committee_cold_cert(credential(cold)),
        ]
      ) {
        const error = await expectRejection(tx({ extraSigners: [cold], body: certs(cert) }), 3154);
        assert.deepEqual(error.data, { unknownConstitutionalCommitteeMember: from(cold) });
      }
    });

    await t.step("proposals: deposit 3155, accounts 3146 / 3124, empty withdrawal 3168", async () => {
      const deposit = await expectRejection(
        tx({ balanceAdjust: 1_000n * ada, body: proposals(info(rewardAddress(holder), 1_000n * ada)) }),
        3155,
      );
      assert.deepEqual(deposit.data, {
        expectedDeposit: { ada: { lovelace: f.params.govActionDeposit } },
        providedDeposit: { ada: { lovelace: 1_000n * ada } },
      });
      const unregistered = await expectRejection(propose(info(rewardAddress(stranger))), 3146);
      assert.deepEqual(unregistered.data, { unknownCredential: keyHash(stranger), from: "verificationKey" });
      const testnet = await expectRejection(propose(info(rewardAddress(holder, 0))), 3124);
      assert.deepEqual(testnet.data, {
        expectedNetwork: "mainnet",
        discriminatedType: "rewardAccount",
        invalidEntities: [rewardAddress(holder, 0).to_address().to_bech32()],
      });
      await expectRejection(propose(treasury(rewardAddress(stranger), ada)), 3146);
      await expectRejection(propose(treasury(rewardAddress(holder, 0), ada)), 3124);
      const empty = await expectRejection(propose(treasury(rewardAddress(holder), 0n)), 3168);
      assert.equal(empty.data, undefined);
    });

    await t.step("guardrails without a constitution 3163, malformed parameter updates 3139", async () => {
      const guardrails = await expectRejection(
        tx({
          balanceAdjust: f.params.govActionDeposit,
          body: proposals(treasury(rewardAddress(holder), ada, nativeScript.hash())),
          witnesses: withNative,
        }),
        3163,
      );
      assert.deepEqual(guardrails.data, { providedHash: nativeScript.hash().to_hex(), expectedHash: null });
      await expectRejection(propose(parameterChange(CML.ProtocolParamUpdate.new())), 3139);
      const zero = CML.ProtocolParamUpdate.new();
      zero.set_collateral_percentage(0n);
      await expectRejection(propose(parameterChange(zero)), 3139);
    });

    await t.step("ancestors of the wrong purpose 3159, a version that cannot follow 3162", async () => {
      const wrongPurpose = await expectRejection(
        propose(
          proposal(
            f.params.govActionDeposit,
            rewardAddress(holder),
            CML.GovAction.new_no_confidence(actionId(infoId)),
          ),
        ),
        3159,
      );
      assert.deepEqual(wrongPurpose.data, {
        invalidOrMissingPreviousProposals: [{
          metadata: { url: "https://gov.devnet.invalid/proposal.jsonld", hash: "09".repeat(32) },
          type: "constitutionalCommittee",
          invalidPreviousProposal: { transaction: { id: infoId }, index: 0 },
        }],
      });
      const update = CML.ProtocolParamUpdate.new();
      update.set_collateral_percentage(160n);
      await expectRejection(propose(parameterChange(update, actionId("ab".repeat(32)))), 3159);
      for (const [major, minor] of [[12n, 0n], [10n, 2n], [11n, 1n]] as const) {
        const error = await expectRejection(
          propose(proposal(
            f.params.govActionDeposit,
            rewardAddress(holder),
            CML.GovAction.new_hard_fork_initiation_action(undefined, CML.ProtocolVersion.new(major, minor)),
          )),
          3162,
        );
        assert.deepEqual(error.data, {
          proposedVersion: { major: Number(major), minor: Number(minor) },
          currentVersion: { major: 10, minor: 0 },
        });
      }
    });

    await t.step(
      "committee updates adding and removing one member 3156, or one already expired 3157",
      async () => {
        const epoch = f.params.epoch;
        const update = (expiration: number, removed: boolean) => {
          const removes = CML.CommitteeColdCredentialList.new();
          if (removed) removes.add(credential(cold));
          const adds = CML.MapCommitteeColdCredentialToEpoch.new();
          adds.insert(credential(cold), BigInt(expiration));
          return propose(proposal(
            f.params.govActionDeposit,
            rewardAddress(holder),
            CML.GovAction.new_update_committee(undefined, removes, adds, CML.UnitInterval.new(2n, 3n)),
          ));
        };
        const conflicting = await expectRejection(update(epoch + 10, true), 3156);
        assert.deepEqual(conflicting.data, { conflictingMembers: [from(cold)] });
        const expired = await expectRejection(update(epoch, false), 3157);
        assert.deepEqual(expired.data, { alreadyRetiredMembers: [from(cold)] });
      },
    );

    await t.step(
      "votes: unknown voters 3167, unknown proposals 3138, voters the action excludes 3137",
      async () => {
        const unknownDrep = await expectRejection(
          tx({
            extraSigners: [stranger],
            body: votes({ voter: drepVoter(stranger), on: [[actionId(infoId), "yes"]] }),
          }),
          3167,
        );
        assert.deepEqual(unknownDrep.data, {
          unknownVoters: [{ role: "delegateRepresentative", ...from(stranger) }],
        });
        const unknownMember = await expectRejection(
          tx({
            extraSigners: [hot],
            body: votes({ voter: committeeVoter(hot), on: [[actionId(infoId), "yes"]] }),
          }),
          3167,
        );
        assert.deepEqual(unknownMember.data, {
          unknownVoters: [{ role: "constitutionalCommittee", ...from(hot) }],
        });
        const ghost = actionId("cd".repeat(32), 3);
        const unknownAction = await expectRejection(
          tx({ extraSigners: [drep], body: votes({ voter: drepVoter(drep), on: [[ghost, "no"]] }) }),
          3138,
        );
        assert.deepEqual(unknownAction.data, {
          unknownProposals: [{ transaction: { id: "cd".repeat(32) }, index: 3 }],
        });
        const spoOnTreasury = await expectRejection(
          tx({
            extraSigners: [pool],
            body: votes({ voter: poolVoter(pool), on: [[actionId(treasuryId), "yes"]] }),
          }),
          3137,
        );
        assert.deepEqual(spoOnTreasury.data, {
          unauthorizedVotes: [{
            proposal: { transaction: { id: treasuryId }, index: 0 },
            voter: { role: "stakePoolOperator", id: pool.to_public().hash().to_bech32("pool") },
          }],
        });
      },
    );

    await t.step("the treasury the body declares must be the treasury (3158)", async () => {
      const error = await expectRejection(tx({ body: (b) => b.set_current_treasury_value(ada) }), 3158);
      const computed =
        (error.data as { computedWithdrawal: { ada: { lovelace: bigint } } }).computedWithdrawal;
      assert.ok(computed.ada.lovelace > 1_000_000n * ada, `the treasury: ${computed.ada.lovelace}`);
      await accept(tx({ body: (b) => b.set_current_treasury_value(computed.ada.lovelace) }));
    });

    await t.step("valid votes by the DRep and the pool are accepted", async () => {
      await accept(tx({
        extraSigners: [drep, pool],
        body: votes(
          { voter: drepVoter(drep), on: [[actionId(infoId), "yes"], [actionId(treasuryId), "no"]] },
          { voter: poolVoter(pool), on: [[actionId(infoId), "abstain"]] },
        ),
      }));
    });

    await t.step(
      "withdrawals need an account that delegates its vote (3150), also after its DRep retired",
      async () => {
        const withdraw = (k: CML.PrivateKey) =>
          tx({
            extraSigners: [k],
            body: (b) => {
              const w = CML.MapRewardAccountToCoin.new();
              w.insert(rewardAddress(k), 0n);
              b.set_withdrawals(w);
            },
          });
        const error = await expectRejection(withdraw(plain), 3150);
        assert.deepEqual(error.data, { marginalizedCredentials: [keyHash(plain)] });
        await accept(withdraw(holder));
        await accept(tx({
          extraSigners: [plain],
          body: certs(
            CML.Certificate.new_vote_deleg_cert(credential(plain), CML.DRep.new_always_no_confidence()),
          ),
        }));
        await accept(withdraw(plain));
        // retiring the DRep (its deposit refunded exactly) voids the delegations to it
        await accept(tx({
          balanceAdjust: -f.params.drepDeposit,
          extraSigners: [drep],
          body: certs(CML.Certificate.new_unreg_drep_cert(credential(drep), f.params.drepDeposit)),
        }));
        await expectRejection(withdraw(holder), 3150);
        await produceBlock(f);
        await expectRejection(withdraw(holder), 3150);
      },
    );
  } finally {
    await f.close();
  }
});
