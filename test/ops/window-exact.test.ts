/**
 * Correct rounding of exact rationals (src/ops/window-exact): roundRatio's fast filter and
 * ratioToDouble against the reference's own bisection (test/support/window-reference
 * nearestDouble), on random values and on exact rounding midpoints (ties to even) and their
 * neighbours, where a filter without a fallback would go wrong; and the integer-variance path
 * that uses it (N = m·S2 - S1² above 2^53) against the reference.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ratioToDouble, roundRatio } from '../../src/ops/window-exact.js';
import type { FieldDesc } from '../../src/types/column.js';
import { engineOptions, refOptions, W } from '../support/window-fns.js';
import { runKernelOnRows } from '../support/window-harness.js';
import { compareWindowResults, nearestDouble, type RefRow } from '../support/window-reference.js';

/** N as two doubles: nh = fl(N), nl = N - nh. */
function split(N: bigint): [number, number] {
  const nh = Number(N);
  return [nh, Number(N - BigInt(nh))];
}

describe('exact ratios', () => {
  it('ratioToDouble and roundRatio are correctly rounded on random values', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 104n) - 1n }), fc.integer({ min: 1, max: 2 ** 30 }), (N, d) => {
        const want = nearestDouble(N, BigInt(d));
        expect(ratioToDouble(N, BigInt(d))).toBe(want);
        expect(ratioToDouble(-N, BigInt(d))).toBe(want === 0 ? 0 : -want);
        const [nh, nl] = split(N);
        expect(roundRatio(nh, nl, d)).toBe(want);
      }),
      { numRuns: 3000 },
    );
  });

  it('rounds exact midpoints to even, and their neighbours away', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n << 54n, max: 1n << 80n }), fc.integer({ min: 1, max: 2 ** 20 }), fc.constantFrom(-1n, 0n, 1n), (x, d, delta) => {
        const q = Number(x); // a double >= 2^54: an even integer, ulp >= 4
        const q2 = q + 2 ** (Math.floor(Math.log2(q)) - 52);
        const mid = (BigInt(q) + BigInt(q2)) / 2n;
        const N = mid * BigInt(d) + delta;
        const want = nearestDouble(N, BigInt(d));
        const [nh, nl] = split(N);
        expect(roundRatio(nh, nl, d)).toBe(want);
        expect(ratioToDouble(N, BigInt(d))).toBe(want);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('integer variance through the double-double path', () => {
  const schema: FieldDesc[] = [
    { name: 't', type: { kind: 'int', bits: 32, signed: true }, nullable: false },
    { name: 'v', type: { kind: 'int', bits: 32, signed: true }, nullable: true },
  ];
  it('is the correctly rounded exact value when m·S2 exceeds 2^53', () => {
    fc.assert(
      fc.property(
        fc.array(fc.option(fc.integer({ min: -(2 ** 21), max: 2 ** 21 }), { freq: 8, nil: null }), { minLength: 1, maxLength: 300 }),
        fc.integer({ min: 1, max: 300 }),
        (vals, w) => {
          const rows: RefRow[] = vals.map((v, t) => ({ t, v }));
          const opts = { orderBy: 't', columns: { a: W.variance('v').rows(w), b: W.stddevPop('v').rows(w, 3), c: W.varPop('v').rows('unbounded', 0) } };
          const { values } = runKernelOnRows(rows, schema, engineOptions(opts));
          expect(compareWindowResults(values, rows, schema, refOptions(opts))).toEqual([]);
        },
      ),
      { numRuns: 150 },
    );
  });
});
