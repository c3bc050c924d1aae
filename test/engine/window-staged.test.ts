/**
 * Staged direct outputs at the size they start at by default (2^17 rows): window columns of
 * every direct width (bool 1 byte a row, int16 2, int32 4, int64 and float64 8), with NULLs,
 * through several partition tasks and interleave tasks, identical to the same job written in
 * place (directStaging.minRows past the input), at 1 and 2 threads, at a budget, and without
 * PARTITION BY at a budget that cuts the one partition into sort ranges (each range task
 * stages its own rows).
 */
import * as A from 'apache-arrow';
import { afterEach, describe, expect, it } from 'vitest';
import { directStaging } from '../../src/coordinator/partitioned.js';
import { count, Engine, lag, lead, max, sum } from '../../src/index.js';

const rows = 150_000;
const k = new Int32Array(rows);
const t = new Int32Array(rows);
const v = new Int32Array(rows);
const h = new Int16Array(rows);
const f = new Float64Array(rows);
const b: Array<boolean | null> = [];
let x = 7;
for (let i = 0; i < rows; i++) {
  x = (Math.imul(x, 1103515245) + 12345) >>> 0;
  // A third of the rows on key 0 (the hot key), the rest on 500 keys.
  k[i] = x % 3 === 0 ? 0 : 1 + (x % 500);
  t[i] = (x >>> 7) % 100_000;
  v[i] = (x >>> 3) % 1000;
  h[i] = ((x >>> 11) % 60000) - 30000;
  f[i] = x % 97 === 0 ? NaN : (x >>> 5) / 7;
  b.push(x % 13 === 0 ? null : (x & 256) !== 0);
}
const input = new A.Table({
  k: A.makeVector(k),
  t: A.makeVector(t),
  v: A.makeVector(v),
  h: A.makeVector(h),
  f: A.makeVector(f),
  b: A.vectorFromArray(b, new A.Bool()),
});
const columns = { s: sum('v').rows(5), c: count('b').rows(3), pb: lag('b'), nh: lead('h', 2), mf: max('f').rows(4), pv: lag('v', 1, -1) };

async function run(threads: number, memoryBudget: string | undefined, partitioned: boolean, staged: boolean): Promise<{ table: A.Table; interleaved: boolean; ranges: boolean }> {
  const minRows = directStaging.minRows;
  directStaging.minRows = staged ? minRows : Infinity;
  const engine = new Engine({ threads, partitions: 8, ...(memoryBudget ? { memoryBudget } : {}) });
  try {
    const { table, stats } = await engine.fromArrow(input).window({ ...(partitioned ? { partitionBy: 'k' } : {}), orderBy: 't', columns }).execute();
    // Sort ranges are cut by a sample of the keys and routed there (src/coordinator/window-ranges).
    return { table, interleaved: stats.cpuMs.interleave !== undefined, ranges: stats.cpuMs.route !== undefined };
  } finally {
    directStaging.minRows = minRows;
    await engine.close();
  }
}

const values = (table: A.Table) => Object.fromEntries(Object.keys(columns).map((c) => [c, table.getChild(c)!.toArray()]));
const nulls = (table: A.Table) => Object.fromEntries(Object.keys(columns).map((c) => [c, table.getChild(c)!.nullCount]));

describe('staged direct window outputs', () => {
  const minRows = directStaging.minRows;
  afterEach(() => void (directStaging.minRows = minRows));

  it.each([
    [2, undefined, true],
    [1, undefined, true],
    [2, '96MiB', true],
    [2, '128MiB', false],
  ])('threads %i, budget %s, partitioned %s: identical to the outputs written in place', async (threads, budget, partitioned) => {
    expect(rows).toBeGreaterThanOrEqual(directStaging.minRows);
    const a = await run(threads, budget, partitioned, false);
    const z = await run(threads, budget, partitioned, true);
    expect([a.interleaved, z.interleaved]).toEqual([false, true]);
    if (!partitioned) expect(z.ranges).toBe(true);
    const inPlace = a.table;
    const staged = z.table;
    expect(staged.numRows).toBe(rows);
    expect(nulls(staged)).toEqual(nulls(inPlace));
    expect(values(staged)).toEqual(values(inPlace));
    // and the validity of every row, not only the counts
    for (const c of Object.keys(columns)) {
      const a = staged.getChild(c)!;
      const e = inPlace.getChild(c)!;
      for (let i = 0; i < rows; i += 997) expect(a.isValid(i), `${c} row ${i}`).toBe(e.isValid(i));
    }
  }, 120_000);
});
