/**
 * The governance state the Conway rules read, from the chain database by db-sync's tables and seen through the
 * mempool: DRep registrations and their deposits, vote delegations (void once the DRep retired, as PV10 clears
 * them), the committee in force (epoch_state) with its members' hot keys or resignations, the live proposals
 * (neither enacted nor dropped), the last enacted action of each purpose, the treasury and the constitution's
 * guardrails script.
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import { Effect } from "effect";
import { type ActionId, type ActionType, type Cred, credKey, type Purpose, purposeOf } from "./parts.ts";
import { securityParamNames } from "./param_update.ts";

export interface DrepState {
  readonly registered: boolean;
  /** The deposit its registration paid (what a retirement must refund). */
  readonly deposit: bigint | null;
}

/** A committee member's hot key (credential key) or its resignation. */
export type MemberState = { readonly hot: string } | "resigned";

export interface CommitteeState {
  /** Cold credential key → expiration epoch; empty when there is no committee. */
  readonly members: ReadonlyMap<string, number>;
  readonly exists: boolean;
  readonly quorum: { readonly numerator: bigint; readonly denominator: bigint } | null;
  /** Cold credential key → its latest authorisation or resignation (members or not). */
  readonly hot: ReadonlyMap<string, MemberState>;
}

export interface LiveProposal {
  readonly id: ActionId;
  readonly type: ActionType;
  readonly purpose?: Purpose;
  /** The last epoch it may be voted on (the ledger's gasExpiresAfter: db-sync's expiration - 1). */
  readonly expiresAfter: number;
  readonly prev: ActionId | null;
  readonly version?: { readonly major: number; readonly minor: number };
  /** Cold credential keys an UpdateCommittee adds. */
  readonly addedMembers: ReadonlyArray<string>;
  /** Whether a ParameterChange touches a security-relevant parameter (stake pools may vote on it). */
  readonly security?: boolean;
}

/** What pending transactions changed in the governance state, applied on top of the database. */
export interface PendingGovernance {
  readonly dreps: ReadonlyMap<string, DrepState>;
  readonly hot: ReadonlyMap<string, MemberState>;
  readonly proposals: ReadonlyArray<LiveProposal>;
  /** Reward account (hex) → the DRep it delegates to ("abstain", "noConfidence" or a credential key), null: none. */
  readonly voteDelegations: ReadonlyMap<string, string | null>;
}

export const emptyPendingGovernance: PendingGovernance = {
  dreps: new Map(),
  hot: new Map(),
  proposals: [],
  voteDelegations: new Map(),
};

export type Roots = Readonly<Record<Purpose, ActionId | null>>;

export interface GovernanceView {
  readonly drep: (c: Cred) => Effect.Effect<DrepState, SqlError>;
  /** The DRep a reward account delegates its vote to, if the delegation stands. */
  readonly voteDelegation: (rewardAddressHex: string) => Effect.Effect<string | null, SqlError>;
  readonly committee: Effect.Effect<CommitteeState, SqlError>;
  readonly proposals: Effect.Effect<ReadonlyArray<LiveProposal>, SqlError>;
  readonly roots: Effect.Effect<Roots, SqlError>;
  readonly treasury: Effect.Effect<bigint, SqlError>;
  readonly constitutionScript: Effect.Effect<string | null, SqlError>;
}

const once = <A>(make: Effect.Effect<A, SqlError>): Effect.Effect<A, SqlError> => {
  let value: { a: A } | undefined;
  return Effect.suspend(() =>
    value ? Effect.succeed(value.a) : Effect.tap(make, (a) => Effect.sync(() => (value = { a })))
  );
};

const specialDrep = (view: string) => (view === "drep_always_abstain" ? "abstain" : "noConfidence");

/** Version and added members of a live proposal, read from db-sync's description JSON. */
const fromDescription = (type: ActionType, description: string) => {
  try {
    const d = JSON.parse(description) as { contents?: Array<unknown> };
    if (type === "HardForkInitiation") {
      const v = d.contents?.[1] as { major: number; minor: number };
      return { version: { major: Number(v.major), minor: Number(v.minor) }, addedMembers: [] };
    }
    if (type === "ParameterChange") {
      const update = (d.contents?.[1] ?? {}) as Record<string, unknown>;
      return { addedMembers: [], security: Object.keys(update).some((k) => securityParamNames.has(k)) };
    }
    if (type === "NewCommittee") {
      const added = Object.keys((d.contents?.[2] ?? {}) as Record<string, unknown>).map((k) => {
        const [kind, hash] = k.split("-") as [string, string];
        return credKey({ hash, script: kind === "scriptHash" });
      });
      return { addedMembers: added };
    }
  } catch {
    // a description the devnet cannot read stands for no version and no members
  }
  return { addedMembers: [] };
};

/** Each committee cold credential's latest certificate as the chain holds it: its hot key, or resigned. */
export const committeeHotKeys = (sql: SqlClient): Effect.Effect<Map<string, MemberState>, SqlError> =>
  Effect.map(
    sql<{ cold: string; coldScript: boolean; kind: string; hot: string | null; hotScript: boolean | null }>`
      select encode(c.raw, 'hex') as cold, c.has_script as "coldScript", e.kind, encode(h.raw, 'hex') as hot,
        h.has_script as "hotScript"
      from (select distinct on (cold_key_id) cold_key_id, kind, hot_key_id from (
          select cold_key_id, 'auth' as kind, hot_key_id, tx_id, cert_index from committee_registration
          union all
          select cold_key_id, 'resign' as kind, null as hot_key_id, tx_id, cert_index from committee_de_registration
        ) x order by cold_key_id, tx_id desc, cert_index desc) e
      join committee_hash c on c.id = e.cold_key_id left join committee_hash h on h.id = e.hot_key_id`,
    (events) =>
      new Map<string, MemberState>(events.map((e) => [
        credKey({ hash: e.cold, script: e.coldScript }),
        e.kind === "resign" ? "resigned" : { hot: credKey({ hash: e.hot!, script: !!e.hotScript }) },
      ])),
  );

export const makeGovernanceView = (
  sql: SqlClient,
  o: { readonly epoch: number; readonly pending: PendingGovernance },
): GovernanceView => {
  const drep = (c: Cred) => {
    const pending = o.pending.dreps.get(credKey(c));
    if (pending) return Effect.succeed(pending);
    return Effect.map(
      sql<{ latest: string | null; known: boolean; paid: string | null }>`
        with h as (select id from drep_hash where raw = decode(${c.hash}, 'hex') and has_script = ${c.script}),
        r as (select deposit, tx_id, cert_index from drep_registration where drep_hash_id = (select id from h))
        select exists (select 1 from r) as known,
          (select deposit::text from r order by tx_id desc, cert_index desc limit 1) as latest,
          (select deposit::text from r where deposit > 0 order by tx_id desc, cert_index desc limit 1) as paid`,
      ([row]): DrepState => ({
        registered: !!row?.known && (row.latest === null || BigInt(row.latest) > 0n),
        deposit: row?.paid ? BigInt(row.paid) : null,
      }),
    );
  };

  const voteDelegation = (rewardAddressHex: string) =>
    Effect.gen(function* () {
      if (o.pending.voteDelegations.has(rewardAddressHex)) {
        return o.pending.voteDelegations.get(rewardAddressHex)!;
      }
      const [row] = yield* sql<{ raw: string | null; script: boolean; view: string; retired: boolean }>`
        with a as (select id from stake_address where hash_raw = decode(${rewardAddressHex}, 'hex')),
        reg as (select max(tx_id) as t from stake_registration where addr_id = (select id from a)),
        dereg as (select max(tx_id) as t from stake_deregistration where addr_id = (select id from a)),
        v as (select tx_id, cert_index, drep_hash_id from delegation_vote
              where addr_id = (select id from a) and tx_id >= (select t from reg)
              order by tx_id desc, cert_index desc limit 1)
        select encode(h.raw, 'hex') as raw, h.has_script as script, h.view,
          exists (select 1 from drep_registration r where r.drep_hash_id = v.drep_hash_id and r.deposit < 0
            and (r.tx_id > v.tx_id or (r.tx_id = v.tx_id and r.cert_index > v.cert_index))) as retired
        from v join drep_hash h on h.id = v.drep_hash_id
        where (select t from reg) > coalesce((select t from dereg), 0)`;
      if (!row || row.retired) return null;
      if (row.raw === null) return specialDrep(row.view);
      const key = credKey({ hash: row.raw, script: row.script });
      // a DRep retired by a pending transaction takes its delegations with it
      return o.pending.dreps.get(key)?.registered === false ? null : key;
    });

  const committee = once(Effect.gen(function* () {
    const [state] = yield* sql<{ committee: string | null }>`
      select committee_id::text as committee from epoch_state order by epoch_no desc, id desc limit 1`;
    const members = new Map<string, number>();
    let quorum: CommitteeState["quorum"] = null;
    if (state?.committee) {
      const rows = yield* sql<{ raw: string; script: boolean; expiration: number; n: string; d: string }>`
        select encode(h.raw, 'hex') as raw, h.has_script as script, m.expiration_epoch as expiration,
          c.quorum_numerator::text as n, c.quorum_denominator::text as d
        from committee c left join committee_member m on m.committee_id = c.id
        left join committee_hash h on h.id = m.committee_hash_id
        where c.id = ${Number(state.committee)}`;
      for (const r of rows) {
        quorum = { numerator: BigInt(r.n), denominator: BigInt(r.d) };
        if (r.raw !== null) members.set(credKey({ hash: r.raw, script: r.script }), r.expiration);
      }
    }
    const hot = yield* committeeHotKeys(sql);
    for (const [cold, s] of o.pending.hot) hot.set(cold, s);
    return { members, exists: state?.committee != null, quorum, hot } satisfies CommitteeState;
  }));

  const proposals = once(Effect.gen(function* () {
    const rows = yield* sql<
      {
        tx: string;
        index: number;
        type: ActionType;
        expiration: number | null;
        description: string;
        prevTx: string | null;
        prevIndex: number | null;
        epoch: number;
      }
    >`
      select encode(t.hash, 'hex') as tx, g.index::int as index, g.type::text as type, g.expiration,
        g.description::text as description, encode(pt.hash, 'hex') as "prevTx", p.index::int as "prevIndex",
        b.epoch_no as epoch
      from gov_action_proposal g join tx t on t.id = g.tx_id join block b on b.id = t.block_id
      left join gov_action_proposal p on p.id = g.prev_gov_action_proposal left join tx pt on pt.id = p.tx_id
      where g.enacted_epoch is null and g.dropped_epoch is null
      order by g.id`;
    const live: Array<LiveProposal> = rows.map((r) => ({
      id: { tx: r.tx, index: r.index },
      type: r.type,
      purpose: purposeOf(r.type),
      expiresAfter: r.expiration === null ? r.epoch : r.expiration - 1,
      prev: r.prevTx === null ? null : { tx: r.prevTx, index: r.prevIndex! },
      ...fromDescription(r.type, r.description),
    }));
    return [...live, ...o.pending.proposals];
  }));

  const roots = once(Effect.map(
    sql<{ purpose: Purpose; tx: string; index: number }>`
      select distinct on (purpose) purpose, tx, index from (
        select case when g.type in ('NoConfidence', 'NewCommittee') then 'constitutionalCommittee'
                    when g.type = 'ParameterChange' then 'protocolParametersUpdate'
                    when g.type = 'HardForkInitiation' then 'hardForkInitiation'
                    when g.type = 'NewConstitution' then 'constitution' end as purpose,
          encode(t.hash, 'hex') as tx, g.index::int as index, g.enacted_epoch, g.id
        from gov_action_proposal g join tx t on t.id = g.tx_id
        where g.enacted_epoch is not null and g.enacted_epoch <= ${o.epoch}) e
      where purpose is not null
      order by purpose, enacted_epoch desc, id desc`,
    (rows) => {
      const out: Record<Purpose, ActionId | null> = {
        protocolParametersUpdate: null,
        hardForkInitiation: null,
        constitutionalCommittee: null,
        constitution: null,
      };
      for (const r of rows) out[r.purpose] = { tx: r.tx, index: r.index };
      return out as Roots;
    },
  ));

  const treasury = once(Effect.map(
    sql<{ treasury: string }>`select treasury::text as treasury from ada_pots order by epoch_no desc limit 1`,
    ([row]) => BigInt(row?.treasury ?? "0"),
  ));

  const constitutionScript = once(Effect.map(
    sql<{ script: string | null }>`
      select encode(c.script_hash, 'hex') as script from epoch_state s join constitution c on c.id = s.constitution_id
      order by s.epoch_no desc, s.id desc limit 1`,
    ([row]) => row?.script ?? null,
  ));

  return { drep, voteDelegation, committee, proposals, roots, treasury, constitutionScript };
};
