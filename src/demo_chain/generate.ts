/**
 * The demo chain generator: a small ledger simulation that writes a deterministic, internally consistent
 * Conway-era chain in db-sync's core layout, row for row as db-sync would have written it. Value is conserved in
 * every transaction, nothing is spent twice, and the ada_pots buckets always add up to 45 billion ADA.
 *
 * Shape (scale 1): epochs 0..5 (tip 60% into epoch 5), ~400 blocks and ~2,000 transactions an epoch, 60 pools,
 * 1,500 wallets, 36 DReps. `scale` multiplies transactions, wallets, pools and DReps (blocks up to mainnet's
 * 21,600 an epoch, then more transactions a block).
 */
import costModels from "./cost_models.json" with { type: "json" };
import { Bytea, type CopySink, type CopyValue, Json } from "./copy_sink.ts";
import * as enc from "./cardano_encoding.ts";
import {
  ada,
  adjectives,
  type DemoNetwork,
  epochLength,
  epochParamColumns,
  epochParamValues,
  givenNames,
  maxSupply,
  nouns,
  protocol,
} from "./network_params.ts";
import { Random } from "./random.ts";
import { hex } from "@scure/base";

export interface GenerateOptions {
  readonly scale: number;
  /** Epochs before the tip's; the tip lands `tipFraction` into the last one. */
  readonly epochs?: number;
  /** Called between blocks so the caller can flush buffers (COPY is asynchronous). */
  readonly onBlock?: () => Promise<void>;
}

export interface GeneratedChain {
  readonly tipBlockNo: number;
  readonly tipEpoch: number;
  readonly exchangeAddress: string;
}

// deno-fmt-ignore
const tables: Record<string, ReadonlyArray<string>> = {
  meta: ["id", "start_time", "network_name", "version"],
  schema_version: [],
  slot_leader: ["id", "hash", "pool_hash_id", "description"],
  block: ["id", "hash", "epoch_no", "slot_no", "epoch_slot_no", "block_no", "previous_id", "slot_leader_id", "size", "time", "tx_count", "proto_major", "proto_minor", "vrf_key", "op_cert", "op_cert_counter"],
  tx: ["id", "hash", "block_id", "block_index", "out_sum", "fee", "deposit", "size", "invalid_before", "invalid_hereafter", "valid_contract", "script_size", "treasury_donation"],
  tx_out: ["id", "tx_id", "index", "address", "address_has_script", "payment_cred", "stake_address_id", "value", "data_hash", "inline_datum_id", "reference_script_id", "consumed_by_tx_id"],
  tx_in: ["id", "tx_in_id", "tx_out_id", "tx_out_index", "redeemer_id"],
  collateral_tx_in: ["id", "tx_in_id", "tx_out_id", "tx_out_index"],
  collateral_tx_out: ["id", "tx_id", "index", "address", "address_has_script", "payment_cred", "stake_address_id", "value", "data_hash", "multi_assets_descr", "inline_datum_id", "reference_script_id"],
  reference_tx_in: ["id", "tx_in_id", "tx_out_id", "tx_out_index"],
  multi_asset: ["id", "policy", "name", "fingerprint"],
  ma_tx_out: ["id", "quantity", "tx_out_id", "ident"],
  ma_tx_mint: ["id", "quantity", "tx_id", "ident"],
  stake_address: ["id", "hash_raw", "view", "script_hash"],
  stake_registration: ["id", "addr_id", "cert_index", "epoch_no", "tx_id", "deposit"],
  stake_deregistration: ["id", "addr_id", "cert_index", "epoch_no", "tx_id", "redeemer_id"],
  delegation: ["id", "addr_id", "cert_index", "pool_hash_id", "active_epoch_no", "tx_id", "slot_no", "redeemer_id"],
  delegation_vote: ["id", "addr_id", "cert_index", "drep_hash_id", "tx_id", "redeemer_id"],
  withdrawal: ["id", "addr_id", "amount", "redeemer_id", "tx_id"],
  reward: ["addr_id", "type", "amount", "spendable_epoch", "pool_id", "earned_epoch"],
  reward_rest: ["addr_id", "type", "amount", "spendable_epoch", "earned_epoch"],
  epoch_stake: ["id", "addr_id", "pool_id", "amount", "epoch_no"],
  epoch_stake_progress: ["id", "epoch_no", "completed"],
  ada_pots: ["id", "slot_no", "epoch_no", "treasury", "reserves", "rewards", "utxo", "deposits_stake", "fees", "block_id", "deposits_drep", "deposits_proposal"],
  epoch_param: epochParamColumns,
  cost_model: ["id", "costs", "hash"],
  epoch_finalized: ["id", "out_sum", "fees", "tx_count", "blk_count", "no", "start_time", "end_time"],
  epoch_sync_enabled: ["singleton", "enabled"],
  pool_hash: ["id", "hash_raw", "view"],
  pool_update: ["id", "hash_id", "cert_index", "vrf_key_hash", "pledge", "active_epoch_no", "meta_id", "margin", "fixed_cost", "registered_tx_id", "reward_addr_id", "deposit"],
  pool_owner: ["id", "addr_id", "pool_update_id"],
  pool_relay: ["id", "update_id", "ipv4", "ipv6", "dns_name", "dns_srv_name", "port"],
  pool_retire: ["id", "hash_id", "cert_index", "announced_tx_id", "retiring_epoch"],
  pool_metadata_ref: ["id", "pool_id", "url", "hash", "registered_tx_id"],
  off_chain_pool_data: ["id", "pool_id", "ticker_name", "hash", "json", "bytes", "pmr_id"],
  drep_hash: ["id", "raw", "view", "has_script"],
  drep_registration: ["id", "tx_id", "cert_index", "deposit", "drep_hash_id", "voting_anchor_id"],
  drep_distr: ["id", "hash_id", "amount", "epoch_no", "active_until"],
  voting_anchor: ["id", "url", "data_hash", "type", "block_id"],
  off_chain_vote_data: ["id", "voting_anchor_id", "hash", "json", "bytes", "warning", "language", "comment", "is_valid"],
  off_chain_vote_drep_data: ["id", "off_chain_vote_data_id", "payment_address", "given_name", "objectives", "motivations", "qualifications", "image_url", "image_hash"],
  gov_action_proposal: ["id", "tx_id", "index", "prev_gov_action_proposal", "deposit", "return_address", "expiration", "voting_anchor_id", "type", "description", "param_proposal", "ratified_epoch", "enacted_epoch", "dropped_epoch", "expired_epoch"],
  voting_procedure: ["id", "tx_id", "index", "gov_action_proposal_id", "voter_role", "drep_voter", "pool_voter", "vote", "voting_anchor_id", "committee_voter", "invalid"],
  datum: ["id", "hash", "tx_id", "value", "bytes"],
  script: ["id", "tx_id", "hash", "type", "json", "bytes", "serialised_size"],
  redeemer: ["id", "tx_id", "unit_mem", "unit_steps", "fee", "purpose", "index", "script_hash", "redeemer_data_id"],
  redeemer_data: ["id", "hash", "tx_id", "value", "bytes"],
  tx_metadata: ["id", "key", "json", "bytes", "tx_id"],
  extra_key_witness: ["id", "hash", "tx_id"],
};

/** Declares every table the generator writes, in the column order of the rows below. */
export const defineTables = (sink: CopySink): void => {
  for (const [name, columns] of Object.entries(tables)) if (columns.length > 0) sink.define(name, columns);
};

const hexText = (s: string) =>
  Array.from(new TextEncoder().encode(s), (b) => b.toString(16).padStart(2, "0")).join("");
const b = (hex: string) => new Bytea(hex);
const j = (value: unknown) => new Json(value);
const utc = (d: Date) => d.toISOString().replace("T", " ").replace("Z", "");

/** A growable typed array (UTxO bookkeeping reaches tens of millions of entries at mainnet scale). */
class Column<A extends Float64Array | Int32Array | Uint8Array | Uint16Array> {
  constructor(public data: A, private readonly make: (n: number) => A) {}
  set(i: number, v: number) {
    if (i >= this.data.length) {
      const next = this.make(Math.max(i + 1, Math.ceil(this.data.length * 1.5)));
      next.set(this.data);
      this.data = next;
    }
    this.data[i] = v;
  }
  get(i: number): number {
    return this.data[i]!;
  }
}
const f64 = (n: number) => new Column(new Float64Array(n), (m) => new Float64Array(m));
const i32 = (n: number) => new Column(new Int32Array(n), (m) => new Int32Array(m));
const u8 = (n: number) => new Column(new Uint8Array(n), (m) => new Uint8Array(m));

type AssetBundle = Map<number, bigint>;

interface Wallet {
  readonly payment: string;
  readonly stake: string;
  /** Index into the address book of where this wallet receives funds. */
  address: number;
  /** stake_address.id once db-sync has seen the stake credential; 0 before. */
  stakeAddressId: number;
  registered: boolean;
  /** (tx id, cert index) of the live registration, for pointers and ordering. */
  registration: { slot: number; txIndex: number; certIndex: number } | null;
  pool: number;
  drep: number;
  /** Lovelace in UTxOs whose address carries this wallet's stake key. */
  utxoStake: number;
  /** Spendable reward balance. */
  rewards: number;
}

interface Pool {
  readonly index: number;
  readonly hash: string;
  readonly view: string;
  readonly vrfKey: string;
  readonly ticker: string;
  readonly name: string;
  id: number;
  registered: boolean;
  retiring: number;
  retired: boolean;
  owners: Array<number>;
  rewardWallet: number;
  pledge: number;
  margin: number;
  fixedCost: number;
  opCert: string;
  opCertCounter: number;
  metaId: number | null;
  slotLeaderId: number;
}

interface Drep {
  readonly hash: string;
  readonly id: number;
  registered: boolean;
  everRegistered: boolean;
  lastActive: number;
  wallet: number;
}

interface Proposal {
  readonly id: number;
  readonly type: "TreasuryWithdrawals" | "InfoAction";
  readonly epoch: number;
  readonly returnWallet: number;
  readonly deposit: number;
  readonly enactAt: number | null;
  readonly amount: number;
  readonly beneficiary: number;
}

/** One output being built: to an address index (or a script address), with value and tokens. */
interface NewOutput {
  address: number;
  value: number;
  assets?: AssetBundle;
  datum?: { hash: string; inlineId: number | null };
  referenceScriptId?: number;
  spendable?: "wallet" | "script" | "never";
}

interface Certs {
  cert: number;
}

export class ChainGenerator {
  private readonly r: Random;
  private readonly net: DemoNetwork;
  private readonly scale: number;
  private readonly epochs: number;
  private readonly blocksPerEpoch: number;
  private readonly txsPerEpoch: number;

  // ids: the next id of each table (db-sync ids start at 1)
  private readonly next = new Map<string, number>();
  // address book
  private readonly addrText: Array<string> = [];
  private readonly addrPay: Array<string | null> = [];
  private readonly addrScript: Array<boolean> = [];
  /** Wallet whose stake key the address carries (-1: none, or not counted: pointer/enterprise/Byron). */
  private readonly addrStakeWallet: Array<number> = [];
  private readonly addrOwner: Array<number> = [];
  // outputs
  private readonly outTx = i32(1 << 16);
  private readonly outIndex = i32(1 << 16);
  private readonly outValue = f64(1 << 16);
  private readonly outAddr = i32(1 << 16);
  private readonly outSpent = u8(1 << 16);
  /** 1 while an output is in `pool` (entries of spent or taken outputs are skipped lazily). */
  private readonly inPool = u8(1 << 16);
  private readonly outAssets = new Map<number, AssetBundle>();
  private readonly outDatum = new Map<number, string>();
  private readonly txHash: Array<string> = [""];
  /** Unspent outputs wallets may spend; script-locked ones apart. */
  private readonly pool: Array<number> = [];
  private readonly scriptPool: Array<number> = [];
  private readonly tokenOutputs: Array<number> = [];

  private readonly wallets: Array<Wallet> = [];
  private readonly pools: Array<Pool> = [];
  private readonly dreps: Array<Drep> = [];
  private readonly proposals: Array<Proposal> = [];
  private readonly policies: Array<
    { hash: string; json: unknown; size: number; wallet: number; scriptId: number; assets: Array<number> }
  > = [];
  private readonly assetPolicy: Array<number> = [];
  private readonly assetName: Array<string> = [];
  private exchangeWallet = 0;
  private genesisAddresses: Array<number> = [];

  // ledger pots (lovelace); bigint where sums pass 2^53
  private reserves = 0n;
  private treasury = 0n;
  private depositsStake = 0n;
  private depositsDrep = 0n;
  private depositsProposal = 0n;
  private readonly feesByEpoch: Array<number> = [];
  /** Stake snapshots taken at each boundary: `snapshots[e]` = taken entering epoch e, active in e + 1. */
  private readonly snapshots: Array<
    { byPool: Map<number, Array<[number, number]>>; byDrep: Map<number, number> }
  > = [];
  private readonly blocksByPool: Array<Map<number, number>> = [];

  // chain position
  private blockId = 0;
  private blockNo = -1;
  private epoch = 0;
  private slot = 0;
  private blockTxIndex = 0;
  private blockSize = 0;
  private genesisLeaders: Array<number> = [];
  private alwaysSucceeds!: { hash: string; bytes: string; size: number; scriptId: number; address: number };
  private refScript!: { hash: string; bytes: string; size: number; scriptId: number; outputs: Array<number> };
  private datums: Array<{ hash: string; cbor: string; json: unknown }> = [];
  private readonly datumIds = new Map<string, number>();
  private readonly redeemerDataIds = new Map<string, number>();
  private epochOutSum = 0n;
  private epochTxCount = 0;
  private epochBlockCount = 0;
  private epochStart = new Date();
  private epochEnd = new Date();
  private costModelId = 0;

  constructor(
    private readonly sink: CopySink,
    network: DemoNetwork,
    private readonly options: GenerateOptions,
  ) {
    this.net = network;
    this.scale = Math.max(1, options.scale);
    this.r = new Random(`${network.seed}/scale-${this.scale}`);
    this.epochs = options.epochs ?? 6;
    this.blocksPerEpoch = Math.min(400 * this.scale, 21_600);
    this.txsPerEpoch = 2_000 * this.scale;
  }

  private id(table: string): number {
    const n = this.next.get(table) ?? 1;
    this.next.set(table, n + 1);
    return n;
  }

  private row(table: string, values: ReadonlyArray<CopyValue>) {
    this.sink.row(table, values);
  }

  // ---------------------------------------------------------------- the world

  private addAddress(text: string, pay: string | null, script: boolean, stakeWallet: number, owner: number) {
    this.addrText.push(text);
    this.addrPay.push(pay);
    this.addrScript.push(script);
    this.addrStakeWallet.push(stakeWallet);
    this.addrOwner.push(owner);
    return this.addrText.length - 1;
  }

  private makeWallets() {
    const n = 1_500 * this.scale;
    const byronCount = Math.min(200, Math.max(24, Math.round(n * 0.02)));
    const byron = enc.byronAddresses(this.net.protocolMagic, this.r.bytes(16), byronCount);
    const id = this.net.networkId;
    for (let w = 0; w < n; w++) {
      const payment = this.r.hex(28);
      const stake = this.r.hex(28);
      const roll = this.r.float();
      let address: number;
      if (w < byronCount) address = this.addAddress(byron[w]!, null, false, -1, w);
      else if (roll < 0.08) {
        address = this.addAddress(enc.enterpriseAddress(id, payment, false), payment, false, -1, w);
      } else if (roll < 0.1) {
        address = this.addAddress(enc.enterpriseAddress(id, payment, true), payment, true, -1, w);
      } else if (roll < 0.14) {
        address = this.addAddress(enc.baseAddress(id, payment, true, stake), payment, true, w, w);
      } else address = this.addAddress(enc.baseAddress(id, payment, false, stake), payment, false, w, w);
      this.wallets.push({
        payment,
        stake,
        address,
        stakeAddressId: 0,
        registered: false,
        registration: null,
        pool: -1,
        drep: -1,
        utxoStake: 0,
        rewards: 0,
      });
    }
    // The exchange: one busy base address that receives a share of all payments and never spends them.
    this.exchangeWallet = byronCount;
    const ex = this.wallets[this.exchangeWallet]!;
    ex.address = this.addAddress(
      enc.baseAddress(id, ex.payment, false, ex.stake),
      ex.payment,
      false,
      this.exchangeWallet,
      this.exchangeWallet,
    );
  }

  private makePools() {
    const n = Math.min(3_000, 60 * this.scale);
    const tickers = new Set<string>();
    for (let p = 0; p < n; p++) {
      const name = `${this.r.pick(adjectives)} ${this.r.pick(nouns)} Pool`;
      let ticker = name.replace(/[^A-Z]/g, "").slice(0, 3) + String.fromCharCode(65 + (p % 26));
      while (tickers.has(ticker)) ticker = ticker.slice(0, 3) + this.r.hex(1).toUpperCase();
      tickers.add(ticker);
      const hash = this.r.hex(28);
      this.pools.push({
        index: p,
        hash,
        view: enc.poolIdBech32(hash),
        vrfKey: this.r.hex(32),
        ticker,
        name,
        id: 0,
        registered: false,
        retiring: -1,
        retired: false,
        owners: [],
        rewardWallet: -1,
        pledge: 0,
        margin: 0,
        fixedCost: 0,
        opCert: this.r.hex(32),
        opCertCounter: this.r.int(0, 9),
        metaId: null,
        slotLeaderId: 0,
      });
    }
  }

  private makeDreps() {
    const n = Math.min(1_000, 36 * this.scale);
    for (const special of ["drep_always_abstain", "drep_always_no_confidence"]) {
      const id = this.id("drep_hash");
      this.row("drep_hash", [id, null, special, false]);
      this.dreps.push({ hash: "", id, registered: true, everRegistered: true, lastActive: 0, wallet: -1 });
    }
    for (let d = 0; d < n; d++) {
      const hash = this.r.hex(28);
      const id = this.id("drep_hash");
      this.row("drep_hash", [id, b(hash), enc.drepIdBech32(hash), false]);
      this.dreps.push({
        hash,
        id,
        registered: false,
        everRegistered: false,
        lastActive: 0,
        wallet: this.r.int(0, this.wallets.length - 1),
      });
    }
  }

  private makeScripts() {
    const datumShapes: Array<unknown> = [
      { constructor: 0, fields: [{ int: 42 }] },
      { constructor: 0, fields: [{ bytes: this.r.hex(28) }, { int: 1_700_000_000_000 }] },
      { constructor: 1, fields: [{ list: [{ int: 1 }, { int: 2 }, { int: 3 }] }] },
      { map: [{ k: { bytes: hexText("owner") }, v: { bytes: this.r.hex(28) } }] },
      { int: 7 },
    ];
    this.datums = datumShapes.map((d) => enc.plutusData(d));
    const v2 = enc.plutusV2Script("4e4d01000033222220051200120011");
    const scriptAddress = this.addAddress(
      enc.enterpriseAddress(this.net.networkId, v2.hash, true),
      v2.hash,
      true,
      -1,
      -1,
    );
    this.alwaysSucceeds = { ...v2, scriptId: 0, address: scriptAddress };
    const v3 = enc.plutusV3Script("46450101002499");
    this.refScript = { ...v3, scriptId: 0, outputs: [] };
  }

  // ---------------------------------------------------------------- outputs and inputs

  private stakeAddressId(w: number): number {
    const wallet = this.wallets[w]!;
    if (wallet.stakeAddressId === 0) {
      wallet.stakeAddressId = this.id("stake_address");
      const reward = enc.rewardAddress(this.net.networkId, wallet.stake);
      this.row("stake_address", [wallet.stakeAddressId, b(reward.hashRaw), reward.view, null]);
    }
    return wallet.stakeAddressId;
  }

  private writeOutput(txId: number, index: number, o: NewOutput): number {
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
  private spend(txId: number, outId: number, redeemerId: number | null = null) {
    if (this.outSpent.get(outId) === 1) throw new Error(`demo chain: output ${outId} spent twice`);
    this.outSpent.set(outId, 1);
    this.row("tx_in", [this.id("tx_in"), txId, this.outTx.get(outId), this.outIndex.get(outId), redeemerId]);
    const stakeWallet = this.addrStakeWallet[this.outAddr.get(outId)] ?? -1;
    if (stakeWallet >= 0) this.wallets[stakeWallet]!.utxoStake -= this.outValue.get(outId);
  }

  /** Removes a random unspent output from a pool (swap-remove), skipping stale entries. */
  private take(from: Array<number>, pooled = from === this.pool): number | undefined {
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
  private peekPooled(): number | undefined {
    for (let tries = 0; tries < 20 && this.pool.length > 0; tries++) {
      const out = this.pool[Math.floor(this.r.float() * this.pool.length)]!;
      if (this.outSpent.get(out) === 0 && this.inPool.get(out) === 1 && !this.outAssets.has(out)) return out;
    }
    return undefined;
  }

  /** Gives an output back to the pool it belongs to (after a transaction that could not be balanced). */
  private release(out: number) {
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
  private takeInputs(need: number, first?: number): Array<number> {
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

  private sumAssets(inputs: ReadonlyArray<number>): AssetBundle | undefined {
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
  private changeAddress(out: number): number {
    const address = this.outAddr.get(out);
    const owner = this.addrOwner[address]!;
    return owner < 0 ? address : this.wallets[owner]!.address;
  }

  private randomWallet(): number {
    return this.r.int(0, this.wallets.length - 1);
  }

  private fee(size: number, exUnits = 0): number {
    return protocol.minFeeB + protocol.minFeeA * size + exUnits;
  }

  // ---------------------------------------------------------------- transactions

  /**
   * Writes one transaction: spends `inputs`, creates `outputs` plus change to `changeTo`, and balances
   * in + withdrawals = out + fee + deposit. Returns the tx id, or 0 when the inputs cannot cover it (nothing is
   * written then and the inputs go back to the pool).
   */
  private tx(spec: {
    inputs: Array<number>;
    outputs: Array<NewOutput>;
    changeTo: number;
    size: number;
    deposit?: number;
    withdrawals?: Array<{ wallet: number; amount: number }>;
    mint?: Array<[number, bigint]>;
    exUnitsFee?: number;
    scriptSize?: number;
    validityStart?: boolean;
    /** Runs once the tx id exists, before outputs are written (datum and script rows the outputs refer to). */
    prepare?: (txId: number) => void;
    extra?: (txId: number, outIds: Array<number>) => void;
    certs?: (txId: number, c: Certs) => void;
    redeemers?: (txId: number) => Map<number, number>;
    collateral?: Array<number>;
    referenceInputs?: Array<number>;
    metadata?: Array<[number, unknown]>;
  }): number {
    const deposit = spec.deposit ?? 0;
    const withdrawn = (spec.withdrawals ?? []).reduce((s, w) => s + w.amount, 0);
    const fee = this.fee(spec.size, spec.exUnitsFee ?? 0);
    const inSum = spec.inputs.reduce((s, i) => s + this.outValue.get(i), 0);
    const outFixed = spec.outputs.reduce((s, o) => s + o.value, 0);
    let change = inSum + withdrawn - outFixed - fee - deposit;
    let assets = this.sumAssets(spec.inputs);
    if (spec.mint) {
      assets ??= new Map();
      for (const [ident, q] of spec.mint) assets.set(ident, (assets.get(ident) ?? 0n) + q);
    }
    for (const o of spec.outputs) {
      if (!o.assets) continue;
      assets ??= new Map();
      for (const [ident, q] of o.assets) assets.set(ident, (assets.get(ident) ?? 0n) - q);
    }
    if (assets) { for (const [ident, q] of assets) if (q === 0n) assets.delete(ident); }
    const hasAssets = assets !== undefined && assets.size > 0;
    const minChange = hasAssets ? 2 * ada : ada;
    if (change < minChange && !(change === 0 && !hasAssets)) {
      if (change > 0 && !hasAssets && spec.outputs.length > 0) {
        // fold dust change into the first output rather than create an output under the minimum
        spec.outputs[0]!.value += change;
        change = 0;
      } else {
        for (const i of spec.inputs) this.release(i);
        return 0;
      }
    }
    const txId = this.id("tx");
    const hash = this.r.hex(32);
    this.txHash[txId] = hash;
    spec.prepare?.(txId);
    const redeemerFor = spec.redeemers ? spec.redeemers(txId) : new Map<number, number>();
    for (const i of spec.inputs) this.spend(txId, i, redeemerFor.get(i) ?? null);
    for (const c of spec.collateral ?? []) {
      this.row("collateral_tx_in", [
        this.id("collateral_tx_in"),
        txId,
        this.outTx.get(c),
        this.outIndex.get(c),
      ]);
    }
    for (const ref of spec.referenceInputs ?? []) {
      this.row("reference_tx_in", [
        this.id("reference_tx_in"),
        txId,
        this.outTx.get(ref),
        this.outIndex.get(ref),
      ]);
    }
    const outputs = [...spec.outputs];
    if (change > 0) outputs.push({ address: spec.changeTo, value: change, assets });
    const outIds = outputs.map((o, index) => this.writeOutput(txId, index, o));
    const outSum = outputs.reduce((s, o) => s + o.value, 0);
    for (const w of spec.withdrawals ?? []) {
      const wallet = this.wallets[w.wallet]!;
      wallet.rewards -= w.amount;
      this.row("withdrawal", [this.id("withdrawal"), this.stakeAddressId(w.wallet), w.amount, null, txId]);
    }
    for (const [ident, q] of spec.mint ?? []) this.row("ma_tx_mint", [this.id("ma_tx_mint"), q, txId, ident]);
    if (spec.certs) spec.certs(txId, { cert: 0 });
    if (spec.extra) spec.extra(txId, outIds);
    for (const [key, json] of spec.metadata ?? []) {
      this.row("tx_metadata", [this.id("tx_metadata"), key, j(json), b(enc.metadatumCbor(json)), txId]);
    }
    const invalidHereafter = this.slot + this.r.int(3_600, 10_800);
    this.row("tx", [
      txId,
      b(hash),
      this.blockId,
      this.blockTxIndex++,
      outSum,
      fee,
      deposit,
      spec.size,
      spec.validityStart ? this.slot - this.r.int(10, 600) : null,
      invalidHereafter,
      true,
      spec.scriptSize ?? 0,
      0,
    ]);
    this.feesByEpoch[this.epoch] = (this.feesByEpoch[this.epoch] ?? 0) + fee;
    this.epochOutSum += BigInt(outSum);
    this.blockSize += spec.size;
    return txId;
  }

  private randomPaymentValue(available: number): number {
    return Math.min(Math.floor(available * 0.6), this.r.logUniform(2 * ada, 250_000 * ada));
  }

  private payment(): boolean {
    const first = this.take(this.pool);
    if (first === undefined) return false;
    const firstValue = this.outValue.get(first);
    const from = this.changeAddress(first);
    if (firstValue > 5_000_000 * ada) return this.distribution(first, from);
    const inputs = this.takeInputs(6 * ada, first);
    if (inputs.length === 0) return false;
    if (this.r.chance(0.25)) {
      const more = this.take(this.pool);
      if (more !== undefined) inputs.push(more);
    }
    const available = inputs.reduce((s, i) => s + this.outValue.get(i), 0) - 3 * ada;
    const outputs: Array<NewOutput> = [];
    const count = this.r.chance(0.7) ? 1 : this.r.int(2, 4);
    let left = available;
    for (let k = 0; k < count && left > 2 * ada; k++) {
      const to = this.r.chance(0.09)
        ? this.wallets[this.exchangeWallet]!.address
        : this.wallets[this.randomWallet()]!.address;
      const value = Math.max(ada, Math.min(this.randomPaymentValue(left), left - ada));
      outputs.push({ address: to, value });
      left -= value;
    }
    // some payments move tokens along: give the first output part of a token the inputs hold
    const held = this.sumAssets(inputs);
    if (held && outputs[0] && this.r.chance(0.5)) {
      const [ident, q] = held.entries().next().value!;
      const part = q > 1n ? q / 2n : q;
      outputs[0].assets = new Map([[ident, part]]);
      outputs[0].value = Math.max(outputs[0].value, 2 * ada);
    }
    const metadata: Array<[number, unknown]> = this.r.chance(0.08)
      ? [[674, {
        msg: [`Invoice ${this.r.int(1000, 99999)}`, `${this.r.pick(adjectives)} ${this.r.pick(nouns)}`],
      }]]
      : [];
    return this.tx({
      inputs,
      outputs,
      changeTo: from,
      size: 280 + 110 * inputs.length + 70 * outputs.length + (metadata.length ? 60 : 0),
      metadata,
      validityStart: this.r.chance(0.1),
    }) > 0;
  }

  /** A whale output fans out to many wallets (how genesis funds reach the economy). */
  private distribution(first: number, from: number): boolean {
    const outputs: Array<NewOutput> = [];
    const count = this.r.int(10, 30);
    for (let k = 0; k < count; k++) {
      const w = this.randomWallet();
      const whale = w % 97 === 0 && this.r.chance(0.3);
      outputs.push({
        address: this.wallets[w]!.address,
        value: whale
          ? this.r.logUniform(1_000_000 * ada, 40_000_000 * ada)
          : this.r.logUniform(20 * ada, 400_000 * ada),
      });
    }
    return this.tx({ inputs: [first], outputs, changeTo: from, size: 400 + 70 * count }) > 0;
  }

  private registerStake(w: number, txId: number, c: Certs, combined = false) {
    const wallet = this.wallets[w]!;
    const addrId = this.stakeAddressId(w);
    this.row("stake_registration", [
      this.id("stake_registration"),
      addrId,
      c.cert,
      this.epoch,
      txId,
      protocol.keyDeposit,
    ]);
    wallet.registered = true;
    wallet.registration = { slot: this.slot, txIndex: this.blockTxIndex, certIndex: c.cert };
    wallet.pool = -1;
    wallet.drep = -1;
    this.depositsStake += BigInt(protocol.keyDeposit);
    if (!combined) c.cert++;
  }

  private delegate(w: number, pool: number, txId: number, c: Certs, combined = false) {
    const p = this.pools[pool]!;
    this.row("delegation", [
      this.id("delegation"),
      this.stakeAddressId(w),
      c.cert,
      p.id,
      this.epoch + 2,
      txId,
      this.slot,
      null,
    ]);
    this.wallets[w]!.pool = pool;
    if (!combined) c.cert++;
  }

  private delegateVote(w: number, drep: number, txId: number, c: Certs) {
    this.row("delegation_vote", [
      this.id("delegation_vote"),
      this.stakeAddressId(w),
      c.cert,
      this.dreps[drep]!.id,
      txId,
      null,
    ]);
    this.wallets[w]!.drep = drep;
    c.cert++;
  }

  /** Bumped whenever a pool or DRep (de)registers, so the pick caches below know to rebuild. */
  private worldVersion = 0;
  private poolPick = { version: -1, items: [] as Array<number>, cumulative: [] as Array<number> };
  private drepPick = { version: -1, items: [] as Array<number> };

  /** A live pool, biased to a few big ones and a long tail: pool i weighs 1 / (i + 3). */
  private pickPool(): number {
    if (this.poolPick.version !== this.worldVersion) {
      const items = this.pools.filter((p) => p.registered && !p.retired && p.retiring < 0).map((p) =>
        p.index
      );
      let total = 0;
      const cumulative = items.map((i) => (total += 1 / (i + 3)));
      this.poolPick = { version: this.worldVersion, items, cumulative };
    }
    const { items, cumulative } = this.poolPick;
    if (items.length === 0) return -1;
    const x = this.r.float() * cumulative[cumulative.length - 1]!;
    let lo = 0, hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return items[lo]!;
  }

  /** A DRep to delegate votes to: mostly registered ones (a few popular), some to the two predefined DReps. */
  private pickDrep(): number {
    const roll = this.r.float();
    if (roll < 0.12) return 0;
    if (roll < 0.2) return 1;
    if (this.drepPick.version !== this.worldVersion) {
      const items = this.dreps.flatMap((d, i) => (i >= 2 && d.registered ? [i] : []));
      this.drepPick = { version: this.worldVersion, items };
    }
    const { items } = this.drepPick;
    if (items.length === 0) return 0;
    return items[Math.min(items.length - 1, Math.floor(Math.pow(this.r.float(), 2) * items.length))]!;
  }

  /** A wallet registers its stake key and delegates (sometimes in one Conway certificate, with a vote delegation). */
  private stakeRegDeleg(): boolean {
    const w = this.randomWallet();
    const wallet = this.wallets[w]!;
    if (wallet.registered || this.addrStakeWallet[wallet.address] !== w || w === this.exchangeWallet) {
      return false;
    }
    const pool = this.pickPool();
    if (pool < 0) return false;
    const inputs = this.takeInputs(protocol.keyDeposit + 3 * ada);
    if (inputs.length === 0) return false;
    const combined = this.r.chance(0.4);
    const withVote = this.dreps.length > 2 && this.r.chance(0.5);
    return this.tx({
      inputs,
      outputs: [],
      changeTo: wallet.address,
      size: 420 + 110 * inputs.length,
      deposit: protocol.keyDeposit,
      certs: (txId, c) => {
        this.registerStake(w, txId, c, combined);
        this.delegate(w, pool, txId, c, combined && withVote);
        if (withVote) this.delegateVote(w, this.pickDrep(), txId, c);
      },
    }) > 0;
  }

  private redelegate(): boolean {
    const w = this.randomWallet();
    const wallet = this.wallets[w]!;
    if (!wallet.registered) return false;
    const pool = this.pickPool();
    const inputs = this.takeInputs(3 * ada);
    if (inputs.length === 0 || pool < 0) return false;
    const vote = this.dreps.length > 2 && this.r.chance(0.3);
    return this.tx({
      inputs,
      outputs: [],
      changeTo: wallet.address,
      size: 380 + 110 * inputs.length,
      certs: (txId, c) => {
        if (vote) this.delegateVote(w, this.pickDrep(), txId, c);
        else this.delegate(w, pool, txId, c);
      },
    }) > 0;
  }

  /** Withdraws the whole reward balance, and sometimes deregisters the key (Conway requires a zero balance). */
  private withdrawOrDeregister(deregister: boolean): boolean {
    const w = this.randomWallet();
    const wallet = this.wallets[w]!;
    if (!wallet.registered || (!deregister && wallet.rewards <= 0)) return false;
    if (this.pools.some((p) => p.owners.includes(w) && !p.retired) && deregister) return false;
    const inputs = this.takeInputs(3 * ada);
    if (inputs.length === 0) return false;
    const amount = wallet.rewards;
    return this.tx({
      inputs,
      outputs: [],
      changeTo: wallet.address,
      size: 400 + 110 * inputs.length,
      deposit: deregister ? -protocol.keyDeposit : 0,
      withdrawals: amount > 0 ? [{ wallet: w, amount }] : [],
      certs: deregister
        ? (txId, c) => {
          this.row("stake_deregistration", [
            this.id("stake_deregistration"),
            this.stakeAddressId(w),
            c.cert++,
            this.epoch,
            txId,
            null,
          ]);
          wallet.registered = false;
          wallet.pool = -1;
          wallet.drep = -1;
          this.depositsStake -= BigInt(protocol.keyDeposit);
        }
        : undefined,
    }) > 0;
  }

  private poolRegistration(p: Pool, update: boolean): boolean {
    const ownerCount = this.r.chance(0.8) ? 1 : 2;
    const owners = update ? p.owners : Array.from({ length: ownerCount }, () => this.randomWallet())
      .filter((w, i, all) => all.indexOf(w) === i && w !== this.exchangeWallet);
    if (owners.length === 0) return false;
    const newOwners = update ? [] : owners.filter((w) => !this.wallets[w]!.registered);
    const poolDeposit = p.registered ? 0 : protocol.poolDeposit;
    const deposit = poolDeposit + newOwners.length * protocol.keyDeposit;
    const inputs = this.takeInputs(deposit + 10 * ada);
    if (inputs.length === 0) return false;
    const pledge = this.r.chance(0.1) ? 0 : this.r.logUniform(1_000 * ada, 5_000_000 * ada);
    const margin = this.r.pick([0, 0.005, 0.01, 0.015, 0.02, 0.025, 0.03, 0.05, 0.099, 1]);
    const fixedCost = this.r.chance(0.8) ? protocol.minPoolCost : this.r.int(171, 500) * ada;
    const cancelsRetirement = p.retiring >= 0;
    return this.tx({
      inputs,
      outputs: [],
      changeTo: this.wallets[owners[0]!]!.address,
      size: 700 + 110 * inputs.length + 40 * owners.length,
      deposit,
      certs: (txId, c) => {
        for (const w of newOwners) this.registerStake(w, txId, c);
        if (p.id === 0) {
          p.id = this.id("pool_hash");
          this.row("pool_hash", [p.id, b(p.hash), p.view]);
          p.slotLeaderId = this.id("slot_leader");
          this.row("slot_leader", [p.slotLeaderId, b(p.hash), p.id, `Pool-${p.hash.slice(0, 16)}`]);
        }
        const meta = {
          name: p.name,
          description: `${p.name}: a demo stake pool on the generated ${this.net.network} chain.`,
          ticker: p.ticker,
          homepage: `https://${p.ticker.toLowerCase()}.demo.invalid`,
        };
        const metaText = JSON.stringify(meta);
        const metaHash = enc.blake2b256(new TextEncoder().encode(metaText));
        const metaId = this.id("pool_metadata_ref");
        this.row("pool_metadata_ref", [
          metaId,
          p.id,
          `https://${p.ticker.toLowerCase()}.demo.invalid/poolmeta.json`,
          b(metaHash),
          txId,
        ]);
        this.row("off_chain_pool_data", [
          this.id("off_chain_pool_data"),
          p.id,
          p.ticker,
          b(metaHash),
          j(meta),
          b(hexText(metaText)),
          metaId,
        ]);
        const updateId = this.id("pool_update");
        const activeEpoch = this.epoch + (p.registered ? 3 : 2);
        const rewardWallet = owners[0]!;
        this.row("pool_update", [
          updateId,
          p.id,
          c.cert,
          b(enc.blake2b256(hex.decode(p.vrfKey))),
          pledge,
          activeEpoch,
          metaId,
          margin,
          fixedCost,
          txId,
          this.stakeAddressId(rewardWallet),
          poolDeposit > 0 ? poolDeposit : null,
        ]);
        c.cert++;
        for (const w of owners) {
          this.row("pool_owner", [this.id("pool_owner"), this.stakeAddressId(w), updateId]);
        }
        const relays = this.r.int(1, 3);
        for (let k = 0; k < relays; k++) {
          const kind = this.r.float();
          const host = `relay${k + 1}.${p.ticker.toLowerCase()}.demo.invalid`;
          this.row("pool_relay", [
            this.id("pool_relay"),
            updateId,
            kind < 0.5 ? `127.${this.r.int(0, 255)}.${this.r.int(0, 255)}.${this.r.int(1, 254)}` : null,
            kind >= 0.5 && kind < 0.6 ? "::1" : null,
            kind >= 0.6 && kind < 0.9 ? host : null,
            kind >= 0.9 ? `_cardano._tcp.${p.ticker.toLowerCase()}.demo.invalid` : null,
            kind >= 0.9 ? null : this.r.pick([3001, 3001, 6000, 4001]),
          ]);
        }
        if (!update) {
          for (const w of owners) {
            if (this.wallets[w]!.pool !== p.index) this.delegate(w, p.index, txId, c);
          }
        }
        if (poolDeposit > 0) this.depositsStake += BigInt(poolDeposit);
        p.registered = true;
        p.owners = owners;
        p.rewardWallet = rewardWallet;
        p.pledge = pledge;
        p.margin = margin;
        p.fixedCost = fixedCost;
        p.metaId = metaId;
        if (cancelsRetirement) p.retiring = -1;
        this.worldVersion++;
      },
    }) > 0;
  }

  private poolRetirement(p: Pool): boolean {
    const inputs = this.takeInputs(3 * ada);
    if (inputs.length === 0) return false;
    const retiringEpoch = this.epoch + this.r.int(1, 3);
    return this.tx({
      inputs,
      outputs: [],
      changeTo: this.wallets[p.owners[0]!]!.address,
      size: 350 + 110 * inputs.length,
      certs: (txId, c) => {
        this.row("pool_retire", [this.id("pool_retire"), p.id, c.cert++, txId, retiringEpoch]);
        p.retiring = retiringEpoch;
        this.worldVersion++;
      },
    }) > 0;
  }

  private drepCertificate(d: number, kind: "register" | "update" | "deregister"): boolean {
    const drep = this.dreps[d]!;
    const deposit = kind === "register"
      ? protocol.drepDeposit
      : kind === "deregister"
      ? -protocol.drepDeposit
      : 0;
    const inputs = this.takeInputs(Math.max(0, deposit) + 5 * ada);
    if (inputs.length === 0) return false;
    return this.tx({
      inputs,
      outputs: [],
      changeTo: this.wallets[drep.wallet]!.address,
      size: 500 + 110 * inputs.length,
      deposit,
      certs: (txId, c) => {
        let anchorId: number | null = null;
        if (kind !== "deregister" && this.r.chance(0.85)) anchorId = this.drepMetadata(d);
        this.row("drep_registration", [
          this.id("drep_registration"),
          txId,
          c.cert++,
          deposit === 0 ? null : deposit,
          drep.id,
          anchorId,
        ]);
        drep.registered = kind !== "deregister";
        drep.everRegistered = true;
        drep.lastActive = this.epoch;
        this.depositsDrep += BigInt(deposit);
        this.worldVersion++;
      },
    }) > 0;
  }

  /** CIP-119 metadata as db-sync's off-chain fetcher stores it: anchor, the document, and the extracted fields. */
  private drepMetadata(d: number): number {
    const givenName = `${this.r.pick(givenNames)} ${this.r.pick(nouns)}`;
    const body = {
      givenName,
      revision: `${this.epoch}.${this.blockId}`,
      objectives: `Keep ${this.net.network} governance ${
        this.r.pick(["transparent", "steady", "open", "frugal"])
      }.`,
      motivations: "Demo DRep on a generated chain.",
      qualifications: `${this.r.int(2, 15)} years in distributed systems.`,
      paymentAddress: this.addrText[this.wallets[this.dreps[d]!.wallet]!.address],
    };
    const doc = {
      "@context": {
        "@language": "en-us",
        CIP100: "https://github.com/cardano-foundation/CIPs/blob/master/CIP-0100/README.md#",
        CIP119: "https://github.com/cardano-foundation/CIPs/blob/master/CIP-0119/README.md#",
      },
      hashAlgorithm: "blake2b-256",
      body,
    };
    const text = JSON.stringify(doc);
    const hash = enc.blake2b256(new TextEncoder().encode(text));
    const anchorId = this.id("voting_anchor");
    this.row("voting_anchor", [
      anchorId,
      `https://dreps.demo.invalid/${this.dreps[d]!.hash.slice(0, 16)}.jsonld`,
      b(hash),
      "drep",
      this.blockId,
    ]);
    const dataId = this.id("off_chain_vote_data");
    this.row("off_chain_vote_data", [
      dataId,
      anchorId,
      b(hash),
      j(doc),
      b(hexText(text)),
      null,
      "en-us",
      null,
      true,
    ]);
    this.row("off_chain_vote_drep_data", [
      this.id("off_chain_vote_drep_data"),
      dataId,
      body.paymentAddress,
      givenName,
      body.objectives,
      body.motivations,
      body.qualifications,
      null,
      null,
    ]);
    return anchorId;
  }

  private proposal(type: Proposal["type"]): boolean {
    const w = this.wallets.findIndex((x, i) =>
      x.registered && i !== this.exchangeWallet && this.r.chance(0.05)
    );
    if (w < 0) return false;
    const inputs = this.takeInputs(protocol.govActionDeposit + 10 * ada);
    if (inputs.length === 0) return false;
    const beneficiary = this.wallets.findIndex((x) => x.registered);
    return this.tx({
      inputs,
      outputs: [],
      changeTo: this.wallets[w]!.address,
      size: 900 + 110 * inputs.length,
      deposit: protocol.govActionDeposit,
      extra: (txId) => {
        const anchorId = this.id("voting_anchor");
        const text = JSON.stringify({
          body: { title: `${type} ${this.proposals.length + 1}`, abstract: "A demo governance action." },
        });
        this.row("voting_anchor", [
          anchorId,
          `https://gov.demo.invalid/${txId}.jsonld`,
          b(enc.blake2b256(new TextEncoder().encode(text))),
          "gov_action",
          this.blockId,
        ]);
        const id = this.id("gov_action_proposal");
        const amount = 1_000_000 * ada;
        const enactAt = type === "TreasuryWithdrawals" ? this.epoch + 3 : null;
        const description = type === "TreasuryWithdrawals"
          ? {
            tag: "TreasuryWithdrawals",
            contents: [[{
              credential: { keyHash: this.wallets[beneficiary]!.stake },
              network: this.net.networkId === 1 ? "Mainnet" : "Testnet",
            }, amount], null],
          }
          : { tag: "InfoAction" };
        this.row("gov_action_proposal", [
          id,
          txId,
          0,
          null,
          protocol.govActionDeposit,
          this.stakeAddressId(w),
          this.epoch + protocol.govActionLifetime,
          anchorId,
          type,
          j(description),
          null,
          enactAt === null ? null : enactAt - 1,
          enactAt,
          null,
          null,
        ]);
        this.proposals.push({
          id,
          type,
          epoch: this.epoch,
          returnWallet: w,
          deposit: protocol.govActionDeposit,
          enactAt,
          amount,
          beneficiary,
        });
        this.depositsProposal += BigInt(protocol.govActionDeposit);
      },
    }) > 0;
  }

  private vote(): boolean {
    const open = this.proposals.filter((p) => p.enactAt === null || p.enactAt > this.epoch);
    const voters = this.dreps.filter((d, i) => i >= 2 && d.registered);
    if (open.length === 0 || voters.length === 0) return false;
    const inputs = this.takeInputs(3 * ada);
    if (inputs.length === 0) return false;
    const drep = this.r.pick(voters);
    const chosen = open.filter(() => this.r.chance(0.7));
    if (chosen.length === 0) chosen.push(open[0]!);
    return this.tx({
      inputs,
      outputs: [],
      changeTo: this.wallets[drep.wallet]!.address,
      size: 300 + 110 * inputs.length + 60 * chosen.length,
      extra: (txId) => {
        chosen.forEach((p, index) => {
          const vote = p.type === "TreasuryWithdrawals"
            ? (this.r.chance(0.85) ? "Yes" : "Abstain")
            : this.r.pick(["Yes", "No", "Abstain"]);
          this.row("voting_procedure", [
            this.id("voting_procedure"),
            txId,
            index,
            p.id,
            "DRep",
            drep.id,
            null,
            vote,
            null,
            null,
            null,
          ]);
        });
        drep.lastActive = this.epoch;
      },
    }) > 0;
  }

  private mint(): boolean {
    const w = this.randomWallet();
    const wallet = this.wallets[w]!;
    if (this.addrScript[wallet.address] || w === this.exchangeWallet) return false;
    let policy = this.policies.find((p) => p.wallet === w);
    const inputs = this.takeInputs(5 * ada);
    if (inputs.length === 0) return false;
    const isNew = !policy;
    if (!policy) {
      const script = enc.signaturePolicy(wallet.payment);
      policy = {
        hash: script.hash,
        json: script.json,
        size: script.size,
        wallet: w,
        scriptId: 0,
        assets: [],
      };
      this.policies.push(policy);
    }
    const nft = this.r.chance(0.5);
    const label = nft
      ? `${this.r.pick(adjectives)}${this.r.pick(nouns)}${String(policy.assets.length + 1).padStart(4, "0")}`
      : `${this.r.pick(nouns).toUpperCase()}${this.r.int(1, 99)}`;
    const nameHex = hexText(label).slice(0, 64);
    let ident = policy.assets.find((a) => this.assetName[a] === nameHex);
    if (ident === undefined) {
      ident = this.id("multi_asset");
      this.row("multi_asset", [
        ident,
        b(policy.hash),
        b(nameHex),
        enc.assetFingerprint(policy.hash, nameHex),
      ]);
      policy.assets.push(ident);
      this.assetPolicy[ident] = this.policies.indexOf(policy);
      this.assetName[ident] = nameHex;
    }
    const quantity = nft ? 1n : BigInt(this.r.logUniform(1_000, 1_000_000_000)) * 1_000n;
    const p = policy;
    const id = ident;
    const metadata: Array<[number, unknown]> = nft
      ? [[721, {
        [p.hash]: { [label]: { name: label, image: `ipfs://Qm${this.r.hex(22)}`, mediaType: "image/png" } },
      }]]
      : [];
    return this.tx({
      inputs,
      outputs: [{ address: wallet.address, value: 2 * ada, assets: new Map([[id, quantity]]) }],
      changeTo: wallet.address,
      size: 600 + 110 * inputs.length + (nft ? 200 : 0),
      mint: [[id, quantity]],
      scriptSize: 0,
      metadata,
      extra: (txId) => {
        if (isNew) {
          p.scriptId = this.id("script");
          this.row("script", [p.scriptId, txId, b(p.hash), "timelock", j(p.json), null, null]);
        }
      },
    }) > 0;
  }

  /** Burns part of a token: spends an output holding it, mints the negative amount, keeps the rest. */
  private burn(): boolean {
    const out = this.take(this.tokenOutputs);
    if (out === undefined || this.inPool.get(out) === 0) return false;
    this.inPool.set(out, 0);
    const held = this.outAssets.get(out)!;
    const [ident, q] = held.entries().next().value!;
    const burned = q > 1n ? q / 3n : q;
    const inputs = this.takeInputs(3 * ada, out);
    if (inputs.length === 0) return false;
    return this.tx({
      inputs,
      outputs: [],
      changeTo: this.changeAddress(out),
      size: 550 + 110 * inputs.length,
      mint: [[ident, -burned]],
    }) > 0;
  }

  /** The datum row for a hash, written the first time the chain sees that datum (hashes are unique). */
  private datumId(d: { hash: string; cbor: string; json: unknown }, txId: number): number {
    let id = this.datumIds.get(d.hash);
    if (id === undefined) {
      id = this.id("datum");
      this.datumIds.set(d.hash, id);
      this.row("datum", [id, b(d.hash), txId, j(d.json), b(d.cbor)]);
    }
    return id;
  }

  /** Locks funds at the always-succeeds script with an inline datum or a datum hash (datum in the witness set). */
  private scriptLock(): boolean {
    const inputs = this.takeInputs(40 * ada);
    if (inputs.length === 0) return false;
    const d = this.r.pick(this.datums);
    const inline = this.r.chance(0.5);
    const withRefScript = this.refScript.scriptId === 0 || this.r.chance(0.1);
    const owner = this.changeAddress(inputs[0]!);
    const lock: NewOutput = {
      address: this.alwaysSucceeds.address,
      value: this.r.int(5, 25) * ada,
      datum: { hash: d.hash, inlineId: null },
      spendable: "script",
    };
    const refOutput: NewOutput = { address: owner, value: 3 * ada, spendable: "never" };
    return this.tx({
      inputs,
      outputs: withRefScript ? [lock, refOutput] : [lock],
      changeTo: owner,
      size: 500 + 110 * inputs.length + (withRefScript ? this.refScript.size : 0),
      prepare: (txId) => {
        const datumId = this.datumId(d, txId);
        if (inline) lock.datum = { hash: d.hash, inlineId: datumId };
        if (withRefScript && this.refScript.scriptId === 0) {
          this.refScript.scriptId = this.id("script");
          this.row("script", [
            this.refScript.scriptId,
            txId,
            b(this.refScript.hash),
            "plutusV3",
            null,
            b(this.refScript.bytes),
            this.refScript.size,
          ]);
        }
        refOutput.referenceScriptId = this.refScript.scriptId;
      },
      extra: (_txId, outIds) => {
        if (withRefScript) this.refScript.outputs.push(outIds[1]!);
      },
    }) > 0;
  }

  /** Spends a script-locked output with a redeemer, collateral, and the script in the witness or by reference. */
  private scriptSpend(): boolean {
    const locked = this.take(this.scriptPool);
    if (locked === undefined) return false;
    const fuel = this.takeInputs(5 * ada);
    const collateral = this.peekPooled();
    if (fuel.length === 0 || collateral === undefined) {
      for (const f of fuel) this.release(f);
      this.scriptPool.push(locked);
      return false;
    }
    const mem = this.r.int(200_000, 2_000_000);
    const steps = this.r.int(50_000_000, 800_000_000);
    const exFee = Math.ceil(mem * protocol.priceMem + steps * protocol.priceStep);
    const viaReference = this.refScript.outputs.length > 0 && this.r.chance(0.3);
    const inputs = [...fuel, locked];
    const sorted = [...inputs].sort((x, y) => {
      const hx = this.txHash[this.outTx.get(x)]!, hy = this.txHash[this.outTx.get(y)]!;
      return hx < hy ? -1 : hx > hy ? 1 : this.outIndex.get(x) - this.outIndex.get(y);
    });
    const redeemer = this.r.pick(this.datums);
    return this.tx({
      inputs,
      outputs: [{ address: this.wallets[this.randomWallet()]!.address, value: this.outValue.get(locked) }],
      changeTo: this.changeAddress(fuel[0]!),
      size: 900 + 110 * inputs.length + (viaReference ? 0 : this.alwaysSucceeds.size),
      exUnitsFee: exFee,
      scriptSize: viaReference ? 0 : this.alwaysSucceeds.size,
      collateral: [collateral],
      referenceInputs: viaReference ? [this.r.pick(this.refScript.outputs)] : [],
      redeemers: (txId) => {
        if (!viaReference && this.alwaysSucceeds.scriptId === 0) {
          this.alwaysSucceeds.scriptId = this.id("script");
          this.row("script", [
            this.alwaysSucceeds.scriptId,
            txId,
            b(this.alwaysSucceeds.hash),
            "plutusV2",
            null,
            b(this.alwaysSucceeds.bytes),
            this.alwaysSucceeds.size,
          ]);
        }
        const datum = this.datums.find((d) => d.hash === this.outDatum.get(locked));
        if (datum) this.datumId(datum, txId);
        let dataId = this.redeemerDataIds.get(redeemer.hash);
        if (dataId === undefined) {
          dataId = this.id("redeemer_data");
          this.redeemerDataIds.set(redeemer.hash, dataId);
          this.row("redeemer_data", [dataId, b(redeemer.hash), txId, j(redeemer.json), b(redeemer.cbor)]);
        }
        const redeemerId = this.id("redeemer");
        this.row("redeemer", [
          redeemerId,
          txId,
          mem,
          steps,
          exFee,
          "spend",
          sorted.indexOf(locked),
          b(this.alwaysSucceeds.hash),
          dataId,
        ]);
        return new Map([[locked, redeemerId]]);
      },
    }) > 0;
  }

  /** A phase-2 failure: db-sync keeps only the collateral (consumed, as tx_in) and the collateral return. */
  private failedScript(): boolean {
    const collateral = this.takeInputs(10 * ada);
    if (collateral.length !== 1 || this.outAssets.has(collateral[0]!)) {
      for (const c of collateral) this.release(c);
      return false;
    }
    const c = collateral[0]!;
    const fee = this.r.int(300_000, 900_000);
    const taken = Math.ceil((fee * protocol.collateralPercent) / 100);
    const txId = this.id("tx");
    const hash = this.r.hex(32);
    this.txHash[txId] = hash;
    this.spend(txId, c);
    this.row("collateral_tx_in", [
      this.id("collateral_tx_in"),
      txId,
      this.outTx.get(c),
      this.outIndex.get(c),
    ]);
    const back = this.outValue.get(c) - taken;
    const address = this.changeAddress(c);
    const bodyOutputs = 2;
    const stakeWallet = this.addrStakeWallet[address]!;
    const pay = this.addrPay[address];
    this.row("collateral_tx_out", [
      this.id("collateral_tx_out"),
      txId,
      bodyOutputs,
      this.addrText[address]!,
      this.addrScript[address]!,
      pay ? b(pay) : null,
      stakeWallet >= 0 ? this.stakeAddressId(stakeWallet) : null,
      back,
      null,
      "fromList []",
      null,
      null,
    ]);
    this.writeOutput(txId, bodyOutputs, { address, value: back });
    const size = 1_200;
    this.row("tx", [
      txId,
      b(hash),
      this.blockId,
      this.blockTxIndex++,
      back,
      taken,
      0,
      size,
      null,
      this.slot + 7_200,
      false,
      0,
      0,
    ]);
    this.feesByEpoch[this.epoch] = (this.feesByEpoch[this.epoch] ?? 0) + taken;
    this.epochOutSum += BigInt(back);
    this.blockSize += size;
    return true;
  }

  // ---------------------------------------------------------------- blocks and epochs

  private writeGenesis() {
    const genesisLeader = this.id("slot_leader");
    const genesisHash = this.r.hex(32);
    this.row("slot_leader", [genesisLeader, b(genesisHash.slice(0, 56)), null, "Genesis slot leader"]);
    for (let g = 0; g < 7; g++) {
      const id = this.id("slot_leader");
      const hash = this.r.hex(28);
      this.row("slot_leader", [id, b(hash), null, `ShelleyGenesis-${hash.slice(0, 16)}`]);
      this.genesisLeaders.push(id);
    }
    this.blockId = this.id("block");
    const genesisOutputs = 40;
    const each = 850_000_000 * ada;
    for (let g = 0; g < genesisOutputs; g++) {
      const payment = this.r.hex(28);
      this.genesisAddresses.push(
        this.addAddress(enc.enterpriseAddress(this.net.networkId, payment, false), payment, false, -1, -1),
      );
    }
    for (let g = 0; g < genesisOutputs; g++) {
      const txId = this.id("tx");
      this.txHash[txId] = this.r.hex(32);
      this.writeOutput(txId, 0, { address: this.genesisAddresses[g]!, value: each });
      this.row("tx", [txId, b(this.txHash[txId]!), this.blockId, g, each, 0, 0, 0, null, null, true, 0, 0]);
    }
    this.row("block", [
      this.blockId,
      b(genesisHash),
      null,
      null,
      null,
      null,
      null,
      genesisLeader,
      0,
      utc(this.net.systemStart),
      genesisOutputs,
      0,
      0,
      null,
      null,
      null,
    ]);
    this.reserves = maxSupply - BigInt(genesisOutputs) * BigInt(each);
    this.costModelId = this.id("cost_model");
    const costsText = JSON.stringify(costModels);
    this.row("cost_model", [
      this.costModelId,
      j(costModels),
      b(enc.blake2b256(new TextEncoder().encode(costsText))),
    ]);
    this.row("epoch_sync_enabled", [true, true]);
  }

  private totalUtxo(): bigint {
    let sum = 0n;
    for (let i = 1; i < (this.next.get("tx_out") ?? 1); i++) {
      if (this.outSpent.data[i] === 0) sum += BigInt(this.outValue.data[i]!);
    }
    return sum;
  }

  private totalRewards(): bigint {
    let sum = 0n;
    for (const w of this.wallets) sum += BigInt(w.rewards);
    return sum;
  }

  /** The stake snapshot at a boundary: delegated, registered keys with UTxO stake plus rewards. */
  private snapshot() {
    const byPool = new Map<number, Array<[number, number]>>();
    const byDrep = new Map<number, number>();
    this.wallets.forEach((w, i) => {
      if (!w.registered) return;
      const amount = Math.max(0, w.utxoStake) + w.rewards;
      if (w.pool >= 0) {
        const p = this.pools[w.pool]!;
        if (p.registered && !p.retired && amount > 0) {
          const list = byPool.get(w.pool) ?? [];
          list.push([i, amount]);
          byPool.set(w.pool, list);
        }
      }
      if (w.drep >= 0) byDrep.set(w.drep, (byDrep.get(w.drep) ?? 0) + amount);
    });
    return { byPool, byDrep };
  }

  private writeEpochStake(epoch: number, snap: { byPool: Map<number, Array<[number, number]>> }) {
    for (const [pool, members] of snap.byPool) {
      for (const [w, amount] of members) {
        this.row("epoch_stake", [
          this.id("epoch_stake"),
          this.wallets[w]!.stakeAddressId,
          this.pools[pool]!.id,
          amount,
          epoch,
        ]);
      }
    }
    this.row("epoch_stake_progress", [this.id("epoch_stake_progress"), epoch, true]);
  }

  /**
   * Rewards earned in `earned` (paid at the boundary into earned + 2): the pot goes to pools in proportion to
   * their active stake share of the supply and their block production; leader and member shares follow margin and
   * fixed cost. Returns rows (not yet written) and their total.
   */
  private computeRewards(earned: number, pot: number) {
    const rows: Array<{ wallet: number; type: "leader" | "member"; amount: number; pool: number }> = [];
    const snap = this.snapshots[earned - 1];
    const blocks = this.blocksByPool[earned];
    if (!snap || !blocks || pot <= 0) return { rows, total: 0 };
    const supply = Number(maxSupply - this.reserves);
    let totalActive = 0;
    for (const members of snap.byPool.values()) for (const [, a] of members) totalActive += a;
    let poolBlocks = 0;
    for (const n of blocks.values()) poolBlocks += n;
    let total = 0;
    for (const [pool, members] of snap.byPool) {
      const p = this.pools[pool]!;
      const stake = members.reduce((s, [, a]) => s + a, 0);
      const produced = blocks.get(pool) ?? 0;
      if (produced === 0 || stake === 0 || poolBlocks === 0) continue;
      const expected = (poolBlocks * stake) / totalActive;
      const performance = Math.min(1, produced / Math.max(expected, 1e-9));
      const poolReward = Math.floor(pot * (stake / supply) * performance);
      if (poolReward <= 0) continue;
      const leaderCut = poolReward <= p.fixedCost
        ? poolReward
        : p.fixedCost + Math.floor((poolReward - p.fixedCost) * p.margin);
      const rest = poolReward - leaderCut;
      const owner = this.wallets[p.rewardWallet];
      if (owner?.registered && leaderCut > 0) {
        rows.push({ wallet: p.rewardWallet, type: "leader", amount: leaderCut, pool });
        total += leaderCut;
      }
      for (const [w, a] of members) {
        const amount = Math.floor((rest * a) / stake);
        if (amount > 0 && this.wallets[w]!.registered && !p.owners.includes(w)) {
          rows.push({ wallet: w, type: "member", amount, pool });
          total += amount;
        }
      }
    }
    return { rows, total };
  }

  private writeRewards(
    rows: ReturnType<ChainGenerator["computeRewards"]>["rows"],
    earned: number,
    apply: boolean,
  ) {
    for (const row of rows) {
      this.row("reward", [
        this.stakeAddressId(row.wallet),
        row.type,
        row.amount,
        earned + 2,
        this.pools[row.pool]!.id,
        earned,
      ]);
      if (apply) this.wallets[row.wallet]!.rewards += row.amount;
    }
  }

  /** Everything the ledger does entering `epoch`, written against that epoch's first block. */
  private epochBoundary(epoch: number, firstBlockId: number, firstSlot: number) {
    // 1. finish the previous epoch's books
    if (epoch > 0) {
      this.row("epoch_finalized", [
        this.id("epoch_finalized"),
        this.epochOutSum,
        this.feesByEpoch[epoch - 1] ?? 0,
        this.epochTxCount,
        this.epochBlockCount,
        epoch - 1,
        utc(this.epochStart),
        utc(this.epochEnd),
      ]);
    }
    this.epochOutSum = 0n;
    this.epochTxCount = 0;
    this.epochBlockCount = 0;
    // 2. parameters for the new epoch
    this.row(
      "epoch_param",
      epochParamValues(
        this.id("epoch_param"),
        epoch,
        this.r.hex(32),
        this.costModelId,
        firstBlockId,
      ) as unknown as Array<CopyValue>,
    );
    if (epoch === 0) {
      this.snapshots[0] = this.snapshot();
      return;
    }
    // 3. the reward update: monetary expansion plus the fees of epoch - 2
    const expansion = Number((this.reserves * 3n) / 1000n);
    const fees = this.feesByEpoch[epoch - 2] ?? 0;
    const pot = expansion + fees;
    const toTreasury = Math.floor(pot * protocol.treasuryGrowthRate);
    const { rows, total } = this.computeRewards(epoch - 2, pot - toTreasury);
    this.writeRewards(rows, epoch - 2, true);
    this.treasury += BigInt(toTreasury);
    this.reserves += BigInt(pot - toTreasury - total) - BigInt(expansion);
    // 4. pool retirements take effect: deposit refunds to the reward account
    for (const p of this.pools) {
      if (p.retiring === epoch && !p.retired) {
        p.retired = true;
        this.worldVersion++;
        this.depositsStake -= BigInt(protocol.poolDeposit);
        const owner = this.wallets[p.rewardWallet]!;
        if (owner.registered) {
          this.row("reward", [owner.stakeAddressId, "refund", protocol.poolDeposit, epoch, p.id, epoch - 1]);
          owner.rewards += protocol.poolDeposit;
        } else {
          this.treasury += BigInt(protocol.poolDeposit);
        }
      }
    }
    // 5. enacted governance: treasury withdrawals and their deposit refunds
    for (const prop of this.proposals) {
      if (prop.enactAt !== epoch) continue;
      const beneficiary = this.wallets[prop.beneficiary]!;
      const returner = this.wallets[prop.returnWallet]!;
      this.row("reward_rest", [
        this.stakeAddressId(prop.beneficiary),
        "treasury",
        prop.amount,
        epoch,
        epoch - 1,
      ]);
      this.row("reward_rest", [
        this.stakeAddressId(prop.returnWallet),
        "proposal_refund",
        prop.deposit,
        epoch,
        epoch - 1,
      ]);
      this.treasury -= BigInt(prop.amount);
      beneficiary.rewards += prop.amount;
      returner.rewards += prop.deposit;
      this.depositsProposal -= BigInt(prop.deposit);
    }
    // 6. stake distribution: the snapshot taken entering epoch - 1 is active now
    const active = this.snapshots[epoch - 1];
    if (active) this.writeEpochStake(epoch, active);
    this.snapshots[epoch] = this.snapshot();
    this.writeDrepDistr(epoch, this.snapshots[epoch]!);
    // 7. the pots, which always add up to the maximum supply
    const utxo = this.totalUtxo();
    const rewards = this.totalRewards();
    const feesPot = BigInt(this.feesByEpoch[epoch - 1] ?? 0);
    const sum = this.treasury + this.reserves + rewards + utxo + this.depositsStake + this.depositsDrep +
      this.depositsProposal + feesPot;
    if (sum !== maxSupply) throw new Error(`demo chain: ada_pots do not add up at epoch ${epoch}: ${sum}`);
    this.row("ada_pots", [
      this.id("ada_pots"),
      firstSlot,
      epoch,
      this.treasury,
      this.reserves,
      rewards,
      utxo,
      this.depositsStake,
      feesPot,
      firstBlockId,
      this.depositsDrep,
      this.depositsProposal,
    ]);
  }

  private writeDrepDistr(epoch: number, snap: { byDrep: Map<number, number> }) {
    for (const [d, amount] of snap.byDrep) {
      const drep = this.dreps[d]!;
      if (d >= 2 && !drep.registered) continue;
      this.row("drep_distr", [
        this.id("drep_distr"),
        drep.id,
        amount,
        epoch,
        d < 2 ? null : drep.lastActive + protocol.drepActivity,
      ]);
    }
  }

  /** The scheduled, one-off events of the chain's history, keyed by the block that carries them. */
  private schedule(totalBlocks: number) {
    const events = new Map<number, Array<() => boolean>>();
    const at = (blockNo: number, f: () => boolean) => {
      const list = events.get(blockNo) ?? [];
      list.push(f);
      events.set(blockNo, list);
    };
    const epochBlock = (epoch: number, fraction: number) =>
      Math.floor((epoch + fraction) * this.blocksPerEpoch);
    const poolCount = this.pools.length;
    this.pools.forEach((p, i) => {
      const roll = i / poolCount;
      const when = roll < 0.85
        ? epochBlock(0, 0.05 + 0.45 * this.r.float())
        : roll < 0.95
        ? epochBlock(1 + this.r.int(0, 1), this.r.float())
        : epochBlock(3, this.r.float());
      at(when, () => this.poolRegistration(p, false));
      if (this.r.chance(0.15)) {
        at(
          epochBlock(this.r.int(1, 4), this.r.float()),
          () => p.registered && !p.retired ? this.poolRegistration(p, true) : true,
        );
      }
      if (i % 12 === 5) {
        at(
          epochBlock(this.r.int(1, 3), this.r.float()),
          () => p.registered && !p.retired && p.retiring < 0 ? this.poolRetirement(p) : true,
        );
      }
    });
    // one pool announces retirement and then re-registers, which cancels it
    const comeback = this.pools[Math.min(7, poolCount - 1)]!;
    at(
      epochBlock(1, 0.3),
      () => comeback.registered && comeback.retiring < 0 ? this.poolRetirement(comeback) : true,
    );
    at(
      epochBlock(1, 0.6),
      () => comeback.registered && comeback.retiring >= 0 ? this.poolRegistration(comeback, true) : true,
    );
    this.dreps.forEach((d, i) => {
      if (i < 2) return;
      at(
        epochBlock(this.r.chance(0.8) ? 0 : 1, 0.1 + 0.8 * this.r.float()),
        () => this.drepCertificate(i, "register"),
      );
      if (this.r.chance(0.2)) {
        at(
          epochBlock(this.r.int(2, 4), this.r.float()),
          () => d.registered ? this.drepCertificate(i, "update") : true,
        );
      }
      if (i % 10 === 3) {
        at(
          epochBlock(this.r.int(3, 4), this.r.float()),
          () => d.registered ? this.drepCertificate(i, "deregister") : true,
        );
      }
    });
    at(epochBlock(1, 0.2), () => this.proposal("TreasuryWithdrawals"));
    for (let k = 0; k < 3; k++) {
      at(epochBlock(1 + k, 0.5 + 0.3 * this.r.float()), () => this.proposal("InfoAction"));
    }
    for (let k = 0; k < this.epochs; k++) {
      at(epochBlock(k, 0.5 + 0.4 * this.r.float()), () => this.failedScript());
    }
    return { events, totalBlocks };
  }

  /** Picks the kind of an ordinary transaction by the epoch's mix. */
  private randomTx(): boolean {
    const e = this.epoch;
    const roll = this.r.float() * 100;
    if (roll < 9 && e <= 3) return this.stakeRegDeleg();
    if (roll < 10.5 && e >= 1) return this.redelegate();
    if (roll < 13 && e >= 4) return this.withdrawOrDeregister(false);
    if (roll < 13.4 && e >= 2) return this.withdrawOrDeregister(true);
    if (roll < 15) return this.mint();
    if (roll < 15.5) return this.burn();
    if (roll < 17) return this.scriptLock();
    if (roll < 18) return this.scriptSpend();
    if (roll < 19 && e >= 1) return this.vote();
    return this.payment();
  }

  private leaderPick = { epoch: -1, pools: [] as Array<number>, cumulative: [] as Array<number> };

  /** The block's slot leader: a pool drawn by its active stake, or a genesis delegate before pools have stake. */
  private pickLeader(epoch: number): { leader: number; pool: number } {
    if (this.leaderPick.epoch !== epoch) {
      const snap = epoch >= 1 ? this.snapshots[epoch - 1] : undefined;
      const pools: Array<number> = [];
      const cumulative: Array<number> = [];
      let total = 0;
      for (const [pool, members] of snap?.byPool ?? []) {
        if (this.pools[pool]!.retired) continue;
        total += members.reduce((s, [, a]) => s + a, 0);
        pools.push(pool);
        cumulative.push(total);
      }
      this.leaderPick = { epoch, pools, cumulative };
    }
    const { pools, cumulative } = this.leaderPick;
    if (pools.length === 0) return { leader: this.r.pick(this.genesisLeaders), pool: -1 };
    const x = this.r.float() * cumulative[cumulative.length - 1]!;
    let lo = 0, hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    const pool = pools[lo]!;
    return { leader: this.pools[pool]!.slotLeaderId, pool };
  }

  /** Generates the whole chain. */
  async run(): Promise<GeneratedChain> {
    const started = this.net.systemStart.getTime();
    this.row("meta", [
      1,
      utc(this.net.systemStart),
      this.net.network,
      `cardano-data-service demo chain (seed ${this.net.seed}, scale ${this.scale})`,
    ]);
    this.writeGenesis();
    this.makeWallets();
    this.makePools();
    this.makeDreps();
    this.makeScripts();
    const tipFraction = 0.6;
    const blocksLastEpoch = Math.floor(this.blocksPerEpoch * tipFraction);
    const totalBlocks = (this.epochs - 1) * this.blocksPerEpoch + blocksLastEpoch;
    const { events } = this.schedule(totalBlocks);
    const txPerBlock = this.txsPerEpoch / this.blocksPerEpoch;
    let previous = this.blockId;
    let pointerWalletsMade = false;
    for (let n = 0; n < totalBlocks; n++) {
      const epoch = Math.floor(n / this.blocksPerEpoch);
      const i = n % this.blocksPerEpoch;
      const epochSlot = Math.floor((i + 0.1 + 0.8 * this.r.float()) * (epochLength / this.blocksPerEpoch));
      this.slot = epoch * epochLength + epochSlot;
      const time = new Date(started + this.slot * 1000);
      this.blockId = this.id("block");
      this.blockNo++;
      this.blockTxIndex = 0;
      this.blockSize = 0;
      if (i === 0) {
        this.epoch = epoch;
        this.epochBoundary(epoch, this.blockId, this.slot);
        this.epochStart = time;
        if (epoch === 1 && !pointerWalletsMade) {
          this.makePointerAddresses();
          pointerWalletsMade = true;
        }
      }
      const { leader, pool } = this.pickLeader(epoch);
      const scheduled = events.get(n) ?? [];
      for (const f of scheduled) f();
      const count = Math.max(0, Math.round(txPerBlock * 2 * this.r.float()));
      for (let k = 0; k < count; k++) {
        for (let attempt = 0; attempt < 4 && !this.randomTx(); attempt++);
      }
      const txCount = this.blockTxIndex;
      const p = pool >= 0 ? this.pools[pool]! : undefined;
      this.row("block", [
        this.blockId,
        b(this.r.hex(32)),
        epoch,
        this.slot,
        epochSlot,
        this.blockNo,
        previous,
        leader,
        Math.min(protocol.maxBlockSize, 860 + this.blockSize),
        utc(time),
        txCount,
        10,
        0,
        enc.vrfKeyBech32(p ? p.vrfKey : this.r.hex(32)),
        p ? b(p.opCert) : b(this.r.hex(32)),
        p?.opCertCounter ?? 0,
      ]);
      if (pool >= 0) {
        const byPool = this.blocksByPool[epoch] ?? new Map<number, number>();
        byPool.set(pool, (byPool.get(pool) ?? 0) + 1);
        this.blocksByPool[epoch] = byPool;
      }
      this.epochTxCount += txCount;
      this.epochBlockCount++;
      this.epochEnd = time;
      previous = this.blockId;
      if (this.options.onBlock && n % 16 === 15) await this.options.onBlock();
    }
    // Rows db-sync already holds at the tip for the next boundary: the next epoch's stake distribution and the
    // rewards earned in the previous epoch (spendable only from the next one, so every query must filter).
    const tipEpoch = this.epochs - 1;
    this.writeEpochStake(tipEpoch + 1, this.snapshots[tipEpoch]!);
    const expansion = Number((this.reserves * 3n) / 1000n);
    const pending = this.computeRewards(
      tipEpoch - 1,
      Math.floor((expansion + (this.feesByEpoch[tipEpoch - 1] ?? 0)) * 0.8),
    );
    this.writeRewards(pending.rows, tipEpoch - 1, false);
    return {
      tipBlockNo: this.blockNo,
      tipEpoch,
      exchangeAddress: this.addrText[this.wallets[this.exchangeWallet]!.address]!,
    };
  }

  /** Some wallets move to pointer addresses that point at their own stake registration certificate. */
  private makePointerAddresses() {
    let made = 0;
    const target = Math.max(10, Math.round(this.wallets.length * 0.01));
    for (let w = 0; w < this.wallets.length && made < target; w++) {
      const wallet = this.wallets[w]!;
      if (!wallet.registration || w === this.exchangeWallet || this.addrScript[wallet.address]) continue;
      if (this.pools.some((p) => p.owners.includes(w))) continue;
      wallet.address = this.addAddress(
        enc.pointerAddress(this.net.networkId, wallet.payment, wallet.registration),
        wallet.payment,
        false,
        -1,
        w,
      );
      made++;
    }
  }
}
