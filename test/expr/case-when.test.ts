/**
 * CASE WHEN (searched and simple forms) and caseWhen(), against the SQL definition: the value
 * of the first WHEN whose condition is TRUE (NULL and FALSE are not), else the ELSE value, else NULL.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { caseWhen, col, expr, lit } from '../../src/expr/builders.js';
import { parseExpr } from '../../src/expr/parse.js';
import { renderSql } from '../../src/expr/sql-text.js';
import { PlanError } from '../../src/index.js';
import { run, T, table } from './helpers.js';

describe('CASE', () => {
  const t = table({
    a: [T.i32, [1, 2, null, 4, 5]],
    s: [T.utf8, ['x', null, 'z', 'w', 'v']],
    end: [T.i64, [10n, 20n, 30n, null, 50n]],
  });

  it('parses both forms, renders and reads back; WHEN/THEN/ELSE/END are not reserved', () => {
    const searched = parseExpr("CASE WHEN a < 2 THEN 'small' WHEN a < 5 THEN 'mid' ELSE 'big' END");
    expect(renderSql(searched)).toBe("CASE WHEN (a < 2) THEN 'small' WHEN (a < 5) THEN 'mid' ELSE 'big' END");
    expect(parseExpr(renderSql(searched))).toEqual(searched);
    expect(parseExpr('CASE a WHEN 1 THEN 10 END')).toEqual(parseExpr('CASE WHEN a = 1 THEN 10 END'));
    expect(parseExpr('CASE WHEN end > 1 THEN end ELSE end END')).toEqual({
      kind: 'call',
      fn: 'case',
      args: [parseExpr('end > 1'), { kind: 'col', name: 'end' }, { kind: 'col', name: 'end' }],
    });
    for (const bad of ['CASE END', 'CASE WHEN a THEN 1', 'CASE WHEN a 1 END', 'CASE a THEN 1 END']) expect(() => parseExpr(bad), bad).toThrow(/Syntax error/);
  });

  it('first TRUE branch; NULL conditions fall through; no ELSE gives NULL; types widen', () => {
    expect(run(t, expr("CASE WHEN a < 2 THEN 'small' WHEN a < 5 THEN 'mid' ELSE 'big' END"))).toEqual(['small', 'mid', 'big', 'mid', 'big']);
    expect(run(t, expr('CASE WHEN a > 3 THEN end END'))).toEqual([null, null, null, null, 50n]);
    expect(run(t, expr('CASE a WHEN 2 THEN 0.5 WHEN 4 THEN a END'))).toEqual([null, 0.5, null, 4, null]);
    expect(run(t, expr('CASE WHEN s IS NULL THEN FALSE ELSE TRUE END'))).toEqual([true, false, true, true, true]);
    expect(run(t, caseWhen([['a >= 4', col('s')]], lit('-')))).toEqual(['-', '-', '-', 'w', 'v']);
    expect(run(t, expr('CASE WHEN TRUE THEN a ELSE 0 END'))).toEqual([1, 2, null, 4, 5]);
    expect(() => run(t, expr("CASE WHEN a THEN 1 END"))).toThrow(/boolean condition/);
    expect(() => run(t, expr("CASE WHEN a > 1 THEN a ELSE s END"))).toThrow(/CASE results must share a type: s is utf8, expected int32/);
    expect(() => run(t, expr("CASE WHEN a > 1 THEN 1 ELSE 'x' END"))).toThrow(PlanError);
    expect(() => caseWhen([])).toThrow(/at least one/);
  });

  it('random conditions and values agree with the definition', () => {
    const cond = fc.option(fc.boolean(), { nil: null });
    const val = fc.option(fc.integer({ min: -1000, max: 1000 }), { nil: null });
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 3 }), fc.boolean(), fc.integer({ min: 1, max: 12 }), fc.infiniteStream(fc.tuple(cond, val)), (k, withElse, n, stream) => {
        const it = stream[Symbol.iterator]();
        const cols: Record<string, [typeof T.i32 | typeof T.bool, unknown[]]> = {};
        const rows: Array<Array<[boolean | null, number | null]>> = Array.from({ length: n }, () => []);
        for (let j = 0; j < k; j++) {
          const cs: Array<boolean | null> = [];
          const vs: Array<number | null> = [];
          for (let i = 0; i < n; i++) {
            const [c, v] = it.next().value as [boolean | null, number | null];
            cs.push(c);
            vs.push(v);
            rows[i]!.push([c, v]);
          }
          cols[`c${j}`] = [T.bool, cs];
          cols[`v${j}`] = [T.i32, vs];
        }
        const elseValues = Array.from({ length: n }, (_, i) => (i % 3 === 0 ? null : -i));
        cols.e = [T.i32, elseValues];
        const sqlText = `CASE ${Array.from({ length: k }, (_, j) => `WHEN c${j} THEN v${j}`).join(' ')}${withElse ? ' ELSE e' : ''} END`;
        const want = rows.map((r, i) => {
          const hit = r.find(([c]) => c === true);
          return hit ? hit[1] : withElse ? elseValues[i] : null;
        });
        expect(run(table(cols), expr(sqlText))).toEqual(want);
      }),
      { numRuns: 200 },
    );
  });
});
