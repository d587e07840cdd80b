/**
 * The running service on its embedded default with a block a second, as the devnet end-to-end tests use it: a
 * PAID key, the funded wallets the CLI prints, the official Ogmios client, a raw chain-sync socket, CSL's builder
 * configured from the ledger's protocol parameters, and the small HTTP helpers every step needs. All of them
 * speak to one network's devnet: mainnet unless `network` says preprod (its `/v1/preprod/…` paths, tx-status
 * with `network=preprod`); `env` adds to the service's environment (LOG_LEVEL, say).
 */
import assert from "node:assert/strict";
import type * as CSL from "@emurgo/cardano-serialization-lib-nodejs";
import { createInteractionContext, createTransactionSubmissionClient } from "@cardano-ogmios/client";
import {
  cslConfig,
  cslCostModels,
  type DevnetWallet,
  devnetWallets,
  type OgmiosProtocolParameters,
} from "../../scripts/devnet_example.ts";
import { startService } from "./service.ts";
import { createKey, createTestEnvironment } from "./environment.ts";
import { connect, type RawSocket } from "./ogmios_ws.ts";
import type { Network } from "@schemas/network.ts";

/** A JSON answer as the service sent it (the tests assert its shape). */
// deno-lint-ignore no-explicit-any
export type Json = any;

export interface OgmiosUtxo {
  readonly transaction: { readonly id: string };
  readonly index: number;
  readonly address: string;
  readonly value: { readonly ada: { readonly lovelace: number } } & Record<string, Record<string, number>>;
}

export interface TxStatus {
  readonly found: boolean;
  readonly blockNo: number | null;
  readonly fee: string | null;
}

export interface DevnetService {
  readonly network: Network;
  readonly base: string;
  readonly key: string;
  /** DATA_DIR and the rest of the service's environment, for subprocesses (CLI, example script). */
  readonly env: Record<string, string>;
  readonly lines: ReadonlyArray<string>;
  readonly wallets: ReadonlyArray<DevnetWallet>;
  readonly client: Awaited<ReturnType<typeof createTransactionSubmissionClient>>;
  /** A raw WebSocket on the network's Ogmios path for chain sync. */
  readonly sync: RawSocket;
  readonly protocolParameters: OgmiosProtocolParameters;
  readonly config: CSL.TransactionBuilderConfig;
  readonly costModels: CSL.Costmdls;
  readonly get: (path: string) => Promise<{ status: number; body: Json }>;
  readonly post: (path: string, body: unknown) => Promise<{ status: number; body: Json }>;
  readonly rpc: (method: string, params?: unknown) => Promise<Json>;
  readonly graphql: (query: string) => Promise<Json>;
  /** The address's unspent outputs, largest first. */
  readonly utxosOf: (address: string) => Promise<Array<OgmiosUtxo>>;
  /** Polls tx-status until the transaction is in a block (30 s at most). */
  readonly confirmed: (id: string) => Promise<TxStatus>;
  /** Moves the chain-sync session to the tip, so its next forward blocks are the ones made from now on. */
  readonly syncFromTip: () => Promise<void>;
  /** Rolls the chain-sync session forward until a block holds `id`; gives that transaction as Ogmios shows it. */
  readonly syncUntil: (id: string) => Promise<Json>;
  readonly close: () => Promise<void>;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const openDevnetService = async (
  label: string,
  options: {
    readonly network?: Network;
    readonly env?: Record<string, string>;
    /**
     * The network's chain embedded even with TEST_DATABASE_URL (the service database and Redis stay real
     * servers): the devnet lives only there. Its first start seeds it.
     */
    readonly embeddedChain?: boolean;
  } = {},
): Promise<DevnetService> => {
  const network = options.network ?? "mainnet";
  // mainnet's paths have no network segment
  const prefix = network === "mainnet" ? "/v1" : `/v1/${network}`;
  const environment = await createTestEnvironment(label);
  const env: Record<string, string> = { ...environment.env, DEVNET_BLOCK_SECONDS: "1", ...options.env };
  if (options.embeddedChain) delete env[`${network.toUpperCase()}_DATABASE_URL`];
  // an embedded chain is seeded on its first start: minutes on a loaded machine
  const service = await startService(env, options.embeddedChain ? 360_000 : undefined);
  const { key } = await createKey(env, "--tier", "paid", "--name", label);
  const headers = { apikey: key, "content-type": "application/json" };
  const get = async (path: string) => {
    const r = await fetch(`${service.base}${path}`, { headers });
    return { status: r.status, body: await r.json() };
  };
  const post = async (path: string, body: unknown) => {
    const r = await fetch(`${service.base}${path}`, { method: "POST", headers, body: JSON.stringify(body) });
    return { status: r.status, body: await r.json() };
  };
  const rpc = async (method: string, params?: unknown) =>
    (await post(`${prefix}/ogmios`, { jsonrpc: "2.0", method, ...(params ? { params } : {}), id: 1 })).body;
  const graphql = async (query: string) => {
    const answer = await post(`${prefix}/graphql`, { query });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.errors, undefined, JSON.stringify(answer.body.errors));
    return answer.body.data;
  };
  const ws = `${service.base.replace("http", "ws")}${prefix}/ogmios?apikey=${key}`;
  const context = await createInteractionContext(() => {}, () => {}, {
    connection: { address: { http: `${service.base}${prefix}/ogmios`, webSocket: ws } },
  });
  const client = await createTransactionSubmissionClient(context);
  const sync = await connect(ws);
  const protocolParameters = (await rpc("queryLedgerState/protocolParameters")).result;

  const utxosOf = async (address: string) =>
    ((await rpc("queryLedgerState/utxo", { addresses: [address] })).result as Array<OgmiosUtxo>)
      .sort((a, b) => b.value.ada.lovelace - a.value.ada.lovelace);
  const confirmed = async (id: string) => {
    let status: TxStatus | undefined;
    for (let i = 0; i < 60 && !status?.found; i++) {
      if (i > 0) await sleep(500);
      status = (await get(`/api/public/tx-status?txHash=${id}&network=${network}`)).body;
    }
    assert.equal(status?.found, true, `${id} confirmed within 30 s`);
    return status!;
  };
  const syncFromTip = async () => {
    sync.send({ jsonrpc: "2.0", method: "findIntersection", params: { points: ["origin"] }, id: 1 });
    const tip = (await sync.next()).result.tip;
    sync.send({
      jsonrpc: "2.0",
      method: "findIntersection",
      params: { points: [{ slot: tip.slot, id: tip.id }] },
      id: 2,
    });
    assert.deepEqual((await sync.next()).result.intersection, { slot: tip.slot, id: tip.id });
    // the first reply after an intersection rolls back to it
    sync.send({ jsonrpc: "2.0", method: "nextBlock" });
    assert.equal((await sync.next()).result.direction, "backward");
  };
  const syncUntil = async (id: string) => {
    for (let i = 0; i < 60; i++) {
      sync.send({ jsonrpc: "2.0", method: "nextBlock" });
      const reply = (await sync.next(20_000)).result;
      assert.equal(reply.direction, "forward");
      const found = reply.block.transactions.find((x: { id: string }) => x.id === id);
      if (found) return found;
    }
    assert.fail(`no forward block holds ${id}`);
  };
  return {
    network,
    base: service.base,
    key,
    env,
    lines: service.lines,
    wallets: await devnetWallets(network, { DATA_DIR: env.DATA_DIR! }),
    client,
    sync,
    protocolParameters,
    config: cslConfig(protocolParameters),
    costModels: cslCostModels(protocolParameters),
    get,
    post,
    rpc,
    graphql,
    utxosOf,
    confirmed,
    syncFromTip,
    syncUntil,
    close: async () => {
      sync.close();
      await client.shutdown().catch(() => {});
      await service.stop();
      await environment.close();
    },
  };
};
