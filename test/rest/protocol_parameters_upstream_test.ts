/**
 * With an Ogmios upstream configured, REST protocol parameters are the upstream's (relayed exactly, cached an
 * hour), and an upstream error is a 503 that says what the upstream said. The upstream is a local stand-in that
 * answers with Ogmios' own test vectors.
 */
import assert from "node:assert/strict";
import { parseExact } from "@src/domain/json.ts";
import { startFakeOgmios, vector } from "../support/ogmios_upstream.ts";
import { startRestFixture } from "../support/rest.ts";

Deno.test({
  name: "protocol parameters from an Ogmios upstream",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const upstream = startFakeOgmios();
    const f = await startRestFixture("protocol_parameters_upstream", { MAINNET_OGMIOS_URL: upstream.url });
    try {
      upstream.answerNext(
        "queryLedgerState/protocolParameters",
        "QueryLedgerStateProtocolParameters/010.json",
      );
      const failed = await f.get("/api/public/protocol-parameters");
      assert.equal(failed.status, 503);
      assert.match(
        failed.body.message,
        /^Protocol parameters from the Ogmios upstream at ws:.*: Era mismatch between query and ledger/,
      );

      upstream.answerNext(
        "queryLedgerState/protocolParameters",
        "QueryLedgerStateProtocolParameters/014.json",
      );
      const r = await f.get("/api/public/protocol-parameters");
      assert.equal(r.status, 200);
      // read exactly: the vector holds integers beyond 2^53, which must come through unrounded
      const exact = await fetch(`${f.service.base}/api/public/protocol-parameters`, {
        headers: { apikey: f.key },
      });
      const relayed = vector("QueryLedgerStateProtocolParameters/014.json").result as Record<string, unknown>;
      assert.deepEqual(parseExact(await exact.text()), {
        ...relayed,
        // the spec's names for two of Ogmios v6's members, beside them
        stakeKeyDeposit: relayed.stakeCredentialDeposit,
        poolDeposit: relayed.stakePoolDeposit,
      });
      const asked = upstream.received.filter((q) =>
        q.method === "queryLedgerState/protocolParameters"
      ).length;
      assert.deepEqual((await f.get("/api/public/protocol-parameters")).body, r.body);
      assert.equal(
        upstream.received.filter((q) => q.method === "queryLedgerState/protocolParameters").length,
        asked,
        "cached: the upstream is not asked again",
      );
      // preprod has no upstream: its parameters come from its chain database
      const preprod = await f.get("/api/public/protocol-parameters?network=preprod");
      assert.equal(preprod.status, 200);
      assert.notDeepEqual(preprod.body, r.body);
    } finally {
      await f.close();
      await upstream.stop();
    }
  },
});
