/**
 * Sliding sums and averages of DECIMAL128 measures (unscaled 128-bit integers, four 32-bit
 * words per row), by prefix differences of ONE exact prefix per measure.
 *
 * 1. Range check per task: Σ|x| < 2^52 ⇒ a float64 prefix is exact (fast path).
 * 2. Otherwise a 160-bit two's-complement prefix in five 32-bit limbs (four unsigned, the top one
 *    signed; |prefix| < 2^159 for n < 2^32 rows): differences are exact.
 * sum: decimal128(38, s), exact; a frame sum of more than 38 digits is NULL (as Spark without
 * ANSI mode): no wrapping, no silent loss. avg: float64, the correctly rounded exact
 * sum / (count · 10^s) (one IEEE division when both are exact doubles, else window-exact's
 * ratioToDouble). Outputs are written as words, never through BigInt on the fast path.
 * Cost: O(n) per measure + O(1) per row per column.
 */
import type { Allocator, KeyColumn } from '../types/keys.js';
import { ratioToDouble } from './window-exact.js';

const TWO32 = 4294967296;

export type DecimalPrefix =
  | { kind: 'f64'; P: Float64Array }
  | { kind: 'limbs'; L: Uint32Array; H: Int32Array };

export function decimalPrefix(col: KeyColumn, n: number, alloc: Allocator = (ctor, length) => new ctor(length)): DecimalPrefix {
  const w = col.values as Uint32Array;
  const valid = col.valid;
  let abs = 0;
  for (let i = 0; i < n; i++) {
    if (valid && valid[i] === 0) continue;
    const x = (((w[4 * i + 3]! | 0) * TWO32 + w[4 * i + 2]!) * TWO32 + w[4 * i + 1]!) * TWO32 + w[4 * i]!;
    abs += Math.abs(x);
  }
  if (abs < 2 ** 52) {
    const P = alloc(Float64Array, n + 1);
    let acc = 0;
    for (let i = 0; i < n; i++) {
      // |x| < 2^52: words 2 and 3 are a sign extension of word 1.
      if (!valid || valid[i] !== 0) acc += (w[4 * i + 1]! | 0) * TWO32 + w[4 * i]!;
      P[i + 1] = acc;
    }
    return { kind: 'f64', P };
  }
  // L[5 * i + k], k < 4: unsigned words of prefix i; H[i]: the signed fifth word.
  const L = alloc(Uint32Array, 4 * (n + 1));
  const H = alloc(Int32Array, n + 1);
  let l0 = 0;
  let l1 = 0;
  let l2 = 0;
  let l3 = 0;
  let h = 0;
  for (let i = 0; i < n; i++) {
    if (!valid || valid[i] !== 0) {
      const x3 = w[4 * i + 3]!;
      l0 += w[4 * i]!;
      let c = l0 >= TWO32 ? 1 : 0;
      if (c) l0 -= TWO32;
      l1 += w[4 * i + 1]! + c;
      c = l1 >= TWO32 ? 1 : 0;
      if (c) l1 -= TWO32;
      l2 += w[4 * i + 2]! + c;
      c = l2 >= TWO32 ? 1 : 0;
      if (c) l2 -= TWO32;
      l3 += x3 + c;
      c = l3 >= TWO32 ? 1 : 0;
      if (c) l3 -= TWO32;
      h += c - (x3 >= 0x80000000 ? 1 : 0); // sign extension of x into the fifth word
    }
    L[4 * (i + 1)] = l0;
    L[4 * (i + 1) + 1] = l1;
    L[4 * (i + 1) + 2] = l2;
    L[4 * (i + 1) + 3] = l3;
    H[i + 1] = h;
  }
  return { kind: 'limbs', L, H };
}

/**
 * The exact sum of rows [0, n) of a prefix as five words: four unsigned (least significant
 * first) and a signed fifth, the limbs path's representation (a float64 prefix's total is an
 * integer below 2^52 in magnitude).
 */
export function decimalTotal(prefix: DecimalPrefix, n: number): { words: [number, number, number, number]; top: number } {
  if (prefix.kind === 'limbs') {
    const L = prefix.L;
    return { words: [L[4 * n]!, L[4 * n + 1]!, L[4 * n + 2]!, L[4 * n + 3]!], top: prefix.H[n]! };
  }
  const s = prefix.P[n]!;
  const hw = Math.floor(s / TWO32);
  const ext = hw < 0 ? TWO32 - 1 : 0;
  return { words: [s - hw * TWO32, hw < 0 ? hw + TWO32 : hw, ext, ext], top: hw < 0 ? -1 : 0 };
}

/**
 * Sums of pieces (decimalTotal's words) added into one, then sum and/or avg of that total over
 * `count` values exactly as decimalSumAvg gives them for one frame (NULL past 38 digits or
 * without a value): what a whole-input aggregate merged piece by piece returns.
 */
export function decimalMergedSumAvg(
  totals: Array<{ words: readonly number[]; top: number }>,
  count: number,
  scale: number,
  out: Uint32Array | null,
  avg: Float64Array | null,
): Uint8Array | null {
  const w = [0, 0, 0, 0];
  let top = 0;
  for (const t of totals) {
    let carry = 0;
    for (let k = 0; k < 4; k++) {
      const x = w[k]! + t.words[k]! + carry;
      carry = x >= TWO32 ? 1 : 0;
      w[k] = carry ? x - TWO32 : x;
    }
    top += t.top + carry;
  }
  // A prefix of two entries: zero, then the total (|total| < 2^159: the fifth word is an int32).
  const L = Uint32Array.of(0, 0, 0, 0, w[0]!, w[1]!, w[2]!, w[3]!);
  const H = Int32Array.of(0, top);
  return decimalSumAvg({ kind: 'limbs', L, H }, Int32Array.of(0), Int32Array.of(1), Int32Array.of(0, count), scale, 1, out, avg, () => new Uint8Array(1).fill(1));
}

// 10^38 as words, least significant first.
const E38 = [0x00000000, 0x098a2240, 0x5a86c47a, 0x4b3b4ca8];

/** |d| < 10^38 for the 128-bit two's-complement value d (words, least significant first). */
function within38(d0: number, d1: number, d2: number, d3: number): boolean {
  if (d3 >= 0x80000000) {
    // magnitude = two's-complement negation
    d0 = TWO32 - d0;
    let c = d0 === TWO32 ? 1 : 0;
    if (c) d0 = 0;
    d1 = TWO32 - 1 - d1 + c;
    c = d1 === TWO32 ? 1 : 0;
    if (c) d1 = 0;
    d2 = TWO32 - 1 - d2 + c;
    c = d2 === TWO32 ? 1 : 0;
    if (c) d2 = 0;
    d3 = TWO32 - 1 - d3 + c;
  }
  const d = [d0, d1, d2, d3];
  for (let k = 3; k >= 0; k--) if (d[k] !== E38[k]) return d[k]! < E38[k]!;
  return false;
}

const scratch = new Float64Array(5);

/** Frame r's exact sum as five words in `scratch` (limbs path). */
function diffLimbs(L: Uint32Array, H: Int32Array, a: number, b: number): void {
  let borrow = 0;
  for (let k = 0; k < 4; k++) {
    let d = L[4 * b + k]! - L[4 * a + k]! - borrow;
    borrow = d < 0 ? 1 : 0;
    if (borrow) d += TWO32;
    scratch[k] = d;
  }
  scratch[4] = H[b]! - H[a]! - borrow;
}

function limbsToBig(): bigint {
  return (BigInt(scratch[4]!) << 128n) + (BigInt(scratch[3]!) << 96n) + (BigInt(scratch[2]!) << 64n) + (BigInt(scratch[1]!) << 32n) + BigInt(scratch[0]!);
}

/**
 * Sums into out (4 words per row) and/or averages into avg; rows whose frame has fewer than
 * `minCount` non-NULL values, or whose sum needs more than 38 digits, are marked NULL.
 */
export function decimalSumAvg(
  prefix: DecimalPrefix,
  lo: Int32Array,
  hi: Int32Array,
  counts: Int32Array | null,
  scale: number,
  minCount: number,
  out: Uint32Array | null,
  avg: Float64Array | null,
  makeValid: () => Uint8Array,
): Uint8Array | null {
  const n = lo.length;
  let valid: Uint8Array | null = null;
  const pow = 10 ** scale;
  const bigPow = 10n ** BigInt(scale);
  for (let r = 0; r < n; r++) {
    const a = lo[r]!;
    const b = hi[r]!;
    const m = counts ? counts[b]! - counts[a]! : b - a;
    if (m < minCount) {
      valid ??= makeValid();
      valid[r] = 0;
      continue;
    }
    if (prefix.kind === 'f64') {
      const s = prefix.P[b]! - prefix.P[a]!;
      if (out) {
        const hw = Math.floor(s / TWO32);
        const ext = hw < 0 ? TWO32 - 1 : 0;
        out[4 * r] = s - hw * TWO32;
        out[4 * r + 1] = hw;
        out[4 * r + 2] = ext;
        out[4 * r + 3] = ext;
      }
      if (avg) {
        const den = m * pow;
        avg[r] = scale <= 22 && den <= 2 ** 53 ? s / den : ratioToDouble(BigInt(s), BigInt(m) * bigPow);
      }
      continue;
    }
    diffLimbs(prefix.L, prefix.H, a, b);
    if (out) {
      const d3 = scratch[3]!;
      const fits128 = scratch[4] === (d3 >= 0x80000000 ? -1 : 0);
      if (!fits128 || !within38(scratch[0]!, scratch[1]!, scratch[2]!, d3)) {
        valid ??= makeValid();
        valid[r] = 0;
        continue;
      }
      for (let k = 0; k < 4; k++) out[4 * r + k] = scratch[k]!;
    }
    if (avg) avg[r] = ratioToDouble(limbsToBig(), BigInt(m) * bigPow);
  }
  return valid;
}

/** The exact frame sum by a direct fold (naive path), with the same NULL rules. */
export function decimalSumAvgNaive(
  col: KeyColumn,
  lo: Int32Array,
  hi: Int32Array,
  scale: number,
  minCount: number,
  out: Uint32Array | null,
  avg: Float64Array | null,
  makeValid: () => Uint8Array,
): Uint8Array | null {
  const w = col.values as Uint32Array;
  const cv = col.valid;
  let valid: Uint8Array | null = null;
  const bigPow = 10n ** BigInt(scale);
  const lim = 10n ** 38n;
  for (let r = 0; r < lo.length; r++) {
    let m = 0;
    let s = 0n;
    for (let j = lo[r]!; j < hi[r]!; j++) {
      if (cv && cv[j] === 0) continue;
      m++;
      s += BigInt.asIntN(128, (BigInt(w[4 * j + 3]!) << 96n) | (BigInt(w[4 * j + 2]!) << 64n) | (BigInt(w[4 * j + 1]!) << 32n) | BigInt(w[4 * j]!));
    }
    if (m < minCount || (out && (s >= lim || s <= -lim))) {
      valid ??= makeValid();
      valid[r] = 0;
      continue;
    }
    if (out) {
      const u = BigInt.asUintN(128, s);
      for (let k = 0; k < 4; k++) out[4 * r + k] = Number((u >> BigInt(32 * k)) & 0xffffffffn);
    }
    if (avg) avg[r] = ratioToDouble(s, BigInt(m) * bigPow);
  }
  return valid;
}
