/**
 * Answers kept encoded at the network's reported tip (tip_answers.ts), for any dialect's endpoint whose answer
 * follows from the chain as of that tip: a repeated request is answered from the bytes, with no program run,
 * Schema pass or JSON encoding.
 */
import { Context } from "effect";
import { ChainTips } from "@layers/chain_tips.ts";
import type { Network } from "@schemas/network.ts";
import { stringify } from "@src/domain/json.ts";
import { chainDown } from "@src/programs/chain_down.ts";
import type { PointRow } from "@src/queries/chain_blocks.ts";
import { answerEncoded, type EncodedJson } from "./conditional_json.ts";
import type { Program, RouteContext } from "./route.ts";
import { makeTipAnswers, type TipAnswers } from "./tip_answers.ts";

/**
 * An endpoint's kept answers. `at` says whether a value was computed at `tip` itself: one read from a database
 * behind or ahead of the tip the service reports (a replica, an instance catching up with the cluster's shared
 * tip, a block the poll has not read yet) is answered but not kept, so a kept answer is always the reported tip's.
 */
export interface PerTip<A, D = unknown> {
  readonly answers: TipAnswers;
  readonly at: (value: A, tip: PointRow, decoded: D) => boolean;
}

/**
 * For programs whose whole value is cached under the reported tip (src/programs/at_tip.ts), or for longer than
 * an answer is kept: the encoded answer is kept under that same tip, so it is never staler than the value it
 * encodes (figures cached apart from the tip, per epoch, age out in 5 s).
 */
export const keptWithTheValue = <A, D>(): PerTip<A, D> => ({
  answers: makeTipAnswers(5_000),
  at: () => true,
});

/**
 * The answer kept for these decoded parameters at the network's reported tip, and how to keep a new one. None is
 * served while the chain database is down as `/health` says it (a failed or stale tip poll): the program then
 * runs and answers as it can (503 when the database does not answer). A value is kept only if the tip has not
 * moved while it was computed and it was computed at that tip.
 */
export const keptAnswer = <A, D>(perTip: PerTip<A, D>, network: Network, decoded: D, ctx: RouteContext) => {
  if (chainDown(ctx.services, network) !== undefined) return undefined;
  const tips = Context.get(ctx.services, ChainTips).get(network);
  const tip = tips.current();
  if (tip === undefined) return undefined;
  const key = stringify(decoded);
  return {
    answer: perTip.answers.get(network, tip.hash, key, Date.now()),
    keep: (answer: EncodedJson, value: A) => {
      if (
        tips.current()?.hash === tip.hash && perTip.at(value, tip, decoded) &&
        chainDown(ctx.services, network) === undefined
      ) {
        perTip.answers.set(network, tip.hash, key, answer, Date.now());
      }
    },
  };
};

/**
 * A route's answer: the one kept at the reported tip when there is one, else `answer(keep)`, which runs the
 * program and hands its encoded answer to `keep` (undefined when nothing may be kept: no `perTip`, no network,
 * the chain database down).
 */
export const keptOrAnswered = <A, D>(
  perTip: PerTip<A, D> | undefined,
  network: Network | undefined,
  decoded: D,
  ctx: RouteContext,
  answer: (keep: ((answer: EncodedJson, value: A) => void) | undefined) => Program | Response,
): Program | Response => {
  const kept = perTip && network && keptAnswer(perTip, network, decoded, ctx);
  if (kept && kept.answer) return answerEncoded(ctx.request, kept.answer);
  return answer(kept ? kept.keep : undefined);
};
