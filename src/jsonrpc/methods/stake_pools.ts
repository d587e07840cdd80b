/**
 * `queryLedgerState/stakePools`: registered stake pools (optionally only `stakePools: [{id}]`, and with
 * `includeStake` the stake active this epoch) in Ogmios' StakePoolView shape, keyed by pool id.
 */
import { Effect } from "effect";
import { ChainDatabases } from "@layers/chain_db.ts";
import { decodePoolId } from "@src/domain/cardano_ids.ts";
import { toRatio } from "@src/domain/ratio.ts";
import { type StakePoolRow, stakePools as query } from "@src/queries/stake_pools.ts";
import type { MethodProgram } from "../method.ts";
import { errors } from "../frame.ts";

const ada = (lovelace: string) => ({ ada: { lovelace: BigInt(lovelace) } });

export const toStakePoolView = (p: StakePoolRow) => ({
  id: p.id,
  vrfVerificationKeyHash: p.vrf,
  owners: p.owners ?? [],
  cost: ada(p.cost),
  margin: toRatio(p.margin),
  pledge: ada(p.pledge),
  rewardAccount: p.rewardAccount,
  ...(p.metadataUrl && p.metadataHash ? { metadata: { url: p.metadataUrl, hash: p.metadataHash } } : {}),
  relays: (p.relays ?? []).map((r) =>
    r.dns ? { type: "hostname", hostname: r.dns, ...(r.port === null ? {} : { port: r.port }) } : {
      type: "ipAddress",
      ...(r.ipv4 ? { ipv4: r.ipv4 } : {}),
      ...(r.ipv6 ? { ipv6: r.ipv6 } : {}),
      ...(r.port === null ? {} : { port: r.port }),
    }
  ),
  ...(p.stake === null ? {} : { stake: ada(p.stake) }),
});

export const stakePools: MethodProgram = (network, params) =>
  Effect.gen(function* () {
    const includeStake = params?.includeStake ?? false;
    if (typeof includeStake !== "boolean") {
      return yield* Effect.fail(errors.invalidParams("'includeStake' must be a boolean"));
    }
    let hashes: Array<string> | null = null;
    if (params?.stakePools !== undefined) {
      if (!Array.isArray(params.stakePools)) {
        return yield* Effect.fail(errors.invalidParams("'stakePools' must be an array of {id: pool1...}"));
      }
      hashes = [];
      for (const entry of params.stakePools) {
        const id = (entry as { id?: unknown })?.id;
        const decoded = typeof id === "string" ? decodePoolId(id, network) : undefined;
        if (!decoded?.ok) {
          return yield* Effect.fail(errors.invalidParams(
            `stake pool id ${JSON.stringify(id)} ${
              decoded && !decoded.ok ? decoded.reason : "must be a bech32 pool id"
            }`,
          ));
        }
        hashes.push(decoded.value.hash);
      }
    }
    const db = (yield* ChainDatabases).get(network);
    const rows = yield* query(db.sql, { hashes, includeStake }).pipe(
      Effect.mapError((e) => errors.internal(`chain database: ${e.message}`)),
    );
    return Object.fromEntries(rows.map((p) => [p.id, toStakePoolView(p)]));
  });
