/**
 * Exact wide integers without a BigInt per value: the one 32-bit word view of 64-bit typed
 * arrays, and the word arithmetic the kernels build on it (window RANGE frames, ASOF keys).
 *
 * - `words64(v)`: a Uint32Array over the same bytes (little-endian: lo word at 2i, hi at 2i+1);
 *   `highWords(v)` reads the hi words signed for BigInt64Array, unsigned for BigUint64Array, so
 *   row i is exactly `high[2i+1] * 2^32 + words[2i]`.
 * - Word vectors: an integer as K doubles, most significant first; words 1..K-1 lie in
 *   [0, 2^32), word 0 is any exact integer (it absorbs carries, so k ± offset never wraps).
 *   `splitWords` turns one bigint into such words (once per column or per offset, never per row).
 * - Limbs: x = h*2^64 + m*2^32 + l (m, l in [0, 2^32), h an exact integer double): `limbsOfWords`
 *   multiplies a 64-bit value by an integer factor < 2^48 exactly (16-bit pieces, every partial
 *   product < 2^53); `cmpLimbs`, `limbGap`, `addLimbs` compare, subtract and add them.
 * - `divWords`: floor division of a word pair by a positive divisor up to 2^37, exactly.
 * - word vectors: `subWordsInto`, `addWordsInto`, `negateWordsAt`, `cmpWordsAt`.
 */

export const TWO32 = 4294967296;
const TWO31 = 2147483648;

/**
 * Whether `hi` (a signed word) only extends the sign of `lo` (an unsigned 32-bit word): the
 * value fits the narrower width. For 96-bit limbs (h, m): the int64 (m, l) holds them; for
 * int64 words (hi, lo): an int32 holds the value.
 */
export function extendsSign(hi: number, lo: number): boolean {
  return lo < TWO31 ? hi === 0 : hi === -1;
}
const TWO16 = 65536;

/** The 32-bit words of a 64-bit typed array (lo word at 2i, hi word at 2i+1). */
export function words64(values: BigInt64Array | BigUint64Array | Float64Array): Uint32Array {
  return new Uint32Array(values.buffer, values.byteOffset, values.length * 2);
}

/** The same words with the hi words read with the array's signedness (row i's hi at 2i+1). */
export function highWords(values: BigInt64Array | BigUint64Array): Int32Array | Uint32Array {
  return values instanceof BigInt64Array ? int32Words(values) : words64(values);
}

/** The 32-bit words of any typed array as signed integers: 8-byte values of any type move as two. */
export function int32Words(values: ArrayBufferView): Int32Array {
  return new Int32Array(values.buffer, values.byteOffset, values.byteLength >>> 2);
}

/**
 * `v` as `k` words (most significant first), clamped to ±2^(32(k-1)+40) so the top word stays
 * an exact double; keys of k words span less than that, so no comparison changes.
 */
export function splitWords(v: bigint, k: number): number[] {
  const lim = 1n << BigInt(32 * (k - 1) + 40);
  const x = v > lim ? lim : v < -lim ? -lim : v;
  const out = new Array<number>(k);
  for (let i = k - 1; i > 0; i--) out[i] = Number((x >> BigInt(32 * (k - 1 - i))) & 0xffffffffn);
  out[0] = Number(x >> BigInt(32 * (k - 1)));
  return out;
}

/** Scratch limbs [h, m, l] of the last `limbsOfWords` / `limbGap` / `addLimbs` call. */
export const limbScratch = new Float64Array(3);

/**
 * (hi*2^32 + lo) * f as limbs into `limbScratch`, exactly; hi any integer with |hi| < 2^32 (hi
 * words of int64/uint64, or a split double), lo in [0, 2^32), f an integer in [1, 2^48).
 */
export function limbsOfWords(hi: number, lo: number, f: number): void {
  if (f === 1) {
    // the value itself: hi's sign extends into h
    limbScratch[0] = hi < 0 ? -1 : 0;
    limbScratch[1] = hi < 0 ? hi + TWO32 : hi;
    limbScratch[2] = lo;
    return;
  }
  const neg = hi < 0;
  if (neg) {
    // magnitude of a negative value: -(hi*2^32 + lo) = (-hi - 1)*2^32 + (2^32 - lo), or -hi*2^32
    if (lo === 0) hi = -hi;
    else {
      hi = -hi - 1;
      lo = TWO32 - lo;
    }
  }
  // 16-bit pieces of the magnitude (a) and of f (b); each product < 2^32, column sums < 2^35
  const a0 = lo % TWO16;
  const a1 = (lo - a0) / TWO16;
  const a2 = hi % TWO16;
  const a3 = (hi - a2) / TWO16;
  const b0 = f % TWO16;
  const r1 = (f - b0) / TWO16;
  const b1 = r1 % TWO16;
  const b2 = (r1 - b1) / TWO16;
  let c = a0 * b0;
  const p0 = c % TWO16;
  c = (c - p0) / TWO16 + a1 * b0 + a0 * b1;
  const p1 = c % TWO16;
  c = (c - p1) / TWO16 + a2 * b0 + a1 * b1 + a0 * b2;
  const p2 = c % TWO16;
  c = (c - p2) / TWO16 + a3 * b0 + a2 * b1 + a1 * b2;
  const p3 = c % TWO16;
  c = (c - p3) / TWO16 + a3 * b1 + a2 * b2;
  const p4 = c % TWO16;
  c = (c - p4) / TWO16 + a3 * b2; // the rest: < 2^48
  let l = p1 * TWO16 + p0;
  let m = p3 * TWO16 + p2;
  let h = c * TWO16 + p4;
  if (neg) {
    // two's complement of the magnitude, with h signed (floor semantics)
    if (l !== 0) {
      l = TWO32 - l;
      m = TWO32 - 1 - m;
      h = -h - 1;
    } else if (m !== 0) {
      m = TWO32 - m;
      h = -h - 1;
    } else h = -h;
  }
  limbScratch[0] = h;
  limbScratch[1] = m;
  limbScratch[2] = l;
}

/** (ah, am, al) + (bh, bm, bl) into `limbScratch`. */
export function addLimbs(ah: number, am: number, al: number, bh: number, bm: number, bl: number): void {
  let l = al + bl;
  let carry = 0;
  if (l >= TWO32) {
    l -= TWO32;
    carry = 1;
  }
  let m = am + bm + carry;
  carry = 0;
  if (m >= TWO32) {
    m -= TWO32;
    carry = 1;
  }
  limbScratch[0] = ah + bh + carry;
  limbScratch[1] = m;
  limbScratch[2] = l;
}

export function cmpLimbs(ah: number, am: number, al: number, bh: number, bm: number, bl: number): number {
  if (ah !== bh) return ah < bh ? -1 : 1;
  if (am !== bm) return am < bm ? -1 : 1;
  if (al !== bl) return al < bl ? -1 : 1;
  return 0;
}

/** |a - b| into `limbScratch`. */
export function limbGap(ah: number, am: number, al: number, bh: number, bm: number, bl: number): void {
  if (cmpLimbs(ah, am, al, bh, bm, bl) < 0) {
    let t = ah;
    ah = bh;
    bh = t;
    t = am;
    am = bm;
    bm = t;
    t = al;
    al = bl;
    bl = t;
  }
  let gl = al - bl;
  let borrow = 0;
  if (gl < 0) {
    gl += TWO32;
    borrow = 1;
  }
  let gm = am - bm - borrow;
  borrow = 0;
  if (gm < 0) {
    gm += TWO32;
    borrow = 1;
  }
  limbScratch[0] = ah - bh - borrow;
  limbScratch[1] = gm;
  limbScratch[2] = gl;
}

/** Scratch [quotient hi word (signed), quotient lo word, remainder] of the last `divWordsWide` call. */
export const wideDivScratch = new Float64Array(3);

/**
 * floor((hi*2^32 + lo) / d) as 64-bit words and the remainder in [0, d), exactly, into
 * `wideDivScratch`, for any quotient (divWords needs |quotient| <= 2^53); d an integer in
 * [1, 2^37].
 */
export function divWordsWide(hi: number, lo: number, d: number): void {
  const neg = hi < 0;
  let h = hi;
  let l = lo;
  if (neg) {
    // the magnitude
    if (l === 0) h = -h;
    else {
      h = -h - 1;
      l = TWO32 - l;
    }
  }
  // long division by 16-bit digits: each partial dividend < d * 2^16 <= 2^53, each digit < 2^16
  const h0 = h % TWO16;
  const l0 = l % TWO16;
  let x = (h - h0) / TWO16;
  const q3 = Math.floor(x / d);
  let r = x - q3 * d;
  x = r * TWO16 + h0;
  const q2 = Math.floor(x / d);
  r = x - q2 * d;
  x = r * TWO16 + (l - l0) / TWO16;
  const q1 = Math.floor(x / d);
  r = x - q1 * d;
  x = r * TWO16 + l0;
  const q0 = Math.floor(x / d);
  r = x - q0 * d;
  let qh = q3 * TWO16 + q2;
  let ql = q1 * TWO16 + q0;
  if (neg) {
    // floor of a negative quotient: -(q) - 1 when inexact = ~q (+ 1 when exact), in words
    qh = TWO32 - 1 - qh;
    ql = TWO32 - 1 - ql;
    if (r === 0) {
      ql += 1;
      if (ql === TWO32) {
        ql = 0;
        qh += 1;
      }
    } else r = d - r;
    qh = qh | 0;
  }
  wideDivScratch[0] = qh;
  wideDivScratch[1] = ql;
  wideDivScratch[2] = r;
}

/** Scratch [quotient, remainder] of the last `divWords` call. */
export const divScratch = new Float64Array(2);

/**
 * floor((hi*2^32 + lo) / d) and the remainder in [0, d), exactly, into `divScratch`; hi a
 * signed or unsigned 32-bit hi word, lo in [0, 2^32), d an integer <= 2^37 (so every partial
 * dividend r*2^16 + digit is an exact double) with |quotient| <= 2^53 (d >= 2^11 always is).
 */
export function divWords(hi: number, lo: number, d: number): void {
  divWordsWide(hi, lo, d);
  // the quotient's words as one number: exact while |quotient| <= 2^53
  divScratch[0] = wideDivScratch[0]! * TWO32 + wideDivScratch[1]!;
  divScratch[1] = wideDivScratch[2]!;
}

/** out = w[at..at+k) - x (word vectors, see above). */
export function subWordsInto(w: Float64Array, at: number, x: readonly number[], k: number, out: Float64Array): void {
  let borrow = 0;
  for (let i = k - 1; i > 0; i--) {
    let y = w[at + i]! - x[i]! - borrow;
    borrow = 0;
    if (y < 0) {
      y += TWO32;
      borrow = 1;
    }
    out[i] = y;
  }
  out[0] = w[at]! - x[0]! - borrow;
}

/** out = w[at..at+k) + x (word vectors, see above). */
export function addWordsInto(w: Float64Array, at: number, x: readonly number[], k: number, out: Float64Array): void {
  let carry = 0;
  for (let i = k - 1; i > 0; i--) {
    let y = w[at + i]! + x[i]! + carry;
    carry = 0;
    if (y >= TWO32) {
      y -= TWO32;
      carry = 1;
    }
    out[i] = y;
  }
  out[0] = w[at]! + x[0]! + carry;
}

/** sign(w[at..at+k) - t) for word vectors. */
export function cmpWordsAt(w: Float64Array, at: number, t: Float64Array, k: number): number {
  for (let i = 0; i < k; i++) {
    const a = w[at + i]!;
    const b = t[i]!;
    if (a !== b) return a < b ? -1 : 1;
  }
  return 0;
}

/** Negates the word vector w[at..at+k) in place. */
export function negateWordsAt(w: Float64Array, at: number, k: number): void {
  let borrow = 0;
  for (let i = k - 1; i > 0; i--) {
    let y = -w[at + i]! - borrow;
    borrow = 0;
    if (y < 0) {
      y += TWO32;
      borrow = 1;
    }
    w[at + i] = y;
  }
  w[at] = -w[at]! - borrow;
}

/**
 * Word sums of 64-bit integers (the low and the high 32-bit words of each value added into two
 * doubles, src/ops/group-accumulate and src/ops/dense-aggregate) stay exact while each has
 * taken fewer than 2^21 words: carried every WORD_SUM_CARRY_MASK + 1 values (2^20 × 2^32 < 2^53).
 */
export const WORD_SUM_CARRY_MASK = 0xfffff;

/** Word sums lo[l], hi[h] made canonical: the low sum's carries moved into the high one (mod 2^32), both in [0, 2^32). */
export function carryWordSums(lo: Float64Array, l: number, hi: Float64Array, h: number): void {
  const q = Math.floor(lo[l]! / TWO32);
  lo[l] = lo[l]! - q * TWO32;
  // x mod 2^32 by a floored quotient, exact below 2^53 and never negative: `%` on doubles is a
  // call to fmod (a dense group-by's merge carried 300k sums in ~9 ms with it).
  const top = hi[h]! + q;
  hi[h] = top - Math.floor(top / TWO32) * TWO32;
}
