/**
 * ASOF key rebasing: a common base for both sides' integer/temporal keys of one task, and the
 * keys as exact doubles v - base (no BigInt per row), when the keys are large (beyond ±2^52 in
 * the common unit, e.g. ns timestamps) but their span is not.
 */
import type { Allocator, KeyColumn } from '../types/keys.js';
import type { AsofKeyPlan, NormalizedKey } from './asof-key-types.js';
import { keyConversion, wAt, wFactor, wordViews, type KeyConversion } from './asof-key-conversion.js';
import { TWO32 as P32 } from './int64-words.js';

const P52 = 4503599627370496;

/*
 * Rebasing. Integer/temporal keys are compared only with each other and gaps are differences, so
 * both sides may be shifted by one common base B: v - B keeps every comparison and gap. Each
 * column is seen as exact integers w (its raw values; for zoned DATEs the day start in seconds,
 * or in ms for date64) times an integer factor F (w → common unit). With B = Bq*F + Br
 * (0 <= Br < F): v - B = (w - Bq)*F - Br, computed in doubles without a BigInt per row:
 * w - Bq from 32-bit words ((hi - bh)*2^32 + (lo - bl), exact while |w - Bq| < 2^53), then
 * *F and -Br, exact while |(w - Bq)*F| < 2^53. A base from asofKeyRanges keeps every v - B in
 * [0, 2^52] (the span of both sides is <= 2^52), so all of it is exact and every difference of
 * two rebased keys is an exact double (|difference| <= 2^52).
 */

const P52n = 1n << 52n;
const P53 = 2 ** 53;

/** The least and greatest hi * 2^32 + lo of n rows, as doubles (n = 0: [Infinity, -Infinity], which fails the check). */
function doublesRange(lo32: Uint32Array, hi32: Int32Array | Uint32Array, n: number): [number, number] {
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < n; i++) {
    const x = hi32[2 * i + 1]! * P32 + lo32[2 * i]!;
    min = x < min ? x : min;
    max = x > max ? x : max;
  }
  return [min, max];
}
/** Range [min, max] of one column's valid w values (exact), null if it has no valid rows, undefined if unsupported. */
function wRange(col: KeyColumn, c: KeyConversion): [bigint, bigint] | null | undefined {
  const n = col.length;
  const valid = col.valid;
  const words = wordViews(col.values);
  if (words !== null && c.zone === null) {
    const { lo32, hi32 } = words;
    // As doubles first, branch-free: rounding never reverses an order, so the extremes' doubles
    // are the doubles of the extremes, exact below 2^53 (microseconds since 1970 are ~2^51).
    // (skipped when the first row is already past 2^53, as ns timestamps are: the words' loop decides)
    const near = valid === null && n > 0 && Math.abs(hi32[1]! * P32 + lo32[0]!) < P53 ? doublesRange(lo32, hi32, n) : null;
    if (near !== null && Math.abs(near[0]) < P53 && Math.abs(near[1]) < P53) return [BigInt(near[0]), BigInt(near[1])];
    let minH = Infinity;
    let minL = 0;
    let maxH = -Infinity;
    let maxL = 0;
    for (let i = 0; i < n; i++) {
      if (valid !== null && valid[i] === 0) continue;
      const h = hi32[2 * i + 1]!;
      const l = lo32[2 * i]!;
      if (h < minH || (h === minH && l < minL)) {
        minH = h;
        minL = l;
      }
      if (h > maxH || (h === maxH && l > maxL)) {
        maxH = h;
        maxL = l;
      }
    }
    if (minH === Infinity) return null;
    return [(BigInt(minH) << 32n) + BigInt(minL), (BigInt(maxH) << 32n) + BigInt(maxL)];
  }
  const small = words === null ? (col.values as Exclude<KeyColumn['values'], BigInt64Array | BigUint64Array>) : null;
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < n; i++) {
    if (valid !== null && valid[i] === 0) continue;
    const w = wAt(small, words, c, i);
    if (w !== w) return undefined;
    if (w < min) min = w;
    if (w > max) max = w;
  }
  if (min === Infinity) return null;
  return [BigInt(min), BigInt(max)];
}


/**
 * `base`: a common base for both sides' keys of one task (in the plan's common unit), or null
 * when none is needed or possible: null for float/string keys, when every valid key already
 * satisfies |v| <= 2^52 (plain exact doubles), when there are no valid keys, or when the span
 * of all valid keys exceeds 2^52 (then the limb form is used). Otherwise the smallest valid key:
 * every key rebased by it lies in [0, 2^52]. Pass it to `normalizeAsofKey` for every side of
 * the task. `spans`: what the same pass over the words also gives, each column's least and
 * greatest valid key as `normalizeAsofKey` with that base makes them (exact doubles; null: no
 * valid key); null where the keys do not become exact doubles (float and string keys, limbs,
 * values that cannot be rebased). O(n) over 32-bit words, a few BigInts per column.
 */
export function asofKeyRanges(cols: KeyColumn[], plan: AsofKeyPlan): { base: bigint | null; spans: Array<[number, number] | null> | null } {
  const none = { base: null, spans: null };
  if (plan.cls !== 'integer' && plan.cls !== 'temporal') return none;
  let min: bigint | null = null;
  let max: bigint | null = null;
  const scaled: Array<[bigint, bigint] | null> = [];
  for (const col of cols) {
    const c = keyConversion(col.type, plan);
    const r = wRange(col, c);
    if (r === undefined) return none;
    if (r === null) {
      scaled.push(null);
      continue;
    }
    // a key is w * F in the common unit (rebased: less the base)
    const f = BigInt(wFactor(c));
    const lo = r[0] * f;
    const hi = r[1] * f;
    scaled.push([lo, hi]);
    if (min === null || lo < min) min = lo;
    if (max === null || hi > max) max = hi;
  }
  if (min === null || max === null) return { base: null, spans: scaled.map(() => null) };
  if (max - min > P52n && !(min >= -P52n && max <= P52n)) return none;
  const base = min >= -P52n && max <= P52n ? null : min;
  const shift = base ?? 0n;
  return { base, spans: scaled.map((r) => (r === null ? null : [Number(r[0] - shift), Number(r[1] - shift)])) };
}

/** A column's NULL bytes for its first n rows, copied (the key's own), or null. */
export function copyValid(valid: Uint8Array | null, n: number, alloc: Allocator): Uint8Array | null {
  if (valid === null) return null;
  const out = alloc(Uint8Array, n, 'overwritten');
  out.set(valid.subarray(0, n));
  return out;
}

/** `normalizeAsofKey` with a base: exact doubles v - base, no BigInt per row. */
export function normalizeRebased(col: KeyColumn, c: KeyConversion, base: bigint, alloc: Allocator): NormalizedKey {
  const n = col.length;
  const valid = copyValid(col.valid, n, alloc);
  const values = alloc(Float64Array, n); // invalid rows stay 0
  const F = wFactor(c);
  const bigF = BigInt(F);
  const Bq = floorDiv(base, bigF);
  const Br = Number(base - Bq * bigF); // in [0, F)
  const words = wordViews(col.values);
  // rounding is monotone, so a key that does not fit the base shows as a result beyond ±2^52
  let fits = true;
  if (words !== null && c.zone === null) {
    const { lo32, hi32 } = words;
    const bh = Number(Bq >> 32n);
    const bl = Number(Bq & 0xffffffffn);
    for (let i = 0; i < n; i++) {
      if (valid !== null && valid[i] === 0) continue;
      const v = ((hi32[2 * i + 1]! - bh) * P32 + (lo32[2 * i]! - bl)) * F - Br;
      if (!(v >= -P52 && v <= P52)) fits = false;
      values[i] = v;
    }
  } else {
    const small = words === null ? (col.values as Exclude<KeyColumn['values'], BigInt64Array | BigUint64Array>) : null;
    const bq = Number(Bq);
    // every valid w is an exact double below 2^53 in magnitude, so w - bq is exact when bq is
    const bqExact = Math.abs(bq) <= 2 ** 53;
    for (let i = 0; i < n && fits; i++) {
      if (valid !== null && valid[i] === 0) continue;
      if (!bqExact) fits = false;
      const v = (wAt(small, words, c, i) - bq) * F - Br; // NaN for an unsupported zoned date64
      if (!(v >= -P52 && v <= P52)) fits = false;
      values[i] = v;
    }
  }
  if (!fits) throw new RangeError('asof: key base does not fit the key column');
  return { kind: 'f64', exact: true, values, valid };
}

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}

