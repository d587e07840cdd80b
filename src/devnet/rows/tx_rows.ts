/**
 * One transaction's rows as db-sync writes them: tx, tx_out (+ ma_tx_out, inline datums, reference scripts),
 * tx_in with redeemers, collateral and reference inputs, collateral_tx_out, ma_tx_mint, withdrawal, certificates,
 * tx_metadata, witness scripts and datums, redeemer (+ redeemer_data), extra_key_witness, tx_cbor (db-sync's
 * option, on here), and proposals and votes (governance/rows.ts). A transaction whose scripts failed keeps only its collateral: consumed as tx_in,
 * the return as tx_out.
 */
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import { Effect } from "effect";
import { addressText, inputKey, listOf, plutusScriptBytes } from "../decoding/cml_conversions.ts";
import { writeCertificate } from "./certificate_rows.ts";
import { dbSyncJson } from "./dbsync_text.ts";
import type { Lookups } from "./chain_lookups.ts";
import type { LedgerParams } from "../rules/ledger_view.ts";
import {
  accountsInLedgerOrder,
  certificateCredential,
  governanceCertificateCredential,
  inLedgerOrder,
  redeemerEntries,
} from "../decoding/tx_parts.ts";
import { proposalsOf, votesOf } from "../governance/parts.ts";
import { writeGovernance } from "../governance/rows.ts";
import type { AcceptedTx } from "../rules/phase1.ts";
import { type RowValue, type RowWriter, text } from "./row_writer.ts";

/** A transaction as it goes into a block: phase 1 passed, and phase 2 decided whether its scripts succeeded. */
export interface BlockTx {
  readonly accepted: AcceptedTx;
  /** False when its Plutus scripts failed: only the collateral is consumed. */
  readonly scriptsValid: boolean;
}

const purposeColumn: Record<string, string> = {
  spend: "spend",
  mint: "mint",
  publish: "cert",
  withdraw: "reward",
  vote: "vote",
  propose: "propose",
};

/** tx_metadata.json as db-sync stores it: NULL where PostgreSQL's jsonb could not hold it (dbsync_text.ts). */
const metadataJson = (m: CML.TransactionMetadatum): string | null => {
  try {
    return dbSyncJson(CML.decode_metadatum_to_json_str(m, CML.MetadataJsonSchema.NoConversions));
  } catch {
    return null;
  }
};

/** tx_out / collateral_tx_out columns shared by both tables. */
const outputColumns = (lookups: Lookups, o: CML.TransactionOutput) =>
  Effect.gen(function* () {
    const address = o.address();
    const payment = address.kind() === CML.AddressKind.Byron ? undefined : address.payment_cred();
    const staking = address.kind() === CML.AddressKind.Base ? address.staking_cred() : undefined;
    const datum = o.datum();
    return {
      address: addressText(address),
      address_has_script: payment?.as_script() !== undefined,
      payment_cred: payment ? lookups.w.bytea((payment.as_pub_key() ?? payment.as_script())!.to_hex()) : null,
      stake_address_id: staking ? yield* lookups.stakeAddress(staking) : null,
      value: text(o.amount().coin()),
      data_hash: datum?.as_hash()
        ? lookups.w.bytea(datum.as_hash()!.to_hex())
        : datum?.as_datum()
        ? lookups.w.bytea(CML.hash_plutus_data(datum.as_datum()!).to_hex())
        : null,
    } satisfies Record<string, RowValue>;
  });

const assetsOf = (value: CML.Value): Array<[string, string, bigint]> => {
  const out: Array<[string, string, bigint]> = [];
  const ma = value.multi_asset();
  for (const policy of listOf(ma.keys())) {
    const assets = ma.get_assets(policy)!;
    for (const name of listOf(assets.keys())) out.push([policy.to_hex(), name.to_hex(), assets.get(name)!]);
  }
  return out;
};

const writeOutput = (
  w: RowWriter,
  lookups: Lookups,
  txId: number,
  index: number,
  o: CML.TransactionOutput,
) =>
  Effect.gen(function* () {
    const columns = yield* outputColumns(lookups, o);
    const inline = o.datum()?.as_datum();
    const script = o.script_ref();
    const outId = yield* w.add("tx_out", {
      tx_id: txId,
      index,
      ...columns,
      inline_datum_id: inline ? yield* lookups.datum(inline, txId) : null,
      reference_script_id: script ? yield* lookups.script(script, txId) : null,
      consumed_by_tx_id: null,
    });
    for (const [policy, name, quantity] of assetsOf(o.amount())) {
      yield* w.add("ma_tx_out", {
        quantity: text(quantity),
        tx_out_id: outId,
        ident: yield* lookups.multiAsset(policy, name),
      });
    }
  });

const writeCollateralOutput = (
  w: RowWriter,
  lookups: Lookups,
  txId: number,
  index: number,
  o: CML.TransactionOutput,
) =>
  Effect.gen(function* () {
    const assets = assetsOf(o.amount());
    yield* w.add("collateral_tx_out", {
      tx_id: txId,
      index,
      ...(yield* outputColumns(lookups, o)),
      multi_assets_descr: assets.length === 0 ? "fromList []" : JSON.stringify(assets.map(String)),
      inline_datum_id: null,
      reference_script_id: null,
    });
  });

/** Where a transaction goes: its block's row, its place in the block, and the block's epoch and slot. */
export interface TxPlace {
  readonly id: number;
  readonly index: number;
  readonly epoch: number;
  readonly slot: number;
}

const plutusScriptsOf = (witnesses: CML.TransactionWitnessSet) => [
  ...listOf(witnesses.plutus_v1_scripts()).map((s) => CML.Script.new_plutus_v1(s)),
  ...listOf(witnesses.plutus_v2_scripts()).map((s) => CML.Script.new_plutus_v2(s)),
  ...listOf(witnesses.plutus_v3_scripts()).map((s) => CML.Script.new_plutus_v3(s)),
];

/** The tx row; what differs between a valid transaction and a failed script one is passed in. */
const writeTxRow = (
  w: RowWriter,
  txId: number,
  accepted: AcceptedTx,
  block: TxPlace,
  plutusScripts: ReadonlyArray<CML.Script>,
  sums: { outSum: bigint; fee: bigint; deposit: bigint; donation: bigint; valid: boolean },
) => {
  const body = accepted.tx.body();
  const scriptSize = plutusScripts.reduce((s, x) => s + plutusScriptBytes(x)!.length, 0);
  return w.insert("tx", {
    id: txId,
    hash: w.bytea(accepted.id),
    block_id: block.id,
    block_index: block.index,
    out_sum: text(sums.outSum),
    fee: text(sums.fee),
    deposit: text(sums.deposit),
    size: accepted.size,
    invalid_before: body.validity_interval_start() === undefined
      ? null
      : text(body.validity_interval_start()!),
    invalid_hereafter: body.ttl() === undefined ? null : text(body.ttl()!),
    valid_contract: sums.valid,
    script_size: scriptSize,
    treasury_donation: text(sums.donation),
  });
};

/** A tx_in (with its redeemer), collateral_tx_in or reference_tx_in row. */
const writeSpend = (
  w: RowWriter,
  lookups: Lookups,
  txId: number,
  input: CML.TransactionInput,
  redeemerId: number | null,
  table: "tx_in" | "collateral_tx_in" | "reference_tx_in" = "tx_in",
) =>
  Effect.gen(function* () {
    const row: Record<string, RowValue> = {
      tx_in_id: txId,
      tx_out_id: yield* lookups.txId(input.transaction_id().to_hex()),
      tx_out_index: Number(input.index()),
    };
    if (table === "tx_in") row.redeemer_id = redeemerId;
    yield* w.add(table, row);
  });

/** db-sync keeps a failed script transaction's collateral only: consumed as tx_in, the return as tx_out. */
const writeFailedScriptTx = (
  w: RowWriter,
  lookups: Lookups,
  txId: number,
  accepted: AcceptedTx,
  block: TxPlace,
) =>
  Effect.gen(function* () {
    const body = accepted.tx.body();
    const collateral = listOf(body.collateral_inputs());
    const collateralReturn = body.collateral_return();
    const outputCount = listOf(body.outputs()).length;
    let collateralIn = 0n;
    for (const c of collateral) collateralIn += accepted.resolved.get(inputKey(c))!.amount().coin();
    const back = collateralReturn?.amount().coin() ?? 0n;
    const taken = body.total_collateral() ?? collateralIn - back;
    yield* writeTxRow(w, txId, accepted, block, plutusScriptsOf(accepted.tx.witness_set()), {
      outSum: back,
      fee: taken,
      deposit: 0n,
      donation: 0n,
      valid: false,
    });
    for (const c of collateral) yield* writeSpend(w, lookups, txId, c, null);
    for (const c of collateral) yield* writeSpend(w, lookups, txId, c, null, "collateral_tx_in");
    if (collateralReturn) {
      yield* writeOutput(w, lookups, txId, outputCount, collateralReturn);
      yield* writeCollateralOutput(w, lookups, txId, outputCount, collateralReturn);
    }
    return { txId, fee: taken, outSum: back };
  });

/** The script a redeemer runs, by its purpose and index (null for key-locked items). */
const redeemedScript = (accepted: AcceptedTx) => {
  const body = accepted.tx.body();
  const sortedInputs = inLedgerOrder(listOf(body.inputs()));
  const policies = listOf(body.mint()?.keys()).map((h) => h.to_hex()).sort();
  const withdrawalAccounts = accountsInLedgerOrder(listOf(body.withdrawals()?.keys()));
  const certs = listOf(body.certs());
  const voters = votesOf(body);
  const proposals = proposalsOf(body);
  return (purpose: string, index: number): string | null => {
    if (purpose === "mint") return policies[index] ?? null;
    if (purpose === "vote") {
      const voter = voters[index]?.voter;
      return voter?.role !== "SPO" && voter?.cred.script ? voter.cred.hash : null;
    }
    if (purpose === "propose") return proposals[index]?.policy ?? null;
    const cred = purpose === "spend"
      ? accepted.resolved.get(inputKey(sortedInputs[index]!))?.address().payment_cred()
      : purpose === "withdraw"
      ? withdrawalAccounts[index]?.payment()
      : purpose === "publish" && certs[index]
      ? certificateCredential(certs[index]!) ?? governanceCertificateCredential(certs[index]!)
      : undefined;
    return cred?.as_script()?.to_hex() ?? null;
  };
};

/** The redeemer rows (fee from the execution prices); gives the redeemer id of a purpose and index. */
const writeRedeemers = (
  w: RowWriter,
  lookups: Lookups,
  params: LedgerParams,
  txId: number,
  accepted: AcceptedTx,
) =>
  Effect.gen(function* () {
    const scriptOf = redeemedScript(accepted);
    const [memN, memD] = [params.prices.mem_price().numerator(), params.prices.mem_price().denominator()];
    const [stepN, stepD] = [params.prices.step_price().numerator(), params.prices.step_price().denominator()];
    const redeemerIds = new Map<string, number>();
    for (const r of redeemerEntries(accepted.tx.witness_set().redeemers())) {
      const fee = (r.mem * memN * stepD + r.steps * stepN * memD + memD * stepD - 1n) / (memD * stepD);
      const script = scriptOf(r.purpose, r.index);
      redeemerIds.set(
        `${r.purpose}:${r.index}`,
        yield* w.add("redeemer", {
          tx_id: txId,
          unit_mem: text(r.mem),
          unit_steps: text(r.steps),
          fee: text(fee),
          purpose: purposeColumn[r.purpose]!,
          index: r.index,
          script_hash: script ? w.bytea(script) : null,
          redeemer_data_id: yield* lookups.redeemerData(r.data, txId),
        }),
      );
    }
    return (purpose: string, index: number) => redeemerIds.get(`${purpose}:${index}`) ?? null;
  });

const writeMints = (w: RowWriter, lookups: Lookups, txId: number, mint: CML.Mint | undefined) =>
  Effect.gen(function* () {
    for (const policy of listOf(mint?.keys())) {
      const assets = mint!.get_assets(policy)!;
      for (const name of listOf(assets.keys())) {
        yield* w.add("ma_tx_mint", {
          quantity: text(assets.get(name)!),
          tx_id: txId,
          ident: yield* lookups.multiAsset(policy.to_hex(), name.to_hex()),
        });
      }
    }
  });

const writeMetadata = (w: RowWriter, txId: number, metadata: CML.Metadata | undefined) =>
  Effect.gen(function* () {
    for (const label of listOf(metadata?.labels())) {
      const value = metadata!.get(label)!;
      yield* w.add("tx_metadata", {
        key: text(label),
        json: metadataJson(value),
        bytes: w.bytea(value.to_cbor_bytes()),
        tx_id: txId,
      });
    }
  });

/** Writes one transaction's rows; returns its id, fee and output sum. */
export const writeTransaction = (
  w: RowWriter,
  lookups: Lookups,
  params: LedgerParams,
  blockTx: BlockTx,
  block: TxPlace,
) =>
  Effect.gen(function* () {
    const { accepted, scriptsValid } = blockTx;
    const txId = yield* w.id("tx");
    lookups.rememberTx(accepted.id, txId);
    // the bytes as submitted, as db-sync keeps them with its tx_cbor option on (Blockfrost's /txs/{h}/cbor)
    yield* w.add("tx_cbor", { tx_id: txId, bytes: w.bytea(accepted.bytes) });
    if (!scriptsValid) return yield* writeFailedScriptTx(w, lookups, txId, accepted, block);

    const body = accepted.tx.body();
    const witnesses = accepted.tx.witness_set();
    const inputs = listOf(body.inputs());
    const outputs = listOf(body.outputs());
    const outSum = outputs.reduce((s, o) => s + o.amount().coin(), 0n);
    const plutusScripts = plutusScriptsOf(witnesses);
    yield* writeTxRow(w, txId, accepted, block, plutusScripts, {
      outSum,
      fee: accepted.fee,
      deposit: accepted.deposit,
      donation: body.donation() ?? 0n,
      valid: true,
    });

    // witness scripts and datums first: outputs and redeemers refer to them
    for (const s of listOf(witnesses.native_scripts())) yield* lookups.script(CML.Script.new_native(s), txId);
    for (const s of plutusScripts) yield* lookups.script(s, txId);
    for (const d of listOf(witnesses.plutus_datums())) yield* lookups.datum(d, txId);
    const redeemerFor = yield* writeRedeemers(w, lookups, params, txId, accepted);

    const sortedInputs = inLedgerOrder(inputs);
    for (const input of inputs) {
      const index = sortedInputs.findIndex((i) => inputKey(i) === inputKey(input));
      yield* writeSpend(w, lookups, txId, input, redeemerFor("spend", index));
    }
    for (const c of listOf(body.collateral_inputs())) {
      yield* writeSpend(w, lookups, txId, c, null, "collateral_tx_in");
    }
    for (const r of listOf(body.reference_inputs())) {
      yield* writeSpend(w, lookups, txId, r, null, "reference_tx_in");
    }
    for (let index = 0; index < outputs.length; index++) {
      yield* writeOutput(w, lookups, txId, index, outputs[index]!);
    }
    const collateralReturn = body.collateral_return();
    if (collateralReturn) {
      yield* writeCollateralOutput(w, lookups, txId, outputs.length, collateralReturn);
    }

    yield* writeMints(w, lookups, txId, body.mint());
    const withdrawalAccounts = accountsInLedgerOrder(listOf(body.withdrawals()?.keys()));
    for (let index = 0; index < withdrawalAccounts.length; index++) {
      const account = withdrawalAccounts[index]!;
      yield* w.add("withdrawal", {
        addr_id: yield* lookups.stakeAddress(account.payment()),
        amount: text(body.withdrawals()!.get(account)!),
        redeemer_id: redeemerFor("withdraw", index),
        tx_id: txId,
      });
    }
    const certs = listOf(body.certs());
    for (let index = 0; index < certs.length; index++) {
      yield* writeCertificate(w, lookups, params, certs[index]!, {
        txId,
        certIndex: index,
        epoch: block.epoch,
        slot: block.slot,
        redeemerId: redeemerFor("publish", index),
        blockId: block.id,
      });
    }
    yield* writeMetadata(w, txId, accepted.tx.auxiliary_data()?.metadata());
    for (const signer of listOf(body.required_signers())) {
      yield* w.add("extra_key_witness", { hash: w.bytea(signer.to_hex()), tx_id: txId });
    }
    yield* writeGovernance(w, lookups, accepted, {
      txId,
      blockId: block.id,
      epoch: block.epoch,
      govActionLifetime: Number(params.row.govActionLifetime ?? 0),
    });
    return { txId, fee: accepted.fee, outSum };
  });
