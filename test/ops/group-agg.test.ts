/**
 * Group-by kernels' float sums: canonicalFloatSum is window's canonical order (floatSumNaive) bit
 * for bit, and the canonical tree nodes of any split into pieces of consecutive positions merge
 * back into exactly that sum (the whole-input aggregate computed piece by piece).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalFloatSum, floatSumNodes, mergeFloatNodes } from '../../src/ops/group-agg.js';
import { floatSumNaive } from '../../src/ops/window-sum.js';

const values = fc.array(fc.oneof(fc.double({ noNaN: true, min: -1e12, max: 1e12 }), fc.constantFrom(-0, 0, 1e-300, 3.5)), { maxLength: 300 });

describe('group-by float sums', () => {
  it('canonicalFloatSum equals window floatSumNaive bit for bit', () => {
    fc.assert(
      fc.property(values, (xs) => {
        const x = Float64Array.from(xs);
        const stack = new Float64Array(34);
        expect(Object.is(canonicalFloatSum(x, 0, x.length, stack), floatSumNaive(x, 0, x.length))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('tree nodes of any pieces merge into the one-task sum', () => {
    fc.assert(
      fc.property(values.filter((xs) => xs.length > 0), fc.array(fc.nat(), { maxLength: 12 }), (xs, cuts) => {
        const x = Float64Array.from(xs);
        const n = x.length;
        const bounds = [...new Set([0, n, ...cuts.map((c) => c % (n + 1))])].sort((a, b) => a - b);
        const nodes: number[] = [];
        const stack = new Float64Array(34);
        // pieces in any order: the merge does not depend on it
        const pieces = bounds.slice(1).map((e, i) => [bounds[i]!, e] as const).reverse();
        for (const [s, e] of pieces) floatSumNodes(x.subarray(s, e), s, e, n, nodes, stack);
        expect(Object.is(mergeFloatNodes(nodes), canonicalFloatSum(x, 0, n, stack))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
