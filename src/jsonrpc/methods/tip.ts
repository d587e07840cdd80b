/**
 * `queryNetwork/tip` and `queryLedgerState/tip`: the tip as an Ogmios Point, `{slot, id}` (no height), or
 * "origin" on an empty chain. From db-sync both are the newest block (there is no node ahead of it to ask).
 */
import { Effect } from "effect";
import { ledgerTip } from "@src/programs/ledger/tip.ts";
import type { MethodProgram } from "../method.ts";

export const tipPoint: MethodProgram = (network) =>
  Effect.map(ledgerTip(network), (t) => (t ? { slot: Number(t.slot ?? 0), id: t.hash } : "origin"));
