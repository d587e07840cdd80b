/** Staking transactions: stake key registration with delegation, redelegation, and withdrawal or deregistration. */
import { delegate, delegateVote, pickDrep, pickPool, registerStake } from "./delegation.ts";
import type { Ledger } from "./ledger.ts";
import { ada, protocol } from "./network_params.ts";
import { writeTx } from "./tx_writer.ts";

/** A wallet registers its stake key and delegates (sometimes in one Conway certificate, with a vote delegation). */
export const stakeRegDeleg = (ledger: Ledger): boolean => {
  const w = ledger.randomWallet();
  const wallet = ledger.wallets[w]!;
  if (wallet.registered || ledger.addrStakeWallet[wallet.address] !== w || w === ledger.exchangeWallet) {
    return false;
  }
  const pool = pickPool(ledger);
  if (pool < 0) return false;
  const inputs = ledger.takeInputs(protocol.keyDeposit + 3 * ada);
  if (inputs.length === 0) return false;
  const combined = ledger.r.chance(0.4);
  const withVote = ledger.dreps.length > 2 && ledger.r.chance(0.5);
  return writeTx(ledger, {
    inputs,
    outputs: [],
    changeTo: wallet.address,
    size: 420 + 110 * inputs.length,
    deposit: protocol.keyDeposit,
    certs: (txId, c) => {
      registerStake(ledger, w, txId, c, combined);
      delegate(ledger, w, pool, txId, c, combined && withVote);
      if (withVote) delegateVote(ledger, w, pickDrep(ledger), txId, c);
    },
  }) > 0;
};

export const redelegate = (ledger: Ledger): boolean => {
  const w = ledger.randomWallet();
  const wallet = ledger.wallets[w]!;
  if (!wallet.registered) return false;
  const pool = pickPool(ledger);
  const inputs = ledger.takeInputs(3 * ada);
  if (inputs.length === 0 || pool < 0) return false;
  const vote = ledger.dreps.length > 2 && ledger.r.chance(0.3);
  return writeTx(ledger, {
    inputs,
    outputs: [],
    changeTo: wallet.address,
    size: 380 + 110 * inputs.length,
    certs: (txId, c) => {
      if (vote) delegateVote(ledger, w, pickDrep(ledger), txId, c);
      else delegate(ledger, w, pool, txId, c);
    },
  }) > 0;
};

/** Withdraws the whole reward balance, and sometimes deregisters the key (Conway requires a zero balance). */
export const withdrawOrDeregister = (ledger: Ledger, deregister: boolean): boolean => {
  const w = ledger.randomWallet();
  const wallet = ledger.wallets[w]!;
  if (!wallet.registered || (!deregister && wallet.rewards <= 0)) return false;
  if (ledger.pools.some((p) => p.owners.includes(w) && !p.retired) && deregister) return false;
  const inputs = ledger.takeInputs(3 * ada);
  if (inputs.length === 0) return false;
  const amount = wallet.rewards;
  return writeTx(ledger, {
    inputs,
    outputs: [],
    changeTo: wallet.address,
    size: 400 + 110 * inputs.length,
    deposit: deregister ? -protocol.keyDeposit : 0,
    withdrawals: amount > 0 ? [{ wallet: w, amount }] : [],
    certs: deregister
      ? (txId, c) => {
        ledger.row("stake_deregistration", [
          ledger.id("stake_deregistration"),
          ledger.stakeAddressId(w),
          c.cert++,
          ledger.epoch,
          txId,
          null,
        ]);
        wallet.registered = false;
        wallet.pool = -1;
        wallet.drep = -1;
        ledger.depositsStake -= BigInt(protocol.keyDeposit);
      }
      : undefined,
  }) > 0;
};
