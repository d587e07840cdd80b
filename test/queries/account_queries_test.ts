/**
 * The pool, stake account, address and DRep queries on the demo chain, each compared with an independent
 * computation: the raw rows read with plain SQL and folded in JavaScript (latest certificates, spent outputs,
 * snapshots, distributions), and addresses classified by the request decoder rather than by the query module.
 */
import assert from "node:assert/strict";
import { bech32 } from "@scure/base";
import { Effect } from "effect";
import type { SpentTracking } from "@src/dbsync/detect.ts";
import { decodeAddress } from "@src/domain/cardano_ids.ts";
import { type AddressInfo, type AddressUtxo, addressUtxos } from "@src/queries/address.ts";
import { addressInfo } from "@src/queries/address_summary.ts";
import { type DRep, dreps } from "@src/queries/dreps.ts";
import { type PoolInfo, poolInfo, poolLifetimeRewards } from "@src/queries/pool.ts";
import { type StakeAccount, stakeAccount } from "@src/queries/stake_account.ts";
import { createTestChain, type TestChain } from "../support/demo_chain.ts";

/** What the explorer reads of these queries; the Blockfrost dialect's further fields are tested in test/blockfrost/. */
type ExplorerPool = Omit<
  PoolInfo,
  "livePledge" | "liveEpoch" | "activeEpoch" | "registrations" | "retirements"
>;
type ExplorerUtxo = Omit<AddressUtxo, "address" | "blockHash" | "inlineDatum" | "referenceScriptHash">;
type ExplorerDRep = Omit<
  DRep,
  "hex" | "hasScript" | "retired" | "expired" | "lastActiveEpoch" | "activeEpoch" | "anchor"
>;

/** `actual` cut to the fields `expected` has (a page's items each to its expected item's). */
// deno-lint-ignore no-explicit-any
const explorerPart = (actual: any, expected: any): unknown => {
  if (typeof actual !== "object" || actual === null || typeof expected !== "object" || expected === null) {
    return actual;
  }
  if (Array.isArray(actual)) return actual.map((a, i) => explorerPart(a, expected[i]));
  return Object.fromEntries(Object.keys(expected).map((k) => [k, explorerPart(actual[k], expected[k])]));
};

let chain: TestChain;
const query = <A extends object>(text: string): Promise<ReadonlyArray<A>> =>
  Effect.runPromise(chain.sql.unsafe<A>(text));
const run = <A>(effect: Effect.Effect<A, unknown>): Promise<A> => Effect.runPromise(effect);

const groupBy = <A, K>(items: ReadonlyArray<A>, key: (a: A) => K): Map<K, Array<A>> => {
  const map = new Map<K, Array<A>>();
  for (const item of items) {
    const list = map.get(key(item)) ?? [];
    list.push(item);
    map.set(key(item), list);
  }
  return map;
};

const sum = (values: Iterable<string | bigint>): bigint => {
  let total = 0n;
  for (const v of values) total += BigInt(v);
  return total;
};

/** Certificate order: (tx_id, cert_index). */
interface Cert {
  readonly tx_id: string;
  readonly cert_index: number;
}
const compareCert = (a: Cert, b: Cert): number =>
  a.tx_id === b.tx_id ? a.cert_index - b.cert_index : BigInt(a.tx_id) < BigInt(b.tx_id) ? -1 : 1;
const latest = <A extends Cert>(certs: ReadonlyArray<A> | undefined): A | undefined =>
  certs?.reduce<A | undefined>(
    (best, c) => (best === undefined || compareCert(c, best) > 0 ? c : best),
    undefined,
  );
const earliest = <A extends Cert>(certs: ReadonlyArray<A> | undefined): A | undefined =>
  certs?.reduce<A | undefined>(
    (best, c) => (best === undefined || compareCert(c, best) < 0 ? c : best),
    undefined,
  );

/** The chain's facts every expectation needs. */
interface Basics {
  readonly tip: number;
  readonly txEpoch: Map<string, number>;
  readonly stakeView: Map<string, string>;
}

const loadBasics = async (): Promise<Basics> => {
  const [tip] = await query<{ epoch_no: number }>(
    `select epoch_no from block where block_no is not null order by block_no desc limit 1`,
  );
  const txs = await query<{ id: string; epoch_no: number }>(
    `select t.id, b.epoch_no from tx t join block b on b.id = t.block_id`,
  );
  const stake = await query<{ id: string; view: string }>(`select id, view from stake_address`);
  return {
    tip: tip!.epoch_no,
    txEpoch: new Map(txs.map((t) => [t.id, t.epoch_no])),
    stakeView: new Map(stake.map((s) => [s.id, s.view])),
  };
};

// ---------------------------------------------------------------------------------------------------- pools

interface RawUpdate extends Cert {
  readonly id: string;
  readonly hash_id: string;
  readonly vrf: string;
  readonly pledge: string;
  readonly meta_id: string | null;
  readonly margin: number;
  readonly fixed_cost: string;
  readonly reward_addr_id: string;
}
interface RawRetire extends Cert {
  readonly hash_id: string;
  readonly retiring_epoch: number;
}

const expectedPools = async (b: Basics): Promise<Map<string, ExplorerPool>> => {
  const pools = await query<{ id: string; hex: string; view: string }>(
    `select id, encode(hash_raw, 'hex') as hex, view from pool_hash`,
  );
  const updates = groupBy(
    await query<RawUpdate>(
      `select id, hash_id, cert_index, encode(vrf_key_hash, 'hex') as vrf, pledge::text as pledge, meta_id, margin,
              fixed_cost::text as fixed_cost, registered_tx_id as tx_id, reward_addr_id from pool_update`,
    ),
    (u) => u.hash_id,
  );
  const retires = groupBy(
    await query<RawRetire>(
      `select hash_id, cert_index, announced_tx_id as tx_id, retiring_epoch from pool_retire`,
    ),
    (r) => r.hash_id,
  );
  const owners = groupBy(
    await query<{ id: string; addr_id: string; pool_update_id: string }>(
      `select id, addr_id, pool_update_id from pool_owner`,
    ),
    (o) => o.pool_update_id,
  );
  const relays = groupBy(
    await query<
      {
        id: string;
        update_id: string;
        ipv4: string | null;
        ipv6: string | null;
        dns_name: string | null;
        dns_srv_name: string | null;
        port: number | null;
      }
    >(`select id, update_id, ipv4, ipv6, dns_name, dns_srv_name, port from pool_relay`),
    (r) => r.update_id,
  );
  const offChain = groupBy(
    await query<
      { id: string; pool_id: string; pmr_id: string; ticker_name: string; json: Record<string, string> }
    >(`select id, pool_id, pmr_id, ticker_name, json from off_chain_pool_data`),
    (o) => o.pool_id,
  );
  const epochStake = await query<{ addr_id: string; pool_id: string; amount: string; epoch_no: number }>(
    `select addr_id, pool_id, amount::text as amount, epoch_no from epoch_stake`,
  );
  const completed = new Set(
    (await query<{ epoch_no: number }>(`select epoch_no from epoch_stake_progress where completed`)).map((
      p,
    ) => p.epoch_no),
  );
  const leaders = new Map(
    (await query<{ id: string; pool_hash_id: string | null }>(`select id, pool_hash_id from slot_leader`))
      .map((l) => [l.id, l.pool_hash_id]),
  );
  const blocks = await query<{ slot_leader_id: string; epoch_no: number }>(
    `select slot_leader_id, epoch_no from block where block_no is not null`,
  );
  const rewards = await query<
    { pool_id: string | null; type: string; amount: string; spendable_epoch: number }
  >(
    `select pool_id, type::text as type, amount::text as amount, spendable_epoch from reward`,
  );
  const [pots] = await query<{ reserves: string }>(
    `select reserves::text as reserves from ada_pots order by epoch_no desc limit 1`,
  );
  const [params] = await query<{ k: number }>(
    `select optimal_pool_count as k from epoch_param order by epoch_no desc limit 1`,
  );
  const snapshot = completed.has(b.tip + 1) ? b.tip + 1 : b.tip;

  const result = new Map<string, ExplorerPool>();
  for (const pool of pools) {
    const upd = latest(updates.get(pool.id));
    if (!upd) continue;
    const first = earliest(updates.get(pool.id))!;
    const retire = latest(retires.get(pool.id));
    const stakeIn = (epoch: number) =>
      epochStake.filter((e) => e.pool_id === pool.id && e.epoch_no === epoch);
    const live = stakeIn(snapshot);
    const liveStake = sum(live.map((e) => e.amount));
    const ownerIds = (owners.get(upd.id) ?? []).sort((x, y) => Number(x.id) - Number(y.id));
    const ownerStake = sum(
      live.filter((e) => ownerIds.some((o) => o.addr_id === e.addr_id)).map((e) => e.amount),
    );
    const meta = (offChain.get(pool.id) ?? []).sort((x, y) =>
      (x.pmr_id === upd.meta_id ? 0 : 1) - (y.pmr_id === upd.meta_id ? 0 : 1) || Number(y.id) - Number(x.id)
    )[0];
    const poolBlocks = blocks.filter((bl) =>
      leaders.get(bl.slot_leader_id) === pool.id
    );
    result.set(pool.hex, {
      poolId: pool.hex,
      poolIdBech32: pool.view,
      ticker: meta?.ticker_name ?? null,
      name: meta?.json.name ?? null,
      description: meta?.json.description ?? null,
      homepage: meta?.json.homepage ?? null,
      logo: null, // the demo metadata names none (test/queries/pool_spec_fields_test.ts covers logos)
      liveStake: liveStake.toString(),
      activeStake: sum(stakeIn(b.tip).map((e) => e.amount)).toString(),
      saturation: Math.min(1, Number(liveStake) / ((45e15 - Number(pots!.reserves)) / params!.k)),
      saturationRatio: Number(liveStake) / ((45e15 - Number(pots!.reserves)) / params!.k),
      delegatorCount: live.filter((e) => BigInt(e.amount) > 0n).length,
      pledge: upd.pledge,
      pledgeMet: ownerStake >= BigInt(upd.pledge),
      margin: upd.margin,
      fixedCost: upd.fixed_cost,
      lifetimeBlocks: poolBlocks.length,
      epochBlocks: poolBlocks.filter((bl) => bl.epoch_no === b.tip).length,
      lifetimeRewards: sum(
        rewards.filter((r) =>
          r.pool_id === pool.id && (r.type === "leader" || r.type === "member") && r.spendable_epoch <= b.tip
        ).map((r) => r.amount),
      ).toString(),
      rewardAddress: b.stakeView.get(upd.reward_addr_id)!,
      owners: ownerIds.map((o) => b.stakeView.get(o.addr_id)!),
      relays: (relays.get(upd.id) ?? []).sort((x, y) => Number(x.id) - Number(y.id)).map((r) => ({
        dns: r.dns_name ?? r.dns_srv_name,
        ipv4: r.ipv4,
        ipv6: r.ipv6,
        port: r.port === null ? 0 : r.port < 0 ? r.port + 65536 : r.port,
      })),
      retiring: retire && compareCert(retire, upd) > 0 ? retire.retiring_epoch : null,
      vrfKeyHash: upd.vrf,
      registeredEpoch: b.txEpoch.get(first.tx_id)!,
    });
  }
  return result;
};

// ------------------------------------------------------------------------------------------- stake accounts

interface Outputs {
  readonly rows: ReadonlyArray<{
    id: string;
    tx_id: string;
    index: number;
    address: string;
    value: string;
    stake_address_id: string | null;
    data_hash: string | null;
  }>;
  /** `${tx_id}:${index}` of spent outputs -> the spending tx. */
  readonly spentBy: Map<string, string>;
}

const loadOutputs = async (): Promise<Outputs> => {
  const rows = await query<Outputs["rows"][number]>(
    `select id, tx_id, index, address, value::text as value, stake_address_id,
            encode(data_hash, 'hex') as data_hash from tx_out`,
  );
  const inputs = await query<{ tx_out_id: string; tx_out_index: number; tx_in_id: string }>(
    `select tx_out_id, tx_out_index, tx_in_id from tx_in`,
  );
  return { rows, spentBy: new Map(inputs.map((i) => [`${i.tx_out_id}:${i.tx_out_index}`, i.tx_in_id])) };
};

const isUnspent = (o: Outputs, row: Outputs["rows"][number]) => !o.spentBy.has(`${row.tx_id}:${row.index}`);

interface AccountFacts {
  readonly accounts: ReadonlyArray<{ id: string; hash_raw: string; view: string }>;
  readonly expected: (hashRaw: string) => StakeAccount;
  readonly regs: Map<string, Array<Cert>>;
  readonly deregs: Map<string, Array<Cert>>;
  readonly delegs: Map<string, Array<Cert & { pool_hash_id: string }>>;
  readonly withdrawn: Set<string>;
  readonly rewarded: Set<string>;
}

const expectedAccounts = async (b: Basics, outputs: Outputs): Promise<AccountFacts> => {
  const accounts = await query<{ id: string; hash_raw: string; view: string }>(
    `select id, encode(hash_raw, 'hex') as hash_raw, view from stake_address`,
  );
  const certs = (table: string, extra = "") =>
    query<Cert & { addr_id: string; pool_hash_id: string }>(
      `select addr_id, tx_id, cert_index${extra} from ${table}`,
    );
  const regs = groupBy(await certs("stake_registration"), (c) => c.addr_id);
  const deregs = groupBy(await certs("stake_deregistration"), (c) => c.addr_id);
  const delegs = groupBy(await certs("delegation", ", pool_hash_id"), (c) => c.addr_id);
  const updates = groupBy(
    await query<Cert & { hash_id: string }>(
      `select hash_id, registered_tx_id as tx_id, cert_index from pool_update`,
    ),
    (u) => u.hash_id,
  );
  const retires = groupBy(
    await query<RawRetire>(
      `select hash_id, cert_index, announced_tx_id as tx_id, retiring_epoch from pool_retire`,
    ),
    (r) => r.hash_id,
  );
  const views = new Map(
    (await query<{ id: string; view: string }>(`select id, view from pool_hash`)).map((p) => [p.id, p.view]),
  );
  const amounts = async (text: string) =>
    groupBy(
      await query<{ addr_id: string; amount: string; spendable_epoch: number }>(text),
      (r) => r.addr_id,
    );
  const rewards = await amounts(`select addr_id, amount::text as amount, spendable_epoch from reward`);
  const rest = await amounts(`select addr_id, amount::text as amount, spendable_epoch from reward_rest`);
  const withdrawals = await amounts(
    `select addr_id, amount::text as amount, 0 as spendable_epoch from withdrawal`,
  );
  const utxo = new Map<string, bigint>();
  for (const row of outputs.rows) {
    if (row.stake_address_id === null || !isUnspent(outputs, row)) continue;
    utxo.set(row.stake_address_id, (utxo.get(row.stake_address_id) ?? 0n) + BigInt(row.value));
  }
  const byHash = new Map(accounts.map((a) => [a.hash_raw, a]));

  const expected = (hashRaw: string): StakeAccount => {
    const account = byHash.get(hashRaw);
    if (!account) return { registered: false, delegatedPoolId: null, rewardsBalance: "0", totalStake: "0" };
    const reg = latest(regs.get(account.id));
    const dereg = latest(deregs.get(account.id));
    const registered = reg !== undefined && (dereg === undefined || compareCert(reg, dereg) > 0);
    const deleg = latest(delegs.get(account.id));
    // dangling: the pool retired (for good: no pool_update after the certificate before that epoch) since the
    // delegation's epoch
    const dangling = deleg !== undefined &&
      (retires.get(deleg.pool_hash_id) ?? []).some((r) =>
        r.retiring_epoch <= b.tip && r.retiring_epoch > b.txEpoch.get(deleg.tx_id)! &&
        !(updates.get(deleg.pool_hash_id) ?? []).some((u) =>
          compareCert(u, r) > 0 && b.txEpoch.get(u.tx_id)! < r.retiring_epoch
        )
      );
    const pool = registered && deleg && compareCert(deleg, reg!) >= 0 && !dangling
      ? views.get(deleg.pool_hash_id)!
      : null;
    const spendable = (rows: Map<string, Array<{ amount: string; spendable_epoch: number }>>) =>
      sum((rows.get(account.id) ?? []).filter((r) => r.spendable_epoch <= b.tip).map((r) => r.amount));
    const balance = spendable(rewards) + spendable(rest) -
      sum((withdrawals.get(account.id) ?? []).map((w) => w.amount));
    return {
      registered,
      delegatedPoolId: pool,
      rewardsBalance: balance.toString(),
      totalStake: (balance + (utxo.get(account.id) ?? 0n)).toString(),
    };
  };
  return {
    accounts,
    expected,
    regs,
    deregs,
    delegs,
    withdrawn: new Set(withdrawals.keys()),
    rewarded: new Set([...rewards.keys(), ...rest.keys()]),
  };
};

// ------------------------------------------------------------------------------------------------ addresses

interface AddressFacts {
  readonly info: (address: string) => AddressInfo | undefined;
  readonly utxos: (address: string) => ReadonlyArray<ExplorerUtxo>;
  readonly addresses: ReadonlyArray<string>;
  readonly timeOfTx: (txId: string) => string;
}

const assetText = (hex: string): string => {
  const bytes = Uint8Array.from(hex.match(/../g) ?? [], (h) => parseInt(h, 16));
  try {
    const text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return [...text].some((c) => c.charCodeAt(0) < 32 || c.charCodeAt(0) === 127) ? hex : text;
  } catch {
    return hex;
  }
};

const expectedAddresses = async (b: Basics, outputs: Outputs): Promise<AddressFacts> => {
  const txs = new Map(
    (await query<{ id: string; hash: string; block_id: string }>(
      `select id, encode(hash, 'hex') as hash, block_id from tx`,
    )).map((t) => [t.id, t]),
  );
  const blocks = new Map(
    (await query<{ id: string; block_no: number; time: Date }>(`select id, block_no, time from block`))
      .map((bl) => [bl.id, bl]),
  );
  const assets = new Map(
    (await query<{ id: string; policy: string; name: string; fingerprint: string }>(
      `select id, encode(policy, 'hex') as policy, encode(name, 'hex') as name, fingerprint from multi_asset`,
    )).map((m) => [m.id, m]),
  );
  const tokens = groupBy(
    await query<{ id: string; tx_out_id: string; ident: string; quantity: string }>(
      `select id, tx_out_id, ident, quantity::text as quantity from ma_tx_out`,
    ),
    (m) => m.tx_out_id,
  );
  const stakeIds = new Map(
    (await query<{ id: string; view: string }>(`select id, view from stake_address`)).map((
      s,
    ) => [s.view, s.id]),
  );
  const byAddress = groupBy(outputs.rows, (o) => o.address);
  const timeOfTx = (txId: string) => blocks.get(txs.get(txId)!.block_id)!.time.toISOString();
  const outputsOf = (address: string) =>
    address.startsWith("stake")
      ? outputs.rows.filter((o) =>
        o.stake_address_id !== null && o.stake_address_id === stakeIds.get(address)
      )
      : byAddress.get(address) ?? [];

  const info = (address: string): AddressInfo | undefined => {
    const rows = outputsOf(address);
    const isReward = address.startsWith("stake");
    if (rows.length === 0 && !(isReward && stakeIds.has(address))) return undefined;
    const unspent = rows.filter((o) => isUnspent(outputs, o));
    const idents = new Set(unspent.flatMap((o) => (tokens.get(o.id) ?? []).map((t) => t.ident)));
    const txIds = rows.flatMap((
      o,
    ) => [
      o.tx_id,
      ...(outputs.spentBy.has(`${o.tx_id}:${o.index}`)
        ? [outputs.spentBy.get(`${o.tx_id}:${o.index}`)!]
        : []),
    ]);
    const byNumber = (x: string, y: string) => (BigInt(x) < BigInt(y) ? -1 : BigInt(x) > BigInt(y) ? 1 : 0);
    const created = rows.map((o) => o.tx_id).sort(byNumber);
    const decoded = decodeAddress(address, "mainnet");
    assert.ok(decoded.ok, `${address} decodes`);
    const stakeId = rows.find((o) => o.stake_address_id !== null)?.stake_address_id;
    return {
      address,
      type: decoded.value.type,
      stakeAddress: isReward ? address : stakeId ? b.stakeView.get(stakeId)! : null,
      balance: sum(unspent.map((o) => o.value)).toString(),
      tokenCount: idents.size,
      utxoCount: unspent.length,
      firstSeen: created.length > 0 ? timeOfTx(created[0]!) : null,
      lastSeen: txIds.length > 0 ? timeOfTx(txIds.sort(byNumber)[txIds.length - 1]!) : null,
    };
  };

  const utxos = (address: string): ReadonlyArray<ExplorerUtxo> =>
    outputsOf(address)
      .filter((o) => isUnspent(outputs, o))
      .sort((x, y) => Number(x.id) - Number(y.id))
      .map((o) => {
        const tx = txs.get(o.tx_id)!;
        const block = blocks.get(tx.block_id)!;
        return {
          txHash: tx.hash,
          outputIndex: o.index,
          value: o.value,
          tokens: (tokens.get(o.id) ?? []).sort((x, y) => Number(x.id) - Number(y.id)).map((t) => {
            const asset = assets.get(t.ident)!;
            return {
              policyId: asset.policy,
              assetName: assetText(asset.name),
              assetNameHex: asset.name,
              quantity: t.quantity,
              fingerprint: asset.fingerprint,
            };
          }),
          blockNo: block.block_no,
          blockTime: block.time.toISOString(),
          datumHash: o.data_hash,
        };
      });
  return { info, utxos, addresses: [...byAddress.keys()], timeOfTx };
};

// ---------------------------------------------------------------------------------------------------- DReps

const cip129 = (rawHex: string, script: boolean): string =>
  bech32.encode(
    "drep",
    bech32.toWords(
      Uint8Array.from([script ? 0x23 : 0x22, ...(rawHex.match(/../g) ?? []).map((h) => parseInt(h, 16))]),
    ),
    200,
  );

const expectedDReps = async (b: Basics): Promise<ReadonlyArray<ExplorerDRep>> => {
  const hashes = await query<{ id: string; raw: string | null; view: string; has_script: boolean }>(
    `select id, encode(raw, 'hex') as raw, view, has_script from drep_hash order by id`,
  );
  const regs = groupBy(
    await query<Cert & { drep_hash_id: string; deposit: string | null; voting_anchor_id: string | null }>(
      `select drep_hash_id, tx_id, cert_index, deposit::text as deposit, voting_anchor_id from drep_registration`,
    ),
    (r) => r.drep_hash_id,
  );
  const distr = await query<
    { id: string; hash_id: string; epoch_no: number; amount: string; active_until: number | null }
  >(
    `select id, hash_id, epoch_no, amount::text as amount, active_until from drep_distr`,
  );
  const newest = distr.length > 0 ? Math.max(...distr.map((d) => d.epoch_no)) : undefined;
  const voteDelegations = await query<Cert & { addr_id: string; drep_hash_id: string }>(
    `select addr_id, tx_id, cert_index, drep_hash_id from delegation_vote`,
  );
  const lastVoteDelegation = new Map(
    [...groupBy(voteDelegations, (d) => d.addr_id)].map(([addr, list]) => [addr, latest(list)!]),
  );
  const deregs = groupBy(
    await query<Cert & { addr_id: string }>(`select addr_id, tx_id, cert_index from stake_deregistration`),
    (d) => d.addr_id,
  );
  const votes = groupBy(
    await query<{ drep_voter: string; tx_id: string }>(
      `select drep_voter, tx_id from voting_procedure where drep_voter is not null`,
    ),
    (v) => v.drep_voter,
  );
  const documents = groupBy(
    await query<{ id: string; voting_anchor_id: string; is_valid: boolean | null }>(
      `select id, voting_anchor_id, is_valid from off_chain_vote_data`,
    ),
    (d) => d.voting_anchor_id,
  );
  const drepData = groupBy(
    await query<{ id: string; off_chain_vote_data_id: string; given_name: string }>(
      `select id, off_chain_vote_data_id, given_name from off_chain_vote_drep_data`,
    ),
    (d) => d.off_chain_vote_data_id,
  );
  const [params] = await query<{ drep_activity: string | null }>(
    `select drep_activity::text as drep_activity from epoch_param order by epoch_no desc limit 1`,
  );

  return hashes.filter((h) => h.raw === null || regs.has(h.id)).map((h): ExplorerDRep => {
    const special = h.raw === null;
    const mine = regs.get(h.id) ?? [];
    const last = latest(mine);
    const row = newest === undefined
      ? undefined
      : distr.filter((d) => d.hash_id === h.id && d.epoch_no === newest).sort((x, y) =>
        Number(y.id) - Number(x.id)
      )[0];
    let isActive: boolean;
    if (special) isActive = true;
    else if (last!.deposit !== null && BigInt(last!.deposit) < 0n) isActive = false;
    else if (row) isActive = row.active_until !== null && row.active_until >= b.tip;
    else {
      const voteTx = (votes.get(h.id) ?? []).map((v) => BigInt(v.tx_id)).reduce(
        (x, y) => (y > x ? y : x),
        -1n,
      );
      const epochs = [
        b.txEpoch.get(last!.tx_id)!,
        ...(voteTx >= 0n ? [b.txEpoch.get(voteTx.toString())!] : []),
      ];
      isActive = params?.drep_activity == null || Math.max(...epochs) + Number(params.drep_activity) >= b.tip;
    }
    const anchorCert = latest(mine.filter((r) => r.deposit === null || BigInt(r.deposit) > 0n));
    const rank = (v: boolean | null) => (v === true ? 0 : v === false ? 1 : 2);
    const doc = anchorCert?.voting_anchor_id
      ? (documents.get(anchorCert.voting_anchor_id) ?? [])
        .filter((d) => drepData.has(d.id))
        .sort((x, y) => rank(x.is_valid) - rank(y.is_valid) || Number(y.id) - Number(x.id))[0]
      : undefined;
    const name = doc
      ? (drepData.get(doc.id) ?? []).sort((x, y) => Number(y.id) - Number(x.id))[0]!.given_name
      : null;
    const lastRegistration = mine.filter((r) => r.deposit !== null && BigInt(r.deposit) > 0n)
      .map((r) => BigInt(r.tx_id)).reduce((x, y) => (y > x ? y : x), -1n);
    const delegators = [...lastVoteDelegation.values()].filter((d) =>
      d.drep_hash_id === h.id &&
      !(deregs.get(d.addr_id) ?? []).some((x) => compareCert(x, d) > 0) &&
      (special ||
        (BigInt(d.tx_id) >= lastRegistration &&
          !mine.some((r) =>
            r.deposit !== null && BigInt(r.deposit) < 0n && BigInt(r.tx_id) > BigInt(d.tx_id)
          )))
    ).length;
    return {
      drepIdBech32: special ? h.view : cip129(h.raw!, h.has_script),
      type: h.view === "drep_always_abstain"
        ? "abstain"
        : h.view === "drep_always_no_confidence"
        ? "noConfidence"
        : "registered",
      name,
      givenName: name,
      isActive,
      ...(newest === undefined ? {} : { votingPower: row?.amount ?? "0" }),
      delegatorCount: delegators,
      votesCount: (votes.get(h.id) ?? []).length,
    };
  });
};

// ---------------------------------------------------------------------------------------------------- tests

const checkAddresses = async (
  facts: AddressFacts,
  addresses: ReadonlyArray<string>,
  busiest: string,
  shared: ReadonlyArray<string>,
  spentTracking: SpentTracking,
) => {
  const optionsOf = (address: string) => {
    const decoded = decodeAddress(address, "mainnet");
    assert.ok(decoded.ok);
    return { paymentCredHex: decoded.value.paymentCred, spentTracking };
  };
  for (const address of addresses) {
    const options = optionsOf(address);
    assert.deepEqual(await run(addressInfo(chain.sql, address, options)), facts.info(address), address);
    const all = facts.utxos(address);
    const page = await run(addressUtxos(chain.sql, address, { ...options, page: 1, limit: 25 }));
    const expected = {
      total: all.length,
      page: 1,
      pageSize: 25,
      hasMore: all.length > 25,
      data: all.slice(0, 25),
    };
    assert.deepEqual(explorerPart(page, expected), expected, `${address} utxos`);
  }
  // addresses sharing a payment credential, two UTxOs a page: the walk skips the other address's outputs
  for (const address of shared) {
    const all = facts.utxos(address);
    for (let page = 1; page <= Math.ceil(all.length / 2) + 1; page++) {
      const expected = {
        total: all.length,
        page,
        pageSize: 2,
        hasMore: page * 2 < all.length,
        data: all.slice((page - 1) * 2, page * 2),
      };
      const actual = await run(addressUtxos(chain.sql, address, { ...optionsOf(address), page, limit: 2 }));
      assert.deepEqual(explorerPart(actual, expected), expected, `${address} page ${page}`);
    }
  }
  // the busiest address, a page at a time, with and without a known total
  const all = facts.utxos(busiest);
  const options = optionsOf(busiest);
  const limit = 100;
  const lastPage = Math.ceil(all.length / limit);
  assert.ok(lastPage >= 3, `the busiest address has ${all.length} UTxOs`);
  for (const page of [1, 2, lastPage, lastPage + 1]) {
    const expected = {
      total: all.length,
      page,
      pageSize: limit,
      hasMore: page < lastPage,
      data: all.slice((page - 1) * limit, page * limit),
    };
    const walked = await run(addressUtxos(chain.sql, busiest, { ...options, page, limit }));
    assert.deepEqual(explorerPart(walked, expected), expected, `page ${page}`);
    const known = await run(addressUtxos(chain.sql, busiest, { ...options, page, limit, total: all.length }));
    assert.deepEqual(explorerPart(known, expected), expected, `page ${page} with a known total`);
  }
};

Deno.test({
  name: "pool, stake account, address and DRep queries",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    chain = await createTestChain("account_queries");
    try {
      // the demo chain's retirements have all taken effect by its tip: announce one that has not
      const [pending] = await query<{ id: string }>(`
        select u.hash_id as id from pool_update u
        where not exists (select 1 from pool_retire r where r.hash_id = u.hash_id)
        group by u.hash_id order by u.hash_id limit 1`);
      await query(`
        insert into pool_retire (id, hash_id, cert_index, announced_tx_id, retiring_epoch)
        select coalesce(max(r.id), 0) + 1, ${pending!.id}, 7, (select max(id) from tx),
               (select max(epoch_no) + 2 from block) from pool_retire r`);
      // and db-sync before 13.7.0.3 wrote zero-stake rows: one in the newest snapshot, which must not count
      await query(`
        insert into epoch_stake (id, addr_id, pool_id, amount, epoch_no)
        select (select max(id) + 1 from epoch_stake), s.id, ${pending!.id}, 0,
               (select max(epoch_no) from epoch_stake_progress where completed)
        from stake_address s
        where not exists (select 1 from epoch_stake e where e.addr_id = s.id
                          and e.epoch_no = (select max(epoch_no) from epoch_stake_progress where completed))
        order by s.id limit 1`);
      const basics = await loadBasics();
      const outputs = await loadOutputs();

      await t.step(
        "pools: every pool as the raw rows say, retired, retiring and cancelled ones included",
        async () => {
          const expected = await expectedPools(basics);
          assert.ok(expected.size >= 50);
          for (const [hex, pool] of expected) {
            const found = await run(poolInfo(chain.sql, hex));
            assert.ok(found, `pool ${hex}`);
            const actual = { ...found, lifetimeRewards: await run(poolLifetimeRewards(chain.sql, hex)) };
            for (const figure of ["saturation", "saturationRatio"] as const) {
              assert.ok(Math.abs(actual[figure] - pool[figure]) <= 1e-9 * Math.max(1, pool[figure]), figure);
            }
            const unfigured = { saturation: 0, saturationRatio: 0 };
            const want = { ...pool, ...unfigured };
            assert.deepEqual(explorerPart({ ...actual, ...unfigured }, want), want, pool.poolIdBech32);
          }
          const all = [...expected.values()];
          const retiredIds = await query<{ hex: string }>(
            `select encode(p.hash_raw, 'hex') as hex from pool_retire r join pool_hash p on p.id = r.hash_id`,
          );
          assert.ok(all.some((p) => p.retiring !== null && p.retiring <= basics.tip), "a retired pool");
          assert.ok(all.some((p) => p.retiring !== null && p.retiring > basics.tip), "a retiring pool");
          assert.ok(
            retiredIds.some((r) => expected.get(r.hex)!.retiring === null),
            "a pool whose retirement a later registration cancelled",
          );
          assert.ok(all.some((p) => p.pledgeMet) && all.some((p) => !p.pledgeMet), "pledge met and not met");
          assert.ok(all.some((p) => p.ticker !== null && p.relays.length > 0 && p.owners.length > 0));
          assert.equal(await run(poolInfo(chain.sql, "00".repeat(28))), undefined);
        },
      );

      await t.step("stake accounts: registration, dangling delegations, rewards and UTxO stake", async () => {
        const facts = await expectedAccounts(basics, outputs);
        const pick = (label: string, test: (a: AccountFacts["accounts"][number]) => boolean) => {
          const found = facts.accounts.filter(test);
          assert.ok(found.length > 0, label);
          return found.slice(0, 3);
        };
        const registeredDelegated = pick("registered and delegated", (a) => {
          const e = facts.expected(a.hash_raw);
          return e.registered && e.delegatedPoolId !== null;
        });
        const deregistered = pick("deregistered", (a) => {
          const reg = latest(facts.regs.get(a.id));
          const dereg = latest(facts.deregs.get(a.id));
          return reg !== undefined && dereg !== undefined && compareCert(dereg, reg) > 0;
        });
        const withRewards = pick(
          "with rewards and withdrawals",
          (a) => facts.withdrawn.has(a.id) && facts.rewarded.has(a.id),
        );
        const dangling = facts.accounts.filter((a) => {
          const e = facts.expected(a.hash_raw);
          return e.registered && e.delegatedPoolId === null && facts.delegs.has(a.id);
        }).slice(0, 3);
        const sample = facts.accounts.filter((_, i) => i % 10 === 0);
        const unknown = "e1" + "ab".repeat(28);
        for (const a of [...registeredDelegated, ...deregistered, ...withRewards, ...dangling, ...sample]) {
          assert.deepEqual(
            await run(stakeAccount(chain.sql, a.hash_raw, "enable")),
            facts.expected(a.hash_raw),
            a.view,
          );
        }
        assert.ok(
          withRewards.some((a) => facts.expected(a.hash_raw).rewardsBalance !== "0") ||
            withRewards.length > 0,
        );
        assert.deepEqual(await run(stakeAccount(chain.sql, unknown)), {
          registered: false,
          delegatedPoolId: null,
          rewardsBalance: "0",
          totalStake: "0",
        });
      });

      const addressFacts = await expectedAddresses(basics, outputs);
      const byType = new Map<string, string>();
      const unspentCount = new Map<string, number>();
      for (const o of outputs.rows) {
        if (isUnspent(outputs, o)) unspentCount.set(o.address, (unspentCount.get(o.address) ?? 0) + 1);
      }
      for (const address of addressFacts.addresses) {
        const decoded = decodeAddress(address, "mainnet");
        assert.ok(decoded.ok, address);
        const current = byType.get(decoded.value.type);
        if (current === undefined || (unspentCount.get(address) ?? 0) > (unspentCount.get(current) ?? 0)) {
          byType.set(decoded.value.type, address);
        }
      }
      const busiest = [...unspentCount].sort((x, y) => y[1] - x[1])[0]![0];
      const [stakeWithOutputs] = await query<{ view: string }>(`
        select s.view from stake_address s join tx_out o on o.stake_address_id = s.id
        group by s.view order by count(*) desc, s.view limit 1`);
      // an address last active by spending (a later block spends its outputs than any that paid it)
      const lastSpent = addressFacts.addresses.find((address) => {
        const rows = outputs.rows.filter((o) => o.address === address);
        const created = rows.reduce((m, o) => (BigInt(o.tx_id) > m ? BigInt(o.tx_id) : m), 0n).toString();
        return addressFacts.info(address)?.lastSeen !== addressFacts.timeOfTx(created);
      });
      assert.ok(lastSpent, "an address whose last activity is a spend");
      // the payment credential with the most outputs among those used by several addresses
      const shared = (await query<{ address: string }>(`
        with c as (select payment_cred from tx_out where payment_cred is not null group by payment_cred
                   having count(distinct address) > 1 order by count(*) desc, payment_cred limit 1)
        select distinct address from tx_out where payment_cred = (select payment_cred from c)`))
        .map((r) => r.address);
      assert.ok(shared.length > 1, "addresses sharing a payment credential");
      const chosen = [...byType.values(), stakeWithOutputs!.view, lastSpent];

      await t.step("addresses of every type, the busiest one paged, in db-sync's default mode", async () => {
        assert.deepEqual([...byType.keys()].sort(), ["base", "byron", "enterprise", "pointer", "script"]);
        await checkAddresses(addressFacts, chosen, busiest, shared, "enable");
        const unused = bech32.encode(
          "addr",
          bech32.toWords(Uint8Array.from([0x61, ...new Array(28).fill(7)])),
          200,
        );
        assert.equal(
          await run(
            addressInfo(chain.sql, unused, { paymentCredHex: "07".repeat(28), spentTracking: "enable" }),
          ),
          undefined,
        );
      });

      await t.step(
        "DReps: special ones, voting power, activity, paged with and without activeOnly",
        async () => {
          // the demo chain's DReps all stay active until well after its tip: make one expire at the tip, one
          // the epoch before, and drop one from the newest distribution (its activity then comes from its
          // certificates and votes, its voting power is 0)
          const inNewest = await query<{ id: string }>(`
            select d.id from drep_distr d join drep_hash h on h.id = d.hash_id
            where h.raw is not null and d.epoch_no = (select max(epoch_no) from drep_distr) order by d.id limit 3`);
          assert.equal(inNewest.length, 3);
          await query(`update drep_distr set active_until = ${basics.tip} where id = ${inNewest[0]!.id}`);
          await query(`update drep_distr set active_until = ${basics.tip - 1} where id = ${inNewest[1]!.id}`);
          await query(`delete from drep_distr where id = ${inNewest[2]!.id}`);
          const expected = await expectedDReps(basics);
          assert.ok(
            expected.some((d) => d.type === "abstain") && expected.some((d) => d.type === "noConfidence"),
          );
          assert.ok(
            expected.some((d) => d.isActive) && expected.some((d) => !d.isActive),
            "active and inactive DReps",
          );
          assert.ok(expected.some((d) => d.name !== null) && expected.some((d) => d.votesCount > 0));
          assert.ok(expected.some((d) => d.votingPower !== undefined && d.votingPower !== "0"));
          for (const activeOnly of [false, true]) {
            const listed = expected.filter((d) => !activeOnly || d.isActive);
            const pageSize = 10;
            for (let page = 1; page <= Math.ceil(listed.length / pageSize) + 1; page++) {
              const want = {
                total: listed.length,
                page,
                pageSize,
                hasMore: page * pageSize < listed.length,
                data: listed.slice((page - 1) * pageSize, page * pageSize),
              };
              const got = await run(dreps(chain.sql, { page, pageSize, activeOnly }));
              assert.deepEqual(explorerPart(got, want), want, `activeOnly ${activeOnly} page ${page}`);
            }
          }
        },
      );

      await t.step("the consumed modes (consumed_by_tx_id) give the same answers", async () => {
        await query(`update tx_out o set consumed_by_tx_id = i.tx_in_id from tx_in i
                     where i.tx_out_id = o.tx_id and i.tx_out_index = o.index`);
        await checkAddresses(addressFacts, chosen, busiest, shared, "consumed");
        const facts = await expectedAccounts(basics, outputs);
        for (const a of facts.accounts.filter((_, i) => i % 25 === 0)) {
          assert.deepEqual(
            await run(stakeAccount(chain.sql, a.hash_raw, "consumed")),
            facts.expected(a.hash_raw),
          );
          assert.deepEqual(await run(stakeAccount(chain.sql, a.hash_raw)), facts.expected(a.hash_raw));
        }
      });
    } finally {
      await chain.close();
    }
  },
});
