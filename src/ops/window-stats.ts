/**
 * Sliding variance / standard deviation (sample and population) over precomputed frames.
 *
 * Integer and decimal measures — exact, one rounding at the end. Over m non-NULL values with
 * sums S1 = Σx and S2 = Σx², var = N / D with N = m·S2 - S1² (an exact non-negative integer),
 * D = m(m - 1) (sample) or m² (population), times 10^(2·scale) for decimals. Moments are
 * shift-invariant, so values are first read as x - b (b = the task's first value):
 *   1. fast path, when every x - b is exact and Σ(x - b)² < 2^52 over the task: float64 prefix
 *      sums of x and x² are exact, so S1, S2 are exact prefix differences; N is formed exactly
 *      with twoProd/twoSum (|N| < 2^106 as two doubles) and divided with roundRatio (window-exact):
 *      the correctly rounded N / D, O(1) per row whatever the frame width, no BigInt unless the
 *      quotient is within 2^-20 ulp of a rounding midpoint;
 *   2. otherwise exact BigInt prefix sums and ratioToDouble per row (values near 2^63, huge spans).
 * stddev = sqrt(var) (one more correctly rounded operation).
 * Float measures — pairwise, never a difference of float prefixes: a sparse table of blocks of
 * (count, mean, M2), level j merging [i, i+2^(j-1)) and [i+2^(j-1), i+2^j) with Chan's formula
 * (built in place, level by level); a frame of m rows is the left fold of its binary
 * decomposition, smallest block first, starting at lo (as the float sums in window-sum.ts).
 * The merge tree depends only on m and the frame's values (NULLs are empty leaves), so equal
 * frames give bit-identical results anywhere in the partition. NaN/±Inf give NaN.
 * A frame with fewer than 2 values (sample) or no value (population) gives NULL; `minPeriods`
 * raises that threshold. Cost: integers O(n) per measure + O(1) per row; floats O(n log W) per
 * column.
 */
import type { Allocator, KeyColumn } from '../types/keys.js';
import { ratioToDouble, roundRatio } from './window-exact.js';
import { bigValue, shiftedExact } from './window-values.js';

export type VarianceKind = 'variance' | 'varPop' | 'stddev' | 'stddevPop';

export interface VarianceOut {
  values: Float64Array;
  valid: Uint8Array | null;
}

const TWO53 = 2 ** 53;
const SPLIT = 134217729; // 2^27 + 1, Veltkamp splitting
const EMPTY = new Float64Array(0);
const fresh: Allocator = (ctor, length) => new ctor(length);

/** Exact moment prefixes of one integer/decimal measure, shared by its variance columns. */
export type MomentPrefix =
  | { kind: 'f64'; P1: Float64Array; P2: Float64Array }
  | { kind: 'big'; P1: bigint[]; P2: bigint[] };

export function momentPrefix(col: KeyColumn, n: number, alloc: Allocator = fresh): MomentPrefix {
  const valid = col.valid;
  const x = shiftedExact(col, n, alloc);
  if (x !== null && n <= 2 ** 26) {
    let approx = 0;
    for (let i = 0; i < n; i++) approx += x[i]! * x[i]!;
    if (approx < 2 ** 52) {
      const P1 = alloc(Float64Array, n + 1);
      const P2 = alloc(Float64Array, n + 1);
      let a = 0;
      let b = 0;
      for (let i = 0; i < n; i++) {
        const v = x[i]!; // NULL rows read 0
        a += v;
        b += v * v;
        P1[i + 1] = a;
        P2[i + 1] = b;
      }
      return { kind: 'f64', P1, P2 };
    }
  }
  const P1: bigint[] = new Array<bigint>(n + 1);
  const P2: bigint[] = new Array<bigint>(n + 1);
  P1[0] = 0n;
  P2[0] = 0n;
  let a = 0n;
  let b = 0n;
  for (let i = 0; i < n; i++) {
    if (!valid || valid[i] !== 0) {
      const v = bigValue(col, i);
      a += v;
      b += v * v;
    }
    P1[i + 1] = a;
    P2[i + 1] = b;
  }
  return { kind: 'big', P1, P2 };
}

const POW10: number[] = Array.from({ length: 23 }, (_, k) => 10 ** k);

function finish(kind: VarianceKind, v: number): number {
  return kind === 'stddev' || kind === 'stddevPop' ? Math.sqrt(v) : v;
}

/**
 * Exact variance per row from the moment prefix: counts give m per frame (C[hi] - C[lo], or
 * hi - lo without NULLs); rows with m < minCount are NULL.
 */
export function intVariance(
  prefix: MomentPrefix,
  lo: Int32Array,
  hi: Int32Array,
  counts: Int32Array | null,
  kind: VarianceKind,
  scale: number,
  minCount: number,
  out: Float64Array,
  makeValid: () => Uint8Array,
): Uint8Array | null {
  const n = lo.length;
  const sample = kind === 'variance' || kind === 'stddev';
  let valid: Uint8Array | null = null;
  const scaleDen = 2 * scale <= 22 ? POW10[2 * scale]! : Infinity;
  const bigScale = 10n ** BigInt(2 * scale);
  const sqrtIf = kind === 'stddev' || kind === 'stddevPop';
  const P1 = prefix.kind === 'f64' ? prefix.P1 : EMPTY;
  const P2 = prefix.kind === 'f64' ? prefix.P2 : EMPTY;
  for (let r = 0; r < n; r++) {
    const a = lo[r]!;
    const b = hi[r]!;
    const m = counts ? counts[b]! - counts[a]! : b - a;
    if (m < minCount) {
      valid ??= makeValid();
      valid[r] = 0;
      out[r] = 0;
      continue;
    }
    const dm = sample ? m * (m - 1) : m * m;
    if (prefix.kind === 'f64') {
      const S1 = P1[b]! - P1[a]!;
      const S2 = P2[b]! - P2[a]!;
      // N = m·S2 - S1² exactly as nh + nl: Dekker products and Knuth sums, inlined (hot loop).
      const p1 = m * S2;
      let c = SPLIT * m;
      const mh = c - (c - m);
      const ml = m - mh;
      c = SPLIT * S2;
      const sh = c - (c - S2);
      const sl = S2 - sh;
      const e1 = mh * sh - p1 + mh * sl + ml * sh + ml * sl;
      const p2 = S1 * S1;
      c = SPLIT * S1;
      const th = c - (c - S1);
      const tl = S1 - th;
      const e2 = th * th - p2 + 2 * th * tl + tl * tl;
      const s = p1 - p2;
      const bb = s - p1;
      const t = p1 - (s - bb) + (-p2 - bb);
      const rest = t + e1 - e2; // integers below 2^28 in magnitude: exact
      const nh = s + rest;
      const b2 = nh - s;
      const nl = s - (nh - b2) + (rest - b2);
      const d = dm * scaleDen;
      const v = nl === 0 && d <= TWO53 ? nh / d : d <= TWO53 ? roundRatio(nh, nl, d) : ratioToDouble(BigInt(nh) + BigInt(nl), BigInt(dm) * bigScale);
      out[r] = sqrtIf ? Math.sqrt(v) : v;
    } else {
      const S1 = prefix.P1[b]! - prefix.P1[a]!;
      const S2 = prefix.P2[b]! - prefix.P2[a]!;
      const bm = BigInt(m);
      out[r] = finish(kind, ratioToDouble(bm * S2 - S1 * S1, BigInt(dm) * bigScale));
    }
  }
  return valid;
}

/** Exact variance of one frame by a direct fold (the naive path; same results as intVariance). */
export function intVarianceNaive(
  col: KeyColumn,
  lo: Int32Array,
  hi: Int32Array,
  kind: VarianceKind,
  scale: number,
  minCount: number,
  out: Float64Array,
  makeValid: () => Uint8Array,
): Uint8Array | null {
  const n = lo.length;
  const sample = kind === 'variance' || kind === 'stddev';
  const colValid = col.valid;
  let valid: Uint8Array | null = null;
  const bigScale = 10n ** BigInt(2 * scale);
  for (let r = 0; r < n; r++) {
    let m = 0;
    let S1 = 0n;
    let S2 = 0n;
    for (let j = lo[r]!; j < hi[r]!; j++) {
      if (colValid && colValid[j] === 0) continue;
      const v = bigValue(col, j);
      m++;
      S1 += v;
      S2 += v * v;
    }
    if (m < minCount) {
      valid ??= makeValid();
      valid[r] = 0;
      out[r] = 0;
      continue;
    }
    const bm = BigInt(m);
    out[r] = finish(kind, ratioToDouble(bm * S2 - S1 * S1, (sample ? bm * (bm - 1n) : bm * bm) * bigScale));
  }
  return valid;
}

export interface FloatMomentJob {
  lo: Int32Array;
  hi: Int32Array;
  maxWidth: number;
  /** Receive the frame's count, mean and M2 (rows with an empty frame keep count 0). */
  cnt: Float64Array;
  mean: Float64Array;
  m2: Float64Array;
}

/** Chan's merge of (nb, mb, qb) into the accumulator at row r of a job. */
function mergeInto(job: FloatMomentJob, r: number, nb: number, mb: number, qb: number): void {
  if (nb === 0) return;
  const na = job.cnt[r]!;
  if (na === 0) {
    job.cnt[r] = nb;
    job.mean[r] = mb;
    job.m2[r] = qb;
    return;
  }
  const nt = na + nb;
  const ma = job.mean[r]!;
  const delta = mb - ma;
  job.cnt[r] = nt;
  job.mean[r] = ma + (delta * nb) / nt;
  job.m2[r] = job.m2[r]! + qb + ((delta * delta * na) * nb) / nt;
}

/** Canonical-order (count, mean, M2) of several frames over one float measure (see file doc). */
export function floatMoments(col: KeyColumn, n: number, jobs: FloatMomentJob[], alloc: Allocator = fresh): void {
  const v = col.values as Float64Array | Float32Array;
  const valid = col.valid;
  const C = alloc(Float64Array, n);
  const M = alloc(Float64Array, n);
  const Q = alloc(Float64Array, n);
  for (let i = 0; i < n; i++) {
    if (valid && valid[i] === 0) continue;
    const x = v[i]!;
    C[i] = 1;
    M[i] = x;
    Q[i] = x * 0; // 0, or NaN for ±Inf/NaN: they poison M2 as they poison the mean
  }
  let maxW = 0;
  for (const job of jobs) if (job.maxWidth > maxW) maxW = job.maxWidth;
  for (const job of jobs) {
    const { lo, hi } = job;
    for (let r = 0; r < n; r++) if ((hi[r]! - lo[r]!) & 1) mergeInto(job, r, C[lo[r]!]!, M[lo[r]!]!, Q[lo[r]!]!);
  }
  for (let size = 2; size <= maxW; size *= 2) {
    const half = size >>> 1;
    const last = n - size;
    for (let i = 0; i <= last; i++) {
      const na = C[i]!;
      const nb = C[i + half]!;
      if (nb === 0) continue;
      if (na === 0) {
        C[i] = nb;
        M[i] = M[i + half]!;
        Q[i] = Q[i + half]!;
        continue;
      }
      const nt = na + nb;
      const ma = M[i]!;
      const delta = M[i + half]! - ma;
      C[i] = nt;
      M[i] = ma + (delta * nb) / nt;
      Q[i] = Q[i]! + Q[i + half]! + ((delta * delta * na) * nb) / nt;
    }
    const lowMask = size - 1;
    for (const job of jobs) {
      if (job.maxWidth < size) continue;
      const { lo, hi } = job;
      for (let r = 0; r < n; r++) {
        const m = hi[r]! - lo[r]!;
        if ((m & size) === 0) continue;
        const p = lo[r]! + (m & lowMask);
        mergeInto(job, r, C[p]!, M[p]!, Q[p]!);
      }
    }
  }
}

/** The same canonical merge tree for one frame, folded from scratch (naive path; O(m)). */
export function floatMomentNaive(col: KeyColumn, a: number, b: number, acc: { cnt: number; mean: number; m2: number }): void {
  acc.cnt = 0;
  acc.mean = 0;
  acc.m2 = 0;
  const m = b - a;
  let pos = a;
  for (let size = 1; size <= m; size *= 2) {
    if ((m & size) === 0) continue;
    const blk = block(col, pos, size);
    mergeAcc(acc, blk.cnt, blk.mean, blk.m2);
    pos += size;
  }
}

function mergeAcc(acc: { cnt: number; mean: number; m2: number }, nb: number, mb: number, qb: number): void {
  if (nb === 0) return;
  const na = acc.cnt;
  if (na === 0) {
    acc.cnt = nb;
    acc.mean = mb;
    acc.m2 = qb;
    return;
  }
  const nt = na + nb;
  const delta = mb - acc.mean;
  acc.cnt = nt;
  acc.mean = acc.mean + (delta * nb) / nt;
  acc.m2 = acc.m2 + qb + ((delta * delta * na) * nb) / nt;
}

function block(col: KeyColumn, start: number, size: number): { cnt: number; mean: number; m2: number } {
  if (size === 1) {
    if (col.valid && col.valid[start] === 0) return { cnt: 0, mean: 0, m2: 0 };
    const x = (col.values as Float64Array)[start]!;
    return { cnt: 1, mean: x, m2: x * 0 };
  }
  const h = size >>> 1;
  const left = block(col, start, h);
  const right = block(col, start + h, h);
  mergeAcc(left, right.cnt, right.mean, right.m2);
  return left;
}

/** var / stddev from (count, mean, M2); rows with count < minCount are NULL. */
export function momentsToVariance(
  cnt: Float64Array,
  m2: Float64Array,
  kind: VarianceKind,
  minCount: number,
  out: Float64Array,
  makeValid: () => Uint8Array,
): Uint8Array | null {
  const sample = kind === 'variance' || kind === 'stddev';
  let valid: Uint8Array | null = null;
  for (let r = 0; r < out.length; r++) {
    const m = cnt[r]!;
    if (m < minCount) {
      valid ??= makeValid();
      valid[r] = 0;
      out[r] = 0;
      continue;
    }
    out[r] = finish(kind, m2[r]! / (sample ? m - 1 : m));
  }
  return valid;
}
