/**
 * The devnet end to end through the running service (embedded default, a block a second): the CLI's wallets are
 * the funded ones; a payment built and signed with cardano-serialization-lib is evaluated and submitted with the
 * official Ogmios client, confirmed by tx-status, seen by the explorer, GraphQL and a chain-sync session that
 * intersected before it; a second spend of the same input answers 3117 and leaves the UTxO set as it was; a
 * native-script mint lands and the explorer lists the asset.
 */
import assert from "node:assert/strict";
import * as CSL from "@emurgo/cardano-serialization-lib-nodejs";
import { createInteractionContext, createTransactionSubmissionClient } from "@cardano-ogmios/client";
import { startService } from "../support/service.ts";
import { createKey, createTestEnvironment } from "../support/environment.ts";
import { connect } from "../support/ogmios_ws.ts";
import { testDatabaseUrl } from "../support/databases.ts";

const big = (n: bigint | number | string) => CSL.BigNum.from_str(String(n));
const ratio = (text: string) => {
  const [n, d] = text.split("/");
  return CSL.UnitInterval.new(big(n!), big(d!));
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface OgmiosUtxo {
  readonly transaction: { readonly id: string };
  readonly index: number;
  readonly value: { readonly ada: { readonly lovelace: number } };
}

const devnetWallets = async (dataDir: string) => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "scripts/devnet.ts", "wallets", "--network", "mainnet"],
    env: { DATA_DIR: dataDir },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  return JSON.parse(new TextDecoder().decode(out.stdout)) as Array<{ address: string; signingKey: string }>;
};

Deno.test({
  name: "devnet end to end: CSL payment through the official client, seen by every interface",
  // the devnet runs on the embedded demo chain (the PostgreSQL run serves db-sync databases)
  ignore: testDatabaseUrl !== undefined,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const environment = await createTestEnvironment("devnet_e2e");
    const env: Record<string, string> = { ...environment.env, DEVNET_BLOCK_SECONDS: "1" };
    const service = await startService(env);
    const { key } = await createKey(env, "--tier", "paid", "--name", "devnet e2e");
    const get = async (path: string) => {
      const r = await fetch(`${service.base}${path}`, { headers: { apikey: key } });
      return { status: r.status, body: await r.json() };
    };
    const post = async (path: string, body: unknown) => {
      const r = await fetch(`${service.base}${path}`, {
        method: "POST",
        headers: { apikey: key, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      return { status: r.status, body: await r.json() };
    };
    const rpc = async (method: string, params?: unknown) =>
      (await post("/v1/ogmios", { jsonrpc: "2.0", method, ...(params ? { params } : {}), id: 1 })).body;
    const ws = `${service.base.replace("http", "ws")}/v1/ogmios?apikey=${key}`;
    const context = await createInteractionContext(() => {}, () => {}, {
      connection: { address: { http: `${service.base}/v1/ogmios`, webSocket: ws } },
    });
    const client = await createTransactionSubmissionClient(context);
    const sync = await connect(ws);
    try {
      assert.ok(
        service.lines.some((l) => /mainnet: JSON-RPC node client is the devnet/.test(l)),
        "the start log names the devnet",
      );
      const wallets = await devnetWallets(env.DATA_DIR!);
      const [payer, payee] = wallets;
      const utxosOf = async (address: string) =>
        ((await rpc("queryLedgerState/utxo", { addresses: [address] })).result as Array<OgmiosUtxo>)
          .sort((a, b) => b.value.ada.lovelace - a.value.ada.lovelace);
      const before = await utxosOf(payer!.address);
      assert.equal(before.length, 4, "the CLI's wallet is the one the service funded");

      const pp = (await rpc("queryLedgerState/protocolParameters")).result;
      const config = CSL.TransactionBuilderConfigBuilder.new()
        .fee_algo(CSL.LinearFee.new(big(pp.minFeeCoefficient), big(pp.minFeeConstant.ada.lovelace)))
        .coins_per_utxo_byte(big(pp.minUtxoDepositCoefficient))
        .pool_deposit(big(pp.stakePoolDeposit.ada.lovelace))
        .key_deposit(big(pp.stakeCredentialDeposit.ada.lovelace))
        .max_value_size(pp.maxValueSize.bytes)
        .max_tx_size(pp.maxTransactionSize.bytes)
        .ex_unit_prices(
          CSL.ExUnitPrices.new(ratio(pp.scriptExecutionPrices.memory), ratio(pp.scriptExecutionPrices.cpu)),
        )
        .ref_script_coins_per_byte(CSL.UnitInterval.new(big(pp.minFeeReferenceScripts.base), big(1)))
        .build();
      const signingKey = CSL.PrivateKey.from_bech32(payer!.signingKey);
      const payerAddress = CSL.Address.from_bech32(payer!.address);
      const payment = (input: OgmiosUtxo, lovelace: number) => {
        const builder = CSL.TransactionBuilder.new(config);
        builder.add_regular_input(
          payerAddress,
          CSL.TransactionInput.new(CSL.TransactionHash.from_hex(input.transaction.id), input.index),
          CSL.Value.new(big(input.value.ada.lovelace)),
        );
        builder.add_output(
          CSL.TransactionOutput.new(CSL.Address.from_bech32(payee!.address), CSL.Value.new(big(lovelace))),
        );
        builder.add_change_if_needed(payerAddress);
        const fixed = CSL.FixedTransaction.from_bytes(builder.build_tx().to_bytes());
        fixed.sign_and_add_vkey_signature(signingKey);
        return {
          cbor: fixed.to_hex(),
          id: fixed.transaction_hash().to_hex(),
          fee: builder.get_fee_if_set()!,
        };
      };
      const confirmed = async (id: string) => {
        let status: { found: boolean; blockNo: number | null; fee: string | null } | undefined;
        for (let i = 0; i < 60 && !status?.found; i++) {
          if (i > 0) await sleep(500);
          status = (await get(`/api/public/tx-status?txHash=${id}`)).body;
        }
        assert.equal(status?.found, true, "confirmed within 30 s");
        return status!;
      };
      const tx = payment(before[0]!, 12_345_678);

      // a chain-sync session at the tip before the submission
      sync.send({ jsonrpc: "2.0", method: "findIntersection", params: { points: ["origin"] } });
      const tip = (await sync.next()).result.tip;
      sync.send({
        jsonrpc: "2.0",
        method: "findIntersection",
        params: { points: [{ slot: tip.slot, id: tip.id }] },
      });
      assert.deepEqual((await sync.next()).result.intersection, { slot: tip.slot, id: tip.id });

      await t.step("evaluateTransaction of a payment without scripts: no budgets", async () => {
        assert.deepEqual(await client.evaluateTransaction(tx.cbor), []);
      });

      await t.step("submitted with the official client, confirmed by tx-status", async () => {
        assert.equal(await client.submitTransaction(tx.cbor), tx.id);
        assert.equal((await confirmed(tx.id)).fee, tx.fee.to_str());
      });

      await t.step("the explorer and GraphQL see it", async () => {
        const explorer = await get(`/v2/explorer/mainnet/tx/${tx.id}`);
        assert.equal(explorer.status, 200);
        assert.equal(explorer.body.fee, tx.fee.to_str());
        const paid = explorer.body.outputs.find((o: { address: string }) => o.address === payee!.address);
        assert.equal(paid?.value, "12345678");
        assert.equal(explorer.body.inputs.length, 1);
        const graphql = await post("/v1/graphql", {
          query: `{ tx(where: {hash: {_eq: "${tx.id}"}}) { fee block { block_no } } }`,
        });
        assert.equal(graphql.status, 200, JSON.stringify(graphql.body));
        const [row] = graphql.body.data.tx;
        assert.equal(String(row.fee), tx.fee.to_str());
        assert.equal(row.block.block_no, explorer.body.blockNo);
      });

      await t.step("a chain-sync session from before the submission rolls forward to its block", async () => {
        sync.send({ jsonrpc: "2.0", method: "nextBlock" });
        assert.equal((await sync.next()).result.direction, "backward");
        let found: { height: number } | undefined;
        for (let i = 0; i < 60 && !found; i++) {
          sync.send({ jsonrpc: "2.0", method: "nextBlock" });
          const reply = (await sync.next(20_000)).result;
          assert.equal(reply.direction, "forward");
          if (reply.block.transactions.some((x: { id: string }) => x.id === tx.id)) found = reply.block;
        }
        assert.ok(found, "a forward block holds the transaction");
      });

      await t.step("spending the spent input again: 3117, UTxO set unchanged", async () => {
        const after = await utxosOf(payer!.address);
        assert.ok(
          !after.some((u) => u.transaction.id === before[0]!.transaction.id && u.index === before[0]!.index),
        );
        const again = payment(before[0]!, 2_000_000);
        await assert.rejects(client.submitTransaction(again.cbor), (e: { code?: number; data?: unknown }) => {
          assert.equal(e.code, 3117);
          assert.deepEqual(e.data, {
            unknownOutputReferences: [{
              transaction: { id: before[0]!.transaction.id },
              index: before[0]!.index,
            }],
          });
          return true;
        });
        await sleep(2_500); // two blocks later
        assert.deepEqual(await utxosOf(payer!.address), after);
      });

      await t.step(
        "a native-script mint built with CSL: confirmed, the explorer lists the minted asset",
        async () => {
          const input = before[1]!;
          const builder = CSL.TransactionBuilder.new(config);
          builder.add_regular_input(
            payerAddress,
            CSL.TransactionInput.new(CSL.TransactionHash.from_hex(input.transaction.id), input.index),
            CSL.Value.new(big(input.value.ada.lovelace)),
          );
          const policy = CSL.NativeScript.new_script_pubkey(
            CSL.ScriptPubkey.new(signingKey.to_public().hash()),
          );
          builder.add_mint_asset_and_output_min_required_coin(
            policy,
            CSL.AssetName.new(new TextEncoder().encode("E2E")),
            CSL.Int.new_i32(500),
            CSL.TransactionOutputBuilder.new().with_address(payerAddress).next(),
          );
          builder.add_change_if_needed(payerAddress);
          const fixed = CSL.FixedTransaction.from_bytes(builder.build_tx().to_bytes());
          fixed.sign_and_add_vkey_signature(signingKey);
          const id = fixed.transaction_hash().to_hex();
          assert.deepEqual(
            await client.evaluateTransaction(fixed.to_hex()),
            [],
            "native scripts have no budgets",
          );
          assert.equal(await client.submitTransaction(fixed.to_hex()), id);
          await confirmed(id);
          const explorer = await get(`/v2/explorer/mainnet/tx/${id}`);
          assert.equal(explorer.status, 200);
          assert.deepEqual(
            explorer.body.mints.map((m: { policyId: string; assetNameHex: string; quantity: string }) => ({
              policyId: m.policyId,
              assetNameHex: m.assetNameHex,
              quantity: m.quantity,
            })),
            [{ policyId: policy.hash().to_hex(), assetNameHex: "453245", quantity: "500" }],
          );
        },
      );

      await t.step("bad transactions and additionalUtxo answer errors, never crash the service", async () => {
        const evaluate = (params: unknown) => rpc("evaluateTransaction", params);
        assert.equal((await evaluate({ transaction: { cbor: "00ff" } })).error.code, -32602);
        assert.equal((await rpc("submitTransaction", { transaction: { cbor: "8400" } })).error.code, -32602);
        for (const additionalUtxo of [[null], [5], [{ transaction: { id: "zz" }, index: -1 }]]) {
          const answer = await evaluate({ transaction: { cbor: tx.cbor }, additionalUtxo });
          assert.equal(typeof answer.error?.code, "number", JSON.stringify(answer));
        }
        assert.equal((await get("/health")).status, 200);
      });
    } finally {
      sync.close();
      await client.shutdown().catch(() => {});
      await service.stop();
      await environment.close();
    }
  },
});
