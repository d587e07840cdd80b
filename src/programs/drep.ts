/**
 * One DRep by its id (src/domain/drep_id.ts: CIP-129 or CIP-105 bech32, or hex), as the DRep list reads it
 * (./explorer_dreps.ts over src/queries/dreps.ts, restricted to that DRep). A DRep that never registered is not
 * found; a 28-byte hex id that is both a key and a script DRep's names the first registered.
 */
import { Effect } from "effect";
import type { Network } from "@schemas/network.ts";
import { decodeDRepId } from "@src/domain/drep_id.ts";
import { decodedOr, NotFoundError } from "@src/domain/errors.ts";
import { dreps } from "./explorer_dreps.ts";

export const drep = Effect.fnUntraced(function* (network: Network, id: string) {
  const only = yield* decodedOr("drep_id", decodeDRepId(id));
  const page = yield* dreps(network, { page: 1, pageSize: 1, activeOnly: false, registeredOnly: true, only });
  const found = page.data[0];
  if (!found) {
    return yield* new NotFoundError({ message: `The DRep ${id} has never registered on ${network}` });
  }
  return found;
});
