/**
 * Float ASOF gaps where rounded doubles tie (nearest with equal rounded gaps; a gap that rounds
 * to the tolerance): settled by exact rounding errors in src/ops/asof-gaps, checked against
 * exact BigInt multiples of 2^-1074 computed here. Overflowing gaps (±1e308) included.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { asofGapWithin, compareAsofGaps, makeAsofTolerance, normalizeAsofKey, type AsofKeyPlan } from '../../src/ops/asof-keys.js';
import { keyColumn } from './asof-harness.js';

const FLOAT: AsofKeyPlan = { cls: 'float', unit: null, dateZone: null };
const F64 = { kind: 'float', bits: 64 } as const;

/** x * 2^1074 exactly (x finite). */
function exact(x: number): bigint {
  let m = x;
  let e = 0;
  while (!Number.isInteger(m)) {
    m *= 2;
    e++;
  }
  return BigInt(m) << BigInt(1074 - e);
}
const abs = (v: bigint) => (v < 0n ? -v : v);
const sign = (v: bigint) => (v < 0n ? -1 : v > 0n ? 1 : 0);

const base = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e300, max: 1e300 }),
  fc.constantFrom(0.1, 0.3, 1, 1e16, -1e16, 1e308, -1e308, 5e-324, 2 ** 53, 1 + 2 ** -52),
);
const step = fc.oneof(fc.double({ noNaN: true, min: 0, max: 1e300 }), fc.constantFrom(0.1, 0.2, 1e-300, 1e308, 2 ** -1074, 1, 3));

describe('float gap ties', () => {
  it('nearest: equal rounded gaps are compared exactly', () => {
    fc.assert(
      fc.property(base, step, step, (x, g1, g2) => {
        const p = x - g1;
        const s = x + g1 + (g2 < 1 ? 0 : 0); // s - x and x - p often round to the same double
        const vals = [x, p, s, x + g2, x - g2].filter(Number.isFinite);
        const key = normalizeAsofKey(keyColumn(F64, vals), FLOAT);
        for (let a = 0; a < vals.length; a++)
          for (let b = 0; b < vals.length; b++) {
            const want = sign(abs(exact(vals[b]!) - exact(vals[0]!)) - abs(exact(vals[0]!) - exact(vals[a]!)));
            expect(compareAsofGaps(key, 0, key, a, key, b)).toBe(want);
          }
      }),
      { numRuns: 2000 },
    );
  });

  it('tolerance: a gap that rounds to the tolerance is checked exactly (number and bigint tolerances)', () => {
    fc.assert(
      fc.property(base, step, fc.integer({ min: -2, max: 2 }), fc.boolean(), (x, g, nudge, asBig) => {
        const k = x + g;
        if (!Number.isFinite(k)) return;
        const rounded = Math.abs(k - x); // the rounded gap, used as the tolerance
        if (!Number.isFinite(rounded)) return;
        let tol: number | bigint = rounded;
        if (asBig && Number.isInteger(rounded)) tol = BigInt(rounded) + BigInt(nudge) < 0n ? 0n : BigInt(rounded) + BigInt(nudge);
        const key = normalizeAsofKey(keyColumn(F64, [x, k]), FLOAT);
        const t = makeAsofTolerance(tol);
        const gap = abs(exact(k) - exact(x));
        const limit = typeof tol === 'bigint' ? tol << 1074n : exact(tol);
        expect(asofGapWithin(key, 0, key, 1, t)).toBe(gap <= limit);
        expect(asofGapWithin(key, 1, key, 0, t)).toBe(gap <= limit);
      }),
      { numRuns: 3000 },
    );
  });

  it('huge gaps: overflowing differences compare exactly', () => {
    const key = normalizeAsofKey(keyColumn(F64, [0, -1.7e308, 1.7e308, -Number.MAX_VALUE, Number.MAX_VALUE, 1e308]), FLOAT);
    expect(compareAsofGaps(key, 0, key, 1, key, 2)).toBe(0);
    const k2 = normalizeAsofKey(keyColumn(F64, [1e308, -Number.MAX_VALUE, Number.MAX_VALUE, -1e308]), FLOAT);
    // from 1e308: MAX is far closer than -MAX; -MAX's gap overflows a double
    expect(compareAsofGaps(k2, 0, k2, 1, k2, 2)).toBe(-1);
    expect(compareAsofGaps(k2, 0, k2, 2, k2, 1)).toBe(1);
    // both gaps overflow: -MAX vs -1e308 seen from MAX
    const k3 = normalizeAsofKey(keyColumn(F64, [Number.MAX_VALUE, -Number.MAX_VALUE, -1e308]), FLOAT);
    expect(compareAsofGaps(k3, 0, k3, 1, k3, 2)).toBe(-1);
    expect(asofGapWithin(k3, 0, k3, 1, makeAsofTolerance(2n ** 1100n))).toBe(true);
  });
});
