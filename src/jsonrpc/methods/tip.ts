/**
 * `queryNetwork/tip` and `queryLedgerState/tip`: the tip as an Ogmios Point, `{slot, id}` (no height), or
 * "origin" on an empty chain. From db-sync both are the newest block (there is no node ahead of it to ask).
 */
import { Effect } from "effect";
import { type LedgerTip, ledgerTip } from "@src/programs/ledger/tip.ts";
import type { MethodProgram } from "../method.ts";

/** The answer from the polled tip (no I/O: dispatch.ts answers it without a fiber too). */
export const tipPointOf = (t: LedgerTip) => t ? { slot: Number(t.slot ?? 0), id: t.hash } : "origin";

export const tipPoint: MethodProgram = (network) => Effect.map(ledgerTip(network), tipPointOf);
