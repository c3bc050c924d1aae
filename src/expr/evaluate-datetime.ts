/**
 * Calendar helpers for casts from strings to dates/timestamps (proleptic Gregorian, UTC); the
 * text of temporal values is src/io/temporal-text's. Parsing accepts 'YYYY-MM-DD', then optionally 'T' or ' ' and
 * 'HH:MM[:SS[.fraction]]', then optionally 'Z' or '±HH[:]MM'.
 */
import { civilFromDays, daysFromCivil } from '../io/temporal-text.js';
import type { TimeUnit } from '../types/column.js';

/** Nanoseconds per unit; 'day' is the date32 unit. */
export const NANOS: Record<TimeUnit | 'day', bigint> = { day: 86_400_000_000_000n, s: 1_000_000_000n, ms: 1_000_000n, us: 1_000n, ns: 1n };

// One copy of the calendar arithmetic: the CSV reader/writer's (src/io/temporal-text).
export { civilFromDays, daysFromCivil };

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
