/** The Blockfrost dialect's scripts routes (schemas/blockfrost/scripts.ts): scripts and datums by hash. */
import { Effect } from "effect";
import * as scripts from "@schemas/blockfrost/scripts.ts";
import type { Route } from "@src/http/route.ts";
import { datum, script } from "@src/programs/scripts.ts";
import { serveBlockfrost } from "../endpoint.ts";

/** Found by hash, the same until a rollback takes it away: a short public cache. */
const shortCache = () => ({ "cache-control": "public, max-age=20" });

export const scriptsRoutes: ReadonlyArray<Route> = [
  ...serveBlockfrost(
    scripts.script,
    ({ path, network }) =>
      Effect.map(script(network, path.script_hash), (s) => ({
        script_hash: s.hash,
        type: s.type,
        serialised_size: s.serialisedSize,
      })),
    { headers: shortCache },
  ),
  ...serveBlockfrost(
    scripts.scriptCbor,
    ({ path, network }) =>
      Effect.map(
        script(network, path.script_hash),
        (s) => ({ cbor: s.type === "timelock" ? null : s.bytes }),
      ),
    { headers: shortCache },
  ),
  ...serveBlockfrost(
    scripts.scriptJson,
    ({ path, network }) =>
      Effect.map(script(network, path.script_hash), (s) => ({ json: s.type === "timelock" ? s.json : null })),
    { headers: shortCache },
  ),
  ...serveBlockfrost(
    scripts.datum,
    ({ path, network }) => Effect.map(datum(network, path.datum_hash), (d) => ({ json_value: d.value })),
    { headers: shortCache },
  ),
  ...serveBlockfrost(
    scripts.datumCbor,
    ({ path, network }) => Effect.map(datum(network, path.datum_hash), (d) => ({ cbor: d.bytes })),
    { headers: shortCache },
  ),
];
