/**
 * Where the scripts find a running service: `SERVICE_URL` when set, else `http://HOST:PORT` with the service's
 * own defaults (127.0.0.1, 3000), so a script follows the same variables as `npm start`. `reachService` turns
 * "nothing listens there" into one line saying what was tried.
 */

/** The service's base URL, without a trailing slash. */
export const serviceUrl = (env: { get(name: string): string | undefined } = Deno.env): string => {
  const explicit = env.get("SERVICE_URL")?.trim();
  if (explicit) return explicit.replace(/\/+$/, "");
  const host = env.get("HOST")?.trim() || "127.0.0.1";
  // the service listens on all interfaces with 0.0.0.0 / ::, and is reached through loopback then
  const reachable = host === "0.0.0.0" ? "127.0.0.1" : host === "::" || host === "[::]" ? "[::1]" : host;
  const bracketed = reachable.includes(":") && !reachable.startsWith("[") ? `[${reachable}]` : reachable;
  return `http://${bracketed}:${env.get("PORT")?.trim() || "3000"}`;
};

export class ServiceUnreachable extends Error {
  override readonly name = "ServiceUnreachable";
}

/** Fails with `ServiceUnreachable` (one line naming the URL and how to point elsewhere) unless `/health` answers. */
export const reachService = async (base: string): Promise<void> => {
  try {
    const response = await fetch(`${base}/health`, { signal: AbortSignal.timeout(10_000) });
    await response.body?.cancel();
  } catch (error) {
    // fetch says "fetch failed"; what failed is in its cause (ECONNREFUSED, a DNS error, the timeout)
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
    const reason = (cause instanceof Error ? cause.message : String(cause)).split("\n")[0];
    throw new ServiceUnreachable(
      `no service answers at ${base} (${reason}); start it with \`npm start\`, or set SERVICE_URL ` +
        `(or PORT/HOST) to where it runs`,
    );
  }
};
