/**
 * ASOF key normalization: one side's `on` column (a KeyColumn) into a `NormalizedKey`
 * (src/ops/asof-key-types), with no BigInt per row.
 *
 * - integer keys (any width/signedness) and temporal keys (DATE, TIMESTAMP; converted to the
 *   plan's common unit) become exact integers. When every valid value v satisfies |v| <= 2^52
 *   they are stored as doubles (`f64`, exact: differences stay <= 2^53, so double arithmetic on
 *   them is exact); else as three limbs `wide` (v = h*2^64 + m*2^32 + l), multiplied out of the
 *   raw 32-bit words exactly (src/ops/int64-words). With a common `base` for both sides
 *   (`asofKeyBase`: when keys are large but their span is <= 2^52, e.g. ns timestamps) the keys
 *   become exact doubles v - base instead (comparisons and gaps are unchanged by a common shift).
 * - float keys become doubles (-0 becomes +0, NaN rows are flagged invalid); string keys keep
 *   their bytes.
 * - DATE against a TIMESTAMP: a DATE is the instant of its midnight. Against a zoned TIMESTAMP
 *   that is the start of the day in `plan.dateZone` (src/ops/zone-midnights); against a
 *   zone-less TIMESTAMP it is UTC midnight (wall clock against wall clock).
 * `widenAsofKey` turns exact doubles into limbs; `permuteAsofKey` gathers a key into sorted order.
 * O(n) per column (plus one Intl lookup set per distinct DATE in the zoned case); `asofKeyBase`
 * takes a few BigInts per column.
 */
import type { TypeDesc } from '../types/column.js';
import type { KeyColumn } from '../types/keys.js';
import { NS_PER_UNIT, temporalUnit, UNIT_RANK, type AsofKeyPlan, type NormalizedKey } from './asof-key-types.js';
import { addLimbs, divScratch, divWords, highWords, limbScratch, limbsOfWords, TWO32 as P32, words64 } from './int64-words.js';
import { ZoneMidnights } from './zone-midnights.js';

const P52 = 4503599627370496;

/** How an integer/temporal column's raw values become integers in the plan's common unit. */
interface KeyConversion {
  /** non-zoned: v = raw * factor (an exact integer factor) */
  factor: number;
  /** zoned DATE: v = startOfDay(day) * secFactor (+ date64's remainder in ms) */
  zone: ZoneMidnights | null;
  msDate: boolean;
  secFactor: number;
}

function keyConversion(t: TypeDesc, plan: AsofKeyPlan): KeyConversion {
  let factor = 1;
  let zoneDays = false;
  if (plan.cls === 'temporal') {
    if (plan.unit === null) throw new TypeError('asof: temporal key plan without unit');
    const u = temporalUnit(t);
    if (UNIT_RANK[u] > UNIT_RANK[plan.unit]) throw new TypeError(`asof: unit ${u} finer than common unit ${plan.unit}`);
    factor = NS_PER_UNIT[u] / NS_PER_UNIT[plan.unit];
    if (t.kind === 'date' && plan.dateZone !== null) {
      zoneDays = true;
      if (UNIT_RANK[plan.unit] < UNIT_RANK.s) throw new TypeError('asof: zoned DATE midnights need a unit of seconds or finer');
    }
  } else if (t.kind !== 'int') throw new TypeError(`asof: integer key expected, got ${t.kind}`);
  return {
    factor,
    zone: zoneDays ? new ZoneMidnights(plan.dateZone!) : null,
    msDate: zoneDays && t.kind === 'date' && t.unit === 'ms',
    secFactor: zoneDays ? NS_PER_UNIT.s / NS_PER_UNIT[plan.unit!] : 1,
  };
}

/** 32-bit views of a 64-bit column (little-endian: lo word at 2i, hi word at 2i+1), else null. */
function wordViews(vals: KeyColumn['values']): { lo32: Uint32Array; hi32: Int32Array | Uint32Array } | null {
  if (!(vals instanceof BigInt64Array || vals instanceof BigUint64Array)) return null;
  return { lo32: words64(vals), hi32: highWords(vals) };
}

/*
 * Rebasing. Integer/temporal keys are compared only with each other and gaps are differences, so
 * both sides may be shifted by one common base B: v - B keeps every comparison and gap. Each
 * column is seen as exact integers w (its raw values; for zoned DATEs the day start in seconds,
 * or in ms for date64) times an integer factor F (w → common unit). With B = Bq*F + Br
 * (0 <= Br < F): v - B = (w - Bq)*F - Br, computed in doubles without a BigInt per row:
 * w - Bq from 32-bit words ((hi - bh)*2^32 + (lo - bl), exact while |w - Bq| < 2^53), then
 * *F and -Br, exact while |(w - Bq)*F| < 2^53. A base from asofKeyBase keeps every v - B in
 * [0, 2^52] (the span of both sides is <= 2^52), so all of it is exact and every difference of
 * two rebased keys is an exact double (|difference| <= 2^52).
 */

/** The factor F from a column's w values to the common unit. */
function wFactor(c: KeyConversion): number {
  return c.zone === null ? c.factor : c.msDate ? c.secFactor / 1000 : c.secFactor;
}

const P52n = 1n << 52n;

/** Largest |raw| of a zoned date64 value the rebased path accepts (keeps w and Bq exact doubles). */
const P51 = P52 / 2;

/** Range [min, max] of one column's valid w values (exact), null if it has no valid rows, undefined if unsupported. */
function wRange(col: KeyColumn, c: KeyConversion): [bigint, bigint] | null | undefined {
  const n = col.length;
  const valid = col.valid;
  const words = wordViews(col.values);
  if (words !== null && c.zone === null) {
    const { lo32, hi32 } = words;
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
 * w of row i as an exact double, for small (<= 32-bit) columns and zoned DATEs; NaN for a zoned
 * date64 value beyond ±2^51 ms (not rebased).
 */
function wAt(
  small: Exclude<KeyColumn['values'], BigInt64Array | BigUint64Array> | null,
  words: { lo32: Uint32Array; hi32: Int32Array | Uint32Array } | null,
  c: KeyConversion,
  i: number,
): number {
  const raw = small !== null ? small[i]! : words!.hi32[2 * i + 1]! * P32 + words!.lo32[2 * i]!;
  if (c.zone === null) return raw;
  if (!c.msDate) return c.zone.startOfDay(raw);
  if (!(Math.abs(raw) <= P51)) return NaN;
  const day = Math.floor(raw / 86_400_000);
  return c.zone.startOfDay(day) * 1000 + (raw - day * 86_400_000);
}

/**
 * A common base for both sides' keys of one task (in the plan's common unit), or null when none is
 * needed or possible: null for float/string keys, when every valid key already satisfies
 * |v| <= 2^52 (plain exact doubles), when there are no valid keys, or when the span of all valid
 * keys exceeds 2^52 (then the limb form is used). Otherwise the smallest valid key: every key
 * rebased by it lies in [0, 2^52]. Pass it to `normalizeAsofKey` for every side of the task.
 * O(n) over 32-bit words, a few BigInts per column.
 */
export function asofKeyBase(cols: KeyColumn[], plan: AsofKeyPlan): bigint | null {
  if (plan.cls !== 'integer' && plan.cls !== 'temporal') return null;
  let min: bigint | null = null;
  let max: bigint | null = null;
  for (const col of cols) {
    const c = keyConversion(col.type, plan);
    const r = wRange(col, c);
    if (r === undefined) return null;
    if (r === null) continue;
    const f = BigInt(wFactor(c));
    const lo = r[0] * f;
    const hi = r[1] * f;
    if (min === null || lo < min) min = lo;
    if (max === null || hi > max) max = hi;
  }
  if (min === null || max === null) return null;
  if (min >= -P52n && max <= P52n) return null;
  if (max - min > P52n) return null;
  return min;
}

/** `normalizeAsofKey` with a base: exact doubles v - base, no BigInt per row. */
function normalizeRebased(col: KeyColumn, c: KeyConversion, base: bigint): NormalizedKey {
  const n = col.length;
  const valid = col.valid === null ? null : col.valid.slice(0, n);
  const values = new Float64Array(n);
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

/**
 * Normalizes one side's key column (rows in the column's own order). With a `base` (from
 * `asofKeyBase` over both sides; integer/temporal keys only, ignored for float/string keys) the
 * result is the exact doubles v - base.
 */
export function normalizeAsofKey(col: KeyColumn, plan: AsofKeyPlan, base?: bigint | null): NormalizedKey {
  const t = col.type;
  const n = col.length;
  if (plan.cls === 'string') {
    if ((t.kind !== 'utf8' && t.kind !== 'largeUtf8') || col.offsets === null) throw new TypeError(`asof: string key expected, got ${t.kind}`);
    return { kind: 'utf8', bytes: col.values as Uint8Array, offsets: col.offsets, valid: col.valid };
  }
  if (plan.cls === 'float') {
    if (t.kind !== 'float') throw new TypeError(`asof: float key expected, got ${t.kind}`);
    const src = col.values as Float32Array | Float64Array;
    const values = new Float64Array(n);
    let valid: Uint8Array | null = col.valid === null ? null : col.valid.slice(0, n);
    for (let i = 0; i < n; i++) {
      const v = src[i]!;
      if (v !== v) {
        if (valid === null) valid = new Uint8Array(n).fill(1);
        valid[i] = 0;
        values[i] = 0;
      } else values[i] = v + 0; // -0 + 0 = +0
    }
    return { kind: 'f64', exact: false, values, valid };
  }
  // integer or temporal: exact integers in a common unit
  const conv = keyConversion(t, plan);
  if (base !== undefined && base !== null) return normalizeRebased(col, conv, base);
  const factor = conv.factor;
  const valid = col.valid === null ? null : col.valid.slice(0, n);
  const vals = col.values;
  const values = new Float64Array(n);
  let fits = true;
  // 64-bit values are read as 32-bit words (little-endian), never as BigInt.
  const words = wordViews(vals);
  const lo32 = words === null ? null : words.lo32;
  const hi32 = words === null ? null : words.hi32;
  const small = words === null ? (vals as Exclude<typeof vals, BigInt64Array | BigUint64Array>) : null;
  const zone = conv.zone;
  const msDate = conv.msDate;
  const secFactor = conv.secFactor;
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

/** An integer-valued double |x| < 2^64 times an integer f < 2^48, as limbs into limbScratch. */
function limbsOfDouble(x: number, f: number): void {
  const hi = Math.floor(x / P32);
  limbsOfWords(hi, x - hi * P32, f);
}

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
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

/** The key of sorted position p is `key[order[p]]`: gathers a key into sorted order. */
export function permuteAsofKey(key: NormalizedKey, order: ArrayLike<number>): NormalizedKey {
  const n = order.length;
  let valid: Uint8Array | null = null;
  if (key.valid !== null) {
    valid = new Uint8Array(n);
    for (let p = 0; p < n; p++) valid[p] = key.valid[order[p]!]!;
  }
  if (key.kind === 'f64') {
    const values = new Float64Array(n);
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
