/**
 * `queryLedgerState/rewardAccountSummaries`: for the given `keys` and `scripts` (28-byte hashes in hex, bech32
 * `stake_vkh1…`/`script1…`, or stake addresses), the registered accounts' pool, DRep, spendable rewards and
 * deposit, in Ogmios' shape. Unregistered accounts are left out, as the ledger has none for them.
 */
import { Effect, Either, Schema } from "effect";
import { bech32, hex } from "@scure/base";
import type { Network } from "@schemas/network.ts";
import { decodeStakeAddress } from "@src/domain/cardano_ids.ts";
import { registeredRewardAccounts } from "@src/programs/ledger/reward_accounts.ts";
import type { MethodProgram } from "../method.ts";
import { checked, paramsDecoder } from "../params.ts";

const maxCredentials = 1_000;

/** A credential as the 29-byte reward address db-sync keys accounts by (header: key e0/e1, script f0/f1). */
const hashRawOf = (input: unknown, script: boolean, network: Network) => {
  if (typeof input !== "string") return Either.left("credentials must be strings");
  const header = ((script ? 0xf0 : 0xe0) | (network === "mainnet" ? 1 : 0)).toString(16);
  if (/^[0-9a-f]{56}$/.test(input)) return Either.right(header + input);
  // bech32 in upper case is the same string (BIP-173): read it as the decoders do
  if (/^(stake|stake_test)1/i.test(input)) {
    const d = decodeStakeAddress(input, network);
    return d.ok ? Either.right(d.value.hashRaw) : Either.left(`stake address ${input} ${d.reason}`);
  }
  if (/^(stake_vkh|script)1/i.test(input)) {
    try {
      const { words } = bech32.decode(input as `${string}1${string}`, 1023); // all upper case decodes too
      const bytes = bech32.fromWords(words);
      if (bytes.length === 28) return Either.right(header + hex.encode(bytes));
    } catch { /* reported below */ }
    return Either.left(`credential ${input} is not a valid bech32 28-byte hash`);
  }
  return Either.left(
    `credential ${
      input.slice(0, 70)
    } must be a 28-byte hash in hex, a stake_vkh1/script1 bech32 hash or a stake address`,
  );
};

const list = Schema.optionalWith(
  Schema.Array(Schema.Unknown).annotations({
    message: () => "'keys' and 'scripts' must be arrays of credentials",
  }),
  { default: () => [], nullable: true },
);

/** First the lists and their sizes, then each credential, keys before scripts. */
const paramsFor = (network: Network) =>
  paramsDecoder(Schema.compose(
    Schema.Struct({ keys: list, scripts: list }).pipe(
      Schema.filter(({ keys, scripts }) =>
        keys.length + scripts.length === 0
          ? "give at least one credential in 'keys' or 'scripts'"
          : keys.length + scripts.length > maxCredentials
          ? `at most ${maxCredentials} credentials per query`
          : true
      ),
    ),
    Schema.Struct({
      keys: Schema.Array(checked((c) => hashRawOf(c, false, network))),
      scripts: Schema.Array(checked((c) => hashRawOf(c, true, network))),
    }),
  ));

const params = { mainnet: paramsFor("mainnet"), preprod: paramsFor("preprod") };

export const rewardAccountSummaries: MethodProgram = (network, raw) =>
  params[network](raw).pipe(
    Effect.flatMap(({ keys, scripts }) => registeredRewardAccounts(network, [...keys, ...scripts])),
    Effect.map((rows) =>
      rows.map((r) => ({
        from: r.hashRaw.startsWith("f") ? "script" : "verificationKey",
        credential: r.hashRaw.slice(2),
        ...(r.poolId ? { stakePool: { id: r.poolId } } : {}),
        ...(r.drepView === "drep_always_abstain"
          ? { delegateRepresentative: { type: "abstain" } }
          : r.drepView === "drep_always_no_confidence"
          ? { delegateRepresentative: { type: "noConfidence" } }
          : r.drepRaw
          ? {
            delegateRepresentative: {
              type: "registered",
              id: r.drepRaw,
              from: r.drepHasScript ? "script" : "verificationKey",
            },
          }
          : {}),
        rewards: { ada: { lovelace: BigInt(r.rewards) } },
        deposit: { ada: { lovelace: BigInt(r.deposit ?? "0") } },
      }))
    ),
  );
