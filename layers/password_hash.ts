/**
 * Password hashes: scrypt from node:crypto (memory-hard; runs on libuv's thread pool, so the event loop stays
 * free), encoded as `scrypt$N$r$p$<salt b64>$<hash b64>` so the parameters travel with each hash and can be
 * raised later without invalidating old hashes. Verification compares in constant time.
 */
import { scrypt, timingSafeEqual } from "node:crypto";
import { Effect } from "effect";

export interface ScryptParameters {
  readonly N: number;
  readonly r: number;
  readonly p: number;
}

/** N=2^15, r=8: 32 MiB per hash (OWASP's scrypt minimum is N=2^17 with r=8 at 128 MiB; we stay within 64). */
export const defaultParameters: ScryptParameters = { N: 2 ** 15, r: 8, p: 1 };
const keyLength = 32;
const maxmem = 64 * 1024 * 1024;

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

/** A fresh salt each time: equal passwords give different strings. */
export const hashPassword = (
  password: string,
  params: ScryptParameters = defaultParameters,
): Effect.Effect<string> =>
  Effect.promise(async () => {
    const salt = crypto.getRandomValues(new Uint8Array(16));
    const hash = await derive(password, salt, params);
    return `scrypt$${params.N}$${params.r}$${params.p}$${b64(salt)}$${b64(hash)}`;
  });

/** Parameters an attacker-controlled or corrupt string may not push past: at most the defaults' memory. */
const parse = (encoded: string) => {
  const m = /^scrypt\$(\d{1,8})\$(\d{1,3})\$(\d{1,3})\$([A-Za-z0-9+/=]{4,64})\$([A-Za-z0-9+/=]{4,128})$/.exec(
    encoded,
  );
  if (!m) return undefined;
  const [N, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (N < 2 || (N & (N - 1)) !== 0 || r < 1 || p < 1 || 128 * N * r > maxmem || p > 16) return undefined;
  return { params: { N, r, p }, salt: Buffer.from(m[4]!, "base64"), hash: Buffer.from(m[5]!, "base64") };
};

/** True when `password` matches `encoded`; false for a wrong password or an unreadable hash. */
export const verifyPassword = (password: string, encoded: string): Effect.Effect<boolean> =>
  Effect.promise(async () => {
    const parsed = parse(encoded);
    if (!parsed) return false;
    const derived = await derive(password, parsed.salt, parsed.params).catch(() => undefined);
    return derived !== undefined && derived.length === parsed.hash.length &&
      timingSafeEqual(derived, parsed.hash);
  });

/**
 * A hash of nothing anyone knows: log-ins for unknown addresses verify against it, so they take as long as
 * those for real accounts and do not tell which addresses have accounts.
 */
export const decoyHash = Effect.runSync(Effect.cached(hashPassword(crypto.randomUUID())));
