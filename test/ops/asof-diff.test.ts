/**
 * Differential property tests: the ASOF kernel (through the harness that sorts and groups like
 * the worker) against the naive reference, over random keys with many duplicates, NULL/NaN
 * keys, random groups (NULL and empty ones included), all directions, tolerances, excluded
 * exact matches and a residual condition that is TRUE, FALSE or NULL.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AsofOptions } from '../../src/ops/asof-spec.js';
import type { FieldDesc, TypeDesc } from '../../src/types/column.js';
import { referenceAsof, type AsofRow } from '../support/asof-reference.js';
import { runAsofKernel } from './asof-harness.js';

const I8: TypeDesc = { kind: 'int', bits: 8, signed: true };
const I32: TypeDesc = { kind: 'int', bits: 32, signed: true };
const U32: TypeDesc = { kind: 'int', bits: 32, signed: false };
const I64: TypeDesc = { kind: 'int', bits: 64, signed: true };
const U64: TypeDesc = { kind: 'int', bits: 64, signed: false };
const F32: TypeDesc = { kind: 'float', bits: 32 };
const F64: TypeDesc = { kind: 'float', bits: 64 };
const STR: TypeDesc = { kind: 'utf8' };
const D32: TypeDesc = { kind: 'date', unit: 'day' };
const ts = (unit: 's' | 'ms' | 'us' | 'ns', timezone: string | null = null): TypeDesc => ({ kind: 'timestamp', unit, timezone });

const MIN64 = -(2n ** 63n);
const MAX64 = 2n ** 63n - 1n;
const Y2500 = 16_725_225_600n;
const BASE_US = 1_700_000_000_000_000n; // 2023-11-14 in µs

interface Case {
  name: string;
  lt: TypeDesc;
  rt: TypeDesc;
  lv: fc.Arbitrary<unknown>;
  rv: fc.Arbitrary<unknown>;
  tol: fc.Arbitrary<number | bigint | string | undefined>;
  strings?: boolean;
  timeZone?: string;
}

const small = fc.integer({ min: -12, max: 12 });
const nullable = <T>(a: fc.Arbitrary<T>) => fc.oneof({ weight: 8, arbitrary: a }, { weight: 1, arbitrary: fc.constant(null) });
const i64pool = fc.oneof(
  small.map(BigInt),
  fc.constantFrom(MIN64, MIN64 + 1n, -1n, 0n, 1n, 2n ** 52n, 2n ** 52n + 1n, 2n ** 53n + 1n, MAX64 - 1n, MAX64),
);
const u64pool = fc.oneof(fc.nat(12).map(BigInt), fc.constantFrom(0n, 2n ** 53n, 2n ** 63n, 2n ** 64n - 2n, 2n ** 64n - 1n, MAX64));
const f64pool = fc.oneof(
  small,
  fc.constantFrom(-Infinity, Infinity, NaN, -0, 0.5, -1e20, 1e20, 2 ** -60, -(2 ** -60), 1 + 2 ** -52, 0.1, 0.3, 1e308, -1e308, 5e-324),
);
const strPool = fc.constantFrom('', 'a', 'ab', 'b', '10', '2', '\uff5e', '😀', 'é', 'e\u0301');
const DAY = 19_792; // 2024-03-10 (DST day in New York)
const MID_NY = BigInt(DAY) * 86_400_000n + 5n * 3_600_000n;

const CASES: Case[] = [
  {
    name: 'int32',
    lt: I32,
    rt: I32,
    lv: small,
    rv: small,
    tol: fc.oneof(fc.constant(undefined), fc.nat(8), fc.constant(2n ** 80n), fc.constant(Infinity)),
  },
  { name: 'int8 vs uint32', lt: I8, rt: U32, lv: small, rv: fc.nat(12), tol: fc.oneof(fc.constant(undefined), fc.nat(5)) },
  {
    name: 'int64 vs uint64 (extremes)',
    lt: I64,
    rt: U64,
    lv: i64pool,
    rv: u64pool,
    tol: fc.oneof(fc.constant(undefined), fc.nat(5), fc.constantFrom(2n ** 63n, 2n ** 64n - 1n, 2n ** 53n)),
  },
  {
    name: 'int64 vs int64 (extremes)',
    lt: I64,
    rt: I64,
    lv: i64pool,
    rv: i64pool,
    tol: fc.oneof(fc.constant(undefined), fc.nat(5), fc.constantFrom(2n ** 63n, 2n ** 64n - 1n, 2n ** 64n)),
  },
  {
    name: 'float64 (infinities, -0, NaN, huge, tiny)',
    lt: F64,
    rt: F64,
    lv: f64pool,
    rv: f64pool,
    tol: fc.oneof(fc.constant(undefined), fc.constantFrom(0, 0.5, 1, 2, 1e20, 1e308, Infinity, 0.2, 2n ** 70n)),
  },
  { name: 'float32 vs float64', lt: F32, rt: F64, lv: f64pool, rv: f64pool, tol: fc.oneof(fc.constant(undefined), fc.constantFrom(0, 1, 0.1)) },
  {
    name: 'timestamp[s] vs timestamp[ns] (year 2500)',
    lt: ts('s'),
    rt: ts('ns'),
    lv: fc.oneof(small.map(BigInt), fc.constantFrom(Y2500, Y2500 - 1n, -Y2500, 9_223_372_036n, 9_223_372_037n)),
    rv: fc.oneof(
      small.map((x) => BigInt(x) * 500_000_000n),
      fc.constantFrom(MIN64, MAX64, 9_223_372_036_000_000_000n, 9_223_372_036_854_775_806n),
    ),
    tol: fc.oneof(fc.constant(undefined), fc.constantFrom('0ns', '1ns', '500ms', '1s', '3s', '1w', '300000d')),
  },
  {
    name: 'date32 vs timestamp[ms, America/New_York]',
    lt: D32,
    rt: ts('ms', 'America/New_York'),
    lv: fc.integer({ min: DAY - 2, max: DAY + 2 }),
    rv: fc.oneof(
      fc.integer({ min: -3, max: 3 }).map((d) => MID_NY + BigInt(d) * 86_400_000n),
      fc.integer({ min: -3 * 86400, max: 3 * 86400 }).map((s) => MID_NY + BigInt(s) * 1000n),
    ),
    tol: fc.oneof(fc.constant(undefined), fc.constantFrom('0ms', '1h', '1d', '25h')),
    timeZone: 'America/New_York',
  },
  {
    name: 'date32 vs zone-less timestamp[ns]',
    lt: D32,
    rt: ts('ns'),
    lv: fc.integer({ min: -3, max: 3 }),
    rv: fc.integer({ min: -3 * 24, max: 3 * 24 }).map((h) => BigInt(h) * 3_600_000_000_000n + BigInt(h % 3)),
    tol: fc.oneof(fc.constant(undefined), fc.constantFrom('0ns', '1h', '1d', '1d1ns')),
  },
  {
    // span > 2^52 ns: the limb form; right keys sit at, just inside and just outside the tolerance
    name: 'timestamp[us] vs timestamp[ns] (limb keys, gaps at the tolerance boundary)',
    lt: ts('us'),
    rt: ts('ns'),
    lv: fc.oneof(fc.integer({ min: -3, max: 3 }).map((h) => BASE_US + BigInt(h) * 3_600_000_000n), fc.constantFrom(0n, MIN64 / 1000n)),
    rv: fc.oneof(
      fc.tuple(fc.integer({ min: -4, max: 4 }), fc.integer({ min: -1, max: 1 })).map(([h, d]) => BASE_US * 1000n + BigInt(h) * 3_600_000_000_000n + BigInt(d)),
      fc.constantFrom(MIN64, MAX64, 0n),
    ),
    tol: fc.oneof(fc.constant(undefined), fc.constantFrom('1h', '2h', '1ns', '0ns', '59m59s999999999ns', '1h1ns', '106751d23h47m16s854775807ns')),
  },
  { name: 'utf8', lt: STR, rt: STR, lv: strPool, rv: strPool, tol: fc.constant(undefined), strings: true },
];

function hash(a: number, b: number): number {
  let h = Math.imul(a + 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b + 0x7f4a7c15, 0xc2b2ae35);
  h ^= h >>> 13;
  return (Math.imul(h, 0x27d4eb2f) >>> 0) % 5;
}

for (const c of CASES) {
  describe(`asofMatch vs reference: ${c.name}`, () => {
    it('agrees on random inputs', () => {
      const group = nullable(fc.integer({ min: 0, max: 3 }));
      const scenario = fc.record({
        left: fc.array(fc.record({ g: group, k: nullable(c.lv) }), { maxLength: 25 }),
        right: fc.array(fc.record({ g: group, k: nullable(c.rv) }), { maxLength: 25 }),
        direction: c.strings ? fc.constantFrom('backward' as const, 'forward' as const) : fc.constantFrom('backward' as const, 'forward' as const, 'nearest' as const),
        allowExactMatches: fc.boolean(),
        tolerance: c.tol,
        useBy: fc.boolean(),
        nullsEqual: fc.boolean(),
        condition: fc.constantFrom('none', 'hash', 'rejectMost'),
        keepInvalid: fc.boolean(),
        seed: fc.nat(),
      });
      fc.assert(
        fc.property(scenario, (s) => {
          const ls: FieldDesc[] = [
            { name: 'id', type: I32, nullable: false },
            { name: 'g', type: I32, nullable: true },
            { name: 'k', type: c.lt, nullable: true },
          ];
          const rs: FieldDesc[] = [
            { name: 'rid', type: I32, nullable: false },
            { name: 'g', type: I32, nullable: true },
            { name: 'k', type: c.rt, nullable: true },
          ];
          const left: AsofRow[] = s.left.map((r, i) => ({ id: i, g: r.g, k: r.k }));
          const right: AsofRow[] = s.right.map((r, i) => ({ rid: i, g: r.g, k: r.k }));
          const options: AsofOptions = {
            on: 'k',
            direction: s.direction,
            allowExactMatches: s.allowExactMatches,
            nullsEqual: s.nullsEqual,
          };
          if (s.useBy) options.by = 'g';
          if (s.tolerance !== undefined) options.tolerance = s.tolerance;
          if (c.timeZone) options.timeZone = c.timeZone;
          const cond =
            s.condition === 'none'
              ? undefined
              : (o: AsofRow): boolean | null => {
                  const h = hash(o['id'] as number, o['rid'] as number);
                  if (s.condition === 'rejectMost') return h === 0;
                  return h === 0 ? null : h !== 1;
                };
          const got = runAsofKernel(left, right, ls, rs, options, cond, { keepInvalid: s.keepInvalid, seed: s.seed });
          const want = referenceAsof(left, right, ls, rs, options, cond);
          expect(got).toEqual(want);
        }),
        { numRuns: 200 },
      );
    });
  });
}

describe('condition rounds', () => {
  it('calls checkPairs once per round, never once per pair', () => {
    const n = 200;
    const left = Array.from({ length: n }, (_, i) => ({ id: i, k: i * 2 }));
    const right = Array.from({ length: n }, (_, i) => ({ rid: i, k: i * 2 + 1 }));
    const ls: FieldDesc[] = [{ name: 'id', type: I32, nullable: false }, { name: 'k', type: I32, nullable: true }];
    const rs: FieldDesc[] = [{ name: 'rid', type: I32, nullable: false }, { name: 'k', type: I32, nullable: true }];
    const cond = (o: AsofRow) => (o['rid'] as number) % 4 === 0;
    for (const direction of ['backward', 'forward', 'nearest'] as const) {
      const calls: number[] = [];
      const got = runAsofKernel(left, right, ls, rs, { on: 'k', direction }, cond, { onCheck: (c) => calls.push(c) });
      expect(got).toEqual(referenceAsof(left, right, ls, rs, { on: 'k', direction }, cond));
      expect(calls.length).toBeLessThanOrEqual(4);
      expect(calls[0]).toBeGreaterThanOrEqual(n - 1);
    }
  });
});
