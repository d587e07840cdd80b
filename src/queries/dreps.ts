/**
 * The DRep list for the explorer (spec: DRep; shared/notes/dbsync.md §9): every DRep that ever registered plus
 * the two special ones (always abstain, always no confidence), in drep_hash order, a page at a time.
 * - drepIdBech32: CIP-129 (`drep1` + header 0x22 key / 0x23 script + hash; db-sync's drep_hash.view is the
 *   CIP-105 form with the same prefix for both kinds); the special DReps by their names
 *   (`drep_always_abstain`, `drep_always_no_confidence`).
 * - isActive: special DReps always; others when registered now (latest drep_registration is not a
 *   deregistration) and, in the newest DRep distribution, `active_until` >= the current epoch. A registered DRep
 *   missing from that distribution (no stake delegated, or registered since) is active when its latest
 *   registration/update or vote is within `drep_activity` epochs (Koios' rule).
 * - votingPower: its amount in the newest drep_distr epoch ("0" when absent from it); omitted when db-sync
 *   writes no distribution (ledger disabled).
 * - delegatorCount: stake addresses whose latest vote delegation is to the DRep, not deregistered since, made
 *   after the DRep's latest registration and not followed by a retirement of the DRep.
 * - votesCount: its voting_procedure rows (a re-vote counts again).
 * - name, givenName: CIP-119 `givenName` (off_chain_vote_drep_data) of the anchor of its latest registration or
 *   update; null without one (or when db-sync does not fetch off-chain vote data).
 * The active test runs for every DRep (a few index probes each; ~1.5k DReps on mainnet) so that the total and
 * the pages agree; delegators, votes and names only for the page.
 */
import { bech32, hex } from "@scure/base";
import type { SqlClient } from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import { Effect } from "effect";

export type DRepType = "registered" | "abstain" | "noConfidence";

export interface DRep {
  readonly drepIdBech32: string;
  readonly type: DRepType;
  readonly name: string | null;
  readonly givenName: string | null;
  readonly isActive: boolean;
  readonly votingPower?: string;
  readonly delegatorCount: number;
  readonly votesCount: number;
}

export interface DRepPage {
  readonly total: number;
  readonly page: number;
  readonly pageSize: number;
  readonly hasMore: boolean;
  readonly data: ReadonlyArray<DRep>;
}

export interface DRepsOptions {
  /** 1-based. */
  readonly page: number;
  readonly pageSize: number;
  readonly activeOnly: boolean;
}

interface DRepRow {
  readonly total: number;
  readonly raw: string | null;
  readonly view: string | null;
  readonly hasScript: boolean | null;
  readonly isActive: boolean | null;
  readonly votingPower: string | null;
  readonly givenName: string | null;
  readonly delegatorCount: number | null;
  readonly votesCount: number | null;
}

/** CIP-129 DRep id: `drep1` over the header byte (0x22 key hash, 0x23 script hash) and the 28-byte hash. */
export const drepIdCip129 = (rawHex: string, hasScript: boolean): string =>
  bech32.encode("drep", bech32.toWords(Uint8Array.of(hasScript ? 0x23 : 0x22, ...hex.decode(rawHex))), 1023);

export const dreps = (sql: SqlClient, options: DRepsOptions): Effect.Effect<DRepPage, SqlError> => {
  const { page, pageSize, activeOnly } = options;
  return Effect.map(
    sql<DRepRow>`
      with tip as (select epoch_no from block where block_no is not null order by id desc limit 1),
           -- the newest distribution (rows are written epoch after epoch: the last id has the newest epoch)
           distr as (select epoch_no from drep_distr order by id desc limit 1),
           params as (select drep_activity from epoch_param order by id desc limit 1),
           state as materialized (
             select h.id, h.raw, h.view, h.has_script, last.deposit, last.tx_id as last_tx,
                    d.hash_id is not null as in_distr, d.amount, d.active_until
             from drep_hash h
             left join lateral (select r.deposit, r.tx_id from drep_registration r where r.drep_hash_id = h.id
                                order by r.tx_id desc, r.cert_index desc limit 1) last on true
             left join lateral (select x.hash_id, x.amount, x.active_until from drep_distr x
                                where x.hash_id = h.id and x.epoch_no = (select epoch_no from distr)
                                order by x.id desc limit 1) d on true
             where h.raw is null or last.tx_id is not null),
           flagged as materialized (
             select s.*,
                    case when s.raw is null then true
                         when s.deposit < 0 then false
                         when s.in_distr then s.active_until >= (select epoch_no from tip)
                         else coalesce(
                           greatest(
                             (select b.epoch_no from tx t join block b on b.id = t.block_id where t.id = s.last_tx),
                             (select b.epoch_no from tx t join block b on b.id = t.block_id
                              where t.id = (select max(v.tx_id) from voting_procedure v where v.drep_voter = s.id)))
                           + (select drep_activity from params) >= (select epoch_no from tip),
                           true)
                    end as active
             from state s),
           listed as (select * from flagged where not ${activeOnly} or active),
           page as (select * from listed order by id limit ${pageSize} offset ${(page - 1) * pageSize}),
           counted as (select count(*)::int as total from listed)
      select counted.total, encode(p.raw, 'hex') as raw, p.view, p.has_script as "hasScript", p.active as "isActive",
             case when (select epoch_no from distr) is not null then coalesce(p.amount, 0)::text end
               as "votingPower",
             (select dd.given_name from off_chain_vote_data vd
              join off_chain_vote_drep_data dd on dd.off_chain_vote_data_id = vd.id
              where vd.voting_anchor_id = (
                      select r.voting_anchor_id from drep_registration r
                      where r.drep_hash_id = p.id and (r.deposit is null or r.deposit > 0)
                      order by r.tx_id desc, r.cert_index desc limit 1)
              order by vd.is_valid desc nulls last, vd.id desc, dd.id desc limit 1) as "givenName",
             (select count(*)::int from delegation_vote dv
              where dv.drep_hash_id = p.id
                and (p.raw is null
                     or (dv.tx_id >= (select max(r.tx_id) from drep_registration r
                                      where r.drep_hash_id = p.id and r.deposit > 0)
                         and not exists (select 1 from drep_registration g where g.drep_hash_id = p.id
                                         and g.deposit < 0 and g.tx_id > dv.tx_id)))
                and not exists (select 1 from delegation_vote later where later.addr_id = dv.addr_id
                                and (later.tx_id, later.cert_index) > (dv.tx_id, dv.cert_index))
                and not exists (select 1 from stake_deregistration sd where sd.addr_id = dv.addr_id
                                and (sd.tx_id, sd.cert_index) > (dv.tx_id, dv.cert_index))) as "delegatorCount",
             (select count(*)::int from voting_procedure v where v.drep_voter = p.id) as "votesCount"
      from counted left join page p on true
      order by p.id`,
    (rows) => {
      const total = rows[0]?.total ?? 0;
      const data = rows.filter((r) => r.view !== null).map((r): DRep => {
        const type: DRepType = r.view === "drep_always_abstain"
          ? "abstain"
          : r.view === "drep_always_no_confidence"
          ? "noConfidence"
          : "registered";
        return {
          drepIdBech32: r.raw === null ? r.view! : drepIdCip129(r.raw, r.hasScript ?? false),
          type,
          name: r.givenName,
          givenName: r.givenName,
          isActive: r.isActive ?? false,
          ...(r.votingPower === null ? {} : { votingPower: r.votingPower }),
          delegatorCount: r.delegatorCount ?? 0,
          votesCount: r.votesCount ?? 0,
        };
      });
      return { total, page, pageSize, hasMore: page * pageSize < total, data };
    },
  );
};
