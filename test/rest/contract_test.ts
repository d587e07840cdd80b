/**
 * Contract: every REST endpoint's answers checked field by field against the spec's resources (read from the spec
 * document: required, type, nullability, date-time and lovelace formats, no field the spec does not name) and
 * against the service's own /openapi.json (ajv, JSON Schema 2020-12), on several samples each; and the OpenAPI
 * components against the spec's resources.
 */
import assert from "node:assert/strict";
import Ajv2020 from "ajv/dist/2020.js";
import { startRestFixture } from "../support/rest.ts";
import {
  hasKind,
  isOpenObject,
  readPublicEndpointFields,
  readSpecResources,
  type SpecField,
} from "../support/spec_resources.ts";

/** Spec fields we do not serve, and why (README: "What the REST answers leave out"). */
const notServed = new Set<string>([]);

/** Fields beyond the spec's, each described in the OpenAPI document (schemas/explorer.ts). */
const documentedExtras = new Set([
  "PoolInfo.saturationRatio", // saturation uncapped: the spec's saturation stops at 1.0
  "Transaction.depositRefund", // the spec's deposit is never negative: refunds apart
]);

// deno-lint-ignore no-explicit-any
type Json = any;

Deno.test({
  name: "REST contract: answers against the spec and /openapi.json",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const f = await startRestFixture("contract", { POOL_ID: "" });
    try {
      const resources = await readSpecResources();
      const openapi: Json = (await f.get("/openapi.json")).body;
      // deno-lint-ignore no-explicit-any
      const ajv = new (Ajv2020 as any)({ strict: false, validateFormats: false, allErrors: false });
      // Effect writes `$id: "/schemas/unknown"` for every open value (metadata json): ids, not constraints
      const withoutIds = (value: Json): Json =>
        JSON.parse(JSON.stringify(value), (key, v) => (key === "$id" ? undefined : v));
      ajv.addSchema({ $id: "openapi", components: withoutIds(openapi.components) });
      const refs = (schema: Json): Json =>
        JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/'));

      /** Problems of `value` as the spec's resource `name` (nested resources included). */
      const specProblems = (
        value: Json,
        fields: ReadonlyArray<SpecField>,
        where: string,
        resource?: string,
        open = false,
      ): Array<string> => {
        const problems: Array<string> = [];
        if (typeof value !== "object" || value === null) return [`${where}: not an object`];
        const known = new Set(fields.map((f) => f.name));
        for (const key of Object.keys(value)) {
          if (known.has(key) || open) continue;
          if (documentedExtras.has(`${resource}.${key}`)) {
            const described = openapi.components.schemas[resource!]?.properties?.[key]?.description;
            if (!described) {
              problems.push(`${where}.${key}: an extra field the OpenAPI document does not describe`);
            }
          } else problems.push(`${where}.${key}: not a field of the spec`);
        }
        for (const field of fields) {
          const v = value[field.name];
          if (v === undefined) {
            if (field.required) problems.push(`${where}.${field.name}: required, missing`);
            continue;
          }
          if (!hasKind(v, field)) {
            problems.push(`${where}.${field.name}: ${JSON.stringify(v)} is not ${field.kind}`);
          }
          if (field.items && Array.isArray(v)) {
            const item = resources.get(field.items);
            assert.ok(item, `the spec defines ${field.items}`);
            v.forEach((x: Json, i: number) =>
              problems.push(...specProblems(x, item, `${where}.${field.name}[${i}]`, field.items))
            );
          }
        }
        return problems;
      };

      const samples = async (network: "mainnet" | "preprod", text: string) =>
        (await f.query<{ v: string }>(network, text)).map((r) => r.v);
      const pools = await samples(
        "mainnet",
        `(select view as v from pool_hash order by id limit 2)
         union all (select p.view from pool_hash p join pool_retire r on r.hash_id = p.id limit 2)`,
      );
      const addresses = await samples(
        "mainnet",
        `(select o.address as v from tx_out o where o.payment_cred is not null group by o.address
          order by count(*) desc limit 2)
         union all (select address from tx_out where address not like 'addr%' limit 1)
         union all (select address from tx_out where address_has_script limit 1)
         union all (select view from stake_address order by id limit 1)`,
      );
      const txs = await samples(
        "mainnet",
        `(select encode(hash, 'hex') as v from tx where not valid_contract limit 1)
         union all (select encode(t.hash, 'hex') from tx t join tx_metadata m on m.tx_id = t.id limit 1)
         union all (select encode(t.hash, 'hex') from tx t join ma_tx_mint m on m.tx_id = t.id limit 1)
         union all (select encode(t.hash, 'hex') from tx t join pool_update u on u.registered_tx_id = t.id limit 1)
         union all (select encode(t.hash, 'hex') from tx t join drep_registration d on d.tx_id = t.id limit 1)
         union all (select encode(t.hash, 'hex') from tx t join withdrawal w on w.tx_id = t.id limit 1)
         union all (select encode(t.hash, 'hex') from tx t join block b on b.id = t.block_id
                    where b.block_no is null limit 1)`,
      );
      const stakeAddresses = await samples(
        "mainnet",
        `(select s.view as v from stake_address s join delegation d on d.addr_id = s.id limit 2)
         union all (select view from stake_address order by id desc limit 1)`,
      );
      const [blockHash] = await samples(
        "mainnet",
        "select encode(hash, 'hex') as v from block order by id desc limit 1",
      );

      /** [request path, OpenAPI path, spec resource or public endpoint, paginated] */
      const cases: Array<[string, string, string, boolean]> = [
        ...pools.map((p): [string, string, string, boolean] => [
          `/api/public/pool-info?poolId=${p}`,
          "/api/public/pool-info",
          "public",
          false,
        ]),
        ...stakeAddresses.map((s): [string, string, string, boolean] => [
          `/api/public/stake-account?address=${s}`,
          "/api/public/stake-account",
          "public",
          false,
        ]),
        ...txs.map((h): [string, string, string, boolean] => [
          `/api/public/tx-status?txHash=${h}`,
          "/api/public/tx-status",
          "public",
          false,
        ]),
        ["/api/public/price", "/api/public/price", "public", false],
        ["/api/public/protocol-parameters", "/api/public/protocol-parameters", "public", false],
        ...pools.map((p): [string, string, string, boolean] => [
          `/v2/explorer/mainnet/pool/${p}`,
          "/v2/explorer/{network}/pool/{poolId}",
          "PoolInfo",
          false,
        ]),
        ...addresses.map((a): [string, string, string, boolean] => [
          `/v2/explorer/mainnet/address/${a}`,
          "/v2/explorer/{network}/address/{addr}",
          "AddressInfo",
          false,
        ]),
        ...addresses.map((a): [string, string, string, boolean] => [
          `/v2/explorer/mainnet/address/${a}/utxos?limit=100`,
          "/v2/explorer/{network}/address/{addr}/utxos",
          "AddressUtxo",
          true,
        ]),
        ...txs.map((h): [string, string, string, boolean] => [
          `/v2/explorer/mainnet/tx/${h}`,
          "/v2/explorer/{network}/tx/{hash}",
          "Transaction",
          false,
        ]),
        ["/v2/explorer/mainnet/blocks?limit=100", "/v2/explorer/{network}/blocks", "BlockSummary", true],
        [`/v2/explorer/mainnet/block/${blockHash}`, "/v2/explorer/{network}/block/{id}", "Block", false],
        ["/v2/explorer/mainnet/block/0", "/v2/explorer/{network}/block/{id}", "Block", false],
        ["/v2/explorer/preprod/stats", "/v2/explorer/{network}/stats", "NetworkStats", false],
        ["/v2/explorer/mainnet/dreps?pageSize=100", "/v2/explorer/{network}/dreps", "DRep", true],
      ];
      assert.ok(txs.length >= 6 && addresses.length >= 4 && pools.length >= 3);

      await t.step("OpenAPI components carry the spec's resources", () => {
        // the spec's one Error shape is each REST error's; PaginationMeta is inlined in each paged answer
        const components: Record<string, ReadonlyArray<string>> = {
          Error: ["BadRequest", "NotFound", "ServiceUnavailable"],
          PaginationMeta: [],
        };
        const checked = [...resources].flatMap(([name, fields]) =>
          (components[name] ?? [name]).map((component) => [name, component, fields] as const)
        );
        for (const [name, component, fields] of checked) {
          const schema = openapi.components.schemas[component];
          assert.ok(schema, `components.schemas.${component}`);
          assert.deepEqual(
            [...(schema.required ?? [])].filter((f: string) => !documentedExtras.has(`${name}.${f}`)).sort(),
            fields.filter((f) => f.required).map((f) => f.name).sort(),
            `${name}.required`,
          );
          for (const field of fields) {
            if (notServed.has(`${name}.${field.name}`)) continue;
            const property = schema.properties[field.name];
            assert.ok(property, `${name}.${field.name} in the OpenAPI document`);
            const nullable = JSON.stringify(property).includes('"type":"null"');
            assert.equal(nullable, field.nullable, `${name}.${field.name} nullable`);
          }
        }
      });

      await t.step("every endpoint's answers match the spec and the OpenAPI document", async () => {
        const problems: Array<string> = [];
        for (const [path, openapiPath, resource, paginated] of cases) {
          const r = await f.get(path);
          assert.equal(r.status, 200, `${path}: ${JSON.stringify(r.body)}`);
          const operation = openapi.paths[openapiPath]?.get;
          assert.ok(operation, `${openapiPath} in the OpenAPI document`);
          assert.deepEqual(operation.security, [{ apikey: [] }], `${openapiPath} security`);
          const validate = ajv.compile(
            refs(withoutIds(operation.responses["200"].content["application/json"].schema)),
          );
          if (!validate(r.body)) problems.push(`${path}: OpenAPI: ${ajv.errorsText(validate.errors)}`);
          if (resource === "public") {
            const fields = await readPublicEndpointFields(openapiPath);
            if (fields.length > 0 && !(openapiPath.endsWith("tx-status") && !r.body.found)) {
              problems.push(...specProblems(r.body, fields, path, undefined, isOpenObject(openapiPath)));
            }
            continue;
          }
          const fields = resources.get(resource)!;
          if (paginated) {
            problems.push(...specProblems(r.body, resources.get("PaginationMeta")!, path));
            assert.ok(r.body.data.length > 0, `${path} has items`);
            r.body.data.forEach((item: Json, i: number) =>
              problems.push(...specProblems(item, fields, `${path}[${i}]`, resource))
            );
          } else problems.push(...specProblems(r.body, fields, path, resource));
        }
        assert.deepEqual(problems, []);
      });

      await t.step("the document: OpenAPI 3.1, version 1.0.0, the apikey scheme, every endpoint", () => {
        assert.equal(openapi.openapi, "3.1.0");
        assert.equal(openapi.info.version, "1.0.0");
        const { type, name, in: where } = openapi.components.securitySchemes.apikey;
        assert.deepEqual({ type, name, in: where }, { type: "apiKey", name: "apikey", in: "header" });
        const specPaths = [
          "/api/public/pool-info",
          "/api/public/pool-status",
          "/api/public/stake-account",
          "/api/public/tx-status",
          "/api/public/price",
          "/api/public/protocol-parameters",
          "/v2/explorer/{network}/pool/{poolId}",
          "/v2/explorer/{network}/address/{addr}",
          "/v2/explorer/{network}/address/{addr}/utxos",
          "/v2/explorer/{network}/tx/{hash}",
          "/v2/explorer/{network}/blocks",
          "/v2/explorer/{network}/block/{id}",
          "/v2/explorer/{network}/stats",
          "/v2/explorer/{network}/dreps",
        ];
        // beyond the spec's: a block's transactions (the Block resource cannot name them)
        const rest = Object.keys(openapi.paths).filter((p) => /^\/(api\/public|v2\/explorer)\//.test(p));
        assert.deepEqual(rest.sort(), [...specPaths, "/v2/explorer/{network}/block/{id}/txs"].sort());
      });
    } finally {
      await f.close();
    }
  },
});
