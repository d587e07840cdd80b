/**
 * `queryLedgerState/rewardAccountSummaries`: for the given `keys` and `scripts` (28-byte hashes in hex, bech32
 * `stake_vkh1…`/`script1…`, or stake addresses), the registered accounts' pool, DRep, spendable rewards and
 * deposit, in Ogmios' shape. Unregistered accounts are left out, as the ledger has none for them.
 */
import { Effect } from "effect";
import { bech32, hex } from "@scure/base";
import { ChainDatabases } from "@layers/chain_db.ts";
import { decodeStakeAddress } from "@src/domain/cardano_ids.ts";
import { rewardAccounts } from "@src/queries/reward_accounts.ts";
import type { MethodProgram } from "../method.ts";
import { errors, type RpcError } from "../frame.ts";

const maxCredentials = 1_000;

/** A credential as the 29-byte reward address db-sync keys accounts by (header: key e0/e1, script f0/f1). */
const hashRawOf = (input: unknown, script: boolean, network: "mainnet" | "preprod"): string | RpcError => {
  if (typeof input !== "string") return errors.invalidParams("credentials must be strings");
  const header = ((script ? 0xf0 : 0xe0) | (network === "mainnet" ? 1 : 0)).toString(16);
  if (/^[0-9a-f]{56}$/.test(input)) return header + input;
  if (/^(stake|stake_test)1/.test(input)) {
    const d = decodeStakeAddress(input, network);
    return d.ok ? d.value.hashRaw : errors.invalidParams(`stake address ${input} ${d.reason}`);
  }
  if (/^(stake_vkh|script)1/.test(input)) {
    try {
      const { words } = bech32.decode(input as `${string}1${string}`, 1023);
      const bytes = bech32.fromWords(words);
      if (bytes.length === 28) return header + hex.encode(bytes);
    } catch { /* reported below */ }
    return errors.invalidParams(`credential ${input} is not a valid bech32 28-byte hash`);
  }
  return errors.invalidParams(
    `credential ${
      input.slice(0, 70)
    } must be a 28-byte hash in hex, a stake_vkh1/script1 bech32 hash or a stake address`,
  );
};

export const rewardAccountSummaries: MethodProgram = (network, params) =>
  Effect.gen(function* () {
    const keys = params?.keys ?? [];
    const scripts = params?.scripts ?? [];
    if (!Array.isArray(keys) || !Array.isArray(scripts)) {
      return yield* Effect.fail(errors.invalidParams("'keys' and 'scripts' must be arrays of credentials"));
    }
    if (keys.length + scripts.length === 0) {
      return yield* Effect.fail(errors.invalidParams("give at least one credential in 'keys' or 'scripts'"));
    }
    if (keys.length + scripts.length > maxCredentials) {
      return yield* Effect.fail(errors.invalidParams(`at most ${maxCredentials} credentials per query`));
    }
    const hashes: Array<string> = [];
    for (const [list, script] of [[keys, false], [scripts, true]] as const) {
      for (const c of list) {
        const h = hashRawOf(c, script, network);
        if (typeof h !== "string") return yield* Effect.fail(h);
        hashes.push(h);
      }
    }
    const db = (yield* ChainDatabases).get(network);
    const rows = yield* rewardAccounts(db.sql, hashes).pipe(
      Effect.mapError((e) => errors.internal(`chain database: ${e.message}`)),
    );
    return rows.filter((r) => r.registered).map((r) => ({
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
    }));
  });
