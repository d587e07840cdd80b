/**
 * The operator pool's live figures: its current registration (latest pool_update) with relays, stake and
 * delegators active this epoch (epoch_stake), blocks this epoch and in total (slot_leader -> block, indexed), and
 * the tip. Every part is an index lookup on the pool's id.
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import { Effect } from "effect";

export interface PoolStatusRow {
  readonly activeStake: string;
  readonly delegators: number;
  readonly epochBlocks: number;
  readonly lifetimeBlocks: number;
  readonly margin: number;
  readonly pledge: string;
  readonly tipBlock: number;
  readonly tipSlot: string;
  readonly tipEpoch: number;
  readonly relays: ReadonlyArray<
    { dns: string | null; ipv4: string | null; ipv6: string | null; port: number | null }
  >;
}

export const poolStatus = (
  sql: SqlClient,
  poolHash: string,
): Effect.Effect<PoolStatusRow | undefined, SqlError> =>
  Effect.map(
    sql<PoolStatusRow>`
      with pool as (select id from pool_hash where hash_raw = decode(${poolHash}, 'hex')),
           upd as (select u.id, u.margin, u.pledge from pool_update u where u.hash_id = (select id from pool)
                   order by u.registered_tx_id desc, u.cert_index desc limit 1),
           tip as (select block_no, slot_no, epoch_no from block where block_no is not null order by id desc limit 1),
           leaders as (select id from slot_leader where pool_hash_id = (select id from pool))
      select (select coalesce(sum(amount), 0)::text from epoch_stake
              where pool_id = (select id from pool) and epoch_no = (select epoch_no from tip)) as "activeStake",
             (select count(*)::int from epoch_stake
              where pool_id = (select id from pool) and epoch_no = (select epoch_no from tip)) as delegators,
             (select count(*)::int from block where slot_leader_id in (select id from leaders)
              and epoch_no = (select epoch_no from tip)) as "epochBlocks",
             (select count(*)::int from block where slot_leader_id in (select id from leaders)) as "lifetimeBlocks",
             upd.margin, upd.pledge::text as pledge,
             tip.block_no as "tipBlock", tip.slot_no::text as "tipSlot", tip.epoch_no as "tipEpoch",
             coalesce((select json_agg(json_build_object(
                 'dns', coalesce(r.dns_name, r.dns_srv_name), 'ipv4', r.ipv4, 'ipv6', r.ipv6,
                 'port', case when r.port < 0 then r.port + 65536 else r.port end) order by r.id)
               from pool_relay r where r.update_id = upd.id), '[]') as relays
      from upd, tip`,
    (rows) => rows[0],
  );
