/**
 * AddressSummaries over a real chain database and a real service database: a costly address is recorded in
 * cds.heavy_address, and on the next start its summary is computed in the background before anyone asks; two
 * instances on the same databases compute it once per chain tip between them (the row's lease), and the other
 * reads the stored result.
 */
import assert from "node:assert/strict";
import { Effect, Exit, Layer, Scope } from "effect";
import {
  AddressSummaries,
  type AddressSummariesShape,
  makeAddressSummariesLive,
  summaryCacheKey,
} from "@layers/address_summaries.ts";
import { Cache, makeMemoryCache } from "@layers/cache.ts";
import { ChainDatabases } from "@layers/chain_db.ts";
import { ChainTipsLive } from "@layers/chain_tips.ts";
import { loadMigrations, migrate, ServiceDatabase } from "@layers/service_db.ts";
import { detectDbSync } from "@src/dbsync/detect.ts";
import { decodeAddress } from "@src/domain/cardano_ids.ts";
import { createTestDatabase, type TestDatabase } from "../support/databases.ts";
import { createTestChain, type TestChain } from "../support/demo_chain.ts";

Deno.test({
  name: "address summaries: heavy addresses recorded, and computed at the next start",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    let chain: TestChain | undefined;
    let service: TestDatabase | undefined;
    try {
      chain = await createTestChain("address_summaries_layer");
      service = await createTestDatabase("address_summaries_service");
      await Effect.runPromise(Effect.flatMap(loadMigrations(), (m) => migrate(service!.sql, m)));
      const dbSync = await Effect.runPromise(detectDbSync(chain.sql));
      const database = {
        network: "mainnet" as const,
        sql: chain.sql,
        backend: chain.backend,
        location: "test",
        dbSync,
        demoChain: true,
      };
      const chains = Layer.succeed(ChainDatabases, { get: () => database, all: [database] });
      const serviceLayer = Layer.succeed(ServiceDatabase, {
        sql: service.sql,
        backend: service.backend,
        location: "test",
      });
      const [busy] = await Effect.runPromise(chain.sql<{ address: string }>`
        select address from tx_out where payment_cred is not null group by address order by count(*) desc limit 1`);
      const decoded = decodeAddress(busy!.address, "mainnet");
      assert.ok(decoded.ok);
      const start = async (cache: ReturnType<typeof makeMemoryCache>) => {
        const scope = Effect.runSync(Scope.make());
        const layer = makeAddressSummariesLive(0).pipe(
          Layer.provide(
            Layer.mergeAll(
              Layer.succeed(Cache, cache),
              chains,
              ChainTipsLive.pipe(Layer.provide(chains)),
              serviceLayer,
            ),
          ),
        );
        const context = await Effect.runPromise(Layer.buildWithScope(layer, scope));
        const summaries: AddressSummariesShape = context.unsafeMap.get(
          AddressSummaries.key,
        ) as AddressSummariesShape;
        return { summaries, stop: () => Effect.runPromise(Scope.close(scope, Exit.void)) };
      };

      const first = await start(makeMemoryCache());
      const summary = await Effect.runPromise(
        first.summaries.get("mainnet", { text: decoded.value.text, paymentCred: decoded.value.paymentCred }),
      );
      assert.ok(summary && summary.utxos > 0);
      const recorded = await Effect.runPromise(service.sql<{ address: string; paymentCred: string }>`
        select address, payment_cred as "paymentCred" from cds.heavy_address where network = 'mainnet'`);
      assert.deepEqual(recorded, [{ address: decoded.value.text, paymentCred: decoded.value.paymentCred }]);
      // the full read that made it heavy is stored with it: once the cached value expires (2 s), the next request
      // reads it back for the same tip instead of reading the whole history again (requests waited seconds)
      const [stored] = await Effect.runPromise(service.sql<{ stored: boolean; tip: string | null }>`
        select summary is not null and summary <> 'null'::jsonb as stored, summary_tip as tip
        from cds.heavy_address`);
      assert.equal(stored?.stored, true, "the first full read's summary is stored");
      assert.ok(stored?.tip, "with the tip it is current for");
      const readsBefore = first.summaries.computations();
      await new Promise((r) => setTimeout(r, 2_200));
      const again = await Effect.runPromise(
        first.summaries.get("mainnet", { text: decoded.value.text, paymentCred: decoded.value.paymentCred }),
      );
      assert.deepEqual(again, summary);
      assert.equal(
        first.summaries.computations(),
        readsBefore,
        "no second read of the chain for the same tip",
      );
      await first.stop();

      // a restart: the recorded address is computed in the background, into the cache, unasked
      const cache = makeMemoryCache();
      const second = await start(cache);
      const key = summaryCacheKey("mainnet", decoded.value.text);
      let warmed: unknown;
      for (let i = 0; i < 100 && warmed === undefined; i++) {
        await new Promise((r) => setTimeout(r, 100));
        // a value present answers; none: a failure, which the cache does not store
        warmed = await Effect.runPromise(
          cache.refresh(
            key,
            "1 hour",
            (previous) =>
              previous._tag === "Some" ? Effect.succeed(previous.value.value) : Effect.fail("cold"),
          ).pipe(
            Effect.orElseSucceed(() => undefined),
          ),
        );
      }
      await second.stop();
      assert.deepEqual(warmed, summary, "computed at start, before any request");

      // two instances at once, the stored summary being stale (another tip): one computes, the other reads
      await Effect.runPromise(service.sql`update cds.heavy_address set summary_tip = 'another tip'`);
      const [a, b] = await Promise.all([start(makeMemoryCache()), start(makeMemoryCache())]);
      try {
        const address = { text: decoded.value.text, paymentCred: decoded.value.paymentCred };
        const [fromA, fromB] = await Promise.all([
          Effect.runPromise(a.summaries.get("mainnet", address)),
          Effect.runPromise(b.summaries.get("mainnet", address)),
        ]);
        assert.deepEqual(fromA, summary);
        assert.deepEqual(fromB, summary);
        assert.equal(
          a.summaries.computations() + b.summaries.computations(),
          1,
          `computed once between them (${a.summaries.computations()} + ${b.summaries.computations()})`,
        );
      } finally {
        await a.stop();
        await b.stop();
      }
    } finally {
      await chain?.close();
      await service?.close();
    }
  },
});
