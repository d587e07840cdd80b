/**
 * Decoding of the identifiers clients send (spec: Endpoints; CIP-5, CIP-19, CIP-105/129): bech32 with its
 * checksum, the prefix that matches the network, and the right payload length; Byron addresses in base58 (CBOR with
 * a CRC32). Each decoder returns the decoded value or a sentence saying what is wrong, for a 400 message.
 */
import { base58, bech32, hex } from "@scure/base";
import type { Network } from "@schemas/network.ts";

export type Decoded<A> = { readonly ok: true; readonly value: A } | {
  readonly ok: false;
  readonly reason: string;
};

const ok = <A>(value: A): Decoded<A> => ({ ok: true, value });
const bad = (reason: string): Decoded<never> => ({ ok: false, reason });

const decodeBech32 = (text: string): Decoded<{ prefix: string; bytes: Uint8Array }> => {
  if (text !== text.toLowerCase() && text !== text.toUpperCase()) return bad("mixes upper and lower case");
  try {
    const { prefix, words } = bech32.decode(text.toLowerCase() as `${string}1${string}`, 1023);
    return ok({ prefix, bytes: bech32.fromWords(words) });
  } catch (e) {
    return bad(`is not valid bech32 (${e instanceof Error ? e.message.replace(/\.$/, "") : "undecodable"})`);
  }
};

/**
 * The network a bech32 id's prefix names, read as the decoders read it: case-insensitively, since an all upper
 * case bech32 string is the same string (BIP-173). Whoever checks access and whoever looks the id up both ask
 * here, so they cannot disagree.
 */
const hasPrefix = (text: string, prefix: string) => text.slice(0, prefix.length).toLowerCase() === prefix;

/** `pool_test1…` names preprod; `pool1…` names no network by itself (the ledger writes it on every one). */
export const poolIdNetwork = (text: string): Network | undefined =>
  hasPrefix(text, "pool_test1") ? "preprod" : undefined;

/** `stake_test1…` is a preprod stake address; anything else is read on mainnet (where it must be `stake1…`). */
export const stakeAddressNetwork = (text: string): Network =>
  hasPrefix(text, "stake_test1") ? "preprod" : "mainnet";

/** Pool ids: `pool1…` (28-byte key hash). On preprod the spec writes `pool_test1…`; both are accepted there. */
export const decodePoolId = (text: string, network: Network): Decoded<{ hash: string }> => {
  const d = decodeBech32(text);
  if (!d.ok) return d;
  const prefixes = network === "preprod" ? ["pool", "pool_test"] : ["pool"];
  if (!prefixes.includes(d.value.prefix)) {
    return bad(
      `has prefix ${d.value.prefix}; a ${network} pool id starts with ${
        prefixes.map((p) => `${p}1`).join(" or ")
      }`,
    );
  }
  if (d.value.bytes.length !== 28) return bad(`holds ${d.value.bytes.length} bytes; a pool id holds 28`);
  return ok({ hash: hex.encode(d.value.bytes) });
};

const stakePrefix = (network: Network) => (network === "mainnet" ? "stake" : "stake_test");
const addressPrefix = (network: Network) => (network === "mainnet" ? "addr" : "addr_test");
const networkNibble = (network: Network) => (network === "mainnet" ? 1 : 0);

/** Stake (reward) addresses: `stake1…`/`stake_test1…`, header 0xe0/0xf0 + network, 28-byte credential. */
export const decodeStakeAddress = (text: string, network: Network): Decoded<{ hashRaw: string }> => {
  const d = decodeBech32(text);
  if (!d.ok) return d;
  if (d.value.prefix !== stakePrefix(network)) {
    return bad(
      `has prefix ${d.value.prefix}; a ${network} stake address starts with ${stakePrefix(network)}1`,
    );
  }
  const bytes = d.value.bytes;
  const header = bytes[0] ?? 0;
  if (bytes.length !== 29 || (header >> 4 !== 0xe && header >> 4 !== 0xf)) {
    return bad("is not a stake address (expected a 29-byte reward address)");
  }
  if ((header & 0x0f) !== networkNibble(network)) return bad(`belongs to another network than ${network}`);
  return ok({ hashRaw: hex.encode(bytes) });
};

export type AddressType = "base" | "enterprise" | "pointer" | "reward" | "byron" | "script";

export interface DecodedAddress {
  /** The address as db-sync stores it (bech32 lower case, or base58). */
  readonly text: string;
  readonly type: AddressType;
  /** 28-byte payment credential (hex) for Shelley payment addresses; null for Byron and reward addresses. */
  readonly paymentCred: string | null;
  /** The reward address hash (hex, 29 bytes) for a `stake…` address given where an address is expected. */
  readonly stakeHashRaw: string | null;
}

const crc32 = (bytes: Uint8Array): number => {
  let c = 0xffffffff;
  for (const b of bytes) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return (c ^ 0xffffffff) >>> 0;
};

/** Byron: base58 of CBOR [tag 24 bytes(payload), crc32(payload)]; checked structurally and by CRC. */
const decodeByron = (text: string): Decoded<DecodedAddress> => {
  let raw: Uint8Array;
  try {
    raw = base58.decode(text);
  } catch {
    return bad("is neither bech32 nor base58");
  }
  // 0x82 array(2), 0xd8 0x18 tag 24, then a byte string header, payload, then the CRC as a uint
  if (raw.length < 10 || raw[0] !== 0x82 || raw[1] !== 0xd8 || raw[2] !== 0x18) {
    return bad("is not a Byron address");
  }
  const head = raw[3]!;
  let length: number, offset: number;
  if (head >= 0x40 && head <= 0x57) [length, offset] = [head - 0x40, 4];
  else if (head === 0x58) [length, offset] = [raw[4]!, 5];
  else if (head === 0x59) [length, offset] = [(raw[4]! << 8) | raw[5]!, 6];
  else return bad("is not a Byron address");
  const payload = raw.slice(offset, offset + length);
  const rest = raw.slice(offset + length);
  let crc: number | undefined;
  if (rest[0] === 0x1a && rest.length === 5) {
    crc = ((rest[1]! << 24) | (rest[2]! << 16) | (rest[3]! << 8) | rest[4]!) >>> 0;
  } else if (rest[0] === 0x19 && rest.length === 3) crc = (rest[1]! << 8) | rest[2]!;
  else if (rest[0] === 0x18 && rest.length === 2) crc = rest[1]!;
  else if (rest.length === 1 && rest[0]! < 0x18) crc = rest[0]!;
  if (crc === undefined || payload.length !== length) return bad("is not a Byron address");
  if (crc !== crc32(payload)) return bad("fails its Byron checksum");
  return ok({ text, type: "byron", paymentCred: null, stakeHashRaw: null });
};

/** Any address the explorer accepts: Shelley payment addresses, stake addresses, Byron. */
export const decodeAddress = (text: string, network: Network): Decoded<DecodedAddress> => {
  if (!/^(addr|stake)/i.test(text)) return decodeByron(text);
  const d = decodeBech32(text);
  if (!d.ok) return d;
  const { prefix, bytes } = d.value;
  if (prefix.startsWith("stake")) {
    const s = decodeStakeAddress(text, network);
    return s.ok
      ? ok({ text: text.toLowerCase(), type: "reward", paymentCred: null, stakeHashRaw: s.value.hashRaw })
      : s;
  }
  if (prefix !== addressPrefix(network)) {
    return bad(`has prefix ${prefix}; a ${network} address starts with ${addressPrefix(network)}1`);
  }
  const header = bytes[0] ?? 0xff;
  const kind = header >> 4;
  if ((header & 0x0f) !== networkNibble(network)) return bad(`belongs to another network than ${network}`);
  const expected = kind <= 3 ? 57 : kind <= 5 ? undefined : kind <= 7 ? 29 : -1;
  if (expected === -1 || (expected !== undefined && bytes.length !== expected) || bytes.length < 29) {
    return bad("is not a valid Shelley payment address (header or length)");
  }
  const type: AddressType = kind % 2 === 1
    ? "script"
    : kind <= 3
    ? "base"
    : kind <= 5
    ? "pointer"
    : "enterprise";
  return ok({
    text: text.toLowerCase(),
    type,
    paymentCred: hex.encode(bytes.slice(1, 29)),
    stakeHashRaw: null,
  });
};

/** A transaction or block hash: 64 lower-case hex characters (spec: pattern ^[a-f0-9]{64}$). */
export const isHash32 = (text: string): boolean => /^[a-f0-9]{64}$/.test(text);

/**
 * A payment credential as Blockfrost's clients send it where an address is expected: `addr_vkh1…` (Lucid writes
 * script hashes with this prefix too) or `script1…`, 28 bytes; the hash (hex) is what outputs carry as
 * payment_cred, whether a key's or a script's. Names no network.
 */
export const decodePaymentCredential = (text: string): Decoded<{ hash: string }> => {
  const d = decodeBech32(text);
  if (!d.ok) return d;
  if (d.value.prefix !== "addr_vkh" && d.value.prefix !== "script") {
    return bad(`has prefix ${d.value.prefix}; a payment credential starts with addr_vkh1 or script1`);
  }
  if (d.value.bytes.length !== 28) return bad(`holds ${d.value.bytes.length} bytes; a credential holds 28`);
  return ok({ hash: hex.encode(d.value.bytes) });
};

/** Whether text is written as a payment credential (`addr_vkh1…`, `script1…`) rather than an address. */
export const isPaymentCredentialText = (text: string): boolean => /^(addr_vkh|script)1/i.test(text);
