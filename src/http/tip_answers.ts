/**
 * Answers that follow from the chain as of its tip (the network's stats, a page of the newest blocks), kept
 * encoded, so a repeated request is answered from its bytes: no program run, no Schema pass, no JSON encoding,
 * no fiber. Entries belong to the tip `ChainTips` last read (once a second): a new block or a rollback drops them
 * all, and each also ages out after `ttlMs` (the answer's parts that change between blocks, as per-epoch figures
 * computed afresh). Bounded: past `maxEntries` per network, the oldest goes.
 */
import type { Network } from "@schemas/network.ts";
import type { EncodedJson } from "./conditional_json.ts";

interface Held {
  readonly answer: EncodedJson;
  readonly expires: number;
}

export interface TipAnswers {
  /** The answer kept for `key` at this tip, if it is still fresh. */
  readonly get: (
    network: Network,
    tip: string | undefined,
    key: string,
    now: number,
  ) => EncodedJson | undefined;
  /** Keeps an answer computed at `tip` (the tip read before computing it: a newer one drops it). */
  readonly set: (
    network: Network,
    tip: string | undefined,
    key: string,
    answer: EncodedJson,
    now: number,
  ) => void;
}

export const makeTipAnswers = (ttlMs: number, maxEntries = 256): TipAnswers => {
  const networks = new Map<Network, { tip: string | undefined; entries: Map<string, Held> }>();
  const entriesAt = (network: Network, tip: string | undefined) => {
    let held = networks.get(network);
    if (!held || held.tip !== tip) networks.set(network, held = { tip, entries: new Map() });
    return held.entries;
  };
  return {
    get: (network, tip, key, now) => {
      const held = networks.get(network);
      if (!held || held.tip !== tip) return undefined;
      const hit = held.entries.get(key);
      if (!hit) return undefined;
      if (hit.expires > now) return hit.answer;
      held.entries.delete(key);
      return undefined;
    },
    set: (network, tip, key, answer, now) => {
      const entries = entriesAt(network, tip);
      entries.delete(key);
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
      entries.set(key, { answer, expires: now + ttlMs });
    },
  };
};
