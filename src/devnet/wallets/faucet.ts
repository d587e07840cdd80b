/**
 * Funding the devnet's wallets, once per chain database: a block whose one transaction moves ADA from an output at a
 * genesis address of the demo chain to each wallet (several outputs each, small ones for collateral). It is written after
 * seeding rather than by the generator, so the generated chain stays deterministic while keys stay local. The
 * transaction carries no witnesses: the demo chain's genesis addresses have no keys anywhere.
 */
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import type { SqlClient } from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import { Effect } from "effect";
import { writeBlock, type WrittenBlock } from "../blocks/block_writer.ts";
import { inputKey, parseAddress } from "../decoding/cml_conversions.ts";
import type { LedgerParams } from "../rules/ledger_view.ts";
import { ledgerTxSize } from "../rules/min_fee.ts";
import { noGovernanceEffects } from "../governance/rules.ts";
import type { AcceptedTx } from "../rules/phase1.ts";
import type { WalletKey } from "./wallets.ts";

const ada = 1_000_000n;
/** Per wallet: spendable outputs, and small ones for collateral. */
export const fundingOutputs: ReadonlyArray<bigint> = [10_000n * ada, 10_000n * ada, 10_000n * ada, 50n * ada];

export const walletsFunded = (sql: SqlClient, wallets: ReadonlyArray<WalletKey>) =>
  Effect.map(
    sql<{ funded: boolean }>`
      select exists (select 1 from tx_out where payment_cred = decode(${
      wallets[0]!.keyHash
    }, 'hex')) as funded`,
    (rows) => rows[0]?.funded ?? false,
  );

/** Writes the funding block unless the wallets were funded before; returns it when written. */
export const fundWallets = (
  sql: SqlClient,
  wallets: ReadonlyArray<WalletKey>,
  o: { networkId: number; slot: number; params: LedgerParams },
): Effect.Effect<WrittenBlock | undefined, SqlError> =>
  Effect.gen(function* () {
    if (yield* walletsFunded(sql, wallets)) return undefined;
    return yield* fundFromGenesis(
      sql,
      wallets.flatMap((w) => fundingOutputs.map((lovelace) => ({ address: w.address, lovelace }))),
      o,
    );
  });

/**
 * Writes a block whose one transaction pays these outputs from unspent outputs at the demo chain's genesis
 * addresses (the first that covers them all, else the largest ones until they do), the change going back to the
 * first one's address. Tests use it for amounts the wallets do not hold (a whale's stake).
 */
export const fundFromGenesis = (
  sql: SqlClient,
  payments: ReadonlyArray<{ readonly address: string; readonly lovelace: bigint }>,
  o: { networkId: number; slot: number; params: LedgerParams },
): Effect.Effect<WrittenBlock, SqlError> =>
  Effect.gen(function* () {
    const need = payments.reduce((s, p) => s + p.lovelace, 0n) + 10n * ada;
    const candidates = yield* sql<{ hash: string; index: number; address: string; value: string }>`
      select encode(t.hash, 'hex') as hash, o.index, o.address, o.value::text as value
      from tx_out o join tx t on t.id = o.tx_id
      where o.payment_cred in (
          select g.payment_cred from tx_out g join tx gt on gt.id = g.tx_id join block b on b.id = gt.block_id
          where b.block_no is null)
        and not exists (select 1 from tx_in i where i.tx_out_id = o.tx_id and i.tx_out_index = o.index)
      order by (o.value >= ${need.toString()}) desc, case when o.value >= ${need.toString()} then o.id end,
        o.value desc
      limit 64`;
    const sources: Array<(typeof candidates)[number]> = [];
    let total = 0n;
    for (const c of candidates) {
      if (total >= need) break;
      sources.push(c);
      total += BigInt(c.value);
    }
    if (total < need) return yield* Effect.dieMessage("the genesis outputs cannot fund these payments");
    const inputs = CML.TransactionInputList.new();
    const resolved = new Map<string, CML.TransactionOutput>();
    for (const source of sources) {
      const input = CML.TransactionInput.new(CML.TransactionHash.from_hex(source.hash), BigInt(source.index));
      inputs.add(input);
      resolved.set(
        inputKey(input),
        CML.TransactionOutput.new(parseAddress(source.address), CML.Value.from_coin(BigInt(source.value))),
      );
    }
    const build = (fee: bigint) => {
      const outputs = CML.TransactionOutputList.new();
      for (const p of payments) {
        outputs.add(CML.TransactionOutput.new(parseAddress(p.address), CML.Value.from_coin(p.lovelace)));
      }
      const change = total - need + 10n * ada - fee;
      outputs.add(CML.TransactionOutput.new(parseAddress(sources[0]!.address), CML.Value.from_coin(change)));
      return CML.Transaction.new(
        CML.TransactionBody.new(inputs, outputs, fee),
        CML.TransactionWitnessSet.new(),
        true,
      );
    };
    const fee = CML.min_fee(build(1_000_000n), o.params.linearFee, o.params.prices, 0n);
    const tx = build(fee);
    const bytes = tx.to_cbor_bytes();
    const accepted: AcceptedTx = {
      tx,
      bytes,
      id: CML.hash_transaction(tx.body()).to_hex(),
      size: ledgerTxSize(tx),
      resolved,
      fee,
      deposit: 0n,
      runsPlutus: false,
      stakeRegistration: new Map(),
      withdrawn: [],
      poolsRegistered: [],
      referenceScriptSize: 0,
      governance: noGovernanceEffects,
    };
    return yield* writeBlock(sql, [{ accepted, scriptsValid: true }], o);
  });
