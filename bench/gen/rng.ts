/**
 * Seeded PRNG for benchmark data: mulberry32 (32-bit state), one independent stream per
 * (seed, batch) so a data set is generated batch by batch in bounded memory and every batch is
 * the same whatever the batch order.
 */
export class Rng {
  private s: number;
  constructor(seed: number, stream = 0) {
    // splitmix-style scramble of (seed, stream) so neighbouring streams are unrelated
    let z = (Math.imul(seed | 0, 0x9e3779b1) ^ Math.imul(stream + 1, 0x85ebca6b)) >>> 0;
    z = Math.imul(z ^ (z >>> 16), 0x7feb352d) >>> 0;
    z = Math.imul(z ^ (z >>> 15), 0x846ca68b) >>> 0;
    this.s = (z ^ (z >>> 16)) >>> 0 || 0x9e3779b9;
  }
  /** uniform uint32 */
  u32(): number {
    let t = (this.s = (this.s + 0x6d2b79f5) | 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }
  /** uniform in [0, 1) with 32 bits */
  float(): number { return this.u32() / 4294967296; }
  /** uniform integer in [0, n) for n <= 2^32 */
  int(n: number): number { return Math.floor(this.float() * n); }
}

/**
 * A bijection of [0, n) that scatters consecutive indices (an affine map modulo n with a
 * multiplier coprime to n), computed exactly in doubles: the data generators use it for unique,
 * unsorted keys without holding a permutation of the whole data set.
 */
export class Scatter {
  private readonly a: number;
  private readonly c: number;
  constructor(readonly n: number, seed: number) {
    let a = Math.max(1, Math.floor(n * 0.6180339887) | 1);
    while (gcd(a, n) !== 1) a += 1;
    this.a = a;
    this.c = new Rng(seed, 7).int(n);
  }
  at(i: number): number {
    // a * i can pass 2^53: split i into 16-bit halves so every product stays exact
    const n = this.n; const hi = Math.floor(i / 65536); const lo = i - hi * 65536;
    const h = ((this.a * hi) % n) * 65536 % n;
    return (h + (this.a * lo) % n + this.c) % n;
  }
}

function gcd(a: number, b: number): number {
  while (b) { const t = a % b; a = b; b = t; }
  return a;
}
