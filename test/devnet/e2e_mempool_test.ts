/**
 * The devnet's bounded mempool through the running service (a block a second): two dozen 15 kB transactions
 * submitted at once over HTTP fill it and queue up, and every one is answered and confirmed as blocks make room;
 * a submission sent on a WebSocket that closes while it waits behind them, or over HTTP by a client that gives up,
 * is abandoned (the service says so) and never added: later transactions spending the same inputs are accepted
 * and confirmed.
 */
import assert from "node:assert/strict";
import * as CSL from "@emurgo/cardano-serialization-lib-nodejs";
import { big } from "../../scripts/devnet_example.ts";
import { type OgmiosUtxo, openDevnetService, sleep } from "../support/devnet_service.ts";
import { connect } from "../support/ogmios_ws.ts";
import { testDatabaseUrl } from "../support/databases.ts";

/** `all` of 460 distinct key clauses: about 14.7 kB of native script, carried as a reference script. */
const bulkyScript = () => {
  const clauses = CSL.NativeScripts.new();
  for (let i = 0; i < 460; i++) {
    const hash = new Uint8Array(28);
    new DataView(hash.buffer).setUint32(0, i + 1);
    clauses.add(
      CSL.NativeScript.new_script_pubkey(CSL.ScriptPubkey.new(CSL.Ed25519KeyHash.from_bytes(hash))),
    );
  }
  return CSL.NativeScript.new_script_all(CSL.ScriptAll.new(clauses));
};

Deno.test({
  name:
    "devnet end to end: a full mempool makes submitters wait; a client that leaves while waiting adds nothing",
  // the devnet runs on the embedded demo chain (the PostgreSQL run serves db-sync databases)
  ignore: testDatabaseUrl !== undefined,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const s = await openDevnetService("devnet_e2e_mempool", { env: { LOG_LEVEL: "debug" } });
    /** Waits for something the service does by itself (bounded, so a regression fails instead of hanging). */
    const until = async (condition: () => boolean, what: string) => {
      for (let i = 0; i < 600 && !condition(); i++) await sleep(50);
      assert.ok(condition(), what);
    };
    const logged = (text: string) => s.lines.some((l) => l.includes(text));
    try {
      const [payer] = s.wallets;
      const payerAddress = CSL.Address.from_bech32(payer!.address);
      const key = CSL.PrivateKey.from_bech32(payer!.signingKey);
      const build = (
        inputs: ReadonlyArray<{ id: string; index: number; lovelace: number | bigint }>,
        outputs: ReadonlyArray<CSL.TransactionOutput>,
      ) => {
        const builder = CSL.TransactionBuilder.new(s.config);
        for (const i of inputs) {
          builder.add_regular_input(
            payerAddress,
            CSL.TransactionInput.new(CSL.TransactionHash.from_hex(i.id), i.index),
            CSL.Value.new(big(i.lovelace)),
          );
        }
        for (const o of outputs) builder.add_output(o);
        builder.add_change_if_needed(payerAddress);
        const fixed = CSL.FixedTransaction.from_bytes(builder.build_tx().to_bytes());
        fixed.sign_and_add_vkey_signature(key);
        return { cbor: fixed.to_hex(), id: fixed.transaction_hash().to_hex() };
      };
      const toPayer = (lovelace: number) =>
        CSL.TransactionOutput.new(payerAddress, CSL.Value.new(big(lovelace)));
      const from = (u: OgmiosUtxo) => ({
        id: u.transaction.id,
        index: u.index,
        lovelace: u.value.ada.lovelace,
      });

      const [fuel, spare, another] = await s.utxosOf(payer!.address);
      const fanOut = build([from(fuel!)], Array.from({ length: 24 }, () => toPayer(100_000_000)));
      assert.equal(await s.client.submitTransaction(fanOut.cbor), fanOut.id);
      await s.confirmed(fanOut.id);

      const carrier = (() => {
        const withScript = (lovelace: bigint) => {
          const o = CSL.TransactionOutput.new(payerAddress, CSL.Value.new(big(lovelace)));
          o.set_script_ref(CSL.ScriptRef.new_native_script(bulkyScript()));
          return o;
        };
        const cost = CSL.DataCost.new_coins_per_byte(big(s.protocolParameters.minUtxoDepositCoefficient));
        return withScript(BigInt(CSL.min_ada_for_output(withScript(100_000_000n), cost).to_str()));
      })();
      const bigOnes = Array.from(
        { length: 24 },
        (_, index) => build([{ id: fanOut.id, index, lovelace: 100_000_000 }], [carrier]),
      );
      assert.ok(
        bigOnes.every((b) => b.cbor.length / 2 > 14_000),
        "about 15 kB each: eleven fill the mempool",
      );
      const abandoned = build([from(spare!)], [toPayer(2_000_000)]);
      const abandonedOverHttp = build([from(another!)], [toPayer(2_000_000)]);

      await t.step(
        "24 submissions at once fill the mempool and wait; a WebSocket submission waiting behind them is " +
          "abandoned when its socket closes, an HTTP one when its request aborts; every other one is " +
          "answered and confirmed",
        async () => {
          const answers = bigOnes.map((b) => s.rpc("submitTransaction", { transaction: { cbor: b.cbor } }));
          await until(() => logged("waits for room in the mempool"), "a submission waits for room");

          const socket = await connect(`${s.base.replace("http", "ws")}/v1/ogmios?apikey=${s.key}`);
          socket.send({
            jsonrpc: "2.0",
            method: "submitTransaction",
            params: { transaction: { cbor: abandoned.cbor } },
          });
          await until(() => logged(`submission ${abandoned.id} waits`), "the WebSocket's submission waits");
          socket.close();
          await until(
            () => logged(`submission ${abandoned.id} abandoned`),
            "it is abandoned with its client",
          );

          // the same over HTTP: the client gives up (its request aborts) while the submission waits
          const giveUp = new AbortController();
          const gaveUp = fetch(`${s.base}/v1/ogmios`, {
            method: "POST",
            headers: { apikey: s.key, "content-type": "application/json" },
            body: JSON.stringify({
              jsonrpc: "2.0",
              method: "submitTransaction",
              params: { transaction: { cbor: abandonedOverHttp.cbor } },
              id: 1,
            }),
            signal: giveUp.signal,
          }).catch((e: Error) => e.name);
          await until(() => logged(`submission ${abandonedOverHttp.id} waits`), "the HTTP submission waits");
          giveUp.abort();
          assert.equal(await gaveUp, "AbortError");
          await until(
            () => logged(`submission ${abandonedOverHttp.id} abandoned`),
            "it is abandoned with its HTTP client",
          );

          for (const [i, answer] of (await Promise.all(answers)).entries()) {
            assert.deepEqual(answer.result, { transaction: { id: bigOnes[i]!.id } }, JSON.stringify(answer));
          }
          for (const b of bigOnes) await s.confirmed(b.id);
        },
      );

      await t.step(
        "the abandoned transactions' inputs are still unspent: other spends of them confirm",
        async () => {
          const again = build([from(spare!)], [toPayer(3_000_000)]);
          assert.equal(await s.client.submitTransaction(again.cbor), again.id);
          await s.confirmed(again.id);
          const status = await s.get(`/api/public/tx-status?txHash=${abandoned.id}`);
          assert.equal(status.body.found, false);
          const againOverHttp = build([from(another!)], [toPayer(3_000_000)]);
          assert.equal(await s.client.submitTransaction(againOverHttp.cbor), againOverHttp.id);
          await s.confirmed(againOverHttp.id);
          const statusHttp = await s.get(`/api/public/tx-status?txHash=${abandonedOverHttp.id}`);
          assert.equal(statusHttp.body.found, false);
        },
      );
    } finally {
      await s.close();
    }
  },
});
