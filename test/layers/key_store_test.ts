/** The key store keeps only hashes, finds keys by secret, and every change bumps the generation counter. */
import assert from "node:assert/strict";
import { Effect, Option } from "effect";
import { loadMigrations, migrate } from "@layers/service_db.ts";
import { makeKeyStore } from "@layers/key_store.ts";
import { looksLikeApiKey } from "@src/domain/api_key.ts";
import { createTestDatabase } from "../support/databases.ts";

const run = Effect.runPromise;

Deno.test("key store: create, find, list, deactivate, rename, rotate, revoke", async () => {
  const db = await createTestDatabase("key_store");
  try {
    await run(migrate(db.sql, await run(loadMigrations())));
    const store = makeKeyStore(db.sql, "cds");
    const g0 = await run(store.generation);

    const expiresAt = new Date("2030-01-01T00:00:00Z");
    const { key, record } = await run(
      store.create({ name: "wallet backend", tier: "PAID", account: "acme", expiresAt }),
    );
    assert.ok(looksLikeApiKey(key) && key.startsWith("cds_"), key);
    assert.equal(record.name, "wallet backend");
    assert.equal(record.tier, "PAID");
    assert.equal(record.status, "active");
    assert.equal(record.account, "acme");
    assert.equal(record.hint, `cds_…${key.slice(-4)}`);
    assert.deepEqual(record.expiresAt, expiresAt);
    assert.ok(await run(store.generation) > g0);

    const stored = await run(
      db.sql<{ n: string }>`select count(*)::text as n from cds.api_key where hint like ${
        "%" + key.slice(4, 12) + "%"
      }`,
    );
    assert.equal(stored[0]!.n, "0", "the secret itself is not stored");
    const [raw] = await run(db.sql<{ secret: Uint8Array }>`select secret_sha256 as secret from cds.api_key`);
    assert.equal(raw!.secret.length, 32);

    assert.deepEqual(Option.getOrThrow(await run(store.findBySecret(key))), record);
    assert.ok(
      Option.isNone(await run(store.findBySecret(key.slice(0, -1) + (key.endsWith("a") ? "b" : "a")))),
    );

    const other = await run(store.create({ name: "bot", tier: "FREE" }));
    assert.equal(other.record.account, "default");
    assert.equal(other.record.expiresAt, null);
    assert.deepEqual((await run(store.list)).map((k) => k.name), ["wallet backend", "bot"]);

    assert.equal(await run(store.setStatus(record.id, "inactive")), true);
    assert.equal(Option.getOrThrow(await run(store.findBySecret(key))).status, "inactive");
    assert.equal(await run(store.rename(record.id, "renamed")), true);
    assert.equal(Option.getOrThrow(await run(store.get(record.id))).name, "renamed");
    assert.equal(await run(store.setStatus(999, "revoked")), false);

    const before = await run(store.generation);
    const fresh = Option.getOrThrow(await run(store.rotate(other.record.id)));
    assert.notEqual(fresh, other.key);
    assert.ok(
      Option.isNone(await run(store.findBySecret(other.key))),
      "the old secret stops working at once",
    );
    assert.equal(Option.getOrThrow(await run(store.findBySecret(fresh))).id, other.record.id);
    assert.ok(await run(store.generation) > before);
    assert.ok(Option.isNone(await run(store.rotate(999))));
  } finally {
    await db.close();
  }
});
