/**
 * Consecutive blocks with everything Ogmios' block JSON needs, for chain sync (`nextBlock`). A batch is read with
 * one statement per kind of row, each an index range over the batch's blocks or transactions, never a statement
 * per block or per transaction:
 *   blocks        block primary key range (id > cursor), its parent by primary key
 *   transactions  tx by block_id range (idx_tx_block_id)
 *   inputs        tx_in by tx_in_id range (idx_tx_in_tx_in_id) -> tx primary key [enable], or tx_out by
 *                 consumed_by_tx_id range (idx_tx_out_consumed_by_tx_id) [consumed/prune/bootstrap]
 *   outputs       tx_out by tx_id range (idx_tx_out_tx_id), datum and script by primary key; then tokens by
 *                 tx_out_id range (idx_ma_tx_out_tx_out_id)
 *   references    reference_tx_in / collateral_tx_in by tx_in_id (idx_cds_*_tx_in_id), collateral_tx_out by tx_id
 *   certificates  stake_registration, stake_deregistration, delegation (idx_*_tx_id), delegation_vote,
 *                 drep_registration (idx_cds_*_tx_id), pool_update (idx_pool_update_registered_tx_id), pool_retire
 *                 (idx_pool_retire_announced_tx_id), committee_registration / committee_de_registration (no index:
 *                 a few rows per committee member)
 *   the rest      withdrawal, ma_tx_mint, tx_metadata, extra_key_witness (idx_*_tx_id), redeemer (idx_cds_redeemer_tx_id),
 *                 voting_procedure (idx_cds_voting_procedure_tx_id) -> gov_action_proposal, voters by primary key,
 *                 gov_action_proposal (idx_cds_gov_action_proposal_tx_id)
 * db-sync inserts blocks and their transactions in chain order, so block ids and transaction ids both grow along
 * the chain: the transactions of a run of consecutive blocks are exactly the ids between its first and last.
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import { Effect } from "effect";
import type { SpentTracking } from "@src/dbsync/detect.ts";
import { decimalLess } from "@src/domain/decimal_ids.ts";
import type { StakePoolRow } from "./stake_pools.ts";
import type { UtxoRow } from "./utxo.ts";

export interface ChainBlockRow {
  readonly id: string;
  readonly hash: string;
  /** Null for Byron epoch boundary blocks. */
  readonly slot: string | null;
  readonly height: number | null;
  readonly size: number;
  readonly protoMajor: number;
  readonly protoMinor: number;
  readonly vrfKey: string | null;
  readonly opCert: string | null;
  readonly opCertCounter: string | null;
  /** The parent's hash; null when the parent is db-sync's genesis pseudo-block (or there is none). */
  readonly ancestor: string | null;
}

export interface ChainTxRow {
  readonly id: string;
  readonly blockId: string;
  readonly hash: string;
  readonly fee: string;
  readonly validContract: boolean;
  readonly invalidBefore: string | null;
  readonly invalidHereafter: string | null;
  readonly treasuryDonation: string;
}

/** An output reference consumed (or referenced) by transaction `txId`. */
export interface ReferenceRow {
  readonly txId: string;
  readonly ref: string;
  readonly index: number;
}

export interface OutputRow extends UtxoRow {
  readonly txId: string;
}

export interface CollateralReturnRow {
  readonly txId: string;
  readonly address: string;
  readonly value: string;
  readonly dataHash: string | null;
  /** db-sync keeps a collateral return's tokens only as text; "fromList []" means none. */
  readonly assetsText: string;
}

export type CertificateKind =
  | "registration"
  | "deregistration"
  | "delegation"
  | "voteDelegation"
  | "poolRegistration"
  | "poolRetirement"
  | "drep"
  | "committeeDelegation"
  | "committeeRetirement";

export interface CertificateRow {
  readonly txId: string;
  readonly certIndex: number;
  readonly kind: CertificateKind;
  /** The stake address' bytes (header + credential) for stake certificates. */
  readonly stakeAddress: string | null;
  /** pool_update.id for pool registrations; the pool id (bech32) for delegations and retirements. */
  readonly pool: string | null;
  readonly epoch: number | null;
  readonly deposit: string | null;
  /** DRep: raw hash (null for the special DReps) and its view (drep_always_abstain ...); a committee member's
   * cold credential for committee certificates. */
  readonly drepRaw: string | null;
  readonly drepView: string | null;
  readonly drepScript: boolean | null;
  readonly anchorUrl: string | null;
  readonly anchorHash: string | null;
  /** The hot credential a committee member authorises. */
  readonly hotRaw: string | null;
  readonly hotScript: boolean | null;
}

export interface PoolRegistrationRow extends StakePoolRow {
  readonly updateId: string;
}

export interface WithdrawalRow {
  readonly txId: string;
  readonly stakeAddress: string;
  readonly amount: string;
}

export interface MintRow {
  readonly txId: string;
  readonly policy: string;
  readonly name: string;
  readonly quantity: string;
}

export interface MetadataRow {
  readonly txId: string;
  readonly label: string;
  readonly json: unknown;
  readonly cbor: string;
}

export interface SignerRow {
  readonly txId: string;
  readonly hash: string;
}

export interface RedeemerRow {
  readonly txId: string;
  readonly purpose: string;
  readonly index: number;
  readonly memory: string;
  readonly cpu: string;
  readonly data: string;
}

export interface VoteRow {
  readonly txId: string;
  readonly role: "ConstitutionalCommittee" | "DRep" | "SPO";
  /** The voter's credential hash (hex) for committee members and DReps; the pool id (bech32) for pools. */
  readonly voter: string;
  readonly voterScript: boolean | null;
  readonly vote: "Yes" | "No" | "Abstain";
  readonly proposalTx: string;
  readonly proposalIndex: number;
  readonly anchorUrl: string | null;
  readonly anchorHash: string | null;
}

export interface ProposalRow {
  readonly txId: string;
  readonly deposit: string;
  readonly returnAccount: string;
  readonly anchorUrl: string | null;
  readonly anchorHash: string | null;
  /** The ledger's JSON of the action (gov_action_proposal.description). */
  readonly description: string;
}

export interface ChainBatch {
  readonly blocks: ReadonlyArray<ChainBlockRow>;
  readonly transactions: ReadonlyArray<ChainTxRow>;
  readonly inputs: ReadonlyArray<ReferenceRow>;
  readonly references: ReadonlyArray<ReferenceRow>;
  readonly collaterals: ReadonlyArray<ReferenceRow>;
  readonly collateralReturns: ReadonlyArray<CollateralReturnRow>;
  readonly outputs: ReadonlyArray<OutputRow>;
  readonly certificates: ReadonlyArray<CertificateRow>;
  readonly pools: ReadonlyArray<PoolRegistrationRow>;
  readonly withdrawals: ReadonlyArray<WithdrawalRow>;
  readonly mints: ReadonlyArray<MintRow>;
  readonly metadata: ReadonlyArray<MetadataRow>;
  readonly signers: ReadonlyArray<SignerRow>;
  readonly redeemers: ReadonlyArray<RedeemerRow>;
  readonly votes: ReadonlyArray<VoteRow>;
  readonly proposals: ReadonlyArray<ProposalRow>;
}

/** A batch of these blocks with no transaction rows (what a batch of empty blocks reads). */
export const emptyChainBatch = (blocks: ReadonlyArray<ChainBlockRow>): ChainBatch => ({
  blocks,
  transactions: [],
  inputs: [],
  references: [],
  collaterals: [],
  collateralReturns: [],
  outputs: [],
  certificates: [],
  pools: [],
  withdrawals: [],
  mints: [],
  metadata: [],
  signers: [],
  redeemers: [],
  votes: [],
  proposals: [],
});

/**
 * Up to `limit` blocks after block id `afterId` (0 = from the start), in chain order, cut after the last block that
 * keeps the batch within `maxTransactions` (block.tx_count; the first block always counts). The cut is made in
 * the statement: a read-ahead asks for 1,000 blocks and keeps about a hundred on a busy chain, and the rest were
 * joined to their parents, sent and parsed for nothing.
 */
const blocksAfter = (sql: SqlClient, afterId: string, limit: number, maxTransactions: number) =>
  sql<ChainBlockRow>`
    select b.id::text as id, encode(b.hash, 'hex') as hash, b.slot_no::text as slot, b.block_no as height,
           b.size, b.proto_major as "protoMajor", b.proto_minor as "protoMinor", b.vrf_key as "vrfKey",
           encode(b.op_cert, 'hex') as "opCert", b.op_cert_counter::text as "opCertCounter",
           case when p.previous_id is null then null else encode(p.hash, 'hex') end as ancestor
    from (
      select n.id, row_number() over (order by n.id) as n, sum(n.tx_count) over (order by n.id) as txs
      from (
        select id, tx_count from block
        where id > ${afterId} and previous_id is not null
        order by id limit ${limit}) n) c
    join block b on b.id = c.id
    left join block p on p.id = b.previous_id
    where c.n = 1 or c.txs <= ${maxTransactions}
    order by b.id`;

const transactions = (sql: SqlClient, firstBlock: string, lastBlock: string) =>
  sql<ChainTxRow>`
    select t.id::text as id, t.block_id::text as "blockId", encode(t.hash, 'hex') as hash, t.fee::text as fee,
           t.valid_contract as "validContract", t.invalid_before::text as "invalidBefore",
           t.invalid_hereafter::text as "invalidHereafter", t.treasury_donation::text as "treasuryDonation"
    from tx t where t.block_id between ${firstBlock} and ${lastBlock}
    order by t.id`;

const spentInputs = (sql: SqlClient, lo: string, hi: string, spent: SpentTracking) =>
  spent === "enable"
    ? sql<ReferenceRow>`
        select i.tx_in_id::text as "txId", (select encode(s.hash, 'hex') from tx s where s.id = i.tx_out_id) as ref,
               i.tx_out_index as index
        from tx_in i where i.tx_in_id between ${lo} and ${hi}`
    : sql<ReferenceRow>`
        select o.consumed_by_tx_id::text as "txId", (select encode(s.hash, 'hex') from tx s where s.id = o.tx_id) as ref,
               o.index
        from tx_out o where o.consumed_by_tx_id between ${lo} and ${hi}`;

const referenceInputs = (sql: SqlClient, lo: string, hi: string) =>
  sql<ReferenceRow>`
    select r.tx_in_id::text as "txId", (select encode(s.hash, 'hex') from tx s where s.id = r.tx_out_id) as ref,
           r.tx_out_index as index
    from reference_tx_in r where r.tx_in_id between ${lo} and ${hi}`;

const collateralInputs = (sql: SqlClient, lo: string, hi: string) =>
  sql<ReferenceRow>`
    select c.tx_in_id::text as "txId", (select encode(s.hash, 'hex') from tx s where s.id = c.tx_out_id) as ref,
           c.tx_out_index as index
    from collateral_tx_in c where c.tx_in_id between ${lo} and ${hi}`;

const collateralReturns = (sql: SqlClient, lo: string, hi: string) =>
  sql<CollateralReturnRow>`
    select c.tx_id::text as "txId", c.address, c.value::text as value, encode(c.data_hash, 'hex') as "dataHash",
           c.multi_assets_descr as "assetsText"
    from collateral_tx_out c where c.tx_id between ${lo} and ${hi}`;

interface OutputWithId extends Omit<OutputRow, "assets"> {
  readonly outputId: string;
}

interface TokenRow {
  readonly outputId: string;
  readonly policy: string;
  readonly name: string;
  readonly quantity: string;
}

/** The outputs, then their tokens in one index range: tx_out ids, like tx ids, follow the chain. */
const outputs = (sql: SqlClient, lo: string, hi: string) =>
  Effect.gen(function* () {
    const rows = yield* sql<OutputWithId>`
      select o.id::text as "outputId", o.tx_id::text as "txId", '' as "txHash", o.index, o.address,
             o.value::text as value, encode(o.data_hash, 'hex') as "dataHash",
             encode(d.bytes, 'hex') as "inlineDatum", s.type::text as "scriptType", s.json as "scriptJson",
             encode(s.bytes, 'hex') as "scriptBytes"
      from tx_out o
      left join datum d on d.id = o.inline_datum_id
      left join script s on s.id = o.reference_script_id
      where o.tx_id between ${lo} and ${hi}
      order by o.tx_id, o.index`;
    if (rows.length === 0) return [];
    let first = rows[0]!.outputId;
    let last = first;
    // tx_out ids follow (tx_id, index) as db-sync writes them: then the tokens, in output id order too, are
    // handed out in one merge rather than looked up per output (a Map lookup per output cost a tenth of chain
    // sync's CPU)
    let ascending = true;
    for (const r of rows) {
      if (decimalLess(r.outputId, first)) first = r.outputId;
      if (decimalLess(last, r.outputId)) last = r.outputId;
      else if (r.outputId !== last) ascending = false;
    }
    const tokens = yield* sql<TokenRow>`
      select mo.tx_out_id::text as "outputId", encode(m.policy, 'hex') as policy, encode(m.name, 'hex') as name,
             mo.quantity::text as quantity
      from ma_tx_out mo join multi_asset m on m.id = mo.ident
      where mo.tx_out_id between ${first} and ${last}
      order by mo.tx_out_id, mo.id`;
    const withAssets = rows as Array<OutputWithId & { assets?: OutputRow["assets"] }>;
    if (ascending) {
      let j = 0;
      for (const r of withAssets) {
        while (j < tokens.length && decimalLess(tokens[j]!.outputId, r.outputId)) j++;
        let assets: Array<{ policy: string; name: string; quantity: string }> | null = null;
        for (; j < tokens.length && tokens[j]!.outputId === r.outputId; j++) {
          const t = tokens[j]!;
          (assets ??= []).push({ policy: t.policy, name: t.name, quantity: t.quantity });
        }
        // the rows take their tokens in place (a copy of each row, with rest and spread, cost more than the read)
        r.assets = assets;
      }
    } else {
      const byOutput = new Map<string, Array<{ policy: string; name: string; quantity: string }>>();
      for (const t of tokens) {
        const list = byOutput.get(t.outputId);
        const token = { policy: t.policy, name: t.name, quantity: t.quantity };
        if (list) list.push(token);
        else byOutput.set(t.outputId, [token]);
      }
      for (const r of withAssets) r.assets = byOutput.get(r.outputId) ?? null;
    }
    return rows as ReadonlyArray<OutputWithId & Pick<OutputRow, "assets">>;
  });

const certificates = (sql: SqlClient, lo: string, hi: string) =>
  sql<CertificateRow>`
    select c.* from (
      select r.tx_id::text as "txId", r.cert_index as "certIndex", 'registration' as kind,
             encode(a.hash_raw, 'hex') as "stakeAddress", null::text as pool, null::int as epoch,
             r.deposit::text as deposit, null::text as "drepRaw", null::text as "drepView",
             null::boolean as "drepScript", null::text as "anchorUrl", null::text as "anchorHash",
             null::text as "hotRaw", null::boolean as "hotScript"
      from stake_registration r join stake_address a on a.id = r.addr_id where r.tx_id between ${lo} and ${hi}
      union all
      select r.tx_id::text, r.cert_index, 'deregistration', encode(a.hash_raw, 'hex'), null, null, null,
             null, null, null, null, null, null, null
      from stake_deregistration r join stake_address a on a.id = r.addr_id where r.tx_id between ${lo} and ${hi}
      union all
      select r.tx_id::text, r.cert_index, 'delegation', encode(a.hash_raw, 'hex'), p.view, null, null,
             null, null, null, null, null, null, null
      from delegation r join stake_address a on a.id = r.addr_id join pool_hash p on p.id = r.pool_hash_id
      where r.tx_id between ${lo} and ${hi}
      union all
      select r.tx_id::text, r.cert_index, 'voteDelegation', encode(a.hash_raw, 'hex'), null, null, null,
             encode(h.raw, 'hex'), h.view, h.has_script, null, null, null, null
      from delegation_vote r join stake_address a on a.id = r.addr_id join drep_hash h on h.id = r.drep_hash_id
      where r.tx_id between ${lo} and ${hi}
      union all
      select r.registered_tx_id::text, r.cert_index, 'poolRegistration', null, r.id::text, null, null,
             null, null, null, null, null, null, null
      from pool_update r where r.registered_tx_id between ${lo} and ${hi}
      union all
      select r.announced_tx_id::text, r.cert_index, 'poolRetirement', null, p.view, r.retiring_epoch, null,
             null, null, null, null, null, null, null
      from pool_retire r join pool_hash p on p.id = r.hash_id where r.announced_tx_id between ${lo} and ${hi}
      union all
      select r.tx_id::text, r.cert_index, 'drep', null, null, null, r.deposit::text,
             encode(h.raw, 'hex'), h.view, h.has_script, v.url, encode(v.data_hash, 'hex'), null, null
      from drep_registration r join drep_hash h on h.id = r.drep_hash_id
      left join voting_anchor v on v.id = r.voting_anchor_id
      where r.tx_id between ${lo} and ${hi}
      union all
      select r.tx_id::text, r.cert_index, 'committeeDelegation', null, null, null, null,
             encode(c.raw, 'hex'), null, c.has_script, null, null, encode(h.raw, 'hex'), h.has_script
      from committee_registration r join committee_hash c on c.id = r.cold_key_id
      join committee_hash h on h.id = r.hot_key_id
      where r.tx_id between ${lo} and ${hi}
      union all
      select r.tx_id::text, r.cert_index, 'committeeRetirement', null, null, null, null,
             encode(c.raw, 'hex'), null, c.has_script, v.url, encode(v.data_hash, 'hex'), null, null
      from committee_de_registration r join committee_hash c on c.id = r.cold_key_id
      left join voting_anchor v on v.id = r.voting_anchor_id
      where r.tx_id between ${lo} and ${hi}
    ) c
    order by c."txId"::bigint, c."certIndex"`;

/** Full parameters of the pool registrations among the certificates (pool_update primary keys). */
const poolRegistrations = (sql: SqlClient, updateIds: ReadonlyArray<string>) =>
  sql<PoolRegistrationRow>`
    select u.id::text as "updateId", p.view as id, encode(u.vrf_key_hash, 'hex') as vrf, u.margin,
           u.fixed_cost::text as cost, u.pledge::text as pledge, sa.view as "rewardAccount",
           (select json_agg(encode(substring(s.hash_raw from 2), 'hex') order by o.id)
            from pool_owner o join stake_address s on s.id = o.addr_id where o.pool_update_id = u.id) as owners,
           (select json_agg(json_build_object('ipv4', r.ipv4, 'ipv6', r.ipv6,
                   'dns', coalesce(r.dns_name, r.dns_srv_name),
                   'port', case when r.port < 0 then r.port + 65536 else r.port end) order by r.id)
            from pool_relay r where r.update_id = u.id) as relays,
           m.url as "metadataUrl", encode(m.hash, 'hex') as "metadataHash", null::text as stake
    from pool_update u join pool_hash p on p.id = u.hash_id
    join stake_address sa on sa.id = u.reward_addr_id
    left join pool_metadata_ref m on m.id = u.meta_id
    where u.id = any(${updateIds as Array<string>}::bigint[])`;

const withdrawals = (sql: SqlClient, lo: string, hi: string) =>
  sql<WithdrawalRow>`
    select w.tx_id::text as "txId", a.view as "stakeAddress", w.amount::text as amount
    from withdrawal w join stake_address a on a.id = w.addr_id
    where w.tx_id between ${lo} and ${hi} order by w.id`;

const mints = (sql: SqlClient, lo: string, hi: string) =>
  sql<MintRow>`
    select t.tx_id::text as "txId", encode(m.policy, 'hex') as policy, encode(m.name, 'hex') as name,
           t.quantity::text as quantity
    from ma_tx_mint t join multi_asset m on m.id = t.ident
    where t.tx_id between ${lo} and ${hi} order by t.id`;

const metadata = (sql: SqlClient, lo: string, hi: string) =>
  sql<MetadataRow>`
    select tx_id::text as "txId", key::text as label, json, encode(bytes, 'hex') as cbor
    from tx_metadata where tx_id between ${lo} and ${hi} order by id`;

const signers = (sql: SqlClient, lo: string, hi: string) =>
  sql<SignerRow>`
    select tx_id::text as "txId", encode(hash, 'hex') as hash
    from extra_key_witness where tx_id between ${lo} and ${hi} order by id`;

const redeemers = (sql: SqlClient, lo: string, hi: string) =>
  sql<RedeemerRow>`
    select r.tx_id::text as "txId", r.purpose::text as purpose, r.index, r.unit_mem::text as memory,
           r.unit_steps::text as cpu, encode(d.bytes, 'hex') as data
    from redeemer r join redeemer_data d on d.id = r.redeemer_data_id
    where r.tx_id between ${lo} and ${hi} order by r.id`;

/** Votes cast (voting_procedure by idx_cds_voting_procedure_tx_id), each with the proposal it is about. */
const votes = (sql: SqlClient, lo: string, hi: string) =>
  sql<VoteRow>`
    select v.tx_id::text as "txId", v.voter_role::text as role,
           coalesce(encode(c.raw, 'hex'), encode(d.raw, 'hex'), p.view) as voter,
           coalesce(c.has_script, d.has_script) as "voterScript", v.vote::text as vote,
           encode(pt.hash, 'hex') as "proposalTx", g.index::int as "proposalIndex",
           a.url as "anchorUrl", encode(a.data_hash, 'hex') as "anchorHash"
    from voting_procedure v
    join gov_action_proposal g on g.id = v.gov_action_proposal_id
    join tx pt on pt.id = g.tx_id
    left join committee_hash c on c.id = v.committee_voter
    left join drep_hash d on d.id = v.drep_voter
    left join pool_hash p on p.id = v.pool_voter
    left join voting_anchor a on a.id = v.voting_anchor_id
    where v.tx_id between ${lo} and ${hi} and v.invalid is null
    order by v.id`;

/** Proposals (gov_action_proposal by tx_id), in the order of their index. */
const proposals = (sql: SqlClient, lo: string, hi: string) =>
  sql<ProposalRow>`
    select g.tx_id::text as "txId", g.deposit::text as deposit, s.view as "returnAccount", a.url as "anchorUrl",
           encode(a.data_hash, 'hex') as "anchorHash", g.description::text as description
    from gov_action_proposal g join stake_address s on s.id = g.return_address
    left join voting_anchor a on a.id = g.voting_anchor_id
    where g.tx_id between ${lo} and ${hi}
    order by g.tx_id, g.index`;

const none = <A>() => Effect.succeed<ReadonlyArray<A>>([]);

/**
 * Up to `limit` blocks after block id `afterId` holding at most `maxTransactions` transactions (but one block at
 * least), with their transactions' rows. Empty when the cursor is at the
 * tip. The caller checks that the batch's last block still exists afterwards (see chain_cursor.ts): then every
 * statement here read the same blocks, even while db-sync rolls back.
 */
export const chainBatch = (
  sql: SqlClient,
  afterId: string,
  limit: number,
  spent: SpentTracking,
  maxTransactions = Number.MAX_SAFE_INTEGER,
): Effect.Effect<ChainBatch, SqlError> =>
  Effect.gen(function* () {
    const blocks = yield* blocksAfter(sql, afterId, limit, maxTransactions);
    if (blocks.length === 0) return emptyChainBatch(blocks);
    const txs = yield* transactions(sql, blocks[0]!.id, blocks[blocks.length - 1]!.id);
    if (txs.length === 0) return emptyChainBatch(blocks);
    const lo = txs[0]!.id;
    const hi = txs[txs.length - 1]!.id;
    const parts = yield* Effect.all({
      inputs: spentInputs(sql, lo, hi, spent),
      references: referenceInputs(sql, lo, hi),
      collaterals: collateralInputs(sql, lo, hi),
      collateralReturns: collateralReturns(sql, lo, hi),
      outputs: outputs(sql, lo, hi),
      certificates: certificates(sql, lo, hi),
      withdrawals: withdrawals(sql, lo, hi),
      mints: mints(sql, lo, hi),
      metadata: metadata(sql, lo, hi),
      signers: signers(sql, lo, hi),
      redeemers: redeemers(sql, lo, hi),
      votes: votes(sql, lo, hi),
      proposals: proposals(sql, lo, hi),
    }, { concurrency: "unbounded" });
    const poolIds = parts.certificates.filter((c) => c.kind === "poolRegistration").map((c) => c.pool!);
    const pools = poolIds.length > 0
      ? yield* poolRegistrations(sql, poolIds)
      : yield* none<PoolRegistrationRow>();
    return { blocks, transactions: txs, pools, ...parts };
  });

export interface PointRow {
  readonly id: string;
  readonly hash: string;
  readonly slot: string | null;
  readonly height: number | null;
}

/** The blocks with these hashes (unique_block), for findIntersection. */
export const blocksByHash = (sql: SqlClient, hashes: ReadonlyArray<string>) =>
  sql<PointRow>`
    select id::text as id, encode(hash, 'hex') as hash, slot_no::text as slot, block_no as height
    from block where hash in (select decode(h, 'hex') from unnest(${hashes as Array<string>}::text[]) as h)`;

/** The newest block before block id `beforeId` (primary key, backwards): where a rolled-back cursor lands. */
export const blockBefore = (sql: SqlClient, beforeId: string) =>
  Effect.map(
    sql<PointRow>`
      select b.id::text as id, encode(b.hash, 'hex') as hash, b.slot_no::text as slot, b.block_no as height
      from block b where b.id < ${beforeId} and b.previous_id is not null
      order by b.id desc limit 1`,
    (rows) => rows[0],
  );

/** Whether block `id` still has hash `hash` (false once db-sync rolled it back). */
export const blockExists = (sql: SqlClient, id: string, hash: string) =>
  Effect.map(
    sql<{ n: number }>`select 1 as n from block where id = ${id} and hash = decode(${hash}, 'hex')`,
    (rows) => rows.length > 0,
  );

/** The newest block (the chain's tip) as a point with its height, or undefined on an empty chain. */
export const tipPointRow = (sql: SqlClient) =>
  Effect.map(
    sql<PointRow>`
      select b.id::text as id, encode(b.hash, 'hex') as hash, b.slot_no::text as slot, b.block_no as height
      from block b where b.previous_id is not null order by b.id desc limit 1`,
    (rows) => rows[0],
  );
