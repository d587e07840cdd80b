/**
 * Password hashes: new ones at OWASP's scrypt parameters (N=2^17, r=8, p=1), older ones still verify and are
 * known to need a rehash, hashes asking for more memory than the defaults are refused unread, and every hash and
 * verification goes through one bounded gate: past its slots and its short queue, `PasswordHashBusy` at once.
 */
import assert from "node:assert/strict";
import { cpus } from "node:os";
import { Effect, Exit } from "effect";
import {
  decoyHash,
  defaultParameters,
  hashPassword,
  needsRehash,
  passwordHashGate,
  verifyPassword,
} from "@layers/password_hash.ts";

const run = Effect.runPromise;
const small = { N: 2 ** 10, r: 8, p: 1 };

Deno.test("new hashes are at N=2^17, r=8, p=1; they verify; older ones verify and need a rehash", async () => {
  assert.deepEqual(defaultParameters, { N: 131072, r: 8, p: 1 });
  const hash = await run(hashPassword("a password"));
  assert.match(hash, /^scrypt\$131072\$8\$1\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}$/);
  assert.equal(await run(verifyPassword("a password", hash)), true);
  assert.equal(await run(needsRehash(hash)), false);
  const old = await run(hashPassword("a password", { N: 2 ** 15, r: 8, p: 1 }));
  assert.equal(await run(verifyPassword("a password", old)), true);
  assert.equal(await run(verifyPassword("another", old)), false);
  assert.equal(await run(needsRehash(old)), true);
  assert.match(await run(decoyHash), /^scrypt\$131072\$8\$1\$/);
});

Deno.test("a stored hash asking for more than the defaults' memory is refused without deriving", async () => {
  const greedy = (await run(hashPassword("x", small))).replace("$1024$", `$${2 ** 20}$`);
  const started = performance.now();
  assert.equal(await run(verifyPassword("x", greedy)), false);
  assert.ok(performance.now() - started < 500);
});

Deno.test("the gate: as many at once as there are cores, a short queue, then PasswordHashBusy at once", async () => {
  const gate = passwordHashGate;
  assert.equal(gate.slots, Math.max(1, cpus().length));
  const exits = await Promise.all(
    Array.from({ length: 200 }, (_, i) => Effect.runPromiseExit(hashPassword(`password ${i}`, small))),
  );
  const done = exits.filter(Exit.isSuccess).length;
  const busy =
    exits.filter((e) =>
      Exit.isFailure(e) && e.cause._tag === "Fail" && e.cause.error._tag === "PasswordHashBusy"
    ).length;
  assert.equal(done, gate.slots + gate.waiting, `${done} hashed`);
  assert.equal(busy, 200 - done);
  assert.equal(gate.pending(), 0, "every slot given back");
  // and it serves again at once
  assert.equal(await run(verifyPassword("password 0", await run(hashPassword("password 0", small)))), true);
});
