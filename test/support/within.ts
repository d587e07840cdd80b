/** Polls until `check` holds, for at most `ms`; returns how long it took. */
export const within = async (ms: number, check: () => Promise<boolean>): Promise<number> => {
  const started = performance.now();
  while (performance.now() - started < ms) {
    if (await check()) return performance.now() - started;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`not within ${ms} ms`);
};
