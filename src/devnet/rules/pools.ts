/**
 * Pool certificates against the protocol parameters and the known pools (the ledger's POOL rule): a registration
 * names a reward account on this network (3124, WrongNetworkPOOL) and declares a cost of at least minPoolCost
 * (3143); a retirement names a registered pool (3140) and an epoch after
 * the current one, at most maxEpoch (eMax) ahead (3142). A metadata hash over 32 bytes (3144) never gets here:
 * CML refuses to decode it, and ledger_decodable.ts answers it.
 */
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import type { SqlError } from "@effect/sql/SqlError";
import { Effect, Either } from "effect";
import { listOf } from "../decoding/cml_conversions.ts";
import * as E from "../errors.ts";
import type { LedgerView } from "./ledger_view.ts";

const poolId = (keyHash: string) => CML.Ed25519KeyHash.from_hex(keyHash).to_bech32("pool");

export const checkPoolRules = (
  body: CML.TransactionBody,
  view: LedgerView,
): Effect.Effect<Either.Either<void, E.OgmiosError>, SqlError> =>
  Effect.gen(function* () {
    const p = view.params;
    const minPoolCost = BigInt(p.row.minPoolCost);
    const registeredHere = new Set<string>();
    for (const cert of listOf(body.certs())) {
      const registration = cert.as_pool_registration()?.pool_params();
      if (registration) {
        // the ledger checks the reward account's network first (protocol version 5 on, so always here)
        if (registration.reward_account().network_id() !== view.networkId) {
          return Either.left(E.networkMismatch(
            view.networkId === 1 ? "mainnet" : "testnet",
            "stakePoolCertificate",
            [poolId(registration.operator().to_hex())],
          ));
        }
        if (registration.cost() < minPoolCost) {
          return Either.left(E.stakePoolCostTooLow(minPoolCost, registration.cost()));
        }
        registeredHere.add(registration.operator().to_hex());
      }
      const retirement = cert.as_pool_retirement();
      if (retirement) {
        const pool = retirement.pool().to_hex();
        if (!registeredHere.has(pool) && !(yield* view.poolKnown(pool))) {
          return Either.left(E.unknownStakePool(poolId(pool)));
        }
        const declared = Number(retirement.epoch());
        // the current epoch: the mempool validates against the ledger at its tip, whose parameters these are
        const current = p.epoch;
        if (declared <= current || declared > current + p.row.maxEpoch) {
          return Either.left(E.retirementTooLate(current, declared, current + p.row.maxEpoch));
        }
      }
    }
    return Either.right(undefined);
  });
