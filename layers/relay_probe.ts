/**
 * `RelayProbe`: is a stake pool relay reachable? A real TCP connect with a short timeout (spec: pool-status
 * relays' health). Names under reserved top-level domains (RFC 2606/6761: `.invalid`, `.test`, `.example`) never
 * resolve, so they are reported unhealthy without a lookup.
 */
import { Context, Effect, Layer } from "effect";

export interface Relay {
  readonly host: string;
  readonly port: number;
}

export interface RelayProbeShape {
  readonly healthy: (relay: Relay) => Effect.Effect<boolean>;
}

export class RelayProbe extends Context.Tag("RelayProbe")<RelayProbe, RelayProbeShape>() {}

const reserved = /\.(invalid|test|example)\.?$/i;

export const makeTcpRelayProbe = (timeoutMs = 1_500): RelayProbeShape => ({
  healthy: ({ host, port }) => {
    if (reserved.test(host) || !Number.isInteger(port) || port <= 0 || port > 65_535) {
      return Effect.succeed(false);
    }
    return Effect.tryPromise(async (signal) => {
      const conn = await Deno.connect(
        { hostname: host.replace(/^\[(.*)\]$/, "$1"), port, signal } as Deno.ConnectOptions,
      );
      conn.close();
      return true;
    }).pipe(
      Effect.timeout(timeoutMs),
      Effect.orElseSucceed(() => false),
    );
  },
});

export const RelayProbeTcp: Layer.Layer<RelayProbe> = Layer.succeed(RelayProbe, makeTcpRelayProbe());
