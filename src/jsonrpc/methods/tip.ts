/**
 * `queryNetwork/tip` and `queryLedgerState/tip`: the tip as an Ogmios Point, `{slot, id}` (no height), or
 * "origin" on an empty chain. From db-sync both are the newest block (there is no node ahead of it to ask), as
 * ChainTips last polled it (at most a second old: clients call these as a heartbeat, and one poll serves them all).
 */
import { Effect } from "effect";
import { ChainTips } from "@layers/chain_tips.ts";
import type { MethodProgram } from "../method.ts";

export const tipPoint: MethodProgram = (network) =>
  Effect.map(ChainTips, (tips) => {
    const t = tips.get(network).current();
    return t ? { slot: Number(t.slot ?? 0), id: t.hash } : "origin";
  });
