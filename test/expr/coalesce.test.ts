/**
 * coalesce(a, b, ...): per row the first argument that is not NULL, NULL when all are; checked
 * against that definition over random NULL patterns for every primitive type class.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { coalesce, col, expr, lit } from '../../src/expr/builders.js';
import { PlanError } from '../../src/index.js';
import type { TypeDesc } from '../../src/types/column.js';
import { run, T, table } from './helpers.js';

const refCoalesce = (rows: unknown[][]): unknown[] => rows.map((r) => r.find((v) => v !== null) ?? null);

describe('coalesce', () => {
  const t = table({
    a: [T.i32, [1, null, null, 4]],
    b: [T.i32, [10, 20, null, null]],
    s: [T.utf8, [null, 'x', null, 'é']],
    f: [T.f64, [null, 2.5, null, -0]],
  });

  it('first non-NULL per row, literals as the last resort, types widened', () => {
    expect(run(t, expr('coalesce(a, b)'))).toEqual([1, 20, null, 4]);
    expect(run(t, expr('coalesce(a, b, 0)'))).toEqual([1, 20, 0, 4]);
    expect(run(t, coalesce(col('s'), lit('none')))).toEqual(['none', 'x', 'none', 'é']);
    expect(run(t, expr('coalesce(a, f)'))).toEqual([1, 2.5, null, 4]);
    expect(run(t, expr('coalesce(NULL, NULL)'))).toEqual([null, null, null, null]);
    expect(run(t, expr('coalesce(a)'))).toEqual([1, null, null, 4]);
    expect(String(coalesce('a', 0))).toBe('coalesce(a, 0)');
  });

  it('mixed types that have no common type, and nested types, are PlanErrors', () => {
    expect(() => run(t, expr('coalesce(a, s)'))).toThrow(/coalesce\(\) arguments must share a type: s is utf8, expected int32/);
    expect(() => run(t, expr('coalesce(array(a), array(b))'))).toThrow(/primitive types only/);
    expect(() => coalesce()).toThrow(/at least one argument/);
  });

  const cases: Array<[string, TypeDesc, fc.Arbitrary<unknown>]> = [
    ['int8', T.i8, fc.integer({ min: -128, max: 127 })],
    ['int16', T.i16, fc.integer({ min: -32768, max: 32767 })],
    ['int32', T.i32, fc.integer()],
    ['int64 beyond 2^53', T.i64, fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n })],
    ['float64', T.f64, fc.double({ noNaN: true })],
    ['bool', T.bool, fc.boolean()],
    ['utf8', T.utf8, fc.string({ maxLength: 5 })],
    ['timestamp', T.tsms, fc.bigInt({ min: -(2n ** 60n), max: 2n ** 60n })],
  ];
  for (const [name, type, value] of cases) {
    it(`random NULL patterns: ${name}`, () => {
      fc.assert(
        fc.property(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 20 }), fc.infiniteStream(fc.option(value, { nil: null, freq: 2 })), (k, n, stream) => {
          const it = stream[Symbol.iterator]();
          const cols: Record<string, [TypeDesc, unknown[]]> = {};
          for (let j = 0; j < k; j++) cols[`c${j}`] = [type, Array.from({ length: n }, () => it.next().value as unknown)];
          const data = table(cols);
          const rows = Array.from({ length: n }, (_, i) => Object.values(cols).map(([, vs]) => vs[i]));
          const got = run(data, coalesce(...Object.keys(cols)));
          const want = refCoalesce(rows);
          expect(got.map((v) => (typeof v === 'number' && Object.is(v, -0) ? 0 : v))).toEqual(want.map((v) => (typeof v === 'number' && Object.is(v, -0) ? 0 : v)));
        }),
        { numRuns: 60 },
      );
    });
  }
});
