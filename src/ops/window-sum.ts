/**
 * Sliding sum / count / avg kernels over precomputed frames [lo, hi).
 *
 * Integer measures — prefix differences (after Spark PR 58926), ONE prefix per measure shared
 * by every output column that reads it:
 *   1. Range check per task: Σ|x| < 2^52 ⇒ every prefix is an exact float64 integer, so
 *      sum(frame) = P[hi] - P[lo] exactly (fast path, no BigInt).
 *   2. Otherwise a 96-bit two's-complement prefix in three 32-bit limbs (L, M unsigned; H signed,
 *      |prefix| < 2^95 for n < 2^32): differences are exact; the int64/uint64 result is the low
 *      64 bits (M, L) = the wrapping fold, bit-identical to a row-by-row fold (Z/2^64Z).
 *   avg of ints = correctly rounded exact (wide) sum / count, like Number(BigInt sum) / count.
 *   Outputs are written through 32-bit halves of the BigInt64Array, never through BigInt.
 * Counts: a running non-NULL count C; count(frame) = C[hi] - C[lo] (or hi - lo without NULLs).
 * Float measures — no prefix differences, no add/subtract sliding: a sparse table of pairwise
 *   block sums S_j[i] = S_{j-1}[i] + S_{j-1}[i + 2^(j-1)] (built in place, level by level) and a
 *   frame of m values is the left fold of its binary decomposition, smallest block first,
 *   starting at lo. The summation tree depends only on m and the frame's values, never on its
 *   position, so equal frames give bit-identical sums; m-1 additions ⇒ error ≤ (m-1)·2^-53·Σ|x|.
 *   NULLs are replaced by -0 (an exact identity of IEEE addition). NaN/±Inf propagate.
 *   Frames from UNBOUNDED PRECEDING take the same blocks largest first (floatRunningSums), so
 *   that a partition too big for one task can run in ranges (window-outside.ts).
 * Cost: O(n) per measure for the prefix + O(1) per row per column; floats O(n log W) per column.
 */
import type { Allocator, KeyColumn, TypedArray } from '../types/keys.js';
import { words64 } from './int64-words.js';

const TWO32 = 4294967296;
const fresh: Allocator = (ctor, length) => new ctor(length);

export type IntPrefix = { kind: 'f64'; P: Float64Array } | { kind: 'limbs'; L: Uint32Array; M: Uint32Array; H: Int32Array };

/** Running non-NULL count, length n + 1. */
export function countPrefix(valid: Uint8Array, n: number, alloc: Allocator = fresh): Int32Array {
  const C = alloc(Int32Array, n + 1, 'overwritten'); // every entry written below
  C[0] = 0;
  let c = 0;
  for (let i = 0; i < n; i++) {
    c += valid[i]!;
    C[i + 1] = c;
  }
  return C;
}

/** The one running prefix of an integer measure (length n + 1). */
export function intPrefix(col: KeyColumn, n: number, alloc: Allocator = fresh): IntPrefix {
  const valid = col.valid;
  const v = col.values;
  // The loops are functions of their own over typed arrays: inline, between the task's
  // allocator calls and before the result objects, their compiled code was thrown away at
  // nearly every call (45 deoptimizations in three window1 runs; see src/ops/group-accumulate).
  const wide = v instanceof BigInt64Array || v instanceof BigUint64Array;
  const u = wide ? words64(v) : null;
  const w = wide ? null : (v as Exclude<TypedArray, BigInt64Array | BigUint64Array>);
  const signed = !(v instanceof BigUint64Array);
  // One pass makes the prefix and checks it (a check pass before it cost a read of the column:
  // window6 ~0.4 s of CPU a run); too big, its memory takes two of the three limbs instead.
  const P = alloc(Float64Array, n + 1, 'overwritten'); // every entry written (or every limb's)
  const abs = u === null ? prefixNum(w!, valid, P, n) : !signed ? prefix64Unsigned(u, valid, P, n) : valid ? prefix64Signed(u, valid, P, n) : prefix64SignedAll(u, P, n);
  if (abs < 2 ** 52) return { kind: 'f64', P };
  const L = new Uint32Array(P.buffer, P.byteOffset, n + 1);
  const M = new Uint32Array(P.buffer, P.byteOffset + 4 * (n + 1), n + 1);
  const H = alloc(Int32Array, n + 1, 'overwritten');
  limbSums(u, w, signed, valid, L, M, H, n);
  return { kind: 'limbs', L, M, H };
}

/**
 * P[i + 1] = sum of the signed 64-bit words (lo, hi) of the non-NULL rows 0..i; returns the sum
 * of their |values|: P is exact while that is below 2^52.
 */
function prefix64Signed(u: Uint32Array, valid: Uint8Array, P: Float64Array, n: number): number {
  let acc = 0;
  let abs = 0;
  P[0] = 0;
  for (let i = 0; i < n; i++) {
    if (valid[i] !== 0) {
      const x = (u[2 * i + 1]! | 0) * TWO32 + u[2 * i]!;
      acc += x;
      abs += Math.abs(x);
    }
    P[i + 1] = acc;
  }
  return abs;
}

/** prefix64Signed without NULLs. */
function prefix64SignedAll(u: Uint32Array, P: Float64Array, n: number): number {
  let acc = 0;
  let abs = 0;
  P[0] = 0;
  for (let i = 0; i < n; i++) {
    const x = (u[2 * i + 1]! | 0) * TWO32 + u[2 * i]!;
    acc += x;
    abs += Math.abs(x);
    P[i + 1] = acc;
  }
  return abs;
}

/** prefix64Signed of unsigned 64-bit words (every value >= 0: the sum is the sum of |values|). */
function prefix64Unsigned(u: Uint32Array, valid: Uint8Array | null, P: Float64Array, n: number): number {
  let acc = 0;
  P[0] = 0;
  for (let i = 0; i < n; i++) {
    if (!valid || valid[i] !== 0) acc += u[2 * i + 1]! * TWO32 + u[2 * i]!;
    P[i + 1] = acc;
  }
  return acc;
}

/** prefix64Signed of integers of 32 bits or fewer. */
function prefixNum(w: Exclude<TypedArray, BigInt64Array | BigUint64Array>, valid: Uint8Array | null, P: Float64Array, n: number): number {
  let acc = 0;
  let abs = 0;
  P[0] = 0;
  for (let i = 0; i < n; i++) {
    if (!valid || valid[i] !== 0) {
      const x = w[i]!;
      acc += x;
      abs += Math.abs(x);
    }
    P[i + 1] = acc;
  }
  return abs;
}

/**
 * The running sum as three 32-bit limbs (L, M unsigned, H signed): h·2^64 + m·2^32 + l. Rows
 * are 64-bit words (`u`) or narrower integers (`w`, sign-extended to two words), as
 * src/ops/window's wide sums read them.
 */
function limbSums(u: Uint32Array | null, w: Exclude<TypedArray, BigInt64Array | BigUint64Array> | null, signed: boolean, valid: Uint8Array | null, L: Uint32Array, M: Uint32Array, H: Int32Array, n: number): void {
  let l = 0;
  let m = 0;
  let h = 0;
  L[0] = 0;
  M[0] = 0;
  H[0] = 0;
  for (let i = 0; i < n; i++) {
    if (!valid || valid[i] !== 0) {
      let xl: number;
      let xh: number;
      if (u !== null) {
        xl = u[2 * i]!;
        xh = u[2 * i + 1]!;
      } else {
        const x = w![i]!;
        xl = x < 0 ? x + TWO32 : x;
        xh = x < 0 ? TWO32 - 1 : 0;
      }
      l += xl;
      if (l >= TWO32) {
        l -= TWO32;
        m += 1;
      }
      m += xh;
      if (m >= TWO32) {
        m -= TWO32;
        h += 1;
      }
      if (signed && xh >= 0x80000000) h -= 1;
    }
    L[i + 1] = l;
    M[i + 1] = m;
    H[i + 1] = h;
  }
}

/** out32's words of row r: the 64-bit two's complement of P[hi[r]] - P[lo[r]] (an exact integer below 2^52). */
function sumWordsF64(P: Float64Array, lo: Int32Array, hi: Int32Array, out32: Uint32Array, n: number): void {
  for (let r = 0; r < n; r++) {
    const s = P[hi[r]!]! - P[lo[r]!]!;
    const hw = Math.floor(s / TWO32);
    out32[2 * r] = s - hw * TWO32;
    out32[2 * r + 1] = hw;
  }
}

/** avg[r] = the frame's sum / its non-NULL count (counts: the running count). */
function avgF64Counted(P: Float64Array, lo: Int32Array, hi: Int32Array, counts: Int32Array, avg: Float64Array, n: number): void {
  for (let r = 0; r < n; r++) {
    const a = lo[r]!;
    const b = hi[r]!;
    avg[r] = (P[b]! - P[a]!) / (counts[b]! - counts[a]!);
  }
}

/** avg[r] = the frame's sum / its width (no NULLs). */
function avgF64(P: Float64Array, lo: Int32Array, hi: Int32Array, avg: Float64Array, n: number): void {
  for (let r = 0; r < n; r++) {
    const a = lo[r]!;
    const b = hi[r]!;
    avg[r] = (P[b]! - P[a]!) / (b - a);
  }
}

/** Correctly rounded float64 of h·2^64 + m·2^32 + l (m, l in [0, 2^32)). */
export function wideToNumber(h: number, m: number, l: number): number {
  if (h >= -1048576 && h < 1048576) return (h * TWO32 + m) * TWO32 + l;
  return Number((BigInt(h) << 64n) + (BigInt(m) << 32n) + BigInt(l));
}

/**
 * Writes, for each row r, the wrapping 64-bit sum of the frame into out32 (the Uint32 halves of
 * an int64/uint64 output) and, when `avg` is given, the exact sum / count into avg.
 * `cnt(r)` is the number of non-NULL values in the frame (rows with 0 are left to the caller).
 */
export function intSumAvg(
  prefix: IntPrefix,
  lo: Int32Array,
  hi: Int32Array,
  out32: Uint32Array | null,
  avg: Float64Array | null,
  counts: Int32Array | null,
): void {
  const n = lo.length;
  if (prefix.kind === 'f64') {
    // A loop per output: with the tests for which outputs hoisted out of it (V8 does not), a
    // window sum ran 5.7-6.3 -> 3.9-4.4 ns a row (78K rows, frames of 30, 30 outputs in turn,
    // one thread).
    if (out32) sumWordsF64(prefix.P, lo, hi, out32, n);
    if (avg) {
      if (counts) avgF64Counted(prefix.P, lo, hi, counts, avg, n);
      else avgF64(prefix.P, lo, hi, avg, n);
    }
    return;
  }
  const { L, M, H } = prefix;
  for (let r = 0; r < n; r++) {
    const a = lo[r]!;
    const b = hi[r]!;
    let dl = L[b]! - L[a]!;
    let dm = M[b]! - M[a]!;
    let dh = H[b]! - H[a]!;
    if (dl < 0) {
      dl += TWO32;
      dm -= 1;
    }
    if (dm < 0) {
      dm += TWO32;
      dh -= 1;
    }
    if (out32) {
      out32[2 * r] = dl;
      out32[2 * r + 1] = dm;
    }
    if (avg) avg[r] = wideMean(dh, dm, dl, counts ? counts[b]! - counts[a]! : b - a);
  }
}

/** float64 copy of a float measure with NULLs replaced by -0 (the identity of IEEE addition). */
export function floatBase(col: KeyColumn, n: number, alloc: Allocator = fresh): Float64Array {
  const base = alloc(Float64Array, n);
  const v = col.values as Float64Array | Float32Array;
  const valid = col.valid;
  for (let i = 0; i < n; i++) base[i] = valid && valid[i] === 0 ? -0 : v[i]!;
  return base;
}

export interface FloatSumJob {
  lo: Int32Array;
  hi: Int32Array;
  maxWidth: number;
  /** Receives the frame sums (rows with an empty frame keep 0). */
  out: Float64Array;
}

/** Canonical-order float sums of several frames over one measure (see file doc). */
export function floatSums(col: KeyColumn, n: number, jobs: FloatSumJob[], alloc: Allocator = fresh): void {
  const S = floatBase(col, n, alloc);
  let maxW = 0;
  for (const job of jobs) if (job.maxWidth > maxW) maxW = job.maxWidth;
  // Level 0: single values.
  for (const { lo, hi, out } of jobs) {
    for (let r = 0; r < n; r++) out[r] = (hi[r]! - lo[r]!) & 1 ? S[lo[r]!]! : 0;
  }
  for (let size = 2; size <= maxW; size *= 2) {
    const half = size >>> 1;
    const last = n - size;
    for (let i = 0; i <= last; i++) S[i] = S[i]! + S[i + half]!;
    const lowMask = size - 1;
    for (const { lo, hi, out, maxWidth } of jobs) {
      if (maxWidth < size) continue;
      for (let r = 0; r < n; r++) {
        const m = hi[r]! - lo[r]!;
        if ((m & size) === 0) continue;
        const below = m & lowMask;
        const x = S[lo[r]! + below]!;
        out[r] = below === 0 ? x : out[r]! + x;
      }
    }
  }
}

/**
 * Canonical sums of frames from UNBOUNDED PRECEDING, [lo, hi) with lo the group's start: the
 * binary decomposition of the length, LARGEST block first from lo, each block pairwise, folded
 * left to right (window-outside.ts: the order a range of a partition too big for one task can
 * continue from the state it is handed). One binary counter per group: a row's frame only grows
 * from the row before, each push amortized O(1), each fold O(log m).
 */
export function floatRunningSums(base: Float64Array, lo: Int32Array, hi: Int32Array, out: Float64Array): void {
  const sizes = new Float64Array(64);
  const sums = new Float64Array(64);
  let top = 0;
  let start = -1;
  let end = -1;
  for (let r = 0; r < lo.length; r++) {
    const a = lo[r]!;
    const b = hi[r]!;
    if (a !== start || b < end) {
      start = a;
      end = a;
      top = 0;
    }
    for (; end < b; end++) {
      let size = 1;
      let sum = base[end]!;
      while (top > 0 && sizes[top - 1] === size) {
        sum = sums[--top]! + sum;
        size *= 2;
      }
      sizes[top] = size;
      sums[top++] = sum;
    }
    let acc = top > 0 ? sums[0]! : 0;
    for (let k = 1; k < top; k++) acc = acc + sums[k]!;
    out[r] = acc;
  }
}

/** floatRunningSums' order folded from scratch for one frame (naive path; O(m)). */
export function floatRunningSumNaive(base: Float64Array, a: number, b: number): number {
  const m = b - a;
  let acc = 0;
  let pos = a;
  let first = true;
  for (let size = 2 ** Math.floor(Math.log2(Math.max(1, m))); size >= 1; size /= 2) {
    if ((m & size) === 0) continue;
    const x = pairwise(base, pos, size);
    acc = first ? x : acc + x;
    first = false;
    pos += size;
  }
  return acc;
}

/** The same canonical order, folded from scratch for one frame (naive path; O(m)). */
export function floatSumNaive(base: Float64Array, a: number, b: number): number {
  const m = b - a;
  let acc = 0;
  let pos = a;
  let first = true;
  for (let size = 1; size <= m; size *= 2) {
    if ((m & size) === 0) continue;
    const x = pairwise(base, pos, size);
    acc = first ? x : acc + x;
    first = false;
    pos += size;
  }
  return acc;
}

function pairwise(x: Float64Array, start: number, size: number): number {
  if (size === 1) return x[start]!;
  const h = size >>> 1;
  return pairwise(x, start, h) + pairwise(x, start + h, h);
}

/**
 * The exact frame mean of an integer measure rounded half to even (avg of DURATION keeps the
 * type), written into out32 (the Uint32 halves of an int64 output). The exact sum's magnitude
 * is divided by the count in 16-bit steps (every step exact in float64), so no BigInt is made.
 * The mean of int64 values always fits int64. Rows with an empty frame are left to the caller.
 */
export function intMeanRounded(prefix: IntPrefix, lo: Int32Array, hi: Int32Array, counts: Int32Array | null, out32: Uint32Array): void {
  const n = lo.length;
  for (let r = 0; r < n; r++) {
    const a = lo[r]!;
    const b = hi[r]!;
    const m = counts ? counts[b]! - counts[a]! : b - a;
    if (m === 0) continue;
    if (prefix.kind === 'f64') {
      const s = prefix.P[b]! - prefix.P[a]!;
      let q = Math.floor(s / m);
      let rem = s - q * m; // exact: |q·m| <= |s| + m < 2^53
      while (rem < 0) {
        q -= 1;
        rem += m;
      }
      while (rem >= m) {
        q += 1;
        rem -= m;
      }
      if (2 * rem > m || (2 * rem === m && q % 2 !== 0)) q += 1;
      const hw = Math.floor(q / TWO32);
      out32[2 * r] = q - hw * TWO32;
      out32[2 * r + 1] = hw;
      continue;
    }
    const { L, M, H } = prefix;
    let dl = L[b]! - L[a]!;
    let dm = M[b]! - M[a]!;
    let dh = H[b]! - H[a]!;
    if (dl < 0) {
      dl += TWO32;
      dm -= 1;
    }
    if (dm < 0) {
      dm += TWO32;
      dh -= 1;
    }
    meanOfWide(dh, dm, dl, m, out32, r);
  }
}

const chunks = new Float64Array(6);
/** divideWide's results: the quotient's high and low 32-bit words and the remainder. */
const DIV = new Float64Array(3);

/**
 * |h·2^64 + mm·2^32 + l| / m by long division in 16-bit digits (every step exact in float64,
 * no BigInt): quotient words and remainder into DIV; returns whether the value is negative. The
 * quotient must fit 64 bits (a mean of 64-bit integers does); m < 2^32.
 */
function divideWide(h: number, mm: number, l: number, m: number): boolean {
  const neg = h < 0;
  if (neg) {
    // two's-complement negation of the 96-bit value
    l = TWO32 - l;
    let c = l === TWO32 ? 1 : 0;
    if (c) l = 0;
    mm = TWO32 - 1 - mm + c;
    c = mm === TWO32 ? 1 : 0;
    if (c) mm = 0;
    h = -h - 1 + c;
  }
  chunks[0] = Math.floor(h / 65536);
  chunks[1] = h % 65536;
  chunks[2] = Math.floor(mm / 65536);
  chunks[3] = mm % 65536;
  chunks[4] = Math.floor(l / 65536);
  chunks[5] = l % 65536;
  let rem = 0;
  // quotient as 16-bit digits, most significant first; only the low four can be non-zero
  let q3 = 0;
  let q2 = 0;
  let q1 = 0;
  let q0 = 0;
  for (let k = 0; k < 6; k++) {
    const cur = rem * 65536 + chunks[k]!; // < m · 2^16 < 2^48
    const d = Math.floor(cur / m);
    rem = cur - d * m;
    q3 = q2;
    q2 = q1;
    q1 = q0;
    q0 = d;
  }
  DIV[0] = q3 * 65536 + q2;
  DIV[1] = q1 * 65536 + q0;
  DIV[2] = rem;
  return neg;
}

/** round_half_even((h·2^64 + mm·2^32 + l) / m) into out32[2r..2r+1] (the result fits int64). */
export function meanOfWide(h: number, mm: number, l: number, m: number, out32: Uint32Array, r: number): void {
  const neg = divideWide(h, mm, l, m);
  let hi32 = DIV[0]!;
  let lo32 = DIV[1]!;
  const rem = DIV[2]!;
  if (2 * rem > m || (2 * rem === m && lo32 % 2 === 1)) {
    lo32 += 1;
    if (lo32 === TWO32) {
      lo32 = 0;
      hi32 += 1;
    }
  }
  if (neg) {
    lo32 = TWO32 - lo32;
    let c = lo32 === TWO32 ? 1 : 0;
    if (c) lo32 = 0;
    hi32 = (TWO32 - 1 - hi32 + c) % TWO32;
  }
  out32[2 * r] = lo32;
  out32[2 * r + 1] = hi32;
}

/**
 * (h·2^64 + mm·2^32 + l) / m as the float64 nearest the exact quotient (ties to even): the
 * exact integer quotient Q and remainder R, then Q + R/m rounded once at Q's precision. Dividing
 * the sum after rounding it to float64 rounds twice (off by an ulp, e.g. an int64 mean above
 * 2^51). The quotient must fit 64 bits (a mean of 64-bit integers does); m < 2^32.
 */
export function wideMean(h: number, mm: number, l: number, m: number): number {
  const neg = divideWide(h, mm, l, m);
  const qHi = DIV[0]!;
  const qLo = DIV[1]!;
  const R = DIV[2]!;
  let v: number;
  if (qHi === 0 && qLo === 0) v = R / m; // one IEEE division of exact operands
  else {
    const e = qHi > 0 ? 63 - Math.clz32(qHi) : 31 - Math.clz32(qLo); // Q's top bit
    const k = e - 52; // Q's ulp is 2^k where k > 0
    if (k >= 1) {
      // Round Q + R/m to a multiple of u = 2^k: the low k bits b of Q decide, R > 0 breaks a tie up.
      const u = 2 ** k;
      const b = qLo % u;
      const half = u / 2;
      const up = b > half || (b === half && (R > 0 || Math.floor(qLo / u) % 2 === 1));
      v = qHi * TWO32 + (qLo - b) + (up ? u : 0); // exact: a multiple of u below 2^(e+1)
    } else {
      // Q is exact; R/m to -k fraction bits: d = round_half_even(R·2^-k / m), by 16-bit steps.
      let rem = R;
      let d = 0;
      for (let left = -k; left > 0; ) {
        const step = Math.min(16, left);
        const cur = rem * 2 ** step; // < m · 2^16 < 2^48
        const digit = Math.floor(cur / m);
        rem = cur - digit * m;
        d = d * 2 ** step + digit;
        left -= step;
      }
      // A tie goes to the even result: its last bit is d's, or Q's own when there are no fraction bits.
      const odd = k === 0 ? qLo % 2 === 1 : d % 2 === 1;
      if (2 * rem > m || (2 * rem === m && odd)) d += 1;
      v = qHi * TWO32 + qLo + d * 2 ** k; // exact: a multiple of 2^k up to Q + 1
    }
  }
  return neg ? -v : v;
}
