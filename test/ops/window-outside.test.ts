import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { aggFloatSum, AggFolder, copyAgg, emptyAgg } from '../../src/ops/window-outside.js';
import { floatRunningSumNaive, floatSumNaive } from '../../src/ops/window-sum.js';
import type { KeyColumn } from '../../src/types/keys.js';

const floatCol = (xs: number[], valid: Uint8Array | null = null): KeyColumn => ({
  type: { kind: 'float', bits: 64 },
  length: xs.length,
  values: Float64Array.from(xs),
  offsets: null,
  valid,
});

const doubles = fc.array(fc.double({ noNaN: true, min: -1e12, max: 1e12 }), { minLength: 1, maxLength: 300 });

describe('window-outside states', () => {
  it('a start-anchored state, continued from any split point, is the running canonical sum bit for bit', () => {
    fc.assert(
      fc.property(doubles, fc.nat(), (xs, cut) => {
        const base = Float64Array.from(xs);
        const col = floatCol(xs);
        const split = cut % (xs.length + 1);
        // what a range carries to the next: the state of the rows before the split
        const carried = emptyAgg();
        const folder = new AggFolder(col, 'start');
        for (let j = 0; j < split; j++) folder.add(carried, j);
        const st = copyAgg(carried);
        for (let j = split; j < xs.length; j++) {
          folder.add(st, j);
          expect(Object.is(aggFloatSum(st, 'start'), floatRunningSumNaive(base, 0, j + 1))).toBe(true);
        }
      }),
    );
  });

  it("an end-anchored state is the canonical sum of a frame to the group's end (smallest block first)", () => {
    fc.assert(
      fc.property(doubles, (xs) => {
        const base = Float64Array.from(xs);
        const st = emptyAgg();
        const folder = new AggFolder(floatCol(xs), 'end');
        for (let j = xs.length - 1; j >= 0; j--) {
          folder.add(st, j);
          expect(Object.is(aggFloatSum(st, 'end'), floatSumNaive(base, j, xs.length))).toBe(true);
        }
      }),
    );
  });

  it('counts non-NULL values, keeps NULLs as -0 in the tree, and sums 64-bit integers exactly in 96 bits', () => {
    fc.assert(
      fc.property(fc.array(fc.option(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n })), { minLength: 1, maxLength: 200 }), (vs) => {
        const values = BigInt64Array.from(vs.map((v) => v ?? 0n));
        const valid = Uint8Array.from(vs.map((v) => (v === null ? 0 : 1)));
        const col: KeyColumn = { type: { kind: 'int', bits: 64, signed: true }, length: vs.length, values, offsets: null, valid };
        const st = emptyAgg();
        const folder = new AggFolder(col, 'start');
        vs.forEach((_, j) => folder.add(st, j));
        const exact = vs.reduce<bigint>((t, v) => t + (v ?? 0n), 0n);
        expect(st.count).toBe(vs.filter((v) => v !== null).length);
        expect((BigInt(st.h) << 64n) + (BigInt(st.m) << 32n) + BigInt(st.l)).toBe(exact);
      }),
    );
    const st = emptyAgg();
    const folder = new AggFolder(floatCol([1, 0, 2], Uint8Array.of(1, 0, 1)), 'end');
    for (let j = 2; j >= 0; j--) folder.add(st, j);
    expect(st.count).toBe(2);
    expect(st.sizes).toEqual([2, 1]);
    expect(aggFloatSum(st, 'end')).toBe(3);
  });
});
