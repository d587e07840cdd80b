/**
 * Ratification at the boundary into `epoch` (ratify.ts over what the database holds): the live proposals with
 * their votes (the latest of each voter), drep_distr of `epoch`, the pools' stake of epoch + 1 (the snapshot the
 * ledger's pulser takes then) with their reward accounts' DRep delegations, the committee in force with its hot
 * keys, the parameters, roots and treasury of `epoch`: sets ratified_epoch, and expired_epoch for the proposals
 * past their last voting epoch. Enactment follows at the next boundary (governance/enactment.ts).
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import { Effect } from "effect";
import { type ActionType, credKey, type Purpose, purposeOf, type VoteValue } from "./parts.ts";
import { committeeHotKeys } from "./view.ts";
import { liveProposals, parseDescription } from "./enactment.ts";
import { type DrepGroup, paramColumns, type ParamColumnValue } from "./param_update.ts";
import { type Committee, ratify, type RatifyProposal } from "./ratify.ts";
import type { RowWriter } from "../rows/row_writer.ts";

const committeeOf = (
  rows: ReadonlyArray<
    { raw: string | null; script: boolean | null; expiration: number | null; n: string; d: string }
  >,
): Committee => ({
  members: new Map(
    rows.filter((r) => r.raw !== null).map((
      r,
    ) => [credKey({ hash: r.raw!, script: !!r.script }), r.expiration!]),
  ),
  quorum: { numerator: BigInt(rows[0]?.n ?? "0"), denominator: BigInt(rows[0]?.d ?? "1") },
});

const committeeRows = (sql: SqlClient, committeeId: number) =>
  sql<{ raw: string | null; script: boolean | null; expiration: number | null; n: string; d: string }>`
    select encode(h.raw, 'hex') as raw, h.has_script as script, m.expiration_epoch as expiration,
      c.quorum_numerator::text as n, c.quorum_denominator::text as d
    from committee c left join committee_member m on m.committee_id = c.id
    left join committee_hash h on h.id = m.committee_hash_id
    where c.id = ${committeeId}`;

/** Ratification for `epoch` (after its drep_distr, its pools' stake and ada_pots are written). */
export const ratifyEpoch = (w: RowWriter, epoch: number): Effect.Effect<void, SqlError> =>
  Effect.gen(function* () {
    const { sql } = w;
    const candidates = (yield* liveProposals(sql, epoch)).filter((p) =>
      p.ratified === null && p.expired === null && p.enacted === null
    );
    if (candidates.length === 0) return;
    const ids = candidates.map((p) => p.id);
    const votes = yield* sql<
      {
        proposal: number;
        role: string;
        drep: string | null;
        pool: string | null;
        hot: string | null;
        script: boolean | null;
        vote: VoteValue;
      }
    >`
      select v.gov_action_proposal_id::int as proposal, v.voter_role::text as role, v.drep_voter::text as drep,
        v.pool_voter::text as pool, encode(c.raw, 'hex') as hot, c.has_script as script, v.vote::text as vote
      from voting_procedure v left join committee_hash c on c.id = v.committee_voter
      where v.gov_action_proposal_id in ${sql.in(ids)} and v.invalid is null order by v.id`;
    const details = yield* sql<
      {
        id: number;
        withdrawals: string;
        committee: string | null;
        params: Record<string, ParamColumnValue | null> | null;
      }
    >`
      select g.id::int as id,
        (select coalesce(sum(amount), 0)::text from treasury_withdrawal t where t.gov_action_proposal_id = g.id)
          as withdrawals,
        (select c.id::text from committee c where c.gov_action_proposal_id = g.id order by c.id desc limit 1)
          as committee,
        (select row_to_json(p) from param_proposal p where p.id = g.param_proposal) as params
      from gov_action_proposal g where g.id in ${sql.in(ids)}`;
    const byId = new Map(details.map((d) => [d.id, d]));
    const proposals: Array<RatifyProposal> = candidates.map((p) => {
      const d = byId.get(p.id);
      const params = Object.fromEntries(
        Object.entries(d?.params ?? {}).filter(([k, v]) => k in paramColumns && v !== null),
      ) as Record<string, ParamColumnValue>;
      const groups = [...new Set(Object.keys(params).map((k) => paramColumns[k]!.group))] as Array<DrepGroup>;
      const cast = votes.filter((v) => v.proposal === p.id);
      const terms = p.type === "NewCommittee"
        ? Object.values((parseDescription(p.description).contents?.[2] ?? {}) as Record<string, number>)
        : [];
      return {
        id: p.id,
        type: p.type,
        purpose: purposeOf(p.type),
        prev: p.prev,
        expiration: p.expiration,
        withdrawals: BigInt(d?.withdrawals ?? "0"),
        memberTerms: terms,
        security: Object.keys(params).some((k) => paramColumns[k]!.security),
        groups,
        params,
        committee: d?.committee ? Number(d.committee) : null,
        drepVotes: new Map(cast.filter((v) => v.drep).map((v) => [Number(v.drep), v.vote])),
        poolVotes: new Map(cast.filter((v) => v.pool).map((v) => [Number(v.pool), v.vote])),
        committeeVotes: new Map(
          cast.filter((v) => v.hot).map((v) => [credKey({ hash: v.hot!, script: !!v.script }), v.vote]),
        ),
      };
    });
    const dreps =
      (yield* sql<{ id: string; amount: string; view: string; raw: boolean; activeUntil: number | null }>`
      select d.hash_id::text as id, d.amount::text as amount, h.view, h.raw is not null as raw,
        d.active_until as "activeUntil"
      from drep_distr d join drep_hash h on h.id = d.hash_id where d.epoch_no = ${epoch}`).map((d) => ({
        id: Number(d.id),
        amount: BigInt(d.amount),
        kind: d.raw
          ? "registered" as const
          : d.view === "drep_always_abstain"
          ? "abstain" as const
          : "noConfidence" as const,
        activeUntil: d.activeUntil,
      }));
    const pools = yield* sql<{ pool: string; stake: string; fallback: string | null }>`
      with stake as (select pool_id, sum(amount) as stake from epoch_stake where epoch_no = ${epoch + 1}
                     group by pool_id),
      account as (
        select distinct on (u.hash_id) u.hash_id, u.reward_addr_id from pool_update u
        where u.hash_id in (select pool_id from stake) order by u.hash_id, u.registered_tx_id desc, u.cert_index desc)
      select s.pool_id::text as pool, s.stake::text as stake,
        (select h.view from delegation_vote v join drep_hash h on h.id = v.drep_hash_id
          where v.addr_id = a.reward_addr_id order by v.tx_id desc, v.cert_index desc limit 1) as fallback
      from stake s left join account a on a.hash_id = s.pool_id`;
    const [state] = yield* sql<{ committee: string | null }>`
      select committee_id::text as committee from epoch_state where epoch_no = ${epoch} order by id desc limit 1`;
    const hot = yield* committeeHotKeys(sql);
    const committees = new Map<number, Committee>();
    for (const p of proposals) {
      if (p.committee !== null) {
        committees.set(p.committee, committeeOf(yield* committeeRows(sql, p.committee)));
      }
    }
    const [params] = yield* sql<Record<string, ParamColumnValue | null>>`
      select * from epoch_param where epoch_no = ${epoch}`;
    const roots = yield* sql<{ type: ActionType; id: number }>`
      select distinct on (p) p, type, id from (
        select case when type in ('NoConfidence', 'NewCommittee') then 'c' else type::text end as p,
          type::text as type, id::int as id, enacted_epoch
        from gov_action_proposal where enacted_epoch is not null and enacted_epoch <= ${epoch}
          and type <> 'TreasuryWithdrawals' and type <> 'InfoAction') e
      order by p, enacted_epoch desc, id desc`;
    const [pots] = yield* sql<{ treasury: string }>`
      select treasury::text as treasury from ada_pots where epoch_no = ${epoch} order by id desc limit 1`;
    const rootOf: Record<Purpose, number | null> = {
      protocolParametersUpdate: null,
      hardForkInitiation: null,
      constitutionalCommittee: null,
      constitution: null,
    };
    for (const r of roots) rootOf[purposeOf(r.type)!] = r.id;
    const result = ratify(proposals, {
      params: params ?? {},
      committee: state?.committee ? committeeOf(yield* committeeRows(sql, Number(state.committee))) : null,
      roots: rootOf,
      treasury: BigInt(pots?.treasury ?? "0"),
    }, {
      epoch,
      dreps,
      pools: new Map(pools.map((p) => [Number(p.pool), BigInt(p.stake)])),
      poolDefaults: new Map(
        pools.flatMap((p): Array<[number, "abstain" | "noConfidence"]> =>
          p.fallback === "drep_always_abstain"
            ? [[Number(p.pool), "abstain"]]
            : p.fallback === "drep_always_no_confidence"
            ? [[Number(p.pool), "noConfidence"]]
            : []
        ),
      ),
      hot,
      committees,
    });
    if (result.ratified.length > 0) {
      yield* sql`update gov_action_proposal set ratified_epoch = ${epoch} where id in ${
        sql.in([...result.ratified])
      }`;
    }
    if (result.expired.length > 0) {
      yield* sql`update gov_action_proposal set expired_epoch = ${epoch} where id in ${
        sql.in([...result.expired])
      }`;
    }
  });
