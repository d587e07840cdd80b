/** Blockfrost's shapes of an address's holdings, unspent outputs and transactions, from the programs' values. */
import type { BfAddress, BfAddressTransaction, BfAddressUtxo } from "@schemas/blockfrost/addresses.ts";
import type { AddressHoldings } from "@src/programs/address_activity.ts";
import type { AddressUtxo } from "@src/queries/address.ts";
import type { AddressTransaction } from "@src/queries/address_transactions.ts";
import { amountOf } from "./amounts.ts";

export const bfAddress = (h: AddressHoldings): typeof BfAddress.Type => ({
  address: h.address,
  amount: amountOf(h.balance, h.tokens),
  stake_address: h.stakeAddress,
  type: h.type === "byron" ? "byron" : "shelley",
  script: h.type === "script",
});

export const bfAddressUtxo = (u: AddressUtxo): typeof BfAddressUtxo.Type => ({
  address: u.address,
  tx_hash: u.txHash,
  tx_index: u.outputIndex,
  output_index: u.outputIndex,
  amount: amountOf(u.value, u.tokens),
  block: u.blockHash,
  data_hash: u.datumHash,
  inline_datum: u.inlineDatum,
  reference_script_hash: u.referenceScriptHash,
});

/** UNIX seconds of an ISO time. */
const unixSeconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

export const bfAddressTransaction = (t: AddressTransaction): typeof BfAddressTransaction.Type => ({
  tx_hash: t.txHash,
  tx_index: t.blockIndex,
  block_height: t.blockNo,
  block_time: unixSeconds(t.blockTime),
});
