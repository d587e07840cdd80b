/**
 * One transaction in full for the explorer (`/v2/explorer/{network}/tx/{hash}`; shared/notes/dbsync.md §6), in ONE
 * statement that builds the lists in the database: the header by `unique_tx` and the block's primary key, and per
 * child kind (inputs, outputs, collateral, certificates, withdrawals, mints, metadata) a correlated json_agg over
 * an index lookup by the transaction's id, never one lookup per row (one round trip instead of about ten; the
 * embedded database runs one statement at a time):
 *   inputs       tx_in by tx_in_id (idx_tx_in_tx_in_id) -> tx_out by (tx_id, index) (unique_txout) [enable], or
 *                tx_out by consumed_by_tx_id (idx_tx_out_consumed_by_tx_id) [consumed/prune/bootstrap]
 *   outputs      tx_out by tx_id (idx_tx_out_tx_id/unique_txout); datum, script by primary key; spent by:
 *                tx_in by (tx_out_id, tx_out_index), index only (idx_cds_tx_in_tx_out_id_tx_out_index_tx_in_id)
 *                [enable], or
 *                tx_out.consumed_by_tx_id -> tx primary key [other modes]
 *   tokens       ma_tx_out by tx_out_id (idx_ma_tx_out_tx_out_id), inside the input/output lists
 *   collateral   collateral_tx_in by tx_in_id (idx_cds_collateral_tx_in_tx_in_id) -> unique_txout
 *   certificates stake_registration, stake_deregistration, delegation (idx_*_tx_id), delegation_vote,
 *                drep_registration (idx_cds_*_tx_id), pool_update (idx_pool_update_registered_tx_id),
 *                pool_retire (idx_pool_retire_announced_tx_id): one UNION ALL
 *   withdrawals  idx_withdrawal_tx_id; mints idx_ma_tx_mint_tx_id; metadata idx_tx_metadata_tx_id
 *
 * Decisions:
 * - Phase-2 failed transactions (`valid_contract` false): db-sync stores only what the chain applied. Its tx_in
 *   rows are the COLLATERAL inputs (consumed), its only tx_out is the collateral return (at index = number of
 *   body outputs), `fee` is the collateral taken; the body's inputs, outputs, certificates, withdrawals, mints
 *   and metadata are not stored. We report exactly that: `inputs` is empty (the body's inputs were not spent),
 *   `collateral` lists the consumed collateral inputs (the tx_in rows), `outputs` holds the collateral return as
 *   the one output the transaction created, and the other lists are empty. `validContract: false` tells them apart.
 * - Reference inputs are not part of the spec's Transaction and are not reported (they are not in `inputs`).
 *   `transactionDetailByHash` (a UTxO-level view: Blockfrost's /txs/{hash}/utxos) reads them too
 *   (idx_cds_reference_tx_in_tx_in_id), with a valid transaction's collateral return (collateral_tx_out,
 *   idx_cds_collateral_tx_out_tx_id), its redeemers (idx_cds_redeemer_tx_id) and MIR certificates (reserve and
 *   treasury, idx_*_tx_id), in the same statement as the rest.
 * - Certificates, ordered by cert_index, in the spec's nine types. A Conway combined certificate writes several
 *   rows with the same (tx_id, cert_index): delegation + delegation_vote is ONE `stake_vote_delegation`; a
 *   registration combined with a delegation is reported as `stake_registration` followed by the delegation part
 *   (`delegation`, `vote_delegation` or `stake_vote_delegation`), both from the same certificate.
 *   drep_registration: deposit > 0 `drep_registration`, < 0 `drep_deregistration`, NULL (a DRep UPDATE,
 *   which the spec has no type for) also `drep_registration`: an update re-states the registration's anchor,
 *   and dropping it would hide a certificate. pool_update (registration or re-registration) is
 *   `pool_registration`. Certificates outside the spec's types (committee hot key authorisation/resignation,
 *   MIR) are not reported. `epoch`: the epoch the certificate takes effect: stake (de)registration the
 *   transaction's epoch (db-sync's epoch_no), delegation and pool registration the active epoch, pool
 *   retirement the retiring epoch; none for DRep and vote certificates. The spec's Certificate has no DRep
 *   field, so DRep and vote certificates carry only the stake address where there is one.
 * - Genesis distribution transactions sit in db-sync's genesis pseudo-block (no block number, slot or epoch):
 *   reported with blockNo 0 and slotNo 0 (the chain's origin), blockHash and epochNo null.
 * - `deposit` (the spec's Lovelace: never negative) is the deposits the transaction PAID, `depositRefund` the
 *   deposits it got back, so that deposit - depositRefund = db-sync's tx.deposit (net; negative when refunds
 *   exceed deposits):
 *     paid   = stake_registration.deposit (or, NULL, the key_deposit of its epoch) + pool_update.deposit (db-sync
 *              writes it for a new registration only, NULL for a re-registration) + drep_registration.deposit > 0
 *              + gov_action_proposal.deposit, all of the transaction's certificates and proposals;
 *     deposit       = max(paid, net)   (never below net, so the refund is never negative)
 *     depositRefund = deposit - net    (stake and DRep deregistrations: what they return)
 *   The net: tx.deposit, or when NULL (db-sync with the ledger disabled) value conservation (inputs +
 *   withdrawals - outputs - fee - treasury donation) when every input is resolvable, else 0.
 * - Under prune/bootstrap db-sync deletes spent outputs: inputs (and collateral) whose output is gone, and this
 *   transaction's own outputs that were spent and pruned, cannot be reported and are missing from the lists.
 * - referenceScript: the script's bytes as hex; Plutus scripts as db-sync stores them (`script.bytes`), native
 *   scripts (db-sync keeps only their JSON) re-encoded to their CBOR (the ledger's hash of it is the script hash).
 * - Asset names: UTF-8 text when the bytes are valid UTF-8 without control characters, else hex.
 * - Lists are always present, empty when there is nothing (tokens of an ADA-only output, a transaction without
 *   certificates...); nullable values are null (datumHash, inlineDatum, referenceScript, spentByTxHash...).
 */
import { hex } from "@scure/base";
import type { SqlClient } from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import type { Fragment } from "@effect/sql/Statement";
import { Effect } from "effect";
import type * as Explorer from "@schemas/explorer.ts";
import type { SpentTracking } from "@src/dbsync/detect.ts";
import { assetNameText } from "@src/domain/asset_name.ts";

export type Token = typeof Explorer.Token.Type;
export type TransactionInput = typeof Explorer.TransactionInput.Type;
export type TransactionOutput = typeof Explorer.TransactionOutput.Type;
export type Certificate = typeof Explorer.Certificate.Type;
export type Withdrawal = typeof Explorer.Withdrawal.Type;
export type Mint = typeof Explorer.Mint.Type;
export type Transaction = typeof Explorer.Transaction.Type;

interface HeaderRow {
  readonly id: string;
  readonly hash: string;
  readonly blockNo: number | null;
  readonly blockHash: string;
  readonly epochNo: number | null;
  readonly blockTime: Date;
  readonly slotNo: string | null;
  readonly fee: string;
  readonly totalOutput: string;
  readonly deposit: string | null;
  readonly treasuryDonation: string;
  readonly size: number;
  readonly validContract: boolean;
  readonly scriptSize: number;
  readonly invalidBefore: string | null;
  readonly invalidHereafter: string | null;
  readonly blockIndex: number;
}

interface TokenJson {
  readonly policyId: string;
  readonly assetNameHex: string;
  readonly quantity: string;
  readonly fingerprint: string;
}

interface InputRow {
  readonly txHash: string;
  readonly outputIndex: number;
  readonly address: string;
  readonly value: string;
  readonly datumHash: string | null;
  readonly inlineDatum: string | null;
  readonly referenceScriptHash: string | null;
  readonly tokens: ReadonlyArray<TokenJson> | null;
}

interface OutputRow {
  readonly index: number;
  readonly address: string;
  readonly value: string;
  readonly datumHash: string | null;
  readonly inlineDatum: string | null;
  readonly scriptBytes: string | null;
  readonly scriptJson: unknown;
  readonly referenceScriptHash: string | null;
  readonly spentByTxHash: string | null;
  readonly tokens: ReadonlyArray<TokenJson> | null;
}

type CertKind =
  | "stake_registration"
  | "stake_deregistration"
  | "delegation"
  | "vote_delegation"
  | "pool_registration"
  | "pool_retirement"
  | "drep";

interface CertRow {
  readonly kind: CertKind;
  readonly certIndex: number;
  readonly stakeAddress: string | null;
  readonly poolId: string | null;
  readonly poolTicker: string | null;
  readonly epoch: number | null;
  readonly deposit: string | null;
}

/** The tokens of output `o` as a JSON array (null when none), inside the statement that reads the outputs. */
const tokensOfO = (sql: SqlClient) =>
  sql`(select json_agg(json_build_object('policyId', encode(m.policy, 'hex'), 'assetNameHex', encode(m.name, 'hex'),
                 'quantity', mo.quantity::text, 'fingerprint', m.fingerprint) order by mo.id)
       from ma_tx_out mo join multi_asset m on m.id = mo.ident where mo.tx_out_id = o.id)`;

/** The header's columns, of transaction `x` in block `xb`. */
const headerColumns = (sql: SqlClient) =>
  sql`x.id::text as id, encode(x.hash, 'hex') as hash, xb.block_no as "blockNo",
      encode(xb.hash, 'hex') as "blockHash", xb.epoch_no as "epochNo", xb.time as "blockTime",
      xb.slot_no::text as "slotNo", x.fee::text as fee, x.out_sum::text as "totalOutput",
      x.deposit::text as deposit, x.treasury_donation::text as "treasuryDonation", x.size,
      x.valid_contract as "validContract", x.script_size as "scriptSize",
      x.invalid_before::text as "invalidBefore", x.invalid_hereafter::text as "invalidHereafter",
      x.block_index as "blockIndex"`;

/** A JSON array of `object` over the rows of `from` in `order`; `[]` when there are none. */
const jsonList = (sql: SqlClient, object: Fragment, from: Fragment, order: Fragment) =>
  sql`(select coalesce(json_agg(${object} order by ${order}), '[]'::json) ${from})`;

/** A spent, collateral or reference input (InputRow): the output `o` it resolves to, of transaction `st`. */
const inputObject = (sql: SqlClient) =>
  sql`json_build_object('txHash', encode(st.hash, 'hex'), 'outputIndex', o.index, 'address', o.address,
        'value', o.value::text, 'datumHash', encode(o.data_hash, 'hex'),
        'inlineDatum', (select encode(d.bytes, 'hex') from datum d where d.id = o.inline_datum_id),
        'referenceScriptHash', (select encode(s.hash, 'hex') from script s where s.id = o.reference_script_id),
        'tokens', ${tokensOfO(sql)})`;

/**
 * What the transaction `x` consumed, resolved to the outputs: its inputs, or for a phase-2 failure its
 * collateral. Ordered as the ledger orders a transaction's inputs (by output reference: transaction hash, then
 * index).
 */
const consumed = (sql: SqlClient, spent: SpentTracking) =>
  jsonList(
    sql,
    inputObject(sql),
    spent === "enable"
      ? sql`from tx_in i
            join tx_out o on o.tx_id = i.tx_out_id and o.index = i.tx_out_index
            join tx st on st.id = o.tx_id
            where i.tx_in_id = x.id`
      : sql`from tx_out o join tx st on st.id = o.tx_id where o.consumed_by_tx_id = x.id`,
    sql`st.hash, o.index`,
  );

/**
 * Collateral inputs of a valid transaction (only stored with db-sync's plutus option on, the default), or its
 * reference inputs (idx_cds_reference_tx_in_tx_in_id): both resolved through unique_txout.
 */
const referencedInputs = (sql: SqlClient, table: "collateral" | "reference") =>
  jsonList(
    sql,
    inputObject(sql),
    sql`from ${table === "collateral" ? sql`collateral_tx_in` : sql`reference_tx_in`} c
        join tx_out o on o.tx_id = c.tx_out_id and o.index = c.tx_out_index
        join tx st on st.id = o.tx_id
        where c.tx_in_id = x.id and ${table === "collateral" ? sql`x.valid_contract` : sql`true`}`,
    sql`st.hash, o.index`,
  );

/**
 * The transaction's outputs (OutputRow); datum, script and spender probed per output by primary key (lateral, no
 * join plan). `collateral_tx_out` (idx_cds_collateral_tx_out_tx_id): a valid transaction's collateral return,
 * which exists only on paper (never spent, no ma_tx_out rows: db-sync keeps its tokens as text only).
 */
const outputs = (sql: SqlClient, spent: SpentTracking, table: "tx_out" | "collateral_tx_out") => {
  const spentBy = table === "collateral_tx_out"
    ? sql`left join lateral (select null::bytea as hash) sp on true`
    : spent === "enable"
    ? sql`left join lateral (select s.hash from tx_in i join tx s on s.id = i.tx_in_id
                             where i.tx_out_id = o.tx_id and i.tx_out_index = o.index limit 1) sp on true`
    : sql`left join tx sp on sp.id = o.consumed_by_tx_id`;
  const from = table === "tx_out" ? sql`tx_out o` : sql`collateral_tx_out o`;
  const tokens = table === "tx_out" ? tokensOfO(sql) : sql`null::json`;
  return jsonList(
    sql,
    sql`json_build_object('index', o.index, 'address', o.address, 'value', o.value::text,
          'datumHash', encode(o.data_hash, 'hex'), 'inlineDatum', encode(d.bytes, 'hex'),
          'scriptBytes', encode(s.bytes, 'hex'), 'scriptJson', s.json, 'referenceScriptHash', encode(s.hash, 'hex'),
          'spentByTxHash', encode(sp.hash, 'hex'), 'tokens', ${tokens})`,
    sql`from ${from}
        left join lateral (select d.bytes from datum d where d.id = o.inline_datum_id limit 1) d on true
        left join lateral (select s.bytes, s.json, s.hash from script s where s.id = o.reference_script_id limit 1) s
          on true
        ${spentBy}
        where o.tx_id = x.id ${table === "collateral_tx_out" ? sql`and x.valid_contract` : sql``}`,
    sql`o.index`,
  );
};

/** The newest off-chain ticker of pool `p` (unique_off_chain_pool_data leads with pool_id). */
const tickerOfP = (sql: SqlClient) =>
  sql`(select o.ticker_name from off_chain_pool_data o where o.pool_id = p.id order by o.id desc limit 1)`;

/**
 * The certificates' rows (CertRow), of every kind, in cert_index order; `deposit` what a stake registration (its
 * epoch's key_deposit when db-sync wrote none) or a pool registration paid, a DRep certificate's signed deposit.
 */
const certificateRows = (sql: SqlClient) =>
  sql`
    (select coalesce(json_agg(c order by c."certIndex"), '[]'::json) from (
      select 'stake_registration' as kind, r.cert_index as "certIndex", a.view as "stakeAddress",
             null::text as "poolId", null::text as "poolTicker", r.epoch_no::int as epoch,
             coalesce(r.deposit, (select p.key_deposit from epoch_param p where p.epoch_no = r.epoch_no))::text
               as deposit
      from stake_registration r join stake_address a on a.id = r.addr_id where r.tx_id = x.id
      union all
      select 'stake_deregistration', r.cert_index, a.view, null, null, r.epoch_no::int, null
      from stake_deregistration r join stake_address a on a.id = r.addr_id where r.tx_id = x.id
      union all
      select 'delegation', r.cert_index, a.view, p.view, ${tickerOfP(sql)},
             r.active_epoch_no::int, null
      from delegation r join stake_address a on a.id = r.addr_id join pool_hash p on p.id = r.pool_hash_id
      where r.tx_id = x.id
      union all
      select 'vote_delegation', r.cert_index, a.view, null, null, null, null
      from delegation_vote r join stake_address a on a.id = r.addr_id where r.tx_id = x.id
      union all
      select 'pool_registration', r.cert_index, null, p.view, ${tickerOfP(sql)},
             r.active_epoch_no::int, r.deposit::text
      from pool_update r join pool_hash p on p.id = r.hash_id where r.registered_tx_id = x.id
      union all
      select 'pool_retirement', r.cert_index, null, p.view, ${tickerOfP(sql)},
             r.retiring_epoch::int, null
      from pool_retire r join pool_hash p on p.id = r.hash_id where r.announced_tx_id = x.id
      union all
      select 'drep', r.cert_index, null, null, null, null, r.deposit::text
      from drep_registration r where r.tx_id = x.id
    ) c)`;

/** The deposits the transaction's proposals paid, in lovelace (its certificates' are in their rows). */
const proposalDeposits = (sql: SqlClient) =>
  sql`coalesce((select sum(g.deposit) from gov_action_proposal g where g.tx_id = x.id), 0)::text`;

/**
 * The deposits the transaction paid (see the module comment): its certificates' from their rows (read once, for
 * the certificates and for this), then its proposals'.
 */
const depositsPaid = (certRows: ReadonlyArray<CertRow>, proposals: string): bigint =>
  certRows.reduce(
    (sum, r) =>
      r.deposit !== null && (r.kind !== "drep" || !r.deposit.startsWith("-")) ? sum + BigInt(r.deposit) : sum,
    BigInt(proposals),
  );

/** deposit (paid) and depositRefund (returned) from the paid sum and the net: deposit - depositRefund = net. */
export const splitDeposit = (paid: bigint, net: bigint): { deposit: string; depositRefund: string } => {
  const deposit = paid > net ? paid : net;
  return { deposit: deposit.toString(), depositRefund: (deposit - net).toString() };
};

const withdrawals = (sql: SqlClient) =>
  jsonList(
    sql,
    sql`json_build_object('stakeAddress', a.view, 'amount', w.amount::text)`,
    sql`from withdrawal w join stake_address a on a.id = w.addr_id where w.tx_id = x.id`,
    sql`w.id`,
  );

const mints = (sql: SqlClient) =>
  jsonList(
    sql,
    sql`json_build_object('policyId', encode(m.policy, 'hex'), 'assetNameHex', encode(m.name, 'hex'),
          'quantity', t.quantity::text)`,
    sql`from ma_tx_mint t join multi_asset m on m.id = t.ident where t.tx_id = x.id`,
    sql`t.id`,
  );

const metadata = (sql: SqlClient) =>
  jsonList(
    sql,
    sql`json_build_object('key', m.key::text, 'json', m.json)`,
    sql`from tx_metadata m where m.tx_id = x.id`,
    sql`m.id`,
  );

const toToken = (t: TokenJson): Token => ({
  policyId: t.policyId,
  assetName: assetNameText(t.assetNameHex),
  assetNameHex: t.assetNameHex,
  quantity: t.quantity,
  fingerprint: t.fingerprint,
});

const toInput = (r: InputRow): TransactionInput => ({
  txHash: r.txHash,
  outputIndex: r.outputIndex,
  address: r.address,
  value: r.value,
  tokens: (r.tokens ?? []).map(toToken),
  datumHash: r.datumHash,
});

const toOutput = (r: OutputRow): TransactionOutput => ({
  index: r.index,
  address: r.address,
  value: r.value,
  tokens: (r.tokens ?? []).map(toToken),
  datumHash: r.datumHash,
  inlineDatum: r.inlineDatum,
  referenceScript: r.scriptBytes ?? (r.scriptJson == null ? null : nativeScriptCbor(r.scriptJson)),
  isSpent: r.spentByTxHash !== null,
  spentByTxHash: r.spentByTxHash,
});

/** The rows of one cert_index -> the spec's certificates (see the module comment for combined certificates). */
const toCertificates = (rows: ReadonlyArray<CertRow>): Array<Certificate> => {
  const of = (kind: CertKind) => rows.find((r) => r.kind === kind);
  const out: Array<Certificate> = [];
  const registration = of("stake_registration");
  if (registration) {
    out.push({
      type: "stake_registration",
      stakeAddress: registration.stakeAddress,
      epoch: registration.epoch,
    });
  }
  const delegation = of("delegation");
  const vote = of("vote_delegation");
  if (delegation) {
    out.push({
      type: vote ? "stake_vote_delegation" : "delegation",
      stakeAddress: delegation.stakeAddress,
      poolId: delegation.poolId,
      poolTicker: delegation.poolTicker,
      epoch: delegation.epoch,
    });
  } else if (vote) {
    out.push({ type: "vote_delegation", stakeAddress: vote.stakeAddress });
  }
  const deregistration = of("stake_deregistration");
  if (deregistration) {
    out.push({
      type: "stake_deregistration",
      stakeAddress: deregistration.stakeAddress,
      epoch: deregistration.epoch,
    });
  }
  for (const r of rows) {
    if (r.kind === "pool_registration" || r.kind === "pool_retirement") {
      out.push({ type: r.kind, poolId: r.poolId, poolTicker: r.poolTicker, epoch: r.epoch });
    } else if (r.kind === "drep") {
      out.push({
        type: r.deposit !== null && r.deposit.startsWith("-") ? "drep_deregistration" : "drep_registration",
      });
    }
  }
  return out;
};

const certificates = (rows: ReadonlyArray<CertRow>): Array<Certificate> => {
  const byIndex = new Map<number, Array<CertRow>>();
  for (const r of rows) byIndex.set(r.certIndex, [...(byIndex.get(r.certIndex) ?? []), r]);
  return [...byIndex.keys()].sort((a, b) => a - b).flatMap((i) => toCertificates(byIndex.get(i)!));
};

const numberOrNull = (text: string | null): number | null => (text === null ? null : Number(text));

const hashPattern = /^[0-9a-fA-F]{64}$/;

/**
 * The transaction with this hash (64 hex characters), or undefined when the chain has none. `spentTracking`
 * is DbSyncInfo.spentTracking: where spent-ness is recorded (tx_in, or tx_out.consumed_by_tx_id).
 */
export const transactionByHash = (
  sql: SqlClient,
  hash: string,
  spentTracking: SpentTracking,
): Effect.Effect<Transaction | undefined, SqlError> =>
  Effect.map(readTransaction(sql, hash, spentTracking, false), (read) => read?.transaction);

/** An input with where it sits in the transaction and what its output carries besides the explorer's fields. */
export interface DetailedInput extends TransactionInput {
  readonly inlineDatum: string | null;
  readonly referenceScriptHash: string | null;
  /** Collateral: consumed only if the scripts fail (for a failed transaction, what it consumed). */
  readonly collateral: boolean;
  /** A reference input: read, not consumed. */
  readonly reference: boolean;
}

export interface DetailedOutput extends TransactionOutput {
  readonly referenceScriptHash: string | null;
  /** The collateral return: of a failed transaction its only output, of a valid one never created. */
  readonly collateral: boolean;
}

export interface Redeemer {
  readonly index: number;
  readonly purpose: string;
  readonly scriptHash: string | null;
  readonly redeemerDataHash: string;
  readonly unitMem: string;
  readonly unitSteps: string;
  readonly fee: string | null;
}

/**
 * A transaction as the explorer has it, with what only a UTxO-level view needs: its index in the block, the
 * block's hash even for the genesis pseudo-block, db-sync's net deposit and treasury donation, every input
 * (spent, collateral, reference) and every output (the collateral return too) with inline datums and reference
 * script hashes, its redeemers, and how many MIR certificates it carries (reserve and treasury rows).
 */
export interface TransactionDetail {
  readonly transaction: Transaction;
  readonly blockHash: string;
  readonly blockIndex: number;
  readonly treasuryDonation: string;
  readonly inputs: ReadonlyArray<DetailedInput>;
  readonly outputs: ReadonlyArray<DetailedOutput>;
  readonly redeemers: ReadonlyArray<Redeemer>;
  readonly mirCertificates: number;
  /** Each metadata label's value as its CBOR (hex), as db-sync keeps it (`tx_metadata.bytes`). */
  readonly metadataCbor: ReadonlyArray<MetadataCbor>;
}

export interface MetadataCbor {
  readonly key: string;
  readonly cbor: string;
}

const metadataCbor = (sql: SqlClient) =>
  jsonList(
    sql,
    sql`json_build_object('key', m.key::text, 'cbor', encode(m.bytes, 'hex'))`,
    sql`from tx_metadata m where m.tx_id = x.id`,
    sql`m.id`,
  );

const redeemers = (sql: SqlClient) =>
  jsonList(
    sql,
    sql`json_build_object('index', r.index, 'purpose', r.purpose::text, 'scriptHash', encode(r.script_hash, 'hex'),
          'redeemerDataHash', encode(d.hash, 'hex'), 'unitMem', r.unit_mem::text,
          'unitSteps', r.unit_steps::text, 'fee', r.fee::text)`,
    sql`from redeemer r join redeemer_data d on d.id = r.redeemer_data_id where r.tx_id = x.id`,
    sql`r.index, r.id`,
  );

/** MIR certificates: one reserve or treasury row per stake address they pay, one cert_index per certificate. */
const mirCertificates = (sql: SqlClient) =>
  sql`(select count(distinct m.cert_index)::int from (
         select cert_index from reserve where tx_id = x.id
         union all
         select cert_index from treasury where tx_id = x.id) m)`;

const detailedInput = (r: InputRow, collateral: boolean, reference: boolean): DetailedInput => ({
  ...toInput(r),
  inlineDatum: r.inlineDatum,
  referenceScriptHash: r.referenceScriptHash,
  collateral,
  reference,
});

const detailedOutput = (r: OutputRow, collateral: boolean): DetailedOutput => ({
  ...toOutput(r),
  referenceScriptHash: r.referenceScriptHash,
  collateral,
});

/** The transaction with its detail (see TransactionDetail), or undefined when the chain has none. */
export const transactionDetailByHash = (
  sql: SqlClient,
  hash: string,
  spentTracking: SpentTracking,
): Effect.Effect<TransactionDetail | undefined, SqlError> =>
  Effect.map(readTransaction(sql, hash, spentTracking, true), (read) => {
    if (!read) return undefined;
    const { h, spentRows, collateralRows, outputRows, detail } = read;
    const valid = h.validContract;
    return {
      transaction: read.transaction,
      blockHash: h.blockHash,
      blockIndex: h.blockIndex,
      treasuryDonation: h.treasuryDonation,
      inputs: [
        ...(valid ? spentRows.map((r) => detailedInput(r, false, false)) : []),
        ...detail!.referenceRows.map((r) => detailedInput(r, false, true)),
        ...(valid ? collateralRows : spentRows).map((r) => detailedInput(r, true, false)),
      ],
      outputs: [
        // a failed transaction's only tx_out is its collateral return (also in collateral_tx_out: once here)
        ...outputRows.map((r) => detailedOutput(r, !valid)),
        ...(valid ? detail!.collateralOutputRows.map((r) => detailedOutput(r, true)) : []),
      ],
      redeemers: detail!.redeemerRows,
      mirCertificates: detail!.mir,
      metadataCbor: detail!.metadataCborRows,
    };
  });

/** The one row of a read: the header's columns, each list as a JSON array, the detail's when asked for. */
interface ReadRow extends HeaderRow {
  readonly spentRows: ReadonlyArray<InputRow>;
  readonly outputRows: ReadonlyArray<OutputRow>;
  readonly collateralRows: ReadonlyArray<InputRow>;
  readonly certRows: ReadonlyArray<CertRow>;
  readonly withdrawalRows: ReadonlyArray<Withdrawal>;
  readonly mintRows: ReadonlyArray<{ policyId: string; assetNameHex: string; quantity: string }>;
  readonly metadataRows: ReadonlyArray<{ key: string; json: unknown }>;
  readonly proposalDeposits: string;
  readonly referenceRows?: ReadonlyArray<InputRow>;
  readonly collateralOutputRows?: ReadonlyArray<OutputRow>;
  readonly redeemerRows?: ReadonlyArray<Redeemer>;
  readonly mir?: number;
  readonly metadataCborRows?: ReadonlyArray<MetadataCbor>;
}

/**
 * One statement for the whole transaction, built in the database: the header by unique_tx, every list a
 * correlated json_agg over its index lookup by the transaction's id (one round trip instead of about ten; the
 * embedded database runs one statement at a time). A failed transaction's collateral is what it consumed (its
 * tx_in rows), so its collateral lists are empty here. Prepared (layers/pg_prepared.ts): planning its ~30
 * subplans cost more than running them (PostgreSQL CPU per read 7-38 ms unprepared, about 2 ms prepared), and a
 * lookup by a unique hash has one plan.
 */
const readStatement = (sql: SqlClient, hash: string, spentTracking: SpentTracking, detail: boolean) =>
  sql<ReadRow>`/* prepared */
    select ${headerColumns(sql)},
           ${consumed(sql, spentTracking)} as "spentRows",
           ${outputs(sql, spentTracking, "tx_out")} as "outputRows",
           ${referencedInputs(sql, "collateral")} as "collateralRows",
           ${certificateRows(sql)} as "certRows",
           ${withdrawals(sql)} as "withdrawalRows",
           ${mints(sql)} as "mintRows",
           ${metadata(sql)} as "metadataRows",
           ${proposalDeposits(sql)} as "proposalDeposits"
           ${
    detail
      ? sql`, ${referencedInputs(sql, "reference")} as "referenceRows",
              ${outputs(sql, spentTracking, "collateral_tx_out")} as "collateralOutputRows",
              ${redeemers(sql)} as "redeemerRows",
              ${mirCertificates(sql)} as mir,
              ${metadataCbor(sql)} as "metadataCborRows"`
      : sql``
  }
    from tx x join block xb on xb.id = x.block_id
    where x.hash = decode(${hash}, 'hex')`;

/** One read of a transaction: the explorer's lists, and with `detail` the detail's too, in one statement. */
const readTransaction = (sql: SqlClient, hash: string, spentTracking: SpentTracking, detail: boolean) =>
  Effect.gen(function* () {
    if (!hashPattern.test(hash)) return undefined;
    const [h] = yield* readStatement(sql, hash.toLowerCase(), spentTracking, detail);
    if (!h) return undefined;
    const { spentRows, outputRows, collateralRows, certRows, withdrawalRows, mintRows, metadataRows } = h;
    const inputs = h.validContract ? spentRows.map(toInput) : [];
    const collateral = h.validContract ? collateralRows.map(toInput) : spentRows.map(toInput);
    const genesis = h.blockNo === null;
    const transaction = {
      hash: h.hash,
      blockNo: h.blockNo ?? 0,
      blockHash: genesis ? null : h.blockHash,
      epochNo: h.epochNo,
      blockTime: h.blockTime.toISOString(),
      slotNo: Number(h.slotNo ?? 0),
      fee: h.fee,
      totalOutput: h.totalOutput,
      ...splitDeposit(
        depositsPaid(certRows, h.proposalDeposits),
        BigInt(h.deposit ?? depositFromBalance(h, spentRows, withdrawalRows, spentTracking)),
      ),
      size: h.size,
      validContract: h.validContract,
      scriptSize: h.scriptSize,
      invalidBefore: numberOrNull(h.invalidBefore),
      invalidHereafter: numberOrNull(h.invalidHereafter),
      inputs,
      outputs: outputRows.map(toOutput),
      certificates: certificates(certRows),
      withdrawals: withdrawalRows,
      mints: mintRows.map((m) => ({
        policyId: m.policyId,
        assetName: assetNameText(m.assetNameHex),
        assetNameHex: m.assetNameHex,
        quantity: m.quantity,
      })),
      collateral,
      metadata: metadataRows.map((m) => ({ key: m.key, json: m.json })),
    } satisfies Transaction;
    return {
      h,
      transaction,
      spentRows,
      collateralRows,
      outputRows,
      detail: detail
        ? {
          referenceRows: h.referenceRows ?? [],
          collateralOutputRows: h.collateralOutputRows ?? [],
          redeemerRows: h.redeemerRows ?? [],
          mir: h.mir ?? 0,
          metadataCborRows: h.metadataCborRows ?? [],
        }
        : undefined,
    };
  });

/** tx.deposit is NULL when db-sync runs without the ledger: inputs + withdrawals = outputs + fee + deposit + donation. */
const depositFromBalance = (
  h: HeaderRow,
  inputs: ReadonlyArray<InputRow>,
  withdrawn: ReadonlyArray<Withdrawal>,
  spent: SpentTracking,
): string => {
  if (!h.validContract || spent === "prune" || spent === "bootstrap") return "0";
  const sum = (values: ReadonlyArray<string>) => values.reduce((a, v) => a + BigInt(v), 0n);
  const deposit = sum(inputs.map((i) => i.value)) + sum(withdrawn.map((w) => w.amount)) -
    BigInt(h.totalOutput) - BigInt(h.fee) - BigInt(h.treasuryDonation);
  return deposit.toString();
};

// ---------------------------------------------------------------------------------------------------------------
// Native scripts: db-sync stores them as JSON only ({"type": "sig", "keyHash"}, "all"/"any" with "scripts",
// "atLeast" with "required" and "scripts", "after"/"before" with "slot"); the ledger's CBOR (native_script in the
// CDDL) is [0, keyhash] / [1, scripts] / [2, scripts] / [3, n, scripts] / [4, invalid_before slot] /
// [5, invalid_hereafter slot]: "after" = RequireTimeStart = invalid_before, "before" = invalid_hereafter.

export const cborHead = (major: number, value: number | bigint | string): Array<number> => {
  const v = BigInt(value);
  const m = major << 5;
  if (v < 24n) return [m | Number(v)];
  const width = v < 0x100n ? 1 : v < 0x10000n ? 2 : v < 0x100000000n ? 4 : 8;
  const bytes = Array.from({ length: width }, (_, i) => Number((v >> BigInt(8 * (width - 1 - i))) & 0xffn));
  return [m | { 1: 24, 2: 25, 4: 26, 8: 27 }[width]!, ...bytes];
};

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;

const isUint = (v: unknown): v is number | string =>
  (typeof v === "number" && Number.isSafeInteger(v) && v >= 0) || (typeof v === "string" && /^\d+$/.test(v));

const encodeNative = (s: unknown): Array<number> | undefined => {
  if (!isRecord(s)) return undefined;
  const list = (scripts: unknown): Array<number> | undefined => {
    if (!Array.isArray(scripts)) return undefined;
    const parts = scripts.map(encodeNative);
    return parts.every((p) => p !== undefined) ? [...cborHead(4, parts.length), ...parts.flat()] : undefined;
  };
  const tagged = (tag: number, ...fields: Array<Array<number> | undefined>) =>
    fields.every((f) => f !== undefined)
      ? [...cborHead(4, fields.length + 1), tag, ...fields.flat()]
      : undefined;
  switch (s.type) {
    case "sig":
      return typeof s.keyHash === "string" && /^[0-9a-fA-F]{56}$/.test(s.keyHash)
        ? tagged(0, [...cborHead(2, 28), ...hex.decode(s.keyHash)])
        : undefined;
    case "all":
      return tagged(1, list(s.scripts));
    case "any":
      return tagged(2, list(s.scripts));
    case "atLeast":
      return isUint(s.required) ? tagged(3, cborHead(0, s.required), list(s.scripts)) : undefined;
    case "after":
      return isUint(s.slot) ? tagged(4, cborHead(0, s.slot)) : undefined;
    case "before":
      return isUint(s.slot) ? tagged(5, cborHead(0, s.slot)) : undefined;
    default:
      return undefined;
  }
};

/** The CBOR (hex) of a native script from db-sync's JSON of it; null when the JSON is not a native script. */
export const nativeScriptCbor = (json: unknown): string | null => {
  const bytes = encodeNative(json);
  return bytes === undefined ? null : bytes.map((b) => b.toString(16).padStart(2, "0")).join("");
};
