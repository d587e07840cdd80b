/** `queryNetwork/blockHeight`: the tip's block number (as ChainTips last polled it), or "origin" on an empty chain. */
import { Effect } from "effect";
import { ChainTips } from "@layers/chain_tips.ts";
import type { MethodProgram } from "../method.ts";

export const blockHeight: MethodProgram = (network) =>
  Effect.map(ChainTips, (tips) => tips.get(network).current()?.height ?? "origin");
