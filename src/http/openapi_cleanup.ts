/** What every dialect's OpenAPI document drops of Effect's derivation (src/rest/openapi.ts, src/blockfrost/openapi.ts). */

// deno-lint-ignore no-explicit-any
type Json = any;

/**
 * Without what Effect writes for its own bookkeeping: refinement names as titles (`minLength(1)`, `int`), noise
 * in the docs, and `$id: "/schemas/unknown"` on every open value, one id for many schemas (invalid JSON Schema).
 */
export const withoutTitles = (value: Json, parentKey = ""): Json => {
  if (Array.isArray(value)) return value.map((v) => withoutTitles(v));
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, Json> = {};
  for (const [key, v] of Object.entries(value)) {
    if ((key === "title" || key === "$id") && parentKey !== "properties" && typeof v === "string") continue;
    out[key] = withoutTitles(v, key);
  }
  return out;
};
