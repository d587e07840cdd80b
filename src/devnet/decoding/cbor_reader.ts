/**
 * A minimal CBOR reader (RFC 8949): one item with its byte span, nested items read too. The devnet decodes with
 * CML; this is for the few places where CML refuses bytes the ledger accepts, to find what the ledger would
 * object to. Malformed input throws CborError; nesting is bounded so hostile input cannot exhaust the stack.
 */

export class CborError extends Error {}

export type CborItem =
  & { readonly start: number; readonly end: number }
  & (
    | { readonly kind: "uint" | "nint"; readonly value: bigint }
    | { readonly kind: "bytes" | "text"; readonly value: Uint8Array }
    | { readonly kind: "array"; readonly items: ReadonlyArray<CborItem> }
    | { readonly kind: "map"; readonly entries: ReadonlyArray<readonly [CborItem, CborItem]> }
    | { readonly kind: "tag"; readonly tag: bigint; readonly item: CborItem }
    | { readonly kind: "simple"; readonly value: number }
  );

const maxDepth = 128;

export const readCbor = (bytes: Uint8Array, offset = 0): CborItem => read(bytes, offset, 0);

const byte = (bytes: Uint8Array, at: number): number => {
  if (at >= bytes.length) throw new CborError("unexpected end of input");
  return bytes[at]!;
};

/** The argument of the head at `at`: its value (undefined for indefinite length) and where the head ends. */
const head = (bytes: Uint8Array, at: number): { major: number; info: number; arg?: bigint; next: number } => {
  const first = byte(bytes, at);
  const major = first >> 5, info = first & 31;
  if (info < 24) return { major, info, arg: BigInt(info), next: at + 1 };
  if (info === 31) return { major, info, next: at + 1 };
  if (info > 27) throw new CborError(`reserved additional information ${info}`);
  const width = 1 << (info - 24);
  let arg = 0n;
  for (let i = 1; i <= width; i++) arg = (arg << 8n) | BigInt(byte(bytes, at + i));
  return { major, info, arg, next: at + 1 + width };
};

const isBreak = (bytes: Uint8Array, at: number) => byte(bytes, at) === 0xff;

const count = (arg: bigint, bytes: Uint8Array): number => {
  if (arg > BigInt(bytes.length)) throw new CborError("length beyond the input");
  return Number(arg);
};

const read = (bytes: Uint8Array, start: number, depth: number): CborItem => {
  if (depth > maxDepth) throw new CborError("nested too deeply");
  const { major, info, arg, next } = head(bytes, start);
  switch (major) {
    case 0:
    case 1:
      if (arg === undefined) throw new CborError("indefinite integer");
      return { kind: major === 0 ? "uint" : "nint", value: arg, start, end: next };
    case 2:
    case 3: {
      const kind = major === 2 ? "bytes" : "text";
      if (arg !== undefined) {
        const end = next + count(arg, bytes);
        if (end > bytes.length) throw new CborError("string beyond the input");
        return { kind, value: bytes.subarray(next, end), start, end };
      }
      const chunks: Array<Uint8Array> = [];
      let at = next;
      while (!isBreak(bytes, at)) {
        const chunk = read(bytes, at, depth + 1);
        if (chunk.kind !== kind) throw new CborError("chunk of another type");
        chunks.push(chunk.value);
        at = chunk.end;
      }
      const value = new Uint8Array(chunks.reduce((s, c) => s + c.length, 0));
      chunks.reduce((o, c) => (value.set(c, o), o + c.length), 0);
      return { kind, value, start, end: at + 1 };
    }
    case 4: {
      const items: Array<CborItem> = [];
      let at = next;
      const n = arg === undefined ? Infinity : count(arg, bytes);
      while (arg === undefined ? !isBreak(bytes, at) : items.length < n) {
        const item = read(bytes, at, depth + 1);
        items.push(item);
        at = item.end;
      }
      return { kind: "array", items, start, end: arg === undefined ? at + 1 : at };
    }
    case 5: {
      const entries: Array<readonly [CborItem, CborItem]> = [];
      let at = next;
      const n = arg === undefined ? Infinity : count(arg, bytes);
      while (arg === undefined ? !isBreak(bytes, at) : entries.length < n) {
        const key = read(bytes, at, depth + 1);
        const value = read(bytes, key.end, depth + 1);
        entries.push([key, value]);
        at = value.end;
      }
      return { kind: "map", entries, start, end: arg === undefined ? at + 1 : at };
    }
    case 6: {
      if (arg === undefined) throw new CborError("indefinite tag");
      const item = read(bytes, next, depth + 1);
      return { kind: "tag", tag: arg, item, start, end: item.end };
    }
    default:
      if (info === 31) throw new CborError("unexpected break");
      return { kind: "simple", value: info, start, end: next };
  }
};
