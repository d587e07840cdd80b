/**
 * One stake pool in full (spec: PoolInfo; shared/notes/dbsync.md §2), in one statement of index lookups on the
 * pool's id: the latest pool_update gives the current parameters, owners and relays; pool_retire (unless a later
 * pool_update cancelled it) the retirement; off_chain_pool_data the ticker, name, description and homepage.
 *
 * Stake figures come from db-sync's stake snapshots (epoch_stake), not from a live walk over the delegators:
 * - activeStake: the stake active in the current epoch (epoch_stake of the current epoch).
 * - liveStake: the newest snapshot, epoch_stake of the next epoch once db-sync has completed it
 *   (epoch_stake_progress), i.e. the ledger's "mark" snapshot taken at the start of the current epoch; until then
 *   the current epoch's. A true live figure (each current delegator's unspent outputs plus rewards) took 3.2 s for
 *   the biggest pool of the 10M-output test database (12.6k delegators), and grows with the pool's delegators'
 *   outputs, so it is not computed per request.
 * - delegatorCount: the stake addresses with stake in that same snapshot (amount > 0; db-sync before 13.7.0.3
 *   also wrote zero rows).
 * - saturationRatio: liveStake / ((45e15 - reserves of the newest ada_pots) / k of the newest epoch_param), above
 *   1 for an oversaturated pool; saturation: the same capped at 1.0 (the spec's range 0.0 to 1.0).
 * - logo: the first http(s) URL among the off-chain metadata's `logo`, CIP-6 extended `pool.media_assets.logo_png`,
 *   adapools-style `info.url_png_logo`, then the 64x64 icons `pool.media_assets.icon_png_64x64` and
 *   `info.url_png_icon_64x64`, as far as db-sync's off_chain_pool_data.json holds them; null otherwise.
 * - pledgeMet: the owners' stake delegated to this pool in that snapshot (livePledge) >= the declared pledge
 *   (the ledger's rule, on the newest snapshot).
 * - liveEpoch / activeEpoch: the epochs of those two snapshots, for the callers that relate them to the totals.
 * - registrations / retirements: the hashes of the transactions carrying its pool_update and pool_retire
 *   certificates, oldest first.
 * - lifetimeBlocks / epochBlocks: blocks whose slot leader is the pool, in total / in the current epoch.
 * - lifetimeRewards: poolLifetimeRewards, apart, since it reads every reward row of the pool.
 * - ros30d: poolReturnOnStake30d, apart, for the same reason.
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import { Effect } from "effect";
import { epochLength, maxSupply, slotLengthMs } from "@src/domain/network_constants.ts";

export interface PoolRelay {
  readonly dns: string | null;
  readonly ipv4: string | null;
  readonly ipv6: string | null;
  /** SRV relays carry no port (db-sync: NULL); the spec's port is a required integer, so they read 0. */
  readonly port: number;
}

export interface PoolInfo {
  readonly poolId: string;
  readonly poolIdBech32: string;
  readonly ticker: string | null;
  readonly name: string | null;
  readonly description: string | null;
  readonly homepage: string | null;
  readonly logo: string | null;
  readonly liveStake: string;
  readonly activeStake: string;
  readonly saturation: number;
  readonly saturationRatio: number;
  readonly delegatorCount: number;
  readonly pledge: string;
  readonly pledgeMet: boolean;
  readonly livePledge: string;
  readonly liveEpoch: number;
  readonly activeEpoch: number;
  readonly margin: number;
  readonly fixedCost: string;
  readonly lifetimeBlocks: number;
  readonly epochBlocks: number;
  readonly lifetimeRewards?: string;
  readonly rewardAddress: string;
  readonly owners: ReadonlyArray<string>;
  readonly relays: ReadonlyArray<PoolRelay>;
  readonly retiring: number | null;
  readonly vrfKeyHash: string;
  readonly registeredEpoch: number;
  readonly registrations: ReadonlyArray<string>;
  readonly retirements: ReadonlyArray<string>;
}

interface PoolRow {
  readonly poolId: string;
  readonly poolIdBech32: string;
  readonly ticker: string | null;
  readonly name: string | null;
  readonly description: string | null;
  readonly homepage: string | null;
  readonly logoCandidates: ReadonlyArray<unknown> | null;
  readonly liveStake: string;
  readonly activeStake: string;
  readonly delegatorCount: number;
  readonly ownerStake: string;
  readonly liveEpoch: number;
  readonly activeEpoch: number;
  readonly reserves: string | null;
  readonly optimalPoolCount: number | null;
  readonly pledge: string;
  readonly margin: number;
  readonly fixedCost: string;
  readonly lifetimeBlocks: number;
  readonly epochBlocks: number;
  readonly rewardAddress: string;
  readonly owners: ReadonlyArray<string>;
  readonly relays: ReadonlyArray<
    { dns: string | null; ipv4: string | null; ipv6: string | null; port: number | null }
  >;
  readonly retiring: number | null;
  readonly vrfKeyHash: string;
  readonly registeredEpoch: number;
  readonly registrations: ReadonlyArray<string>;
  readonly retirements: ReadonlyArray<string>;
}

/** liveStake relative to the saturation point (45e15 - reserves) / k; 0 when pots or k are not known. */
export const saturationOf = (stake: string, reserves: string | null, k: number | null): number => {
  if (reserves === null || !k) return 0;
  const point = (Number(maxSupply) - Number(reserves)) / k;
  return point > 0 ? Number(stake) / point : 0;
};

/** The first candidate that is an http(s) URL (metadata is the operator's free JSON: anything else is ignored). */
export const logoOf = (candidates: ReadonlyArray<unknown> | null): string | null =>
  (candidates ?? []).find((c): c is string => typeof c === "string" && /^https?:\/\/\S+$/i.test(c)) ?? null;

/** The pool with this 28-byte hash (hex), or undefined when db-sync has no registration of it. */
export const poolInfo = (
  sql: SqlClient,
  poolHashHex: string,
): Effect.Effect<PoolInfo | undefined, SqlError> =>
  Effect.map(
    sql<PoolRow>`/* prepared */
      with pool as (select id, hash_raw, view from pool_hash where hash_raw = decode(${poolHashHex}, 'hex')),
           tip as (select epoch_no from block where block_no is not null order by id desc limit 1),
           upd as (select u.id, u.pledge, u.margin, u.fixed_cost, u.vrf_key_hash, u.reward_addr_id, u.meta_id,
                          u.registered_tx_id, u.cert_index
                   from pool_update u where u.hash_id = (select id from pool)
                   order by u.registered_tx_id desc, u.cert_index desc limit 1),
           first_upd as (select u.registered_tx_id from pool_update u where u.hash_id = (select id from pool)
                         order by u.registered_tx_id, u.cert_index limit 1),
           retire as (select r.retiring_epoch, r.announced_tx_id, r.cert_index
                      from pool_retire r where r.hash_id = (select id from pool)
                      order by r.announced_tx_id desc, r.cert_index desc limit 1),
           -- the newest completed snapshot: next epoch's (taken at the start of this one) or this epoch's
           snap as (select case when exists (select 1 from epoch_stake_progress p
                                             where p.epoch_no = tip.epoch_no + 1 and p.completed)
                                then tip.epoch_no + 1 else tip.epoch_no end as epoch_no
                    from tip),
           live as (select coalesce(sum(e.amount), 0) as stake, count(*) filter (where e.amount > 0) as delegators
                    from epoch_stake e
                    where e.pool_id = (select id from pool) and e.epoch_no = (select epoch_no from snap)),
           owners as (select o.id, o.addr_id, s.view from pool_owner o join stake_address s on s.id = o.addr_id
                      where o.pool_update_id = (select id from upd)),
           leaders as (select id from slot_leader where pool_hash_id = (select id from pool)),
           meta as (select d.ticker_name, d.json from off_chain_pool_data d
                    where d.pool_id = (select id from pool)
                    order by (d.pmr_id is not distinct from (select meta_id from upd)) desc, d.id desc limit 1)
      select encode(pool.hash_raw, 'hex') as "poolId", pool.view as "poolIdBech32",
             meta.ticker_name as ticker, meta.json ->> 'name' as name,
             meta.json ->> 'description' as description, meta.json ->> 'homepage' as homepage,
             json_build_array(meta.json -> 'logo', meta.json #> '{pool,media_assets,logo_png}',
                              meta.json #> '{info,url_png_logo}', meta.json #> '{pool,media_assets,icon_png_64x64}',
                              meta.json #> '{info,url_png_icon_64x64}') as "logoCandidates",
             live.stake::text as "liveStake",
             (select coalesce(sum(e.amount), 0)::text from epoch_stake e
              where e.pool_id = pool.id and e.epoch_no = tip.epoch_no) as "activeStake",
             live.delegators::int as "delegatorCount",
             (select coalesce(sum(e.amount), 0)::text from epoch_stake e
              where e.addr_id in (select addr_id from owners) and e.pool_id = pool.id
                and e.epoch_no = (select epoch_no from snap)) as "ownerStake",
             (select epoch_no from snap) as "liveEpoch", tip.epoch_no as "activeEpoch",
             (select p.reserves::text from ada_pots p order by p.id desc limit 1) as reserves,
             (select p.optimal_pool_count from epoch_param p order by p.id desc limit 1)::int as "optimalPoolCount",
             upd.pledge::text as pledge, upd.margin, upd.fixed_cost::text as "fixedCost",
             (select count(*)::int from block b where b.slot_leader_id in (select id from leaders))
               as "lifetimeBlocks",
             (select count(*)::int from block b where b.slot_leader_id in (select id from leaders)
                and b.epoch_no = tip.epoch_no) as "epochBlocks",
             (select s.view from stake_address s where s.id = upd.reward_addr_id) as "rewardAddress",
             coalesce((select json_agg(o.view order by o.id) from owners o), '[]') as owners,
             coalesce((select json_agg(json_build_object(
                 'dns', coalesce(r.dns_name, r.dns_srv_name), 'ipv4', r.ipv4, 'ipv6', r.ipv6,
                 'port', case when r.port < 0 then r.port + 65536 else r.port end) order by r.id)
               from pool_relay r where r.update_id = upd.id), '[]') as relays,
             -- a registration (update) after the latest retirement certificate cancels it or re-registers
             (select r.retiring_epoch from retire r
              where (r.announced_tx_id, r.cert_index) > (upd.registered_tx_id, upd.cert_index)) as retiring,
             encode(upd.vrf_key_hash, 'hex') as "vrfKeyHash",
             (select b.epoch_no from first_upd f join tx t on t.id = f.registered_tx_id
              join block b on b.id = t.block_id) as "registeredEpoch",
             coalesce((select json_agg(encode(t.hash, 'hex') order by u.registered_tx_id, u.cert_index)
                       from pool_update u join tx t on t.id = u.registered_tx_id where u.hash_id = pool.id), '[]')
               as registrations,
             coalesce((select json_agg(encode(t.hash, 'hex') order by r.announced_tx_id, r.cert_index)
                       from pool_retire r join tx t on t.id = r.announced_tx_id where r.hash_id = pool.id), '[]')
               as retirements
      from pool cross join upd cross join tip cross join live
      left join meta on true`,
    ([row]) => {
      if (!row) return undefined;
      const { ownerStake, reserves, optimalPoolCount, relays, logoCandidates, ...rest } = row;
      const saturationRatio = saturationOf(rest.liveStake, reserves, optimalPoolCount);
      return {
        poolId: rest.poolId,
        poolIdBech32: rest.poolIdBech32,
        ticker: rest.ticker,
        name: rest.name,
        description: rest.description,
        homepage: rest.homepage,
        logo: logoOf(logoCandidates),
        liveStake: rest.liveStake,
        activeStake: rest.activeStake,
        saturation: Math.min(saturationRatio, 1),
        saturationRatio,
        delegatorCount: rest.delegatorCount,
        pledge: rest.pledge,
        pledgeMet: BigInt(ownerStake) >= BigInt(rest.pledge),
        livePledge: ownerStake,
        liveEpoch: rest.liveEpoch,
        activeEpoch: rest.activeEpoch,
        margin: rest.margin,
        fixedCost: rest.fixedCost,
        lifetimeBlocks: rest.lifetimeBlocks,
        epochBlocks: rest.epochBlocks,
        rewardAddress: rest.rewardAddress,
        owners: rest.owners,
        relays: relays.map((r) => ({ dns: r.dns, ipv4: r.ipv4, ipv6: r.ipv6, port: r.port ?? 0 })),
        retiring: rest.retiring,
        vrfKeyHash: rest.vrfKeyHash,
        registeredEpoch: rest.registeredEpoch,
        registrations: rest.registrations,
        retirements: rest.retirements,
      } satisfies PoolInfo;
    },
  );

/**
 * Leader and member rewards of the pool spendable by now (db-sync writes the next epochs' rows early). Reads every
 * reward row of the pool (idx on reward.pool_id): millions for a large mainnet pool, so callers cache it per epoch.
 * Prepared: the pool's id comes from a subquery, so its plan never knew the pool anyway, and planning it (2 ms)
 * cost ten times its run for an ordinary pool.
 */
export const poolLifetimeRewards = (sql: SqlClient, poolHashHex: string): Effect.Effect<string, SqlError> =>
  Effect.map(
    sql<{ total: string }>`/* prepared */
      select coalesce(sum(r.amount), 0)::text as total from reward r
      where r.pool_id = (select id from pool_hash where hash_raw = decode(${poolHashHex}, 'hex'))
        and r.type in ('leader', 'member')
        and r.spendable_epoch <= (select epoch_no from block where block_no is not null order by id desc limit 1)`,
    ([row]) => row?.total ?? "0",
  );

/** Epochs in 30 days, and epochs in a year (365 days), at the Shelley epoch length of every network served. */
const epochsIn30Days = Math.round((30 * 86_400_000) / (epochLength * slotLengthMs));
const epochsPerYear = (365 * 86_400_000) / (epochLength * slotLengthMs);

/**
 * ros30d: the pool's return on stake over the last 30 days of finished epochs, annualized:
 *   window  = the newest `epochsIn30Days` (6) epochs E whose rewards are final: E + 2 <= the tip's epoch (the
 *             ledger pays the rewards earned in E at the start of E + 2: db-sync's spendable_epoch)
 *   ros30d  = (sum over the window of the pool's `member` rewards earned in E: what its delegators got, the
 *              operator's `leader` rewards excluded)
 *           / (sum over the window of the pool's epoch_stake in E: the stake active in E)
 *           * epochsPerYear (365 days / 5-day epochs = 73): simple, not compounded.
 * undefined when the pool had no active stake in the window (no history). Reads the pool's reward rows of six
 * epochs (idx_reward_pool_id) and its epoch_stake rows of six epochs: callers cache it per epoch. Prepared, as
 * poolLifetimeRewards is (the pool's id comes from a subquery).
 */
export const poolReturnOnStake30d = (
  sql: SqlClient,
  poolHashHex: string,
): Effect.Effect<number | undefined, SqlError> =>
  Effect.map(
    sql<{ rewards: string; stake: string }>`/* prepared */
      with pool as (select id from pool_hash where hash_raw = decode(${poolHashHex}, 'hex')),
           tip as (select epoch_no from block where block_no is not null order by id desc limit 1),
           win as (select tip.epoch_no - 2 - ${
      epochsIn30Days - 1
    } as first, tip.epoch_no - 2 as last from tip)
      select (select coalesce(sum(r.amount), 0)::text from reward r, win
              where r.pool_id = (select id from pool) and r.type = 'member'
                and r.earned_epoch between win.first and win.last) as rewards,
             (select coalesce(sum(e.amount), 0)::text from epoch_stake e, win
              where e.pool_id = (select id from pool)
                and e.epoch_no between win.first and win.last) as stake`,
    ([row]) =>
      !row || BigInt(row.stake) === 0n
        ? undefined
        : (Number(row.rewards) / Number(row.stake)) * epochsPerYear,
  );
