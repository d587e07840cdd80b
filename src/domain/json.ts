/** JSON with bigint values written as exact integers (lovelace and asset quantities can pass 2^53). */
export const stringify = (value: unknown): string => {
  // most answers hold no bigint: JSON.stringify without a replacer is several times faster, and throws on one
  try {
    return JSON.stringify(value);
  } catch {
    return withBigints(value);
  }
};

const withBigints = (value: unknown): string => {
  const marks: Array<string> = [];
  const text = JSON.stringify(value, (_k, v) => {
    if (typeof v !== "bigint") return v;
    marks.push(v.toString());
    return `\u0000${marks.length - 1}\u0000`;
  });
  return marks.length === 0 ? text : text.replace(/"\\u0000(\d+)\\u0000"/g, (_, i) => marks[Number(i)]!);
};

/** An integer beyond 2^53 has 16 digits at least: a text with no such run needs no reviver (a slow path). */
const sixteenDigits = /\d{16}/;

const exactIntegers = (_k: string, v: unknown, context?: { source?: string }) =>
  typeof v === "number" && !Number.isSafeInteger(v) && /^-?\d+$/.test(context?.source ?? "")
    ? BigInt(context!.source!)
    : v;

/** JSON.parse that keeps integers beyond 2^53 exact, as bigint (the reviver sees each number's source text). */
export const parseExact = (text: string): unknown =>
  sixteenDigits.test(text) ? JSON.parse(text, exactIntegers) : JSON.parse(text);
