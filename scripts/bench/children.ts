/** Stops the processes a bench started (SIGTERM, then waits), ignoring those already gone. */
export const stopChildren = async (children: ReadonlyArray<Deno.ChildProcess>): Promise<void> => {
  for (const c of children) {
    try {
      c.kill("SIGTERM");
      await c.status;
    } catch { /* gone */ }
  }
};
