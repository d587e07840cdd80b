/**
 * Plutus cost models as name → value maps (what Blockfrost's deprecated `cost_models` answers), from the arrays in
 * ledger order db-sync stores. The names, per language in ledger order, are the Plutus `ParamName` enumerations
 * (IntersectMBO/plutus plutus-ledger-api/src/PlutusLedgerApi/V{1,2,3}/ParamName.hs @ f424a79ade53, constructors
 * shown as Plutus shows them: first letter lowered, `'` as `-`); ledger order only ever appends, so an array
 * shorter than the list (today's 166 / 175 / 297) takes its first names.
 */
import names from "./plutus_cost_model_names.json" with { type: "json" };
import { costModelValues } from "./protocol_parameters.ts";

export const plutusLanguages = ["PlutusV1", "PlutusV2", "PlutusV3"] as const;
export type PlutusLanguage = typeof plutusLanguages[number];

/** Each language's cost model in ledger order, as db-sync holds it (languages it holds none for are absent). */
export const costModelsInLedgerOrder = (
  costs: Readonly<Record<string, unknown>> | null,
): Partial<Record<PlutusLanguage, Array<number>>> => {
  const out: Partial<Record<PlutusLanguage, Array<number>>> = {};
  for (const language of plutusLanguages) {
    if (costs?.[language] !== undefined && costs[language] !== null) {
      out[language] = costModelValues(costs[language]);
    }
  }
  return out;
};

/**
 * A cost model with its parameters' names; undefined when it has more values than names are known (a newer
 * ledger's model: only the ledger-order array says it right).
 */
export const namedCostModel = (
  language: PlutusLanguage,
  values: ReadonlyArray<number>,
): Record<string, number> | undefined => {
  const known: ReadonlyArray<string> = names[language];
  if (values.length > known.length) return undefined;
  return Object.fromEntries(values.map((v, i) => [known[i]!, v]));
};
