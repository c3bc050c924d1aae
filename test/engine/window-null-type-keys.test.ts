/**
 * A column of the all-NULL type as a window key (as groupBy, sort and join take it, and DuckDB):
 * as partitionBy every row is in one partition, as orderBy every row is a peer of every other
 * (rows then in input order), at any thread count.
 */
import * as A from 'apache-arrow';
import { afterAll, describe, expect, it } from 'vitest';
import { Engine, lag, rank, rowNumber, sum } from '../../src/index.js';

const engines = [new Engine({ threads: 0 }), new Engine({ threads: 2, partitions: 3 })];
afterAll(() => Promise.all(engines.map((e) => e.close())));

const table = new A.Table({
  n: new A.Vector([A.makeData({ type: new A.Null(), length: 4 })]),
  a: A.vectorFromArray([4, 2, 3, 1], new A.Int32()),
});
const columns = { s: sum('a').rows(1, 0), rn: rowNumber(), rk: rank(), lg: lag('a') };

async function run(engine: Engine, opts: { partitionBy?: string; orderBy: string | string[] }): Promise<unknown[]> {
  const out = await engine.fromArrow(table).window({ ...opts, columns }).execute();
  return out.table.toArray().map((r) => {
    const o = r.toJSON() as Record<string, unknown>;
    return [o.a, Number(o.s), Number(o.rn), Number(o.rk), o.lg];
  });
}

describe.each(engines.map((e, i) => [i === 0 ? 'inline' : '2 threads', e] as const))('window keys of the null type (%s)', (_label, engine) => {
  it('partitionBy a null column: one partition', async () => {
    // sorted by a: 1, 2, 3, 4
    expect(await run(engine, { partitionBy: 'n', orderBy: 'a' })).toEqual([
      [4, 7, 4, 4, 3],
      [2, 3, 2, 2, 1],
      [3, 5, 3, 3, 2],
      [1, 1, 1, 1, null],
    ]);
  });

  it('orderBy a null column: all rows peers, in input order', async () => {
    expect(await run(engine, { partitionBy: 'n', orderBy: 'n' })).toEqual([
      [4, 4, 1, 1, null],
      [2, 6, 2, 1, 4],
      [3, 5, 3, 1, 2],
      [1, 4, 4, 1, 3],
    ]);
  });
});
