/**
 * Which suite a test file belongs to. The quick suite (`npm test`) is everything a change should be checked
 * against before it is committed; the slow suite (`npm run test:slow`, also run by CI) holds the scenario files
 * that drive a whole service through minutes of blocks or faults; the browser suite (`npm run test:browser`, run
 * once by CI since the backend does not matter to it) drives Debian's Chromium.
 */
export type Suite = "quick" | "slow" | "browser";

const slow: ReadonlyArray<RegExp> = [
  /^test\/devnet\/e2e_/, // real clients against a running devnet, block after block
  /^test\/blockfrost\/providers\//, // the real transaction builders' providers against a running devnet
  /^test\/resilience\//, // attacks and outages against a running service
  /^test\/binary\/.*_test\.ts$/, // a service started under the single binary's file reads
  /^test\/cluster\//, // the cluster harness: PostgreSQL, Redis, three instances and HAProxy
];

/** `path` relative to the repository root, e.g. `test/devnet/e2e_payment_test.ts`. */
export const suiteOf = (path: string): Suite =>
  path.startsWith("test/browser/") ? "browser" : slow.some((p) => p.test(path)) ? "slow" : "quick";
