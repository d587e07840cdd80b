/**
 * The shapes the demo chain's ledger simulation keeps: wallets, pools, DReps, proposals, token policies, scripts
 * and stake snapshots, and the outputs and certificates a transaction is built from.
 */

export type AssetBundle = Map<number, bigint>;

export interface Wallet {
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

export interface Pool {
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

export interface Drep {
  readonly hash: string;
  readonly id: number;
  registered: boolean;
  everRegistered: boolean;
  lastActive: number;
  wallet: number;
}

export interface Proposal {
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
export interface NewOutput {
  address: number;
  value: number;
  assets?: AssetBundle;
  datum?: { hash: string; inlineId: number | null };
  referenceScriptId?: number;
  spendable?: "wallet" | "script" | "never";
}

/** The running certificate index of the transaction being written. */
export interface Certs {
  cert: number;
}

/** A token policy minted by one wallet (a signature script), with the multi_asset ids minted under it. */
export interface Policy {
  readonly hash: string;
  readonly json: unknown;
  readonly size: number;
  readonly wallet: number;
  scriptId: number;
  readonly assets: Array<number>;
}

/** A Plutus datum (or redeemer) value: its hash, CBOR and detailed-schema JSON. */
export interface PlutusDatum {
  readonly hash: string;
  readonly cbor: string;
  readonly json: unknown;
}

/** The always-succeeds Plutus V2 spending script and its script address. */
export interface LockScript {
  hash: string;
  bytes: string;
  size: number;
  scriptId: number;
  address: number;
}

/** The Plutus V3 script carried as a reference script, and the outputs holding it. */
export interface ReferenceScript {
  hash: string;
  bytes: string;
  size: number;
  scriptId: number;
  outputs: Array<number>;
}

/** A stake snapshot: per pool, its members' (wallet, lovelace); per DRep, the lovelace delegated to it. */
export interface StakeSnapshot {
  readonly byPool: Map<number, Array<[number, number]>>;
  readonly byDrep: Map<number, number>;
}
