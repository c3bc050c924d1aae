// The scaled-words form of an ASOF key (src/ops/asof-normalize scaledWordsKey): offered only
// where normalizeAsofKey's doubles are (hi * 2^32 + lo) * factor, and its sorted doubles
// (permuteScaledKey) equal normalizeAsofKey's permuted by permuteAsofKey.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { AsofKeyPlan } from '../../src/ops/asof-keys.js';
import { asofKeyRanges, normalizeAsofKey, permuteAsofKey, permuteScaledKey, scaledWordsKey } from '../../src/ops/asof-keys.js';
import type { TypeDesc } from '../../src/types/column.js';
import type { KeyColumn } from '../../src/types/keys.js';

const US: TypeDesc = { kind: 'timestamp', unit: 'us', timezone: null };
const MS: TypeDesc = { kind: 'timestamp', unit: 'ms', timezone: null };
const plan = (unit: 'us' | 'ns'): AsofKeyPlan => ({ cls: 'temporal', unit, dateZone: null });

function column(type: TypeDesc, values: bigint[], valid: Uint8Array | null = null): KeyColumn {
  return { type, length: values.length, values: BigInt64Array.from(values), offsets: null, valid };
}

describe('scaledWordsKey and permuteScaledKey', () => {
  // Column types and plans whose keys are 64-bit words: [type, plan, values' magnitude].
  const FORMS: Array<[TypeDesc, AsofKeyPlan, bigint]> = [
    [MS, plan('us'), 1_800_000_000_000n],
    [US, plan('us'), 1_800_000_000_000_000n],
    [MS, plan('ns'), 1_800_000_000_000n],
    [{ kind: 'date', unit: 'ms' }, plan('us'), 1_800_000_000_000n],
    [{ kind: 'duration', unit: 'us' }, plan('us'), 2n ** 52n],
    [{ kind: 'int', bits: 64, signed: true }, { cls: 'integer', unit: null, dateZone: null }, 2n ** 52n],
    [{ kind: 'int', bits: 64, signed: false }, { cls: 'integer', unit: null, dateZone: null }, 2n ** 52n],
  ];

  it('give normalizeAsofKey\'s doubles in sorted order: timestamps, date64, durations, int64 and uint64, across zero and at ±2^52', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: FORMS.length - 1 }),
        fc.array(fc.bigInt({ min: -(2n ** 36n), max: 2n ** 36n }), { minLength: 1, maxLength: 50 }),
        fc.oneof(fc.constant(0n), fc.constant(1n), fc.bigInt({ min: -(2n ** 53n), max: 2n ** 53n })),
        fc.boolean(),
        (f, offsets, at, edge) => {
          const [type, p, most] = FORMS[f]!;
          const unsigned = type.kind === 'int' && !type.signed;
          // values around `at` within ±most (uint64: from 0), and now and then the extremes themselves
          const clamp = (v: bigint): bigint => (v > most ? most : v < (unsigned ? 0n : -most) ? (unsigned ? 0n : -most) : v);
          const values = offsets.map((o, i) => (edge && i === 0 ? most : edge && i === 1 && !unsigned ? -most : clamp(at + o)));
          const col: KeyColumn = { type, length: values.length, values: unsigned ? BigUint64Array.from(values) : BigInt64Array.from(values), offsets: null, valid: null };
          const { base, spans } = asofKeyRanges([col], p);
          const scaled = scaledWordsKey(col, p, base, spans?.[0]);
          // past ±2^52 in the common unit: rebased (a base) or limbs (no spans): not scaled; else scaled
          if (base !== null || spans === null) {
            expect(scaled).toBeNull();
            return;
          }
          expect(scaled).not.toBeNull();
          const order = Uint32Array.from(offsets.map((_, i) => i).reverse());
          const want = permuteAsofKey(normalizeAsofKey(col, p, base), order);
          expect(permuteScaledKey(scaled!, order)).toEqual(want);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('is not offered with NULLs, 32-bit columns, zones, a base or no valid key', () => {
    const p = plan('us');
    const vals = [1_700_000_000_000_000n, 1_700_000_000_000_123n];
    const plain = column(US, vals);
    const { spans } = asofKeyRanges([plain], p);
    expect(scaledWordsKey(plain, p, null, spans![0])).not.toBeNull();
    expect(scaledWordsKey(column(US, vals, Uint8Array.of(1, 0)), p, null, spans![0])).toBeNull();
    expect(scaledWordsKey(plain, p, 5n, spans![0])).toBeNull();
    expect(scaledWordsKey(plain, p, null, null)).toBeNull();
    expect(scaledWordsKey(plain, p, null, undefined)).toBeNull();
    const int32: KeyColumn = { type: { kind: 'int', bits: 32, signed: true }, length: 2, values: Int32Array.of(1, 2), offsets: null, valid: null };
    expect(scaledWordsKey(int32, { cls: 'integer', unit: null, dateZone: null }, null, [1, 2])).toBeNull();
    const zonedDate: KeyColumn = { type: { kind: 'date', unit: 'ms' }, length: 1, values: BigInt64Array.of(86_400_000n), offsets: null, valid: null };
    expect(scaledWordsKey(zonedDate, { cls: 'temporal', unit: 'us', dateZone: 'Europe/Paris' }, null, [0, 0])).toBeNull();
  });
});
