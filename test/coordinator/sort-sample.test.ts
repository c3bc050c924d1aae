// The sort sampler keeps the rows whose id is a multiple of the smallest power-of-two stride
// that keeps at most 8,192 of them, whatever the batch sizes, with their key values.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import * as A from 'apache-arrow';
import { SortSampler } from '../../src/coordinator/sort-sample.js';

const MAX = 8192;

describe('SortSampler', () => {
  it('keeps every stride-th row id, the stride the smallest power of two that fits, across batch sizes', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 9000 }), { minLength: 1, maxLength: 8 }), (sizes) => {
        const sampler = new SortSampler([1], [{ descending: false, nullsFirst: true }]);
        let base = 0;
        for (const n of sizes) {
          const k = BigInt64Array.from({ length: n }, (_, i) => BigInt(base + i) * 3n);
          const batch = new A.Table({ x: A.makeVector(new Int32Array(n)), k: A.makeVector(k) }).batches[0];
          if (batch) sampler.add(batch, base);
          base += n;
        }
        let stride = 1;
        while (Math.ceil(base / stride) > MAX) stride *= 2;
        const want = Array.from({ length: Math.ceil(base / stride) }, (_, j) => j * stride);
        const parts = sampler.sampled();
        expect(parts.flatMap((p) => Array.from(p.ids))).toEqual(want);
        expect(parts.flatMap((p) => Array.from(p.keys[0]!.values as BigInt64Array, Number))).toEqual(want.map((id) => id * 3));
      }),
      { numRuns: 60 },
    );
  });
});
