/** Payment transactions: ordinary payments between wallets (some with tokens or metadata) and whale fan-outs. */
import type { Ledger } from "./ledger.ts";
import type { NewOutput } from "./ledger_types.ts";
import { ada, adjectives, nouns } from "./network_params.ts";
import { writeTx } from "./tx_writer.ts";

const randomPaymentValue = (ledger: Ledger, available: number): number => {
  return Math.min(Math.floor(available * 0.6), ledger.r.logUniform(2 * ada, 250_000 * ada));
};

export const payment = (ledger: Ledger): boolean => {
  const first = ledger.take(ledger.pool);
  if (first === undefined) return false;
  const firstValue = ledger.outValue.get(first);
  const from = ledger.changeAddress(first);
  if (firstValue > 5_000_000 * ada) return distribution(ledger, first, from);
  const inputs = ledger.takeInputs(6 * ada, first);
  if (inputs.length === 0) return false;
  if (ledger.r.chance(0.25)) {
    const more = ledger.take(ledger.pool);
    if (more !== undefined) inputs.push(more);
  }
  const available = inputs.reduce((s, i) => s + ledger.outValue.get(i), 0) - 3 * ada;
  const outputs: Array<NewOutput> = [];
  const count = ledger.r.chance(0.7) ? 1 : ledger.r.int(2, 4);
  let left = available;
  for (let k = 0; k < count && left > 2 * ada; k++) {
    const to = ledger.r.chance(0.09)
      ? ledger.wallets[ledger.exchangeWallet]!.address
      : ledger.wallets[ledger.randomWallet()]!.address;
    const value = Math.max(ada, Math.min(randomPaymentValue(ledger, left), left - ada));
    outputs.push({ address: to, value });
    left -= value;
  }
  // some payments move tokens along: give the first output part of a token the inputs hold
  const held = ledger.sumAssets(inputs);
  if (held && outputs[0] && ledger.r.chance(0.5)) {
    const [ident, q] = held.entries().next().value!;
    const part = q > 1n ? q / 2n : q;
    outputs[0].assets = new Map([[ident, part]]);
    outputs[0].value = Math.max(outputs[0].value, 2 * ada);
  }
  const metadata: Array<[number, unknown]> = ledger.r.chance(0.08)
    ? [[674, {
      msg: [`Invoice ${ledger.r.int(1000, 99999)}`, `${ledger.r.pick(adjectives)} ${ledger.r.pick(nouns)}`],
    }]]
    : [];
  return writeTx(ledger, {
    inputs,
    outputs,
    changeTo: from,
    size: 280 + 110 * inputs.length + 70 * outputs.length + (metadata.length ? 60 : 0),
    metadata,
    validityStart: ledger.r.chance(0.1),
  }) > 0;
};

/** A whale output fans out to many wallets (how genesis funds reach the economy). */
const distribution = (ledger: Ledger, first: number, from: number): boolean => {
  const outputs: Array<NewOutput> = [];
  const count = ledger.r.int(10, 30);
  for (let k = 0; k < count; k++) {
    const w = ledger.randomWallet();
    const whale = w % 97 === 0 && ledger.r.chance(0.3);
    outputs.push({
      address: ledger.wallets[w]!.address,
      value: whale
        ? ledger.r.logUniform(1_000_000 * ada, 40_000_000 * ada)
        : ledger.r.logUniform(20 * ada, 400_000 * ada),
    });
  }
  return writeTx(ledger, { inputs: [first], outputs, changeTo: from, size: 400 + 70 * count }) > 0;
};
