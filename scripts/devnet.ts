/**
 * `npm run devnet -- wallets --network mainnet|preprod`: the embedded devnet's funded test wallets, as a JSON
 * array of `{address, signingKey}` (the key as bech32 `ed25519_sk…`). The keys come from the installation's
 * seed under DATA_DIR (created on first use, never in the repository); the service funds the wallets when it
 * opens the network's embedded chain. A DATA_DIR holding no service database is refused unless `--init`.
 */
import { parseArgs } from "node:util";
import { Effect } from "effect";
import { appConfig, describeConfigError } from "@layers/config.ts";
import { networks } from "@schemas/network.ts";
import { demoNetworks } from "@src/demo_chain/network_params.ts";
import { deriveWallets, loadOrCreateSeed } from "@src/devnet/wallets/wallets.ts";
import { holdsServiceData, requireServiceDataDir, takeDataDirFlags } from "./cli_data_dir.ts";

const usage = "usage: npm run devnet -- wallets --network mainnet|preprod [--init] [--wait SECONDS]";

const { rest, ...flags } = takeDataDirFlags("devnet", Deno.args);
const { positionals, values } = parseArgs({
  args: rest,
  options: { network: { type: "string", default: "mainnet" } },
  allowPositionals: true,
});
const network = networks.find((n) => n === values.network);
if (positionals[0] !== "wallets" || positionals.length !== 1 || !network) {
  console.error(network ? usage : `devnet: unknown network ${JSON.stringify(values.network)}\n${usage}`);
  Deno.exit(2);
}
const config = await Effect.runPromise(Effect.either(appConfig));
if (config._tag === "Left") {
  console.error(`devnet: invalid configuration: ${describeConfigError(config.left)}`);
  Deno.exit(2);
}
// the wallets come from the seed in the service's DATA_DIR: one made elsewhere would name wallets nobody funds
await requireServiceDataDir("devnet", config.right.dataDir, flags, holdsServiceData);
const seed = await loadOrCreateSeed(config.right.dataDir);
const wallets = deriveWallets(seed, network, demoNetworks[network].networkId)
  .map(({ address, signingKey }) => ({ address, signingKey }));
console.log(JSON.stringify(wallets, null, 2));
