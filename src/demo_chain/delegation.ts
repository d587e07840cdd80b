/**
 * Stake delegation: the certificate writers (key registration, pool and vote delegation) and the pickers that
 * choose a live pool or a DRep to delegate to.
 */
import type { Ledger } from "./ledger.ts";
import type { Certs } from "./ledger_types.ts";
import { protocol } from "./network_params.ts";

export const registerStake = (ledger: Ledger, w: number, txId: number, c: Certs, combined = false) => {
  const wallet = ledger.wallets[w]!;
  const addrId = ledger.stakeAddressId(w);
  ledger.row("stake_registration", [
    ledger.id("stake_registration"),
    addrId,
    c.cert,
    ledger.epoch,
    txId,
    protocol.keyDeposit,
  ]);
  wallet.registered = true;
  wallet.registration = { slot: ledger.slot, txIndex: ledger.blockTxIndex, certIndex: c.cert };
  wallet.pool = -1;
  wallet.drep = -1;
  ledger.depositsStake += BigInt(protocol.keyDeposit);
  if (!combined) c.cert++;
};

export const delegate = (
  ledger: Ledger,
  w: number,
  pool: number,
  txId: number,
  c: Certs,
  combined = false,
) => {
  const p = ledger.pools[pool]!;
  ledger.row("delegation", [
    ledger.id("delegation"),
    ledger.stakeAddressId(w),
    c.cert,
    p.id,
    ledger.epoch + 2,
    txId,
    ledger.slot,
    null,
  ]);
  ledger.wallets[w]!.pool = pool;
  if (!combined) c.cert++;
};

export const delegateVote = (ledger: Ledger, w: number, drep: number, txId: number, c: Certs) => {
  ledger.row("delegation_vote", [
    ledger.id("delegation_vote"),
    ledger.stakeAddressId(w),
    c.cert,
    ledger.dreps[drep]!.id,
    txId,
    null,
  ]);
  ledger.wallets[w]!.drep = drep;
  c.cert++;
};

/** A live pool, biased to a few big ones and a long tail: pool i weighs 1 / (i + 3). */
export const pickPool = (ledger: Ledger): number => {
  if (ledger.poolPick.version !== ledger.worldVersion) {
    const items = ledger.pools.filter((p) => p.registered && !p.retired && p.retiring < 0).map((p) =>
      p.index
    );
    let total = 0;
    const cumulative = items.map((i) => (total += 1 / (i + 3)));
    ledger.poolPick = { version: ledger.worldVersion, items, cumulative };
  }
  const { items, cumulative } = ledger.poolPick;
  if (items.length === 0) return -1;
  const x = ledger.r.float() * cumulative[cumulative.length - 1]!;
  let lo = 0, hi = cumulative.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cumulative[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return items[lo]!;
};

/** A DRep to delegate votes to: mostly registered ones (a few popular), some to the two predefined DReps. */
export const pickDrep = (ledger: Ledger): number => {
  const roll = ledger.r.float();
  if (roll < 0.12) return 0;
  if (roll < 0.2) return 1;
  if (ledger.drepPick.version !== ledger.worldVersion) {
    const items = ledger.dreps.flatMap((d, i) => (i >= 2 && d.registered ? [i] : []));
    ledger.drepPick = { version: ledger.worldVersion, items };
  }
  const { items } = ledger.drepPick;
  if (items.length === 0) return 0;
  return items[Math.min(items.length - 1, Math.floor(Math.pow(ledger.r.float(), 2) * items.length))]!;
};
