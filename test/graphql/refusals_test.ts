/**
 * The router's refusals of GraphQL requests come as GraphQL errors, so a GraphQL client (graphql-request) shows
 * them as it shows every other error: no key, a wrong key, a key that may not use GraphQL, the GraphQL rate, the
 * daily quota and the address throttle, each with REST's status, message and signals (Retry-After,
 * X-RateLimit-*, WWW-Authenticate) and a code of its own. Also: every documented key source works whatever
 * Authorization header rides along. (The key store's 503 is provoked on PostgreSQL by
 * test/rest/openapi_contract_test.ts, against the documented GraphQL body.)
 */
import assert from "node:assert/strict";
import { ClientError, GraphQLClient } from "graphql-request";
import { errorsOf, startGraphqlFixture } from "../support/graphql.ts";

const query = "{ epoch(limit: 1) { no } }";

/** What a refused request got: its status, headers and the errors graphql-request shows. */
const refused = async (client: GraphQLClient) => {
  try {
    await client.rawRequest(query);
  } catch (e) {
    if (!(e instanceof ClientError)) throw e;
    return { status: e.response.status, headers: e.response.headers, errors: e.response.errors ?? [] };
  }
  throw new Error("expected a refusal");
};

Deno.test({
  name: "graphql refusals: the key and its limits answered as GraphQL errors",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const f = await startGraphqlFixture("graphql_refusals", {
      GRAPHQL_RATE_PAID: "2",
      DAILY_QUOTA_FREE: "3",
      AUTH_FAILURES_PER_10S: "6",
    });
    const url = `${f.service.base}/v1/graphql`;
    const client = (headers: Record<string, string>, at = url) => new GraphQLClient(at, { headers });
    try {
      await t.step("no key, a wrong key: 401 with api-key-required, invalid-api-key", async () => {
        const missing = await refused(client({}));
        assert.equal(missing.status, 401);
        assert.deepEqual(missing.errors, [
          { message: "API key required", extensions: { path: "$", code: "api-key-required" } },
        ]);
        assert.match(missing.headers.get("www-authenticate") ?? "", /^apikey /);
        assert.match(missing.headers.get("content-type") ?? "", /^application\/json/);
        // what a GraphQL client's user sees: the errors, as for any query error
        const [shown] = await errorsOf(client({ apikey: "cds_" + "x".repeat(32) }).request(query));
        assert.deepEqual(shown, {
          message: "Invalid API key",
          extensions: { path: "$", code: "invalid-api-key" },
        });
        const preprod = await refused(client({ apikey: "nope" }, `${f.service.base}/v1/preprod/graphql`));
        assert.equal(preprod.status, 401);
        assert.equal(preprod.errors[0]?.extensions?.code, "invalid-api-key");
      });

      await t.step("a key that may not use GraphQL: 403 access-denied naming what it lacks", async () => {
        const restOnly = await f.newKey("paid", "--families", "rest");
        const r = await refused(client({ apikey: restOnly }));
        assert.equal(r.status, 403);
        assert.deepEqual(r.errors, [{
          message: "This key may not be used for GraphQL (allowed: REST)",
          extensions: { path: "$", code: "access-denied" },
        }]);
      });

      await t.step(
        "past the GraphQL rate: 429 rate-limit-exceeded with Retry-After and X-RateLimit-*",
        async () => {
          const c = client({ apikey: await f.newKey("paid") });
          // 2 a second here: a burst of 8 meets the limit in whichever second it lands
          const answers = await Promise.all(
            Array.from({ length: 8 }, () => c.rawRequest(query).then(() => undefined, (e) => e)),
          );
          const limited = answers.find((a): a is ClientError => a instanceof ClientError);
          assert.ok(limited, "a burst of 8 past a rate of 2 a second meets 429");
          assert.equal(limited.response.status, 429);
          assert.deepEqual(limited.response.errors, [{
            message: "Rate limit exceeded. Please slow down.",
            extensions: { path: "$", code: "rate-limit-exceeded" },
          }]);
          const headers = limited.response.headers;
          assert.ok(Number(headers.get("retry-after")) >= 1, `Retry-After ${headers.get("retry-after")}`);
          assert.equal(headers.get("x-ratelimit-limit"), "2");
          assert.equal(headers.get("x-ratelimit-remaining"), "0");
          assert.ok(Number(headers.get("x-ratelimit-reset")) >= 1);
        },
      );

      await t.step("past the daily quota (3 here): 429 daily-quota-exceeded", async () => {
        const c = client({ apikey: await f.newKey("free") });
        for (let i = 0; i < 3; i++) assert.equal((await c.request<{ epoch: [] }>(query)).epoch.length, 1);
        const r = await refused(c);
        assert.equal(r.status, 429);
        assert.equal(r.errors[0]?.extensions?.code, "daily-quota-exceeded");
        assert.match(r.errors[0]?.message ?? "", /^Daily request limit exceeded for the FREE tier/);
        assert.ok(Number(r.headers.get("retry-after")) >= 1);
        assert.equal(r.headers.get("x-ratelimit-limit"), "3");
      });

      await t.step("the key is read from apikey whatever Authorization header rides along", async () => {
        const key = await f.newKey("paid");
        const basic = `Basic ${btoa("user:password")}`;
        // the query parameter with a Basic header (a proxy's), and the header with a Bearer that is no key
        const viaQuery = client({ authorization: basic }, `${url}?apikey=${key}`);
        assert.equal((await viaQuery.request<{ epoch: [] }>(query)).epoch.length, 1);
        const viaHeader = client({ apikey: key, authorization: "Bearer some-gateway-token" });
        assert.equal((await viaHeader.request<{ epoch: [] }>(query)).epoch.length, 1);
      });

      await t.step("an address past its failed keys: 429 too-many-auth-failures, any key", async () => {
        // 6 failures in 10 s here (the first step spent 3 of them)
        let r = await refused(client({ apikey: "cds_" + "y".repeat(32) }));
        for (let i = 0; i < 10 && r.status === 401; i++) r = await refused(client({ apikey: `wrong-${i}` }));
        assert.equal(r.status, 429);
        assert.equal(r.errors[0]?.extensions?.code, "too-many-auth-failures");
        assert.match(
          r.errors[0]?.message ?? "",
          /^Too many failed authentication attempts from this address/,
        );
        assert.ok(Number(r.headers.get("retry-after")) >= 1);
        // a good key from that address is held off too, in the same shape
        const good = await refused(client({ apikey: f.paidKey }));
        assert.equal(good.status, 429);
        assert.equal(good.errors[0]?.extensions?.code, "too-many-auth-failures");
      });
    } finally {
      await f.close();
    }
  },
});
