/**
 * The Blockfrost-compatible dialect's contract: every endpoint with its parameters and answers, grouped as
 * Blockfrost groups them, paths relative to a network's base URL (`/api/v0` on mainnet, `/api/preprod/v0` on
 * preprod; either prefixed with `/key/{key}` for clients that take only a base URL). src/blockfrost/ serves these
 * declarations and derives `/blockfrost/openapi.json` from them, as schemas/api.ts does for our own dialects.
 */
import * as HttpApi from "@effect/platform/HttpApi";
import * as OpenApi from "@effect/platform/OpenApi";
import { AccountsGroup } from "./accounts.ts";
import { AddressesGroup } from "./addresses.ts";
import { ChainGroup } from "./chain.ts";
import { PoolsGroup } from "./pools.ts";
import { ScriptsGroup } from "./scripts.ts";
import { TransactionsGroup } from "./transactions.ts";
import { UtilsGroup } from "./utils.ts";
import { BfBadRequest, BfForbidden, BfNotFound, BfServiceUnavailable, BfTooManyRequests } from "./wire.ts";

/** Each network's base URL: the paths below are relative to it. */
export const blockfrostBases = { mainnet: "/api/v0", preprod: "/api/preprod/v0" } as const;

/** The prefix that carries the key in the URL path (`/key/{key}/api/v0/…`). */
export const keyInPathPrefix = "/key/";

export class BlockfrostApi extends HttpApi.make("blockfrost")
  .add(ChainGroup)
  .add(AddressesGroup)
  .add(TransactionsGroup)
  .add(AccountsGroup)
  .add(ScriptsGroup)
  .add(PoolsGroup)
  .add(UtilsGroup)
  .addError(BfBadRequest)
  .addError(BfForbidden)
  .addError(BfNotFound)
  .addError(BfTooManyRequests)
  .addError(BfServiceUnavailable)
  .annotateContext(OpenApi.annotations({
    title: "Cardano data service: the Blockfrost-compatible API",
    version: "0.1.0",
    description:
      "Blockfrost's paths and shapes over the same programs as the service's own API. The key goes in " +
      "the `project_id` header (or `apikey`), or in the path: `/key/{key}/api/v0/…`.",
  })) {}
