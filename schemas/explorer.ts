/**
 * Resources of the explorer and public endpoints (spec: "Resources and their fields"). Required fields are
 * required here; the others are optional, and nullable where the spec says so. Lovelace are decimal strings.
 */
import { Schema } from "effect";
import { DateTime, Hash32, Lovelace, Quantity } from "./primitives.ts";

const optionalNullable = <A, I>(s: Schema.Schema<A, I>) => Schema.optional(Schema.NullOr(s));

export const Token = Schema.Struct({
  policyId: Schema.String,
  assetName: Schema.String,
  assetNameHex: Schema.String,
  quantity: Quantity,
  fingerprint: optionalNullable(Schema.String),
}).annotations({ identifier: "Token" });

export const TransactionInput = Schema.Struct({
  txHash: Hash32,
  outputIndex: Schema.Int,
  address: Schema.String,
  value: Lovelace,
  tokens: Schema.optional(Schema.Array(Token)),
  datumHash: optionalNullable(Schema.String),
}).annotations({ identifier: "TransactionInput" });

export const TransactionOutput = Schema.Struct({
  index: Schema.Int,
  address: Schema.String,
  value: Lovelace,
  tokens: Schema.optional(Schema.Array(Token)),
  datumHash: optionalNullable(Schema.String),
  inlineDatum: optionalNullable(Schema.String),
  referenceScript: optionalNullable(Schema.String),
  isSpent: Schema.Boolean,
  spentByTxHash: optionalNullable(Schema.String),
}).annotations({ identifier: "TransactionOutput" });

export const CertificateType = Schema.Literal(
  "stake_registration",
  "stake_deregistration",
  "delegation",
  "pool_registration",
  "pool_retirement",
  "drep_registration",
  "drep_deregistration",
  "vote_delegation",
  "stake_vote_delegation",
);

export const Certificate = Schema.Struct({
  type: CertificateType,
  stakeAddress: optionalNullable(Schema.String),
  poolId: optionalNullable(Schema.String),
  poolTicker: optionalNullable(Schema.String),
  epoch: optionalNullable(Schema.Int),
}).annotations({ identifier: "Certificate" });

export const Withdrawal = Schema.Struct({ stakeAddress: Schema.String, amount: Lovelace }).annotations({
  identifier: "Withdrawal",
});

export const Mint = Schema.Struct({
  policyId: Schema.String,
  assetName: Schema.String,
  assetNameHex: Schema.String,
  quantity: Quantity,
});

export const Transaction = Schema.Struct({
  hash: Hash32,
  blockNo: Schema.Int,
  blockHash: optionalNullable(Schema.String),
  epochNo: optionalNullable(Schema.Int),
  blockTime: DateTime,
  slotNo: Schema.Int,
  fee: Lovelace,
  totalOutput: Lovelace,
  deposit: Lovelace.annotations({
    description:
      "deposits the transaction paid, never negative: its stake registrations' (stake_registration." +
      "deposit, else the epoch's key_deposit), new pool registrations' (pool_update.deposit), DRep " +
      "registrations' (drep_registration.deposit > 0) and governance proposals' (gov_action_proposal.deposit); " +
      "at least db-sync's net tx.deposit. deposit - depositRefund = tx.deposit",
  }),
  depositRefund: Lovelace.annotations({
    description: "not in the spec: deposits the transaction got back (stake and DRep deregistrations), " +
      "deposit - tx.deposit (db-sync's net deposit, negative when refunds exceed deposits)",
  }),
  size: Schema.Int,
  validContract: Schema.Boolean,
  scriptSize: Schema.Int,
  invalidBefore: optionalNullable(Schema.Int),
  invalidHereafter: optionalNullable(Schema.Int),
  inputs: Schema.Array(TransactionInput),
  outputs: Schema.Array(TransactionOutput),
  certificates: Schema.optional(Schema.Array(Certificate)),
  withdrawals: Schema.optional(Schema.Array(Withdrawal)),
  mints: Schema.optional(Schema.Array(Mint)),
  collateral: Schema.optional(Schema.Array(TransactionInput)),
  metadata: Schema.optional(Schema.Array(Schema.Struct({ key: Schema.String, json: Schema.Unknown }))),
}).annotations({ identifier: "Transaction" });

export const Block = Schema.Struct({
  blockNo: Schema.Int,
  hash: Hash32,
  slotNo: Schema.Int,
  epochNo: Schema.Int,
  epochSlotNo: Schema.Int,
  time: DateTime,
  txCount: Schema.Int,
  size: Schema.Int,
  poolId: optionalNullable(Schema.String),
  poolTicker: optionalNullable(Schema.String),
  poolName: optionalNullable(Schema.String),
  totalOutput: Lovelace,
  totalFees: Lovelace,
}).annotations({ identifier: "Block" });

/**
 * A transaction as listed in its block (`/block/{id}/txs`): enough to pick one, the rest at `/tx/{hash}`. Not a
 * resource of the spec; the Block resource's field list is fixed, so a block reaches its transactions here.
 */
export const BlockTransaction = Schema.Struct({
  hash: Hash32,
  blockIndex: Schema.Int.annotations({ description: "the transaction's position in its block, from 0" }),
  fee: Lovelace,
  totalOutput: Lovelace,
  deposit: Schema.String.pipe(Schema.pattern(/^-?\d+$/)).annotations({
    description: "deposits paid minus deposits refunded, in lovelace (negative for a net refund)",
  }),
  size: Schema.Int.annotations({ description: "bytes" }),
  validContract: Schema.Boolean.annotations({
    description: "false for a transaction whose scripts failed (its collateral was taken)",
  }),
}).annotations({ identifier: "BlockTransaction" });

export const BlockSummary = Schema.Struct({
  blockNo: Schema.Int,
  hash: Hash32,
  slotNo: Schema.Int,
  time: DateTime,
  txCount: Schema.Int,
  size: optionalNullable(Schema.Int),
  poolTicker: optionalNullable(Schema.String),
  totalFees: Schema.optional(Lovelace),
  totalOutput: Schema.optional(Lovelace),
}).annotations({ identifier: "BlockSummary" });

export const NetworkStats = Schema.Struct({
  blockHeight: Schema.Int,
  slotNo: Schema.Int,
  epochNo: Schema.Int,
  epochProgress: Schema.Number,
  totalTransactions: Schema.Int,
  circulatingSupply: Lovelace,
  treasury: Lovelace,
  reserves: Lovelace,
  activeStake: Lovelace,
  activePools: Schema.Int,
  activeDelegators: Schema.Int,
}).annotations({ identifier: "NetworkStats" });

export const PoolRelay = Schema.Struct({
  dns: Schema.NullOr(Schema.String),
  ipv4: Schema.NullOr(Schema.String),
  ipv6: Schema.NullOr(Schema.String),
  port: Schema.Int.annotations({ description: "0 for a DNS SRV relay, which names no port" }),
}).annotations({ identifier: "PoolRelay" });

export const PoolInfo = Schema.Struct({
  poolId: Schema.String.annotations({ description: "the pool's 28-byte key hash in hex" }),
  poolIdBech32: Schema.String.annotations({
    description: "pool1… on every network, as the ledger, CIP-5 and db-sync's pool_hash.view write it",
  }),
  ticker: optionalNullable(Schema.String),
  name: optionalNullable(Schema.String),
  description: optionalNullable(Schema.String),
  homepage: optionalNullable(Schema.String),
  logo: optionalNullable(Schema.String).annotations({
    description:
      "URL of the pool's logo from its off-chain metadata as db-sync fetched it (off_chain_pool_data." +
      "json): the first http(s) URL among `logo`, CIP-6 extended `pool.media_assets.logo_png`, " +
      "`info.url_png_logo`, then the 64x64 icons `pool.media_assets.icon_png_64x64` and " +
      "`info.url_png_icon_64x64`; null when it names none",
  }),
  liveStake: Lovelace.annotations({ description: "stake of the newest completed stake snapshot" }),
  activeStake: Lovelace.annotations({ description: "stake active in the current epoch" }),
  saturation: Schema.Number.pipe(Schema.between(0, 1)).annotations({
    description: "saturationRatio capped at 1.0: 0.0 to 1.0, 1.0 for a saturated or oversaturated pool",
  }),
  saturationRatio: Schema.Number.pipe(Schema.nonNegative()).annotations({
    description: "not in the spec: liveStake / saturation point, uncapped (above 1.0 for an oversaturated " +
      "pool); the saturation point is (45e15 lovelace - reserves of the newest ada_pots) / k of the newest " +
      "epoch_param",
  }),
  delegatorCount: Schema.Int,
  pledge: Lovelace,
  pledgeMet: Schema.Boolean,
  margin: Schema.Number,
  fixedCost: Lovelace,
  lifetimeBlocks: Schema.Int,
  epochBlocks: Schema.Int,
  lifetimeRewards: Schema.optional(Lovelace),
  ros30d: Schema.optional(Schema.Number).annotations({
    description: "30-day return on stake, annualized: over the 6 newest epochs E whose rewards are final " +
      "(E + 2 <= the current epoch), sum of the pool's member rewards earned in E (its delegators' rewards, " +
      "db-sync reward.type 'member') / sum of the pool's active stake in E (epoch_stake), times 73 (365 days " +
      "/ 5-day epochs, not compounded); 0.05 = 5 % a year. Absent when the pool had no active stake then",
  }),
  rewardAddress: Schema.String,
  owners: Schema.Array(Schema.String),
  relays: Schema.Array(PoolRelay),
  retiring: optionalNullable(Schema.Int),
  vrfKeyHash: Schema.String,
  registeredEpoch: Schema.Int,
}).annotations({ identifier: "PoolInfo" });

export const AddressInfo = Schema.Struct({
  address: Schema.String,
  type: Schema.Literal("base", "enterprise", "pointer", "reward", "byron", "script"),
  stakeAddress: optionalNullable(Schema.String),
  balance: Lovelace,
  tokenCount: Schema.Int,
  utxoCount: Schema.Int,
  firstSeen: optionalNullable(DateTime),
  lastSeen: optionalNullable(DateTime),
}).annotations({ identifier: "AddressInfo" });

export const AddressUtxo = Schema.Struct({
  txHash: Hash32,
  outputIndex: Schema.Int,
  value: Lovelace,
  tokens: Schema.Array(Token),
  blockNo: Schema.Int,
  blockTime: DateTime,
  datumHash: optionalNullable(Schema.String),
}).annotations({ identifier: "AddressUtxo" });

export const DRep = Schema.Struct({
  drepIdBech32: Schema.String.annotations({
    description: "CIP-129 drep1… id, or drep_always_abstain / drep_always_no_confidence",
  }),
  type: Schema.Literal("registered", "abstain", "noConfidence"),
  name: optionalNullable(Schema.String),
  givenName: optionalNullable(Schema.String),
  isActive: Schema.Boolean,
  votingPower: Schema.optional(Lovelace),
  delegatorCount: Schema.optional(Schema.Int),
  votesCount: Schema.optional(Schema.Int),
}).annotations({ identifier: "DRep" });
