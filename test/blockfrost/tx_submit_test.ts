/**
 * The Blockfrost dialect's `POST /tx/submit` against the devnet (the service's embedded default, a block a second):
 * a payment built and signed with cardano-serialization-lib, sent as Lucid and Mesh send it (CBOR bytes) and as
 * Mesh's hex mode sends it (hex text), answers its id, lands in a block (Lucid Evolution's awaitTx sees it), and
 * then `/txs/{hash}` shows it with the explorer's values and `/txs/{hash}/cbor` gives back the submitted bytes;
 * the ledger's refusal (an input spent twice, bytes that are no transaction) is a 400 with the node's reason; a
 * wrong content type is a 415, a body over MAX_BODY_BYTES a 413, a missing key a 403, all in Blockfrost's envelope.
 */
import assert from "node:assert/strict";
import * as CSL from "@emurgo/cardano-serialization-lib-nodejs";
import { Blockfrost } from "@lucid-evolution/provider";
import { big } from "../../scripts/devnet_example.ts";
import { type OgmiosUtxo, openDevnetService } from "../support/devnet_service.ts";
import { assertBlockfrostShape } from "../support/blockfrost.ts";

Deno.test({
  name: "blockfrost: tx/submit to the devnet, then the transaction and its CBOR",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    // the devnet lives on the embedded chain; with TEST_DATABASE_URL the service database and Redis stay real
    const s = await openDevnetService("bf_tx_submit", { embeddedChain: true });
    const submit = async (
      body: BodyInit,
      contentType = "application/cbor",
      key: string | null = s.key,
    ) => {
      const r = await fetch(`${s.base}/api/v0/tx/submit`, {
        method: "POST",
        headers: { "content-type": contentType, ...(key ? { project_id: key } : {}) },
        body,
      });
      return { status: r.status, body: await r.json() };
    };
    const bf = async (path: string) => {
      const r = await fetch(`${s.base}/api/v0${path}`, { headers: { project_id: s.key } });
      return { status: r.status, body: await r.json() };
    };
    try {
      const [payer, payee] = s.wallets;
      const utxos = await s.utxosOf(payer!.address);
      const signingKey = CSL.PrivateKey.from_bech32(payer!.signingKey);
      const payerAddress = CSL.Address.from_bech32(payer!.address);
      const payment = (input: OgmiosUtxo, lovelace: number) => {
        const builder = CSL.TransactionBuilder.new(s.config);
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
          bytes: new Uint8Array(fixed.to_bytes()),
          hex: fixed.to_hex(),
          id: fixed.transaction_hash().to_hex(),
        };
      };
      const tx = payment(utxos[0]!, 3_000_000);

      await t.step("refused before the node: content type, size, key", async () => {
        const json = await submit(tx.hex, "application/json");
        assert.equal(json.status, 415);
        assert.deepEqual(Object.keys(json.body), ["status_code", "error", "message"]);
        assert.match(json.body.message, /application\/cbor/);
        const huge = await submit(new Uint8Array((1 << 20) + 1));
        assert.equal(huge.status, 413);
        assert.match(huge.body.message, /larger than the limit/);
        const anonymous = await submit(tx.bytes, "application/cbor", null);
        assert.equal(anonymous.status, 403);
        assertBlockfrostShape("POST", "/tx/submit", anonymous);
        const empty = await submit(new Uint8Array());
        assert.equal(empty.status, 400);
        assertBlockfrostShape("POST", "/tx/submit", empty);
      });

      await t.step("CBOR bytes: the id, then the transaction in a block with its CBOR", async () => {
        const r = await submit(tx.bytes);
        assert.equal(r.status, 200, JSON.stringify(r.body));
        assertBlockfrostShape("POST", "/tx/submit", r);
        assert.equal(r.body, tx.id);
        // Lucid Evolution's awaitTx polls /txs/{hash}/cbor until it answers
        const lucid = new Blockfrost(`${s.base}/api/v0`, s.key);
        assert.equal(await lucid.awaitTx(tx.id, 500), true);
        await s.confirmed(tx.id);
        const content = await bf(`/txs/${tx.id}`);
        assert.equal(content.status, 200);
        assertBlockfrostShape("GET", "/txs/{hash}", content);
        const explorer = await s.get(`/v2/explorer/mainnet/tx/${tx.id}`);
        assert.equal(content.body.fees, explorer.body.fee);
        assert.equal(content.body.block_height, explorer.body.blockNo);
        assert.equal(content.body.utxo_count, explorer.body.inputs.length + explorer.body.outputs.length);
        const cbor = await bf(`/txs/${tx.id}/cbor`);
        assert.equal(cbor.status, 200);
        assertBlockfrostShape("GET", "/txs/{hash}/cbor", cbor);
        assert.equal(cbor.body.cbor, tx.hex);
        const spent = await bf(`/txs/${utxos[0]!.transaction.id}/utxos`);
        const output = spent.body.outputs.find((o: { output_index: number }) =>
          o.output_index === utxos[0]!.index
        );
        assert.equal(output.consumed_by_tx, tx.id);
      });

      await t.step("hex text under application/cbor (Mesh's hex mode) is taken too", async () => {
        const second = payment(utxos[1]!, 2_000_000);
        const r = await submit(second.hex);
        assert.equal(r.status, 200, JSON.stringify(r.body));
        assert.equal(r.body, second.id);
        await s.confirmed(second.id);
        assert.equal((await bf(`/txs/${second.id}/cbor`)).body.cbor, second.hex);
      });

      await t.step("the ledger's refusals: a 400 with the node's reason", async () => {
        const again = await submit(payment(utxos[0]!, 2_500_000).bytes);
        assert.equal(again.status, 400);
        assertBlockfrostShape("POST", "/tx/submit", again);
        assert.match(again.body.message, /3117/);
        assert.match(again.body.message, new RegExp(utxos[0]!.transaction.id));
        const garbage = await submit(new Uint8Array([0x84, 0x01, 0x02]));
        assert.equal(garbage.status, 400);
        assertBlockfrostShape("POST", "/tx/submit", garbage);
      });
    } finally {
      await s.close();
    }
  },
});
