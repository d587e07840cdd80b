/**
 * Mesh's `BlockfrostProvider(projectId)`, unmodified: it builds `https://cardano-<projectId[0..7]>.blockfrost.io
 * /api/v0` itself and sends the key in `project_id`. With the service's key prefix set to `preprod`, its keys
 * name preprod; a dApp process configured behind a proxy (HTTPS_PROXY, a CA it trusts: blockfrost_host_proxy.ts)
 * reaches the service through that host. It makes the same payment as the URL form (mesh_payment.ts), waits
 * with `onTxConfirmed`, and the payment is at the payee in `/addresses/{a}/utxos`.
 */
import assert from "node:assert/strict";
import { lovelaceOf, openBlockfrostDevnet } from "../../support/blockfrost_devnet.ts";
import { startBlockfrostHostProxy } from "../../support/blockfrost_host_proxy.ts";
import type { MeshPaymentResult } from "../../support/mesh_payment.ts";

Deno.test({
  name: "blockfrost providers: Mesh's key form, through Blockfrost's host, pays and waits with onTxConfirmed",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const s = await openBlockfrostDevnet("bf_mesh_key", { API_KEY_PREFIX: "preprod" });
    const proxy = await startBlockfrostHostProxy(s.base);
    try {
      assert.match(s.key, /^preprod_/);
      const [payer, payee] = s.wallets;
      const ledger = await s.utxosOf(payer!.address);
      const out = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "-A",
          new URL("../../support/mesh_key_form_client.ts", import.meta.url).pathname,
          s.key,
          payer!.signingKey,
          payee!.address,
          "8765432",
        ],
        env: { ...proxy.env, NO_COLOR: "1" },
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
      const result: MeshPaymentResult = JSON.parse(
        new TextDecoder().decode(out.stdout).trim().split("\n").at(-1)!,
      );
      assert.ok(
        proxy.connects.length > 0 && proxy.connects.every((h) => h === "cardano-preprod.blockfrost.io"),
      );
      assert.equal(result.walletAddress, payer!.address);
      assert.deepEqual(
        [...result.utxos].sort(),
        ledger.map((u) => `${u.transaction.id}#${u.index}:${u.value.ada.lovelace}`).sort(),
      );
      assert.equal(result.minFeeA, Number(s.protocolParameters.minFeeCoefficient));
      const paid = await s.landed(payee!.address, result.id);
      assert.deepEqual(paid.map(lovelaceOf), [8_765_432n]);
    } finally {
      await proxy.close();
      await s.close();
    }
  },
});
