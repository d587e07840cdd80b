/**
 * Which suite a test file belongs to. The quick suite (`npm test`) is everything a change should be checked
 * against before it is committed; the slow suite (`npm run test:slow`, also run by CI) holds the scenario files
 * that drive a whole service through minutes of blocks, faults or a browser.
 */
export type Suite = "quick" | "slow";

const slow: ReadonlyArray<RegExp> = [
  /^test\/devnet\/e2e_/, // real clients against a running devnet, block after block
  /^test\/resilience\//, // attacks and outages against a running service
  /^test\/browser\//, // headless Chromium
];

/** `path` relative to the repository root, e.g. `test/devnet/e2e_payment_test.ts`. */
export const suiteOf = (path: string): Suite => slow.some((p) => p.test(path)) ? "slow" : "quick";
