/**
 * A new secret for one of the account's keys (name, tier, permissions and usage kept), returned once. The old
 * secret is refused everywhere within a second: the key change moves the counter every service polls
 * (layers/access.ts), and open WebSockets on the old secret are closed.
 */
import { Effect, Option } from "effect";
import { AccountStore } from "@layers/account_store.ts";
import { keyNotFound } from "./own_key.ts";

export const rotateKey = (accountId: number, keyId: number) =>
  Effect.gen(function* () {
    const secret = yield* (yield* AccountStore).rotateKey(accountId, keyId);
    if (Option.isNone(secret)) return yield* Effect.fail(keyNotFound(keyId));
    return { id: keyId, secret: secret.value };
  });
