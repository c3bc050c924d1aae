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
  it('give normalizeAsofKey\'s doubles in sorted order, for ms and us keys in a us or ns plan', () => {
    fc.assert(
      fc.property(
        fc.array(fc.bigInt({ min: -(2n ** 36n), max: 2n ** 36n }), { minLength: 1, maxLength: 50 }),
        fc.bigInt({ min: 1_600_000_000_000n, max: 1_800_000_000_000n }),
        fc.boolean(),
        fc.constantFrom<'us' | 'ns'>('us', 'ns'),
        (offsets, at, millis, unit) => {
          const col = column(millis ? MS : US, offsets.map((o) => at + o));
          const p = plan(unit);
          const { base, spans } = asofKeyRanges([col], p);
          const scaled = scaledWordsKey(col, p, base, spans?.[0]);
          // ns of 2023: beyond 2^52, rebased (a base), or a span past 2^52 (limbs): not scaled; else scaled
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
      { numRuns: 200 },
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
