/**
 * Whether a network's chain database is to be taken as down, as `/health` says it: its dependency marked down,
 * the last tip poll failed, or no poll for 5 s (busy past its limits, or lost). No I/O: it reads what the poll
 * keeps, so an answer kept per tip can be checked against it on every request without a fiber.
 */
import { Context } from "effect";
import { Dependencies } from "@layers/dependencies.ts";
import { ChainTips } from "@layers/chain_tips.ts";
import type { Network } from "@schemas/network.ts";

/** A poll older than this means the network's database is not answering (busy past its limits, or lost). */
const staleAfterMs = 5_000;

/** Why the network's chain database is down, or undefined while its tip poll is healthy. */
export const chainDown = (
  services: Context.Context<Dependencies | ChainTips>,
  network: Network,
  now = Date.now(),
): string | undefined => {
  const watched = Context.get(services, Dependencies).status(`${network} chain database`);
  if (watched?.state === "down") return watched.lastError ?? "the database does not answer";
  const polled = Context.get(services, ChainTips).get(network).polled();
  if (polled.error !== undefined) return `the last tip read failed: ${polled.error}`;
  if (polled.at === undefined || now - polled.at > staleAfterMs) {
    return `no tip read for ${
      polled.at === undefined ? "ever" : `${Math.round((now - polled.at) / 1000)} s`
    } (the database is busy or gone)`;
  }
  return undefined;
};
