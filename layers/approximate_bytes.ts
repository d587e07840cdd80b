/**
 * The memory a cached value holds, approximately: what V8 keeps for JSON-like data (strings at two bytes a
 * character, numbers, arrays and objects with their keys). It bounds caches by bytes, since one entry (a 100-row
 * page) can weigh a thousand times another (a tip), so a count of entries bounds nothing.
 */
const objectOverhead = 32;
const slot = 8;

export const approximateBytes = (value: unknown): number => {
  let total = 0;
  const pending: Array<unknown> = [value];
  const seen = new Set<object>();
  while (pending.length > 0) {
    const v = pending.pop();
    switch (typeof v) {
      case "string":
        total += 16 + v.length * 2;
        break;
      case "number":
      case "boolean":
      case "undefined":
        total += slot;
        break;
      case "bigint":
        total += 16 + Math.ceil(v.toString(16).length / 2);
        break;
      case "object": {
        if (v === null) {
          total += slot;
          break;
        }
        if (seen.has(v)) break;
        seen.add(v);
        if (ArrayBuffer.isView(v)) {
          total += objectOverhead + v.byteLength;
        } else if (v instanceof Date) {
          total += objectOverhead;
        } else if (v instanceof Map || v instanceof Set) {
          total += objectOverhead;
          for (const e of v) pending.push(e);
        } else if (Array.isArray(v)) {
          total += objectOverhead + v.length * slot;
          for (const e of v) pending.push(e);
        } else {
          for (const [k, e] of Object.entries(v)) {
            total += slot + 16 + k.length * 2;
            pending.push(e);
          }
          total += objectOverhead;
        }
        break;
      }
      default:
        total += slot;
    }
  }
  return total;
};
