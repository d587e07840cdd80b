/**
 * A reset link for the operator to hand over (`npm run accounts -- reset-link EMAIL`), for installations
 * without SMTP: valid for a day, once.
 */
import { Effect, Option } from "effect";
import { AccountStore } from "@layers/account_store.ts";
import { AppConfig, publicBaseUrl } from "@layers/config.ts";
import { NotFoundError } from "@src/domain/errors.ts";
import { normalizeEmail } from "@src/domain/accounts.ts";
import { newSecret, operatorResetLinkHours } from "./secrets.ts";

export const issueResetLink = (emailText: string) =>
  Effect.gen(function* () {
    const email = yield* normalizeEmail(emailText);
    const store = yield* AccountStore;
    const account = yield* store.byEmail(email);
    if (Option.isNone(account)) {
      return yield* Effect.fail(new NotFoundError({ message: `No account ${email}` }));
    }
    const secret = newSecret();
    const expiresAt = new Date(Date.now() + operatorResetLinkHours * 3_600_000);
    yield* store.addToken(account.value.id, "reset", secret, expiresAt);
    return { link: `${publicBaseUrl(yield* AppConfig)}/reset-password?token=${secret}`, expiresAt };
  });
