/** Ogmios writes ratios as `"numerator/denominator"` strings; db-sync stores them as doubles. */

const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? (a < 0n ? -a : a) : gcd(b, a % b));

/** The exact decimal a double prints as, as a reduced fraction: 0.3 -> "3/10", 7.21e-5 -> "721/10000000". */
export const toRatio = (value: number): string => {
  if (!Number.isFinite(value)) throw new RangeError(`not a finite ratio: ${value}`);
  const [mantissa, exponentText] = value.toString().toLowerCase().split("e");
  const exponent = Number(exponentText ?? 0);
  const [whole, fraction = ""] = mantissa!.split(".");
  let numerator = BigInt(whole! + fraction);
  let denominator = 10n ** BigInt(fraction.length);
  if (exponent > 0) numerator *= 10n ** BigInt(exponent);
  if (exponent < 0) denominator *= 10n ** BigInt(-exponent);
  const d = gcd(numerator, denominator);
  if (d > 1n) [numerator, denominator] = [numerator / d, denominator / d];
  return `${numerator}/${denominator}`;
};
