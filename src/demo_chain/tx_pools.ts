/**
 * Stake pool transactions: registration and update (with metadata, owners and relays, as db-sync records them)
 * and retirement.
 */
import { hex } from "@scure/base";
import * as enc from "./cardano_encoding.ts";
import { delegate, registerStake } from "./delegation.ts";
import type { Ledger } from "./ledger.ts";
import type { Pool } from "./ledger_types.ts";
import { ada, protocol } from "./network_params.ts";
import { b, hexText, j } from "./row_values.ts";
import { writeTx } from "./tx_writer.ts";

export const poolRegistration = (ledger: Ledger, p: Pool, update: boolean): boolean => {
  const ownerCount = ledger.r.chance(0.8) ? 1 : 2;
  const owners = update ? p.owners : Array.from({ length: ownerCount }, () => ledger.randomWallet())
    .filter((w, i, all) => all.indexOf(w) === i && w !== ledger.exchangeWallet);
  if (owners.length === 0) return false;
  const newOwners = update ? [] : owners.filter((w) => !ledger.wallets[w]!.registered);
  const poolDeposit = p.registered ? 0 : protocol.poolDeposit;
  const deposit = poolDeposit + newOwners.length * protocol.keyDeposit;
  const inputs = ledger.takeInputs(deposit + 10 * ada);
  if (inputs.length === 0) return false;
  const pledge = ledger.r.chance(0.1) ? 0 : ledger.r.logUniform(1_000 * ada, 5_000_000 * ada);
  const margin = ledger.r.pick([0, 0.005, 0.01, 0.015, 0.02, 0.025, 0.03, 0.05, 0.099, 1]);
  const fixedCost = ledger.r.chance(0.8) ? protocol.minPoolCost : ledger.r.int(171, 500) * ada;
  const cancelsRetirement = p.retiring >= 0;
  return writeTx(ledger, {
    inputs,
    outputs: [],
    changeTo: ledger.wallets[owners[0]!]!.address,
    size: 700 + 110 * inputs.length + 40 * owners.length,
    deposit,
    certs: (txId, c) => {
      for (const w of newOwners) registerStake(ledger, w, txId, c);
      if (p.id === 0) {
        p.id = ledger.id("pool_hash");
        ledger.row("pool_hash", [p.id, b(p.hash), p.view]);
        p.slotLeaderId = ledger.id("slot_leader");
        ledger.row("slot_leader", [p.slotLeaderId, b(p.hash), p.id, `Pool-${p.hash.slice(0, 16)}`]);
      }
      const meta = {
        name: p.name,
        description: `${p.name}: a demo stake pool on the generated ${ledger.net.network} chain.`,
        ticker: p.ticker,
        homepage: `https://${p.ticker.toLowerCase()}.demo.invalid`,
      };
      const metaText = JSON.stringify(meta);
      const metaHash = enc.blake2b256(new TextEncoder().encode(metaText));
      const metaId = ledger.id("pool_metadata_ref");
      ledger.row("pool_metadata_ref", [
        metaId,
        p.id,
        `https://${p.ticker.toLowerCase()}.demo.invalid/poolmeta.json`,
        b(metaHash),
        txId,
      ]);
      ledger.row("off_chain_pool_data", [
        ledger.id("off_chain_pool_data"),
        p.id,
        p.ticker,
        b(metaHash),
        j(meta),
        b(hexText(metaText)),
        metaId,
      ]);
      const updateId = ledger.id("pool_update");
      const activeEpoch = ledger.epoch + (p.registered ? 3 : 2);
      const rewardWallet = owners[0]!;
      ledger.row("pool_update", [
        updateId,
        p.id,
        c.cert,
        b(enc.blake2b256(hex.decode(p.vrfKey))),
        pledge,
        activeEpoch,
        metaId,
        margin,
        fixedCost,
        txId,
        ledger.stakeAddressId(rewardWallet),
        poolDeposit > 0 ? poolDeposit : null,
      ]);
      c.cert++;
      for (const w of owners) {
        ledger.row("pool_owner", [ledger.id("pool_owner"), ledger.stakeAddressId(w), updateId]);
      }
      const relays = ledger.r.int(1, 3);
      for (let k = 0; k < relays; k++) {
        const kind = ledger.r.float();
        const host = `relay${k + 1}.${p.ticker.toLowerCase()}.demo.invalid`;
        ledger.row("pool_relay", [
          ledger.id("pool_relay"),
          updateId,
          kind < 0.5 ? `127.${ledger.r.int(0, 255)}.${ledger.r.int(0, 255)}.${ledger.r.int(1, 254)}` : null,
          kind >= 0.5 && kind < 0.6 ? "::1" : null,
          kind >= 0.6 && kind < 0.9 ? host : null,
          kind >= 0.9 ? `_cardano._tcp.${p.ticker.toLowerCase()}.demo.invalid` : null,
          kind >= 0.9 ? null : ledger.r.pick([3001, 3001, 6000, 4001]),
        ]);
      }
      if (!update) {
        for (const w of owners) {
          if (ledger.wallets[w]!.pool !== p.index) delegate(ledger, w, p.index, txId, c);
        }
      }
      if (poolDeposit > 0) ledger.depositsStake += BigInt(poolDeposit);
      p.registered = true;
      p.owners = owners;
      p.rewardWallet = rewardWallet;
      p.pledge = pledge;
      p.margin = margin;
      p.fixedCost = fixedCost;
      p.metaId = metaId;
      if (cancelsRetirement) p.retiring = -1;
      ledger.worldVersion++;
    },
  }) > 0;
};

export const poolRetirement = (ledger: Ledger, p: Pool): boolean => {
  const inputs = ledger.takeInputs(3 * ada);
  if (inputs.length === 0) return false;
  const retiringEpoch = ledger.epoch + ledger.r.int(1, 3);
  return writeTx(ledger, {
    inputs,
    outputs: [],
    changeTo: ledger.wallets[p.owners[0]!]!.address,
    size: 350 + 110 * inputs.length,
    certs: (txId, c) => {
      ledger.row("pool_retire", [ledger.id("pool_retire"), p.id, c.cert++, txId, retiringEpoch]);
      p.retiring = retiringEpoch;
      ledger.worldVersion++;
    },
  }) > 0;
};
