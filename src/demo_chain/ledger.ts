/**
 * The demo chain's ledger: the simulation's whole state (ids, address book, outputs, wallets, pools, DReps, pots,
 * chain position) and the primitives every transaction kind builds on: writing outputs and spending them.
 */
import type { CopySink, CopyValue } from "./copy_sink.ts";
import * as enc from "./cardano_encoding.ts";
import { f64, i32, u8 } from "./column.ts";
import type {
  AssetBundle,
  Drep,
  LockScript,
  NewOutput,
  PlutusDatum,
  Policy,
  Pool,
  Proposal,
  ReferenceScript,
  StakeSnapshot,
  Wallet,
} from "./ledger_types.ts";
import { type DemoNetwork, protocol } from "./network_params.ts";
import { Random } from "./random.ts";
import { b } from "./row_values.ts";

export class Ledger {
  readonly r: Random;

  // ids: the next id of each table (db-sync ids start at 1)
  readonly next = new Map<string, number>();
  // address book
  readonly addrText: Array<string> = [];
  readonly addrPay: Array<string | null> = [];
  readonly addrScript: Array<boolean> = [];
  /** Wallet whose stake key the address carries (-1: none, or not counted: pointer/enterprise/Byron). */
  readonly addrStakeWallet: Array<number> = [];
  readonly addrOwner: Array<number> = [];
  // outputs
  readonly outTx = i32(1 << 16);
  readonly outIndex = i32(1 << 16);
  readonly outValue = f64(1 << 16);
  readonly outAddr = i32(1 << 16);
  readonly outSpent = u8(1 << 16);
  /** 1 while an output is in `pool` (entries of spent or taken outputs are skipped lazily). */
  readonly inPool = u8(1 << 16);
  readonly outAssets = new Map<number, AssetBundle>();
  readonly outDatum = new Map<number, string>();
  readonly txHash: Array<string> = [""];
  /** Unspent outputs wallets may spend; script-locked ones apart. */
  readonly pool: Array<number> = [];
  readonly scriptPool: Array<number> = [];
  readonly tokenOutputs: Array<number> = [];

  readonly wallets: Array<Wallet> = [];
  readonly pools: Array<Pool> = [];
  readonly dreps: Array<Drep> = [];
  readonly proposals: Array<Proposal> = [];
  readonly policies: Array<Policy> = [];
  readonly assetPolicy: Array<number> = [];
  readonly assetName: Array<string> = [];
  exchangeWallet = 0;
  readonly genesisAddresses: Array<number> = [];

  // ledger pots (lovelace); bigint where sums pass 2^53
  reserves = 0n;
  treasury = 0n;
  depositsStake = 0n;
  depositsDrep = 0n;
  depositsProposal = 0n;
  readonly feesByEpoch: Array<number> = [];
  /** Stake snapshots taken at each boundary: `snapshots[e]` = taken entering epoch e, active in e + 1. */
  readonly snapshots: Array<StakeSnapshot> = [];
  readonly blocksByPool: Array<Map<number, number>> = [];

  // chain position
  blockId = 0;
  blockNo = -1;
  epoch = 0;
  slot = 0;
  blockTxIndex = 0;
  blockSize = 0;
  readonly genesisLeaders: Array<number> = [];
  alwaysSucceeds!: LockScript;
  refScript!: ReferenceScript;
  datums: Array<PlutusDatum> = [];
  readonly datumIds = new Map<string, number>();
  readonly redeemerDataIds = new Map<string, number>();
  epochOutSum = 0n;
  epochTxCount = 0;
  epochBlockCount = 0;
  epochStart = new Date();
  epochEnd = new Date();
  costModelId = 0;

  /** Bumped whenever a pool or DRep (de)registers, so the pick caches (see delegation.ts) know to rebuild. */
  worldVersion = 0;
  poolPick = { version: -1, items: [] as Array<number>, cumulative: [] as Array<number> };
  drepPick = { version: -1, items: [] as Array<number> };

  constructor(private readonly sink: CopySink, readonly net: DemoNetwork, readonly scale: number) {
    this.r = new Random(`${net.seed}/scale-${scale}`);
  }

  // ---------------------------------------------------------------- ids, rows and the address book

  id(table: string): number {
    const n = this.next.get(table) ?? 1;
    this.next.set(table, n + 1);
    return n;
  }

  row(table: string, values: ReadonlyArray<CopyValue>) {
    this.sink.row(table, values);
  }

  addAddress(text: string, pay: string | null, script: boolean, stakeWallet: number, owner: number) {
    this.addrText.push(text);
    this.addrPay.push(pay);
    this.addrScript.push(script);
    this.addrStakeWallet.push(stakeWallet);
    this.addrOwner.push(owner);
    return this.addrText.length - 1;
  }

  // ---------------------------------------------------------------- outputs and inputs

  stakeAddressId(w: number): number {
    const wallet = this.wallets[w]!;
    if (wallet.stakeAddressId === 0) {
      wallet.stakeAddressId = this.id("stake_address");
      const reward = enc.rewardAddress(this.net.networkId, wallet.stake);
      this.row("stake_address", [wallet.stakeAddressId, b(reward.hashRaw), reward.view, null]);
    }
    return wallet.stakeAddressId;
  }

  writeOutput(txId: number, index: number, o: NewOutput): number {
    const outId = this.id("tx_out");
    const stakeWallet = this.addrStakeWallet[o.address] ?? -1;
    const stakeId = stakeWallet >= 0 ? this.stakeAddressId(stakeWallet) : null;
    const pay = this.addrPay[o.address] ?? null;
    this.row("tx_out", [
      outId,
      txId,
      index,
      this.addrText[o.address]!,
      this.addrScript[o.address]!,
      pay === null ? null : b(pay),
      stakeId,
      o.value,
      o.datum ? b(o.datum.hash) : null,
      o.datum?.inlineId ?? null,
      o.referenceScriptId ?? null,
      null,
    ]);
    this.outTx.set(outId, txId);
    this.outIndex.set(outId, index);
    this.outValue.set(outId, o.value);
    this.outAddr.set(outId, o.address);
    if (stakeWallet >= 0) this.wallets[stakeWallet]!.utxoStake += o.value;
    if (o.assets && o.assets.size > 0) {
      this.outAssets.set(outId, o.assets);
      this.tokenOutputs.push(outId);
      for (const [ident, quantity] of o.assets) {
        this.row("ma_tx_out", [this.id("ma_tx_out"), quantity, outId, ident]);
      }
    }
    if (o.datum) this.outDatum.set(outId, o.datum.hash);
    const spendable = o.spendable ?? (this.addrOwner[o.address] === this.exchangeWallet ? "never" : "wallet");
    if (spendable === "wallet") this.release(outId);
    else if (spendable === "script") this.scriptPool.push(outId);
    return outId;
  }

  /** Marks an output spent by `txId` (a `tx_in` row) and takes it off the ledger's books. */
  spend(txId: number, outId: number, redeemerId: number | null = null) {
    if (this.outSpent.get(outId) === 1) throw new Error(`demo chain: output ${outId} spent twice`);
    this.outSpent.set(outId, 1);
    this.row("tx_in", [this.id("tx_in"), txId, this.outTx.get(outId), this.outIndex.get(outId), redeemerId]);
    const stakeWallet = this.addrStakeWallet[this.outAddr.get(outId)] ?? -1;
    if (stakeWallet >= 0) this.wallets[stakeWallet]!.utxoStake -= this.outValue.get(outId);
  }

  /** Removes a random unspent output from a pool (swap-remove), skipping stale entries. */
  take(from: Array<number>, pooled = from === this.pool): number | undefined {
    while (from.length > 0) {
      const i = Math.floor(this.r.float() * from.length);
      const out = from[i]!;
      from[i] = from[from.length - 1]!;
      from.pop();
      if (this.outSpent.get(out) === 1) continue;
      if (pooled) {
        if (this.inPool.get(out) === 0) continue;
        this.inPool.set(out, 0);
      }
      return out;
    }
    return undefined;
  }

  /** A random spendable output left in the pool (collateral is shown, not spent). */
  peekPooled(): number | undefined {
    for (let tries = 0; tries < 20 && this.pool.length > 0; tries++) {
      const out = this.pool[Math.floor(this.r.float() * this.pool.length)]!;
      if (this.outSpent.get(out) === 0 && this.inPool.get(out) === 1 && !this.outAssets.has(out)) return out;
    }
    return undefined;
  }

  /** Gives an output back to the pool it belongs to (after a transaction that could not be balanced). */
  release(out: number) {
    if (this.outSpent.get(out) === 1) return;
    const address = this.outAddr.get(out);
    if (address === this.alwaysSucceeds?.address) {
      this.scriptPool.push(out);
    } else if (this.addrOwner[address] !== this.exchangeWallet && this.inPool.get(out) === 0) {
      this.inPool.set(out, 1);
      this.pool.push(out);
    }
  }

  /** Picks unspent wallet outputs until they hold at least `need` lovelace (at most 12 picks). */
  takeInputs(need: number, first?: number): Array<number> {
    const inputs: Array<number> = first === undefined ? [] : [first];
    let sum = first === undefined ? 0 : this.outValue.get(first);
    for (let picks = 0; sum < need && picks < 12; picks++) {
      const out = this.take(this.pool);
      if (out === undefined) break;
      inputs.push(out);
      sum += this.outValue.get(out);
    }
    if (sum >= need) return inputs;
    for (const i of inputs) this.release(i);
    return [];
  }

  sumAssets(inputs: ReadonlyArray<number>): AssetBundle | undefined {
    let bundle: AssetBundle | undefined;
    for (const i of inputs) {
      const a = this.outAssets.get(i);
      if (!a) continue;
      bundle ??= new Map();
      for (const [ident, q] of a) bundle.set(ident, (bundle.get(ident) ?? 0n) + q);
    }
    return bundle;
  }

  /** Where change for an input goes: its owner's current address, or back to an ownerless (genesis) address. */
  changeAddress(out: number): number {
    const address = this.outAddr.get(out);
    const owner = this.addrOwner[address]!;
    return owner < 0 ? address : this.wallets[owner]!.address;
  }

  randomWallet(): number {
    return this.r.int(0, this.wallets.length - 1);
  }

  fee(size: number, exUnits = 0): number {
    return protocol.minFeeB + protocol.minFeeA * size + exUnits;
  }
}
