/**
 * Sign-up without mail (issue 16): an account on the FREE plan and its first FREE key, made together in one
 * transaction, so a failure leaves neither; the account is usable at once, and its first session is opened in the
 * same transaction (with a device token for the browser), so what shows the key's secret never depends on a
 * log-in that may be throttled. Without mail the answer necessarily tells whether the address has an account
 * (`EmailTaken`): with SMTP configured the dashboard signs up through `signUpByMail` instead, which answers alike
 * either way. Sign-ups count per client address (`AttemptThrottle`, reserved before the work), so one address
 * cannot mint accounts (and FREE keys) in bulk. The key's secret is returned here once and never again.
 */
import { Effect } from "effect";
import { AccountStore } from "@layers/account_store.ts";
import { AttemptThrottle } from "@layers/attempt_throttle.ts";
import { hashPassword } from "@layers/password_hash.ts";
import { Mailer } from "@layers/mailer.ts";
import { allPermissions, checkPassword, normalizeEmail } from "@src/domain/accounts.ts";
import { LoginThrottled } from "@src/domain/account_errors.ts";
import { addressGroup } from "@src/domain/client_address.ts";
import type { CheckedKey } from "@src/domain/key_policy.ts";
import { newDeviceToken } from "./device_token.ts";
import { newSecret, sessionDays } from "./secrets.ts";

/** The key every account starts with: made at sign-up without mail, at the address's confirmation with it. */
export const firstKey: CheckedKey = {
  name: "Default key",
  tier: "FREE",
  permissions: allPermissions,
  expiresAt: null,
};
export const firstKeyName = firstKey.name;

export interface SignUpInput {
  readonly email: string;
  readonly password: string;
  readonly clientAddress?: string;
}

/**
 * What every sign-up checks first: the address and password as typed, then the client address's allowance, which
 * it reserves (counted before the work). `hash` hashes the password; a sign-up the hashes were too busy for did
 * not happen, so it gives its reservation back.
 */
export const admitSignUp = (input: SignUpInput) =>
  Effect.gen(function* () {
    const email = yield* normalizeEmail(input.email);
    yield* checkPassword(input.password, email);
    const throttle = yield* AttemptThrottle;
    const address = input.clientAddress === undefined ? undefined : addressGroup(input.clientAddress);
    if (address !== undefined) {
      const wait = yield* throttle.reserve("signup-address", address);
      if (wait > 0) {
        return yield* Effect.fail(new LoginThrottled({ retryAfterSeconds: Math.ceil(wait / 1000) }));
      }
    }
    const hash = hashPassword(input.password).pipe(
      Effect.tapError(() =>
        address === undefined ? Effect.void : throttle.release("signup-address", address)
      ),
    );
    return { email, hash };
  });

export const signUp = (input: SignUpInput) =>
  Effect.gen(function* () {
    if ((yield* Mailer).enabled) {
      return yield* Effect.dieMessage("signUp is the sign-up without mail: with SMTP use signUpByMail");
    }
    const { email, hash } = yield* admitSignUp(input);
    const store = yield* AccountStore;
    const passwordHash = yield* hash;
    const session = {
      secret: newSecret(),
      csrfToken: newSecret(),
      expiresAt: new Date(Date.now() + sessionDays * 86_400_000),
    };
    const { account, key } = yield* store.signUp({
      email,
      passwordHash,
      confirmed: true,
      key: firstKey,
      session,
    });
    return {
      account,
      key: { id: key.record.id, secret: key.secret, record: key.record },
      confirmationSent: false,
      /** The account is usable at once: its first session, and a device token for the browser. */
      session,
      deviceToken: newDeviceToken(account.id, passwordHash),
    };
  });
