import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import * as arrow from 'apache-arrow';
import type { Data } from 'apache-arrow';
import { array, cardinality, col, lit, sequence, slice, split } from '../../src/expr/builders.js';
import { bindExpr } from '../../src/expr/bind.js';
import { evaluate } from '../../src/expr/evaluate.js';
import { ExecutionError } from '../../src/errors.js';
import type { TypeDesc } from '../../src/types/column.js';
import { T, table, run, values, runData } from './helpers.js';

const listI32: TypeDesc = { kind: 'list', child: { name: 'item', type: T.i32, nullable: true } };
const listStr: TypeDesc = { kind: 'list', child: { name: 'item', type: T.utf8, nullable: true } };

/** Spark slice reference. */
function sliceRef<V>(xs: V[] | null, start: number | null, len: number | null): V[] | null {
  if (xs === null || start === null || len === null) return null;
  if (len < 0) return null;
  const idx = start > 0 ? start - 1 : start < 0 ? xs.length + start : 0;
  if (idx < 0 || idx >= xs.length) return [];
  return xs.slice(idx, idx + len);
}

describe('split', () => {
  const t = table({ s: [T.utf8, ['a,b,,c', '', null, 'no-sep', 'é,😀', ',']], sep: [T.utf8, [',', ',', ',', '', 'é', null]] });
  it('splits on a literal separator, keeps empty pieces, NULL stays NULL', () => {
    expect(run(t, split('s', ','))).toEqual([['a', 'b', '', 'c'], [''], null, ['no-sep'], ['é', '😀'], ['', '']]);
  });
  it('splits by a separator column, empty separator gives characters', () => {
    expect(run(t, split('s', col('sep')))).toEqual([['a', 'b', '', 'c'], [''], null, ['n', 'o', '-', 's', 'e', 'p'], ['', ',😀'], null]);
  });
  it('multi-byte separators and sliced input match String.split', () => {
    fc.assert(
      fc.property(fc.array(fc.option(fc.string({ unit: fc.constantFrom('a', 'b', 'é', '|') , maxLength: 8 }), { nil: null }), { maxLength: 20 }), fc.constantFrom('|', 'é', 'ab', 'é|'), fc.nat(5), (ss, sep, pad) => {
        const full = arrow.vectorFromArray([...Array(pad).fill('x'), ...ss], new arrow.Utf8()).data[0].slice(pad, ss.length) as Data;
        const b = bindExpr(split(col('s'), sep).node, [{ name: 's', type: T.utf8, nullable: true }]);
        expect(values(evaluate(b, [full], ss.length))).toEqual(ss.map((s) => (s === null ? null : s.split(sep))));
      }),
      { numRuns: 100 },
    );
  });
  it('is named by its SQL text', () => {
    expect(bindExpr(split('tags', ',').node, [{ name: 'tags', type: T.utf8, nullable: true }]).name).toBe("split(tags, ',')");
  });
});

describe('cardinality, slice, array, sequence', () => {
  const lists = [[1, 2, 3], [], null, [null, 5], [7]];
  const t = table({ l: [listI32, lists], st: [T.i64, [1n, 1n, 1n, -1n, 0n]], n: [T.i32, [2, 3, 1, 5, null]], a: [T.i32, [1, null, 3, 4, 5]], b: [T.i32, [3, 2, 3, -2, 5]] });
  it('cardinality: counts, NULL list is NULL', () => {
    expect(run(t, cardinality('l'))).toEqual([3, 0, null, 2, 1]);
    expect(runData(t, cardinality('l')).type.toString()).toBe('Int32');
  });
  it('slice matches the Spark reference', () => {
    expect(run(t, slice('l', 2, 5))).toEqual([[2, 3], [], null, [5], []]);
    expect(run(t, slice('l', -2, 1))).toEqual([[2], [], null, [null], []]);
    expect(run(t, slice('l', col('st'), col('n')))).toEqual([[1, 2], [], null, [5], null]);
    fc.assert(
      fc.property(
        fc.array(fc.option(fc.array(fc.option(fc.integer({ min: -99, max: 99 }), { nil: null }), { maxLength: 6 }), { nil: null }), { maxLength: 12 }),
        fc.integer({ min: -8, max: 8 }),
        fc.integer({ min: -1, max: 8 }),
        fc.nat(4),
        (ls, start, len, pad) => {
          const data = arrow.vectorFromArray([...Array(pad).fill([9]), ...ls], arrow.makeVector(runData(t, 'l')).type).data[0].slice(pad, ls.length) as Data;
          const b = bindExpr(slice('l', start, len).node, [{ name: 'l', type: listI32, nullable: true }]);
          expect(values(evaluate(b, [data], ls.length))).toEqual(ls.map((x) => sliceRef(x, start, len)));
        },
      ),
      { numRuns: 150 },
    );
  });
  it('slice keeps nested element types (list<utf8>)', () => {
    const s = table({ l: [listStr, [['a', null, 'ccc'], null, ['é']]] });
    expect(run(s, slice('l', 2, 9))).toEqual([[null, 'ccc'], null, []]);
  });
  it('array: common type, NULL elements kept, strings', () => {
    expect(run(t, array('a', 'b', lit(7)))).toEqual([[1, 3, 7], [null, 2, 7], [3, 3, 7], [4, -2, 7], [5, 5, 7]]);
    expect(run(t, array(col('a'), lit(1.5)))).toEqual([[1, 1.5], [null, 1.5], [3, 1.5], [4, 1.5], [5, 1.5]]);
    const s = table({ x: [T.utf8, ['a', null]], y: [T.utf8, ['é', 'b']] });
    expect(run(s, array('x', 'y'))).toEqual([['a', 'é'], [null, 'b']]);
  });
  it('sequence: inclusive, both directions, NULL bounds', () => {
    expect(run(t, sequence('a', 'b'))).toEqual([[1n, 2n, 3n], null, [3n], [4n, 3n, 2n, 1n, 0n, -1n, -2n], [5n]]);
    const big = table({ a: [T.i64, [2n ** 63n - 2n, -(2n ** 63n)]] });
    expect(run(big, sequence('a', col('a').add(1)))).toEqual([[2n ** 63n - 2n, 2n ** 63n - 1n], [-(2n ** 63n), -(2n ** 63n) + 1n]]);
    const huge = table({ a: [T.i64, [0n]] });
    expect(() => run(huge, sequence('a', lit(2n ** 40n)))).toThrow(ExecutionError);
  });
});
