/** The devnet wallets: keys from a per-installation seed under DATA_DIR, printed by `npm run devnet -- wallets`. */
import assert from "node:assert/strict";
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import { deriveWallets, loadOrCreateSeed, seedPath } from "@src/devnet/wallets/wallets.ts";

const cli = async (dataDir: string, ...args: Array<string>) => {
  const out = await new Deno.Command(Deno.execPath(), {
    // a new installation: --init lets the CLI create the seed (test/server/cli_data_dir_test.ts: without it)
    args: ["run", "-A", "scripts/devnet.ts", ...args, "--init"],
    env: { DATA_DIR: dataDir },
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout),
    stderr: new TextDecoder().decode(out.stderr),
  };
};

Deno.test("devnet wallets come from a private seed under DATA_DIR and print as JSON", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "devnet-wallets-" });
  try {
    const printed = await cli(dataDir, "wallets", "--network", "preprod");
    assert.equal(printed.code, 0, printed.stderr);
    const wallets = JSON.parse(printed.stdout) as Array<{ address: string; signingKey: string }>;
    assert.equal(wallets.length, 4);
    assert.equal((await Deno.stat(seedPath(dataDir))).mode! & 0o777, 0o600);
    const derived = deriveWallets(await loadOrCreateSeed(dataDir), "preprod", 0);
    assert.deepEqual(wallets, derived.map(({ address, signingKey }) => ({ address, signingKey })));
    for (const w of wallets) {
      assert.match(w.address, /^addr_test1v/);
      assert.match(w.signingKey, /^ed25519_sk1/);
      const key = CML.PrivateKey.from_bech32(w.signingKey);
      const address = CML.EnterpriseAddress.new(0, CML.Credential.new_pub_key(key.to_public().hash()));
      assert.equal(address.to_address().to_bech32(), w.address);
    }
    // the same installation prints the same wallets; another installation gets its own
    assert.equal((await cli(dataDir, "wallets", "--network", "preprod")).stdout, printed.stdout);
    const other = await Deno.makeTempDir({ prefix: "devnet-wallets-" });
    assert.notEqual((await cli(other, "wallets", "--network", "preprod")).stdout, printed.stdout);
    await Deno.remove(other, { recursive: true });
    const mainnet = JSON.parse((await cli(dataDir, "wallets", "--network", "mainnet")).stdout);
    assert.match(mainnet[0].address, /^addr1v/);
    assert.equal((await cli(dataDir, "wallets", "--network", "nope")).code, 2);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});
