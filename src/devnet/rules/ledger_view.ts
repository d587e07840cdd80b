/**
 * What the rules read from the ledger: the protocol parameters in force, unspent outputs by reference, stake
 * account state (registration, reward balance), known pools and the governance state (governance/view.ts), from
 * the chain database, seen through the mempool (outputs its transactions create, inputs they spend,
 * registrations they make).
 */
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import type { SqlClient } from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import { hex } from "@scure/base";
import { Effect } from "effect";
import type { SpentTracking } from "@src/dbsync/detect.ts";
import { type EpochParamRow, latestEpochParams } from "@src/queries/protocol_parameters.ts";
import { unspentOutputs, type UtxoRow } from "@src/queries/utxo.ts";
import { toRatio } from "@src/domain/ratio.ts";
import { nativeScriptFromJson, parseAddress, refKey } from "../decoding/cml_conversions.ts";
import {
  emptyPendingGovernance,
  type GovernanceView,
  makeGovernanceView,
  type PendingGovernance,
} from "../governance/view.ts";

/** The protocol parameters the rules use, with the CML objects fee and hash computations need. */
export interface LedgerParams {
  readonly row: EpochParamRow;
  readonly epoch: number;
  readonly minFeeA: bigint;
  readonly minFeeB: bigint;
  readonly linearFee: CML.LinearFee;
  readonly prices: CML.ExUnitPrices;
  readonly costModels: CML.CostModels;
  /** Cost model arrays by language (plutus:v1..v3), in ledger parameter order. */
  readonly costModelArrays: Readonly<Record<string, ReadonlyArray<number>>>;
  readonly coinsPerUtxoByte: bigint;
  readonly maxTxSize: number;
  readonly maxValueSize: number;
  readonly keyDeposit: bigint;
  readonly poolDeposit: bigint;
  readonly drepDeposit: bigint;
  readonly govActionDeposit: bigint;
  readonly collateralPercent: bigint;
  readonly maxCollateralInputs: number;
  readonly maxTxExMem: bigint;
  readonly maxTxExSteps: bigint;
}

const ratioParts = (value: number | null): [bigint, bigint] => {
  const [n, d] = toRatio(value ?? 0).split("/");
  return [BigInt(n!), BigInt(d!)];
};

const languageIds: Record<string, string> = { PlutusV1: "0", PlutusV2: "1", PlutusV3: "2" };
const languageNames: Record<string, string> = {
  PlutusV1: "plutus:v1",
  PlutusV2: "plutus:v2",
  PlutusV3: "plutus:v3",
};

export const toLedgerParams = (row: EpochParamRow): LedgerParams => {
  const costs = (row.costs ?? {}) as Record<string, unknown>;
  const byId: Record<string, Array<number>> = {};
  const arrays: Record<string, Array<number>> = {};
  for (const [name, id] of Object.entries(languageIds)) {
    const model = costs[name];
    if (!Array.isArray(model)) continue;
    byId[id] = model.map(Number);
    arrays[languageNames[name]!] = model.map(Number);
  }
  const [memN, memD] = ratioParts(row.priceMem);
  const [stepN, stepD] = ratioParts(row.priceStep);
  return {
    row,
    epoch: row.epochNo,
    minFeeA: BigInt(row.minFeeA),
    minFeeB: BigInt(row.minFeeB),
    linearFee: CML.LinearFee.new(
      BigInt(row.minFeeA),
      BigInt(row.minFeeB),
      BigInt(Math.round(row.minFeeRefScriptCostPerByte ?? 0)),
    ),
    prices: CML.ExUnitPrices.new(CML.Rational.new(memN, memD), CML.Rational.new(stepN, stepD)),
    costModels: CML.CostModels.from_json(JSON.stringify(byId)),
    costModelArrays: arrays,
    coinsPerUtxoByte: BigInt(row.coinsPerUtxoSize ?? "0"),
    maxTxSize: row.maxTxSize,
    maxValueSize: Number(row.maxValSize ?? "5000"),
    keyDeposit: BigInt(row.keyDeposit),
    poolDeposit: BigInt(row.poolDeposit),
    drepDeposit: BigInt(row.drepDeposit ?? "0"),
    govActionDeposit: BigInt(row.govActionDeposit ?? "0"),
    collateralPercent: BigInt(row.collateralPercent ?? 150),
    maxCollateralInputs: row.maxCollateralInputs ?? 3,
    maxTxExMem: BigInt(row.maxTxExMem ?? "0"),
    maxTxExSteps: BigInt(row.maxTxExSteps ?? "0"),
  };
};

/** What the mempool's pending transactions change, seen on top of the chain database. */
export interface PendingState {
  /** Outputs created by pending transactions and not spent by later ones. */
  readonly outputs: ReadonlyMap<string, CML.TransactionOutput>;
  /** Outputs (chain or pending) spent by pending transactions. */
  readonly spent: ReadonlySet<string>;
  /** Stake credentials (reward address hex) registered (true) or deregistered (false) by pending transactions. */
  readonly stakeRegistration: ReadonlyMap<string, boolean>;
  /** Reward accounts (hex) whose balance pending transactions withdrew. */
  readonly withdrawn: ReadonlySet<string>;
  /** Pools (key hash hex) registered by pending transactions. */
  readonly pools: ReadonlySet<string>;
  /** DReps, committee hot keys, proposals and vote delegations of pending transactions. */
  readonly governance: PendingGovernance;
}

export const emptyPending: PendingState = {
  outputs: new Map(),
  spent: new Set(),
  stakeRegistration: new Map(),
  withdrawn: new Set(),
  pools: new Set(),
  governance: emptyPendingGovernance,
};

export interface StakeAccount {
  readonly registered: boolean;
  readonly rewards: bigint;
}

export interface LedgerView {
  readonly networkId: number;
  readonly slot: number;
  readonly params: LedgerParams;
  /** Unspent outputs for these references (keys `txid#index`); unknown or spent ones are absent. */
  readonly resolve: (
    refs: ReadonlyArray<CML.TransactionInput>,
  ) => Effect.Effect<Map<string, CML.TransactionOutput>, SqlError>;
  readonly stakeAccount: (rewardAddressHex: string) => Effect.Effect<StakeAccount, SqlError>;
  readonly poolKnown: (poolKeyHash: string) => Effect.Effect<boolean, SqlError>;
  readonly governance: GovernanceView;
}

/** An unspent output row (chain database) as the CML output it was. */
export const outputFromRow = (row: UtxoRow): CML.TransactionOutput => {
  const multiAsset = CML.MultiAsset.new();
  for (const a of row.assets ?? []) {
    multiAsset.set(CML.ScriptHash.from_hex(a.policy), CML.AssetName.from_hex(a.name), BigInt(a.quantity));
  }
  const value = CML.Value.new(BigInt(row.value), multiAsset);
  const datum = row.inlineDatum
    ? CML.DatumOption.new_datum(CML.PlutusData.from_cbor_hex(row.inlineDatum))
    : row.dataHash
    ? CML.DatumOption.new_hash(CML.DatumHash.from_hex(row.dataHash))
    : undefined;
  let script: CML.Script | undefined;
  if (row.scriptType === "timelock" && row.scriptJson) {
    script = CML.Script.new_native(nativeScriptFromJson(row.scriptJson as never));
  } else if (row.scriptBytes) {
    const bytes = hex.decode(row.scriptBytes);
    script = row.scriptType === "plutusV1"
      ? CML.Script.new_plutus_v1(CML.PlutusV1Script.from_raw_bytes(bytes))
      : row.scriptType === "plutusV2"
      ? CML.Script.new_plutus_v2(CML.PlutusV2Script.from_raw_bytes(bytes))
      : CML.Script.new_plutus_v3(CML.PlutusV3Script.from_raw_bytes(bytes));
  }
  return CML.TransactionOutput.new(parseAddress(row.address), value, datum, script);
};

export const readLedgerParams = (sql: SqlClient): Effect.Effect<LedgerParams, SqlError> =>
  Effect.flatMap(
    latestEpochParams(sql),
    (row) =>
      row
        ? Effect.succeed(toLedgerParams(row))
        : Effect.dieMessage("the chain database holds no epoch_param row"),
  );

export interface LedgerViewOptions {
  readonly networkId: number;
  readonly spentTracking: SpentTracking;
  readonly slot: number;
  readonly params: LedgerParams;
  readonly pending: PendingState;
}

export const makeLedgerView = (sql: SqlClient, o: LedgerViewOptions): LedgerView => {
  /** Chain outputs this view has looked up (null: not unspent), so one submission reads each input once. */
  const looked = new Map<string, CML.TransactionOutput | null>();
  return {
    governance: makeGovernanceView(sql, { epoch: o.params.epoch, pending: o.pending.governance }),
    networkId: o.networkId,
    slot: o.slot,
    params: o.params,
    resolve: (refs) =>
      Effect.gen(function* () {
        const fromChain: Array<{ txHash: string; index: number }> = [];
        for (const input of refs) {
          const key = refKey(input.transaction_id().to_hex(), input.index());
          if (!o.pending.spent.has(key) && !o.pending.outputs.has(key) && !looked.has(key)) {
            fromChain.push({ txHash: input.transaction_id().to_hex(), index: Number(input.index()) });
          }
        }
        if (fromChain.length > 0) {
          for (const r of fromChain) looked.set(refKey(r.txHash, r.index), null);
          const rows = yield* unspentOutputs(sql, { references: fromChain }, o.spentTracking);
          for (const row of rows) looked.set(refKey(row.txHash, row.index), outputFromRow(row));
        }
        const found = new Map<string, CML.TransactionOutput>();
        for (const input of refs) {
          const key = refKey(input.transaction_id().to_hex(), input.index());
          if (o.pending.spent.has(key)) continue;
          const output = o.pending.outputs.get(key) ?? looked.get(key);
          if (output) found.set(key, output);
        }
        return found;
      }),
    stakeAccount: (rewardAddressHex) =>
      Effect.gen(function* () {
        const [row] = yield* sql<{ registered: boolean; rewards: string }>`
        with a as (select id from stake_address where hash_raw = decode(${rewardAddressHex}, 'hex')),
        reg as (select max(tx_id) as t from stake_registration where addr_id = (select id from a)),
        dereg as (select max(tx_id) as t from stake_deregistration where addr_id = (select id from a))
        select coalesce((select t from reg) > coalesce((select t from dereg), 0), false) as registered,
          (coalesce((select sum(amount) from reward where addr_id = (select id from a)
                       and spendable_epoch <= ${o.params.epoch}), 0)
           + coalesce((select sum(amount) from reward_rest where addr_id = (select id from a)
                       and spendable_epoch <= ${o.params.epoch}), 0)
           - coalesce((select sum(amount) from withdrawal where addr_id = (select id from a)), 0))::text
            as rewards`;
        const pendingRegistration = o.pending.stakeRegistration.get(rewardAddressHex);
        const registered = pendingRegistration ?? row?.registered ?? false;
        const rewards = o.pending.withdrawn.has(rewardAddressHex) || pendingRegistration !== undefined
          ? 0n
          : BigInt(row?.rewards ?? "0");
        return { registered, rewards: rewards < 0n ? 0n : rewards };
      }),
    poolKnown: (poolKeyHash) =>
      o.pending.pools.has(poolKeyHash) ? Effect.succeed(true) : Effect.map(
        sql<{ known: boolean }>`
        select exists (
          select 1 from pool_hash h join pool_update u on u.hash_id = h.id
          where h.hash_raw = decode(${poolKeyHash}, 'hex')
            and not exists (select 1 from pool_retire r where r.hash_id = h.id
              and r.retiring_epoch <= ${o.params.epoch} and r.announced_tx_id > u.registered_tx_id)
        ) as known`,
        (rows) => rows[0]?.known ?? false,
      ),
  };
};
