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
 * - retired: its latest registration certificate is a deregistration; expired: registered and not active;
 *   lastActiveEpoch: the epoch of its latest registration, update, deregistration or vote; activeEpoch: the epoch
 *   of its latest registration, unless retired since; anchor: the anchor of its latest registration or update
 *   with the off-chain document db-sync fetched for it (json and bytes, null when not fetched or invalid).
 * Options beyond the explorer's: `order` (drep_hash order, newest first with `desc`), `registeredOnly` (leave the
 * special DReps out) and `only` (the one DRep with this hash, of this kind when given).
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
  /** The 28-byte credential hash (hex); null for the special DReps. */
  readonly hex: string | null;
  readonly hasScript: boolean;
  readonly retired: boolean;
  readonly expired: boolean;
  readonly lastActiveEpoch: number | null;
  readonly activeEpoch: number | null;
  readonly anchor: DRepAnchor | null;
}

export interface DRepAnchor {
  readonly url: string;
  readonly hash: string;
  readonly json: unknown;
  /** The fetched document's bytes (hex). */
  readonly bytes: string | null;
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
  readonly order?: "asc" | "desc";
  readonly registeredOnly?: boolean;
  readonly only?: { readonly raw: string; readonly hasScript: boolean | undefined };
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
  readonly retired: boolean | null;
  readonly lastActiveEpoch: number | null;
  readonly activeEpoch: number | null;
  readonly anchorUrl: string | null;
  readonly anchorHash: string | null;
  readonly anchorJson: unknown;
  readonly anchorBytes: string | null;
}

/** CIP-129 DRep id: `drep1` over the header byte (0x22 key hash, 0x23 script hash) and the 28-byte hash. */
export const drepIdCip129 = (rawHex: string, hasScript: boolean): string =>
  bech32.encode("drep", bech32.toWords(Uint8Array.of(hasScript ? 0x23 : 0x22, ...hex.decode(rawHex))), 1023);

export const dreps = (sql: SqlClient, options: DRepsOptions): Effect.Effect<DRepPage, SqlError> => {
  const { page, pageSize, activeOnly, only } = options;
  const desc = options.order === "desc";
  const which = only === undefined
    ? sql`true`
    : only.hasScript === undefined
    ? sql`h.raw = decode(${only.raw}, 'hex')`
    : sql`h.raw = decode(${only.raw}, 'hex') and h.has_script = ${only.hasScript}`;
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
             where (h.raw is null or last.tx_id is not null) and ${which}),
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
           listed as (select * from flagged where (not ${activeOnly} or active)
                                                  and (not ${
      options.registeredOnly ?? false
    } or raw is not null)),
           page as (select * from listed order by ${desc ? sql`id desc` : sql`id`} limit ${pageSize} offset ${
      (page - 1) * pageSize
    }),
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
             (select count(*)::int from voting_procedure v where v.drep_voter = p.id) as "votesCount",
             p.deposit < 0 as retired,
             greatest(
               (select b.epoch_no from tx t join block b on b.id = t.block_id where t.id = p.last_tx),
               (select b.epoch_no from tx t join block b on b.id = t.block_id
                where t.id = (select max(v.tx_id) from voting_procedure v where v.drep_voter = p.id)))
               as "lastActiveEpoch",
             case when p.deposit >= 0 or p.deposit is null then
               (select b.epoch_no from drep_registration r join tx t on t.id = r.tx_id join block b on b.id = t.block_id
                where r.drep_hash_id = p.id and r.deposit > 0 order by r.tx_id desc, r.cert_index desc limit 1)
             end as "activeEpoch",
             a.url as "anchorUrl", a.hash as "anchorHash", a.json as "anchorJson", a.bytes as "anchorBytes"
      from counted left join page p on true
      left join lateral (
        select va.url, encode(va.data_hash, 'hex') as hash, vd.json, encode(vd.bytes, 'hex') as bytes
        from drep_registration r join voting_anchor va on va.id = r.voting_anchor_id
        left join lateral (select d.json, d.bytes from off_chain_vote_data d
                           where d.voting_anchor_id = va.id and d.is_valid is not false
                           order by d.id desc limit 1) vd on true
        where r.drep_hash_id = p.id and (r.deposit is null or r.deposit > 0)
        order by r.tx_id desc, r.cert_index desc limit 1) a on true
      order by ${desc ? sql`p.id desc` : sql`p.id`}`,
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
          hex: r.raw,
          hasScript: r.hasScript ?? false,
          retired: r.retired ?? false,
          expired: r.raw !== null && !(r.retired ?? false) && !(r.isActive ?? false),
          lastActiveEpoch: r.lastActiveEpoch,
          activeEpoch: r.activeEpoch,
          anchor: r.anchorUrl === null || r.anchorHash === null ? null : {
            url: r.anchorUrl,
            hash: r.anchorHash,
            json: r.anchorJson ?? null,
            bytes: r.anchorBytes,
          },
        };
      });
      return { total, page, pageSize, hasMore: page * pageSize < total, data };
    },
  );
};
