/** A running service with a PAID key, and SQL on the same chain data, for REST tests that check values. */
import { Effect } from "effect";
import type { Network } from "@schemas/network.ts";
import { createKey, createTestEnvironment } from "./environment.ts";
import { type RunningService, startService } from "./service.ts";

export interface RestFixture {
  readonly service: RunningService;
  readonly key: string;
  // deno-lint-ignore no-explicit-any
  readonly get: (path: string, key?: string) => Promise<{ status: number; headers: Headers; body: any }>;
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
