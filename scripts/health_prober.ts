/**
 * A Web Worker that asks `/health` every 20 ms and reports each answer's latency (a probe still waiting when it
 * is stopped counts too). It runs on a thread of its own, so a flood sent by the main thread does not delay
 * the probes and only the service's own delays show.
 *
 *   messages in: {start: base, timeoutMs} | {stop: true}; out: {latencies: number[]}
 */
/// <reference lib="deno.worker" />
let running = false;
let done: Promise<Array<number>> | undefined;

self.onmessage = async (event: MessageEvent) => {
  const m = event.data;
  if (m.start) {
    running = true;
    done = (async () => {
      const latencies: Array<number> = [];
      while (running) {
        const t = performance.now();
        try {
          await (await fetch(`${m.start}/health`, { signal: AbortSignal.timeout(m.timeoutMs) })).body
            ?.cancel();
        } catch { /* a timeout is a latency too */ }
        latencies.push(performance.now() - t);
        await new Promise((r) => setTimeout(r, 20));
      }
      return latencies;
    })();
  } else if (m.stop && done) {
    running = false;
    self.postMessage({ latencies: await done });
  }
};
