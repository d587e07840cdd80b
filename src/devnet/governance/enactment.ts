/**
 * Governance at the boundary into `epoch`, as the ledger's EPOCH rule does it and db-sync records it (the
 * ratification for the new epoch is governance/ratification.ts):
 * - enactment of what was ratified in epoch - 1 (enacted_epoch): treasury withdrawals paid to registered reward
 *   accounts (reward_rest `treasury`), parameter changes and hard forks written into the new epoch_param, the
 *   committee or constitution replaced (epoch_state);
 * - removal (dropped_epoch) of the proposals that expired in epoch - 1, of the siblings of enacted ones (same
 *   purpose and ancestor) and of every descendant of those; every enacted or removed proposal's deposit goes back
 *   to its registered return account (reward_rest `proposal_refund`), or to the treasury;
 * - epoch_state of the new epoch.
 * Refunds and withdrawals earned in epoch - 1 are spendable in epoch, as db-sync writes them.
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import { Effect } from "effect";
import { type ActionType, purposeOf } from "./parts.ts";
import { paramColumns, type ParamColumnValue } from "./param_update.ts";
import { actionPriority } from "./ratify.ts";
import type { RowWriter } from "../rows/row_writer.ts";
import { registeredAccounts } from "../epoch/stake_state.ts";
import { refundDelay } from "@src/domain/epoch_boundary.ts";

export interface Enactment {
  /** Treasury withdrawals paid to reward accounts: they leave the treasury. */
  readonly paid: bigint;
  /** Deposits of enacted and removed proposals: they leave deposits_proposal. */
  readonly refunded: bigint;
  /** The part of them whose return account is not registered: it goes to the treasury. */
  readonly unclaimed: bigint;
}

export interface ProposalRow {
  readonly id: number;
  readonly type: ActionType;
  readonly prev: number | null;
  readonly ratified: number | null;
  readonly enacted: number | null;
  readonly expired: number | null;
  readonly expiration: number | null;
  readonly deposit: string;
  readonly account: string;
  readonly description: string;
}

/** The proposals still in the ledger's proposal set before this boundary. */
export const liveProposals = (sql: SqlClient, epoch: number) =>
  sql<ProposalRow>`
    select id::int as id, type::text as type, prev_gov_action_proposal::int as prev, ratified_epoch as ratified,
      enacted_epoch as enacted, expired_epoch as expired, expiration, deposit::text as deposit, return_address::text as account,
      description::text as description
    from gov_action_proposal where dropped_epoch is null and (enacted_epoch is null or enacted_epoch >= ${epoch})
    order by id`;

export const parseDescription = (description: string) => {
  try {
    return JSON.parse(description) as { contents?: Array<unknown> };
  } catch {
    return {};
  }
};

/** Enacts what epoch - 1 ratified, removes expired and superseded proposals, refunds their deposits. */
export const enactRatified = (w: RowWriter, epoch: number): Effect.Effect<Enactment, SqlError> =>
  Effect.gen(function* () {
    const { sql } = w;
    const live = yield* liveProposals(sql, epoch);
    const enacted = live
      .filter((p) => p.ratified === epoch - 1 && (p.enacted === null || p.enacted === epoch))
      .sort((a, b) => actionPriority[a.type] - actionPriority[b.type] || a.id - b.id);
    const registered = new Set(
      (yield* sql<{ addr: string }>`select addr_id::text as addr from (${registeredAccounts(sql)}) r`).map((
        r,
      ) => r.addr),
    );
    let paid = 0n;
    for (const p of enacted) {
      if (p.type === "TreasuryWithdrawals") {
        const rows = yield* sql<{ addr: string; amount: string }>`
          select stake_address_id::text as addr, amount::text as amount from treasury_withdrawal
          where gov_action_proposal_id = ${p.id} order by id`;
        for (const r of rows.filter((r) => registered.has(r.addr))) {
          yield* sql`insert into reward_rest (addr_id, type, amount, spendable_epoch, earned_epoch)
            values (${Number(r.addr)}, 'treasury', ${r.amount}, ${epoch}, ${epoch - refundDelay})`;
          paid += BigInt(r.amount);
        }
      }
      if (p.type === "ParameterChange") {
        const [row] = yield* sql<Record<string, ParamColumnValue | null>>`
          select * from param_proposal where id = (select param_proposal from gov_action_proposal where id = ${p.id})`;
        const changes = Object.entries(row ?? {}).filter(([k, v]) => k in paramColumns && v !== null);
        for (const [column, value] of changes) {
          yield* sql`update epoch_param set ${sql(column)} = ${value} where epoch_no = ${epoch}`;
        }
      }
      if (p.type === "HardForkInitiation") {
        const version = parseDescription(p.description).contents?.[1] as
          | { major: number; minor: number }
          | undefined;
        if (version) {
          yield* sql`update epoch_param set protocol_major = ${version.major}, protocol_minor = ${version.minor}
            where epoch_no = ${epoch}`;
        }
      }
    }
    // removed: expired ones, the siblings of enacted ones, and all their descendants
    const removed = new Set(
      live.filter((p) => p.expired === epoch - 1 && p.enacted === null).map((p) => p.id),
    );
    const enactedIds = new Set(enacted.map((p) => p.id));
    for (const e of enacted) {
      const purpose = purposeOf(e.type);
      if (!purpose) continue;
      for (const p of live) {
        if (!enactedIds.has(p.id) && purposeOf(p.type) === purpose && p.prev === e.prev) removed.add(p.id);
      }
    }
    for (let grown = true; grown;) {
      grown = false;
      for (const p of live) {
        if (p.prev !== null && removed.has(p.prev) && !removed.has(p.id) && !enactedIds.has(p.id)) {
          removed.add(p.id);
          grown = true;
        }
      }
    }
    let refunded = 0n;
    let unclaimed = 0n;
    for (const p of live.filter((p) => enactedIds.has(p.id) || removed.has(p.id))) {
      refunded += BigInt(p.deposit);
      if (!registered.has(p.account)) {
        unclaimed += BigInt(p.deposit);
        continue;
      }
      yield* sql`insert into reward_rest (addr_id, type, amount, spendable_epoch, earned_epoch)
        values (${Number(p.account)}, 'proposal_refund', ${p.deposit}, ${epoch}, ${epoch - refundDelay})`;
    }
    if (enactedIds.size > 0) {
      yield* sql`update gov_action_proposal set enacted_epoch = ${epoch}
        where id in ${sql.in([...enactedIds])}`;
    }
    if (removed.size > 0) {
      yield* sql`update gov_action_proposal set dropped_epoch = ${epoch} where id in ${sql.in([...removed])}`;
    }
    return { paid, refunded, unclaimed };
  });

/** epoch_state of `epoch`: the committee, no-confidence and constitution in force after the enactments. */
export const writeEpochState = (w: RowWriter, epoch: number): Effect.Effect<void, SqlError> =>
  Effect.gen(function* () {
    const { sql } = w;
    const [previous] = yield* sql<
      { committee: string | null; noConfidence: string | null; constitution: string | null }
    >`
      select committee_id::text as committee, no_confidence_id::text as "noConfidence",
        constitution_id::text as constitution
      from epoch_state where epoch_no < ${epoch} order by epoch_no desc, id desc limit 1`;
    let committee = previous?.committee ?? null;
    let noConfidence = previous?.noConfidence ?? null;
    let constitution = previous?.constitution ?? null;
    const enacted = yield* sql<
      { id: string; type: ActionType; committee: string | null; constitution: string | null }
    >`
      select g.id::text as id, g.type::text as type,
        (select c.id::text from committee c where c.gov_action_proposal_id = g.id order by c.id desc limit 1)
          as committee,
        (select c.id::text from constitution c where c.gov_action_proposal_id = g.id order by c.id desc limit 1)
          as constitution
      from gov_action_proposal g
      where g.enacted_epoch = ${epoch} and g.type in ('NoConfidence', 'NewCommittee', 'NewConstitution')
      order by g.id`;
    for (const e of enacted) {
      if (e.type === "NoConfidence") [committee, noConfidence] = [null, e.id];
      if (e.type === "NewCommittee") [committee, noConfidence] = [e.committee, null];
      if (e.type === "NewConstitution") constitution = e.constitution;
    }
    yield* w.add("epoch_state", {
      committee_id: committee === null ? null : Number(committee),
      no_confidence_id: noConfidence === null ? null : Number(noConfidence),
      constitution_id: constitution === null ? null : Number(constitution),
      epoch_no: epoch,
    });
  });
