/**
 * What a transaction holds, read from CML: its redeemers (either encoding) with their pointers and execution
 * units, the ledger's orders redeemer pointers index into, and what its certificates concern (stake credential,
 * deposit, pool).
 */
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import { listOf } from "./cml_conversions.ts";
import type { RedeemerPointer } from "../errors.ts";

type Purpose = RedeemerPointer["purpose"];

const tagPurpose: Record<number, Purpose> = {
  [CML.RedeemerTag.Spend]: "spend",
  [CML.RedeemerTag.Mint]: "mint",
  [CML.RedeemerTag.Cert]: "publish",
  [CML.RedeemerTag.Reward]: "withdraw",
  [CML.RedeemerTag.Voting]: "vote",
  [CML.RedeemerTag.Proposing]: "propose",
};

const compareText = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);

/** Inputs in the ledger's set order (TxIn's Ord: transaction id bytes, then index): `spend` pointers. */
export const inLedgerOrder = (inputs: ReadonlyArray<CML.TransactionInput>): Array<CML.TransactionInput> =>
  [...inputs].sort((a, b) =>
    compareText(a.transaction_id().to_hex(), b.transaction_id().to_hex()) || Number(a.index() - b.index())
  );

/**
 * Reward accounts in the ledger's map order (`withdraw` pointers): RewardAccount's derived Ord compares the
 * network, then the credential, whose constructors put ScriptHashObj before KeyHashObj, then the hash bytes. By
 * address bytes a key account (header e1) would come first.
 */
export const accountsInLedgerOrder = (
  accounts: ReadonlyArray<CML.RewardAddress>,
): Array<CML.RewardAddress> => {
  const key = (a: CML.RewardAddress) => {
    const c = a.payment();
    return `${a.network_id()}${c.as_script() ? "0" : "1"}${(c.as_script() ?? c.as_pub_key())!.to_hex()}`;
  };
  return [...accounts].sort((a, b) => compareText(key(a), key(b)));
};

/** The redeemer pointers and execution units a transaction carries (either encoding). */
export const redeemerEntries = (
  redeemers: CML.Redeemers | undefined,
): Array<{ purpose: Purpose; index: number; mem: bigint; steps: bigint; data: CML.PlutusData }> => {
  if (!redeemers) return [];
  const legacy = redeemers.as_arr_legacy_redeemer();
  if (legacy) {
    return listOf(legacy).map((r) => ({
      purpose: tagPurpose[r.tag()]!,
      index: Number(r.index()),
      mem: r.ex_units().mem(),
      steps: r.ex_units().steps(),
      data: r.data(),
    }));
  }
  const map = redeemers.as_map_redeemer_key_to_redeemer_val()!;
  return listOf(map.keys()).map((k) => {
    const v = map.get(k)!;
    return {
      purpose: tagPurpose[k.tag()]!,
      index: Number(k.index()),
      mem: v.ex_units().mem(),
      steps: v.ex_units().steps(),
      data: v.data(),
    };
  });
};

/** The stake credential a certificate concerns (registration, deregistration, delegation of any kind). */
export const certificateCredential = (cert: CML.Certificate): CML.Credential | undefined =>
  (cert.as_stake_registration() ?? cert.as_stake_deregistration() ?? cert.as_stake_delegation() ??
    cert.as_reg_cert() ?? cert.as_unreg_cert() ?? cert.as_vote_deleg_cert() ??
    cert.as_stake_vote_deleg_cert() ??
    cert.as_stake_reg_deleg_cert() ?? cert.as_vote_reg_deleg_cert() ?? cert.as_stake_vote_reg_deleg_cert())
    ?.stake_credential();

export const certificateDeposit = (cert: CML.Certificate): bigint | undefined =>
  (cert.as_reg_cert() ?? cert.as_unreg_cert() ?? cert.as_stake_reg_deleg_cert() ??
    cert.as_vote_reg_deleg_cert() ??
    cert.as_stake_vote_reg_deleg_cert())?.deposit();

/** The pool a certificate delegates to, if any (key hash hex). */
export const delegatedPool = (cert: CML.Certificate): string | undefined =>
  (cert.as_stake_delegation() ?? cert.as_stake_vote_deleg_cert() ?? cert.as_stake_reg_deleg_cert() ??
    cert.as_stake_vote_reg_deleg_cert())?.pool().to_hex();

/** The credential a DRep or committee certificate must be authorised by: the DRep's, or the cold one. */
export const governanceCertificateCredential = (cert: CML.Certificate): CML.Credential | undefined =>
  (cert.as_reg_drep_cert() ?? cert.as_unreg_drep_cert() ?? cert.as_update_drep_cert())?.drep_credential() ??
    (cert.as_auth_committee_hot_cert() ?? cert.as_resign_committee_cold_cert())?.committee_cold_credential();
