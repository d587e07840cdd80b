/**
 * Writes one block of accepted transactions into the chain database exactly as db-sync would have (block, tx,
 * tx_out, tx_in, ma_tx_out, collateral, reference inputs, mints, withdrawals, certificates, metadata, datums,
 * scripts, redeemers, required signers), in one database transaction: a block is all there or not at all.
 * A transaction whose scripts failed (valid_contract false) keeps only its collateral, as db-sync stores it.
 */
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import type { SqlClient } from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import { blake2b } from "@noble/hashes/blake2.js";
import { hex } from "@scure/base";
import { Effect } from "effect";
import { assetFingerprint } from "@src/demo_chain/cardano_encoding.ts";
import {
  addressText,
  dbSyncScriptType,
  inputKey,
  listOf,
  nativeScriptToJson,
  plutusScriptBytes,
  refKey,
} from "./cardano.ts";
import { writeEpochBoundaries } from "./epoch_boundary.ts";
import type { LedgerParams } from "./ledger_view.ts";
import { certificateCredential, redeemerEntries } from "./phase1_rules.ts";
import type { AcceptedTx } from "./phase1_rules.ts";
import { type RowValue, RowWriter, text } from "./rows.ts";

export const epochLength = 432_000;

/** A transaction as it goes into a block: phase 1 passed, and phase 2 decided whether its scripts succeeded. */
export interface BlockTx {
  readonly accepted: AcceptedTx;
  /** False when its Plutus scripts failed: only the collateral is consumed. */
  readonly scriptsValid: boolean;
}

export interface WrittenBlock {
  readonly id: number;
  readonly hash: string;
  readonly blockNo: number;
  readonly slot: number;
  readonly epoch: number;
  readonly time: Date;
  readonly txIds: ReadonlyArray<string>;
}

interface Tip {
  readonly id: string;
  readonly hash: Uint8Array;
  readonly blockNo: number;
  readonly epoch: number;
  readonly slot: string;
  readonly epochSlot: number;
  readonly time: Date;
}

const readTip = (sql: SqlClient) =>
  Effect.map(
    sql<Tip>`select id::text as id, hash, block_no as "blockNo", epoch_no as epoch, slot_no::text as slot,
               epoch_slot_no as "epochSlot", time
             from block b where block_no is not null order by b.id desc limit 1`,
    (rows) => rows[0],
  );

const utcText = (d: Date) => d.toISOString().replace("T", " ").replace("Z", "");

const purposeColumn: Record<string, string> = {
  spend: "spend",
  mint: "mint",
  publish: "cert",
  withdraw: "reward",
  vote: "vote",
  propose: "propose",
};

/** Chain facts the writer looks up or creates by natural key (db-sync's unique constraints). */
class Lookups {
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

const plutusJson = (data: CML.PlutusData): string | null => {
  try {
    return CML.decode_plutus_datum_to_json_str(data, CML.CardanoNodePlutusDatumSchema.DetailedSchema);
  } catch {
    return null;
  }
};

const metadataJson = (m: CML.TransactionMetadatum): string | null => {
  try {
    return CML.decode_metadatum_to_json_str(m, CML.MetadataJsonSchema.NoConversions);
  } catch {
    return null;
  }
};

/** tx_out / collateral_tx_out columns shared by both tables. */
const outputColumns = (lookups: Lookups, o: CML.TransactionOutput) =>
  Effect.gen(function* () {
    const address = o.address();
    const payment = address.kind() === CML.AddressKind.Byron ? undefined : address.payment_cred();
    const staking = address.kind() === CML.AddressKind.Base ? address.staking_cred() : undefined;
    const datum = o.datum();
    return {
      address: addressText(address),
      address_has_script: payment?.as_script() !== undefined,
      payment_cred: payment ? lookups.w.bytea((payment.as_pub_key() ?? payment.as_script())!.to_hex()) : null,
      stake_address_id: staking ? yield* lookups.stakeAddress(staking) : null,
      value: text(o.amount().coin()),
      data_hash: datum?.as_hash()
        ? lookups.w.bytea(datum.as_hash()!.to_hex())
        : datum?.as_datum()
        ? lookups.w.bytea(CML.hash_plutus_data(datum.as_datum()!).to_hex())
        : null,
    } satisfies Record<string, RowValue>;
  });

const assetsOf = (value: CML.Value): Array<[string, string, bigint]> => {
  const out: Array<[string, string, bigint]> = [];
  const ma = value.multi_asset();
  for (const policy of listOf(ma.keys())) {
    const assets = ma.get_assets(policy)!;
    for (const name of listOf(assets.keys())) out.push([policy.to_hex(), name.to_hex(), assets.get(name)!]);
  }
  return out;
};

const writeOutput = (
  w: RowWriter,
  lookups: Lookups,
  txId: number,
  index: number,
  o: CML.TransactionOutput,
) =>
  Effect.gen(function* () {
    const columns = yield* outputColumns(lookups, o);
    const inline = o.datum()?.as_datum();
    const script = o.script_ref();
    const outId = yield* w.add("tx_out", {
      tx_id: txId,
      index,
      ...columns,
      inline_datum_id: inline ? yield* lookups.datum(inline, txId) : null,
      reference_script_id: script ? yield* lookups.script(script, txId) : null,
      consumed_by_tx_id: null,
    });
    for (const [policy, name, quantity] of assetsOf(o.amount())) {
      yield* w.add("ma_tx_out", {
        quantity: text(quantity),
        tx_out_id: outId,
        ident: yield* lookups.multiAsset(policy, name),
      });
    }
  });

const writeCollateralOutput = (
  w: RowWriter,
  lookups: Lookups,
  txId: number,
  index: number,
  o: CML.TransactionOutput,
) =>
  Effect.gen(function* () {
    const assets = assetsOf(o.amount());
    yield* w.add("collateral_tx_out", {
      tx_id: txId,
      index,
      ...(yield* outputColumns(lookups, o)),
      multi_assets_descr: assets.length === 0 ? "fromList []" : JSON.stringify(assets.map(String)),
      inline_datum_id: null,
      reference_script_id: null,
    });
  });

/** Writes one transaction's rows; returns its id. */
const writeTransaction = (
  w: RowWriter,
  lookups: Lookups,
  params: LedgerParams,
  blockTx: BlockTx,
  block: { id: number; index: number; epoch: number; slot: number },
) =>
  Effect.gen(function* () {
    const { accepted, scriptsValid } = blockTx;
    const body = accepted.tx.body();
    const witnesses = accepted.tx.witness_set();
    const inputs = listOf(body.inputs());
    const outputs = listOf(body.outputs());
    const collateral = listOf(body.collateral_inputs());
    const collateralReturn = body.collateral_return();
    const txId = yield* w.id("tx");
    lookups.rememberTx(accepted.id, txId);
    const plutusScripts = [
      ...listOf(witnesses.plutus_v1_scripts()).map((s) => CML.Script.new_plutus_v1(s)),
      ...listOf(witnesses.plutus_v2_scripts()).map((s) => CML.Script.new_plutus_v2(s)),
      ...listOf(witnesses.plutus_v3_scripts()).map((s) => CML.Script.new_plutus_v3(s)),
    ];
    const scriptSize = plutusScripts.reduce((s, x) => s + plutusScriptBytes(x)!.length, 0);
    const spend = (input: CML.TransactionInput, redeemerId: number | null, table = "tx_in") =>
      Effect.gen(function* () {
        const row: Record<string, RowValue> = {
          tx_in_id: txId,
          tx_out_id: yield* lookups.txId(input.transaction_id().to_hex()),
          tx_out_index: Number(input.index()),
        };
        if (table === "tx_in") row.redeemer_id = redeemerId;
        yield* w.add(table, row);
      });

    if (!scriptsValid) {
      // db-sync keeps a failed script transaction's collateral only: consumed as tx_in, the return as tx_out
      let collateralIn = 0n;
      for (const c of collateral) collateralIn += accepted.resolved.get(inputKey(c))!.amount().coin();
      const back = collateralReturn?.amount().coin() ?? 0n;
      const taken = body.total_collateral() ?? collateralIn - back;
      yield* w.insert("tx", {
        id: txId,
        hash: w.bytea(accepted.id),
        block_id: block.id,
        block_index: block.index,
        out_sum: text(back),
        fee: text(taken),
        deposit: "0",
        size: accepted.size,
        invalid_before: body.validity_interval_start() === undefined
          ? null
          : text(body.validity_interval_start()!),
        invalid_hereafter: body.ttl() === undefined ? null : text(body.ttl()!),
        valid_contract: false,
        script_size: scriptSize,
        treasury_donation: "0",
      });
      for (const c of collateral) yield* spend(c, null);
      for (const c of collateral) yield* spend(c, null, "collateral_tx_in");
      if (collateralReturn) {
        yield* writeOutput(w, lookups, txId, outputs.length, collateralReturn);
        yield* writeCollateralOutput(w, lookups, txId, outputs.length, collateralReturn);
      }
      return { txId, fee: taken, outSum: back };
    }

    const outSum = outputs.reduce((s, o) => s + o.amount().coin(), 0n);
    yield* w.insert("tx", {
      id: txId,
      hash: w.bytea(accepted.id),
      block_id: block.id,
      block_index: block.index,
      out_sum: text(outSum),
      fee: text(accepted.fee),
      deposit: text(accepted.deposit),
      size: accepted.size,
      invalid_before: body.validity_interval_start() === undefined
        ? null
        : text(body.validity_interval_start()!),
      invalid_hereafter: body.ttl() === undefined ? null : text(body.ttl()!),
      valid_contract: true,
      script_size: scriptSize,
      treasury_donation: text(body.donation() ?? 0n),
    });

    // witness scripts and datums first: outputs and redeemers refer to them
    for (const s of listOf(witnesses.native_scripts())) yield* lookups.script(CML.Script.new_native(s), txId);
    for (const s of plutusScripts) yield* lookups.script(s, txId);
    for (const d of listOf(witnesses.plutus_datums())) yield* lookups.datum(d, txId);

    // redeemers, keyed by pointer
    const sortedInputs = [...inputs].sort((a, b) => {
      const x = a.transaction_id().to_hex(), y = b.transaction_id().to_hex();
      return x < y ? -1 : x > y ? 1 : Number(a.index() - b.index());
    });
    const policies = listOf(body.mint()?.keys()).map((h) => h.to_hex()).sort();
    const withdrawalAccounts = listOf(body.withdrawals()?.keys()).sort((a, b) => {
      const x = a.to_address().to_hex(), y = b.to_address().to_hex();
      return x < y ? -1 : x > y ? 1 : 0;
    });
    const certs = listOf(body.certs());
    const scriptOf = (purpose: string, index: number): string | null => {
      const cred = purpose === "spend"
        ? accepted.resolved.get(inputKey(sortedInputs[index]!))?.address().payment_cred()
        : purpose === "withdraw"
        ? withdrawalAccounts[index]?.payment()
        : purpose === "publish"
        ? (certs[index] ? certificateCredential(certs[index]!) : undefined)
        : undefined;
      if (purpose === "mint") return policies[index] ?? null;
      return cred?.as_script()?.to_hex() ?? null;
    };
    const [memN, memD] = [params.prices.mem_price().numerator(), params.prices.mem_price().denominator()];
    const [stepN, stepD] = [params.prices.step_price().numerator(), params.prices.step_price().denominator()];
    const redeemerIds = new Map<string, number>();
    for (const r of redeemerEntries(witnesses.redeemers())) {
      const fee = (r.mem * memN * stepD + r.steps * stepN * memD + memD * stepD - 1n) / (memD * stepD);
      const script = scriptOf(r.purpose, r.index);
      redeemerIds.set(
        `${r.purpose}:${r.index}`,
        yield* w.add("redeemer", {
          tx_id: txId,
          unit_mem: text(r.mem),
          unit_steps: text(r.steps),
          fee: text(fee),
          purpose: purposeColumn[r.purpose]!,
          index: r.index,
          script_hash: script ? w.bytea(script) : null,
          redeemer_data_id: yield* lookups.redeemerData(r.data, txId),
        }),
      );
    }
    const redeemerFor = (purpose: string, index: number) => redeemerIds.get(`${purpose}:${index}`) ?? null;

    for (const input of inputs) {
      yield* spend(
        input,
        redeemerFor("spend", sortedInputs.findIndex((i) => inputKey(i) === inputKey(input))),
      );
    }
    for (const c of collateral) yield* spend(c, null, "collateral_tx_in");
    for (const r of listOf(body.reference_inputs())) yield* spend(r, null, "reference_tx_in");
    for (let index = 0; index < outputs.length; index++) {
      yield* writeOutput(w, lookups, txId, index, outputs[index]!);
    }
    if (collateralReturn) yield* writeCollateralOutput(w, lookups, txId, outputs.length, collateralReturn);

    const mint = body.mint();
    for (const policy of listOf(mint?.keys())) {
      const assets = mint!.get_assets(policy)!;
      for (const name of listOf(assets.keys())) {
        yield* w.add("ma_tx_mint", {
          quantity: text(assets.get(name)!),
          tx_id: txId,
          ident: yield* lookups.multiAsset(policy.to_hex(), name.to_hex()),
        });
      }
    }
    withdrawalAccounts.forEach(() => {});
    for (let index = 0; index < withdrawalAccounts.length; index++) {
      const account = withdrawalAccounts[index]!;
      yield* w.add("withdrawal", {
        addr_id: yield* lookups.stakeAddress(account.payment()),
        amount: text(body.withdrawals()!.get(account)!),
        redeemer_id: redeemerFor("withdraw", index),
        tx_id: txId,
      });
    }
    for (let index = 0; index < certs.length; index++) {
      yield* writeCertificate(w, lookups, params, certs[index]!, {
        txId,
        certIndex: index,
        epoch: block.epoch,
        slot: block.slot,
        redeemerId: redeemerFor("publish", index),
      });
    }
    const metadata = accepted.tx.auxiliary_data()?.metadata();
    for (const label of listOf(metadata?.labels())) {
      const value = metadata!.get(label)!;
      yield* w.add("tx_metadata", {
        key: text(label),
        json: metadataJson(value),
        bytes: w.bytea(value.to_cbor_bytes()),
        tx_id: txId,
      });
    }
    for (const signer of listOf(body.required_signers())) {
      yield* w.add("extra_key_witness", { hash: w.bytea(signer.to_hex()), tx_id: txId });
    }
    return { txId, fee: accepted.fee, outSum };
  });

const writeCertificate = (
  w: RowWriter,
  lookups: Lookups,
  params: LedgerParams,
  cert: CML.Certificate,
  at: { txId: number; certIndex: number; epoch: number; slot: number; redeemerId: number | null },
) =>
  Effect.gen(function* () {
    const credential = certificateCredential(cert);
    const addrId = credential ? yield* lookups.stakeAddress(credential) : 0;
    const base = { cert_index: at.certIndex, tx_id: at.txId };
    const registration = cert.as_stake_registration() ?? cert.as_reg_cert() ??
      cert.as_stake_reg_deleg_cert() ??
      cert.as_vote_reg_deleg_cert() ?? cert.as_stake_vote_reg_deleg_cert();
    if (registration) {
      yield* w.add("stake_registration", {
        addr_id: addrId,
        ...base,
        epoch_no: at.epoch,
        deposit: text(params.keyDeposit),
      });
    }
    if (cert.as_stake_deregistration() ?? cert.as_unreg_cert()) {
      yield* w.add("stake_deregistration", {
        addr_id: addrId,
        ...base,
        epoch_no: at.epoch,
        redeemer_id: at.redeemerId,
      });
    }
    const pool =
      (cert.as_stake_delegation() ?? cert.as_stake_vote_deleg_cert() ?? cert.as_stake_reg_deleg_cert() ??
        cert.as_stake_vote_reg_deleg_cert())?.pool();
    if (pool) {
      yield* w.add("delegation", {
        addr_id: addrId,
        ...base,
        pool_hash_id: yield* lookups.poolHash(pool.to_hex()),
        active_epoch_no: at.epoch + 2,
        slot_no: at.slot,
        redeemer_id: at.redeemerId,
      });
    }
    const drep =
      (cert.as_vote_deleg_cert() ?? cert.as_stake_vote_deleg_cert() ?? cert.as_vote_reg_deleg_cert() ??
        cert.as_stake_vote_reg_deleg_cert())?.d_rep();
    if (drep) {
      yield* w.add("delegation_vote", {
        addr_id: addrId,
        ...base,
        drep_hash_id: yield* lookups.drepHash(drep),
        redeemer_id: at.redeemerId,
      });
    }
    const poolParams = cert.as_pool_registration()?.pool_params();
    if (poolParams) {
      const operator = poolParams.operator().to_hex();
      const [known] = yield* w.sql<{ n: string }>`
        select count(*)::text as n from pool_update u join pool_hash h on h.id = u.hash_id
        where h.hash_raw = ${w.bytea(operator)}`;
      const isNew = Number(known?.n ?? 0) === 0;
      const margin = poolParams.margin();
      const metadata = poolParams.pool_metadata();
      const hashId = yield* lookups.poolHash(operator);
      const metaId = metadata
        ? yield* w.add("pool_metadata_ref", {
          pool_id: hashId,
          url: metadata.url().get(),
          hash: w.bytea(metadata.pool_metadata_hash().to_hex()),
          registered_tx_id: at.txId,
        })
        : null;
      const updateId = yield* w.add("pool_update", {
        hash_id: hashId,
        cert_index: at.certIndex,
        vrf_key_hash: w.bytea(poolParams.vrf_keyhash().to_hex()),
        pledge: text(poolParams.pledge()),
        active_epoch_no: at.epoch + (isNew ? 2 : 3),
        meta_id: metaId,
        margin: Number(margin.start()) / Number(margin.end()),
        fixed_cost: text(poolParams.cost()),
        registered_tx_id: at.txId,
        reward_addr_id: yield* lookups.stakeAddress(poolParams.reward_account().payment()),
        deposit: isNew ? text(params.poolDeposit) : null,
      });
      for (const owner of listOf(poolParams.pool_owners())) {
        yield* w.add("pool_owner", {
          addr_id: yield* lookups.stakeAddress(CML.Credential.new_pub_key(owner)),
          pool_update_id: updateId,
        });
      }
      for (const relay of listOf(poolParams.relays())) {
        const single = relay.as_single_host_addr();
        const name = relay.as_single_host_name();
        const multi = relay.as_multi_host_name();
        const ipv4 = single?.ipv4()?.get();
        yield* w.add("pool_relay", {
          update_id: updateId,
          ipv4: ipv4 ? Array.from(ipv4).join(".") : null,
          ipv6: single?.ipv6() ? hex.encode(single.ipv6()!.get()) : null,
          dns_name: name?.dns_name().get() ?? null,
          dns_srv_name: multi?.dns_name().get() ?? null,
          port: single?.port() ?? name?.port() ?? null,
        });
      }
    }
    const retirement = cert.as_pool_retirement();
    if (retirement) {
      yield* w.add("pool_retire", {
        hash_id: yield* lookups.poolHash(retirement.pool().to_hex()),
        cert_index: at.certIndex,
        announced_tx_id: at.txId,
        retiring_epoch: Number(retirement.epoch()),
      });
    }
    const drepCert = cert.as_reg_drep_cert() ?? cert.as_unreg_drep_cert() ?? cert.as_update_drep_cert();
    if (drepCert) {
      const c = drepCert.drep_credential();
      const drepId = yield* lookups.drepHash(
        c.as_pub_key() ? CML.DRep.new_key(c.as_pub_key()!) : CML.DRep.new_script(c.as_script()!),
      );
      const deposit = cert.as_reg_drep_cert()?.deposit() ??
        (cert.as_unreg_drep_cert() ? -cert.as_unreg_drep_cert()!.deposit() : null);
      yield* w.add("drep_registration", {
        ...base,
        deposit: deposit === null ? null : text(deposit),
        drep_hash_id: drepId,
        voting_anchor_id: null,
      });
    }
  });

/** A block's header hash: db-sync keeps no header, so the devnet derives one from the block's contents. */
const blockHash = (previous: Uint8Array, slot: number, txIds: ReadonlyArray<string>): Uint8Array => {
  const slotBytes = new Uint8Array(8);
  new DataView(slotBytes.buffer).setBigUint64(0, BigInt(slot));
  return blake2b(new Uint8Array([...previous, ...slotBytes, ...txIds.flatMap((t) => [...hex.decode(t)])]), {
    dkLen: 32,
  });
};

export interface BlockOptions {
  readonly networkId: number;
  /** The block's slot; must be past the tip's. */
  readonly slot: number;
  readonly params: LedgerParams;
}

/** Writes the next block holding `txs` (possibly none) at `options.slot`, in one database transaction. */
export const writeBlock = (
  sql: SqlClient,
  txs: ReadonlyArray<BlockTx>,
  options: BlockOptions,
): Effect.Effect<WrittenBlock, SqlError> =>
  sql.withTransaction(Effect.gen(function* () {
    const tip = yield* readTip(sql);
    if (!tip) return yield* Effect.dieMessage("the chain database holds no block to build on");
    const tipSlot = Number(tip.slot);
    const slot = Math.max(options.slot, tipSlot + 1);
    const epochStart = tipSlot - tip.epochSlot;
    const epoch = tip.epoch + Math.floor((slot - epochStart) / epochLength);
    const epochSlot = (slot - epochStart) % epochLength;
    const time = new Date(tip.time.getTime() + (slot - tipSlot) * 1000);
    const w = new RowWriter(sql);
    const lookups = new Lookups(w, options.networkId);
    const blockNo = tip.blockNo + 1;
    const [leader] = yield* sql<
      { slotLeaderId: string; vrfKey: string; opCert: Uint8Array; counter: number }
    >`
      select slot_leader_id::text as "slotLeaderId", vrf_key as "vrfKey", op_cert as "opCert",
             op_cert_counter as counter
      from block where block_no is not null and vrf_key is not null and slot_leader_id in (
        select id from slot_leader where pool_hash_id is not null)
      order by id desc offset ${blockNo % 20} limit 1`;
    const blockId = yield* w.id("block");
    const hash = blockHash(tip.hash, slot, txs.map((t) => t.accepted.id));
    yield* w.insert("block", {
      id: blockId,
      hash: w.bytea(hash),
      epoch_no: epoch,
      slot_no: slot,
      epoch_slot_no: epochSlot,
      block_no: blockNo,
      previous_id: Number(tip.id),
      slot_leader_id: Number(leader?.slotLeaderId ?? 1),
      size: 860 + txs.reduce((s, t) => s + t.accepted.size, 0),
      time: utcText(time),
      tx_count: txs.length,
      proto_major: options.params.row.protocolMajor,
      proto_minor: options.params.row.protocolMinor,
      vrf_key: leader?.vrfKey ?? null,
      op_cert: leader ? w.bytea(leader.opCert) : null,
      op_cert_counter: leader?.counter ?? null,
    });
    if (epoch > tip.epoch) {
      yield* writeEpochBoundaries(w, { from: tip.epoch, to: epoch, blockId, slot, time });
    }
    for (let index = 0; index < txs.length; index++) {
      yield* writeTransaction(w, lookups, options.params, txs[index]!, { id: blockId, index, epoch, slot });
    }
    return {
      id: blockId,
      hash: hex.encode(hash),
      blockNo,
      slot,
      epoch,
      time,
      txIds: txs.map((t) => t.accepted.id),
    };
  }));

export { refKey };
