/**
 * The chain's participants, made before the first block (wallets and their addresses, pools, DReps, the Plutus
 * scripts and datums), and the pointer addresses some wallets move to once registered.
 */
import * as enc from "./cardano_encoding.ts";
import type { Ledger } from "./ledger.ts";
import { adjectives, nouns } from "./network_params.ts";
import { b, hexText } from "./row_values.ts";

export const makeWallets = (ledger: Ledger) => {
  const n = 1_500 * ledger.scale;
  const byronCount = Math.min(200, Math.max(24, Math.round(n * 0.02)));
  const byron = enc.byronAddresses(ledger.net.protocolMagic, ledger.r.bytes(16), byronCount);
  const id = ledger.net.networkId;
  for (let w = 0; w < n; w++) {
    const payment = ledger.r.hex(28);
    const stake = ledger.r.hex(28);
    const roll = ledger.r.float();
    let address: number;
    if (w < byronCount) address = ledger.addAddress(byron[w]!, null, false, -1, w);
    else if (roll < 0.08) {
      address = ledger.addAddress(enc.enterpriseAddress(id, payment, false), payment, false, -1, w);
    } else if (roll < 0.1) {
      address = ledger.addAddress(enc.enterpriseAddress(id, payment, true), payment, true, -1, w);
    } else if (roll < 0.14) {
      address = ledger.addAddress(enc.baseAddress(id, payment, true, stake), payment, true, w, w);
    } else address = ledger.addAddress(enc.baseAddress(id, payment, false, stake), payment, false, w, w);
    ledger.wallets.push({
      payment,
      stake,
      address,
      stakeAddressId: 0,
      registered: false,
      registration: null,
      pool: -1,
      drep: -1,
      utxoStake: 0,
      rewards: 0,
    });
  }
  // The exchange: one busy base address that receives a share of all payments and never spends them.
  ledger.exchangeWallet = byronCount;
  const ex = ledger.wallets[ledger.exchangeWallet]!;
  ex.address = ledger.addAddress(
    enc.baseAddress(id, ex.payment, false, ex.stake),
    ex.payment,
    false,
    ledger.exchangeWallet,
    ledger.exchangeWallet,
  );
};

export const makePools = (ledger: Ledger) => {
  const n = Math.min(3_000, 60 * ledger.scale);
  const tickers = new Set<string>();
  for (let p = 0; p < n; p++) {
    const name = `${ledger.r.pick(adjectives)} ${ledger.r.pick(nouns)} Pool`;
    let ticker = name.replace(/[^A-Z]/g, "").slice(0, 3) + String.fromCharCode(65 + (p % 26));
    while (tickers.has(ticker)) ticker = ticker.slice(0, 3) + ledger.r.hex(1).toUpperCase();
    tickers.add(ticker);
    const hash = ledger.r.hex(28);
    ledger.pools.push({
      index: p,
      hash,
      view: enc.poolIdBech32(hash),
      vrfKey: ledger.r.hex(32),
      ticker,
      name,
      id: 0,
      registered: false,
      retiring: -1,
      retired: false,
      owners: [],
      rewardWallet: -1,
      pledge: 0,
      margin: 0,
      fixedCost: 0,
      opCert: ledger.r.hex(32),
      opCertCounter: ledger.r.int(0, 9),
      metaId: null,
      slotLeaderId: 0,
    });
  }
};

export const makeDreps = (ledger: Ledger) => {
  const n = Math.min(1_000, 36 * ledger.scale);
  for (const special of ["drep_always_abstain", "drep_always_no_confidence"]) {
    const id = ledger.id("drep_hash");
    ledger.row("drep_hash", [id, null, special, false]);
    ledger.dreps.push({ hash: "", id, registered: true, everRegistered: true, lastActive: 0, wallet: -1 });
  }
  for (let d = 0; d < n; d++) {
    const hash = ledger.r.hex(28);
    const id = ledger.id("drep_hash");
    ledger.row("drep_hash", [id, b(hash), enc.drepIdBech32(hash), false]);
    ledger.dreps.push({
      hash,
      id,
      registered: false,
      everRegistered: false,
      lastActive: 0,
      wallet: ledger.r.int(0, ledger.wallets.length - 1),
    });
  }
};

export const makeScripts = (ledger: Ledger) => {
  const datumShapes: Array<unknown> = [
    { constructor: 0, fields: [{ int: 42 }] },
    { constructor: 0, fields: [{ bytes: ledger.r.hex(28) }, { int: 1_700_000_000_000 }] },
    { constructor: 1, fields: [{ list: [{ int: 1 }, { int: 2 }, { int: 3 }] }] },
    { map: [{ k: { bytes: hexText("owner") }, v: { bytes: ledger.r.hex(28) } }] },
    { int: 7 },
  ];
  ledger.datums = datumShapes.map((d) => enc.plutusData(d));
  const v2 = enc.plutusV2Script("4e4d01000033222220051200120011");
  const scriptAddress = ledger.addAddress(
    enc.enterpriseAddress(ledger.net.networkId, v2.hash, true),
    v2.hash,
    true,
    -1,
    -1,
  );
  ledger.alwaysSucceeds = { ...v2, scriptId: 0, address: scriptAddress };
  const v3 = enc.plutusV3Script("46450101002499");
  ledger.refScript = { ...v3, scriptId: 0, outputs: [] };
};

/** Some wallets move to pointer addresses that point at their own stake registration certificate. */
export const makePointerAddresses = (ledger: Ledger) => {
  let made = 0;
  const target = Math.max(10, Math.round(ledger.wallets.length * 0.01));
  for (let w = 0; w < ledger.wallets.length && made < target; w++) {
    const wallet = ledger.wallets[w]!;
    if (!wallet.registration || w === ledger.exchangeWallet || ledger.addrScript[wallet.address]) continue;
    if (ledger.pools.some((p) => p.owners.includes(w))) continue;
    wallet.address = ledger.addAddress(
      enc.pointerAddress(ledger.net.networkId, wallet.payment, wallet.registration),
      wallet.payment,
      false,
      -1,
      w,
    );
    made++;
  }
};
