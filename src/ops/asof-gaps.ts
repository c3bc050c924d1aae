/**
 * ASOF comparisons and exact gaps between a left key and right keys (any mix of normalized
 * forms of one class).
 *
 * Gaps |x - k| are exact: integers in limbs (src/ops/int64-words), doubles in double arithmetic
 * where that is provably exact (rounding is monotone, so a strict double inequality between two
 * rounded gaps holds exactly) and, when rounded values tie, by their exact rounding errors
 * (TwoSum), no BigInt per row. +Inf - +Inf is a zero gap (+Inf equals +Inf); any other gap to an infinity is infinite.
 * Tolerance is checked as a gap, never as `x - tolerance`.
 */
import type { NormalizedKey } from './asof-key-types.js';
import type { NormalizedTolerance } from './asof-tolerance.js';
import { compareUtf8 } from './asof-string-keys.js';
import { cmpLimbs, limbGap, limbScratch, TWO32 as P32 } from './int64-words.js';

const f64buf = new Float64Array(1);
const u32buf = new Uint32Array(f64buf.buffer);

/** v * 2^1074 as an exact BigInt (v finite). */
export function scaledDouble(v: number): bigint {
  f64buf[0] = v;
  const lo = u32buf[0]!;
  const hi = u32buf[1]!;
  const neg = hi >>> 31 === 1;
  const exp = (hi >>> 20) & 0x7ff;
  let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let r: bigint;
  if (exp === 0) r = mant;
  else {
    mant |= 1n << 52n;
    r = mant << BigInt(exp - 1);
  }
  return neg ? -r : r;
}

/** The rounding error of `d = a - b` (finite, no overflow): a - b = d + error exactly (TwoSum). */
function diffError(a: number, b: number, d: number): number {
  const bb = d - a;
  return a - (d - bb) + (-b - bb);
}

/**
 * Exact sign of |s - x| - |x - p| for finite doubles, without BigInt: each difference is its
 * rounded value plus its exact error (TwoSum); equal rounded magnitudes compare by their errors.
 * Differences that overflow are halved first (every operand is then >= 2^970, so exactly).
 */
function exactGapSignF(x: number, p: number, s: number): number {
  let ds = s - x;
  let dp = x - p;
  if (!Number.isFinite(ds) || !Number.isFinite(dp)) {
    // an overflowing gap exceeds every finite one (rounding to Infinity means > MAX + ulp/2)
    if (Number.isFinite(ds)) return -1;
    if (Number.isFinite(dp)) return 1;
    x *= 0.5;
    p *= 0.5;
    s *= 0.5;
    ds = s - x;
    dp = x - p;
  }
  const as = Math.abs(ds);
  const ap = Math.abs(dp);
  if (as !== ap) return as < ap ? -1 : 1; // rounding is monotone
  // |ds| = |dp|: |diff| = |d| + sign(d) * error
  const es = ds < 0 ? -diffError(s, x, ds) : diffError(s, x, ds);
  const ep = dp < 0 ? -diffError(x, p, dp) : diffError(x, p, dp);
  return es < ep ? -1 : es > ep ? 1 : 0;
}

function scaledTol(tol: NormalizedTolerance): bigint {
  return typeof tol.value === 'bigint' ? tol.value << 1074n : scaledDouble(tol.value);
}

/** |x - k| <= tol for doubles (x, k not NaN), exact. */
export function withinF(x: number, k: number, tol: NormalizedTolerance): boolean {
  if (tol.unbounded) return true;
  let d = x >= k ? x - k : k - x;
  if (d !== d) d = 0; // +Inf - +Inf
  if (d < tol.lo) return true;
  if (d > tol.hi) return false;
  if (d === 0) return true; // equal keys (a zero double difference is exact)
  if (d === Infinity) {
    // an infinite key, or a finite gap beyond MAX_VALUE that only a tolerance beyond it can hold
    if (!Number.isFinite(x) || !Number.isFinite(k) || tol.hi !== Infinity) return false;
    return exactWithin(x, k, tol);
  }
  // d is tol.lo or tol.hi (adjacent doubles around the value): the exact gap d + error against
  // the value, through the exact tails value - lo and hi - value
  const tail = d === tol.lo ? tol.loTail : -tol.hiTail;
  if (tail === tail) return (x >= k ? diffError(x, k, d) : diffError(k, x, d)) <= tail;
  return exactWithin(x, k, tol);
}

/**
 * Exact rationals, only for tolerances beyond 2^106 whose tails are no doubles and gaps beyond
 * MAX_VALUE (no ordinary data reaches them).
 */
function exactWithin(x: number, k: number, tol: NormalizedTolerance): boolean {
  const e = scaledDouble(x) - scaledDouble(k);
  return (e < 0n ? -e : e) <= scaledTol(tol);
}

/**
 * sign(|s - x| - |x - p|) for doubles (none NaN), exact. Infinite gaps (an infinite operand)
 * are equal; a finite gap whose double difference overflows is compared exactly.
 */
export function gapSignF(x: number, p: number, s: number): number {
  let dp = x >= p ? x - p : p - x;
  if (dp !== dp) dp = 0;
  let ds = s >= x ? s - x : x - s;
  if (ds !== ds) ds = 0;
  if (ds === Infinity || dp === Infinity) {
    const infS = ds === Infinity && !(Number.isFinite(s) && Number.isFinite(x));
    const infP = dp === Infinity && !(Number.isFinite(p) && Number.isFinite(x));
    if (infS || infP) return infS === infP ? 0 : infS ? 1 : -1;
    return exactGapSignF(x, p, s);
  }
  if (ds < dp) return -1;
  if (ds > dp) return 1;
  if (ds === 0) return 0;
  return exactGapSignF(x, p, s);
}

/** |x - k| <= tol on limbs. */
export function withinLimbs(xh: number, xm: number, xl: number, kh: number, km: number, kl: number, tol: NormalizedTolerance): boolean {
  if (tol.unbounded || tol.h === Infinity) return true;
  limbGap(xh, xm, xl, kh, km, kl);
  return cmpLimbs(limbScratch[0]!, limbScratch[1]!, limbScratch[2]!, tol.h, tol.m, tol.l) <= 0;
}

/** sign(|s - x| - |x - p|) on limbs. */
export function gapSignLimbs(
  xh: number, xm: number, xl: number,
  ph: number, pm: number, pl: number,
  sh: number, sm: number, sl: number,
): number {
  limbGap(xh, xm, xl, ph, pm, pl);
  const gh = limbScratch[0]!;
  const gm = limbScratch[1]!;
  const gl = limbScratch[2]!;
  limbGap(sh, sm, sl, xh, xm, xl);
  return cmpLimbs(limbScratch[0]!, limbScratch[1]!, limbScratch[2]!, gh, gm, gl);
}

function limbsAt(k: NormalizedKey, i: number, out: Float64Array, at: number): void {
  if (k.kind === 'wide') {
    out[at] = k.h[i]!;
    out[at + 1] = k.m[i]!;
    out[at + 2] = k.l[i]!;
    return;
  }
  if (k.kind !== 'f64' || !k.exact) throw new TypeError('asof: cannot compare float keys with integer keys');
  const x = k.values[i]!;
  const q = Math.floor(x / P32);
  out[at] = q < 0 ? -1 : 0;
  out[at + 1] = q < 0 ? q + P32 : q;
  out[at + 2] = x - q * P32;
}
const tmp9 = new Float64Array(9);

/** sign(a[i] - b[j]). Both keys must be of the same class (resolveAsof guarantees it). */
export function compareAsofKeys(a: NormalizedKey, i: number, b: NormalizedKey, j: number): number {
  if (a.kind === 'f64' && b.kind === 'f64') {
    const x = a.values[i]!;
    const y = b.values[j]!;
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (a.kind === 'utf8' || b.kind === 'utf8') {
    if (a.kind !== 'utf8' || b.kind !== 'utf8') throw new TypeError('asof: cannot compare string keys with other keys');
    return compareUtf8(a.bytes, a.offsets, i, b.bytes, b.offsets, j);
  }
  limbsAt(a, i, tmp9, 0);
  limbsAt(b, j, tmp9, 3);
  return cmpLimbs(tmp9[0]!, tmp9[1]!, tmp9[2]!, tmp9[3]!, tmp9[4]!, tmp9[5]!);
}

/** Exact |x[i] - k[j]| <= tolerance. */
export function asofGapWithin(x: NormalizedKey, i: number, k: NormalizedKey, j: number, tol: NormalizedTolerance): boolean {
  if (x.kind === 'utf8' || k.kind === 'utf8') throw new TypeError('asof: string keys have no gaps');
  if (x.kind === 'f64' && k.kind === 'f64') {
    if (x.exact && k.exact) {
      const d = Math.abs(x.values[i]! - k.values[j]!);
      return d <= tol.lo;
    }
    return withinF(x.values[i]!, k.values[j]!, tol);
  }
  limbsAt(x, i, tmp9, 0);
  limbsAt(k, j, tmp9, 3);
  return withinLimbs(tmp9[0]!, tmp9[1]!, tmp9[2]!, tmp9[3]!, tmp9[4]!, tmp9[5]!, tol);
}

/** Exact sign(|x[i] - b[bj]| - |x[i] - a[aj]|): negative when b is strictly closer to x than a. */
export function compareAsofGaps(x: NormalizedKey, i: number, a: NormalizedKey, aj: number, b: NormalizedKey, bj: number): number {
  if (x.kind === 'utf8' || a.kind === 'utf8' || b.kind === 'utf8') throw new TypeError('asof: string keys have no gaps');
  if (x.kind === 'f64' && a.kind === 'f64' && b.kind === 'f64') {
    const xv = x.values[i]!;
    const av = a.values[aj]!;
    const bv = b.values[bj]!;
    if (x.exact && a.exact && b.exact) {
      const d = Math.abs(bv - xv) - Math.abs(xv - av);
      return d < 0 ? -1 : d > 0 ? 1 : 0;
    }
    return gapSignF(xv, av, bv);
  }
  limbsAt(x, i, tmp9, 0);
  limbsAt(a, aj, tmp9, 3);
  limbsAt(b, bj, tmp9, 6);
  return gapSignLimbs(tmp9[0]!, tmp9[1]!, tmp9[2]!, tmp9[3]!, tmp9[4]!, tmp9[5]!, tmp9[6]!, tmp9[7]!, tmp9[8]!);
}
