/**
 * A governance action's JSON as db-sync stores it in gov_action_proposal.description: the ledger's Aeson
 * encoding of GovAction ({"tag", "contents"}; ancestors as {txId, govActionIx}; treasury withdrawals as a list
 * of [reward account, lovelace] pairs; committee members as "keyHash-…"/"scriptHash-…" keys).
 */
import type * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import { type ActionId, type Cred, credKey, credOf, type ProposalPart } from "./parts.ts";
import { ratioJson } from "./param_update.ts";

const ancestor = (a: ActionId | null) => (a ? { txId: a.tx, govActionIx: a.index } : null);

const credentialJson = (c: Cred) => (c.script ? { scriptHash: c.hash } : { keyHash: c.hash });

const byCredential = <A>(list: ReadonlyArray<A>, cred: (a: A) => Cred) =>
  [...list].sort((a, b) => (credKey(cred(a)) < credKey(cred(b)) ? -1 : 1));

const rewardAccountJson = (a: CML.RewardAddress) => ({
  network: a.network_id() === 1 ? "Mainnet" : "Testnet",
  credential: credentialJson(credOf(a.payment())),
});

export const dbSyncDescription = (p: ProposalPart): unknown => {
  switch (p.type) {
    case "ParameterChange":
      return { tag: "ParameterChange", contents: [ancestor(p.prev), p.update!.json, p.policy] };
    case "HardForkInitiation":
      return { tag: "HardForkInitiation", contents: [ancestor(p.prev), p.version] };
    case "TreasuryWithdrawals":
      return {
        tag: "TreasuryWithdrawals",
        contents: [
          byCredential(p.withdrawals, (w) => credOf(w.account.payment()))
            .map((w) => [rewardAccountJson(w.account), Number(w.amount)]),
          p.policy,
        ],
      };
    case "NoConfidence":
      return { tag: "NoConfidence", contents: ancestor(p.prev) };
    case "NewCommittee": {
      const c = p.committee!;
      return {
        tag: "UpdateCommittee",
        contents: [
          ancestor(p.prev),
          byCredential(c.removed, (r) => r).map(credentialJson),
          Object.fromEntries(
            byCredential(c.added, (a) => a.cred).map((a) => [
              `${a.cred.script ? "scriptHash" : "keyHash"}-${a.cred.hash}`,
              a.epoch,
            ]),
          ),
          ratioJson(c.quorum.numerator, c.quorum.denominator),
        ],
      };
    }
    case "NewConstitution": {
      const c = p.constitution!;
      return {
        tag: "NewConstitution",
        contents: [
          ancestor(p.prev),
          {
            anchor: { url: c.anchor.url, dataHash: c.anchor.hash },
            ...(c.script ? { script: c.script } : {}),
          },
        ],
      };
    }
    default:
      return { tag: "InfoAction" };
  }
};
