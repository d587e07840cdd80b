/**
 * Validation against Ogmios' own JSON schema (schemas/reference/ogmios: ogmios.json + cardano.json, draft-07) with
 * ajv. Two documented patches, in memory only: cardano.json's Value requires the key "ada" but its propertyNames
 * pattern allows only policy ids, so every multi-asset value would fail; the pattern is widened to admit "ada".
 * And RewardTransfer (a treasury withdrawal's accounts) names credential hashes, while v6.14's server writes the
 * reward accounts in bech32 (Conway.encodeGovAction: stringifyRewardAcnt); the pattern admits both.
 */
import Ajv from "ajv";

const reference = new URL("../../schemas/reference/ogmios/", import.meta.url);
const load = async (name: string) => JSON.parse(await Deno.readTextFile(new URL(name, reference)));

let ajv: Promise<Ajv.default> | undefined;

const instance = () =>
  ajv ??= (async () => {
    const cardano = await load("cardano.json");
    const ogmios = await load("ogmios.json");
    const value = cardano.definitions?.Value;
    if (value?.propertyNames?.pattern) value.propertyNames.pattern = "^([0-9a-f]{56}|ada)$";
    const transfer = cardano.definitions?.RewardTransfer;
    if (transfer?.propertyNames?.pattern) {
      transfer.propertyNames.pattern = "^([0-9a-f]{56}|stake(_test)?1[0-9a-z]+)$";
    }
    // deno-lint-ignore no-explicit-any
    const AjvClass = (Ajv as any).default ?? Ajv;
    const a = new AjvClass({
      strict: false,
      allErrors: false,
      validateFormats: false,
      validateSchema: false,
    });
    a.addSchema(cardano, "cardano.json");
    a.addSchema(ogmios, "ogmios.json");
    return a;
  })();

/** Throws with ajv's first error unless `value` matches `ref` (e.g. "cardano.json#/definitions/ProtocolParameters"). */
export const assertMatchesOgmiosSchema = async (ref: string, value: unknown): Promise<void> => {
  const a = await instance();
  const validate = a.getSchema(ref);
  if (!validate) throw new Error(`no schema ${ref}`);
  if (!validate(value)) throw new Error(`${ref}: ${JSON.stringify(validate.errors?.slice(0, 3))}`);
};
