/**
 * The spec's resources and the fields of its public endpoints' answers, as our own facts
 * (`test/facts/spec_resources.json`, restated from the interface spec 1.0.0): for each resource, its fields with
 * their type, whether the field is required and whether it is nullable. The contract tests check real answers
 * against these facts, independently of the Schemas in `schemas/` that produce the answers.
 */

export type FieldKind =
  | "string"
  | "lovelace"
  | "date-time"
  | "integer"
  | "number"
  | "boolean"
  | "array"
  | "any";

export interface SpecField {
  readonly name: string;
  readonly kind: FieldKind;
  readonly required: boolean;
  readonly nullable: boolean;
  /** For arrays of a named resource: its name. */
  readonly items?: string;
  /** Bounds of a number (the spec's "decimal 0.0 to 1.0"). */
  readonly minimum?: number;
  readonly maximum?: number;
}

interface SpecFacts {
  readonly resources: Readonly<Record<string, ReadonlyArray<SpecField>>>;
  readonly publicEndpoints: Readonly<Record<string, ReadonlyArray<SpecField>>>;
  /** Answers the spec calls open: its named members are listed, other members exist. */
  readonly openObjects: ReadonlyArray<string>;
}

const facts: SpecFacts = JSON.parse(
  await Deno.readTextFile(new URL("../facts/spec_resources.json", import.meta.url)),
);

/** Each resource of the spec with its fields. */
export const readSpecResources = (): Promise<Map<string, ReadonlyArray<SpecField>>> =>
  Promise.resolve(new Map(Object.entries(facts.resources)));

/** Whether a JSON value has a field's kind (null allowed when the field is nullable). */
export const hasKind = (value: unknown, field: SpecField): boolean => {
  if (value === null) return field.nullable;
  switch (field.kind) {
    case "string":
      return typeof value === "string";
    case "lovelace":
      return typeof value === "string" && /^\d+$/.test(value);
    case "date-time":
      return typeof value === "string" && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/.test(value);
    case "integer":
      return Number.isInteger(value);
    case "number":
      return typeof value === "number" && Number.isFinite(value) &&
        (field.minimum === undefined || value >= field.minimum) &&
        (field.maximum === undefined || value <= field.maximum);
    case "boolean":
      return typeof value === "boolean";
    case "array":
      return Array.isArray(value);
    case "any":
      return value !== undefined;
  }
};

/**
 * The fields of a `/api/public/*` endpoint's success response, from the spec's endpoint table ("object: found
 * boolean (required), blockNo integer nullable, …"); nested objects (`network.tip {…}`) are one field of any kind.
 */
export const readPublicEndpointFields = (path: string): Promise<ReadonlyArray<SpecField>> => {
  const fields = facts.publicEndpoints[path];
  if (!fields) return Promise.reject(new Error(`the spec facts have no endpoint GET ${path}`));
  return Promise.resolve(fields);
};

/** Whether the spec calls this endpoint's answer an open object (members beyond the named ones exist). */
export const isOpenObject = (path: string): boolean => facts.openObjects.includes(path);
