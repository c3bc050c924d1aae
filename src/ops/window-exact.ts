/**
 * Exact arithmetic helpers for the window kernels: error-free float transformations and the
 * correctly rounded float64 of an exact rational (ties to even).
 *
 * - twoProd (Dekker with Veltkamp splitting; no FMA in JS): a · b = p + e exactly, for operands
 *   whose product does not overflow (window-stats inlines the same steps in its hot loop).
 * - ratioToDouble(N, D): the correctly rounded N / D for BigInt N, D (D > 0): the quotient is
 *   taken to 54+ bits with a sticky remainder, then rounded half to even. Used where values are
 *   too large for the fast path, and as the fallback of roundRatio.
 * - roundRatio(nh, nl, d): the correctly rounded (nh + nl) / d for an exact integer N = nh + nl
 *   held as two doubles (|nl| <= ulp(nh) / 2) and an exact integer d <= 2^53. When nl = 0 one
 *   IEEE division is already correctly rounded. Otherwise q = nh / d is corrected by the exact
 *   residual N - q·d (Sterbenz + twoProd); when the corrected value lies within 2^-20 ulp of a
 *   rounding midpoint (ties included) the BigInt path decides. O(1), no allocation.
 */

const SPLIT = 134217729; // 2^27 + 1

/** Scratch for twoProd's two results (no allocation per call; module-private: cross-module reads go through getters under tsx). */
const ef = { hi: 0, lo: 0 };

/** ef = (p, e) with p = fl(a · b), p + e = a · b exactly (|a·b| < 2^996). */
function twoProd(a: number, b: number): void {
  const p = a * b;
  let c = SPLIT * a;
  const ah = c - (c - a);
  const al = a - ah;
  c = SPLIT * b;
  const bh = c - (c - b);
  const bl = b - bh;
  ef.hi = p;
  ef.lo = ah * bh - p + ah * bl + al * bh + al * bl;
}

const F64 = new Float64Array(1);
const U32 = new Uint32Array(F64.buffer);

/** ulp of a positive normal double x, and whether x is a power of two. */
function ulpOf(x: number): number {
  F64[0] = x;
  const e = (U32[1]! >>> 20) & 0x7ff;
  return 2 ** (e - 1075);
}

function isPowerOfTwo(x: number): boolean {
  F64[0] = x;
  return (U32[1]! & 0xfffff) === 0 && U32[0] === 0;
}

function bitLength(x: bigint): number {
  return x.toString(2).length;
}

/** x · 2^k exactly (when representable), in steps that never overflow an intermediate. */
function scale2(x: number, k: number): number {
  while (k > 1000) {
    x *= 2 ** 1000;
    k -= 1000;
  }
  while (k < -1000) {
    x *= 2 ** -1000;
    k += 1000;
  }
  return x * 2 ** k;
}

/** Correctly rounded float64 of N / D (ties to even); D > 0. */
export function ratioToDouble(N: bigint, D: bigint): number {
  if (N === 0n) return 0;
  const neg = N < 0n;
  const a = neg ? -N : N;
  // q = floor(a · 2^s / D) has 55 or 56 bits.
  const s = 55 - (bitLength(a) - bitLength(D));
  const A = s >= 0 ? a << BigInt(s) : a;
  const B = s < 0 ? D << BigInt(-s) : D;
  const q = A / B;
  const sticky = A % B !== 0n;
  const extra = bitLength(q) - 53;
  let mant = q >> BigInt(extra);
  const rem = q & ((1n << BigInt(extra)) - 1n);
  const half = 1n << BigInt(extra - 1);
  if (rem > half || (rem === half && (sticky || (mant & 1n) === 1n))) mant += 1n;
  const v = scale2(Number(mant), extra - s);
  return neg ? -v : v;
}

/** Correctly rounded (nh + nl) / d; nh, nl integers (|nl| <= ulp(nh)/2), d an integer in [1, 2^53]. */
export function roundRatio(nh: number, nl: number, d: number): number {
  const q = nh / d;
  if (nl === 0 || q === 0) return nl === 0 ? q : ratioToDouble(BigInt(nh) + BigInt(nl), BigInt(d));
  twoProd(q, d);
  const r = nh - ef.hi - ef.lo + nl; // ≈ N - q·d (nh - p exact: p is within a factor 2 of nh)
  const delta = r / d;
  const c = q + delta;
  const dist = q - c + delta; // t - c, up to a relative error far below 2^-40
  const ac = c < 0 ? -c : c;
  let halfUlp = ulpOf(ac) / 2;
  // Below a power of two the next double down is half an ulp away.
  if (isPowerOfTwo(ac) && (c > 0 ? dist < 0 : dist > 0)) halfUlp /= 2;
  const ad = dist < 0 ? -dist : dist;
  if (ad < halfUlp * (1 - 2 ** -20)) return c;
  return ratioToDouble(BigInt(nh) + BigInt(nl), BigInt(d));
}
