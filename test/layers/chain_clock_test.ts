/** Chain time: slot, epoch and wall-clock arithmetic anchored on an epoch start, driven by Effect's TestClock. */
import assert from "node:assert/strict";
import { Effect, TestClock, TestContext } from "effect";
import { makeChainTime } from "@src/domain/chain_time.ts";
import { epochLength } from "@src/domain/network_constants.ts";

const start = new Date("2026-08-01T00:00:00Z");
// the tip's epoch (5) began at slot 2,160,000, five 432,000-slot epochs after the start
const time = makeChainTime({
  epoch: 5,
  slot: 5 * epochLength,
  time: new Date(start.getTime() + 5 * epochLength * 1000),
});

Deno.test("chain time converts slots, epochs and times both ways", () => {
  assert.equal(time.slotToTime(0).toISOString(), start.toISOString());
  assert.equal(time.timeToSlot(new Date("2026-08-01T00:01:40Z")), 100);
  assert.equal(time.epochOfSlot(431_999), 0);
  assert.equal(time.epochOfSlot(432_000), 1);
  assert.equal(time.epochOfSlot(5 * epochLength + 123), 5);
  assert.equal(time.epochStartSlot(7), 7 * epochLength);
  for (const slot of [0, 1, 431_999, 432_000, 2_592_001]) {
    assert.equal(time.timeToSlot(time.slotToTime(slot)), slot);
  }
});

Deno.test("chain time follows the (test) clock", async () => {
  const now = await Effect.runPromise(
    Effect.gen(function* () {
      yield* TestClock.setTime(start.getTime() + (6 * epochLength + 10) * 1000);
      return yield* time.now;
    }).pipe(Effect.provide(TestContext.TestContext)),
  );
  assert.equal(now.slot, 6 * epochLength + 10);
  assert.equal(now.epoch, 6);
});
