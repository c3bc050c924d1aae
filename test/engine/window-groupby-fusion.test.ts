/**
 * A groupBy after a window partitioned on some of its keys reuses the window's partitioning
 * (issue 12 item 6): explain() says so, and the fused plan gives exactly what the same window
 * and groupBy give when something in between keeps them apart (a limit), across settings.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { count, first, max, min, sum } from '../../src/index.js';
import { BATCH_SIZES, enginePool, SETTINGS } from '../support/engines.js';
import { rowArb, rowsOfTable, tableOf } from '../support/relational-data.js';

const engineFor = enginePool();

describe('window then groupBy on the same keys', () => {
  it('explain shows one partitioning, reused', async () => {
    const df = engineFor({ threads: 2, partitions: 7 }).fromArrow(tableOf([], 8));
    const fused = await df
      .window({ partitionBy: 's', orderBy: 'ts', columns: { run: sum('i8').rows(2) } })
      .groupBy('s', 'b')
      .agg({ n: count(), top: max('run') })
      .explain();
    expect(fused).toContain("partitioning: reuses the Window's hash(s) partitioning into 7 partitions");
    expect(fused).toContain('Window (fused into the GroupBy above');
    expect(fused.match(/partitioning: hash\(/g)?.length).toBe(1);
    const apart = await df.window({ partitionBy: 's', orderBy: 'ts', columns: { run: sum('i8').rows(2) } }).groupBy('b').agg({ n: count() }).explain();
    expect(apart).not.toContain('reuses');
    expect(apart).toContain('hash(b)');
  });

  it('gives what the unfused plan gives', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(rowArb, { maxLength: 60 }),
        fc.constantFrom<string[]>(['s'], ['i8', 'b'], ['d']),
        fc.constantFrom<string[]>([], ['b'], ['u32']),
        fc.constantFrom(...SETTINGS),
        fc.constantFrom(...BATCH_SIZES),
        async (rows, partitionBy, more, s, b) => {
          const keys = [...more.filter((k) => !partitionBy.includes(k)), ...partitionBy];
          const base = engineFor(s).fromArrow(tableOf(rows, b)).window({ partitionBy, orderBy: ['ts', 'i64'], columns: { run: sum('i64').rows(1), lo: min('f64').rows(2, 1) } });
          const aggs = { n: count(), total: sum('run'), low: min('lo'), f: first('f32'), m: max('s') };
          const fused = base.groupBy(...keys).agg(aggs);
          expect(await fused.explain()).toContain('reuses');
          const apart = base.limit(1_000_000).groupBy(...keys).agg(aggs);
          expect(rowsOfTable(await fused.collect())).toEqual(rowsOfTable(await apart.collect()));
        },
      ),
      { numRuns: 60 },
    );
  });
});
