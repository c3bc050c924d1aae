import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { valueLayout } from '../../src/columns/gather.js';
import { scatterData } from '../../src/columns/scatter.js';
import { allCases, columnWithSlice } from '../support/explode-arbitraries.js';
import { dirtyWhenOverwritten } from '../support/dirty-allocator.js';
import { checkLayout, makeColumn, normalize, readData } from '../support/explode-arrow.js';

/** A permutation of 0..n-1 from random sort keys. */
function permutation(n: number, keys: number[]): Uint32Array {
  const ids = Array.from({ length: n }, (_, i) => i);
  ids.sort((a, b) => (keys[a % keys.length] ?? 0) - (keys[b % keys.length] ?? 0) || a - b);
  return Uint32Array.from(ids);
}

describe('scatterData: output row pos[i] = input row i, for fixed-width layouts and 32-bit-offset strings; null for the others', () => {
  for (const c of allCases) {
    it(c.label, () => {
      fc.assert(
        fc.property(columnWithSlice(c), fc.array(fc.integer(), { minLength: 1, maxLength: 50 }), (col, keys) => {
          const data = makeColumn(col.values, c.type).slice(col.off, col.len);
          const pos = permutation(data.length, keys);
          const out = scatterData(data, pos, dirtyWhenOverwritten);
          const layout = valueLayout(data.type);
          const large = layout === 'varbinary' && !(data.valueOffsets instanceof Int32Array);
          if ((layout !== 'fixed' && layout !== 'dictionary' && layout !== 'varbinary') || large) {
            expect(out).toBeNull();
            return;
          }
          expect(out).not.toBeNull();
          const expected: unknown[] = new Array(data.length);
          for (let i = 0; i < data.length; i++) expected[pos[i]!] = normalize(col.values[col.off + i], c.type);
          expect(checkLayout(out!)).toEqual([]);
          expect(out!.nullCount).toBe(expected.filter((v) => v === null).length);
          expect(readData(out!)).toEqual(expected);
        }),
        { numRuns: 60 },
      );
    });
  }

  it('refuses positions of another length (the caller gathers)', () => {
    const data = makeColumn([1, 2, 3], allCases.find((c) => c.label === 'int32')!.type);
    expect(scatterData(data, Uint32Array.of(1, 0), dirtyWhenOverwritten)).toBeNull();
  });
});
