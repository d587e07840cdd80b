/**
 * The Blockfrost dialect's tests' tools: a running service with a PAID key (rest.ts) and the dialect's calls
 * (`bf` answers with a path relative to a network's base URL), and every answer checked against Blockfrost's
 * published OpenAPI schema (the `@blockfrost/openapi` npm package, MIT licence: its `openapi.yaml`, read as it
 * ships) by operation and status.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import Ajv from "ajv";
import { parse } from "yaml";
import type { Network } from "@schemas/network.ts";
import { blockfrostBases } from "@schemas/blockfrost/api.ts";
import { type JsonAnswer, type RestFixture, startRestFixture } from "./rest.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const require = createRequire(import.meta.url);
const specFile = require.resolve("@blockfrost/openapi/openapi.yaml");
/** Blockfrost's published OpenAPI document (3.0: `nullable`, which ajv knows). */
export const blockfrostSpec: Json = parse(readFileSync(specFile, "utf8"));

// deno-lint-ignore no-explicit-any
const ajv = new (Ajv as any)({ strict: false, allErrors: true, validateFormats: false });
ajv.addSchema({ $id: "bf", components: blockfrostSpec.components });
const withRefs = (schema: Json): Json =>
  JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"bf#/components/'));
const validators = new Map<string, Json>();

/** The schema Blockfrost publishes for an operation's answer with this status (its error responses too). */
const answerSchema = (method: string, template: string, status: number): Json => {
  const operation = blockfrostSpec.paths[template]?.[method.toLowerCase()];
  if (!operation) throw new Error(`Blockfrost publishes no ${method} ${template}`);
  const response = operation.responses[String(status)];
  if (!response) throw new Error(`Blockfrost's ${method} ${template} has no ${status} answer`);
  const resolved = response.$ref
    ? blockfrostSpec.components.responses[response.$ref.replace("#/components/responses/", "")]
    : response;
  const content = resolved.content?.["application/json"];
  if (!content) throw new Error(`Blockfrost's ${method} ${template} ${status} is not JSON`);
  return content.schema;
};

/**
 * Problems of `body` as Blockfrost's answer to `method template` with `status` (empty when it validates).
 * `template` is Blockfrost's own path (`/addresses/{address}/utxos`).
 */
export const blockfrostProblems = (
  method: string,
  template: string,
  status: number,
  body: unknown,
): string[] => {
  const id = `${method} ${template} ${status}`;
  let validate = validators.get(id);
  if (!validate) {
    validate = ajv.compile(withRefs(answerSchema(method, template, status)));
    validators.set(id, validate);
  }
  if (validate(body)) return [];
  return (validate.errors as Array<Json>).map((e) => `${e.instancePath || "/"} ${e.message}`);
};

/** Asserts that an answer validates against Blockfrost's schema for its operation and status. */
export const assertBlockfrostShape = (
  method: string,
  template: string,
  answer: { readonly status: number; readonly body: unknown },
) => {
  const problems = blockfrostProblems(method, template, answer.status, answer.body);
  assert.deepEqual(problems, [], `${method} ${template} (${answer.status}): ${problems.join("; ")}`);
};

export interface BlockfrostFixture extends RestFixture {
  /** GET a path relative to a network's base URL, with the key in `project_id`. */
  readonly bf: (path: string, network?: Network, key?: string) => Promise<JsonAnswer>;
  /** The base URL of a network, for providers (`http://host:port/api/v0`). */
  readonly baseUrl: (network: Network) => string;
}

export const startBlockfrostFixture = async (
  label: string,
  env: Record<string, string> = {},
): Promise<BlockfrostFixture> => {
  const f = await startRestFixture(label, env);
  return {
    ...f,
    bf: async (path, network = "mainnet", key = f.key) => {
      const r = await fetch(`${f.service.base}${blockfrostBases[network]}${path}`, {
        headers: { project_id: key },
      });
      const text = await r.text();
      return { status: r.status, headers: r.headers, body: text === "" ? undefined : JSON.parse(text) };
    },
    baseUrl: (network) => `${f.service.base}${blockfrostBases[network]}`,
  };
};
