/**
 * Cardano encodings for the demo chain, through a real Cardano library (CML) where one exists: CIP-19 addresses
 * (bech32 with the network's prefix, base58 for Byron), script hashes, datum and metadata CBOR. Bech32 ids CML
 * has no constructor for (asset fingerprints, VRF keys) follow their CIPs with @scure/base and @noble/hashes.
 */
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import { bech32, hex } from "@scure/base";
import { blake2b } from "@noble/hashes/blake2.js";

const keyHash = (h: string) => CML.Ed25519KeyHash.from_hex(h);
const credential = (h: string, script: boolean) =>
  script ? CML.Credential.new_script(CML.ScriptHash.from_hex(h)) : CML.Credential.new_pub_key(keyHash(h));

/** Base address: payment key or script + stake key (CIP-19 types 0 and 1). */
export const baseAddress = (
  networkId: number,
  payment: string,
  paymentIsScript: boolean,
  stake: string,
): string =>
  CML.BaseAddress.new(networkId, credential(payment, paymentIsScript), credential(stake, false))
    .to_address().to_bech32();

/** Enterprise address: payment part only (types 6 and 7). */
export const enterpriseAddress = (networkId: number, payment: string, paymentIsScript: boolean): string =>
  CML.EnterpriseAddress.new(networkId, credential(payment, paymentIsScript)).to_address().to_bech32();

/** CIP-19 variable-length natural: big-endian 7-bit groups, high bit set on all but the last. */
const varNat = (n: number): Array<number> => {
  const out = [n & 0x7f];
  for (n = Math.floor(n / 128); n > 0; n = Math.floor(n / 128)) out.unshift((n & 0x7f) | 0x80);
  return out;
};

/** Pointer address (type 4): payment key + a pointer (slot, tx index, cert index) to a stake registration. */
export const pointerAddress = (
  networkId: number,
  payment: string,
  pointer: { slot: number; txIndex: number; certIndex: number },
): string => {
  const raw = [0x40 | networkId, ...hex.decode(payment), ...varNat(pointer.slot), ...varNat(pointer.txIndex)];
  raw.push(...varNat(pointer.certIndex));
  return CML.Address.from_raw_bytes(new Uint8Array(raw)).to_bech32();
};

/** Byron (Icarus-style) addresses, base58, derived from one root key so they are cheap and deterministic. */
export const byronAddresses = (protocolMagic: number, entropy: Uint8Array, count: number): Array<string> => {
  const root = CML.Bip32PrivateKey.from_bip39_entropy(entropy, new Uint8Array());
  const magic = CML.ProtocolMagic.new(protocolMagic);
  return Array.from(
    { length: count },
    (_, i) => CML.AddressContent.icarus_from_key(root.derive(i).to_public(), magic).to_address().to_base58(),
  );
};

/** Reward (stake) address: `view` is bech32 stake1/stake_test1, `hashRaw` the 29 bytes db-sync stores. */
export const rewardAddress = (networkId: number, stake: string, isScript = false) => {
  const address = CML.RewardAddress.new(networkId, credential(stake, isScript)).to_address();
  return { view: address.to_bech32(), hashRaw: address.to_hex() };
};

export const poolIdBech32 = (poolHash: string): string => keyHash(poolHash).to_bech32("pool");
/** CIP-105 DRep id as db-sync's `drep_hash.view` writes it: `drep1` + the 28-byte credential hash. */
export const drepIdBech32 = (drepHash: string): string => keyHash(drepHash).to_bech32("drep");

/** CIP-14 asset fingerprint: bech32 `asset` of blake2b-160(policy ‖ name). */
export const assetFingerprint = (policy: string, name: string): string =>
  bech32.encode("asset", bech32.toWords(blake2b(hex.decode(policy + name), { dkLen: 20 })));

export const vrfKeyBech32 = (vrfKey: string): string =>
  bech32.encode("vrf_vk", bech32.toWords(hex.decode(vrfKey)));

export const blake2b256 = (bytes: Uint8Array): string => hex.encode(blake2b(bytes, { dkLen: 32 }));
export const blake2b224 = (bytes: Uint8Array): string => hex.encode(blake2b(bytes, { dkLen: 28 }));

/** A native script requiring one key's signature (the usual minting policy): hash, CBOR and db-sync JSON. */
export const signaturePolicy = (keyHashHex: string) => {
  const script = CML.NativeScript.new_script_pubkey(keyHash(keyHashHex));
  const cbor = script.to_cbor_hex();
  return {
    hash: script.hash().to_hex(),
    cbor,
    size: cbor.length / 2,
    json: { type: "sig", keyHash: keyHashHex },
  };
};

/** A Plutus V2 script from its flat bytes (CBOR-wrapped as on chain): hash and size. */
export const plutusV2Script = (cborHex: string) => {
  const script = CML.PlutusV2Script.from_cbor_hex(cborHex);
  return {
    hash: script.hash().to_hex(),
    bytes: hex.encode(script.to_raw_bytes()),
    size: script.to_raw_bytes().length,
  };
};

export const plutusV3Script = (cborHex: string) => {
  const script = CML.PlutusV3Script.from_cbor_hex(cborHex);
  return {
    hash: script.hash().to_hex(),
    bytes: hex.encode(script.to_raw_bytes()),
    size: script.to_raw_bytes().length,
  };
};

/** Plutus data from cardano-node's detailed JSON schema: its CBOR, hash, and the JSON db-sync stores. */
export const plutusData = (detailedJson: unknown) => {
  const data = CML.encode_json_str_to_plutus_datum(
    JSON.stringify(detailedJson),
    CML.CardanoNodePlutusDatumSchema.DetailedSchema,
  );
  return { hash: CML.hash_plutus_data(data).to_hex(), cbor: data.to_cbor_hex(), json: detailedJson };
};

/** Transaction metadata value (no-schema JSON, as wallets write it): its CBOR bytes. */
export const metadatumCbor = (json: unknown): string =>
  hex.encode(
    CML.encode_json_str_to_metadatum(JSON.stringify(json), CML.MetadataJsonSchema.NoConversions)
      .to_cbor_bytes(),
  );
