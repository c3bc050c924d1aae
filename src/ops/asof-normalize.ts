/**
 * ASOF key normalization: one side's `on` column (a KeyColumn) into a `NormalizedKey`
 * (src/ops/asof-key-types), with no BigInt per row.
 *
 * - integer keys (any width/signedness) and temporal keys (DATE, TIMESTAMP; converted to the
 *   plan's common unit) become exact integers. When every valid value v satisfies |v| <= 2^52
 *   they are stored as doubles (`f64`, exact: differences stay <= 2^53, so double arithmetic on
 *   them is exact); else as three limbs `wide` (v = h*2^64 + m*2^32 + l), multiplied out of the
 *   raw 32-bit words exactly (src/ops/int64-words). With a common `base` for both sides
 *   (`asofKeyRanges`' base: when keys are large but their span is <= 2^52, e.g. ns timestamps) the keys
 *   become exact doubles v - base instead (comparisons and gaps are unchanged by a common shift).
 * - float keys become doubles (-0 becomes +0, NaN rows are flagged invalid); string keys keep
 *   their bytes.
 * - DATE against a TIMESTAMP: a DATE is the instant of its midnight. Against a zoned TIMESTAMP
 *   that is the start of the day in `plan.dateZone` (src/ops/zone-midnights); against a
 *   zone-less TIMESTAMP it is UTC midnight (wall clock against wall clock).
 * `widenAsofKey` turns exact doubles into limbs; `permuteAsofKey` gathers a key into sorted order.
 * O(n) per column (plus one Intl lookup set per distinct DATE in the zoned case); `asofKeyRanges`
 * takes a few BigInts per column.
 */
import type { Allocator, KeyColumn } from '../types/keys.js';
import { localAlloc } from '../columns/arena.js';
import type { AsofKeyPlan, NormalizedKey } from './asof-key-types.js';
import { copyValid, normalizeRebased } from './asof-key-base.js';
import { keyConversion, wordViews } from './asof-key-conversion.js';
import { addLimbs, divScratch, divWords, limbScratch, limbsOfWords, TWO32 as P32 } from './int64-words.js';

const P52 = 4503599627370496;

/**
 * Normalizes one side's key column (rows in the column's own order). With a `base` (from
 * `asofKeyRanges` over both sides; integer/temporal keys only, ignored for float/string keys) the
 * result is the exact doubles v - base.
 */
export function normalizeAsofKey(col: KeyColumn, plan: AsofKeyPlan, base?: bigint | null, alloc: Allocator = localAlloc): NormalizedKey {
  const t = col.type;
  const n = col.length;
  if (plan.cls === 'string') {
    if ((t.kind !== 'utf8' && t.kind !== 'largeUtf8') || col.offsets === null) throw new TypeError(`asof: string key expected, got ${t.kind}`);
    return { kind: 'utf8', bytes: col.values as Uint8Array, offsets: col.offsets, valid: col.valid };
  }
  if (plan.cls === 'float') {
    if (t.kind !== 'float') throw new TypeError(`asof: float key expected, got ${t.kind}`);
    const src = col.values as Float32Array | Float64Array;
    const values = alloc(Float64Array, n, 'overwritten');
    let valid: Uint8Array | null = copyValid(col.valid, n, alloc);
    for (let i = 0; i < n; i++) {
      const v = src[i]!;
      if (v !== v) {
        if (valid === null) valid = alloc(Uint8Array, n, 'overwritten').fill(1);
        valid[i] = 0;
        values[i] = 0;
      } else values[i] = v + 0; // -0 + 0 = +0
    }
    return { kind: 'f64', exact: false, values, valid };
  }
  // integer or temporal: exact integers in a common unit
  const conv = keyConversion(t, plan);
  if (base !== undefined && base !== null) return normalizeRebased(col, conv, base, alloc);
  const factor = conv.factor;
  const valid = copyValid(col.valid, n, alloc);
  const vals = col.values;
  const values = alloc(Float64Array, n); // invalid rows stay 0
  let fits = true;
  // 64-bit values are read as 32-bit words (little-endian), never as BigInt.
  const words = wordViews(vals);
  const lo32 = words === null ? null : words.lo32;
  const hi32 = words === null ? null : words.hi32;
  const small = words === null ? (vals as Exclude<typeof vals, BigInt64Array | BigUint64Array>) : null;
  const zone = conv.zone;
  const msDate = conv.msDate;
  const secFactor = conv.secFactor;
  // The common case (64-bit keys without NULLs or zones) in a loop of its own, branch-free.
  if (words !== null && zone === null && valid === null && scaledWords(words.lo32, words.hi32, factor, values, n) <= P52) return { kind: 'f64', exact: true, values, valid };
  for (let i = 0; i < n; i++) {
    if (valid !== null && valid[i] === 0) continue;
    let raw = small !== null ? small[i]! : hi32![2 * i + 1]! * P32 + lo32![2 * i]!;
    let v: number;
    if (zone !== null) {
      if (msDate) {
        // date64: the day of the value plus its (normally zero) remainder in ms
        const day = Math.floor(raw / 86_400_000);
        const rem = raw - day * 86_400_000;
        v = zone.startOfDay(day) * secFactor + rem * (secFactor / 1000);
        if (Math.abs(raw) > P52) fits = false;
      } else v = zone.startOfDay(raw) * secFactor;
    } else v = raw * factor;
    if (!(Math.abs(v) <= P52)) fits = false;
    values[i] = v;
  }
  if (fits) return { kind: 'f64', exact: true, values, valid };

  // Fallback: exact limbs from 32-bit words (only values beyond ±2^52 in the common unit).
  const h = new Float64Array(n);
  const m = new Uint32Array(n);
  const l = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    if (valid !== null && valid[i] === 0) continue;
    let rh: number;
    let rl: number;
    if (small !== null) {
      const x = small[i]!;
      rh = Math.floor(x / P32);
      rl = x - rh * P32;
    } else {
      rh = hi32![2 * i + 1]!;
      rl = lo32![2 * i]!;
    }
    if (zone === null) limbsOfWords(rh, rl, factor);
    else if (!msDate) limbsOfDouble(zone.startOfDay(rh * P32 + rl), secFactor);
    else {
      // date64: the start of the value's day plus its (normally zero) remainder in ms
      divWords(rh, rl, 86_400_000);
      const rem = divScratch[1]!;
      limbsOfDouble(zone.startOfDay(divScratch[0]!), secFactor);
      const sh = limbScratch[0]!;
      const sm = limbScratch[1]!;
      const sl = limbScratch[2]!;
      limbsOfWords(0, rem, secFactor / 1000);
      addLimbs(sh, sm, sl, limbScratch[0]!, limbScratch[1]!, limbScratch[2]!);
    }
    h[i] = limbScratch[0]!;
    m[i] = limbScratch[1]!;
    l[i] = limbScratch[2]!;
  }
  return { kind: 'wide', h, m, l, valid };
}

/** values[i] = (hi * 2^32 + lo) * factor for n rows; returns the greatest |value| (NaN never: integers). */
function scaledWords(lo32: Uint32Array, hi32: Int32Array | Uint32Array, factor: number, values: Float64Array, n: number): number {
  let most = 0;
  for (let i = 0; i < n; i++) {
    const v = (hi32[2 * i + 1]! * P32 + lo32[2 * i]!) * factor;
    values[i] = v;
    const a = v < 0 ? -v : v;
    most = a > most ? a : most;
  }
  return most;
}

/**
 * A key whose normalized doubles are (hi * 2^32 + lo) * factor row by row (normalizeAsofKey's
 * common case, scaledWords): a 64-bit integer or temporal column without NULLs or a zone, no
 * base, every value within ±2^52 in the common unit. A task sorts such a key from its words and
 * makes the doubles in sorted order only (permuteScaledKey): the pass that wrote them in row
 * order and the permutation that read them again become one gather.
 */
export interface ScaledWordsKey {
  lo32: Uint32Array;
  hi32: Int32Array | Uint32Array;
  factor: number;
}

/**
 * `col`'s scaled-words form, or null; `base` and `span` are asofKeyRanges' for it (span: the
 * normalized extremes; with no base every key of the task is within ±2^52 already).
 */
export function scaledWordsKey(col: KeyColumn, plan: AsofKeyPlan, base: bigint | null, span: [number, number] | null | undefined): ScaledWordsKey | null {
  if ((plan.cls !== 'integer' && plan.cls !== 'temporal') || base !== null || !span || col.valid !== null) return null;
  const words = wordViews(col.values);
  if (words === null) return null;
  const conv = keyConversion(col.type, plan);
  if (conv.zone !== null) return null;
  return { lo32: words.lo32, hi32: words.hi32, factor: conv.factor };
}

/** permuteAsofKey of a scaled-words key: the doubles of rows order[0], order[1]... (what normalizeAsofKey then permuteAsofKey give). */
export function permuteScaledKey(key: ScaledWordsKey, order: ArrayLike<number>, alloc: Allocator = localAlloc): NormalizedKey {
  const n = order.length;
  const values = alloc(Float64Array, n, 'overwritten');
  gatherScaled(key.lo32, key.hi32, key.factor, order, values, n);
  return { kind: 'f64', exact: true, values, valid: null };
}

/** The doubles as scaledWords makes them, gathered by `order`. */
function gatherScaled(lo32: Uint32Array, hi32: Int32Array | Uint32Array, factor: number, order: ArrayLike<number>, values: Float64Array, n: number): void {
  for (let p = 0; p < n; p++) {
    const i = order[p]!;
    values[p] = (hi32[2 * i + 1]! * P32 + lo32[2 * i]!) * factor;
  }
}

/** An integer-valued double |x| < 2^64 times an integer f < 2^48, as limbs into limbScratch. */
function limbsOfDouble(x: number, f: number): void {
  const hi = Math.floor(x / P32);
  limbsOfWords(hi, x - hi * P32, f);
}

/** Converts an exact `f64` key to limbs (for comparison against a `wide` key). */
export function widenAsofKey(key: NormalizedKey): Extract<NormalizedKey, { kind: 'wide' }> {
  if (key.kind === 'wide') return key;
  if (key.kind !== 'f64' || !key.exact) throw new TypeError('asof: only exact integer keys widen');
  const n = key.values.length;
  const h = new Float64Array(n);
  const m = new Uint32Array(n);
  const l = new Uint32Array(n);
  const v = key.values;
  for (let i = 0; i < n; i++) {
    const x = v[i]!;
    const q = Math.floor(x / P32); // |q| <= 2^20
    const r = x - q * P32;
    if (q < 0) {
      h[i] = -1;
      m[i] = q + P32;
    } else {
      h[i] = 0;
      m[i] = q;
    }
    l[i] = r;
  }
  return { kind: 'wide', h, m, l, valid: key.valid };
}

/**
 * The key of sorted position p is `key[order[p]]`: gathers a key into sorted order (its NULL
 * bytes and a doubles key's values from `alloc`; limbs and strings new).
 */
export function permuteAsofKey(key: NormalizedKey, order: ArrayLike<number>, alloc: Allocator = localAlloc): NormalizedKey {
  const n = order.length;
  let valid: Uint8Array | null = null;
  if (key.valid !== null) {
    valid = alloc(Uint8Array, n, 'overwritten');
    for (let p = 0; p < n; p++) valid[p] = key.valid[order[p]!]!;
  }
  if (key.kind === 'f64') {
    const values = alloc(Float64Array, n, 'overwritten');
    for (let p = 0; p < n; p++) values[p] = key.values[order[p]!]!;
    return { kind: 'f64', exact: key.exact, values, valid };
  }
  if (key.kind === 'wide') {
    const h = new Float64Array(n);
    const m = new Uint32Array(n);
    const l = new Uint32Array(n);
    for (let p = 0; p < n; p++) {
      const i = order[p]!;
      h[p] = key.h[i]!;
      m[p] = key.m[i]!;
      l[p] = key.l[i]!;
    }
    return { kind: 'wide', h, m, l, valid };
  }
  let total = 0;
  for (let p = 0; p < n; p++) total += key.offsets[order[p]! + 1]! - key.offsets[order[p]!]!;
  const bytes = new Uint8Array(total);
  const offsets = new Int32Array(n + 1);
  let at = 0;
  for (let p = 0; p < n; p++) {
    const i = order[p]!;
    const s = key.offsets[i]!;
    const e = key.offsets[i + 1]!;
    bytes.set(key.bytes.subarray(s, e), at);
    at += e - s;
    offsets[p + 1] = at;
  }
  return { kind: 'utf8', bytes, offsets, valid };
}
