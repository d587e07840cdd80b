/**
 * The live session a cookie's secret names, with its account: none for a malformed, unknown, expired or ended
 * session, or one whose account is disabled or deleted. A malformed secret costs no database read.
 */
import { Effect, Option } from "effect";
import { AccountStore } from "@layers/account_store.ts";
import { looksLikeSecret } from "./secrets.ts";

export const sessionOf = (secret: string | undefined) =>
  looksLikeSecret(secret)
    ? Effect.flatMap(AccountStore, (store) => store.session(secret))
    : Effect.succeed(Option.none());
