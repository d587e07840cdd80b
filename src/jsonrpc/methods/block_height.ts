/** `queryNetwork/blockHeight`: the tip's block number, or "origin" on an empty chain. */
import { Effect } from "effect";
import { ledgerTip } from "@src/programs/ledger/tip.ts";
import type { MethodProgram } from "../method.ts";

export const blockHeight: MethodProgram = (network) =>
  Effect.map(ledgerTip(network), (t) => t?.height ?? "origin");
