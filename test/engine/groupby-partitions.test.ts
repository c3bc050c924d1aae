/**
 * How many partitions a group-by on one integer key plans for the caller's tables: a key whose
 * sampled values span more than twice a default partition's rows is hashed in its tasks, and
 * gets the smaller partitions the generic table gets (GENERIC_TABLE_ROWS, 2^18 rows each); a
 * key dense enough for the value-indexed table keeps the default (with aggregates the dense
 * path does not take: with them it needs no partitions at all). Results are the same either way.
 */
import * as A from 'apache-arrow';
import { afterAll, describe, expect, it } from 'vitest';
import { avg, count, Engine, sum } from '../../src/index.js';

const N = 2_200_000; // 9 partitions of 2^18 rows
const engine = new Engine({ threads: 2 });
const one = new Engine({ threads: 0 });
afterAll(async () => {
  await engine.close();
  await one.close();
});

function table(key: (i: number) => number): A.Table {
  const k = new BigInt64Array(N);
  const words = new Int32Array(k.buffer);
  const v = new Int32Array(N);
  for (let i = 0; i < N; i++) {
    const x = key(i);
    words[2 * i] = x | 0;
    words[2 * i + 1] = Math.floor(x / 2 ** 32);
    v[i] = i % 7;
  }
  return new A.Table({ k: A.makeVector(k), v: A.makeVector(v) });
}

describe('group-by partitions for one integer key', () => {
  it.each([
    ['sparse keys (50k of them over a span of 2^45) get smaller partitions', (i: number) => ((i * 7919) % 50_000) * 1_000_003_000, 'more'],
    // avg is not one of the dense path's aggregates (src/coordinator/exec-groupby-dense): hashed
    ['dense keys (span 1,000) hashed keep the default', (i: number) => i % 1000, 'default'],
    ['dense keys (span 1,000) with count and integer sums go straight into tables by value', (i: number) => i % 1000, 'dense'],
  ] as const)('%s', async (_name, key, expected) => {
    const t = table(key);
    const plan = (e: Engine) => e.fromArrow(t).groupBy('k').agg(expected === 'default' ? { n: count(), s: avg('v') } : { n: count(), s: sum('v') });
    const { table: got, stats } = await plan(engine).execute();
    if (expected === 'more') expect(stats.partitions).toBeGreaterThan(8);
    else expect(stats.partitions).toBe(expected === 'default' ? 8 : 1);
    expect(stats.cpuMs.denseAgg !== undefined).toBe(expected === 'dense');
    const want = await plan(one).collect();
    expect(got.numRows).toBe(want.numRows);
    for (const f of want.schema.fields) expect(got.getChild(f.name)!.toArray()).toEqual(want.getChild(f.name)!.toArray());
  });
});
