/**
 * What the front door refuses a protected request with before its route runs: the key or its limits
 * (`AccessDenied`), the caller's address throttled after failed keys, the key store down. Every protocol answers
 * them in its own dialect (a route's `refuse`, route.ts): REST's `{error: {code, message}}` by default, GraphQL's
 * errors array on the GraphQL routes.
 */
import { Data } from "effect";
import type { AccessDenied } from "@layers/access.ts";

/** The caller's address failed authentication too often; it may try again in `waitMs`. */
export class AuthThrottled extends Data.TaggedError("AuthThrottled")<{ readonly waitMs: number }> {}

/** The key store could not be read, so no key can be checked. */
export class KeyStoreUnavailable extends Data.TaggedError("KeyStoreUnavailable") {}

export type Refusal = AccessDenied | AuthThrottled | KeyStoreUnavailable;

/** What the address throttle says, in every dialect (`seconds`: its Retry-After). */
export const throttledMessage = (seconds: string) =>
  `Too many failed authentication attempts from this address; try again in ${seconds} s`;

export const keyStoreDownMessage = "The key store is unavailable; try again shortly";
