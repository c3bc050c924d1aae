/**
 * Calendar helpers for casts between dates/timestamps and strings (proleptic Gregorian, UTC).
 * Days ↔ civil dates use Howard Hinnant's `days_from_civil` / `civil_from_days` (exact for
 * any int32 day count). Formats: date 'YYYY-MM-DD'; timestamp 'YYYY-MM-DD HH:MM:SS' plus a
 * fraction with the unit's digits (3/6/9) when non-zero, plus 'Z' for zoned timestamps (the
 * instant is printed in UTC). Parsing accepts 'YYYY-MM-DD', then optionally 'T' or ' ' and
 * 'HH:MM[:SS[.fraction]]', then optionally 'Z' or '±HH[:]MM'.
 */
import { civilFromDays, daysFromCivil } from '../io/temporal-text.js';
import type { TimeUnit } from '../types/column.js';

/** Nanoseconds per unit; 'day' is the date32 unit. */
export const NANOS: Record<TimeUnit | 'day', bigint> = { day: 86_400_000_000_000n, s: 1_000_000_000n, ms: 1_000_000n, us: 1_000n, ns: 1n };

// One copy of the calendar arithmetic: the CSV reader/writer's (src/io/temporal-text).
export { civilFromDays, daysFromCivil };

function pad(n: number, w: number): string {
  const s = String(Math.abs(n)).padStart(w, '0');
  return n < 0 ? `-${s}` : s;
}

export function formatDate(days: number): string {
  const [y, m, d] = civilFromDays(days);
  return `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`;
}

const FRACTION_DIGITS: Record<TimeUnit, number> = { s: 0, ms: 3, us: 6, ns: 9 };

/** `v` counts `unit`s since the epoch. */
export function formatTimestamp(v: bigint, unit: TimeUnit, zoned: boolean): string {
  const per = NANOS.s / NANOS[unit];
  let secs = v / per;
  let frac = v % per;
  if (frac < 0n) {
    frac += per;
    secs -= 1n;
  }
  let days = secs / 86400n;
  let sod = secs % 86400n;
  if (sod < 0n) {
    sod += 86400n;
    days -= 1n;
  }
  const s = Number(sod);
  let out = `${formatDate(Number(days))} ${pad(Math.floor(s / 3600), 2)}:${pad(Math.floor(s / 60) % 60, 2)}:${pad(s % 60, 2)}`;
  if (frac !== 0n) out += `.${frac.toString().padStart(FRACTION_DIGITS[unit], '0')}`;
  return zoned ? `${out}Z` : out;
}

const DATETIME = /^\s*([+-]?\d{4,})-(\d{1,2})-(\d{1,2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(Z|[+-]\d{2}:?\d{2})?\s*$/i;

/** Nanoseconds since the epoch (UTC), or null when `s` is not a valid date/time. */
export function parseDateTime(s: string): bigint | null {
  const m = DATETIME.exec(s);
  if (!m) return null;
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  if (mo < 1 || mo > 12 || d < 1 || d > 31) return null;
  const days = daysFromCivil(y, mo, d);
  if (civilFromDays(days)[2] !== d) return null; // e.g. 2023-02-30
  const hh = m[4] ? Number(m[4]) : 0;
  const mi = m[5] ? Number(m[5]) : 0;
  const ss = m[6] ? Number(m[6]) : 0;
  if (hh > 23 || mi > 59 || ss > 59) return null;
  let ns = (BigInt(days) * 86400n + BigInt(hh * 3600 + mi * 60 + ss)) * NANOS.s;
  if (m[7]) ns += BigInt(m[7].padEnd(9, '0'));
  const z = m[8];
  if (z && z.toUpperCase() !== 'Z') {
    const sign = z[0] === '-' ? -1n : 1n;
    const digits = z.slice(1).replace(':', '');
    const off = BigInt(Number(digits.slice(0, 2)) * 3600 + Number(digits.slice(2)) * 60) * NANOS.s;
    ns -= sign * off;
  }
  return ns;
}

/** Floor division for bigints. */
export function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return (a % b !== 0n) && ((a < 0n) !== (b < 0n)) ? q - 1n : q;
}
