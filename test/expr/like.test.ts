/**
 * `s [NOT] LIKE pattern` and Expr.like, against a reference written from the SQL definition:
 * the pattern as a regular expression over code points (`%` = `.*`, `_` = `.`, the rest
 * literal), anchored at both ends; NULL when either side is NULL.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { col, expr } from '../../src/expr/builders.js';
import { parseExpr } from '../../src/expr/parse.js';
import { renderSql } from '../../src/expr/sql-text.js';
import { run, T, table } from './helpers.js';

function refLike(s: string | null, p: string | null): boolean | null {
  if (s === null || p === null) return null;
  const body = [...p].map((c) => (c === '%' ? '.*' : c === '_' ? '.' : c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'))).join('');
  return new RegExp(`^${body}$`, 'su').test(s);
}
const sql = (s: string): string => `'${s.replace(/'/g, "''")}'`;

describe('LIKE', () => {
  const t = table({
    s: [T.utf8, ['apple', 'Apple', null, 'bañana', '', 'a_b%c', '😀x']],
    p: [T.utf8, ['a%', '_pple', 'x', null, '%', 'a\\_b%', '_x']],
  });

  it('parses, renders and reads back; NOT LIKE negates', () => {
    const node = parseExpr("s LIKE 'a%'");
    expect(node).toEqual({ kind: 'call', fn: 'like', args: [{ kind: 'col', name: 's' }, { kind: 'lit', type: 'string', value: 'a%' }] });
    expect(renderSql(node)).toBe("(s LIKE 'a%')");
    expect(parseExpr(renderSql(node))).toEqual(node);
    expect(parseExpr("s NOT LIKE 'a%'")).toEqual({ kind: 'unary', op: 'not', arg: node });
    expect(String(col('s').like('a%'))).toBe("(s LIKE 'a%')");
    expect(parseExpr("f = s LIKE 'a%'")).toEqual(parseExpr("f = (s LIKE 'a%')"));
  });

  it('matches characters, not bytes; NULL in, NULL out; a column as the pattern', () => {
    expect(run(t, expr("s LIKE 'a%'"))).toEqual([true, false, null, false, false, true, false]);
    expect(run(t, expr("s LIKE '_pple'"))).toEqual([true, true, null, false, false, false, false]);
    expect(run(t, expr("s LIKE 'ba_ana'"))).toEqual([false, false, null, true, false, false, false]);
    expect(run(t, expr("s LIKE '_x'"))).toEqual([false, false, null, false, false, false, true]);
    expect(run(t, expr("s LIKE '%'"))).toEqual([true, true, null, true, true, true, true]);
    expect(run(t, expr("s NOT LIKE '%a%'"))).toEqual([false, true, null, false, true, false, true]);
    expect(run(t, expr('s LIKE p'))).toEqual([true, true, null, null, true, false, true]); // no escape character: 'a\\_b%' needs a backslash
    expect(run(t, expr('s LIKE NULL'))).toEqual([null, null, null, null, null, null, null]);
    expect(() => run(t, expr("1 LIKE 'a'"))).toThrow(/LIKE needs strings/);
  });

  it('random strings and patterns agree with the reference', () => {
    const ch = fc.constantFrom('a', 'b', 'é', '😀', '%', '_', '\n');
    const str = fc.array(ch, { maxLength: 8 }).map((a) => a.join(''));
    const pat = fc.array(fc.constantFrom('a', 'b', 'é', '😀', '%', '_', '%', '_'), { maxLength: 6 }).map((a) => a.join(''));
    fc.assert(
      fc.property(fc.array(fc.option(str, { nil: null }), { minLength: 1, maxLength: 10 }), pat, (xs, p) => {
        const data = table({ x: [T.utf8, xs] });
        expect(run(data, expr(`x LIKE ${sql(p)}`))).toEqual(xs.map((x) => refLike(x, p)));
        expect(run(data, col('x').like(p).not())).toEqual(xs.map((x) => { const r = refLike(x, p); return r === null ? null : !r; }));
      }),
      { numRuns: 400 },
    );
  });
});
