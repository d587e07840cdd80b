/** `queryNetwork/blockHeight`: the tip's block number, or "origin" on an empty chain. */
import { Effect } from "effect";
import { type LedgerTip, ledgerTip } from "@src/programs/ledger/tip.ts";
import type { MethodProgram } from "../method.ts";

/** The answer from the polled tip (no I/O: dispatch.ts answers it without a fiber too). */
export const blockHeightOf = (t: LedgerTip) => t?.height ?? "origin";

export const blockHeight: MethodProgram = (network) => Effect.map(ledgerTip(network), blockHeightOf);
