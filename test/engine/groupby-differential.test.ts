/**
 * groupBy(...).agg(...) and agg() through the whole engine against the naive reference
 * (test/support/relational-reference): random tables with every key type class, NULL keys,
 * NaN / -0 keys, duplicates, empty inputs; zero to three keys; every aggregate on every column
 * type it takes. Integer results, counts, first/last/min/max and group order must match
 * exactly, float sums within the API's pairwise bound; results identical across thread counts,
 * partition counts, batch sizes and budgets.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { avg, count, countDistinct, first, last, max, min, sum, type WindowFn } from '../../src/index.js';
import { BATCH_SIZES, enginePool, SETTINGS } from '../support/engines.js';
import { KEY_COLUMNS, rowArb, rowsOfTable, SCHEMA, tableOf } from '../support/relational-data.js';
import { checkGroupBy, type RefAgg } from '../support/relational-reference.js';

const engineFor = enginePool();
const NUMERIC = ['i8', 'u32', 'i64', 'f64', 'f32'];

const aggArb: fc.Arbitrary<Omit<RefAgg, 'name'>> = fc.oneof(
  fc.record({ fn: fc.constantFrom<RefAgg['fn']>('sum', 'avg'), column: fc.constantFrom(...NUMERIC) }),
  fc.record({ fn: fc.constantFrom<RefAgg['fn']>('min', 'max', 'first', 'last', 'countDistinct', 'count'), column: fc.constantFrom(...KEY_COLUMNS) }),
  fc.constant({ fn: 'count' as const, column: null }),
);

function build(a: Omit<RefAgg, 'name'>): WindowFn {
  const c = a.column!;
  switch (a.fn) {
    case 'sum':
      return sum(c);
    case 'avg':
      return avg(c);
    case 'min':
      return min(c);
    case 'max':
      return max(c);
    case 'first':
      return first(c);
    case 'last':
      return last(c);
    case 'countDistinct':
      return countDistinct(c);
    case 'count':
      return a.column === null ? count() : count(c);
  }
}

describe('groupBy through the engine vs the naive reference', () => {
  it('matches the reference and is identical across settings', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(rowArb, { maxLength: 80 }),
        fc.uniqueArray(fc.constantFrom(...KEY_COLUMNS), { maxLength: 3 }),
        fc.array(aggArb, { minLength: 1, maxLength: 5 }),
        fc.constantFrom(...SETTINGS),
        fc.constantFrom(...SETTINGS),
        fc.constantFrom(...BATCH_SIZES),
        fc.constantFrom(...BATCH_SIZES),
        async (rows, keys, specs, s1, s2, b1, b2) => {
          const aggs: RefAgg[] = specs.map((a, k) => ({ ...a, name: `a${k}` }));
          const run = async (s: (typeof SETTINGS)[number], b: number) =>
            rowsOfTable(await engineFor(s).fromArrow(tableOf(rows, b)).groupBy(...keys).agg(Object.fromEntries(aggs.map((a) => [a.name, build(a)]))).collect());
          const got = await run(s1, b1);
          expect(checkGroupBy(got, rows, keys, aggs, SCHEMA)).toEqual([]);
          expect(await run(s2, b2)).toEqual(got);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('agg() of no rows is one row (counts 0, the rest NULL); groupBy of no rows is none', async () => {
    const e = engineFor({ threads: 2, partitions: 7 });
    const empty = tableOf([], 10);
    const one = rowsOfTable(await e.fromArrow(empty).agg({ n: count(), c: count('i8'), s: sum('i64'), f: first('s'), d: countDistinct('s'), m: max('f64') }).collect());
    expect(one).toEqual([{ n: 0n, c: 0n, s: null, f: null, d: 0n, m: null }]);
    expect((await e.fromArrow(empty).groupBy('s').agg({ n: count() }).collect()).numRows).toBe(0);
  });

  it('wraps integer sums like a row-by-row fold and averages the exact sum', async () => {
    const MAX = (1n << 63n) - 1n;
    const rows = [MAX, 1n, MAX, MAX].map((i64) => ({ i8: 1, u32: null, i64, f64: null, f32: null, s: null, d: null, ts: null, b: null }));
    const out = rowsOfTable(await engineFor({ threads: 0, partitions: 1 }).fromArrow(tableOf(rows, 2)).groupBy('i8').agg({ s: sum('i64'), a: avg('i64') }).collect());
    expect(out).toEqual([{ i8: 1, s: BigInt.asIntN(64, 3n * MAX + 1n), a: Number(3n * MAX + 1n) / 4 }]);
  });

  // Aggregates that merge exactly are computed per slab first (partial pass) and merged per
  // partition: with 16-row slabs and up to 136 rows, groups span several slabs. The partial
  // pass is kept when the first slab shrinks 10x: the input starts with 16 copies of a row.
  it('partial per slab then merged: matches the reference and is identical across settings', async () => {
    const INTS = ['i8', 'u32', 'i64'];
    const mergeable: fc.Arbitrary<Omit<RefAgg, 'name'>> = fc.oneof(
      fc.record({ fn: fc.constant<RefAgg['fn']>('sum'), column: fc.constantFrom(...INTS) }),
      fc.record({ fn: fc.constantFrom<RefAgg['fn']>('min', 'max', 'first', 'last', 'count'), column: fc.constantFrom(...KEY_COLUMNS) }),
      fc.constant({ fn: 'count' as const, column: null }),
    );
    await fc.assert(
      fc.asyncProperty(
        rowArb,
        fc.array(rowArb, { maxLength: 120 }),
        fc.uniqueArray(fc.constantFrom(...KEY_COLUMNS), { minLength: 1, maxLength: 3 }),
        fc.array(mergeable, { minLength: 1, maxLength: 5 }),
        fc.constantFrom(...SETTINGS),
        fc.constantFrom(...SETTINGS),
        fc.constantFrom(...BATCH_SIZES),
        fc.constantFrom(...BATCH_SIZES),
        async (head, tail, keys, specs, s1, s2, b1, b2) => {
          const rows = [...Array.from({ length: 16 }, () => head), ...tail];
          const aggs: RefAgg[] = specs.map((a, k) => ({ ...a, name: `a${k}` }));
          const df = (s: (typeof SETTINGS)[number], b: number) => engineFor(s).fromArrow(tableOf(rows, b)).groupBy(...keys).agg(Object.fromEntries(aggs.map((a) => [a.name, build(a)])));
          expect(await df(s1, b1).explain()).toContain('partial aggregation per slab');
          const got = rowsOfTable(await df(s1, b1).collect());
          expect(checkGroupBy(got, rows, keys, aggs, SCHEMA)).toEqual([]);
          expect(rowsOfTable(await df(s2, b2).collect())).toEqual(got);
        },
      ),
      { numRuns: 80 },
    );
  });

  it('float sums, avg and countDistinct are not split (every row is routed)', async () => {
    const e = engineFor({ threads: 0, partitions: 1 });
    const t = tableOf([], 10);
    for (const fn of [sum('f64'), avg('i64'), countDistinct('s')]) expect(await e.fromArrow(t).groupBy('s').agg({ x: fn }).explain()).not.toContain('partial aggregation');
    expect(await e.fromArrow(t).groupBy('s').agg({ x: sum('i64'), n: count() }).explain()).toContain('partial aggregation per slab');
  });
});
