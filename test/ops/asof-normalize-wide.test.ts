/**
 * The limb form of ASOF keys (src/ops/asof-normalize, values beyond ±2^52 in the common unit),
 * now multiplied out of 32-bit words: every limb triple equals the exact value computed with
 * BigInt from API.md's rules (raw × unit factor; a DATE against a zoned TIMESTAMP is its day's
 * start in the zone, from the reference), at the int64 extremes and for huge date64 values.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizeAsofKey, type AsofKeyPlan } from '../../src/ops/asof-keys.js';
import type { TypeDesc } from '../../src/types/column.js';
import { referenceStartOfDay } from '../support/asof-reference.js';
import { keyColumn } from './asof-harness.js';

const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;
const NS: AsofKeyPlan = { cls: 'temporal', unit: 'ns', dateZone: null };
const raw64 = fc.oneof(
  fc.constantFrom(I64_MIN, I64_MIN + 1n, -1n, 0n, 1n, I64_MAX, 2n ** 53n + 1n, -(2n ** 53n) - 1n),
  fc.bigInt({ min: I64_MIN, max: I64_MAX }),
);

function limbsOf(key: ReturnType<typeof normalizeAsofKey>): Array<bigint | null> {
  if (key.kind !== 'wide') throw new Error(`expected the limb form, got ${key.kind}`);
  return Array.from(key.h, (h, i) => (key.valid !== null && key.valid[i] === 0 ? null : (BigInt(h) << 64n) + (BigInt(key.m[i]!) << 32n) + BigInt(key.l[i]!)));
}

const floorDiv = (a: bigint, b: bigint) => (a % b !== 0n && a < 0n ? a / b - 1n : a / b);

describe('ASOF limb keys', () => {
  for (const [unit, f] of [['s', 1_000_000_000n], ['ms', 1_000_000n], ['us', 1_000n]] as const) {
    it(`timestamp[${unit}] to ns: raw × ${f} exactly`, () => {
      fc.assert(
        fc.property(fc.array(fc.option(raw64, { freq: 6, nil: null }), { maxLength: 12 }), (vals) => {
          const all = [I64_MAX, ...vals];
          const key = normalizeAsofKey(keyColumn({ kind: 'timestamp', unit, timezone: null }, all), NS);
          expect(limbsOf(key)).toEqual(all.map((v) => (v === null ? null : v * f)));
        }),
        { numRuns: 300 },
      );
    });
  }

  it('int64 keys beyond 2^52 keep their value', () => {
    fc.assert(
      fc.property(fc.array(raw64, { maxLength: 12 }), (vals) => {
        const all = [I64_MIN, ...vals];
        expect(limbsOf(normalizeAsofKey(keyColumn({ kind: 'int', bits: 64, signed: true }, all), { cls: 'integer', unit: null, dateZone: null }))).toEqual(all);
      }),
      { numRuns: 300 },
    );
  });

  it('date32 days to ns (zone-less and zoned midnights)', () => {
    const day = fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });
    fc.assert(
      fc.property(fc.array(day, { minLength: 1, maxLength: 6 }), (some) => {
        const days = [20_000, ...some]; // 2024: beyond 2^52 ns
        const d32: TypeDesc = { kind: 'date', unit: 'day' };
        expect(limbsOf(normalizeAsofKey(keyColumn(d32, days), NS))).toEqual(days.map((d) => BigInt(d) * 86_400_000_000_000n));
        const zoned = normalizeAsofKey(keyColumn(d32, days), { ...NS, dateZone: 'America/New_York' });
        expect(limbsOf(zoned)).toEqual(days.map((d) => BigInt(referenceStartOfDay('America/New_York', d)) * 1_000_000_000n));
      }),
      { numRuns: 40 },
    );
  });

  it('zoned date64 (ms) to ns, including |ms| beyond 2^53: day start plus remainder', () => {
    const ms = fc.oneof(raw64, fc.integer({ min: -1e12, max: 4e12 }).map((d) => BigInt(d) * 1000n));
    fc.assert(
      fc.property(fc.array(ms, { minLength: 1, maxLength: 6 }), (vals) => {
        const all = [I64_MAX, ...vals];
        const key = normalizeAsofKey(keyColumn({ kind: 'date', unit: 'ms' }, all), { ...NS, dateZone: 'Asia/Kolkata' });
        const want = all.map((v) => {
          const day = floorDiv(v, 86_400_000n);
          return BigInt(referenceStartOfDay('Asia/Kolkata', Number(day))) * 1_000_000_000n + (v - day * 86_400_000n) * 1_000_000n;
        });
        expect(limbsOf(key)).toEqual(want);
      }),
      { numRuns: 60 },
    );
  });
});
