/**
 * Funded test wallets: signing keys derived from a random per-installation seed kept under DATA_DIR (never in
 * the repository, never in the generated chain, which stays the same bytes everywhere). Each wallet is one
 * ed25519 key and its enterprise address, the shape `fromPrivateKey` wallets of Lucid, Mesh and CSL use.
 */
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import { blake2b } from "@noble/hashes/blake2.js";
import { hex } from "@scure/base";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Network } from "@schemas/network.ts";

export interface DevnetWallet {
  readonly address: string;
  /** bech32 `ed25519_sk1…` (CIP-5). */
  readonly signingKey: string;
}

export interface WalletKey extends DevnetWallet {
  readonly privateKey: CML.PrivateKey;
  readonly keyHash: string;
}

export const walletCount = 4;

export const seedPath = (dataDir: string): string => join(dataDir, "devnet", "wallet-seed");

/** Reads the installation's wallet seed, creating it (32 random bytes, owner-only file) on first use. */
export const loadOrCreateSeed = async (dataDir: string): Promise<Uint8Array> => {
  const path = seedPath(dataDir);
  try {
    return hex.decode((await readFile(path, "utf8")).trim());
  } catch {
    await mkdir(join(dataDir, "devnet"), { recursive: true, mode: 0o700 });
    const seed = crypto.getRandomValues(new Uint8Array(32));
    await writeFile(path, hex.encode(seed) + "\n", { mode: 0o600, flag: "wx" }).catch(() => {});
    return hex.decode((await readFile(path, "utf8")).trim());
  }
};

/** The wallets of a network: key i = blake2b-256(seed ‖ "<network>/<i>"). */
export const deriveWallets = (
  seed: Uint8Array,
  network: Network,
  networkId: number,
  count = walletCount,
): ReadonlyArray<WalletKey> =>
  Array.from({ length: count }, (_, i) => {
    const privateKey = CML.PrivateKey.from_normal_bytes(
      blake2b(new Uint8Array([...seed, ...new TextEncoder().encode(`${network}/${i}`)]), { dkLen: 32 }),
    );
    const keyHash = privateKey.to_public().hash();
    const address = CML.EnterpriseAddress.new(networkId, CML.Credential.new_pub_key(keyHash)).to_address();
    return {
      address: address.to_bech32(),
      signingKey: privateKey.to_bech32(),
      privateKey,
      keyHash: keyHash.to_hex(),
    };
  });
