/**
 * Chain facts the block writer looks up or creates by natural key, as db-sync does under its unique constraints:
 * transaction ids by hash, stake addresses, multi-assets, pools, DReps, committee credentials, voting anchors,
 * proposals, datums, redeemer data and scripts.
 */
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import type { SqlError } from "@effect/sql/SqlError";
import { Effect } from "effect";
import { assetFingerprint } from "@src/demo_chain/cardano_encoding.ts";
import { dbSyncScriptType, nativeScriptToJson, plutusScriptBytes } from "../decoding/cml_conversions.ts";
import { dbSyncJson } from "./dbsync_text.ts";
import type { RowWriter } from "./row_writer.ts";

/** Chain facts the writer looks up or creates by natural key (db-sync's unique constraints). */
export class Lookups {
  private readonly txIds = new Map<string, number>();
  private readonly cache = new Map<string, number>();

  constructor(readonly w: RowWriter, private readonly networkId: number) {}

  rememberTx(hash: string, id: number) {
    this.txIds.set(hash, id);
  }

  txId(hash: string): Effect.Effect<number, SqlError> {
    const known = this.txIds.get(hash);
    if (known !== undefined) return Effect.succeed(known);
    return Effect.map(
      this.w.sql<{ id: string }>`select id::text as id from tx where hash = ${this.w.bytea(hash)}`,
      (rows) => Number(rows[0]?.id ?? 0),
    );
  }

  private cached(
    key: string,
    find: Effect.Effect<ReadonlyArray<{ id: string }>, SqlError>,
    create: Effect.Effect<number, SqlError>,
  ): Effect.Effect<number, SqlError> {
    const known = this.cache.get(key);
    if (known !== undefined) return Effect.succeed(known);
    return Effect.gen(this, function* () {
      const [row] = yield* find;
      const id = row ? Number(row.id) : yield* create;
      this.cache.set(key, id);
      return id;
    });
  }

  stakeAddress(credential: CML.Credential): Effect.Effect<number, SqlError> {
    const address = CML.RewardAddress.new(this.networkId, credential).to_address();
    const raw = address.to_hex();
    return this.cached(
      `stake:${raw}`,
      this.w.sql`select id::text as id from stake_address where hash_raw = ${this.w.bytea(raw)}`,
      this.w.add("stake_address", {
        hash_raw: this.w.bytea(raw),
        view: address.to_bech32(),
        script_hash: credential.as_script() ? this.w.bytea(credential.as_script()!.to_hex()) : null,
      }),
    );
  }

  multiAsset(policy: string, name: string): Effect.Effect<number, SqlError> {
    return this.cached(
      `asset:${policy}.${name}`,
      this.w.sql`select id::text as id from multi_asset where policy = ${this.w.bytea(policy)} and name = ${
        this.w.bytea(name)
      }`,
      this.w.add("multi_asset", {
        policy: this.w.bytea(policy),
        name: this.w.bytea(name),
        fingerprint: assetFingerprint(policy, name),
      }),
    );
  }

  poolHash(keyHash: string): Effect.Effect<number, SqlError> {
    return this.cached(
      `pool:${keyHash}`,
      this.w.sql`select id::text as id from pool_hash where hash_raw = ${this.w.bytea(keyHash)}`,
      this.w.add("pool_hash", {
        hash_raw: this.w.bytea(keyHash),
        view: CML.Ed25519KeyHash.from_hex(keyHash).to_bech32("pool"),
      }),
    );
  }

  drepHash(drep: CML.DRep): Effect.Effect<number, SqlError> {
    const special = drep.kind() === CML.DRepKind.AlwaysAbstain
      ? "drep_always_abstain"
      : drep.kind() === CML.DRepKind.AlwaysNoConfidence
      ? "drep_always_no_confidence"
      : undefined;
    if (special) {
      return this.cached(
        `drep:${special}`,
        this.w.sql`select id::text as id from drep_hash where view = ${special}`,
        this.w.add("drep_hash", { raw: null, view: special, has_script: false }),
      );
    }
    const hash = (drep.as_key() ?? drep.as_script())!.to_hex();
    const isScript = drep.as_script() !== undefined;
    return this.cached(
      `drep:${hash}`,
      this.w.sql`select id::text as id from drep_hash where raw = ${
        this.w.bytea(hash)
      } and has_script = ${isScript}`,
      this.w.add("drep_hash", {
        raw: this.w.bytea(hash),
        view: CML.Ed25519KeyHash.from_hex(hash).to_bech32("drep"),
        has_script: isScript,
      }),
    );
  }

  /** A committee member's cold or hot credential (committee_hash, unique by raw and has_script). */
  committeeHash(c: { hash: string; script: boolean }): Effect.Effect<number, SqlError> {
    return this.cached(
      `committee:${c.script}:${c.hash}`,
      this.w.sql`select id::text as id from committee_hash where raw = ${
        this.w.bytea(c.hash)
      } and has_script = ${c.script}`,
      this.w.add("committee_hash", { raw: this.w.bytea(c.hash), has_script: c.script }),
    );
  }

  /** An anchor (voting_anchor, unique by hash, url and type), first seen in `blockId`. */
  votingAnchor(
    anchor: { url: string; hash: string },
    type: "gov_action" | "drep" | "vote" | "committee_dereg" | "constitution",
    blockId: number,
  ): Effect.Effect<number, SqlError> {
    return this.cached(
      `anchor:${type}:${anchor.hash}:${anchor.url}`,
      this.w.sql`select id::text as id from voting_anchor where data_hash = ${this.w.bytea(anchor.hash)}
        and url = ${anchor.url} and type = ${type}`,
      this.w.add("voting_anchor", {
        url: anchor.url,
        data_hash: this.w.bytea(anchor.hash),
        type,
        block_id: blockId,
      }),
    );
  }

  /** A proposal's gov_action_proposal id by its action id (written earlier, or in this block). */
  proposal(txHash: string, index: number): Effect.Effect<number, SqlError> {
    const known = this.cache.get(`proposal:${txHash}#${index}`);
    if (known !== undefined) return Effect.succeed(known);
    return Effect.map(
      this.w.sql<
        { id: string }
      >`select g.id::text as id from gov_action_proposal g join tx t on t.id = g.tx_id
        where t.hash = ${this.w.bytea(txHash)} and g.index = ${index}`,
      (rows) => Number(rows[0]?.id ?? 0),
    );
  }

  rememberProposal(txHash: string, index: number, id: number) {
    this.cache.set(`proposal:${txHash}#${index}`, id);
  }

  datum(data: CML.PlutusData, txId: number): Effect.Effect<number, SqlError> {
    const hash = CML.hash_plutus_data(data).to_hex();
    return this.cached(
      `datum:${hash}`,
      this.w.sql`select id::text as id from datum where hash = ${this.w.bytea(hash)}`,
      this.w.add("datum", {
        hash: this.w.bytea(hash),
        tx_id: txId,
        value: plutusJson(data),
        bytes: this.w.bytea(data.to_cbor_bytes()),
      }),
    );
  }

  redeemerData(data: CML.PlutusData, txId: number): Effect.Effect<number, SqlError> {
    const hash = CML.hash_plutus_data(data).to_hex();
    return this.cached(
      `rdata:${hash}`,
      this.w.sql`select id::text as id from redeemer_data where hash = ${this.w.bytea(hash)}`,
      this.w.add("redeemer_data", {
        hash: this.w.bytea(hash),
        tx_id: txId,
        value: plutusJson(data),
        bytes: this.w.bytea(data.to_cbor_bytes()),
      }),
    );
  }

  script(script: CML.Script, txId: number): Effect.Effect<number, SqlError> {
    const hash = script.hash().to_hex();
    const bytes = plutusScriptBytes(script);
    const native = script.as_native();
    return this.cached(
      `script:${hash}`,
      this.w.sql`select id::text as id from script where hash = ${this.w.bytea(hash)}`,
      this.w.add("script", {
        tx_id: txId,
        hash: this.w.bytea(hash),
        type: dbSyncScriptType(script),
        json: native ? JSON.stringify(nativeScriptToJson(native)) : null,
        bytes: bytes ? this.w.bytea(bytes) : null,
        serialised_size: bytes ? bytes.length : null,
      }),
    );
  }
}

/** datum.value and redeemer_data.value as db-sync stores them (NULL where jsonb could not hold them). */
export const plutusJson = (data: CML.PlutusData): string | null => {
  try {
    return dbSyncJson(
      CML.decode_plutus_datum_to_json_str(data, CML.CardanoNodePlutusDatumSchema.DetailedSchema),
    );
  } catch {
    return null;
  }
};
