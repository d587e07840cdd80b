/**
 * The preprod devnet as the real transaction builders' Blockfrost providers see it (test/blockfrost/providers/):
 * the running service on its embedded devnet, a block a second (embedded even on the PostgreSQL pass: the devnet
 * lives only there), a PAID key, the funded wallets (addr_test1v… enterprise addresses, `ed25519_sk1…` keys, the
 * shape the providers' `fromPrivateKey` wallets take), preprod's Blockfrost base URL with the key in the header
 * or in the path, and Blockfrost's `/addresses/{a}/utxos` for checking where a payment landed.
 */
import assert from "node:assert/strict";
import { blockfrostBases } from "@schemas/blockfrost/api.ts";
import { type DevnetService, type Json, openDevnetService, sleep } from "./devnet_service.ts";

/** An unspent output as Blockfrost's `/addresses/{a}/utxos` shows it. */
export interface BfUtxo {
  readonly tx_hash: string;
  readonly output_index: number;
  readonly address: string;
  readonly amount: ReadonlyArray<{ readonly unit: string; readonly quantity: string }>;
  readonly inline_datum: string | null;
  readonly reference_script_hash: string | null;
}

export interface BlockfrostDevnet extends DevnetService {
  /** Preprod's Blockfrost base URL (`http://host:port/api/preprod/v0`), for providers that send `project_id`. */
  readonly bfBase: string;
  /** The same with the key in the path, for providers that take only a URL. */
  readonly bfKeyedBase: string;
  /** GET a path relative to preprod's Blockfrost base, with the key in `project_id`. */
  readonly bf: (path: string) => Promise<{ status: number; body: Json }>;
  /** Every unspent output at `address`, through Blockfrost's pages. */
  readonly bfUtxos: (address: string) => Promise<Array<BfUtxo>>;
  /** Polls `/addresses/{a}/utxos` until an output of `txHash` is there (30 s at most). */
  readonly landed: (address: string, txHash: string) => Promise<Array<BfUtxo>>;
}

/** The lovelace of a Blockfrost output. */
export const lovelaceOf = (u: BfUtxo): bigint =>
  BigInt(u.amount.find((a) => a.unit === "lovelace")?.quantity ?? "0");

export const openBlockfrostDevnet = async (
  label: string,
  env: Record<string, string> = {},
): Promise<BlockfrostDevnet> => {
  const s = await openDevnetService(label, { network: "preprod", embeddedChain: true, env });
  const bfBase = `${s.base}${blockfrostBases.preprod}`;
  const bf = async (path: string) => {
    const r = await fetch(`${bfBase}${path}`, { headers: { project_id: s.key } });
    const text = await r.text();
    return { status: r.status, body: text === "" ? undefined : JSON.parse(text) };
  };
  const bfUtxos = async (address: string) => {
    const all: Array<BfUtxo> = [];
    for (let page = 1;; page++) {
      const answer = await bf(`/addresses/${address}/utxos?page=${page}`);
      if (answer.status === 404) return all;
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      if (answer.body.length === 0) return all;
      all.push(...answer.body);
    }
  };
  const landed = async (address: string, txHash: string) => {
    for (let i = 0; i < 60; i++) {
      const utxos = (await bfUtxos(address)).filter((u) => u.tx_hash === txHash);
      if (utxos.length > 0) return utxos;
      await sleep(500);
    }
    assert.fail(`no output of ${txHash} at ${address} within 30 s`);
  };
  return {
    ...s,
    bfBase,
    bfKeyedBase: `${s.base}/key/${s.key}${blockfrostBases.preprod}`,
    bf,
    bfUtxos,
    landed,
  };
};
