/**
 * A growable typed array: the ledger's per-output columns, which reach tens of millions of entries at mainnet
 * scale, where plain arrays would cost too much memory.
 */
export class Column<A extends Float64Array | Int32Array | Uint8Array | Uint16Array> {
  constructor(public data: A, private readonly make: (n: number) => A) {}
  set(i: number, v: number) {
    if (i >= this.data.length) {
      const next = this.make(Math.max(i + 1, Math.ceil(this.data.length * 1.5)));
      next.set(this.data);
      this.data = next;
    }
    this.data[i] = v;
  }
  get(i: number): number {
    return this.data[i]!;
  }
}
export const f64 = (n: number) => new Column(new Float64Array(n), (m) => new Float64Array(m));
export const i32 = (n: number) => new Column(new Int32Array(n), (m) => new Int32Array(m));
export const u8 = (n: number) => new Column(new Uint8Array(n), (m) => new Uint8Array(m));
