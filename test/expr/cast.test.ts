import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { col, lit, expr } from '../../src/expr/builders.js';
import { bindExpr } from '../../src/expr/bind.js';
import { evaluate } from '../../src/expr/evaluate.js';
import { T, column, table, run, values } from './helpers.js';
import type { TypeDesc } from '../../src/types/column.js';

describe('cast', () => {
  it('int → narrower int: out of range is NULL', () => {
    const t = table({ a: [T.i64, [127n, 128n, -129n, -(2n ** 63n), null, 2n ** 53n + 1n]] });
    expect(run(t, col('a').cast('int8'))).toEqual([127, null, null, null, null, null]);
    expect(run(t, col('a').cast('uint64'))).toEqual([127n, 128n, null, null, null, 2n ** 53n + 1n]);
    expect(run(t, col('a').cast('float64'))).toEqual([127, 128, -129, -(2 ** 63), null, 2 ** 53]);
    expect(run(t, col('a').cast('utf8'))).toEqual(['127', '128', '-129', '-9223372036854775808', null, '9007199254740993']);
  });
  it('int64 → float64 is correctly rounded, float → int64 exact', () => {
    fc.assert(
      fc.property(fc.array(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), { maxLength: 20 }), (xs) => {
        const b = bindExpr(col('a').cast('float64').node, [{ name: 'a', type: T.i64, nullable: false }]);
        expect(values(evaluate(b, [column(T.i64, xs)], xs.length))).toEqual(xs.map(Number));
      }),
      { numRuns: 100 },
    );
    fc.assert(
      fc.property(fc.array(fc.double({ min: -1e19, max: 1e19 }), { maxLength: 20 }), (xs) => {
        const b = bindExpr(col('a').cast('int64').node, [{ name: 'a', type: T.f64, nullable: false }]);
        const want = xs.map((x) => (Number.isNaN(x) || Math.trunc(x) >= 2 ** 63 || Math.trunc(x) < -(2 ** 63) ? null : BigInt(Math.trunc(x))));
        expect(values(evaluate(b, [column(T.f64, xs)], xs.length))).toEqual(want);
      }),
      { numRuns: 100 },
    );
  });
  it('float → int truncates, NaN/Inf NULL; float → string', () => {
    const t = table({ f: [T.f64, [1.9, -1.9, NaN, Infinity, 3e9, 2, -0, 0.1, 1e21]] });
    expect(run(t, col('f').cast('int32'))).toEqual([1, -1, null, null, null, 2, 0, 0, null]);
    expect(run(t, col('f').cast('string'))).toEqual(['1.9', '-1.9', 'NaN', 'inf', '3000000000.0', '2.0', '-0.0', '0.1', '1e+21']);
    const g = table({ f: [T.f32, [0.1, 1.5]] });
    expect(run(g, col('f').cast('utf8'))).toEqual(['0.1', '1.5']);
  });
  it('string → numbers and bool; bad text is NULL', () => {
    const t = table({ s: [T.utf8, [' 42 ', '-7', 'x', '1e3', '', null, 'NaN', '99999999999']] });
    expect(run(t, col('s').cast('int32'))).toEqual([42, -7, null, null, null, null, null, null]);
    expect(run(t, col('s').cast('float64'))).toEqual([42, -7, null, 1000, null, null, NaN, 99999999999]);
    const b = table({ s: [T.utf8, ['true', 'F', '1', 'maybe']] });
    expect(run(b, col('s').cast('bool'))).toEqual([true, false, true, null]);
  });
  it('bool ↔ numbers', () => {
    const t = table({ p: [T.bool, [true, false, null]], i: [T.i32, [5, 0, null]] });
    expect(run(t, col('p').cast('int8'))).toEqual([1, 0, null]);
    expect(run(t, col('i').cast('bool'))).toEqual([true, false, null]);
    expect(run(t, col('p').cast('utf8'))).toEqual(['true', 'false', null]);
  });
  it('dates and timestamps: units, strings, comparisons with string literals', () => {
    const t = table({ d: [T.date32, [0, 19723, -1, null]], ts: [T.tsms, [0n, 1704067200123n, -1n, null]] });
    expect(run(t, col('d').cast('utf8'))).toEqual(['1970-01-01', '2024-01-01', '1969-12-31', null]);
    expect(run(t, col('ts').cast('string'))).toEqual(['1970-01-01 00:00:00', '2024-01-01 00:00:00.123', '1969-12-31 23:59:59.999', null]);
    expect(run(t, col('ts').cast('date32'))).toEqual([0, 19723, -1, null]);
    expect(run(t, col('d').cast('date64'))).toEqual([0n, 19723n * 86400000n, -86400000n, null]);
    expect(run(t, col('d').cast('timestamp[s]'))).toEqual([0n, 19723n * 86400n, -86400n, null]);
    expect(run(t, col('ts').cast('timestamp[ns, UTC]'))).toEqual([0n, 1704067200123000000n, -1000000n, null]);
    expect(run(t, expr("ts >= '2024-01-01' AND d = '2024-01-01'"))).toEqual([false, true, false, null]);
    expect(run(t, lit('2024-01-01T00:00:00.123+01:00').cast('timestamp[ms]'))).toEqual(Array(4).fill(1704067200123n - 3600000n));
    expect(run(t, lit('2023-02-30').cast('date32'))).toEqual([null, null, null, null]);
  });
});

describe('cast between temporal units and to text, exact over the whole int64 range', () => {
  // Reference from the contract alone: finer multiplies (NULL outside the target's range),
  // coarser floors; text is the UTC calendar day and time of day, the unit's fraction digits.
  const NS: Record<string, bigint> = { day: 86_400_000_000_000n, s: 1_000_000_000n, ms: 1_000_000n, us: 1_000n, ns: 1n };
  const types: Array<{ name: string; type: TypeDesc; unit: string; bits: 32 | 64 }> = [
    { name: 'date32', type: { kind: 'date', unit: 'day' }, unit: 'day', bits: 32 },
    { name: 'date64', type: { kind: 'date', unit: 'ms' }, unit: 'ms', bits: 64 },
    ...(['s', 'ms', 'us', 'ns'] as const).map((u) => ({ name: `timestamp[${u}]`, type: { kind: 'timestamp', unit: u, timezone: null } as TypeDesc, unit: u, bits: 64 as const })),
  ];
  const floorDiv = (a: bigint, b: bigint): bigint => (a % b !== 0n && a < 0n ? a / b - 1n : a / b);
  const fits = (v: bigint, bits: 32 | 64): boolean => BigInt.asIntN(bits, v) === v;
  const value = (bits: 32 | 64) =>
    fc.oneof(
      fc.bigInt({ min: -(2n ** BigInt(bits - 1)), max: 2n ** BigInt(bits - 1) - 1n }),
      bits === 64 ? fc.bigInt({ min: -(10n ** 12n), max: 10n ** 12n }) : fc.bigInt({ min: -100_000n, max: 100_000n }),
      fc.constantFrom(0n, -1n, 1n, -(2n ** BigInt(bits - 1)), 2n ** BigInt(bits - 1) - 1n),
      // exact multiples of a unit step: floors of negative values without a remainder
      fc.tuple(fc.bigInt({ min: -1000n, max: 1000n }), fc.constantFrom(1000n, 1_000_000n, 86_400n, 86_400_000n, 86_400_000_000n, 86_400_000_000_000n)).map(([a, k]) => (bits === 64 ? a * k : a)),
    );
  it('unit to unit: the same as the BigInt reference', () => {
    for (const from of types) {
      for (const to of types) {
        if (from === to) continue;
        fc.assert(
          fc.property(fc.array(value(from.bits), { maxLength: 24 }), (xs) => {
            const raw = xs.map((x) => (from.bits === 32 ? Number(x) : x));
            const b = bindExpr(col('a').cast(to.name).node, [{ name: 'a', type: from.type, nullable: false }]);
            const got = values(evaluate(b, [column(from.type, raw)], xs.length));
            const f = NS[from.unit]!;
            const t = NS[to.unit]!;
            const want = xs.map((x) => {
              const r = f >= t ? x * (f / t) : floorDiv(x, t / f);
              if (!fits(r, to.bits)) return null;
              return to.bits === 32 ? Number(r) : r;
            });
            expect(got).toEqual(want);
          }),
          { numRuns: 40 },
        );
      }
    }
  });
  it('to text: the calendar day and time of the reference split', () => {
    const pad = (v: bigint | number, w: number): string => String(v).padStart(w, '0');
    for (const from of types.filter((x) => x.type.kind === 'timestamp')) {
      const per = NS.s! / NS[from.unit]!;
      // days within the range JS Date can print (about ±273,790 years)
      const maxUnits = 8_000_000_000_000_000n / 1000n * (NS.s! / NS[from.unit]!) / 1000n;
      fc.assert(
        fc.property(fc.array(fc.bigInt({ min: -maxUnits, max: maxUnits }), { maxLength: 16 }), (xs) => {
          const b = bindExpr(col('a').cast('utf8').node, [{ name: 'a', type: from.type, nullable: false }]);
          const got = values(evaluate(b, [column(from.type, xs)], xs.length));
          const want = xs.map((x) => {
            const secs = floorDiv(x, per);
            const frac = x - secs * per;
            const days = floorDiv(secs, 86400n);
            const sod = Number(secs - days * 86400n);
            const d = new Date(Number(days) * 86_400_000);
            const y = d.getUTCFullYear();
            const year = y >= 0 && y <= 9999 ? pad(y, 4) : (y < 0 ? '-' : '+') + pad(Math.abs(y), 4);
            let s = `${year}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)} ${pad(Math.floor(sod / 3600), 2)}:${pad(Math.floor(sod / 60) % 60, 2)}:${pad(sod % 60, 2)}`;
            if (frac !== 0n) s += `.${pad(frac, String(per).length - 1)}`;
            return s;
          });
          expect(got).toEqual(want);
        }),
        { numRuns: 60 },
      );
    }
  });
});
