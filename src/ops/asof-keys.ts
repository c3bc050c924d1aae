/**
 * ASOF join keys: normalization of the two `on` columns into one exact, comparable form, exact
 * gap arithmetic, and sortable word encodings.
 *
 * Steps
 * 1. `normalizeAsofKey(col, plan)` turns one side's KeyColumn into a `NormalizedKey`:
 *    - integer keys (any width/signedness) and temporal keys (DATE, TIMESTAMP; converted to the
 *      plan's common unit, the finest unit of both sides and of the tolerance) become exact
 *      integers. When every valid value v satisfies |v| <= 2^52 they are stored as doubles
 *      (`f64`, exact: differences stay <= 2^53, so double arithmetic on them is exact); else as
 *      three limbs `wide` (v = h*2^64 + m*2^32 + l, m,l in [0, 2^32), h a small signed integer).
 *      Only that fallback builds a BigInt per value; 64-bit inputs are read as 32-bit halves.
 *      With a common `base` for both sides (`asofKeyBase`: when keys are large but their span is
 *      <= 2^52, e.g. ns timestamps) the keys become exact doubles v - base instead, without a
 *      BigInt per row (comparisons and gaps are unchanged by a common shift).
 *    - float keys (float32/float64) become doubles (`f64`, not exact); -0 becomes +0, NaN rows
 *      are flagged invalid.
 *    - string keys keep their UTF-8 bytes and offsets (`utf8`), compared in byte order.
 *    `valid` marks rows that can match (0 = NULL or NaN; those never match).
 * 2. DATE against a TIMESTAMP: a DATE is the instant of its midnight. Against a zoned TIMESTAMP
 *    that is the start of the day in `plan.dateZone` (the join's `timeZone`, default UTC; in a
 *    DST gap at midnight the day starts at the transition; days outside JS Date's range use
 *    UTC); against a zone-less TIMESTAMP it is UTC midnight (wall clock against wall clock).
 *    Zoned timestamps compare as instants whatever their zone strings.
 * 3. Gaps |x - k| are exact: integers in limbs, doubles in double arithmetic where that is
 *    provably exact (rounding is monotone, so a strict double inequality between two rounded
 *    gaps holds exactly) and with BigInt rationals (v * 2^1074) only when rounded values tie.
 *    +Inf - +Inf is a zero gap (+Inf equals +Inf); any other gap to an infinity is infinite.
 * 4. `asofSortWords` encodes a key as 32-bit words, most significant first, whose lexicographic
 *    order is the key order (strings: a dense rank of the side's distinct values by byte order).
 *
 * Complexity: normalization O(n) (plus one Intl lookup set per distinct DATE in the zoned case;
 * string ranks O(n log n) comparisons); every comparison O(1) (strings O(length)).
 */
import type { TimeUnit, TypeDesc } from '../types/column.js';
import type { KeyColumn } from '../types/keys.js';

export type AsofKeyClass = 'integer' | 'float' | 'temporal' | 'string';
/** Temporal units, coarsest first; `day` is date32. */
export type AsofUnit = 'day' | TimeUnit;

/** How both key columns are brought to one comparable form (computed by resolveAsof). */
export interface AsofKeyPlan {
  cls: AsofKeyClass;
  /** temporal only: the common unit both sides are converted to (finest of sides and tolerance). */
  unit: AsofUnit | null;
  /** temporal only: zone of DATE midnights when the other side is a zoned TIMESTAMP; null = UTC. */
  dateZone: string | null;
}

export type NormalizedKey =
  /** doubles; `exact`: integers with |v| <= 2^52 (double arithmetic exact); else float keys. */
  | { kind: 'f64'; exact: boolean; values: Float64Array; valid: Uint8Array | null }
  /** exact integers v = h*2^64 + m*2^32 + l. */
  | { kind: 'wide'; h: Float64Array; m: Uint32Array; l: Uint32Array; valid: Uint8Array | null }
  /** UTF-8 strings; row i is bytes[offsets[i]..offsets[i+1]). */
  | { kind: 'utf8'; bytes: Uint8Array; offsets: Int32Array; valid: Uint8Array | null };

/**
 * An exact, non-negative tolerance in key units (the common unit for temporal keys).
 * `lo <= value <= hi` are doubles (equal when the value is a double); `h,m,l` its limbs.
 */
export interface NormalizedTolerance {
  readonly value: bigint | number;
  readonly unbounded: boolean;
  readonly lo: number;
  readonly hi: number;
  readonly h: number;
  readonly m: number;
  readonly l: number;
}

export const NS_PER_UNIT: Readonly<Record<AsofUnit, number>> = { day: 86_400e9, s: 1e9, ms: 1e6, us: 1e3, ns: 1 };
export const UNIT_RANK: Readonly<Record<AsofUnit, number>> = { day: 0, s: 1, ms: 2, us: 3, ns: 4 };

const P32 = 4294967296;
const P52 = 4503599627370496;

/** The temporal unit of a DATE/TIMESTAMP/DURATION type. */
export function temporalUnit(t: TypeDesc): AsofUnit {
  if (t.kind === 'date') return t.unit === 'day' ? 'day' : 'ms';
  if (t.kind === 'timestamp' || t.kind === 'duration') return t.unit;
  throw new Error(`not a temporal type: ${t.kind}`);
}

// ---------------------------------------------------------------------------------------------
// Tolerance

/** Builds a tolerance from an exact non-negative value (number: finite or +Infinity; bigint). */
export function makeAsofTolerance(value: number | bigint): NormalizedTolerance {
  if (typeof value === 'number') {
    if (!(value >= 0)) throw new RangeError(`tolerance must be >= 0, got ${value}`);
    if (value === Infinity) return { value, unbounded: true, lo: Infinity, hi: Infinity, h: Infinity, m: 0, l: 0 };
    const v = value === 0 ? 0 : value; // -0 → 0
    if (Number.isInteger(v) && v <= Number.MAX_SAFE_INTEGER * 2) {
      const [h, m, l] = limbsOfBig(BigInt(v));
      return { value: v, unbounded: false, lo: v, hi: v, h, m, l };
    }
    // a non-integer or huge double: limbs of its floor (only integer keys use limbs, and those
    // tolerances are integers or huge; huge doubles are integers)
    const f = BigInt(Math.floor(v));
    if (f >= 1n << 112n) return { value: v, unbounded: false, lo: v, hi: v, h: Infinity, m: 0, l: 0 };
    const [h, m, l] = limbsOfBig(f);
    return { value: v, unbounded: false, lo: v, hi: v, h, m, l };
  }
  if (value < 0n) throw new RangeError(`tolerance must be >= 0, got ${value}`);
  const d = Number(value);
  let lo = d;
  let hi = d;
  if (BigInt(d) !== value && Number.isFinite(d)) {
    if (BigInt(d) > value) lo = nextDown(d);
    else hi = nextUp(d);
  } else if (!Number.isFinite(d)) {
    lo = Number.MAX_VALUE;
    hi = Infinity;
  }
  if (value >= 1n << 112n) return { value, unbounded: false, lo, hi, h: Infinity, m: 0, l: 0 };
  const [h, m, l] = limbsOfBig(value);
  return { value, unbounded: false, lo, hi, h, m, l };
}

function nextUp(d: number): number {
  const f = new Float64Array([d]);
  const b = new BigInt64Array(f.buffer);
  b[0] = d >= 0 ? b[0]! + 1n : b[0]! - 1n;
  return f[0]!;
}
function nextDown(d: number): number {
  const f = new Float64Array([d]);
  const b = new BigInt64Array(f.buffer);
  b[0] = d > 0 ? b[0]! - 1n : b[0]! + 1n;
  return f[0]!;
}

function limbsOfBig(v: bigint): [number, number, number] {
  return [Number(v >> 64n), Number((v >> 32n) & 0xffffffffn), Number(v & 0xffffffffn)];
}

// ---------------------------------------------------------------------------------------------
// Normalization

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
function wordViews(vals: KeyColumn['values'], n: number): { lo32: Uint32Array; hi32: Int32Array | Uint32Array } | null {
  if (!(vals instanceof BigInt64Array || vals instanceof BigUint64Array)) return null;
  return {
    lo32: new Uint32Array(vals.buffer, vals.byteOffset, 2 * n),
    hi32: vals instanceof BigInt64Array ? new Int32Array(vals.buffer, vals.byteOffset, 2 * n) : new Uint32Array(vals.buffer, vals.byteOffset, 2 * n),
  };
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
  const words = wordViews(col.values, n);
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
  const words = wordViews(col.values, n);
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
  // 64-bit values are read as 32-bit halves (little-endian), never as BigInt here.
  const is64 = vals instanceof BigInt64Array || vals instanceof BigUint64Array;
  const lo32 = is64 ? new Uint32Array(vals.buffer, vals.byteOffset, 2 * n) : null;
  const hi32: Int32Array | Uint32Array | null = is64
    ? vals instanceof BigInt64Array
      ? new Int32Array(vals.buffer, vals.byteOffset, 2 * n)
      : new Uint32Array(vals.buffer, vals.byteOffset, 2 * n)
    : null;
  const small = is64 ? null : (vals as Exclude<typeof vals, BigInt64Array | BigUint64Array>);
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

  // Fallback: exact limbs through BigInt (only values beyond ±2^52 in the common unit).
  const h = new Float64Array(n);
  const m = new Uint32Array(n);
  const l = new Uint32Array(n);
  const bigFactor = BigInt(factor);
  const bigSec = BigInt(secFactor);
  for (let i = 0; i < n; i++) {
    if (valid !== null && valid[i] === 0) continue;
    let big: bigint;
    if (zone !== null) {
      const raw = small !== null ? BigInt(small[i]!) : BigInt((vals as BigInt64Array)[i]!);
      if (msDate) {
        const day = floorDiv(raw, 86_400_000n);
        big = BigInt(zone.startOfDay(Number(day))) * bigSec + (raw - day * 86_400_000n) * (bigSec / 1000n);
      } else big = BigInt(zone.startOfDay(Number(raw))) * bigSec;
    } else {
      const raw = small !== null ? BigInt(small[i]!) : (vals as BigInt64Array | BigUint64Array)[i]!;
      big = raw * bigFactor;
    }
    const [hh, mm, ll] = limbsOfBig(big);
    h[i] = hh;
    m[i] = mm;
    l[i] = ll;
  }
  return { kind: 'wide', h, m, l, valid };
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

// ---------------------------------------------------------------------------------------------
// DATE midnights in a zone

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      era: 'short',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, f);
  }
  return f;
}

/** Largest |epoch seconds| handled through Intl (JS Date's range, with a margin). */
const MAX_ZONE_SEC = 8.64e12 - 4 * 86400;

/** local wall clock minus UTC, in seconds, at instant `sec` (epoch seconds). */
export function zoneOffsetSeconds(zone: string, sec: number): number {
  if (Math.abs(sec) > MAX_ZONE_SEC) return 0;
  const parts = formatter(zone).formatToParts(new Date(sec * 1000));
  let y = 0;
  let mo = 0;
  let d = 0;
  let hh = 0;
  let mi = 0;
  let ss = 0;
  let bc = false;
  for (const p of parts) {
    switch (p.type) {
      case 'year':
        y = Number(p.value);
        break;
      case 'month':
        mo = Number(p.value);
        break;
      case 'day':
        d = Number(p.value);
        break;
      case 'hour':
        hh = Number(p.value);
        break;
      case 'minute':
        mi = Number(p.value);
        break;
      case 'second':
        ss = Number(p.value);
        break;
      case 'era':
        bc = p.value === 'BC' || p.value === 'B';
        break;
    }
  }
  const date = new Date(0);
  date.setUTCFullYear(bc ? 1 - y : y, mo - 1, d);
  date.setUTCHours(hh, mi, ss, 0);
  return date.getTime() / 1000 - sec;
}

/** Start (epoch seconds) of local calendar day `day` (days since 1970-01-01) in a zone, cached. */
export class ZoneMidnights {
  private readonly cache = new Map<number, number>();
  constructor(readonly zone: string) {}
  startOfDay(day: number): number {
    const hit = this.cache.get(day);
    if (hit !== undefined) return hit;
    const L = day * 86400;
    let r: number;
    if (Math.abs(L) > MAX_ZONE_SEC) r = L;
    else {
      const o1 = zoneOffsetSeconds(this.zone, L);
      const o2 = zoneOffsetSeconds(this.zone, L - 86400);
      const o3 = zoneOffsetSeconds(this.zone, L + 86400);
      let best = Infinity;
      for (const o of [o1, o2, o3]) {
        const t = L - o;
        if (t < best && zoneOffsetSeconds(this.zone, t) === o) best = t;
      }
      // no local midnight (DST gap or skipped day): the day starts at the transition
      r = best !== Infinity ? best : L - Math.min(o1, o2, o3);
    }
    this.cache.set(day, r);
    return r;
  }
}

// ---------------------------------------------------------------------------------------------
// Exact double helpers

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

/** Exact sign of (s - x) - (x - p) for finite doubles: compares 2x with p + s. */
function exactGapSignF(x: number, p: number, s: number): number {
  const a = scaledDouble(s) - scaledDouble(x);
  const b = scaledDouble(x) - scaledDouble(p);
  const aa = a < 0n ? -a : a;
  const bb = b < 0n ? -b : b;
  return aa < bb ? -1 : aa > bb ? 1 : 0;
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
  if (d === Infinity) return false; // tol finite here
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

// ---------------------------------------------------------------------------------------------
// Exact limb helpers (v = h*2^64 + m*2^32 + l)

/** Scratch for limb gaps: [gh, gm, gl] of the last `limbGap` call. */
export const limbScratch = new Float64Array(3);

export function cmpLimbs(ah: number, am: number, al: number, bh: number, bm: number, bl: number): number {
  if (ah !== bh) return ah < bh ? -1 : 1;
  if (am !== bm) return am < bm ? -1 : 1;
  if (al !== bl) return al < bl ? -1 : 1;
  return 0;
}

/** |a - b| into limbScratch. */
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
    gl += P32;
    borrow = 1;
  }
  let gm = am - bm - borrow;
  borrow = 0;
  if (gm < 0) {
    gm += P32;
    borrow = 1;
  }
  limbScratch[0] = ah - bh - borrow;
  limbScratch[1] = gm;
  limbScratch[2] = gl;
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

// ---------------------------------------------------------------------------------------------
// Strings

/** UTF-8 byte-order comparison of row i of (ab, ao) with row j of (bb, bo). */
export function compareUtf8(ab: Uint8Array, ao: Int32Array, i: number, bb: Uint8Array, bo: Int32Array, j: number): number {
  let p = ao[i]!;
  const pe = ao[i + 1]!;
  let q = bo[j]!;
  const qe = bo[j + 1]!;
  while (p < pe && q < qe) {
    const d = ab[p]! - bb[q]!;
    if (d !== 0) return d < 0 ? -1 : 1;
    p++;
    q++;
  }
  return p < pe ? 1 : q < qe ? -1 : 0;
}

// ---------------------------------------------------------------------------------------------
// Generic comparisons between a left key and a right key (any mix of representations)

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

// ---------------------------------------------------------------------------------------------
// Sort words

/**
 * The key as unsigned 32-bit words, most significant first; lexicographic word order equals the
 * key order. f64 exact: 2 words (v + 2^52); float: 2 words (IEEE bits, sign-flipped);
 * wide: 4 words (h + 2^52 in two words, m, l); utf8: 1 word, the dense rank of the value among
 * this side's distinct values in byte order (so only valid for sorting this side).
 * Invalid rows (NULL/NaN) get all-zero words; the kernel ignores them wherever they sort.
 */
export function asofSortWords(key: NormalizedKey): Uint32Array[] {
  const valid = key.valid;
  if (key.kind === 'f64') {
    const n = key.values.length;
    const w0 = new Uint32Array(n);
    const w1 = new Uint32Array(n);
    const v = key.values;
    if (key.exact) {
      for (let i = 0; i < n; i++) {
        if (valid !== null && valid[i] === 0) continue;
        const b = v[i]! + P52;
        const hi = Math.floor(b / P32);
        w0[i] = hi;
        w1[i] = b - hi * P32;
      }
    } else {
      const bits = new Uint32Array(v.buffer, v.byteOffset, 2 * n);
      for (let i = 0; i < n; i++) {
        if (valid !== null && valid[i] === 0) continue;
        const hi = bits[2 * i + 1]!;
        const lo = bits[2 * i]!;
        if (hi >>> 31) {
          w0[i] = ~hi >>> 0;
          w1[i] = ~lo >>> 0;
        } else {
          w0[i] = (hi | 0x80000000) >>> 0;
          w1[i] = lo;
        }
      }
    }
    return [w0, w1];
  }
  if (key.kind === 'wide') {
    const n = key.h.length;
    const w0 = new Uint32Array(n);
    const w1 = new Uint32Array(n);
    for (let i = 0; i < n; i++) {
      if (valid !== null && valid[i] === 0) continue;
      const b = key.h[i]! + P52;
      const hi = Math.floor(b / P32);
      w0[i] = hi;
      w1[i] = b - hi * P32;
    }
    const m = key.m.slice();
    const l = key.l.slice();
    if (valid !== null) for (let i = 0; i < n; i++) if (valid[i] === 0) m[i] = l[i] = 0;
    return [w0, w1, m, l];
  }
  return [utf8Ranks(key)];
}

/** Dense ranks (1-based; invalid rows 0) of a side's strings in UTF-8 byte order. */
/**
 * Dense byte-order ranks of one side's strings, by a comparator sort of every valid row:
 * the simple reference; the worker ranks distinct values only (src/worker/sort-keys).
 */
export function utf8Ranks(key: Extract<NormalizedKey, { kind: 'utf8' }>): Uint32Array {
  const n = key.offsets.length - 1;
  const rank = new Uint32Array(n);
  const ids: number[] = [];
  for (let i = 0; i < n; i++) if (key.valid === null || key.valid[i] !== 0) ids.push(i);
  const { bytes, offsets } = key;
  ids.sort((a, b) => compareUtf8(bytes, offsets, a, bytes, offsets, b));
  let r = 0;
  for (let t = 0; t < ids.length; t++) {
    if (t === 0 || compareUtf8(bytes, offsets, ids[t - 1]!, bytes, offsets, ids[t]!) !== 0) r++;
    rank[ids[t]!] = r;
  }
  return rank;
}

/** Number of rows of a normalized key. */
export function asofKeyLength(key: NormalizedKey): number {
  return key.kind === 'f64' ? key.values.length : key.kind === 'wide' ? key.h.length : key.offsets.length - 1;
}
