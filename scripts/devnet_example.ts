/**
 * The devnet end to end with a real transaction library, as a dApp would use it (the README walks through it):
 * take two funded wallets from `npm run devnet -- wallets`, build and sign a payment with
 * cardano-serialization-lib, evaluate and submit it with the official Ogmios client through the service's
 * `/v1/ogmios`, then poll `/api/public/tx-status` until the transaction is in a block.
 *
 *   APIKEY=… npm run devnet:example     # the service at SERVICE_URL, else http://HOST:PORT (as npm start reads
 *                                       # them: 127.0.0.1, 3000); NETWORK (mainnet); DATA_DIR as the service's
 *
 * The helpers it exports (CSL's builder configuration and cost models from Ogmios' protocol parameters, the
 * devnet's wallets) are the ones the end-to-end tests build with.
 */
import * as CSL from "@emurgo/cardano-serialization-lib-nodejs";
import process from "node:process";
import { reachService, serviceUrl } from "./service_url.ts";

/** Ogmios' protocol parameters, the fields a transaction builder needs (numbers may arrive as bigints). */
export interface OgmiosProtocolParameters {
  readonly minFeeCoefficient: number | bigint;
  readonly minFeeConstant: { readonly ada: { readonly lovelace: number | bigint } };
  readonly minUtxoDepositCoefficient: number | bigint;
  readonly stakePoolDeposit: { readonly ada: { readonly lovelace: number | bigint } };
  readonly stakeCredentialDeposit: { readonly ada: { readonly lovelace: number | bigint } };
  readonly maxValueSize: { readonly bytes: number | bigint };
  readonly maxTransactionSize: { readonly bytes: number | bigint };
  readonly scriptExecutionPrices: { readonly memory: string; readonly cpu: string };
  readonly minFeeReferenceScripts: { readonly base: number };
  readonly plutusCostModels: Readonly<Record<string, ReadonlyArray<number | bigint>>>;
}

export interface DevnetWallet {
  readonly address: string;
  /** bech32 `ed25519_sk…` */
  readonly signingKey: string;
}

export const big = (n: bigint | number | string) => CSL.BigNum.from_str(String(n));

const ratio = (text: string) => {
  const [n, d] = text.split("/");
  return CSL.UnitInterval.new(big(n!), big(d ?? "1"));
};

/** CSL's transaction builder configured from the ledger's current protocol parameters. */
export const cslConfig = (pp: OgmiosProtocolParameters) =>
  CSL.TransactionBuilderConfigBuilder.new()
    .fee_algo(CSL.LinearFee.new(big(pp.minFeeCoefficient), big(pp.minFeeConstant.ada.lovelace)))
    .coins_per_utxo_byte(big(pp.minUtxoDepositCoefficient))
    .pool_deposit(big(pp.stakePoolDeposit.ada.lovelace))
    .key_deposit(big(pp.stakeCredentialDeposit.ada.lovelace))
    .max_value_size(Number(pp.maxValueSize.bytes))
    .max_tx_size(Number(pp.maxTransactionSize.bytes))
    .ex_unit_prices(
      CSL.ExUnitPrices.new(ratio(pp.scriptExecutionPrices.memory), ratio(pp.scriptExecutionPrices.cpu)),
    )
    .ref_script_coins_per_byte(ratio(String(pp.minFeeReferenceScripts.base)))
    .build();

/** The cost models a script data hash commits to, from Ogmios' `plutus:v1`/`v2`/`v3` arrays. */
export const cslCostModels = (pp: OgmiosProtocolParameters) => {
  const models = CSL.Costmdls.new();
  const languages: Record<string, () => CSL.Language> = {
    "plutus:v1": CSL.Language.new_plutus_v1,
    "plutus:v2": CSL.Language.new_plutus_v2,
    "plutus:v3": CSL.Language.new_plutus_v3,
  };
  for (const [name, costs] of Object.entries(pp.plutusCostModels)) {
    const model = CSL.CostModel.new();
    costs.forEach((cost, i) => model.set(i, CSL.Int.from_str(String(cost))));
    models.insert(languages[name]!(), model);
  }
  return models;
};

/** The devnet's funded wallets, as `npm run devnet -- wallets` prints them (same DATA_DIR as the service). */
export const devnetWallets = async (
  network: string,
  env: Record<string, string> = {},
): Promise<Array<DevnetWallet>> => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL("./devnet.ts", import.meta.url).pathname, "wallets", "--network", network],
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (out.code !== 0) throw new Error(new TextDecoder().decode(out.stderr).trim().split("\n")[0]);
  return JSON.parse(new TextDecoder().decode(out.stdout));
};

const main = async () => {
  const service = serviceUrl();
  const network = Deno.env.get("NETWORK") ?? "mainnet";
  const apikey = Deno.env.get("APIKEY");
  if (!apikey) throw new Error("set APIKEY (create one with `npm run keys -- create --tier paid`)");
  const ogmios = `${service}/v1${network === "mainnet" ? "" : `/${network}`}/ogmios`;

  await reachService(service);
  const [payer, payee] = await devnetWallets(network);
  // loaded once the service is known to answer; it imports node's deprecated punycode, a warning not ours to show
  process.noDeprecation = true;
  const { createInteractionContext, createLedgerStateQueryClient, createTransactionSubmissionClient } =
    await import("@cardano-ogmios/client");
  // a connection lost midway fails the awaited call below, which says so in one line
  const context = await createInteractionContext(() => {}, () => {}, {
    connection: { address: { http: ogmios, webSocket: `${ogmios.replace(/^http/, "ws")}?apikey=${apikey}` } },
  });
  const ledger = await createLedgerStateQueryClient(context);
  const submission = await createTransactionSubmissionClient(context);
  try {
    // the payer's largest unspent output pays 5 ada; CSL balances the rest back as change
    const pp = (await ledger.protocolParameters()) as unknown as OgmiosProtocolParameters;
    const [input] = (await ledger.utxo({ addresses: [payer!.address] }))
      .sort((a, b) => Number(BigInt(b.value.ada.lovelace) - BigInt(a.value.ada.lovelace)));
    if (!input) throw new Error(`${payer!.address} has nothing to spend`);
    const builder = CSL.TransactionBuilder.new(cslConfig(pp));
    builder.add_regular_input(
      CSL.Address.from_bech32(payer!.address),
      CSL.TransactionInput.new(CSL.TransactionHash.from_hex(input.transaction.id), input.index),
      CSL.Value.new(big(input.value.ada.lovelace)),
    );
    builder.add_output(
      CSL.TransactionOutput.new(CSL.Address.from_bech32(payee!.address), CSL.Value.new(big(5_000_000))),
    );
    builder.add_change_if_needed(CSL.Address.from_bech32(payer!.address));
    const tx = CSL.FixedTransaction.from_bytes(builder.build_tx().to_bytes());
    tx.sign_and_add_vkey_signature(CSL.PrivateKey.from_bech32(payer!.signingKey));

    console.error(`evaluate: ${JSON.stringify(await submission.evaluateTransaction(tx.to_hex()))}`);
    const id = await submission.submitTransaction(tx.to_hex());
    const submitted = performance.now();
    console.error(`submitted ${id}; waiting for a block`);
    // a block every DEVNET_BLOCK_SECONDS (5 by default): a minute is ample
    while (performance.now() - submitted < 60_000) {
      const status = await (await fetch(`${service}/api/public/tx-status?txHash=${id}&network=${network}`, {
        headers: { apikey },
      })).json();
      if (status.found) {
        const seconds = ((performance.now() - submitted) / 1000).toFixed(1);
        console.log(JSON.stringify({ id, blockNo: status.blockNo, fee: status.fee, seconds }));
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    throw new Error(`${id} is not in a block after 60 s`);
  } finally {
    await submission.shutdown().catch(() => {});
    await ledger.shutdown().catch(() => {});
  }
};

/** What went wrong, in one line (no stack trace): the message of an Error, the JSON of anything else. */
const oneLine = (error: unknown): string => {
  const text = error instanceof Error ? error.message : JSON.stringify(error) ?? String(error);
  return text.split("\n")[0]!;
};

if (import.meta.main) {
  try {
    await main();
  } catch (error) {
    console.error(`devnet:example: ${oneLine(error)}`);
    Deno.exit(1);
  }
}
