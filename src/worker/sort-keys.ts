/**
 * Sort-key encoders: key columns -> Uint32Array words (most significant first) whose
 * lexicographic unsigned order is the wanted row order, for the radix argsort in ./sort.ts.
 *
 * Steps per column (encodeKeyField):
 *   1. map each valid value to an order-preserving unsigned integer u (up to 64 bits, lo/hi):
 *      signed ints flip the sign bit (64-bit: hi/lo words of a Uint32Array view, no BigInt);
 *      floats canonicalize (-0 -> +0, every NaN -> +NaN) then flip all bits when negative,
 *      else the sign bit (-Inf < ... < -0 = +0 < ... < +Inf < NaN); bool 0/1; date/timestamp/
 *      duration as their signed integer; utf8/binary as the dense rank of the row's bytes among
 *      the distinct values (distinct values sorted by unsigned bytes = UTF-8 code point order);
 *   2. range-reduce: u -= min over valid rows, so only log2(range) bits remain;
 *      DESC complements within the range: u = range - u;
 *   3. NULLs take a reserved code: 0 with valid values shifted +1 (NULLS FIRST) or range+1
 *      (NULLS LAST); only a full 64-bit range needs a separate 1-bit NULL field instead.
 * A field with range 0 (constant column) has 0 bits and disappears.
 * packFields concatenates fields MSB-first into ceil(totalBits / 32) words, so e.g. a group id
 * of 11 bits and a timestamp spanning 2^33 ms take 44 bits = 2 words, not 1 + 2; where it
 * saves radix passes the lower words hold 22 bits (two whole digits) instead of 32 (three
 * digits for 32 bits): 44 bits as 22 + 22 sort in 4 passes, as 32 + 12 in 5.
 * Invariants: equal keys (incl. NULL = NULL, NaN = NaN, -0 = +0) give equal words; the word
 * order is exactly the requested order. Complexity: O(n) per key (utf8: O(n + d log d) for d
 * distinct strings, the only comparator sort), no allocation per row.
 */
import type { KeyColumn, KeyField } from '../types/keys.js';
import { ExecutionError } from '../errors.js';
import { keyClass, KeyClass, words64 } from '../shuffle/hash.js';
import { groupIdsWithFirst } from './group-ids.js';
import { TWO32 } from '../ops/int64-words.js';

/** Source of temporary Uint32Arrays of length n (contents unspecified), e.g. a reused arena. */
export type Alloc = (n: number) => Uint32Array;
const freshAlloc: Alloc = (n) => new Uint32Array(n);

export interface SortOrder {
  descending: boolean;
  nullsFirst: boolean;
}

export interface SortKeySpec extends SortOrder {
  column: KeyColumn;
}

function bitLength32(x: number): number {
  return 32 - Math.clz32(x);
}

// Hot loops live in small functions: V8 optimizes each once and reuses it, instead of
// deoptimizing a large function at every loop it has not run yet.

/** float32 bits -> order-preserving unsigned (-0 -> +0, NaN -> +NaN above +Inf). */
function biasedFloat32(w: Uint32Array, n: number, lo: Uint32Array): void {
  for (let i = 0; i < n; i++) {
    let b = w[i]!;
    const mag = b & 0x7fffffff;
    if (mag > 0x7f800000) b = 0x7fc00000;
    else if (mag === 0) b = 0;
    lo[i] = b & 0x80000000 ? ~b : b | 0x80000000;
  }
}

function biasedSigned32(a: ArrayLike<number>, n: number, lo: Uint32Array): void {
  for (let i = 0; i < n; i++) lo[i] = a[i]! ^ 0x80000000;
}

function biasedUnsigned32(a: ArrayLike<number>, n: number, lo: Uint32Array): void {
  for (let i = 0; i < n; i++) lo[i] = a[i]!;
}

/** Step 1 for <= 32-bit values: biased unsigned value per row into lo (NULL rows: anything). */
function biased32(c: KeyColumn, n: number, lo: Uint32Array): void {
  const t = c.type;
  const v = c.values;
  if (t.kind === 'float') biasedFloat32(new Uint32Array(v.buffer, v.byteOffset, n), n, lo);
  else if (v instanceof Int32Array) biasedSigned32(v, n, lo); // int32, date32: the common case
  else if (t.kind === 'int' ? t.signed : t.kind !== 'bool') biasedSigned32(v as unknown as ArrayLike<number>, n, lo);
  else biasedUnsigned32(v as unknown as ArrayLike<number>, n, lo);
}

function biasedFloat64(w: Uint32Array, n: number, lo: Uint32Array, hi: Uint32Array): void {
  for (let i = 0; i < n; i++) {
    let l = w[2 * i]!;
    let h = w[2 * i + 1]!;
    const mag = h & 0x7fffffff;
    if (mag >= 0x7ff00000 && (mag > 0x7ff00000 || l !== 0)) {
      h = 0x7ff80000; // NaN
      l = 0;
    } else if (mag === 0 && l === 0) h = 0; // -0
    if (h & 0x80000000) {
      lo[i] = ~l;
      hi[i] = ~h;
    } else {
      lo[i] = l;
      hi[i] = h | 0x80000000;
    }
  }
}

function biasedInt64(w: Uint32Array, flip: number, n: number, lo: Uint32Array, hi: Uint32Array): void {
  for (let i = 0; i < n; i++) {
    lo[i] = w[2 * i]!;
    hi[i] = w[2 * i + 1]! ^ flip;
  }
}

/** Step 1 for 64-bit values: biased unsigned lo/hi words per row. */
function biased64(c: KeyColumn, n: number, lo: Uint32Array, hi: Uint32Array): void {
  const w = words64(c.values as BigInt64Array);
  if (c.type.kind === 'float') biasedFloat64(w, n, lo, hi);
  else biasedInt64(w, c.values instanceof BigUint64Array ? 0 : 0x80000000, n, lo, hi);
}

function compareBytes(bytes: Uint8Array, offs: Int32Array, a: number, b: number): number {
  const as = offs[a]!;
  const bs = offs[b]!;
  const la = offs[a + 1]! - as;
  const lb = offs[b + 1]! - bs;
  const m = la < lb ? la : lb;
  for (let k = 0; k < m; k++) {
    const d = bytes[as + k]! - bytes[bs + k]!;
    if (d !== 0) return d;
  }
  return la - lb;
}

function mapRanks(ids: Uint32Array, rankOf: Uint32Array, n: number, lo: Uint32Array): void {
  for (let i = 0; i < n; i++) lo[i] = rankOf[ids[i]!]!;
}

/** Step 1 for utf8/binary: dense rank of the row's bytes among distinct valid values. */
function ranks(c: KeyColumn, n: number, lo: Uint32Array): void {
  const { ids, groups, first } = groupIdsWithFirst([c], n, true);
  const bytes = c.values as Uint8Array;
  const offs = c.offsets!;
  const valid = c.valid;
  const reps: number[] = [];
  for (let g = 0; g < groups; g++) {
    const r = first[g]!;
    if (valid === null || valid[r] !== 0) reps.push(r);
  }
  reps.sort((a, b) => compareBytes(bytes, offs, a, b));
  const rankOf = new Uint32Array(groups);
  for (let r = 0; r < reps.length; r++) rankOf[ids[reps[r]!]!] = r;
  mapRanks(ids, rankOf, n, lo);
}

// min/max results of the last minMax* call (no allocation)
let minLo = 0;
let minHi = 0;
let maxLo = 0;
let maxHi = 0;
let nullCount = 0;

function minMax32(lo: Uint32Array, valid: Uint8Array | null, n: number): void {
  let mn = 0xffffffff;
  let mx = 0;
  let nulls = 0;
  for (let i = 0; i < n; i++) {
    if (valid !== null && valid[i] === 0) {
      nulls++;
      continue;
    }
    const x = lo[i]!;
    if (x < mn) mn = x;
    if (x > mx) mx = x;
  }
  minLo = mn;
  maxLo = mx;
  minHi = maxHi = 0;
  nullCount = nulls;
}

function minMax64(lo: Uint32Array, hi: Uint32Array, valid: Uint8Array | null, n: number): void {
  let mnL = 0xffffffff;
  let mnH = 0xffffffff;
  let mxL = 0;
  let mxH = 0;
  let nulls = 0;
  for (let i = 0; i < n; i++) {
    if (valid !== null && valid[i] === 0) {
      nulls++;
      continue;
    }
    const l = lo[i]!;
    const h = hi[i]!;
    if (h < mnH || (h === mnH && l < mnL)) {
      mnH = h;
      mnL = l;
    }
    if (h > mxH || (h === mxH && l > mxL)) {
      mxH = h;
      mxL = l;
    }
  }
  minLo = mnL;
  minHi = mnH;
  maxLo = mxL;
  maxHi = mxH;
  nullCount = nulls;
}

/** lo = desc ? max - lo : lo - min; NULL rows 0. */
function reduce32(lo: Uint32Array, valid: Uint8Array | null, n: number, min: number, max: number, desc: boolean): void {
  if (desc) for (let i = 0; i < n; i++) lo[i] = max - lo[i]!;
  else for (let i = 0; i < n; i++) lo[i] = lo[i]! - min;
  if (valid !== null) for (let i = 0; i < n; i++) if (valid[i] === 0) lo[i] = 0;
}

function reduce64Asc(lo: Uint32Array, hi: Uint32Array, n: number, mL: number, mH: number): void {
  for (let i = 0; i < n; i++) {
    const l = lo[i]!;
    lo[i] = l - mL;
    hi[i] = hi[i]! - mH - (l < mL ? 1 : 0);
  }
}

function reduce64Desc(lo: Uint32Array, hi: Uint32Array, n: number, mL: number, mH: number): void {
  for (let i = 0; i < n; i++) {
    const l = lo[i]!;
    lo[i] = mL - l;
    hi[i] = mH - hi[i]! - (mL < l ? 1 : 0);
  }
}

function zeroNulls(a: Uint32Array, valid: Uint8Array, n: number): void {
  for (let i = 0; i < n; i++) if (valid[i] === 0) a[i] = 0;
}

/** Valid rows += 1 (NULL rows stay 0), carrying into hi. */
function shiftValid(lo: Uint32Array, hi: Uint32Array | null, valid: Uint8Array, n: number): void {
  for (let i = 0; i < n; i++) {
    if (valid[i] === 0) continue;
    const l = lo[i]!;
    lo[i] = l + 1;
    if (l === 0xffffffff) hi![i]!++;
  }
}

function setNulls(lo: Uint32Array, hi: Uint32Array | null, valid: Uint8Array, n: number, cLo: number, cHi: number): void {
  for (let i = 0; i < n; i++) {
    if (valid[i] !== 0) continue;
    lo[i] = cLo;
    if (hi !== null) hi[i] = cHi;
  }
}

/**
 * Order-preserving fields of one key column (usually one; two when a full 64-bit range with
 * NULLs needs a separate NULL bit; none when every row is equal).
 */
export function encodeKeyField(c: KeyColumn, order: SortOrder, n: number = c.length, alloc: Alloc = freshAlloc): KeyField[] {
  if (c.type.kind === 'decimal') return decimalFields(c, order, n, alloc);
  const cls = keyClass(c.type);
  if (cls === KeyClass.Null || n === 0) return [];
  if (cls === KeyClass.Float && (c.type as { bits: number }).bits === 16) {
    throw new ExecutionError('UNSUPPORTED_KEY_TYPE', 'float16 is not supported as a sort key', { type: 'float16' });
  }
  const valid = c.valid;
  const wide = c.values instanceof BigInt64Array || c.values instanceof BigUint64Array || c.values instanceof Float64Array;
  const lo = alloc(n);
  let hi: Uint32Array | null = null;
  if (cls === KeyClass.Utf8 || cls === KeyClass.Binary) ranks(c, n, lo);
  else if (wide) {
    hi = alloc(n);
    biased64(c, n, lo, hi);
  } else biased32(c, n, lo);

  // step 2: range-reduce over valid rows
  if (hi === null) minMax32(lo, valid, n);
  else minMax64(lo, hi, valid, n);
  if (nullCount === n) return []; // all NULL: constant
  const nulls = nullCount;
  const mnL = minLo;
  const mnH = minHi;
  const mxL = maxLo;
  const mxH = maxHi;
  let rLo = (mxL - mnL) >>> 0;
  let rHi = (mxH - mnH - (mxL < mnL ? 1 : 0)) >>> 0;
  const desc = order.descending;
  if (hi === null) reduce32(lo, valid, n, mnL, mxL, desc);
  else {
    if (desc) reduce64Desc(lo, hi, n, mxL, mxH);
    else reduce64Asc(lo, hi, n, mnL, mnH);
    if (valid !== null) {
      zeroNulls(lo, valid, n);
      zeroNulls(hi, valid, n);
    }
  }
  // step 3: NULL code
  const fields: KeyField[] = [];
  if (nulls > 0) {
    const v = valid!;
    const first = order.nullsFirst;
    if (rLo === 0xffffffff && rHi === 0xffffffff) {
      // no spare code in 64 bits: a separate NULL bit, valid rows' bit = nullsFirst ? 1 : 0
      const bit = alloc(n);
      for (let i = 0; i < n; i++) bit[i] = (v[i] === 0) === first ? 0 : 1;
      fields.push({ bits: 1, lo: bit, hi: null });
    } else {
      if (rLo === 0xffffffff && hi === null) hi = alloc(n).fill(0); // range + 1 = 2^32
      if (first) shiftValid(lo, hi, v, n);
      else setNulls(lo, hi, v, n, (rLo + 1) >>> 0, rLo === 0xffffffff ? rHi + 1 : rHi);
      rHi = rLo === 0xffffffff ? rHi + 1 : rHi;
      rLo = (rLo + 1) >>> 0;
    }
  }
  const bits = rHi !== 0 ? 32 + bitLength32(rHi) : bitLength32(rLo);
  if (bits > 0) fields.push({ bits, lo, hi: bits > 32 ? hi : null });
  return fields;
}

/**
 * decimal128: the signed high 64 bits, then the unsigned low 64 bits, as two int64/uint64
 * fields (lexicographic order of the pair = numeric order; DESC complements both).
 */
function decimalFields(c: KeyColumn, order: SortOrder, n: number, alloc: Alloc): KeyField[] {
  const w = c.values as Uint32Array;
  const hiWords = new Uint32Array(2 * n);
  const loWords = new Uint32Array(2 * n);
  for (let i = 0; i < n; i++) {
    loWords[2 * i] = w[4 * i]!;
    loWords[2 * i + 1] = w[4 * i + 1]!;
    hiWords[2 * i] = w[4 * i + 2]!;
    hiWords[2 * i + 1] = w[4 * i + 3]!;
  }
  const hi: KeyColumn = { type: { kind: 'int', bits: 64, signed: true }, length: n, values: new BigInt64Array(hiWords.buffer), offsets: null, valid: c.valid };
  const lo: KeyColumn = { type: { kind: 'int', bits: 64, signed: false }, length: n, values: new BigUint64Array(loWords.buffer), offsets: null, valid: c.valid };
  return [...encodeKeyField(hi, order, n, alloc), ...encodeKeyField(lo, order, n, alloc)];
}

/** A dense group id (or any unsigned 32-bit key) as a field, range-reduced. */
export function groupIdField(ids: Uint32Array, n: number = ids.length, alloc: Alloc = freshAlloc): KeyField[] {
  let min = 0xffffffff;
  let max = 0;
  for (let i = 0; i < n; i++) {
    const x = ids[i]!;
    if (x < min) min = x;
    if (x > max) max = x;
  }
  if (n === 0 || max === min) return [];
  let lo = ids.length === n ? ids : ids.subarray(0, n);
  if (min !== 0) {
    lo = alloc(n);
    for (let i = 0; i < n; i++) lo[i] = ids[i]! - min;
  }
  return [{ bits: bitLength32(max - min), lo, hi: null }];
}

function orAligned(w: Uint32Array, a: Uint32Array, n: number): void {
  for (let i = 0; i < n; i++) w[i] |= a[i]!;
}

function orShifted(w0: Uint32Array, lo: Uint32Array, sh: number, n: number): void {
  for (let i = 0; i < n; i++) w0[i] |= lo[i]! << sh;
}

function orSplit(w0: Uint32Array, w1: Uint32Array, lo: Uint32Array, sh: number, n: number): void {
  const back = 32 - sh;
  for (let i = 0; i < n; i++) {
    const l = lo[i]!;
    w0[i] |= l << sh;
    w1[i] |= l >>> back;
  }
}

/** (hi, lo) << sh into w0 (low), w1 and w2 (high, may be null when those bits are zero). */
function orSplit64(w0: Uint32Array, w1: Uint32Array, w2: Uint32Array | null, lo: Uint32Array, hi: Uint32Array, sh: number, n: number): void {
  const back = 32 - sh;
  for (let i = 0; i < n; i++) {
    const l = lo[i]!;
    const h = hi[i]!;
    w0[i] |= l << sh;
    w1[i] |= (l >>> back) | (h << sh);
  }
  if (w2 !== null) for (let i = 0; i < n; i++) w2[i] |= hi[i]! >>> back;
}

/** Bits of one radix digit of ./sort's argsort (11 measured best against 8, 12 and 16). */
export const RADIX_DIGIT_BITS = 11;
/** The most bits a word holds in whole digits. */
const WHOLE_DIGITS_BITS = RADIX_DIGIT_BITS * Math.floor(32 / RADIX_DIGIT_BITS);

/**
 * Concatenate fields (first = most significant) into ceil(sum(bits) / 32) words, most
 * significant word first; the top word holds the leftover high bits, right-aligned. Two or
 * three words are laid out again with 22 bits in each lower word when that takes fewer radix
 * digits (`wholeDigitsPay`).
 */
export function packFields(all: KeyField[], n: number, alloc: Alloc = freshAlloc): Uint32Array[] {
  const fields = all.filter((f) => f.bits > 0);
  let total = 0;
  for (const f of fields) total += f.bits;
  if (total === 0) return [];
  if (fields.length === 1) {
    const f = fields[0]!;
    if (f.bits <= 32) return [f.lo];
    if (!wholeDigitsPay(total, 2)) return [f.hi!, f.lo];
  }
  if (fields.length === 2 && fields[0]!.hi === null && total <= 53 && (total > 32 || fields[1]!.hi === null)) return packTwo(fields[0]!, fields[1]!, total, n, alloc);
  const lsw = packAligned(fields, total, n, alloc);
  if (wholeDigitsPay(total, lsw.length)) {
    if (lsw.length === 2) resplit2(lsw[0]!, lsw[1]!, n);
    else resplit3(lsw[0]!, lsw[1]!, lsw[2]!, n);
  }
  return lsw.reverse();
}

/**
 * Two fields of at most 53 bits in all, the first of at most 32 (a group id before a key), in
 * one pass: each row's whole value is an exact double, cut where packFields would cut it.
 */
function packTwo(a: KeyField, b: KeyField, total: number, n: number, alloc: Alloc): Uint32Array[] {
  const scale = 2 ** b.bits;
  const w0 = alloc(n);
  if (total <= 32) {
    joinLow(a.lo, b.lo, scale, w0, n);
    return [w0];
  }
  const w1 = alloc(n);
  const cut = cutOf(total);
  if (b.hi === null) splitLow(a.lo, b.lo, scale, cut, w0, w1, n);
  else splitWide(a.lo, b.lo, b.hi, scale, cut, w0, w1, n);
  return [w1, w0];
}

/**
 * A group id of `groupBits` and an exact integer key, the field v - min of `keyBits` (invalid
 * rows: 0), packed as packFields packs the two fields, in one pass and without the key's words:
 * each row's group * 2^keyBits + (v - min) is an exact double. A negative group id counts as
 * `missing` (e.g. past the last group: rows that sort last). Every group (and `missing`) must be
 * below 2^groupBits and every valid v in [min, min + 2^keyBits), the two at most 53 bits: else
 * the words are wrong, not an error.
 */
export function packGroupAndExact(group: Int32Array, missing: number, groupBits: number, v: Float64Array, valid: Uint8Array | null, min: number, keyBits: number, n: number, alloc: Alloc = freshAlloc): Uint32Array[] {
  return packGroupAnd(
    groupBits,
    keyBits,
    n,
    alloc,
    (scale, w0) => joinExact(group, missing, v, valid, min, scale, w0, n),
    (scale, cut, w0, w1) => splitExact(group, missing, v, valid, min, scale, cut, w0, w1, n),
  );
}

/**
 * packGroupAndExact of a key given as 64-bit words and a factor (every row valid): v is
 * (hi * 2^32 + lo) * factor, the exact double src/ops/asof-normalize ScaledWordsKey describes.
 */
export function packGroupAndScaled(group: Int32Array, missing: number, groupBits: number, lo32: Uint32Array, hi32: Int32Array | Uint32Array, factor: number, min: number, keyBits: number, n: number, alloc: Alloc = freshAlloc): Uint32Array[] {
  return packGroupAnd(
    groupBits,
    keyBits,
    n,
    alloc,
    (scale, w0) => joinScaled(group, missing, lo32, hi32, factor, min, scale, w0, n),
    (scale, cut, w0, w1) => splitScaled(group, missing, lo32, hi32, factor, min, scale, cut, w0, w1, n),
  );
}

/** The words of a group and a key field of `keyBits`: one word up to 32 bits (`join`), else cut in two (`split`). */
function packGroupAnd(
  groupBits: number,
  keyBits: number,
  n: number,
  alloc: Alloc,
  join: (scale: number, w0: Uint32Array) => void,
  split: (scale: number, cut: number, w0: Uint32Array, w1: Uint32Array) => void,
): Uint32Array[] {
  const total = groupBits + keyBits;
  if (total > 53) throw new RangeError(`packGroupAnd: a group and a key of ${total} bits are more than a double holds exactly`);
  const scale = 2 ** keyBits;
  const w0 = alloc(n);
  if (total <= 32) {
    join(scale, w0);
    return [w0];
  }
  const w1 = alloc(n);
  split(scale, cutOf(total), w0, w1);
  return [w1, w0];
}

// joinScaled and splitScaled: the key as scaledWords (src/ops/asof-normalize) makes it, row by row.
function joinScaled(group: Int32Array, missing: number, lo32: Uint32Array, hi32: Int32Array | Uint32Array, factor: number, min: number, scale: number, w: Uint32Array, n: number): void {
  for (let i = 0; i < n; i++) {
    const g = group[i]!;
    w[i] = (g < 0 ? missing : g) * scale + ((hi32[2 * i + 1]! * TWO32 + lo32[2 * i]!) * factor - min);
  }
}

function splitScaled(group: Int32Array, missing: number, lo32: Uint32Array, hi32: Int32Array | Uint32Array, factor: number, min: number, scale: number, cut: number, w0: Uint32Array, w1: Uint32Array, n: number): void {
  const low = 2 ** cut;
  const inverse = 2 ** -cut;
  for (let i = 0; i < n; i++) {
    const g = group[i]!;
    putCut((g < 0 ? missing : g) * scale + ((hi32[2 * i + 1]! * TWO32 + lo32[2 * i]!) * factor - min), inverse, low, w0, w1, i);
  }
}

function joinExact(group: Int32Array, missing: number, v: Float64Array, valid: Uint8Array | null, min: number, scale: number, w: Uint32Array, n: number): void {
  for (let i = 0; i < n; i++) {
    const g = group[i]!;
    w[i] = (g < 0 ? missing : g) * scale + (valid === null || valid[i] !== 0 ? v[i]! - min : 0);
  }
}

/**
 * Row i's value c (an exact integer below 2^53) cut at 2^cut (22 or 32) into w1 (above) and w0
 * (below): the high part (c * 2^-cut) | 0 is below 2^31 and exact, a multiply and a truncation
 * instead of a division. Every two-word pack writes through this.
 */
function putCut(c: number, inverse: number, low: number, w0: Uint32Array, w1: Uint32Array, i: number): void {
  const h = (c * inverse) | 0;
  w1[i] = h;
  w0[i] = c - h * low;
}

/** splitLow for an exact key (a loop per NULL form: the common one has no NULL bytes). */
function splitExact(group: Int32Array, missing: number, v: Float64Array, valid: Uint8Array | null, min: number, scale: number, cut: number, w0: Uint32Array, w1: Uint32Array, n: number): void {
  const low = 2 ** cut;
  const inverse = 2 ** -cut;
  if (valid === null) {
    for (let i = 0; i < n; i++) {
      const g = group[i]!;
      putCut((g < 0 ? missing : g) * scale + (v[i]! - min), inverse, low, w0, w1, i);
    }
    return;
  }
  for (let i = 0; i < n; i++) {
    const g = group[i]!;
    putCut((g < 0 ? missing : g) * scale + (valid[i] !== 0 ? v[i]! - min : 0), inverse, low, w0, w1, i);
  }
}

function joinLow(a: Uint32Array, b: Uint32Array, scale: number, w: Uint32Array, n: number): void {
  for (let i = 0; i < n; i++) w[i] = a[i]! * scale + b[i]!;
}

function splitLow(a: Uint32Array, b: Uint32Array, scale: number, cut: number, w0: Uint32Array, w1: Uint32Array, n: number): void {
  const low = 2 ** cut;
  const inverse = 2 ** -cut;
  for (let i = 0; i < n; i++) putCut(a[i]! * scale + b[i]!, inverse, low, w0, w1, i);
}

function splitWide(a: Uint32Array, bLo: Uint32Array, bHi: Uint32Array, scale: number, cut: number, w0: Uint32Array, w1: Uint32Array, n: number): void {
  const low = 2 ** cut;
  const inverse = 2 ** -cut;
  for (let i = 0; i < n; i++) putCut(a[i]! * scale + bHi[i]! * TWO32 + bLo[i]!, inverse, low, w0, w1, i);
}

/** The bits of the low word when `total` bits (at most 64) are cut into words: all 32 of one word, else 22 or 32 of two. */
function cutOf(total: number): number {
  return total > 32 && wholeDigitsPay(total, 2) ? WHOLE_DIGITS_BITS : 32;
}

/** Radix digits of words of these widths. */
function digitCount(widths: number[]): number {
  return widths.reduce((t, w) => t + Math.ceil(w / RADIX_DIGIT_BITS), 0);
}

/**
 * Whether `words` (2 or 3) words of `total` bits take fewer digits with WHOLE_DIGITS_BITS in each
 * lower word than with 32 (e.g. 33 bits: 22 + 11 is 3 digits, 32 + 1 is 4).
 */
function wholeDigitsPay(total: number, words: number): boolean {
  if (words !== 2 && words !== 3) return false;
  const top = total - WHOLE_DIGITS_BITS * (words - 1);
  if (top > 32) return false;
  const aligned = Array.from({ length: words }, (_, k) => (k < words - 1 ? 32 : total - 32 * (words - 1)));
  const whole = Array.from({ length: words }, (_, k) => (k < words - 1 ? WHOLE_DIGITS_BITS : top));
  return digitCount(whole) < digitCount(aligned);
}

const WHOLE_DIGITS_MASK = (1 << WHOLE_DIGITS_BITS) - 1;

/** Two 32-bit-aligned words (low, high) in place as 22 low bits and the rest. */
function resplit2(w0: Uint32Array, w1: Uint32Array, n: number): void {
  for (let i = 0; i < n; i++) {
    const a = w0[i]!;
    w0[i] = a & WHOLE_DIGITS_MASK;
    w1[i] = (a >>> WHOLE_DIGITS_BITS) | (w1[i]! << (32 - WHOLE_DIGITS_BITS));
  }
}

/** Three 32-bit-aligned words (low first) in place as 22, 22 and the rest. */
function resplit3(w0: Uint32Array, w1: Uint32Array, w2: Uint32Array, n: number): void {
  const second = 2 * WHOLE_DIGITS_BITS - 32; // the bits of w1 the middle word takes
  for (let i = 0; i < n; i++) {
    const a = w0[i]!;
    const b = w1[i]!;
    w0[i] = a & WHOLE_DIGITS_MASK;
    w1[i] = ((a >>> WHOLE_DIGITS_BITS) | (b << (32 - WHOLE_DIGITS_BITS))) & WHOLE_DIGITS_MASK;
    w2[i] = (b >>> second) | (w2[i]! << (32 - second));
  }
}

/** The fields in ceil(total / 32) words, least significant first (the top one right-aligned). */
function packAligned(fields: KeyField[], total: number, n: number, alloc: Alloc): Uint32Array[] {
  const nw = Math.ceil(total / 32);
  const lsw: Uint32Array[] = []; // least significant first
  for (let k = 0; k < nw; k++) lsw.push(alloc(n).fill(0));
  let pos = total;
  for (const f of fields) {
    pos -= f.bits;
    const k = pos >>> 5;
    const sh = pos & 31;
    const w0 = lsw[k]!;
    const w1 = k + 1 < nw ? lsw[k + 1]! : null;
    const w2 = k + 2 < nw ? lsw[k + 2]! : null;
    if (sh === 0) {
      orAligned(w0, f.lo, n);
      if (f.hi !== null) orAligned(w1!, f.hi, n);
    } else if (w1 === null) orShifted(w0, f.lo, sh, n);
    else if (f.hi === null) orSplit(w0, w1, f.lo, sh, n);
    else orSplit64(w0, w1, w2, f.lo, f.hi, sh, n);
  }
  return lsw;
}

/** Fields' own words, most significant first, unpacked (for keys whose nominal bits overstate what varies: floats' and limbs'). */
export function fieldWords(fields: KeyField[]): Uint32Array[] {
  return fields.flatMap((f) => (f.hi === null ? [f.lo] : [f.hi, f.lo]));
}

/** Words of one key column alone (range-reduced, constant words dropped). */
export function encodeSortKey(column: KeyColumn, order: SortOrder, n: number = column.length): Uint32Array[] {
  return packFields(encodeKeyField(column, order, n), n);
}

/** A dense group id as (at most) one word; none when all ids are equal. */
export function encodeGroupIdKey(ids: Uint32Array, n: number = ids.length): Uint32Array[] {
  return packFields(groupIdField(ids, n), n);
}

/** Words of the whole key: `leading` (e.g. group ids, most significant) then the keys in order. */
export function encodeSortWords(keys: SortKeySpec[], n: number, leading?: Uint32Array, alloc: Alloc = freshAlloc): Uint32Array[] {
  const fields: KeyField[] = [];
  if (leading !== undefined) fields.push(...groupIdField(leading, n, alloc));
  for (const k of keys) fields.push(...encodeKeyField(k.column, k, n, alloc));
  return packFields(fields, n, alloc);
}
