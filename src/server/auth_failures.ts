/**
 * Failed authentications per client address: past `limit` in 10 s, the address is answered 429 on every
 * protected route until its oldest counted failure is 10 s old, so guessing keys is slow and a flood of random
 * keys costs no key-store read each. IPv6 addresses count per /64 (one host usually holds a whole /64). Memory is
 * bounded: past `maxAddresses`, the address seen longest ago is forgotten.
 */
import { addressGroup } from "@src/domain/client_address.ts";

export { addressGroup };

const windowMs = 10_000;
const maxAddresses = 50_000;

export interface AuthFailures {
  /** Milliseconds until the address may try again; 0 when it may now. */
  readonly blockedFor: (address: string, now: number) => number;
  readonly record: (address: string, now: number) => void;
  /**
   * Starts a key-store lookup of `secret` for the address, or refuses it (undefined) when the address's recent
   * failures plus the distinct keys it already has being looked up reach the limit: a concurrent flood of
   * unknown keys is held to the same allowance as a sequential one (each would otherwise pass the check before
   * the first failure is counted). Requests sharing a key share its slot. Call the returned function when done.
   */
  readonly beginLookup: (address: string, secret: string, now: number) => (() => void) | undefined;
}

export const makeAuthFailures = (limit: number): AuthFailures => {
  /** Per address group, the times of its recent failures, oldest first (at most `limit` kept). */
  const failures = new Map<string, Array<number>>();
  const recent = (group: string, now: number) => {
    const times = failures.get(group);
    if (!times) return undefined;
    while (times.length > 0 && times[0]! <= now - windowMs) times.shift();
    if (times.length === 0) failures.delete(group);
    return times.length === 0 ? undefined : times;
  };
  /** Per address group, the keys being looked up now, with how many requests wait on each. */
  const pending = new Map<string, Map<string, number>>();
  return {
    beginLookup: (address, secret, now) => {
      if (limit === 0) return () => {};
      const group = addressGroup(address);
      const keys = pending.get(group) ?? new Map<string, number>();
      if (!keys.has(secret) && (recent(group, now)?.length ?? 0) + keys.size >= limit) return undefined;
      keys.set(secret, (keys.get(secret) ?? 0) + 1);
      pending.set(group, keys);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const left = (keys.get(secret) ?? 1) - 1;
        if (left > 0) keys.set(secret, left);
        else keys.delete(secret);
        if (keys.size === 0 && pending.get(group) === keys) pending.delete(group);
      };
    },
    blockedFor: (address, now) => {
      if (limit === 0) return 0;
      const times = recent(addressGroup(address), now);
      return times && times.length >= limit ? times[0]! + windowMs - now : 0;
    },
    record: (address, now) => {
      if (limit === 0) return;
      const group = addressGroup(address);
      const times = recent(group, now) ?? [];
      times.push(now);
      if (times.length > limit) times.shift();
      failures.delete(group); // re-inserted last: the map's order is least recently seen first
      if (failures.size >= maxAddresses) failures.delete(failures.keys().next().value!);
      failures.set(group, times);
    },
  };
};
