/** Ends the session a cookie's secret names (nothing to do for an unknown or malformed one). */
import { Effect } from "effect";
import { AccountStore } from "@layers/account_store.ts";
import { looksLikeSecret } from "./secrets.ts";

export const logOut = (secret: string | undefined) =>
  looksLikeSecret(secret) ? Effect.flatMap(AccountStore, (store) => store.endSession(secret)) : Effect.void;
