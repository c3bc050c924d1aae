/**
 * Temporal text from 32-bit words (src/io/temporal-text splitTimestamp, src/io/text/cells): every
 * int64 count of every unit, through Arrow columns, against Temporal (the reference) wherever
 * Temporal reaches (±10^8 days), and at the int64 extremes beyond it against exact BigInt
 * floor division of the value into days, second of day and fraction.
 */
import { fc, test as fcTest } from '@fast-check/vitest';
import * as A from 'apache-arrow';
import { Temporal } from 'temporal-polyfill';
import { describe, expect } from 'vitest';
import { cellText } from '../../../src/io/text/cells.js';

const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;
const NS_PER: Record<'s' | 'ms' | 'us' | 'ns', bigint> = { s: 1_000_000_000n, ms: 1_000_000n, us: 1_000n, ns: 1n };
const DIGITS = { s: 0, ms: 3, us: 6, ns: 9 };
const TEMPORAL_NS = 8_640_000_000_000_000_000_000n; // Temporal's instant range

const pad = (n: number | bigint, w = 2) => String(n).padStart(w, '0');
function year(y: number | bigint): string {
  const a = y < 0 ? -BigInt(y) : BigInt(y);
  return y >= 0 && y <= 9999 ? pad(y, 4) : `${y < 0 ? '-' : '+'}${pad(a, 4)}`;
}
function fraction(f: bigint, unit: keyof typeof NS_PER): string {
  return f === 0n ? '' : `.${pad(f, DIGITS[unit])}`;
}

/** Reference text: Temporal for the calendar, BigInt floor division for the split. */
function expected(v: bigint, unit: keyof typeof NS_PER, zone: string | null): string | null {
  const ns = v * NS_PER[unit];
  if (ns < -TEMPORAL_NS || ns > TEMPORAL_NS) return null;
  const i = Temporal.Instant.fromEpochNanoseconds(ns);
  const z = i.toZonedDateTimeISO(zone ?? 'UTC');
  const perUnit = 1_000_000_000n / NS_PER[unit];
  const frac = ((v % perUnit) + perUnit) % perUnit;
  const text = `${year(z.year)}-${pad(z.month)}-${pad(z.day)}T${pad(z.hour)}:${pad(z.minute)}:${pad(z.second)}${fraction(frac, unit)}`;
  return zone === null ? text : zone === 'UTC' ? `${text}Z` : text + z.offset;
}

function column(unit: keyof typeof NS_PER, zone: string | null, values: bigint[]): A.Data {
  const type = new A.Timestamp({ s: A.TimeUnit.SECOND, ms: A.TimeUnit.MILLISECOND, us: A.TimeUnit.MICROSECOND, ns: A.TimeUnit.NANOSECOND }[unit], zone);
  return A.makeData({ type, length: values.length, data: BigInt64Array.from(values) });
}

const value = fc.oneof(
  fc.bigInt({ min: I64_MIN, max: I64_MAX }),
  fc.bigInt({ min: -(2n ** 40n), max: 2n ** 40n }),
  fc.constantFrom(I64_MIN, I64_MIN + 1n, -1n, 0n, 1n, I64_MAX, 2n ** 53n + 1n, -(2n ** 53n) - 1n, 86_399n, -86_400n),
);
const unitArb = fc.constantFrom('s' as const, 'ms' as const, 'us' as const, 'ns' as const);

describe('timestamp text from words', () => {
  fcTest.prop([unitArb, fc.constantFrom(null, 'UTC', 'America/New_York', 'Asia/Kolkata'), fc.array(value, { minLength: 1, maxLength: 8 })])(
    'every unit and zone agrees with Temporal',
    (unit, zone, values) => {
      const text = cellText(column(unit, zone, values), { syntax: 'field', floats: 'display' });
      values.forEach((v, i) => {
        const want = expected(v, unit, zone);
        if (want !== null) expect(text(i)).toBe(want);
      });
    },
  );

  fcTest.prop([unitArb, fc.array(value, { minLength: 1, maxLength: 8 })])('beyond Temporal: exact second of day and fraction', (unit, values) => {
    const text = cellText(column(unit, null, values), { syntax: 'field', floats: 'display' });
    const perUnit = 1_000_000_000n / NS_PER[unit];
    values.forEach((v, i) => {
      const secs = v >= 0n ? v / perUnit : -((-v + perUnit - 1n) / perUnit);
      const sod = ((secs % 86_400n) + 86_400n) % 86_400n;
      const frac = v - secs * perUnit;
      const tail = `T${pad(sod / 3600n)}:${pad((sod / 60n) % 60n)}:${pad(sod % 60n)}${fraction(frac, unit)}`;
      expect(text(i)?.endsWith(tail)).toBe(true);
    });
  });

  fcTest.prop([fc.array(value, { minLength: 1, maxLength: 8 })])('date64: a date at midnight, else the ms timestamp', (values) => {
    const d = A.makeData({ type: new A.DateMillisecond(), length: values.length, data: BigInt64Array.from(values) });
    const text = cellText(d, { syntax: 'field', floats: 'display' });
    values.forEach((v, i) => {
      const want = expected(v, 'ms', null);
      if (want === null) return;
      expect(text(i)).toBe(v % 86_400_000n === 0n ? want.slice(0, want.indexOf('T')) : want);
    });
  });
});
