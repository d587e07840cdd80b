/**
 * Answers that follow from the chain as of its tip (the network's stats), kept encoded, so a repeated request is
 * answered from its bytes: no program run, no Schema pass, no JSON encoding, no fiber. Entries belong to the tip
 * `ChainTips` reports (once a second; the cluster's shared tip with Redis): a new block, a rollback or a shared
 * tip moving drops them all, and each also ages out after `ttlMs` (figures cached apart from the tip, as the
 * per-epoch ones, computed afresh). Bounded per network by count (`maxEntries`) and by size (`maxChars` of
 * answer text: a page of an address's UTxOs can be large, and its key comes from the client): the oldest go
 * first, and an answer over an eighth of `maxChars` is not kept at all.
 * Whether a kept answer may be served at all (the chain database reachable) is the caller's to check.
 */
import type { Network } from "@schemas/network.ts";
import type { EncodedJson } from "./conditional_json.ts";

interface Held {
  readonly answer: EncodedJson;
  readonly expires: number;
}

export interface TipAnswers {
  /** The answer kept for `key` at this tip, if it is still fresh. */
  readonly get: (network: Network, tip: string, key: string, now: number) => EncodedJson | undefined;
  /** Keeps an answer computed at `tip`; entries of any other tip are dropped. */
  readonly set: (network: Network, tip: string, key: string, answer: EncodedJson, now: number) => void;
}

export const makeTipAnswers = (ttlMs: number, maxEntries = 256, maxChars = 4 * 1024 * 1024): TipAnswers => {
  const networks = new Map<Network, { tip: string; entries: Map<string, Held>; chars: number }>();
  const drop = (held: { entries: Map<string, Held>; chars: number }, key: string) => {
    const gone = held.entries.get(key);
    if (gone === undefined) return;
    held.entries.delete(key);
    held.chars -= gone.answer.text.length;
  };
  return {
    get: (network, tip, key, now) => {
      const held = networks.get(network);
      if (!held || held.tip !== tip) return undefined;
      const hit = held.entries.get(key);
      if (!hit) return undefined;
      if (hit.expires > now) return hit.answer;
      drop(held, key);
      return undefined;
    },
    set: (network, tip, key, answer, now) => {
      const size = answer.text.length;
      if (size > maxChars / 8) return;
      let held = networks.get(network);
      if (!held || held.tip !== tip) networks.set(network, held = { tip, entries: new Map(), chars: 0 });
      drop(held, key);
      while (held.entries.size >= maxEntries || (held.entries.size > 0 && held.chars + size > maxChars)) {
        drop(held, held.entries.keys().next().value!);
      }
      held.entries.set(key, { answer, expires: now + ttlMs });
      held.chars += size;
    },
  };
};
