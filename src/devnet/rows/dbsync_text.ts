/**
 * Text a node accepts but PostgreSQL cannot hold as the devnet writes it: `jsonb` refuses `\u0000` and
 * `varchar` any NUL character. db-sync (13.7, cardano-db-sync/src/Cardano/DbSync/Era/Util.hs, `safeDecodeToJson`,
 * used for tx_metadata.json in Era/Universal/Insert/Tx.hs and datum.value, redeemer_data.value and script.json in
 * Era/Universal/Insert/Other.hs) stores such JSON as NULL and keeps the CBOR in `bytes`: it looks for the text
 * `\u000` in Aeson's encoding (its issues #297 and #1421), so any string Aeson escapes as `\u0000`..`\u000f`
 * (every control character below 0x10 but tab, newline and carriage return, which get short escapes) or one
 * holding a literal backslash-`u000` nulls the JSON. URLs and DNS names go into varchar columns unchecked
 * (Era/Universal/Insert/GovAction.hs: "TODO: Conway check unicode and size of URL"; Insert/Pool.hs), so
 * db-sync has no stored form for a NUL there: the devnet refuses such a transaction at submission instead.
 */
import type * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import { listOf } from "../decoding/cml_conversions.ts";
import * as E from "../errors.ts";

/** Aeson escapes these as `\u000X`; tab, newline and carriage return get `\t`, `\n`, `\r`. */
const aesonHexEscaped = (code: number) => code < 0x10 && code !== 0x09 && code !== 0x0a && code !== 0x0d;

const nulledByDbSync = (s: string): boolean => {
  for (let i = 0; i < s.length; i++) if (aesonHexEscaped(s.charCodeAt(i))) return true;
  return s.includes("\\u000");
};

const anyString = (value: unknown, test: (s: string) => boolean): boolean => {
  if (typeof value === "string") return test(value);
  if (Array.isArray(value)) return value.some((v) => anyString(v, test));
  if (value !== null && typeof value === "object") {
    return Object.entries(value).some(([k, v]) => test(k) || anyString(v, test));
  }
  return false;
};

/**
 * A JSON column's value as db-sync stores it: NULL when a string in it (key or value) would make db-sync's
 * `containsUnicodeNul` true. Without a backslash, JSON text holds no control character and no backslash.
 */
export const dbSyncJson = (json: string | null): string | null => {
  if (json === null || !json.includes("\\")) return json;
  try {
    return anyString(JSON.parse(json), nulledByDbSync) ? null : json;
  } catch {
    return null;
  }
};

/** The anchors and host names of a transaction that db-sync writes into varchar columns, with what they are. */
const textColumns = (body: CML.TransactionBody): Array<readonly [string, string]> => {
  const out: Array<readonly [string, string]> = [];
  const anchor = (what: string, a: CML.Anchor | undefined) => {
    if (a) out.push([`${what} anchor URL`, a.anchor_url().get()]);
  };
  listOf(body.certs()).forEach((cert, index) => {
    const at = `certificate ${index}:`;
    anchor(`${at} DRep`, (cert.as_reg_drep_cert() ?? cert.as_update_drep_cert())?.anchor());
    anchor(`${at} committee resignation`, cert.as_resign_committee_cold_cert()?.anchor());
    const pool = cert.as_pool_registration()?.pool_params();
    const metadata = pool?.pool_metadata();
    if (metadata) out.push([`${at} pool metadata URL`, metadata.url().get()]);
    for (const relay of listOf(pool?.relays())) {
      const name = relay.as_single_host_name()?.dns_name() ?? relay.as_multi_host_name()?.dns_name();
      if (name) out.push([`${at} pool relay DNS name`, name.get()]);
    }
  });
  const procedures = body.proposal_procedures();
  listOf(procedures).forEach((p, index) => {
    anchor(`proposal ${index}:`, p.anchor());
    anchor(`proposal ${index}: constitution`, p.gov_action().as_new_constitution()?.constitution().anchor());
  });
  const votes = body.voting_procedures();
  for (const voter of listOf(votes?.keys())) {
    const byAction = votes!.get(voter)!;
    for (const action of listOf(byAction.keys())) anchor("vote", byAction.get(action)!.anchor());
  }
  return out;
};

/**
 * Why db-sync could not store this transaction (a NUL character in a varchar column), answered at submission
 * as 3997; undefined when it can. Text that is not valid UTF-8 never gets here: CML refuses to decode it, as
 * the ledger's CBOR decoder does.
 */
export const unstorableText = (tx: CML.Transaction): E.OgmiosError | undefined => {
  const found = textColumns(tx.body()).find(([, value]) => value.includes("\u0000"));
  return found
    ? E.unexpectedMempoolError(
      `the ${found[0]} contains a NUL character (U+0000), which the chain database (db-sync's schema, ` +
        "PostgreSQL text) cannot store",
    )
    : undefined;
};
