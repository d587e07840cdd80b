/**
 * Registered, not retired stake pools with their current parameters: each pool's latest pool_update (a later
 * registration cancels an announced retirement; a retirement counts once its epoch has come), owners, relays,
 * metadata anchor, and optionally the stake active this epoch. One statement; a few thousand pools on mainnet.
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import type { Effect } from "effect";

export interface StakePoolRow {
  readonly id: string;
  readonly vrf: string;
  readonly margin: number;
  readonly cost: string;
  readonly pledge: string;
  readonly rewardAccount: string;
  readonly owners: ReadonlyArray<string> | null;
  readonly relays:
    | ReadonlyArray<{ ipv4: string | null; ipv6: string | null; dns: string | null; port: number | null }>
    | null;
  readonly metadataUrl: string | null;
  readonly metadataHash: string | null;
  readonly stake: string | null;
}

export const stakePools = (
  sql: SqlClient,
  /** `hashes`: 28-byte pool hashes (hex) to restrict to; null for every pool. */
  options: { readonly hashes: ReadonlyArray<string> | null; readonly includeStake: boolean },
): Effect.Effect<ReadonlyArray<StakePoolRow>, SqlError> =>
  sql<StakePoolRow>`
    with tip as (select epoch_no from block where block_no is not null order by id desc limit 1),
         latest as (select distinct on (u.hash_id) u.* from pool_update u
                    order by u.hash_id, u.registered_tx_id desc, u.cert_index desc),
         live as (select l.* from latest l where not exists (
                    select 1 from pool_retire r where r.hash_id = l.hash_id
                      and r.retiring_epoch <= (select epoch_no from tip)
                      and (r.announced_tx_id > l.registered_tx_id
                           or (r.announced_tx_id = l.registered_tx_id and r.cert_index > l.cert_index))))
    select p.view as id, encode(live.vrf_key_hash, 'hex') as vrf, live.margin,
           live.fixed_cost::text as cost, live.pledge::text as pledge, sa.view as "rewardAccount",
           (select json_agg(encode(substring(s.hash_raw from 2), 'hex') order by o.id)
            from pool_owner o join stake_address s on s.id = o.addr_id where o.pool_update_id = live.id) as owners,
           (select json_agg(json_build_object('ipv4', r.ipv4, 'ipv6', r.ipv6,
                   'dns', coalesce(r.dns_name, r.dns_srv_name),
                   'port', case when r.port < 0 then r.port + 65536 else r.port end) order by r.id)
            from pool_relay r where r.update_id = live.id) as relays,
           m.url as "metadataUrl", encode(m.hash, 'hex') as "metadataHash",
           case when ${options.includeStake} then (select coalesce(sum(e.amount), 0)::text from epoch_stake e
                 where e.pool_id = live.hash_id and e.epoch_no = (select epoch_no from tip)) end as stake
    from live join pool_hash p on p.id = live.hash_id
    join stake_address sa on sa.id = live.reward_addr_id
    left join pool_metadata_ref m on m.id = live.meta_id
    where ${options.hashes === null}
       or p.hash_raw in (select decode(h, 'hex') from unnest(${options.hashes ?? []}::text[]) as h)
    order by p.id`;
