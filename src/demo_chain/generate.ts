/**
 * The demo chain generator: a small ledger simulation that writes a deterministic, internally consistent
 * Conway-era chain in db-sync's core layout, row for row as db-sync would have written it. Value is conserved in
 * every transaction, nothing is spent twice, and the ada_pots buckets always add up to 45 billion ADA.
 *
 * Shape (scale 1): epochs 0..5 (tip 60% into epoch 5), ~400 blocks and ~2,000 transactions an epoch, 60 pools,
 * 1,500 wallets, 36 DReps. `scale` multiplies transactions, wallets, pools and DReps (blocks up to mainnet's
 * 21,600 an epoch, then more transactions a block).
 *
 * This file runs the block loop: slots, slot leaders, the schedule of one-off events and the random transaction
 * mix. The simulation's state and primitives are in ledger.ts, the transaction kinds in tx_*.ts, the epoch
 * boundary in epoch_boundary.ts, the genesis block in genesis.ts and the chain's participants in world.ts.
 */
import type { CopySink } from "./copy_sink.ts";
import * as enc from "./cardano_encoding.ts";
import { epochBoundary } from "./epoch_boundary.ts";
import { writeGenesis } from "./genesis.ts";
import { Ledger } from "./ledger.ts";
import { type DemoNetwork, protocol } from "./network_params.ts";
import { epochLength, slotLengthMs } from "@src/domain/network_constants.ts";
import { epochStartSlot, genesisAnchor } from "@src/domain/chain_time.ts";
import { b, utc } from "./row_values.ts";
import { rewardPot } from "@src/domain/pool_rewards.ts";
import { computeRewards, writeEpochStake, writeRewards } from "./stake_and_rewards.ts";
import { poolRegistration, poolRetirement } from "./tx_pools.ts";
import { drepCertificate, proposal, vote } from "./tx_governance.ts";
import { payment } from "./tx_payments.ts";
import { failedScript, scriptLock, scriptSpend } from "./tx_scripts.ts";
import { redelegate, stakeRegDeleg, withdrawOrDeregister } from "./tx_staking.ts";
import { burn, mint } from "./tx_tokens.ts";
import { makeDreps, makePointerAddresses, makePools, makeScripts, makeWallets } from "./world.ts";

export { defineTables } from "./tables.ts";

export interface GenerateOptions {
  readonly scale: number;
  /** Epochs before the tip's; the tip lands `tipFraction` into the last one. */
  readonly epochs?: number;
  /** Called between blocks so the caller can flush buffers (COPY is asynchronous). */
  readonly onBlock?: () => Promise<void>;
}

export interface GeneratedChain {
  readonly tipBlockNo: number;
  readonly tipEpoch: number;
  readonly exchangeAddress: string;
}

export class ChainGenerator {
  private readonly ledger: Ledger;
  private readonly epochs: number;
  private readonly blocksPerEpoch: number;
  private readonly txsPerEpoch: number;

  constructor(sink: CopySink, network: DemoNetwork, private readonly options: GenerateOptions) {
    this.ledger = new Ledger(sink, network, Math.max(1, options.scale));
    this.epochs = options.epochs ?? 6;
    this.blocksPerEpoch = Math.min(400 * this.ledger.scale, 21_600);
    this.txsPerEpoch = 2_000 * this.ledger.scale;
  }

  /** The scheduled, one-off events of the chain's history, keyed by the block that carries them. */
  private schedule(totalBlocks: number) {
    const { ledger } = this;
    const events = new Map<number, Array<() => boolean>>();
    const at = (blockNo: number, f: () => boolean) => {
      const list = events.get(blockNo) ?? [];
      list.push(f);
      events.set(blockNo, list);
    };
    const epochBlock = (epoch: number, fraction: number) =>
      Math.floor((epoch + fraction) * this.blocksPerEpoch);
    const poolCount = ledger.pools.length;
    ledger.pools.forEach((p, i) => {
      const roll = i / poolCount;
      const when = roll < 0.85
        ? epochBlock(0, 0.05 + 0.45 * ledger.r.float())
        : roll < 0.95
        ? epochBlock(1 + ledger.r.int(0, 1), ledger.r.float())
        : epochBlock(3, ledger.r.float());
      at(when, () => poolRegistration(ledger, p, false));
      if (ledger.r.chance(0.15)) {
        at(
          epochBlock(ledger.r.int(1, 4), ledger.r.float()),
          () => p.registered && !p.retired ? poolRegistration(ledger, p, true) : true,
        );
      }
      if (i % 12 === 5) {
        at(
          epochBlock(ledger.r.int(1, 3), ledger.r.float()),
          () => p.registered && !p.retired && p.retiring < 0 ? poolRetirement(ledger, p) : true,
        );
      }
    });
    // one pool announces retirement and then re-registers, which cancels it
    const comeback = ledger.pools[Math.min(7, poolCount - 1)]!;
    at(
      epochBlock(1, 0.3),
      () => comeback.registered && comeback.retiring < 0 ? poolRetirement(ledger, comeback) : true,
    );
    at(
      epochBlock(1, 0.6),
      () => comeback.registered && comeback.retiring >= 0 ? poolRegistration(ledger, comeback, true) : true,
    );
    ledger.dreps.forEach((d, i) => {
      if (i < 2) return;
      at(
        epochBlock(ledger.r.chance(0.8) ? 0 : 1, 0.1 + 0.8 * ledger.r.float()),
        () => drepCertificate(ledger, i, "register"),
      );
      if (ledger.r.chance(0.2)) {
        at(
          epochBlock(ledger.r.int(2, 4), ledger.r.float()),
          () => d.registered ? drepCertificate(ledger, i, "update") : true,
        );
      }
      if (i % 10 === 3) {
        at(
          epochBlock(ledger.r.int(3, 4), ledger.r.float()),
          () => d.registered ? drepCertificate(ledger, i, "deregister") : true,
        );
      }
    });
    at(epochBlock(1, 0.2), () => proposal(ledger, "TreasuryWithdrawals"));
    for (let k = 0; k < 3; k++) {
      at(epochBlock(1 + k, 0.5 + 0.3 * ledger.r.float()), () => proposal(ledger, "InfoAction"));
    }
    for (let k = 0; k < this.epochs; k++) {
      at(epochBlock(k, 0.5 + 0.4 * ledger.r.float()), () => failedScript(ledger));
    }
    return { events, totalBlocks };
  }

  /** Picks the kind of an ordinary transaction by the epoch's mix. */
  private randomTx(): boolean {
    const { ledger } = this;
    const e = ledger.epoch;
    const roll = ledger.r.float() * 100;
    if (roll < 9 && e <= 3) return stakeRegDeleg(ledger);
    if (roll < 10.5 && e >= 1) return redelegate(ledger);
    if (roll < 13 && e >= 4) return withdrawOrDeregister(ledger, false);
    if (roll < 13.4 && e >= 2) return withdrawOrDeregister(ledger, true);
    if (roll < 15) return mint(ledger);
    if (roll < 15.5) return burn(ledger);
    if (roll < 17) return scriptLock(ledger);
    if (roll < 18) return scriptSpend(ledger);
    if (roll < 19 && e >= 1) return vote(ledger);
    return payment(ledger);
  }

  private leaderPick = { epoch: -1, pools: [] as Array<number>, cumulative: [] as Array<number> };

  /** The block's slot leader: a pool drawn by its active stake, or a genesis delegate before pools have stake. */
  private pickLeader(epoch: number): { leader: number; pool: number } {
    const { ledger } = this;
    if (this.leaderPick.epoch !== epoch) {
      const snap = epoch >= 1 ? ledger.snapshots[epoch - 1] : undefined;
      const pools: Array<number> = [];
      const cumulative: Array<number> = [];
      let total = 0;
      for (const [pool, members] of snap?.byPool ?? []) {
        if (ledger.pools[pool]!.retired) continue;
        total += members.reduce((s, [, a]) => s + a, 0);
        pools.push(pool);
        cumulative.push(total);
      }
      this.leaderPick = { epoch, pools, cumulative };
    }
    const { pools, cumulative } = this.leaderPick;
    if (pools.length === 0) return { leader: ledger.r.pick(ledger.genesisLeaders), pool: -1 };
    const x = ledger.r.float() * cumulative[cumulative.length - 1]!;
    let lo = 0, hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    const pool = pools[lo]!;
    return { leader: ledger.pools[pool]!.slotLeaderId, pool };
  }

  /** Generates the whole chain. */
  async run(): Promise<GeneratedChain> {
    const { ledger } = this;
    const started = ledger.net.systemStart.getTime();
    ledger.row("meta", [
      1,
      utc(ledger.net.systemStart),
      ledger.net.network,
      `cardano-data-service demo chain (seed ${ledger.net.seed}, scale ${ledger.scale})`,
    ]);
    writeGenesis(ledger);
    makeWallets(ledger);
    makePools(ledger);
    makeDreps(ledger);
    makeScripts(ledger);
    const tipFraction = 0.6;
    const blocksLastEpoch = Math.floor(this.blocksPerEpoch * tipFraction);
    const totalBlocks = (this.epochs - 1) * this.blocksPerEpoch + blocksLastEpoch;
    const { events } = this.schedule(totalBlocks);
    const txPerBlock = this.txsPerEpoch / this.blocksPerEpoch;
    let previous = ledger.blockId;
    let pointerWalletsMade = false;
    for (let n = 0; n < totalBlocks; n++) {
      const epoch = Math.floor(n / this.blocksPerEpoch);
      const i = n % this.blocksPerEpoch;
      const epochSlot = Math.floor((i + 0.1 + 0.8 * ledger.r.float()) * (epochLength / this.blocksPerEpoch));
      ledger.slot = epochStartSlot(genesisAnchor, epoch) + epochSlot;
      const time = new Date(started + ledger.slot * slotLengthMs);
      ledger.blockId = ledger.id("block");
      ledger.blockNo++;
      ledger.blockTxIndex = 0;
      ledger.blockSize = 0;
      if (i === 0) {
        ledger.epoch = epoch;
        epochBoundary(ledger, epoch, ledger.blockId, ledger.slot);
        ledger.epochStart = time;
        if (epoch === 1 && !pointerWalletsMade) {
          makePointerAddresses(ledger);
          pointerWalletsMade = true;
        }
      }
      const { leader, pool } = this.pickLeader(epoch);
      const scheduled = events.get(n) ?? [];
      for (const f of scheduled) f();
      const count = Math.max(0, Math.round(txPerBlock * 2 * ledger.r.float()));
      for (let k = 0; k < count; k++) {
        for (let attempt = 0; attempt < 4 && !this.randomTx(); attempt++);
      }
      const txCount = ledger.blockTxIndex;
      const p = pool >= 0 ? ledger.pools[pool]! : undefined;
      ledger.row("block", [
        ledger.blockId,
        b(ledger.r.hex(32)),
        epoch,
        ledger.slot,
        epochSlot,
        ledger.blockNo,
        previous,
        leader,
        Math.min(protocol.maxBlockSize, 860 + ledger.blockSize),
        utc(time),
        txCount,
        10,
        0,
        enc.vrfKeyBech32(p ? p.vrfKey : ledger.r.hex(32)),
        p ? b(p.opCert) : b(ledger.r.hex(32)),
        p?.opCertCounter ?? 0,
      ]);
      if (pool >= 0) {
        const byPool = ledger.blocksByPool[epoch] ?? new Map<number, number>();
        byPool.set(pool, (byPool.get(pool) ?? 0) + 1);
        ledger.blocksByPool[epoch] = byPool;
      }
      ledger.epochTxCount += txCount;
      ledger.epochBlockCount++;
      ledger.epochEnd = time;
      previous = ledger.blockId;
      if (this.options.onBlock && n % 16 === 15) await this.options.onBlock();
    }
    // Rows db-sync already holds at the tip for the next boundary: the next epoch's stake distribution and the
    // rewards earned in the previous epoch (spendable only from the next one, so every query must filter).
    const tipEpoch = this.epochs - 1;
    writeEpochStake(ledger, tipEpoch + 1, ledger.snapshots[tipEpoch]!);
    const { pot } = rewardPot({
      reserves: ledger.reserves,
      fees: ledger.feesByEpoch[tipEpoch - 1] ?? 0,
      monetaryExpandRate: protocol.monetaryExpandRate,
      treasuryGrowthRate: protocol.treasuryGrowthRate,
    });
    const pending = computeRewards(ledger, tipEpoch - 1, Math.floor(pot * 0.8));
    writeRewards(ledger, pending.rows, tipEpoch - 1, false);
    return {
      tipBlockNo: ledger.blockNo,
      tipEpoch,
      exchangeAddress: ledger.addrText[ledger.wallets[ledger.exchangeWallet]!.address]!,
    };
  }
}
