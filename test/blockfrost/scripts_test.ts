/**
 * The Blockfrost dialect's scripts endpoints on both networks, against Blockfrost's published schema: scripts
 * (timelock, Plutus V2 and V3) and datums by hash, their CBOR and JSON, compared with SQL and read as Lucid
 * Evolution reads them (the script or datum it rebuilds hashes to the hash asked for); unknown hashes are 404,
 * malformed ones 400.
 */
import assert from "node:assert/strict";
import {
  applyDoubleCborEncoding,
  datumToHash,
  scriptFromNative,
  validatorToScriptHash,
} from "@lucid-evolution/utils";
import { assertBlockfrostShape, startBlockfrostFixture } from "../support/blockfrost.ts";

interface ScriptRow {
  readonly hash: string;
  readonly type: "timelock" | "plutusV1" | "plutusV2" | "plutusV3";
  readonly size: number | null;
  readonly bytes: string | null;
  readonly json: unknown;
}

const lucidTypes = { plutusV1: "PlutusV1", plutusV2: "PlutusV2", plutusV3: "PlutusV3" } as const;

Deno.test({
  name: "blockfrost: scripts and datums by hash",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const f = await startBlockfrostFixture("bf_scripts");
    try {
      for (const network of ["mainnet", "preprod"] as const) {
        const scripts = await f.query<ScriptRow>(
          network,
          `select distinct on (type) encode(hash, 'hex') as hash, type::text as type, serialised_size as size,
                  encode(bytes, 'hex') as bytes, json
           from script order by type, id`,
        );
        assert.deepEqual(scripts.map((s) => s.type), ["plutusV2", "plutusV3", "timelock"]);

        await t.step(`${network}: each script, its CBOR and JSON, as Lucid reads them`, async () => {
          for (const s of scripts) {
            const info = await f.bf(`/scripts/${s.hash}`, network);
            assertBlockfrostShape("GET", "/scripts/{script_hash}", info);
            assert.deepEqual(info.body, {
              script_hash: s.hash,
              type: s.type,
              serialised_size: s.size === null ? null : Number(s.size),
            });
            const cbor = await f.bf(`/scripts/${s.hash}/cbor`, network);
            assertBlockfrostShape("GET", "/scripts/{script_hash}/cbor", cbor);
            const json = await f.bf(`/scripts/${s.hash}/json`, network);
            assertBlockfrostShape("GET", "/scripts/{script_hash}/json", json);
            const [scriptCbor, scriptJson] = [cbor.body.cbor, json.body.json];
            if (s.type === "timelock") {
              assert.deepEqual(cbor.body, { cbor: null });
              assert.deepEqual(json.body, { json: s.json });
              assert.equal(validatorToScriptHash(scriptFromNative(scriptJson)), s.hash);
            } else {
              assert.deepEqual(cbor.body, { cbor: s.bytes });
              assert.deepEqual(json.body, { json: null });
              const script = applyDoubleCborEncoding(scriptCbor);
              assert.equal(validatorToScriptHash({ type: lucidTypes[s.type], script }), s.hash);
            }
          }
          // hex in upper case names the same script
          const upper = await f.bf(`/scripts/${scripts[0]!.hash.toUpperCase()}`, network);
          assert.equal(upper.status, 200);
          assert.equal(upper.body.script_hash, scripts[0]!.hash);
        });

        await t.step(`${network}: datums, as JSON and CBOR`, async () => {
          const datums = await f.query<{ hash: string; value: unknown; bytes: string }>(
            network,
            `select encode(hash, 'hex') as hash, value, encode(bytes, 'hex') as bytes from datum order by id`,
          );
          assert.ok(datums.length > 0);
          for (const d of datums) {
            const json = await f.bf(`/scripts/datum/${d.hash}`, network);
            assertBlockfrostShape("GET", "/scripts/datum/{datum_hash}", json);
            assert.deepEqual(json.body, { json_value: d.value });
            const cbor = await f.bf(`/scripts/datum/${d.hash}/cbor`, network);
            assertBlockfrostShape("GET", "/scripts/datum/{datum_hash}/cbor", cbor);
            assert.deepEqual(cbor.body, { cbor: d.bytes });
            assert.equal(datumToHash(cbor.body.cbor), d.hash);
          }
        });

        await t.step(`${network}: unknown hashes are 404, malformed ones 400`, async () => {
          const cases: Array<[string, string, number]> = [
            [`/scripts/${"ab".repeat(28)}`, "/scripts/{script_hash}", 404],
            [`/scripts/${"ab".repeat(28)}/cbor`, "/scripts/{script_hash}/cbor", 404],
            [`/scripts/${"ab".repeat(28)}/json`, "/scripts/{script_hash}/json", 404],
            [`/scripts/datum/${"ab".repeat(32)}`, "/scripts/datum/{datum_hash}", 404],
            [`/scripts/datum/${"ab".repeat(32)}/cbor`, "/scripts/datum/{datum_hash}/cbor", 404],
            [`/scripts/xyz`, "/scripts/{script_hash}", 400],
            [`/scripts/${"ab".repeat(32)}/cbor`, "/scripts/{script_hash}/cbor", 400],
            [`/scripts/${"zz".repeat(28)}/json`, "/scripts/{script_hash}/json", 400],
            [`/scripts/datum/${"ab".repeat(28)}`, "/scripts/datum/{datum_hash}", 400],
            [`/scripts/datum/nothex/cbor`, "/scripts/datum/{datum_hash}/cbor", 400],
          ];
          for (const [path, template, status] of cases) {
            const r = await f.bf(path, network);
            assert.equal(r.status, status, `${path}: ${JSON.stringify(r.body)}`);
            assertBlockfrostShape("GET", template, r);
          }
        });
      }
    } finally {
      await f.close();
    }
  },
});
