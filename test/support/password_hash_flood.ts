/**
 * A process of its own for measuring what a flood of password checks holds in memory (test files run side by
 * side in one test process, so its RSS is theirs too): makes one hash, prints "ready", waits for a line on stdin,
 * then sends `count` verifications through the gate at once and prints how they ended as JSON.
 *   deno run -A test/support/password_hash_flood.ts 300
 */
import { Effect, Exit } from "effect";
import { hashPassword, passwordHashGate, verifyPassword } from "@layers/password_hash.ts";

const count = Number(Deno.args[0] ?? "300");
const encoded = await Effect.runPromise(hashPassword("the owner's real password"));
console.log("ready");
for await (const _ of Deno.stdin.readable.pipeThrough(new TextDecoderStream())) break;
const exits = await Promise.all(
  Array.from({ length: count }, () => Effect.runPromiseExit(verifyPassword("a guess", encoded))),
);
const checked = exits.filter(Exit.isSuccess).length;
console.log(JSON.stringify({ checked, busy: count - checked, slots: passwordHashGate.slots }));
