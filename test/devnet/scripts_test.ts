/**
 * Plutus through the devnet: evaluateTransaction runs the scripts with the UPLC evaluator and the protocol
 * parameters' cost models (budgets per redeemer in Ogmios' shape), a failing script is 3010 with a 3012
 * validation error, submitTransaction runs phase 2 (a failing script marked valid is refused with 3136; marked
 * invalid, it lands and consumes its collateral as db-sync records it), and the collateral rules hold.
 */
import assert from "node:assert/strict";
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import { Effect, Either } from "effect";
import type { LedgerRejection } from "@src/devnet/errors.ts";
import { assertMatchesOgmiosSchema } from "../support/ogmios_schema.ts";
import { buildTx, openDevnet, payTo, submit, type Utxo, walletUtxos } from "../support/devnet_tx.ts";

const ada = 1_000_000n;
const plainJson = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value, (_k, v) => (typeof v === "bigint" ? Number(v) : v)));

/** `(program 1.0.0 (lam d (lam r (lam c (con unit ())))))`-style always-succeeds, as the demo chain uses. */
const alwaysSucceeds = CML.PlutusV2Script.from_cbor_hex("4e4d01000033222220051200120011");
/** `(program 1.0.0 (lam d (lam r (lam c (error)))))`: flat 01 00 00 | 0010 0010 0010 0110 | padding. */
const alwaysFails = CML.PlutusV2Script.from_cbor_hex("4746010000222601");
/**
 * `(program 1.0.0 (lam d (lam r (lam c (force [trace "first" [trace "second" (delay (error))]])))))` with
 * `trace` = `(force (builtin trace))` (builtin 28): traces "second", then "first", then fails. Hand-encoded flat.
 */
const failsWithTraces = CML.PlutusV2Script.from_cbor_hex(
  "5822582001000022253357389201056669727374003357389201067365636f6e64001601",
);
const unitData = () => CML.PlutusData.from_cbor_hex("d87980");

const scriptAddress = (script: CML.PlutusV2Script) =>
  CML.EnterpriseAddress.new(1, CML.Credential.new_script(script.hash())).to_address();

const sameInput = (a: CML.TransactionInput, b: CML.TransactionInput) =>
  a.transaction_id().to_hex() === b.transaction_id().to_hex() && a.index() === b.index();

interface SpendOptions {
  readonly script: CML.PlutusV2Script;
  readonly locked: Utxo;
  readonly fuel: Utxo;
  readonly collateral?: Utxo;
  /** More collateral inputs after `collateral`. */
  readonly moreCollateral?: ReadonlyArray<Utxo>;
  /** The body's declared total collateral. */
  readonly totalCollateral?: bigint;
  readonly isValid?: boolean;
  readonly collateralReturn?: bigint;
  readonly exUnits?: { mem: bigint; steps: bigint };
}

Deno.test("devnet Plutus evaluation and phase 2", async (t) => {
  const f = await openDevnet("devnet_scripts");
  const alice = f.keys[0]!;
  const run = <A>(e: Effect.Effect<A, unknown>) => Effect.runPromise(Effect.either(e));
  try {
    const [fuelA, fuelB, fuelC, small] = await walletUtxos(f, alice.address);

    const lock = async (script: CML.PlutusV2Script, fuel: Utxo): Promise<Utxo> => {
      const output = CML.TransactionOutput.new(
        scriptAddress(script),
        CML.Value.from_coin(20n * ada),
        CML.DatumOption.new_datum(unitData()),
      );
      const tx = buildTx(f.params, { inputs: [fuel], outputs: [output], signers: [alice.privateKey] });
      const result = await submit(f, tx);
      assert.ok(Either.isRight(result));
      const id = result.right.transaction.id;
      const change = CML.TransactionInput.new(CML.TransactionHash.from_hex(id), 1n);
      fuelUtxo = { input: change, output: tx.body().outputs().get(1) };
      return { input: CML.TransactionInput.new(CML.TransactionHash.from_hex(id), 0n), output };
    };
    let fuelUtxo: Utxo = fuelB!;

    const spend = (o: SpendOptions) => {
      const sorted = [o.locked, o.fuel].map((u) => u.input).sort((a, b) =>
        a.transaction_id().to_hex() < b.transaction_id().to_hex() ? -1 : 1
      );
      const index = BigInt(sorted.findIndex((i) => sameInput(i, o.locked.input)));
      const units = o.exUnits ?? { mem: 1_000_000n, steps: 500_000_000n };
      const redeemers = () => {
        const list = CML.LegacyRedeemerList.new();
        list.add(
          CML.LegacyRedeemer.new(
            CML.RedeemerTag.Spend,
            index,
            unitData(),
            CML.ExUnits.new(units.mem, units.steps),
          ),
        );
        return CML.Redeemers.new_arr_legacy_redeemer(list);
      };
      const languages = CML.LanguageList.new();
      languages.add(CML.Language.PlutusV2);
      const integrity = CML.calc_script_data_hash(
        redeemers(),
        CML.PlutusDataList.new(),
        f.params.costModels,
        languages,
      )!;
      const scriptFee = (units.mem * 577n) / 10_000n + (units.steps * 721n) / 10_000_000n + 2n;
      return buildTx(f.params, {
        inputs: [o.locked, o.fuel],
        outputs: [],
        changeAddress: CML.Address.from_bech32(alice.address),
        signers: [alice.privateKey],
        isValid: o.isValid ?? true,
        extraFee: scriptFee,
        body: (body) => {
          body.set_script_data_hash(integrity);
          if (o.collateral) {
            const c = CML.TransactionInputList.new();
            for (const u of [o.collateral, ...(o.moreCollateral ?? [])]) c.add(u.input);
            body.set_collateral_inputs(c);
          }
          if (o.totalCollateral !== undefined) body.set_total_collateral(o.totalCollateral);
          if (o.collateralReturn !== undefined) {
            body.set_collateral_return(payTo(alice.address, o.collateralReturn));
          }
        },
        witnesses: (set) => {
          const scripts = CML.PlutusV2ScriptList.new();
          scripts.add(o.script);
          set.set_plutus_v2_scripts(scripts);
          set.set_redeemers(redeemers());
        },
      });
    };

    const good = await lock(alwaysSucceeds, fuelA!);
    const bad = await lock(alwaysFails, fuelUtxo);
    const traced = await lock(failsWithTraces, fuelUtxo);
    await run(f.devnet.produceBlock);

    await t.step("evaluateTransaction gives the script's budget in Ogmios' shape", async () => {
      const tx = spend({ script: alwaysSucceeds, locked: good, fuel: fuelUtxo, collateral: small });
      const result = await run(f.devnet.evaluate(tx.to_cbor_hex()));
      assert.ok(
        Either.isRight(result),
        JSON.stringify(Either.isLeft(result) ? plainJson(result.left) : null),
      );
      assert.equal(result.right.length, 1);
      const [entry] = result.right;
      assert.equal(entry!.validator.purpose, "spend");
      assert.ok(entry!.budget.memory > 0n && entry!.budget.cpu > 0n);
      assert.ok(entry!.budget.memory < 1_000_000n);
      await assertMatchesOgmiosSchema(
        "ogmios.json#/properties/EvaluateTransactionResponse",
        plainJson({ jsonrpc: "2.0", method: "evaluateTransaction", result: result.right, id: null }),
      );
    });

    await t.step(
      "additionalUtxo (Ogmios' Utxo JSON) resolves inputs the chain does not hold; overlap is 3002",
      async () => {
        const phantom: Utxo = {
          input: CML.TransactionInput.new(CML.TransactionHash.from_hex("cd".repeat(32)), 0n),
          output: good.output,
        };
        const entry = (u: Utxo) => ({
          transaction: { id: u.input.transaction_id().to_hex() },
          index: Number(u.input.index()),
          address: scriptAddress(alwaysSucceeds).to_bech32(),
          value: { ada: { lovelace: 20n * ada } },
          datum: "d87980",
        });
        const tx = spend({ script: alwaysSucceeds, locked: phantom, fuel: fuelUtxo, collateral: small });
        const missing = await run(f.devnet.evaluate(tx.to_cbor_hex()));
        assert.ok(Either.isLeft(missing));
        assert.equal((missing.left as LedgerRejection).error.code, 3010);
        const result = await run(f.devnet.evaluate(tx.to_cbor_hex(), [entry(phantom)]));
        assert.ok(
          Either.isRight(result),
          JSON.stringify(Either.isLeft(result) ? plainJson(result.left) : null),
        );
        assert.equal(result.right.length, 1);
        const overlap = await run(f.devnet.evaluate(tx.to_cbor_hex(), [entry(good)]));
        assert.ok(Either.isLeft(overlap));
        const error = (overlap.left as LedgerRejection).error;
        assert.equal(error.code, 3002);
        await assertMatchesOgmiosSchema(
          "ogmios.json#/properties/EvaluateTransactionResponse",
          plainJson({ jsonrpc: "2.0", method: "evaluateTransaction", error, id: null }),
        );
        const malformed = await run(
          f.devnet.evaluate(tx.to_cbor_hex(), [{ ...entry(phantom), transaction: { id: "not hex" } }]),
        );
        assert.ok(Either.isLeft(malformed));
        assert.equal((malformed.left as LedgerRejection).error.code, 3004);
      },
    );

    await t.step("a failing script is 3010 with a 3012 validation error", async () => {
      const tx = spend({ script: alwaysFails, locked: bad, fuel: fuelUtxo, collateral: small });
      const result = await run(f.devnet.evaluate(tx.to_cbor_hex()));
      assert.ok(Either.isLeft(result));
      const error = (result.left as LedgerRejection).error;
      assert.equal(error.code, 3010);
      const [failure] = error.data as Array<{ validator: unknown; error: { code: number; data: unknown } }>;
      assert.equal(failure!.error.code, 3012);
      await assertMatchesOgmiosSchema(
        "ogmios.json#/properties/EvaluateTransactionResponse",
        plainJson({ jsonrpc: "2.0", method: "evaluateTransaction", error, id: null }),
      );
    });

    await t.step("a failing script's traces come back in the 3012 error", async () => {
      const tx = spend({ script: failsWithTraces, locked: traced, fuel: fuelUtxo, collateral: small });
      const result = await run(f.devnet.evaluate(tx.to_cbor_hex()));
      assert.ok(Either.isLeft(result));
      const [failure] = (result.left as LedgerRejection).error.data as Array<
        { error: { code: number; data: { traces: Array<string> } } }
      >;
      assert.equal(failure!.error.code, 3012);
      // arguments are evaluated first: the inner trace comes out first
      assert.deepEqual(failure!.error.data.traces, ["second", "first"], JSON.stringify(failure));
    });

    await t.step("collateral rules: missing (3132), insufficient (3128)", async () => {
      const missing = await submit(f, spend({ script: alwaysSucceeds, locked: good, fuel: fuelUtxo }));
      assert.ok(Either.isLeft(missing));
      assert.equal((missing.left as LedgerRejection).error.code, 3132);
      const tooLittle = await submit(
        f,
        spend({
          script: alwaysSucceeds,
          locked: good,
          fuel: fuelUtxo,
          collateral: small,
          collateralReturn: 49_900_000n,
        }),
      );
      assert.ok(Either.isLeft(tooLittle));
      assert.equal((tooLittle.left as LedgerRejection).error.code, 3128);
    });

    await t.step(
      "collateral rules: locked by a script (3129), too many inputs (3131), not only ADA (3133), " +
        "total mismatch (3135), execution units over the limit (3134); the UTxO set is unchanged",
      async () => {
        const spare = (u: Utxo) =>
          !sameInput(u.input, fuelUtxo.input) && !sameInput(u.input, small!.input) &&
          !sameInput(u.input, fuelC!.input);
        const [mintFuel] = (await walletUtxos(f, alice.address)).filter(spare);
        // a token for alice, to offer as collateral
        const policy = CML.NativeScript.new_script_pubkey(alice.privateKey.to_public().hash());
        const assets = CML.MultiAsset.new();
        assets.set(policy.hash(), CML.AssetName.from_str("C"), 1n);
        const mintTx = buildTx(f.params, {
          inputs: [mintFuel!],
          // and spare ADA-only outputs, more than may serve as collateral at once
          outputs: [
            payTo(alice.address, 2n * ada, assets),
            ...Array.from({ length: f.params.maxCollateralInputs }, () => payTo(alice.address, 5n * ada)),
          ],
          signers: [alice.privateKey],
          body: (body) => {
            const mint = CML.Mint.new();
            mint.set(policy.hash(), CML.AssetName.from_str("C"), 1n);
            body.set_mint(mint);
          },
          witnesses: (set) => {
            const natives = CML.NativeScriptList.new();
            natives.add(CML.NativeScript.from_cbor_bytes(policy.to_cbor_bytes()));
            set.set_native_scripts(natives);
          },
        });
        assert.ok(Either.isRight(await submit(f, mintTx)));
        await run(f.devnet.produceBlock);
        const mintId = CML.hash_transaction(mintTx.body());
        const withToken: Utxo = {
          input: CML.TransactionInput.new(mintId, 0n),
          output: mintTx.body().outputs().get(0),
        };
        const others = (await walletUtxos(f, alice.address)).filter((u) =>
          spare(u) && !sameInput(u.input, withToken.input)
        );
        const before = (await walletUtxos(f, alice.address)).length;
        const refused = async (options: Partial<SpendOptions>, code: number) => {
          const result = await submit(
            f,
            spend({ script: alwaysSucceeds, locked: good, fuel: fuelUtxo, ...options }),
          );
          assert.ok(Either.isLeft(result), `expected ${code}, accepted`);
          const error = (result.left as LedgerRejection).error;
          assert.equal(error.code, code, JSON.stringify(plainJson(error)));
          await assertMatchesOgmiosSchema(
            "ogmios.json#/properties/SubmitTransactionResponse",
            plainJson({ jsonrpc: "2.0", method: "submitTransaction", error, id: null }),
          );
          assert.equal((await walletUtxos(f, alice.address)).length, before);
          assert.deepEqual(f.devnet.mempool(), []);
          return error;
        };
        const locked = await refused({ collateral: good }, 3129);
        assert.deepEqual(plainJson(locked.data), {
          unsuitableCollateralInputs: [{
            transaction: { id: good.input.transaction_id().to_hex() },
            index: Number(good.input.index()),
          }],
        });
        assert.ok(others.length >= f.params.maxCollateralInputs, `${others.length} spare outputs`);
        const tooMany = await refused({
          collateral: small,
          moreCollateral: others.slice(0, f.params.maxCollateralInputs),
        }, 3131);
        assert.deepEqual(tooMany.data, {
          maximumCollateralInputs: f.params.maxCollateralInputs,
          countedCollateralInputs: f.params.maxCollateralInputs + 1,
        });
        const tokens = await refused({ collateral: withToken }, 3133);
        assert.deepEqual(
          plainJson(tokens.data),
          plainJson({
            unsuitableCollateralValue: {
              ada: { lovelace: withToken.output.amount().coin() },
              [policy.hash().to_hex()]: { "43": 1 },
            },
          }),
        );
        const mismatch = await refused({ collateral: small, totalCollateral: 1n }, 3135);
        assert.deepEqual(
          plainJson(mismatch.data),
          plainJson({
            declaredTotalCollateral: { ada: { lovelace: 1 } },
            computedTotalCollateral: { ada: { lovelace: small!.output.amount().coin() } },
          }),
        );
        await refused({
          collateral: small,
          exUnits: { mem: f.params.maxTxExMem + 1n, steps: 1_000n },
        }, 3134);
      },
    );

    await t.step("a failing script marked valid is refused (3136); the UTxO set is unchanged", async () => {
      const before = (await walletUtxos(f, alice.address)).length;
      const result = await submit(
        f,
        spend({ script: alwaysFails, locked: bad, fuel: fuelUtxo, collateral: small }),
      );
      assert.ok(Either.isLeft(result));
      const error = (result.left as LedgerRejection).error;
      assert.equal(error.code, 3136);
      assert.equal((error.data as { declaredSpending: string }).declaredSpending, "inputs");
      assert.equal((await walletUtxos(f, alice.address)).length, before);
      assert.deepEqual(f.devnet.mempool(), []);
    });

    await t.step("a script that runs over its declared budget fails phase 2", async () => {
      const tx = spend({
        script: alwaysSucceeds,
        locked: good,
        fuel: fuelUtxo,
        collateral: small,
        exUnits: { mem: 10n, steps: 10n },
      });
      const result = await submit(f, tx);
      assert.ok(Either.isLeft(result));
      assert.equal((result.left as LedgerRejection).error.code, 3136);
    });

    await t.step("a passing script spend lands with its redeemer, script and datum rows", async () => {
      const tx = spend({ script: alwaysSucceeds, locked: good, fuel: fuelUtxo, collateral: small });
      const result = await submit(f, tx);
      assert.ok(
        Either.isRight(result),
        JSON.stringify(Either.isLeft(result) ? plainJson(result.left) : null),
      );
      const block = await Effect.runPromise(f.devnet.produceBlock);
      assert.deepEqual(block.txIds, [result.right.transaction.id]);
      const [row] = await Effect.runPromise(f.chain.sql<
        { valid: boolean; redeemers: string; purpose: string; scriptType: string; collateral: string }
      >`
        select t.valid_contract as valid,
          (select count(*)::text from redeemer r where r.tx_id = t.id) as redeemers,
          (select r.purpose::text from redeemer r where r.tx_id = t.id) as purpose,
          (select s.type::text from script s where s.hash = decode(${alwaysSucceeds.hash().to_hex()}, 'hex'))
            as "scriptType",
          (select count(*)::text from collateral_tx_in c where c.tx_in_id = t.id) as collateral
        from tx t where t.hash = decode(${result.right.transaction.id}, 'hex')`);
      assert.deepEqual(row, {
        valid: true,
        redeemers: "1",
        purpose: "spend",
        scriptType: "plutusV2",
        collateral: "1",
      });
      fuelUtxo = {
        input: CML.TransactionInput.new(CML.TransactionHash.from_hex(block.txIds[0]!), 0n),
        output: tx.body().outputs().get(0),
      };
    });

    await t.step("a failing script marked invalid lands and consumes only its collateral", async () => {
      const tx = spend({
        script: alwaysFails,
        locked: bad,
        fuel: fuelUtxo,
        collateral: small,
        isValid: false,
      });
      const result = await submit(f, tx);
      assert.ok(
        Either.isRight(result),
        JSON.stringify(Either.isLeft(result) ? plainJson(result.left) : null),
      );
      const id = result.right.transaction.id;
      await Effect.runPromise(f.devnet.produceBlock);
      const [row] = await Effect.runPromise(
        f.chain.sql<{ valid: boolean; fee: string; inputs: string; outputs: string }>`
        select t.valid_contract as valid, t.fee::text as fee,
          (select count(*)::text from tx_in i where i.tx_in_id = t.id) as inputs,
          (select count(*)::text from tx_out o where o.tx_id = t.id) as outputs
        from tx t where t.hash = decode(${id}, 'hex')`,
      );
      assert.deepEqual(row, { valid: false, fee: String(50n * ada), inputs: "1", outputs: "0" });
      const remaining = await walletUtxos(f, alice.address);
      assert.ok(!remaining.some((u) => sameInput(u.input, small!.input)), "the collateral is spent");
      assert.ok(remaining.some((u) => sameInput(u.input, fuelUtxo.input)), "the regular input is not");
    });
    await t.step("a Plutus V3 minting policy is evaluated and its mint lands", async () => {
      // (program 1.1.0 (lam ctx (con unit ()))): the demo chain's V3 always-succeeds
      const policy = CML.PlutusV3Script.from_cbor_hex("46450101002499");
      const name = CML.AssetName.from_str("V3");
      const units = { mem: 100_000n, steps: 50_000_000n };
      const redeemers = () => {
        const list = CML.LegacyRedeemerList.new();
        list.add(
          CML.LegacyRedeemer.new(
            CML.RedeemerTag.Mint,
            0n,
            unitData(),
            CML.ExUnits.new(units.mem, units.steps),
          ),
        );
        return CML.Redeemers.new_arr_legacy_redeemer(list);
      };
      const languages = CML.LanguageList.new();
      languages.add(CML.Language.PlutusV3);
      const integrity = CML.calc_script_data_hash(
        redeemers(),
        CML.PlutusDataList.new(),
        f.params.costModels,
        languages,
      )!;
      const mint = CML.Mint.new();
      mint.set(policy.hash(), name, 7n);
      const assets = CML.MultiAsset.new();
      assets.set(policy.hash(), name, 7n);
      const collateral = (await walletUtxos(f, alice.address)).find((u) =>
        !sameInput(u.input, fuelC!.input)
      )!;
      const tx = buildTx(f.params, {
        inputs: [fuelC!],
        outputs: [payTo(alice.address, 2n * ada, assets)],
        signers: [alice.privateKey],
        extraFee: 10_000n,
        body: (body) => {
          body.set_mint(mint);
          body.set_script_data_hash(integrity);
          const c = CML.TransactionInputList.new();
          c.add(collateral.input);
          body.set_collateral_inputs(c);
        },
        witnesses: (set) => {
          const scripts = CML.PlutusV3ScriptList.new();
          scripts.add(policy);
          set.set_plutus_v3_scripts(scripts);
          set.set_redeemers(redeemers());
        },
      });
      const evaluated = await run(f.devnet.evaluate(tx.to_cbor_hex()));
      assert.ok(
        Either.isRight(evaluated),
        JSON.stringify(Either.isLeft(evaluated) ? plainJson(evaluated.left) : null),
      );
      assert.deepEqual(evaluated.right.map((r) => r.validator), [{ purpose: "mint", index: 0 }]);
      const result = await submit(f, tx);
      assert.ok(
        Either.isRight(result),
        JSON.stringify(Either.isLeft(result) ? plainJson(result.left) : null),
      );
      const block = await Effect.runPromise(f.devnet.produceBlock);
      assert.deepEqual(block.txIds, [result.right.transaction.id]);
      const [row] = await Effect.runPromise(f.chain.sql<{ minted: string; purpose: string }>`
        select (select quantity::text from ma_tx_mint m where m.tx_id = t.id) as minted,
          (select purpose::text from redeemer r where r.tx_id = t.id) as purpose
        from tx t where t.hash = decode(${result.right.transaction.id}, 'hex')`);
      assert.deepEqual(row, { minted: "7", purpose: "mint" });
    });
  } finally {
    await f.close();
  }
});
