/**
 * A running service with PAID and FREE keys and real GraphQL clients (graphql-request) for mainnet and preprod,
 * plus raw POSTs for malformed bodies and SQL on the same chain data for expected values.
 */
import { Effect } from "effect";
import { ClientError, GraphQLClient } from "graphql-request";
import type { Network } from "@schemas/network.ts";
import { createKey, createTestEnvironment } from "./environment.ts";
import type { JsonAnswer } from "./rest.ts";
import { type RunningService, startService } from "./service.ts";

export interface GraphqlFixture {
  readonly service: RunningService;
  readonly paidKey: string;
  readonly freeKey: string;
  /** PAID key on /v1/graphql. */
  readonly paid: GraphQLClient;
  /** FREE key on /v1/graphql. */
  readonly free: GraphQLClient;
  /** PAID key on /v1/preprod/graphql. */
  readonly preprod: GraphQLClient;
  /** A POST of any body (a string is sent as is, anything else as JSON). */
  readonly post: (body: unknown, path?: string, key?: string) => Promise<JsonAnswer>;
  /** Another key of the tier (its own rate budget), with the keys CLI's other options (`--families rest`). */
  readonly newKey: (tier: "free" | "paid", ...options: Array<string>) => Promise<string>;
  /** SQL on a copy of the chain the service serves, for expected values. */
  readonly query: <A extends object>(
    network: Network,
    text: string,
    ...params: Array<unknown>
  ) => Promise<Array<A>>;
  readonly close: () => Promise<void>;
}

export const startGraphqlFixture = async (
  label: string,
  env: Record<string, string> = {},
): Promise<GraphqlFixture> => {
  const environment = await createTestEnvironment(label);
  const all = { ...environment.env, ...env };
  const service = await startService(all);
  const { key: paidKey } = await createKey(all, "--tier", "paid", "--name", `${label} paid`);
  const { key: freeKey } = await createKey(all, "--tier", "free", "--name", `${label} free`);
  const client = (path: string, key: string) =>
    new GraphQLClient(`${service.base}${path}`, { headers: { apikey: key } });
  return {
    service,
    paidKey,
    freeKey,
    paid: client("/v1/graphql", paidKey),
    free: client("/v1/graphql", freeKey),
    preprod: client("/v1/preprod/graphql", paidKey),
    post: async (body, path = "/v1/graphql", key = paidKey) => {
      const r = await fetch(`${service.base}${path}`, {
        method: "POST",
        headers: { apikey: key, "content-type": "application/json" },
        body: typeof body === "string" ? body : JSON.stringify(body),
      });
      const text = await r.text();
      return { status: r.status, headers: r.headers, body: text === "" ? undefined : JSON.parse(text) };
    },
    newKey: async (tier, ...options) =>
      (await createKey(all, "--tier", tier, "--name", `${label} extra`, ...options)).key,
    query: async <A extends object>(network: Network, text: string, ...params: Array<unknown>) => {
      const sql = await environment.chainSql(network);
      return [...await Effect.runPromise(sql.unsafe<A>(text, params))];
    },
    close: async () => {
      await service.stop();
      await environment.close();
    },
  };
};

/** The errors array a query was answered with (the client throws on them). */
export const errorsOf = async (request: Promise<unknown>): Promise<
  ReadonlyArray<{ message: string; extensions: { path: string; code: string } }>
> => {
  try {
    await request;
  } catch (e) {
    // deno-lint-ignore no-explicit-any
    if (e instanceof ClientError) return (e.response.errors ?? []) as any;
    throw e;
  }
  throw new Error("expected the query to be answered with errors");
};
