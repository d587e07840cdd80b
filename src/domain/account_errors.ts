/**
 * The typed failures of the account programs (sign-up, log-in, sessions, links, key management). Each web edge
 * maps them to its page or status; nothing here knows about HTTP. Another account's key is `NotFoundError`
 * (errors.ts), so ids reveal nothing.
 */
import { Data } from "effect";

/** The email address is malformed or too long. */
export class InvalidEmail extends Data.TaggedError("InvalidEmail")<{ readonly reason: string }> {
  override get message(): string {
    return `Invalid email address: ${this.reason}`;
  }
}

/** The password is too short, too long, or equals the email address. */
export class WeakPassword extends Data.TaggedError("WeakPassword")<{ readonly reason: string }> {
  override get message(): string {
    return this.reason;
  }
}

/** An account with that email address exists already. */
export class EmailTaken extends Data.TaggedError("EmailTaken") {
  override get message(): string {
    return "An account with this email address exists already";
  }
}

/** Wrong email or password: deliberately the same failure for both. */
export class InvalidCredentials extends Data.TaggedError("InvalidCredentials") {
  override get message(): string {
    return "Wrong email address or password";
  }
}

/** Too many failed log-ins (or sign-ups) for the account or from the address; try again later. */
export class LoginThrottled
  extends Data.TaggedError("LoginThrottled")<{ readonly retryAfterSeconds: number }> {
  override get message(): string {
    return `Too many attempts; try again in ${this.retryAfterSeconds} s`;
  }
}

/** Too many passwords are being hashed at once (a flood): nothing was checked; try again shortly. */
export class PasswordHashBusy
  extends Data.TaggedError("PasswordHashBusy")<{ readonly retryAfterSeconds: number }> {
  override get message(): string {
    return `Too many password checks at once; try again in ${this.retryAfterSeconds} s`;
  }
}

/** The operator disabled the account: no log-in, and its keys are refused. */
export class AccountDisabled extends Data.TaggedError("AccountDisabled") {
  override get message(): string {
    return "This account is disabled; contact the operator";
  }
}

/** With SMTP configured, an account logs in only once its email address is confirmed. */
export class EmailUnconfirmed extends Data.TaggedError("EmailUnconfirmed") {
  override get message(): string {
    return "Confirm your email address first: follow the link in the mail we sent";
  }
}

/** The account's plan does not allow what was asked (a FREE account asking for a PAID key). */
export class PlanForbids extends Data.TaggedError("PlanForbids")<{ readonly message: string }> {}

/** A key request with a bad field (name, permissions, expiry), naming the field and why. */
export class InvalidKeyRequest extends Data.TaggedError("InvalidKeyRequest")<{
  readonly field: string;
  readonly reason: string;
}> {
  override get message(): string {
    return `${this.field}: ${this.reason}`;
  }
}

/** A confirmation or reset link that is unknown, malformed, used already or expired. */
export class TokenInvalid extends Data.TaggedError("TokenInvalid") {
  override get message(): string {
    return "This link is invalid, used already or expired";
  }
}

/** No live session for that secret (unknown, expired, logged out, or its account is gone or disabled). */
export class SessionInvalid extends Data.TaggedError("SessionInvalid") {
  override get message(): string {
    return "Your session has ended; log in again";
  }
}

/** A FREE account holds its most active keys already (FREE_KEYS_PER_ACCOUNT): one more is not made or re-activated. */
export class KeyLimitReached extends Data.TaggedError("KeyLimitReached")<{ readonly limit: number }> {
  override get message(): string {
    return `A FREE account holds at most ${this.limit} active keys (they share one set of FREE limits); ` +
      "deactivate or revoke one first";
  }
}
