/**
 * SQL `IN` / `NOT IN` / `BETWEEN` / `NOT BETWEEN` in expr() and as Expr.isIn / Expr.between,
 * checked against a reference of SQL's three-valued definitions written here: x IN (v...) is
 * TRUE when some v equals x, else NULL when x or some v is NULL, else FALSE; BETWEEN includes
 * both bounds and is NULL when a comparison it needs is NULL.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { col, expr } from '../../src/expr/builders.js';
import { parseExpr } from '../../src/expr/parse.js';
import { PlanError } from '../../src/index.js';
import { rejection } from '../support/rejection.js';
import { run, T, table } from './helpers.js';

type V = number | null;

function refIn(x: V, list: V[]): boolean | null {
  if (x === null) return null;
  if (list.some((v) => v === x)) return true;
  return list.some((v) => v === null) ? null : false;
}
const not3 = (b: boolean | null): boolean | null => (b === null ? null : !b);
function and3(a: boolean | null, b: boolean | null): boolean | null {
  if (a === false || b === false) return false;
  return a === null || b === null ? null : true;
}
function refBetween(x: V, lo: V, hi: V): boolean | null {
  const ge = x === null || lo === null ? null : x >= lo;
  const le = x === null || hi === null ? null : x <= hi;
  return and3(ge, le);
}
const sqlValue = (v: V): string => (v === null ? 'NULL' : String(v));

describe('IN and BETWEEN', () => {
  const t = table({
    a: [T.i32, [1, 2, null, 4, 5]],
    lo: [T.i32, [0, 3, 1, null, 5]],
    s: [T.utf8, ['x', 'é', null, 'abc', 'y']],
  });

  it('parse into equalities and bounds, with NOT and inside larger expressions', () => {
    expect(parseExpr('a IN (1, 2)')).toEqual(parseExpr('a = 1 OR a = 2'));
    expect(parseExpr('a NOT IN (1)')).toEqual(parseExpr('NOT (a = 1)'));
    expect(parseExpr('a BETWEEN 1 AND 3 AND s IS NULL')).toEqual(parseExpr('(a >= 1 AND a <= 3) AND s IS NULL'));
    expect(parseExpr('a not between lo and lo + 2')).toEqual(parseExpr('NOT (a >= lo AND a <= lo + 2)'));
  });

  it('evaluate with SQL NULL semantics, numbers and strings, literals and columns', () => {
    expect(run(t, expr('a IN (1, 4)'))).toEqual([true, false, null, true, false]);
    expect(run(t, expr('a IN (1, NULL)'))).toEqual([true, null, null, null, null]);
    expect(run(t, expr('a NOT IN (1, NULL)'))).toEqual([false, null, null, null, null]);
    expect(run(t, expr("s IN ('é', 'y')"))).toEqual([false, true, null, false, true]);
    expect(run(t, expr('a BETWEEN lo AND 4'))).toEqual([true, false, null, null, false]);
    expect(run(t, expr('a NOT BETWEEN 2 AND 4'))).toEqual([true, false, null, false, true]);
    expect(run(t, col('a').isIn(2, 5))).toEqual([false, true, null, false, true]);
    expect(run(t, col('a').between(col('lo'), 5))).toEqual([true, false, null, null, true]);
  });

  it('bind tighter than comparisons (Postgres, DuckDB); a list of thousands of values binds', () => {
    expect(parseExpr('p = a IN (1, 2)')).toEqual(parseExpr('p = (a IN (1, 2))'));
    expect(parseExpr('a BETWEEN 1 AND 2 = TRUE')).toEqual(parseExpr('(a BETWEEN 1 AND 2) = TRUE'));
    const many = Array.from({ length: 5000 }, (_, i) => i + 10);
    expect(run(t, expr(`a IN (${many.join(', ')}, 4)`))).toEqual([false, false, null, true, false]);
    expect(run(t, col('a').isIn(...many, 1))).toEqual([true, false, null, false, false]);
  });

  it('malformed forms are syntax errors; isIn needs a value', async () => {
    for (const bad of ['a IN ()', 'a IN 1', 'a IN (1', 'a BETWEEN 1', 'a BETWEEN 1 OR 2', 'a NOT 1']) {
      expect(() => parseExpr(bad), bad).toThrow(/Syntax error|expected/);
    }
    const err = await rejection(Promise.resolve().then(() => col('a').isIn()));
    expect(err).toBeInstanceOf(PlanError);
    expect((err as PlanError).code).toBe('BAD_OPTION');
  });

  it('random values and lists agree with the three-valued reference', () => {
    const value = fc.option(fc.integer({ min: -3, max: 3 }), { nil: null });
    fc.assert(
      fc.property(fc.array(value, { minLength: 1, maxLength: 12 }), fc.array(value, { minLength: 1, maxLength: 4 }), value, value, (xs, list, lo, hi) => {
        const data = table({ x: [T.i32, xs] });
        const inList = list.map(sqlValue).join(', ');
        expect(run(data, expr(`x IN (${inList})`))).toEqual(xs.map((x) => refIn(x, list)));
        expect(run(data, expr(`x NOT IN (${inList})`))).toEqual(xs.map((x) => not3(refIn(x, list))));
        expect(run(data, expr(`x BETWEEN ${sqlValue(lo)} AND ${sqlValue(hi)}`))).toEqual(xs.map((x) => refBetween(x, lo, hi)));
        expect(run(data, expr(`x NOT BETWEEN ${sqlValue(lo)} AND ${sqlValue(hi)}`))).toEqual(xs.map((x) => not3(refBetween(x, lo, hi))));
      }),
      { numRuns: 150 },
    );
  });
});
