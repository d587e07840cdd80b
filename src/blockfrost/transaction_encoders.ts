/**
 * A transaction's detail (src/queries/transaction.ts) in Blockfrost's shapes (schemas/blockfrost/transactions.ts):
 * the content with its counts, the UTxOs, metadata and redeemers. Counts follow db-sync's rows as Blockfrost's
 * own backend counts them: `utxo_count` is tx_in + tx_out rows (for a failed transaction its collateral and
 * collateral return), `delegation_count` delegation rows (a combined stake-and-vote delegation is one),
 * `stake_cert_count` stake registrations and deregistrations, `pool_update_count` pool registrations and updates.
 */
import type {
  TxContent,
  TxContentMetadata,
  TxContentMetadataCbor,
  TxContentRedeemers,
  TxContentUtxo,
} from "@schemas/blockfrost/transactions.ts";
import type { DetailedInput, DetailedOutput, TransactionDetail } from "@src/queries/transaction.ts";
import { amountOf, unitOf } from "./amounts.ts";

type Certificate = NonNullable<TransactionDetail["transaction"]["certificates"]>[number];

const countOf = (certificates: ReadonlyArray<Certificate>, ...types: ReadonlyArray<Certificate["type"]>) =>
  certificates.filter((c) => types.includes(c.type)).length;

/** Every output's value summed per unit: lovelace first, then tokens by unit (as Blockfrost's backend orders them). */
const outputAmount = (d: TransactionDetail): typeof TxContent.Type["output_amount"] => {
  const tokens = new Map<string, bigint>();
  for (const o of d.transaction.outputs) {
    for (const t of o.tokens ?? []) tokens.set(unitOf(t), (tokens.get(unitOf(t)) ?? 0n) + BigInt(t.quantity));
  }
  return [
    { unit: "lovelace", quantity: d.transaction.totalOutput },
    ...[...tokens].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([unit, quantity]) => ({ unit, quantity: quantity.toString() })),
  ];
};

const nullableText = (n: number | null | undefined) => (n === null || n === undefined ? null : String(n));

export const txContent = (d: TransactionDetail): typeof TxContent.Type => {
  const t = d.transaction;
  const certs = t.certificates ?? [];
  return {
    hash: t.hash,
    block: d.blockHash,
    block_height: t.blockNo,
    block_time: Math.floor(Date.parse(t.blockTime) / 1000),
    slot: t.slotNo,
    index: d.blockIndex,
    output_amount: outputAmount(d),
    fees: t.fee,
    deposit: (BigInt(t.deposit) - BigInt(t.depositRefund)).toString(),
    size: t.size,
    invalid_before: nullableText(t.invalidBefore),
    invalid_hereafter: nullableText(t.invalidHereafter),
    utxo_count: (t.validContract ? t.inputs : t.collateral ?? []).length + t.outputs.length,
    withdrawal_count: (t.withdrawals ?? []).length,
    mir_cert_count: d.mirCertificates,
    delegation_count: countOf(certs, "delegation", "stake_vote_delegation"),
    stake_cert_count: countOf(certs, "stake_registration", "stake_deregistration"),
    pool_update_count: countOf(certs, "pool_registration"),
    pool_retire_count: countOf(certs, "pool_retirement"),
    asset_mint_or_burn_count: (t.mints ?? []).length,
    redeemer_count: d.redeemers.length,
    valid_contract: t.validContract,
    treasury_donation: d.treasuryDonation,
  };
};

const utxoFields = (u: DetailedInput | DetailedOutput) => ({
  address: u.address,
  amount: amountOf(u.value, u.tokens),
  data_hash: u.datumHash ?? null,
  inline_datum: u.inlineDatum ?? null,
  reference_script_hash: u.referenceScriptHash,
  collateral: u.collateral,
});

export const txContentUtxo = (d: TransactionDetail): typeof TxContentUtxo.Type => ({
  hash: d.transaction.hash,
  inputs: d.inputs.map((i) => ({
    ...utxoFields(i),
    tx_hash: i.txHash,
    output_index: i.outputIndex,
    reference: i.reference,
  })),
  outputs: d.outputs.map((o) => ({
    ...utxoFields(o),
    output_index: o.index,
    consumed_by_tx: o.spentByTxHash ?? null,
  })),
});

export const txContentMetadata = (d: TransactionDetail): typeof TxContentMetadata.Type =>
  (d.transaction.metadata ?? []).map((m) => ({ label: m.key, json_metadata: m.json }));

export const txContentMetadataCbor = (d: TransactionDetail): typeof TxContentMetadataCbor.Type =>
  d.metadataCbor.map((m) => ({ label: m.key, cbor_metadata: `\\x${m.cbor}`, metadata: m.cbor }));

export const txContentRedeemers = (d: TransactionDetail): typeof TxContentRedeemers.Type =>
  d.redeemers.map((r) => ({
    tx_index: r.index,
    purpose: r.purpose,
    script_hash: r.scriptHash,
    redeemer_data_hash: r.redeemerDataHash,
    datum_hash: r.redeemerDataHash,
    unit_mem: r.unitMem,
    unit_steps: r.unitSteps,
    fee: r.fee,
  }));
