/**
 * Blockfrost's evaluation endpoints on the devnet: a Plutus V2 spend evaluated through `/utils/txs/evaluate` (hex,
 * raw and base64 bodies; Mesh's provider, blockfrost-js) and `/utils/txs/evaluate/utxos`, in Ogmios v5.6's shape
 * and v6's (`?version=6`), each budget equal to our JSON-RPC evaluateTransaction's. Then chaining: a spend of an
 * output of a transaction not yet submitted (a native asset minted there, an inline datum, the validator as a
 * reference script, a native reference script beside it), its outputs given in additionalUtxoSet in both input
 * shapes, through the real Lucid Evolution provider and blockfrost-js too; then both transactions submitted with
 * those budgets and confirmed. Malformed bodies, a body over MAX_BODY_BYTES, failures in both answer shapes, and
 * the preprod network.
 */
import assert from "node:assert/strict";
import * as CSL from "@emurgo/cardano-serialization-lib-nodejs";
import { BlockFrostAPI } from "@blockfrost/blockfrost-js";
import { Blockfrost } from "@lucid-evolution/provider";
import { createRequire } from "node:module";
import type { BlockfrostProvider as MeshProvider } from "@meshsdk/provider";
import { base64, hex } from "@scure/base";
import { big } from "../../scripts/devnet_example.ts";
import { assertBlockfrostShape } from "../support/blockfrost.ts";
import { testDatabaseUrl } from "../support/databases.ts";
import { type Json, type OgmiosUtxo, openDevnetService } from "../support/devnet_service.ts";

/** The always-succeeds PlutusV2 validator the demo chain uses: its CBOR bytes wrapped once more, as CSL reads it. */
const alwaysSucceedsSingle = "4d01000033222220051200120011";
const alwaysSucceeds = CSL.PlutusScript.from_hex_with_version(
  `4e${alwaysSucceedsSingle}`,
  CSL.Language.new_plutus_v2(),
);
const unit = () => CSL.PlutusData.from_hex("d87980");
const inputOf = (u: { transaction: { id: string }; index: number }) =>
  CSL.TransactionInput.new(CSL.TransactionHash.from_hex(u.transaction.id), u.index);
// Mesh's ESM build pulls libsodium's broken ESM entry: its CommonJS build loads
const { BlockfrostProvider } = createRequire(import.meta.url)("@meshsdk/provider") as {
  BlockfrostProvider: typeof MeshProvider;
};
const placeholder = { memory: 14_000_000, cpu: 10_000_000_000 };

Deno.test({
  name: "blockfrost: /utils/txs/evaluate[/utxos] in Ogmios v5.6 and v6 shapes, chained transactions",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    // the devnet lives on the embedded demo chain: with TEST_DATABASE_URL, mainnet's chain stays embedded
    const s = await openDevnetService("bf_evaluate", { embeddedChain: true });
    const bf = async (
      path: string,
      body: BodyInit,
      contentType = "application/cbor",
      network: "mainnet" | "preprod" = "mainnet",
    ) => {
      const base = network === "mainnet" ? "/api/v0" : "/api/preprod/v0";
      const r = await fetch(`${s.base}${base}${path}`, {
        method: "POST",
        headers: { project_id: s.key, "content-type": contentType },
        body,
      });
      return { status: r.status, body: await r.json() as Json };
    };
    const evaluateUtxos = (body: unknown, query = "", network: "mainnet" | "preprod" = "mainnet") =>
      bf(`/utils/txs/evaluate/utxos${query}`, JSON.stringify(body), "application/json", network);
    try {
      const [wallet] = s.wallets;
      const key = CSL.PrivateKey.from_bech32(wallet!.signingKey);
      const keyHash = key.to_public().hash();
      const walletAddress = CSL.Address.from_bech32(wallet!.address);
      const scriptAddress = CSL.EnterpriseAddress.new(
        1,
        CSL.Credential.from_scripthash(alwaysSucceeds.hash()),
      )
        .to_address();
      const signed = (builder: CSL.TransactionBuilder) => {
        const tx = CSL.FixedTransaction.from_bytes(builder.build_tx().to_bytes());
        tx.sign_and_add_vkey_signature(key);
        return { cbor: tx.to_hex(), id: tx.transaction_hash().to_hex(), tx };
      };
      const [fuel, collateral] = await s.utxosOf(wallet!.address);
      const addCollateral = (builder: CSL.TransactionBuilder) => {
        const inputs = CSL.TxInputsBuilder.new();
        inputs.add_regular_input(
          walletAddress,
          inputOf(collateral!),
          CSL.Value.new(big(collateral!.value.ada.lovelace)),
        );
        builder.set_collateral(inputs);
        builder.set_total_collateral_and_return(big(5_000_000), walletAddress);
      };

      // lock 20 ada at the validator with an inline datum, on chain
      const lockBuilder = CSL.TransactionBuilder.new(s.config);
      lockBuilder.add_regular_input(
        walletAddress,
        inputOf(fuel!),
        CSL.Value.new(big(fuel!.value.ada.lovelace)),
      );
      const lockedOutput = CSL.TransactionOutput.new(scriptAddress, CSL.Value.new(big(20_000_000)));
      lockedOutput.set_plutus_data(unit());
      lockBuilder.add_output(lockedOutput);
      lockBuilder.add_change_if_needed(walletAddress);
      const lock = signed(lockBuilder);
      assert.equal(await s.client.submitTransaction(lock.cbor), lock.id);
      await s.confirmed(lock.id);
      const onChain = (await s.utxosOf(wallet!.address)).find((u) => u.transaction.id === lock.id)!;

      /** Spends `locked` (the validator's input, redeemer spend:0) with `fuel` from the same transaction. */
      const spend = (
        locked: { input: OgmiosUtxo; value: CSL.Value },
        fuelUtxo: { input: OgmiosUtxo; value: CSL.Value },
        budget: { memory: number; cpu: number },
        referenceScript?: OgmiosUtxo,
      ) => {
        const builder = CSL.TransactionBuilder.new(s.config);
        const inputs = CSL.TxInputsBuilder.new();
        const redeemer = CSL.Redeemer.new(
          CSL.RedeemerTag.new_spend(),
          big(0),
          unit(),
          CSL.ExUnits.new(big(budget.memory), big(budget.cpu)),
        );
        const witness = referenceScript
          ? CSL.PlutusWitness.new_with_ref_without_datum(
            CSL.PlutusScriptSource.new_ref_input(
              alwaysSucceeds.hash(),
              inputOf(referenceScript),
              CSL.Language.new_plutus_v2(),
              alwaysSucceeds.bytes().length,
            ),
            redeemer,
          )
          : CSL.PlutusWitness.new_without_datum(alwaysSucceeds, redeemer);
        inputs.add_plutus_script_input(witness, inputOf(locked.input), locked.value);
        inputs.add_regular_input(walletAddress, inputOf(fuelUtxo.input), fuelUtxo.value);
        builder.set_inputs(inputs);
        addCollateral(builder);
        builder.calc_script_data_hash(s.costModels);
        builder.add_change_if_needed(walletAddress);
        return signed(builder);
      };

      const lockedUtxo = (await s.utxosOf(scriptAddress.to_bech32())).find((u) =>
        u.transaction.id === lock.id
      )!;
      const direct = spend(
        { input: lockedUtxo, value: CSL.Value.new(big(20_000_000)) },
        { input: onChain, value: CSL.Value.new(big(onChain.value.ada.lovelace)) },
        placeholder,
      );
      let rpcBudget: Json;

      await t.step("a Plutus spend: v5.6 and v6 answers, budgets equal to JSON-RPC's", async () => {
        const rpc = await s.rpc("evaluateTransaction", { transaction: { cbor: direct.cbor } });
        assert.equal(rpc.result?.length, 1, JSON.stringify(rpc));
        rpcBudget = rpc.result[0].budget;
        assert.deepEqual(rpc.result[0].validator, { purpose: "spend", index: 0 });
        const v5Expected = { "spend:0": { memory: rpcBudget.memory, steps: rpcBudget.cpu } };
        const bytes = new Uint8Array(hex.decode(direct.cbor));
        for (
          const body of [direct.cbor, direct.cbor.toUpperCase(), bytes as BodyInit, base64.encode(bytes)]
        ) {
          const answer = await bf("/utils/txs/evaluate", body);
          assert.equal(answer.status, 200, JSON.stringify(answer.body));
          assertBlockfrostShape("POST", "/utils/txs/evaluate", answer);
          assert.equal(answer.body.type, "jsonwsp/response");
          assert.equal(answer.body.version, "1.0");
          assert.equal(answer.body.servicename, "ogmios");
          assert.equal(answer.body.methodname, "EvaluateTx");
          assert.equal(typeof answer.body.reflection?.id, "string");
          assert.deepEqual(answer.body.result, { EvaluationResult: v5Expected });
        }
        const v6 = await bf("/utils/txs/evaluate?version=6", direct.cbor);
        assert.equal(v6.status, 200);
        assert.deepEqual(v6.body, {
          jsonrpc: "2.0",
          method: "evaluateTransaction",
          result: rpc.result,
          id: null,
        });
        const utxos = await evaluateUtxos({ cbor: direct.cbor });
        assertBlockfrostShape("POST", "/utils/txs/evaluate/utxos", utxos);
        assert.deepEqual(utxos.body.result, { EvaluationResult: v5Expected });
        // Mesh's provider with a base URL sends no key header: the key goes in the path
        const mesh = new BlockfrostProvider(`${s.base}/key/${s.key}/api/v0/`);
        assert.deepEqual(await mesh.evaluateTx(direct.cbor), [{
          tag: "SPEND",
          index: 0,
          budget: { mem: rpcBudget.memory, steps: rpcBudget.cpu },
        }]);
        const blockfrostJs = new BlockFrostAPI({
          projectId: s.key,
          network: "mainnet",
          customBackend: `${s.base}/api/v0`,
        });
        assert.deepEqual((await blockfrostJs.utilsTxsEvaluate(direct.cbor) as Json).result, {
          EvaluationResult: v5Expected,
        });
        const utxosV6 = await evaluateUtxos(
          { cbor: base64.encode(bytes), additionalUtxoSet: [] },
          "?version=6",
        );
        assert.deepEqual(utxosV6.body.result, rpc.result);
      });

      await t.step("chaining: an output of an unsubmitted transaction, in both input shapes", async () => {
        // transaction A (not submitted): mints a token under the wallet's key, locks it with 20 ada and an inline
        // datum at the validator, and carries the validator and the policy as reference scripts
        const policy = CSL.NativeScript.new_script_pubkey(CSL.ScriptPubkey.new(keyHash));
        const policyId = policy.hash().to_hex();
        const assetName = hex.encode(new TextEncoder().encode("chained"));
        const tokens = CSL.MultiAsset.new();
        tokens.set_asset(
          CSL.ScriptHash.from_hex(policyId),
          CSL.AssetName.new(hex.decode(assetName)),
          big(1000),
        );
        const aBuilder = CSL.TransactionBuilder.new(s.config);
        const aFuel = (await s.utxosOf(wallet!.address)).find((u) =>
          u.transaction.id !== collateral!.transaction.id || u.index !== collateral!.index
        )!;
        aBuilder.add_regular_input(
          walletAddress,
          inputOf(aFuel),
          CSL.Value.new(big(aFuel.value.ada.lovelace)),
        );
        const mint = CSL.MintBuilder.new();
        mint.add_asset(
          CSL.MintWitness.new_native_script(CSL.NativeScriptSource.new(policy)),
          CSL.AssetName.new(hex.decode(assetName)),
          CSL.Int.new_i32(1000),
        );
        aBuilder.set_mint_builder(mint);
        const lockedValue = CSL.Value.new_with_assets(big(20_000_000), tokens);
        const a0 = CSL.TransactionOutput.new(scriptAddress, lockedValue);
        a0.set_plutus_data(unit());
        const a1 = CSL.TransactionOutput.new(walletAddress, CSL.Value.new(big(10_000_000)));
        a1.set_script_ref(CSL.ScriptRef.new_plutus_script(alwaysSucceeds));
        const a2 = CSL.TransactionOutput.new(walletAddress, CSL.Value.new(big(5_000_000)));
        a2.set_script_ref(CSL.ScriptRef.new_native_script(policy));
        for (const o of [a0, a1, a2]) aBuilder.add_output(o);
        aBuilder.add_change_if_needed(walletAddress);
        const a = signed(aBuilder);
        const aOutputs = a.tx.body().outputs();
        assert.equal(aOutputs.len(), 4);
        const change = BigInt(aOutputs.get(3).amount().coin().to_str());
        const at = (index: number): OgmiosUtxo => ({
          transaction: { id: a.id },
          index,
          address: aOutputs.get(index).address().to_bech32(),
          value: { ada: { lovelace: Number(aOutputs.get(index).amount().coin().to_str()) } },
        });

        // transaction B spends A#0 through the reference script in A#1, with A#3 (A's change) as fuel
        const build = (budget: { memory: number; cpu: number }) =>
          spend(
            { input: at(0), value: lockedValue },
            { input: at(3), value: CSL.Value.new(big(change)) },
            budget,
            at(1),
          );
        const b = build(placeholder);

        const v6Set = [
          {
            transaction: { id: a.id },
            index: 0,
            address: scriptAddress.to_bech32(),
            value: { ada: { lovelace: 20_000_000 }, [policyId]: { [assetName]: 1000 } },
            datum: "d87980",
          },
          {
            transaction: { id: a.id },
            index: 1,
            address: wallet!.address,
            value: { ada: { lovelace: 10_000_000 } },
            script: { language: "plutus:v2", cbor: alwaysSucceedsSingle },
          },
          {
            transaction: { id: a.id },
            index: 2,
            address: wallet!.address,
            value: { ada: { lovelace: 5_000_000 } },
            script: { language: "native", json: { clause: "signature", from: keyHash.to_hex() } },
            datumHash: null,
          },
          {
            transaction: { id: a.id },
            index: 3,
            address: wallet!.address,
            value: { ada: { lovelace: Number(change) } },
            script: null,
          },
        ];
        // the shapes Lucid Evolution's Blockfrost provider sends (value.coins, "policy.name", script by language)
        const v5Set = [
          [{ txId: a.id, index: 0 }, {
            address: scriptAddress.to_bech32(),
            value: { coins: 20_000_000, assets: { [`${policyId}.${assetName}`]: 1000 } },
            datum: "d87980",
          }],
          [{ txId: a.id, index: 1 }, {
            address: wallet!.address,
            value: { coins: 10_000_000 },
            script: { "plutus:v2": alwaysSucceedsSingle },
          }],
          [{ txId: a.id, index: 2 }, {
            address: wallet!.address,
            value: { coins: 5_000_000 },
            script: { native: keyHash.to_hex() },
          }],
          [{ txId: a.id, index: 3 }, {
            address: wallet!.address,
            value: { coins: String(change), assets: null },
          }],
        ];

        const rpc = await s.rpc("evaluateTransaction", {
          transaction: { cbor: b.cbor },
          additionalUtxo: v6Set,
        });
        assert.equal(rpc.result?.length, 1, JSON.stringify(rpc));
        const budget = rpc.result[0].budget;
        const v5Expected = { EvaluationResult: { "spend:0": { memory: budget.memory, steps: budget.cpu } } };
        for (const set of [v5Set, v6Set, [...v5Set.slice(0, 2), ...v6Set.slice(2)]]) {
          const v5 = await evaluateUtxos({ cbor: b.cbor, additionalUtxoSet: set });
          assert.equal(v5.status, 200, JSON.stringify(v5.body));
          assertBlockfrostShape("POST", "/utils/txs/evaluate/utxos", v5);
          assert.deepEqual(v5.body.result, v5Expected);
          const v6 = await evaluateUtxos({ cbor: b.cbor, additionalUtxoSet: set }, "?version=6");
          assert.deepEqual(v6.body, {
            jsonrpc: "2.0",
            method: "evaluateTransaction",
            result: rpc.result,
            id: null,
          });
        }

        const blockfrostJs = new BlockFrostAPI({
          projectId: s.key,
          network: "mainnet",
          customBackend: `${s.base}/api/v0`,
        });
        // deno-lint-ignore no-explicit-any
        const viaBlockfrostJs: Json = await blockfrostJs.utilsTxsEvaluateUtxos(b.cbor, v5Set as any);
        assert.deepEqual(viaBlockfrostJs.result, v5Expected);

        // the real Lucid Evolution provider: its UTxOs in additionalUtxoSet (Ogmios v5.6 shapes)
        const lucid = new Blockfrost(`${s.base}/api/v0`, s.key);
        const lucidUtxos = [0, 1, 2, 3].map((index) => ({
          txHash: a.id,
          outputIndex: index,
          address: v6Set[index]!.address,
          assets: {
            lovelace: BigInt(v6Set[index]!.value.ada.lovelace),
            ...(index === 0 ? { [`${policyId}${assetName}`]: 1000n } : {}),
          },
          datumHash: undefined,
          datum: index === 0 ? "d87980" : undefined,
          scriptRef: index === 1 ? { type: "PlutusV2" as const, script: alwaysSucceedsSingle } : undefined,
        }));
        const evaluated = await lucid.evaluateTx(b.cbor, lucidUtxos);
        assert.deepEqual(evaluated, [{
          redeemer_tag: "spend",
          redeemer_index: 0,
          ex_units: { mem: Number(budget.memory), steps: Number(budget.cpu) },
        }]);

        // without A's outputs B's inputs are unknown: the evaluation failure in each shape (not a 500)
        const unknownV5 = await evaluateUtxos({ cbor: b.cbor });
        assert.equal(unknownV5.status, 200);
        const failures = unknownV5.body.result.EvaluationFailure.ScriptFailures["spend:0"];
        assert.ok(
          failures.some((f: Json) => f.unknownInputReferencedByRedeemer?.txId === a.id),
          JSON.stringify(unknownV5.body),
        );
        const unknownV6 = await bf("/utils/txs/evaluate?version=6", b.cbor);
        assert.equal(unknownV6.status, 200);
        assert.equal(unknownV6.body.error.code, 3010);
        assert.equal(unknownV6.body.error.data[0].error.code, 3117);
        assert.equal(unknownV6.body.method, "evaluateTransaction");
        // an extra output that is on chain already overlaps the ledger's
        const onLedger = [{ txId: collateral!.transaction.id, index: collateral!.index }, {
          address: wallet!.address,
          value: { coins: collateral!.value.ada.lovelace },
        }];
        const overlap = await evaluateUtxos({ cbor: b.cbor, additionalUtxoSet: [...v5Set, onLedger] });
        assert.deepEqual(overlap.body.result, {
          EvaluationFailure: {
            AdditionalUtxoOverlap: [{ txId: collateral!.transaction.id, index: collateral!.index }],
          },
        });

        // A then B (its budgets from the evaluation) go through the mempool into blocks
        assert.equal(await s.client.submitTransaction(a.cbor), a.id);
        const final = build({ memory: Number(budget.memory), cpu: Number(budget.cpu) });
        assert.equal(await s.client.submitTransaction(final.cbor), final.id);
        await s.confirmed(final.id);
        const mine = await s.utxosOf(wallet!.address);
        assert.ok(mine.some((u) => u.transaction.id === final.id && u.value[policyId]?.[assetName] === 1000));
      });

      await t.step(
        "malformed bodies and queries: 400 in Blockfrost's envelope; over the limit 413",
        async () => {
          const bad = (answer: { status: number; body: Json }, path: string, includes: string) => {
            assert.equal(answer.status, 400, JSON.stringify(answer.body));
            assertBlockfrostShape("POST", path, answer);
            assert.ok(answer.body.message.includes(includes), answer.body.message);
          };
          bad(await bf("/utils/txs/evaluate", ""), "/utils/txs/evaluate", "empty");
          bad(await bf("/utils/txs/evaluate", "not a transaction!"), "/utils/txs/evaluate", "hex");
          bad(await bf("/utils/txs/evaluate", "deadbeef"), "/utils/txs/evaluate", "Cannot evaluate");
          bad(await bf("/utils/txs/evaluate?version=7", direct.cbor), "/utils/txs/evaluate", "version");
          const path = "/utils/txs/evaluate/utxos";
          bad(await bf(path, "{not json", "application/json"), path, "JSON");
          bad(await evaluateUtxos([direct.cbor]), path, "object");
          bad(await evaluateUtxos({}), path, "cbor");
          bad(await evaluateUtxos({ cbor: "xyz!" }), path, "cbor");
          bad(
            await evaluateUtxos({ cbor: direct.cbor, additionalUtxoSet: "x" }),
            path,
            "additionalUtxoSet",
          );
          bad(
            await evaluateUtxos({ cbor: direct.cbor, additionalUtxoSet: [42] }),
            path,
            "additionalUtxoSet.0",
          );
          bad(
            await evaluateUtxos({
              cbor: direct.cbor,
              additionalUtxoSet: [[{ txId: lock.id, index: 7 }, {
                address: wallet!.address,
                value: { coins: -1 },
              }]],
            }),
            path,
            "additionalUtxoSet.0.1.value.coins",
          );
          bad(
            await evaluateUtxos({
              cbor: direct.cbor,
              additionalUtxoSet: [[{ txId: lock.id, index: 7 }, {
                address: wallet!.address,
                value: { coins: 2_000_000, assets: { "not-a-policy": 1 } },
              }]],
            }),
            path,
            "additionalUtxoSet.0.1.value.assets",
          );
          bad(
            await evaluateUtxos({
              cbor: direct.cbor,
              additionalUtxoSet: [{
                transaction: { id: "ab" },
                index: 0,
                address: wallet!.address,
                value: {},
              }],
            }),
            path,
            "additionalUtxoSet.0.transaction.id",
          );
          const huge = await bf("/utils/txs/evaluate", "00".repeat(1 << 20));
          assert.equal(huge.status, 413);
          assert.deepEqual(Object.keys(huge.body), ["status_code", "error", "message"]);
          const refused = await fetch(`${s.base}/api/v0/utils/txs/evaluate`, {
            method: "POST",
            body: direct.cbor,
          });
          assert.equal(refused.status, 403);
          assert.equal((await refused.json()).status_code, 403);
        },
      );

      await t.step("preprod: its own node (the devnet when its chain is embedded)", async () => {
        // B's collateral is a mainnet output: given with the rest, the evaluation needs nothing of preprod's ledger
        const collateralEntry = {
          transaction: { id: collateral!.transaction.id },
          index: collateral!.index,
          address: wallet!.address,
          value: { ada: { lovelace: collateral!.value.ada.lovelace } },
        };
        const locked = {
          transaction: { id: lock.id },
          index: lockedUtxo.index,
          address: scriptAddress.to_bech32(),
          value: { ada: { lovelace: 20_000_000 } },
          datum: "d87980",
        };
        const fuelEntry = {
          ...collateralEntry,
          transaction: { id: onChain.transaction.id },
          index: onChain.index,
        };
        fuelEntry.value = { ada: { lovelace: onChain.value.ada.lovelace } };
        const answer = await evaluateUtxos(
          { cbor: direct.cbor, additionalUtxoSet: [locked, fuelEntry, collateralEntry] },
          "",
          "preprod",
        );
        if (testDatabaseUrl === undefined) {
          assert.equal(answer.status, 200, JSON.stringify(answer.body));
          assert.deepEqual(answer.body.result, {
            EvaluationResult: { "spend:0": { memory: rpcBudget.memory, steps: rpcBudget.cpu } },
          });
        } else {
          // preprod is a PostgreSQL db-sync database there: no devnet, no upstream
          assert.equal(answer.status, 503, JSON.stringify(answer.body));
          assert.ok(answer.body.message.includes("PREPROD_OGMIOS_URL"), answer.body.message);
        }
      });
    } finally {
      await s.close();
    }
  },
});
