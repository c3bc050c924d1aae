/**
 * CSV text of 64-bit columns (int64, uint64, date64, timestamps of every unit) read into their
 * words without a BigInt per value: the same values as a BigInt reading of the same text,
 * written here from the contract (ISO-8601, UTC unless an offset is given; out of range = error).
 */
import * as A from 'apache-arrow';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { makeFiller } from '../../src/io/csv-columns.js';

const INT64 = [-(2n ** 63n), 2n ** 63n - 1n] as const;

/** One column of `texts` through a filler: the values, or the error text of each row. */
function read(type: A.DataType, texts: string[]): Array<bigint | string> {
  const f = makeFiller(type, texts.length, 'c');
  const errors = texts.map((s, i) => f.set(i, s));
  // the stored 64-bit values themselves (arrow-js turns timestamps into numbers of ms)
  const values = f.finish(texts.length).values as BigInt64Array | BigUint64Array;
  return texts.map((_, i) => errors[i] ?? values[i]!);
}

describe('CSV 64-bit columns from text', () => {
  it('int64 and uint64: every digit count, the limits, one past them', () => {
    const edge = ['0', '-0', '+7', '007', '999999999999999', '-999999999999999', '1000000000000000', '9007199254740993', '-9007199254740993', '9223372036854775807', '-9223372036854775808', '9223372036854775808', '18446744073709551615', '18446744073709551616', '-1'];
    const arb = fc.oneof(fc.bigInt({ min: INT64[0], max: 2n ** 64n }), fc.bigInt({ min: -(10n ** 16n), max: 10n ** 16n })).map(String);
    fc.assert(
      fc.property(fc.array(arb, { maxLength: 20 }), (random) => {
        const texts = [...edge, ...random];
        for (const [type, lo, hi] of [[new A.Int64(), INT64[0], INT64[1]], [new A.Uint64(), 0n, 2n ** 64n - 1n]] as const) {
          const got = read(type, texts);
          const want = texts.map((s) => {
            const v = BigInt(s);
            return v >= lo && v <= hi ? v : 'error';
          });
          expect(got.map((g) => (typeof g === 'string' ? 'error' : g))).toEqual(want);
        }
      }),
      { numRuns: 50 },
    );
  });
  it('timestamps of every unit and date64: the BigInt reading of the same text', () => {
    const UNIT = { s: [A.TimeUnit.SECOND, 1n], ms: [A.TimeUnit.MILLISECOND, 1_000n], us: [A.TimeUnit.MICROSECOND, 1_000_000n], ns: [A.TimeUnit.NANOSECOND, 1_000_000_000n] } as const;
    const pad = (v: number, w: number) => String(v).padStart(w, '0');
    const text = fc.record({
      days: fc.integer({ min: -120_000, max: 120_000 }),
      sod: fc.integer({ min: 0, max: 86_399 }),
      frac: fc.oneof(fc.constant(''), fc.integer({ min: 0, max: 999 }).map((x) => pad(x, 3)), fc.integer({ min: 0, max: 999_999_999 }).map((x) => pad(x, 9))),
      offset: fc.constantFrom('', 'Z', '+05:30', '-08:00'),
    });
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 16 }), (rows) => {
        const texts = rows.map((r) => {
          const d = new Date(r.days * 86_400_000);
          const y = d.getUTCFullYear();
          const ys = y >= 0 && y <= 9999 ? pad(y, 4) : (y < 0 ? '-' : '+') + pad(Math.abs(y), 4);
          const t = `${pad(Math.floor(r.sod / 3600), 2)}:${pad(Math.floor(r.sod / 60) % 60, 2)}:${pad(r.sod % 60, 2)}`;
          return `${ys}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}T${t}${r.frac ? `.${r.frac}` : ''}${r.offset}`;
        });
        for (const [unit, [tu, per]] of Object.entries(UNIT)) {
          const got = read(new A.Timestamp(tu, unit === 'ms' ? 'UTC' : null), texts);
          const want = rows.map((r) => {
            const off = r.offset === '' || r.offset === 'Z' ? 0 : (r.offset[0] === '-' ? -1 : 1) * (Number(r.offset.slice(1, 3)) * 3600 + Number(r.offset.slice(4, 6)) * 60);
            const secs = BigInt(r.days) * 86400n + BigInt(r.sod - off);
            const fracNs = r.frac ? BigInt(r.frac.padEnd(9, '0')) : 0n;
            const step = 1_000_000_000n / per;
            if (fracNs % step !== 0n) return 'error';
            const v = secs * per + fracNs / step;
            return v >= INT64[0] && v <= INT64[1] ? v : 'error';
          });
          expect(got.map((g) => (typeof g === 'string' ? 'error' : g)), unit).toEqual(want);
        }
      }),
      { numRuns: 60 },
    );
    const dates = ['1970-01-01', '1969-12-31', '2024-02-29', '-0001-03-01', '+12345-06-07'];
    const utcMidnight = (s: string): bigint => {
      const m = /^([+-]?\d+)-(\d{2})-(\d{2})$/.exec(s)!;
      const d = new Date(0);
      d.setUTCFullYear(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
      return BigInt(d.getTime());
    };
    expect(read(new A.DateMillisecond(), dates)).toEqual(dates.map(utcMidnight));
  });
  it('large strings: 64-bit offsets of the UTF-8 bytes', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'grapheme', maxLength: 6 }), { maxLength: 20 }), (texts) => {
        const f = makeFiller(new A.LargeUtf8(), texts.length, 'c');
        texts.forEach((t, i) => expect(f.set(i, t)).toBeNull());
        const data = f.finish(texts.length);
        let at = 0n;
        const want = [0n, ...texts.map((t) => (at += BigInt(Buffer.byteLength(t, 'utf8'))))];
        expect([...(data.valueOffsets as unknown as BigInt64Array)]).toEqual(want);
        expect(A.makeVector(data).toArray()).toEqual(texts);
      }),
      { numRuns: 50 },
    );
  });
});
