/**
 * ISO-8601 text for DATE and TIMESTAMP values, exact over the whole int64 range (no JS Date,
 * no millisecond rounding): civil-date arithmetic after Howard Hinnant's days_from_civil /
 * civil_from_days; values are split into days, seconds and fractions from their 32-bit words
 * (src/ops/int64-words), never a BigInt per value.
 *
 * Formats written: `YYYY-MM-DD` and `YYYY-MM-DDTHH:MM:SS[.fraction]` (fraction only when non-zero,
 * with 3/6/9 digits for ms/us/ns), with `Z` appended for zoned timestamps (the instant in
 * UTC, whatever the zone). Years outside 0000..9999 get a sign and at least 4 digits.
 * Formats read: the same, with `T` or a space, optional seconds and fraction, and an optional
 * `Z` / `±HH:MM[:SS]` / `±HHMM` / `±HH` offset (converted to UTC). A date alone is midnight.
 */

import { addLimbs, divScratch, divWords, extendsSign, limbScratch, limbsOfWords, TWO32 } from '../ops/int64-words.js';

const UNIT_DIGITS: Record<'s' | 'ms' | 'us' | 'ns', number> = { s: 0, ms: 3, us: 6, ns: 9 };

export type Unit = 's' | 'ms' | 'us' | 'ns';

export function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

export function civilFromDays(days: number): [number, number, number] {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  return [yoe + era * 400 + (m <= 2 ? 1 : 0), m, d];
}

function isLeap(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

const pad2 = (n: number): string => (n < 10 ? `0${n}` : String(n));

function formatYear(y: number): string {
  if (y >= 0 && y <= 9999) return String(y).padStart(4, '0');
  return (y < 0 ? '-' : '+') + String(Math.abs(y)).padStart(4, '0');
}

/** Days since the epoch → `YYYY-MM-DD`. */
export function formatDate(days: number): string {
  const [y, m, d] = civilFromDays(days);
  return `${formatYear(y)}-${pad2(m)}-${pad2(d)}`;
}

/** Scratch [days since the epoch, second of the day, fraction in `unit`] of `splitTimestamp`. */
export const civilScratch = new Float64Array(3);

const PER_SECOND: Record<Unit, number> = { s: 1, ms: 1e3, us: 1e6, ns: 1e9 };

/**
 * Splits a timestamp count of `unit` given as its 64-bit words (hi signed, lo unsigned) into
 * days, second of day and fraction, exactly and without a BigInt: one exact division of the
 * words by a day in the unit (by a second for ns, whose day exceeds the divisor limit).
 */
export function splitTimestamp(hi: number, lo: number, unit: Unit): void {
  const perS = PER_SECOND[unit];
  if (unit === 'ns') {
    divWords(hi, lo, perS);
    const secs = divScratch[0]!; // |secs| < 2^34
    const days = Math.floor(secs / 86400);
    civilScratch[0] = days;
    civilScratch[1] = secs - days * 86400;
    civilScratch[2] = divScratch[1]!;
    return;
  }
  divWords(hi, lo, 86400 * perS);
  const rem = divScratch[1]!;
  const sod = Math.floor(rem / perS);
  civilScratch[0] = divScratch[0]!;
  civilScratch[1] = sod;
  civilScratch[2] = rem - sod * perS;
}

let lastDays = NaN;
let lastDate = '';

/**
 * ISO-8601 text of a split timestamp (days, second of day in [0, 86400), fraction in `unit`);
 * `separator` between date and time: 'T' in files, ' ' for CAST to string (as SQL engines print).
 */
export function formatCivil(days: number, sod: number, frac: number, unit: Unit, zoned: boolean, separator: 'T' | ' ' = 'T'): string {
  // columns are often sorted or clustered by time: consecutive values share their date text
  if (days !== lastDays) {
    lastDays = days;
    lastDate = formatDate(days);
  }
  let out = `${lastDate}${separator}${pad2(Math.floor(sod / 3600))}:${pad2(Math.floor(sod / 60) % 60)}:${pad2(sod % 60)}`;
  if (frac !== 0) out += `.${String(frac).padStart(UNIT_DIGITS[unit], '0')}`;
  return zoned ? `${out}Z` : out;
}

const DATE_RE = /^([+-]?\d{4,})-(\d{2})-(\d{2})$/;
const TS_RE =
  /^([+-]?\d{4,})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(Z|z|[+-]\d{2}(?::?\d{2}(?::\d{2})?)?)?$/;

function civilDays(ys: string, ms: string, ds: string): number | null {
  const y = Number(ys);
  const m = Number(ms);
  const d = Number(ds);
  if (!Number.isSafeInteger(y) || m < 1 || m > 12 || d < 1) return null;
  const dim = m === 2 && isLeap(y) ? 29 : MONTH_DAYS[m - 1]!;
  if (d > dim) return null;
  return daysFromCivil(y, m, d);
}

/** `YYYY-MM-DD` → days since the epoch, or null when not a valid date. */
export function parseDate(s: string): number | null {
  const m = DATE_RE.exec(s);
  if (!m) return null;
  const days = civilDays(m[1]!, m[2]!, m[3]!);
  return days !== null && Math.abs(days) <= 2 ** 31 - 1 ? days : null;
}


/** Scratch [hi word (signed), lo word] of the last successful `parseTimestamp`. */
export const timestampWords = new Float64Array(2);

const PER_SECOND_UNITS: Record<Unit, number> = { s: 1, ms: 1e3, us: 1e6, ns: 1e9 };

/**
 * ISO-8601 timestamp → count of `unit` since the epoch (UTC) as 64-bit words in
 * `timestampWords`, exactly and without a BigInt: null, or an error text (not a timestamp,
 * finer than `unit`, e.g. a fraction for seconds, or outside int64). Text without a UTC offset
 * is read in `zone` when one is given (its wall time at that instant, `wallOffset`), else as UTC.
 */
export function parseTimestamp(s: string, unit: Unit, zone: ((wallSeconds: number) => number) | null = null): string | null {
  const m = TS_RE.exec(s);
  if (!m) return 'not an ISO-8601 timestamp';
  const days = civilDays(m[1]!, m[2]!, m[3]!);
  if (days === null) return 'not a valid calendar date';
  const hh = m[4] ? Number(m[4]) : 0;
  const mi = m[5] ? Number(m[5]) : 0;
  const ss = m[6] ? Number(m[6]) : 0;
  if (hh > 23 || mi > 59 || ss > 59) return 'not a valid time of day';
  let offsetS = 0;
  const z = m[8];
  if (z && z !== 'Z' && z !== 'z') {
    const sign = z[0] === '-' ? -1 : 1;
    const digits = z.slice(1).replaceAll(':', '');
    const oh = Number(digits.slice(0, 2));
    const om = digits.length > 2 ? Number(digits.slice(2, 4)) : 0;
    const os = digits.length > 4 ? Number(digits.slice(4, 6)) : 0; // historic local mean time offsets
    if (oh > 23 || om > 59 || os > 59) return 'not a valid UTC offset';
    offsetS = sign * (oh * 3600 + om * 60 + os);
  }
  // a fraction of up to 9 digits in ns; it must be a whole number of the unit's steps
  const fracNs = m[7] ? Number(m[7].padEnd(9, '0')) : 0;
  const step = 1e9 / PER_SECOND_UNITS[unit];
  if (fracNs % step !== 0) return `too precise: it has a finer fraction of a second than the column unit (${unit})`;
  // |days| < 2^53 / 86400 for any year the text can hold in a safe integer: secs is exact
  let secs = days * 86400 + hh * 3600 + mi * 60 + ss - offsetS;
  if (!Number.isSafeInteger(secs)) return `out of range for timestamp[${unit}]`;
  if (zone !== null && z === undefined) secs -= zone(secs);
  // secs * units per second + the fraction's units, as 96-bit limbs, then the int64 check
  const hi = Math.floor(secs / TWO32);
  limbsOfWords(hi, secs - hi * TWO32, PER_SECOND_UNITS[unit]);
  addLimbs(limbScratch[0]!, limbScratch[1]!, limbScratch[2]!, 0, 0, fracNs / step);
  const h = limbScratch[0]!;
  const mid = limbScratch[1]!;
  if (!extendsSign(h, mid)) return `out of range for timestamp[${unit}]`;
  timestampWords[0] = mid | 0;
  timestampWords[1] = limbScratch[2]!;
  return null;
}
