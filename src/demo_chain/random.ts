/**
 * A seeded, fast pseudo-random generator (xoshiro128**, period 2^128 - 1) so the demo chain is the same bytes on
 * every machine. Not for secrets: it only shapes generated data.
 */
export class Random {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: string) {
    // splitmix32 over a string hash spreads any seed text over the four state words
    let h = 1779033703 ^ seed.length;
    for (let i = 0; i < seed.length; i++) {
      h = Math.imul(h ^ seed.charCodeAt(i), 3432918353);
      h = (h << 13) | (h >>> 19);
    }
    const next = () => {
      h = (h + 0x9e3779b9) | 0;
      let z = h;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next() | 1;
  }

  /** A uniform 32-bit unsigned integer. */
  u32(): number {
    const result = Math.imul(rotl(Math.imul(this.b, 5), 7), 9) >>> 0;
    const t = this.b << 9;
    this.c ^= this.a;
    this.d ^= this.b;
    this.b ^= this.c;
    this.a ^= this.d;
    this.c ^= t;
    this.d = rotl(this.d, 11);
    return result;
  }

  /** Uniform in [0, 1). */
  float(): number {
    return this.u32() / 4294967296;
  }

  /** Uniform integer in [lo, hi] (inclusive). */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.float() * (hi - lo + 1));
  }

  chance(p: number): boolean {
    return this.float() < p;
  }

  pick<T>(items: ReadonlyArray<T>): T {
    return items[Math.floor(this.float() * items.length)]!;
  }

  /** Log-uniform in [lo, hi]: many small values, few large ones (payments, pledges, token supplies). */
  logUniform(lo: number, hi: number): number {
    return Math.floor(Math.exp(Math.log(lo) + this.float() * (Math.log(hi) - Math.log(lo))));
  }

  /** `n` random bytes as lowercase hex (hashes, keys). */
  hex(n: number): string {
    let out = "";
    for (let i = 0; i < n; i += 4) out += this.u32().toString(16).padStart(8, "0");
    return out.slice(0, n * 2);
  }

  bytes(n: number): Uint8Array {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i += 4) {
      const v = this.u32();
      for (let j = 0; j < 4 && i + j < n; j++) out[i + j] = (v >>> (8 * j)) & 0xff;
    }
    return out;
  }
}

const rotl = (x: number, k: number) => (x << k) | (x >>> (32 - k));
