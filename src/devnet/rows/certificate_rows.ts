/**
 * Certificate rows as db-sync writes them: stake_registration, stake_deregistration, delegation,
 * delegation_vote (Conway's combined certificates give several rows with one cert_index), pool_hash,
 * pool_update, pool_owner, pool_relay, pool_metadata_ref, pool_retire, drep_registration (with its anchor in
 * voting_anchor), committee_registration and committee_de_registration.
 */
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import { hex } from "@scure/base";
import { Effect } from "effect";
import { listOf } from "../decoding/cml_conversions.ts";
import type { Lookups } from "./chain_lookups.ts";
import type { LedgerParams } from "../rules/ledger_view.ts";
import { anchorOf, credOf } from "../governance/parts.ts";
import { certificateCredential } from "../decoding/tx_parts.ts";
import { type RowWriter, text } from "./row_writer.ts";

export const writeCertificate = (
  w: RowWriter,
  lookups: Lookups,
  params: LedgerParams,
  cert: CML.Certificate,
  at: {
    txId: number;
    certIndex: number;
    epoch: number;
    slot: number;
    redeemerId: number | null;
    blockId: number;
  },
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
      const anchor = (cert.as_reg_drep_cert() ?? cert.as_update_drep_cert())?.anchor();
      yield* w.add("drep_registration", {
        ...base,
        deposit: deposit === null ? null : text(deposit),
        drep_hash_id: drepId,
        voting_anchor_id: anchor ? yield* lookups.votingAnchor(anchorOf(anchor), "drep", at.blockId) : null,
      });
    }
    const auth = cert.as_auth_committee_hot_cert();
    if (auth) {
      yield* w.add("committee_registration", {
        ...base,
        cold_key_id: yield* lookups.committeeHash(credOf(auth.committee_cold_credential())),
        hot_key_id: yield* lookups.committeeHash(credOf(auth.committee_hot_credential())),
      });
    }
    const resign = cert.as_resign_committee_cold_cert();
    if (resign) {
      const anchor = resign.anchor();
      yield* w.add("committee_de_registration", {
        ...base,
        voting_anchor_id: anchor
          ? yield* lookups.votingAnchor(anchorOf(anchor), "committee_dereg", at.blockId)
          : null,
        cold_key_id: yield* lookups.committeeHash(credOf(resign.committee_cold_credential())),
      });
    }
  });
