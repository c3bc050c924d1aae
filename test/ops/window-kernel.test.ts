/**
 * Differential tests of the window kernel (fed as the worker feeds it, test/support/window-
 * harness.ts) against the naive reference written from API.md (test/support/window-reference.ts),
 * on random tables and random calls of every window function, frame kind, modifier and type;
 * plan errors must be raised exactly where the reference demands one; and computeWindowNaive
 * must return the same bits as computeWindow.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildCall, callArb, refCall, rowArb, SCHEMA, show } from '../support/window-arbitraries.js';
import { engineOptions, refOptions, W, type BothOptions } from '../support/window-fns.js';
import { runKernelOnRows } from '../support/window-harness.js';
import { compareWindowResults, refPlanError, type RefRow } from '../support/window-reference.js';

const tableArb = fc.array(rowArb, { minLength: 0, maxLength: 40 });

describe('computeWindow vs the naive reference', () => {
  it('raises a PlanError exactly where the contract demands one', () => {
    let errors = 0;
    fc.assert(
      fc.property(callArb, (call) => {
        const built = buildCall(call);
        const expected = refPlanError(refCall(call), SCHEMA);
        const got = 'error' in built ? built.error : null;
        if (got) errors++;
        expect(got, show(refCall(call))).toBe(expected);
      }),
      { numRuns: 2000 },
    );
    expect(errors).toBeGreaterThan(100);
  });

  it('matches on random tables, functions, frames and orders', () => {
    let checked = 0;
    fc.assert(
      fc.property(tableArb, callArb, (rows, call) => {
        const built = buildCall(call);
        if ('error' in built) return;
        checked++;
        const { values } = runKernelOnRows(rows, SCHEMA, engineOptions(built.both));
        const msgs = compareWindowResults(values, rows, SCHEMA, refCall(call));
        expect(msgs, show(refCall(call))).toEqual([]);
      }),
      { numRuns: 400 },
    );
    expect(checked).toBeGreaterThan(100);
  });

  it('matches with one long partition (frames much shorter and longer than partitions)', () => {
    fc.assert(
      fc.property(fc.array(rowArb, { minLength: 50, maxLength: 120 }), callArb, (rows, raw) => {
        const call = { ...raw, partitionBy: [] };
        const built = buildCall(call);
        if ('error' in built) return;
        const { values } = runKernelOnRows(rows, SCHEMA, engineOptions(built.both));
        expect(compareWindowResults(values, rows, SCHEMA, refCall(call)), show(refCall(call))).toEqual([]);
      }),
      { numRuns: 80 },
    );
  });
});

describe('computeWindowNaive', () => {
  it('returns exactly the same bits as computeWindow', () => {
    fc.assert(
      fc.property(tableArb, callArb, (rows, call) => {
        const built = buildCall(call);
        if ('error' in built) return;
        const fast = runKernelOnRows(rows, SCHEMA, engineOptions(built.both));
        const naive = runKernelOnRows(rows, SCHEMA, engineOptions(built.both), true);
        fast.outs.forEach((o, c) => {
          const q = naive.outs[c]!;
          expect(q.kind).toBe(o.kind);
          expect(q.type).toEqual(o.type);
          if (o.kind === 'take' && q.kind === 'take') {
            expect([...q.index]).toEqual([...o.index]);
            return;
          }
          if (o.kind !== 'values' || q.kind !== 'values') return;
          expect(q.values.constructor).toBe(o.values.constructor);
          const stride = o.values.length / Math.max(1, rows.length);
          for (let r = 0; r < rows.length; r++) {
            const va = o.valid ? o.valid[r] : 1;
            const vb = q.valid ? q.valid[r] : 1;
            expect(vb).toBe(va);
            if (va) for (let k = 0; k < stride; k++) expect(Object.is(q.values[r * stride + k], o.values[r * stride + k]), `column ${c} row ${r}`).toBe(true);
          }
        });
      }),
      { numRuns: 200 },
    );
  });
});

describe('float results depend only on the frame values', () => {
  const framed = (fn: 'sum' | 'stddev' | 'varPop', w: number) => W[fn]('m_f64').rows(w);
  for (const fn of ['sum', 'stddev', 'varPop'] as const) {
    it(`${fn}: bit-identical for equal frames at different positions`, () => {
      fc.assert(
        fc.property(
          fc.array(fc.double({ min: -1e12, max: 1e12, noNaN: true }), { minLength: 1, maxLength: 30 }),
          fc.array(fc.double({ min: -1e12, max: 1e12, noNaN: true }), { minLength: 0, maxLength: 40 }),
          fc.integer({ min: 1, max: 20 }),
          (frameVals, prefix, extra) => {
            // Partition 1: prefix values, then the frame's values; partition 2: filler rows, then
            // the same frame. The last row of each has the ROWS frame frameVals.
            const w = frameVals.length - 1;
            const filler = Array.from({ length: extra }, (_, i) => i * 3.7 - 11);
            const rows: RefRow[] = [];
            let t = 0;
            for (const v of [...prefix, ...frameVals]) rows.push({ g: 1, k_i32: t++, m_f64: v, m_i8: 0 });
            t = 0;
            for (const v of [...filler, ...frameVals]) rows.push({ g: 2, k_i32: t++, m_f64: v, m_i8: 0 });
            const opts: BothOptions = { partitionBy: ['g'], orderBy: ['k_i32'], columns: { s: framed(fn, w) } };
            const { values } = runKernelOnRows(rows, SCHEMA, engineOptions(opts));
            const a = values.s![prefix.length + frameVals.length - 1];
            const b = values.s![rows.length - 1];
            expect(Object.is(a, b)).toBe(true);
            expect(compareWindowResults(values, rows, SCHEMA, refOptions(opts))).toEqual([]);
          },
        ),
        { numRuns: 100 },
      );
    });
  }
});
