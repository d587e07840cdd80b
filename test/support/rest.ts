/** A running service with a PAID key, and SQL on the same chain data, for REST tests that check values. */
import { Effect } from "effect";
import type { Network } from "@schemas/network.ts";
import { createKey, createTestEnvironment } from "./environment.ts";
import { type RunningService, startService } from "./service.ts";

/** A decoded JSON answer; tests read arbitrary fields of it. */
// deno-lint-ignore no-explicit-any
export type JsonAnswer = { status: number; headers: Headers; body: any };

export interface RestFixture {
  readonly service: RunningService;
  readonly key: string;
  readonly get: (path: string, key?: string) => Promise<JsonAnswer>;
  /** One JSON-RPC request over HTTP POST (`/v1/ogmios`, or `/v1/preprod/ogmios` for preprod). */
  readonly rpc: (method: string, params?: unknown, network?: Network) => Promise<JsonAnswer>;
  readonly query: <A extends object>(
    network: Network,
    text: string,
    ...params: Array<unknown>
  ) => Promise<ReadonlyArray<A>>;
  readonly close: () => Promise<void>;
}

export const startRestFixture = async (
  label: string,
  env: Record<string, string> = {},
): Promise<RestFixture> => {
  const environment = await createTestEnvironment(label);
  const all = { ...environment.env, ...env };
  const service = await startService(all);
  const { key } = await createKey(all, "--tier", "paid", "--name", `${label} tests`);
  return {
    service,
    key,
    get: async (path, k = key) => {
      const r = await fetch(`${service.base}${path}`, { headers: { apikey: k } });
      const text = await r.text();
      return { status: r.status, headers: r.headers, body: text === "" ? undefined : JSON.parse(text) };
    },
    rpc: async (method, params, network = "mainnet") => {
      const path = network === "mainnet" ? "/v1/ogmios" : "/v1/preprod/ogmios";
      const r = await fetch(`${service.base}${path}`, {
        method: "POST",
        headers: { apikey: key },
        body: JSON.stringify({ jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }), id: 1 }),
      });
      return { status: r.status, headers: r.headers, body: await r.json() };
    },
    query: async <A extends object>(network: Network, text: string, ...params: Array<unknown>) => {
      const sql = await environment.chainSql(network);
      return Effect.runPromise(sql.unsafe<A>(text, params));
    },
    close: async () => {
      await service.stop();
      await environment.close();
    },
  };
};
