/** The kept answers' bounds (src/http/tip_answers.ts): per tip, by count, by size, and by age. */
import assert from "node:assert/strict";
import { makeTipAnswers } from "@src/http/tip_answers.ts";

const answer = (chars: number) => ({ text: "x".repeat(chars), headers: {} });

Deno.test("kept answers: per tip, bounded by count and by size, aged out", async (t) => {
  await t.step("an answer is kept for its tip only; another tip drops them all", () => {
    const kept = makeTipAnswers(5_000);
    kept.set("mainnet", "tip-a", "k", answer(10), 0);
    assert.equal(kept.get("mainnet", "tip-a", "k", 1)?.text.length, 10);
    assert.equal(kept.get("preprod", "tip-a", "k", 1), undefined);
    kept.set("mainnet", "tip-b", "other", answer(10), 2);
    assert.equal(kept.get("mainnet", "tip-a", "k", 3), undefined);
    assert.equal(kept.get("mainnet", "tip-b", "k", 3), undefined);
  });

  await t.step("past the count, the oldest goes", () => {
    const kept = makeTipAnswers(5_000, 2);
    for (const k of ["a", "b", "c"]) kept.set("mainnet", "t", k, answer(1), 0);
    assert.equal(kept.get("mainnet", "t", "a", 1), undefined);
    assert.ok(kept.get("mainnet", "t", "b", 1) && kept.get("mainnet", "t", "c", 1));
  });

  await t.step("past the size, the oldest go until the new one fits; one over an eighth is not kept", () => {
    const kept = makeTipAnswers(5_000, 256, 800);
    for (const k of ["a", "b", "c", "d"]) kept.set("mainnet", "t", k, answer(100), 0);
    kept.set("mainnet", "t", "big", answer(100), 0); // 500 of 800
    kept.set("mainnet", "t", "e", answer(100), 0);
    kept.set("mainnet", "t", "f", answer(100), 0);
    kept.set("mainnet", "t", "g", answer(100), 0); // 800 of 800
    assert.ok(kept.get("mainnet", "t", "a", 1));
    kept.set("mainnet", "t", "h", answer(100), 0); // a goes
    assert.equal(kept.get("mainnet", "t", "a", 1), undefined);
    assert.ok(kept.get("mainnet", "t", "b", 1) && kept.get("mainnet", "t", "h", 1));
    kept.set("mainnet", "t", "huge", answer(101), 0); // over 800 / 8: answered, not kept
    assert.equal(kept.get("mainnet", "t", "huge", 1), undefined);
    assert.ok(kept.get("mainnet", "t", "b", 1), "nothing was dropped for it");
    // replacing a key frees its old size first
    kept.set("mainnet", "t", "b", answer(50), 0);
    kept.set("mainnet", "t", "i", answer(50), 0);
    assert.ok(kept.get("mainnet", "t", "c", 1), "the 50 freed by b's new answer took i");
  });

  await t.step("an answer ages out after the ttl", () => {
    const kept = makeTipAnswers(1_000);
    kept.set("mainnet", "t", "k", answer(1), 0);
    assert.ok(kept.get("mainnet", "t", "k", 999));
    assert.equal(kept.get("mainnet", "t", "k", 1_000), undefined);
  });
});
