/**
 * "/health answers in under 100 ms while the attack runs", judged one way by every resilience test. CI runs three
 * test files at once on two shared cores, so a single probe now and then waits for a core through no fault of the
 * service; a blocked event loop delays every probe after it instead. So: nine probes in ten under 100 ms, and none
 * near a second (a stall).
 */
import assert from "node:assert/strict";

export const healthWithinMs = 100;
export const healthStallMs = 1_000;

/** The p-th percentile (0..1) of `samples`, nearest rank. */
export const percentile = (samples: ReadonlyArray<number>, p: number): number => {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] ?? NaN;
};

export const describeLatency = (samples: ReadonlyArray<number>): string =>
  `${samples.length} answers, median ${percentile(samples, 0.5).toFixed(1)} ms, p90 ${
    percentile(samples, 0.9).toFixed(1)
  } ms, max ${Math.max(...samples).toFixed(1)} ms`;

/** Fails unless enough probes were taken, nine in ten were under 100 ms and none stalled. */
export const assertHealthKeptUp = (samples: ReadonlyArray<number>, during: string, minimum = 10) => {
  assert.ok(samples.length >= minimum, `only ${samples.length} /health probes ${during}`);
  const p90 = percentile(samples, 0.9);
  const max = Math.max(...samples);
  assert.ok(p90 < healthWithinMs, `/health ${during}: ${describeLatency(samples)}`);
  assert.ok(max < healthStallMs, `/health stalled ${during}: ${describeLatency(samples)}`);
};
