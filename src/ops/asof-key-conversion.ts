/**
 * How an integer/temporal ASOF key column's raw values become exact integers in the plan's
 * common unit: an integer factor, or (a DATE against a zoned TIMESTAMP) the day's start in the
 * zone times a factor; plus the 32-bit word views of 64-bit columns.
 */
import type { TypeDesc } from '../types/column.js';
import type { KeyColumn } from '../types/keys.js';
import { NS_PER_UNIT, temporalUnit, UNIT_RANK, type AsofKeyPlan } from './asof-key-types.js';
import { highWords, TWO32 as P32, words64 } from './int64-words.js';
import { ZoneMidnights } from './zone-midnights.js';

const P51 = 4503599627370496 / 2;

/** How an integer/temporal column's raw values become integers in the plan's common unit. */
export interface KeyConversion {
  /** non-zoned: v = raw * factor (an exact integer factor) */
  factor: number;
  /** zoned DATE: v = startOfDay(day) * secFactor (+ date64's remainder in ms) */
  zone: ZoneMidnights | null;
  msDate: boolean;
  secFactor: number;
}

export function keyConversion(t: TypeDesc, plan: AsofKeyPlan): KeyConversion {
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
export function wordViews(vals: KeyColumn['values']): { lo32: Uint32Array; hi32: Int32Array | Uint32Array } | null {
  if (!(vals instanceof BigInt64Array || vals instanceof BigUint64Array)) return null;
  return { lo32: words64(vals), hi32: highWords(vals) };
}

/** The factor F from a column's w values to the common unit. */
export function wFactor(c: KeyConversion): number {
  return c.zone === null ? c.factor : c.msDate ? c.secFactor / 1000 : c.secFactor;
}

/**
 * w of row i as an exact double, for small (<= 32-bit) columns and zoned DATEs; NaN for a zoned
 * date64 value beyond ±2^51 ms (not rebased).
 */
export function wAt(
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

