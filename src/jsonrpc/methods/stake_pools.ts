/**
 * `queryLedgerState/stakePools`: registered stake pools (optionally only `stakePools: [{id}]`, and with
 * `includeStake` the stake active this epoch) in Ogmios' StakePoolView shape, keyed by pool id.
 */
import { Effect, Either, Schema } from "effect";
import type { Network } from "@schemas/network.ts";
import { decodePoolId } from "@src/domain/cardano_ids.ts";
import { toRatio } from "@src/domain/ratio.ts";
import type { StakePoolRow } from "@src/queries/stake_pools.ts";
import { registeredStakePools } from "@src/programs/ledger/stake_pools.ts";
import type { MethodProgram } from "../method.ts";
import { arrayOf, checked, paramsDecoder } from "../params.ts";

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

/** A pool id (bech32 pool1…, or pool_test1… on preprod), as the pool's key hash. */
const poolId = (network: Network) =>
  checked((id) => {
    const decoded = typeof id === "string" ? decodePoolId(id, network) : undefined;
    return decoded?.ok ? Either.right(decoded.value.hash) : Either.left(
      `stake pool id ${JSON.stringify(id)} ${
        decoded && !decoded.ok ? decoded.reason : "must be a bech32 pool id"
      }`,
    );
  });

/** `{id}`; an entry that is no object, or has no id, has an undefined id. */
const noId = "stake pool id undefined must be a bech32 pool id";
const poolEntry = (network: Network) =>
  Schema.Struct({ id: Schema.propertySignature(poolId(network)).annotations({ missingMessage: () => noId }) })
    .annotations({ message: () => noId });

const paramsFor = (network: Network) =>
  paramsDecoder(Schema.Struct({
    includeStake: Schema.optionalWith(
      Schema.Boolean.annotations({ message: () => "'includeStake' must be a boolean" }),
      { default: () => false, nullable: true },
    ),
    stakePools: Schema.optional(arrayOf(
      Schema.transform(poolEntry(network), Schema.String, {
        strict: true,
        decode: (entry) => entry.id,
        encode: (id) => ({ id }),
      }),
      { notArray: "'stakePools' must be an array of {id: pool1...}", allowEmpty: true },
    )),
  }));

const params = { mainnet: paramsFor("mainnet"), preprod: paramsFor("preprod") };

export const stakePools: MethodProgram = (network, raw) =>
  params[network](raw).pipe(
    Effect.flatMap((p) =>
      registeredStakePools(network, { hashes: p.stakePools ?? null, includeStake: p.includeStake })
    ),
    Effect.map((rows) => Object.fromEntries(rows.map((p) => [p.id, toStakePoolView(p)]))),
  );
