/** Key normalization, exact comparisons/gaps, sort words and zoned DATE midnights vs BigInt truth. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  asofGapWithin,
  compareAsofGaps,
  compareAsofKeys,
  makeAsofTolerance,
  normalizeAsofKey,
  permuteAsofKey,
  scaledDouble,
  ZoneMidnights,
  type AsofKeyPlan,
  type NormalizedKey,
} from '../../src/ops/asof-keys.js';
import type { TypeDesc } from '../../src/types/column.js';
import { referenceStartOfDay } from '../support/asof-reference.js';
import { keyColumn, asofSortWords } from './asof-harness.js';

const I64: TypeDesc = { kind: 'int', bits: 64, signed: true };
const U64: TypeDesc = { kind: 'int', bits: 64, signed: false };
const I32: TypeDesc = { kind: 'int', bits: 32, signed: true };
const F64: TypeDesc = { kind: 'float', bits: 64 };
const D32: TypeDesc = { kind: 'date', unit: 'day' };
const INT: AsofKeyPlan = { cls: 'integer', unit: null, dateZone: null };
const FLOAT: AsofKeyPlan = { cls: 'float', unit: null, dateZone: null };
const NS_PLAN: AsofKeyPlan = { cls: 'temporal', unit: 'ns', dateZone: null };

const bigAny = fc.oneof(
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 64n - 1n }),
  fc.bigInt({ min: -(2n ** 53n), max: 2n ** 53n }),
  fc.constantFrom(-(2n ** 63n), 2n ** 63n - 1n, 2n ** 64n - 1n, 2n ** 52n, -(2n ** 52n), 2n ** 52n + 1n, 0n, -1n),
);

/** Normalizes a mix of int64 and uint64 values as two columns (the signed ones, the unsigned ones). */
function intKeys(vals: bigint[]): Array<{ key: NormalizedKey; i: number; v: bigint }> {
  const s = vals.filter((v) => v < 2n ** 63n);
  const u = vals.filter((v) => v >= 0n);
  const ks = normalizeAsofKey(keyColumn(I64, s), INT);
  const ku = normalizeAsofKey(keyColumn(U64, u), INT);
  return [...s.map((v, i) => ({ key: ks, i, v })), ...u.map((v, i) => ({ key: ku, i, v }))];
}

function wordsCmp(a: Uint32Array[], i: number, b: Uint32Array[], j: number): number {
  for (let w = 0; w < a.length; w++) if (a[w]![i] !== b[w]![j]) return a[w]![i]! < b[w]![j]! ? -1 : 1;
  return 0;
}

const sign = (x: bigint) => (x < 0n ? -1 : x > 0n ? 1 : 0);
const abs = (x: bigint) => (x < 0n ? -x : x);

describe('integer keys', () => {
  it('f64 form while |v| <= 2^52, limbs beyond; comparisons and gaps exact across forms', () => {
    expect(normalizeAsofKey(keyColumn(I64, [2n ** 52n, -(2n ** 52n)]), INT).kind).toBe('f64');
    expect(normalizeAsofKey(keyColumn(I64, [2n ** 52n + 1n]), INT).kind).toBe('wide');
    fc.assert(
      fc.property(fc.array(bigAny, { minLength: 3, maxLength: 8 }), fc.bigInt({ min: 0n, max: 2n ** 66n }), (vals, tol) => {
        const ks = intKeys(vals);
        const t = makeAsofTolerance(tol);
        for (const x of ks)
          for (const a of ks) {
            expect(compareAsofKeys(x.key, x.i, a.key, a.i)).toBe(sign(x.v - a.v));
            expect(asofGapWithin(x.key, x.i, a.key, a.i, t)).toBe(abs(x.v - a.v) <= tol);
            for (const b of ks.slice(0, 4)) expect(compareAsofGaps(x.key, x.i, a.key, a.i, b.key, b.i)).toBe(sign(abs(x.v - b.v) - abs(x.v - a.v)));
          }
      }),
      { numRuns: 100 },
    );
  });

  it('sort words order equals the integer order (within one side)', () => {
    fc.assert(
      fc.property(fc.array(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), { maxLength: 20 }), fc.boolean(), (vals, widen) => {
        if (widen) vals.push(2n ** 62n); // forces the limb form
        const key = normalizeAsofKey(keyColumn(I64, vals), INT);
        const w = asofSortWords(key);
        for (let i = 0; i < vals.length; i++)
          for (let j = 0; j < vals.length; j++) expect(wordsCmp(w, i, w, j)).toBe(sign(vals[i]! - vals[j]!));
      }),
      { numRuns: 150 },
    );
  });

  it('timestamps in seconds scale to nanoseconds beyond int64 exactly', () => {
    const s = normalizeAsofKey(keyColumn({ kind: 'timestamp', unit: 's', timezone: null }, [16_725_225_600n, -(2n ** 63n), 2n ** 63n - 1n]), NS_PLAN);
    const ns = normalizeAsofKey(keyColumn({ kind: 'timestamp', unit: 'ns', timezone: null }, [2n ** 63n - 1n]), NS_PLAN);
    expect(s.kind).toBe('wide');
    expect(compareAsofKeys(s, 0, ns, 0)).toBe(1);
    expect(compareAsofKeys(s, 1, ns, 0)).toBe(-1);
    expect(compareAsofKeys(s, 2, s, 0)).toBe(1);
    const t = makeAsofTolerance((2n ** 63n - 1n) * 1_000_000_000n * 2n);
    expect(asofGapWithin(s, 1, s, 2, t)).toBe(false); // gap is (2^64 - 1) * 1e9
    expect(asofGapWithin(s, 1, s, 2, makeAsofTolerance((2n ** 64n - 1n) * 1_000_000_000n))).toBe(true);
  });
});

describe('float keys', () => {
  const dbl = fc.oneof(
    fc.double({ noNaN: true }),
    fc.constantFrom(0, -0, 1, -1, 1e20, -1e20, 2 ** -60, 5e-324, -5e-324, Infinity, -Infinity, 1 + 2 ** -52, 0.1, 0.2, 0.3),
  );
  const exact = (v: number) => scaledDouble(v);

  it('scaledDouble is v * 2^1074', () => {
    expect(scaledDouble(1)).toBe(1n << 1074n);
    expect(scaledDouble(-0.5)).toBe(-(1n << 1073n));
    expect(scaledDouble(5e-324)).toBe(1n);
    expect(scaledDouble(1e20)).toBe(100000000000000000000n << 1074n);
  });

  it('gaps and tolerance are exact for finite doubles', () => {
    fc.assert(
      fc.property(fc.array(dbl.filter(Number.isFinite), { minLength: 3, maxLength: 6 }), dbl.filter((d) => d >= 0), (vals, tol) => {
        const key = normalizeAsofKey(keyColumn(F64, vals), FLOAT);
        const t = makeAsofTolerance(tol);
        for (let i = 0; i < vals.length; i++)
          for (let j = 0; j < vals.length; j++) {
            const g = abs(exact(vals[i]!) - exact(vals[j]!));
            expect(asofGapWithin(key, i, key, j, t)).toBe(tol === Infinity || g <= exact(tol));
            for (let k = 0; k < vals.length; k++) {
              const g2 = abs(exact(vals[i]!) - exact(vals[k]!));
              expect(compareAsofGaps(key, i, key, j, key, k)).toBe(sign(g2 - g));
            }
          }
      }),
      { numRuns: 100 },
    );
  });

  it('sort words order equals the double order, -0 equals +0, NaN is invalid', () => {
    fc.assert(
      fc.property(fc.array(dbl, { maxLength: 20 }), (vals) => {
        const key = normalizeAsofKey(keyColumn(F64, vals), FLOAT);
        const w = asofSortWords(key);
        for (let i = 0; i < vals.length; i++)
          for (let j = 0; j < vals.length; j++) {
            const a = vals[i]!;
            const b = vals[j]!;
            expect(wordsCmp(w, i, w, j)).toBe(a < b ? -1 : a > b ? 1 : 0);
            expect(compareAsofKeys(key, i, key, j)).toBe(a < b ? -1 : a > b ? 1 : 0);
          }
      }),
      { numRuns: 150 },
    );
    const k = normalizeAsofKey(keyColumn(F64, [NaN, -0, null]), FLOAT);
    expect(Array.from(k.valid!)).toEqual([0, 1, 0]);
    expect(Object.is((k as { values: Float64Array }).values[1], 0)).toBe(true);
  });

  it('bigint tolerances that are not doubles bracket correctly', () => {
    const t = makeAsofTolerance(2n ** 60n + 1n);
    expect(t.lo).toBeLessThan(2 ** 60 + 1024);
    expect(t.lo).toBe(2 ** 60);
    expect(t.hi).toBeGreaterThan(2 ** 60);
    const key = normalizeAsofKey(keyColumn(F64, [0, 2 ** 60, 2 ** 60 + 256]), FLOAT);
    expect(asofGapWithin(key, 0, key, 1, t)).toBe(true);
    expect(asofGapWithin(key, 0, key, 2, t)).toBe(false);
  });
});

describe('strings', () => {
  it('sort words are dense ranks in UTF-8 byte order; permute keeps bytes', () => {
    const vals = ['b', '😀', '\uff5e', 'a', '', 'b', null];
    const key = normalizeAsofKey(keyColumn({ kind: 'utf8' }, vals), { cls: 'string', unit: null, dateZone: null });
    expect(Array.from(asofSortWords(key)[0]!)).toEqual([3, 5, 4, 2, 1, 3, 0]);
    const p = permuteAsofKey(key, [4, 3, 0, 5, 2, 1]);
    expect(Array.from(asofSortWords(p)[0]!)).toEqual([1, 2, 3, 3, 4, 5]);
    expect(compareAsofKeys(p, 5, key, 1)).toBe(0);
    expect(compareAsofKeys(p, 4, key, 1)).toBe(-1);
  });
});

describe('DATE midnights', () => {
  it('start of day in a zone matches a binary search on Intl local dates', () => {
    const zones = ['America/New_York', 'Europe/London', 'Asia/Kolkata', 'America/Sao_Paulo', 'Pacific/Apia', 'Australia/Lord_Howe', 'Africa/Casablanca'];
    fc.assert(
      fc.property(fc.constantFrom(...zones), fc.integer({ min: -40_000, max: 30_000 }), (zone, day) => {
        expect(new ZoneMidnights(zone).startOfDay(day)).toBe(referenceStartOfDay(zone, day));
      }),
      { numRuns: 200 },
    );
  });

  it('DATE vs zoned TIMESTAMP normalizes a date to its zone midnight', () => {
    const plan: AsofKeyPlan = { cls: 'temporal', unit: 's', dateZone: 'Asia/Kolkata' };
    const d = normalizeAsofKey(keyColumn(D32, [0, null]), plan);
    expect(d.kind).toBe('f64');
    expect((d as { values: Float64Array }).values[0]).toBe(-19_800); // 1970-01-01T00:00+05:30
    expect(d.valid![1]).toBe(0);
    const i = normalizeAsofKey(keyColumn(I32, [1, 2]), INT);
    expect(i.kind).toBe('f64');
  });
});
