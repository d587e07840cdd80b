/**
 * The spec's resources ("Resources and their fields" in shared/spec/interface-spec.md) read from the spec itself,
 * so contract tests check responses against the document, not against a copy of it: for each resource, its fields
 * with their type, whether the field is required and whether it is nullable.
 */
import { fileURLToPath } from "node:url";

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
}

export const specPath = fileURLToPath(new URL("../../../shared/spec/interface-spec.md", import.meta.url));

const kindOf = (type: string): FieldKind => {
  const t = type.toLowerCase();
  if (t.startsWith("array")) return "array";
  if (t.includes("lovelace")) return "lovelace";
  if (t.includes("date-time")) return "date-time";
  if (t.startsWith("integer")) return "integer";
  if (t.startsWith("number")) return "number";
  if (t.startsWith("boolean")) return "boolean";
  if (t.includes("decimal string")) return "lovelace";
  if (t.startsWith("string")) return "string";
  return "any";
};

const itemsOf = (type: string): string | undefined => type.match(/^array of ([A-Z]\w+)/)?.[1];

/** `### Name (…)` sections between "Resources and their fields" and the next `## `, parsed. */
export const readSpecResources = async (): Promise<Map<string, ReadonlyArray<SpecField>>> => {
  const text = await Deno.readTextFile(specPath);
  const start = text.indexOf("## Resources and their fields");
  const end = text.indexOf("\n## ", start + 1);
  const sections = text.slice(start, end).split("\n### ").slice(1);
  const resources = new Map<string, ReadonlyArray<SpecField>>();
  for (const section of sections) {
    const name = section.split(/[\s(]/)[0]!;
    const lines = section.split("\n");
    const requiredLine = lines.find((l) => l.startsWith("Required:"));
    const allRequired = lines.some((l) => l.startsWith("All fields required"));
    const requiredNames = (requiredLine ?? "").replace(/^Required:\s*/, "").split(".")[0] ?? "";
    const required = new Set(requiredNames.split(",").map((s) => s.trim()));
    const rows = lines.filter((l) => l.startsWith("| ") && !l.startsWith("| Field") && !l.startsWith("|---"));
    const fields: Array<SpecField> = [];
    for (const row of rows) {
      const [field, type = "", notes = ""] = row.split("|").slice(1).map((c) => c.trim());
      if (!field) continue;
      fields.push({
        name: field,
        kind: kindOf(type),
        // without a Required line (PoolRelay, Withdrawal) every field is listed as always present
        required: allRequired || (requiredLine ? required.has(field) : !/optional/.test(type + notes)),
        nullable: /nullable/.test(type),
        ...(itemsOf(type) ? { items: itemsOf(type) } : {}),
      });
    }
    // BlockSummary is prose: "Required: a, b. Optional: c (integer, nullable), d (Lovelace). Types of the
    // required fields: a integer, b string, ..."
    if (rows.length === 0 && requiredLine) {
      const optional = requiredLine.match(/Optional: (.*?)\. Types/)?.[1] ?? "";
      for (const m of optional.matchAll(/(\w+) \(([^)]*)\)/g)) {
        fields.push({ name: m[1]!, kind: kindOf(m[2]!), required: false, nullable: /nullable/.test(m[2]!) });
      }
      const types = requiredLine.match(/Types of the required fields: (.*?)\.?$/)?.[1] ?? "";
      for (const part of types.split(",").map((s) => s.trim())) {
        const [field, ...type] = part.split(" ");
        fields.push({ name: field!, kind: kindOf(type.join(" ")), required: true, nullable: false });
      }
    }
    if (fields.length > 0) resources.set(name, fields);
  }
  return resources;
};

/** Whether a JSON value has a field's kind (null allowed when the field is nullable). */
export const hasKind = (value: unknown, field: SpecField): boolean => {
  if (value === null) return field.nullable;
  switch (field.kind) {
    case "string":
      return typeof value === "string";
    case "lovelace":
      return typeof value === "string" && /^-?\d+$/.test(value);
    case "date-time":
      return typeof value === "string" && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/.test(value);
    case "integer":
      return Number.isInteger(value);
    case "number":
      return typeof value === "number" && Number.isFinite(value);
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
export const readPublicEndpointFields = async (path: string): Promise<ReadonlyArray<SpecField>> => {
  const text = await Deno.readTextFile(specPath);
  const row = text.split("\n").find((l) => l.startsWith(`| GET | ${path} |`));
  if (!row) throw new Error(`the spec has no row for GET ${path}`);
  const success = row.split("|")[4]!.trim();
  if (!success.startsWith("object:")) return [];
  const parts: Array<string> = [];
  let depth = 0, current = "";
  for (const c of success.replace(/^object:\s*/, "").replace(/;.*$/, "")) {
    if (c === "{") depth++;
    if (c === "}") depth--;
    if (c === "," && depth === 0) {
      parts.push(current.trim());
      current = "";
    } else current += c;
  }
  parts.push(current.trim());
  return parts.flatMap((part) => {
    const [names = "", ...type] = part.split(" ");
    const typeText = type.join(" ");
    return names.split("/").map((n) => ({
      name: n.split(".")[0]!,
      kind: typeText.startsWith("{") ? "any" as const : kindOf(typeText),
      required: true,
      nullable: /nullable/.test(typeText),
      ...(itemsOf(typeText) ? { items: itemsOf(typeText) } : {}),
    }));
  });
};
