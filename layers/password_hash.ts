/**
 * Password hashes: scrypt from node:crypto (memory-hard; runs on libuv's thread pool, so the event loop stays
 * free), encoded as `scrypt$N$r$p$<salt b64>$<hash b64>` so the parameters travel with each hash and can be
 * raised later without invalidating old hashes (`needsRehash` tells which to upgrade at the next log-in).
 * Verification compares in constant time. Every hash and verification in the process goes through one
 * `BoundedGate` (as many at once as there are cores, a short queue, then `PasswordHashBusy`): at 128 MiB each,
 * a flood of them must not be able to take the memory or the CPU.
 */
import { scrypt, timingSafeEqual } from "node:crypto";
import { cpus } from "node:os";
import { Context, Effect } from "effect";
import { PasswordHashBusy } from "@src/domain/account_errors.ts";
import { makeBoundedGate } from "./bounded_gate.ts";

export interface ScryptParameters {
  readonly N: number;
  readonly r: number;
  readonly p: number;
}

/** OWASP's scrypt minimum: N=2^17, r=8, p=1, 128 MiB per hash. */
export const defaultParameters: ScryptParameters = { N: 2 ** 17, r: 8, p: 1 };

/**
 * The parameters new hashes are made with: `defaultParameters` unless a program is given others explicitly
 * (the account programs' tests do, to hash in milliseconds; nothing in the environment can lower them).
 */
export class PasswordHashParameters extends Context.Reference<PasswordHashParameters>()(
  "PasswordHashParameters",
  { defaultValue: (): ScryptParameters => defaultParameters },
) {}
const keyLength = 32;
/** scrypt needs 128·N·r bytes and a little more: the defaults' memory with room to spare. */
const maxmem = 192 * 1024 * 1024;
const memoryOf = (params: ScryptParameters) => 128 * params.N * params.r;

const slots = Math.max(1, cpus().length);
/** One slot per core; four more requests per slot may wait (about a second at ~0.3 s a hash per core). */
export const passwordHashGate = makeBoundedGate(slots, 4 * slots);
const busy = () => new PasswordHashBusy({ retryAfterSeconds: 2 });

const derive = (password: string, salt: Uint8Array, params: ScryptParameters) =>
  new Promise<Buffer>((resolve, reject) =>
    scrypt(
      password.normalize("NFC"),
      salt,
      keyLength,
      { ...params, maxmem },
      (error, key) => error ? reject(error) : resolve(key),
    )
  );

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");
const encode = (params: ScryptParameters, salt: Uint8Array, hash: Uint8Array) =>
  `scrypt$${params.N}$${params.r}$${params.p}$${b64(salt)}$${b64(hash)}`;

/** A fresh salt each time: equal passwords give different strings. */
export const hashPassword = (
  password: string,
  params?: ScryptParameters,
): Effect.Effect<string, PasswordHashBusy> =>
  Effect.flatMap(
    params === undefined ? PasswordHashParameters : Effect.succeed(params),
    (chosen) =>
      passwordHashGate.run(
        Effect.promise(async () => {
          const salt = crypto.getRandomValues(new Uint8Array(16));
          return encode(chosen, salt, await derive(password, salt, chosen));
        }),
        busy,
      ),
  );

/** Parameters an attacker-controlled or corrupt string may not push past: at most the defaults' memory. */
const parse = (encoded: string) => {
  const m = /^scrypt\$(\d{1,8})\$(\d{1,3})\$(\d{1,3})\$([A-Za-z0-9+/=]{4,64})\$([A-Za-z0-9+/=]{4,128})$/.exec(
    encoded,
  );
  if (!m) return undefined;
  const [N, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (
    N < 2 || (N & (N - 1)) !== 0 || r < 1 || p < 1 || memoryOf({ N, r, p }) > memoryOf(defaultParameters) ||
    p > 16
  ) return undefined;
  return { params: { N, r, p }, salt: Buffer.from(m[4]!, "base64"), hash: Buffer.from(m[5]!, "base64") };
};

/** True when `password` matches `encoded`; false for a wrong password or an unreadable hash. */
export const verifyPassword = (password: string, encoded: string): Effect.Effect<boolean, PasswordHashBusy> =>
  Effect.suspend(() => {
    const parsed = parse(encoded);
    if (!parsed) return Effect.succeed(false);
    return passwordHashGate.run(
      Effect.promise(async () => {
        const derived = await derive(password, parsed.salt, parsed.params).catch(() => undefined);
        return derived !== undefined && derived.length === parsed.hash.length &&
          timingSafeEqual(derived, parsed.hash);
      }),
      busy,
    );
  });

/** Whether a stored hash is weaker than today's parameters (made before they were raised): rehash it. */
export const needsRehash = (encoded: string): Effect.Effect<boolean> =>
  Effect.map(PasswordHashParameters, (current) => {
    const parsed = parse(encoded);
    return parsed !== undefined &&
      (parsed.params.N < current.N || parsed.params.r < current.r || parsed.params.p < current.p);
  });

const decoys = new Map<string, string>();

/**
 * A hash of nothing anyone knows (random bytes in the place of a derived key, at today's parameters): log-ins
 * for unknown addresses verify against it, so they cost and take as long as those for real accounts and do not
 * tell which addresses have accounts.
 */
export const decoyHash: Effect.Effect<string> = Effect.map(PasswordHashParameters, (params) => {
  const key = `${params.N}$${params.r}$${params.p}`;
  let decoy = decoys.get(key);
  if (decoy === undefined) {
    decoy = encode(
      params,
      crypto.getRandomValues(new Uint8Array(16)),
      crypto.getRandomValues(new Uint8Array(keyLength)),
    );
    decoys.set(key, decoy);
  }
  return decoy;
});
