/**
 * A real HAProxy (Debian's `haproxy`) in front of a running service, as the README's deployment has it: its own
 * process with a generated config on a free loopback port, `option forwardfor` (it appends the client's address
 * to `X-Forwarded-For`), stopped by its pid.
 */
import { join } from "node:path";

export interface RunningProxy {
  /** Where clients reach the service through the proxy. */
  readonly base: string;
  readonly stop: () => Promise<void>;
}

const freePort = (): number => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
};

export const startHaproxy = async (service: string): Promise<RunningProxy> => {
  const target = new URL(service);
  const port = freePort();
  const dir = await Deno.makeTempDir({ prefix: "cds-haproxy-" });
  const config = join(dir, "haproxy.cfg");
  await Deno.writeTextFile(
    config,
    [
      "global",
      "  maxconn 2000",
      "defaults",
      "  mode http",
      "  timeout connect 5s",
      "  timeout client 120s",
      "  timeout server 120s",
      "frontend api",
      `  bind 127.0.0.1:${port}`,
      "  option forwardfor",
      "  default_backend service",
      "backend service",
      `  server cds ${target.hostname}:${target.port}`,
      "",
    ].join("\n"),
  );
  // -db: stay in the foreground, so the pid is HAProxy's own and stopping it stops it
  const child = new Deno.Command("haproxy", { args: ["-db", "-f", config], stdout: "piped", stderr: "piped" })
    .spawn();
  const output = Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()]);
  const stop = async () => {
    try {
      Deno.kill(child.pid, "SIGTERM");
    } catch { /* gone already */ }
    await child.status;
    await output;
    await Deno.remove(dir, { recursive: true });
  };
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      (await Deno.connect({ hostname: "127.0.0.1", port })).close();
      return { base: `http://127.0.0.1:${port}`, stop };
    } catch {
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`haproxy did not listen on ${port} within 10 s: ${(await output).join("\n")}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
};
