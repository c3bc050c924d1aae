/**
 * A window's exchange plans its headroom from its tasks (src/coordinator/exec-window.ts
 * plannedHeadroom): with many hash partitions of a known input, routed input over half the
 * budget stays in memory when it fits next to the loans of the tasks in flight (it spilled:
 * window6's 680 MB at 1 GiB), with the same rows and every byte within the budget.
 */
import * as A from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { Engine, lag, sum } from '../../src/index.js';
import { valuesDigest } from '../support/tables.js';

const rows = 400_000;
const user = new BigInt64Array(rows);
const ts = new BigInt64Array(rows);
const v = new Float64Array(rows);
let x = 11;
for (let i = 0; i < rows; i++) {
  x = (Math.imul(x, 1103515245) + 12345) >>> 0;
  user[i] = BigInt(x % 4000);
  ts[i] = BigInt(i);
  v[i] = (x >>> 9) / 1000;
}
const input = new A.Table({ user: A.makeVector(user), ts: A.makeVector(ts), v: A.makeVector(v) });
const job = (e: Engine) => e.fromArrow(input).window({ partitionBy: 'user', orderBy: 'ts', columns: { s: sum('v').rows(5), p: lag('v') } });

describe('a window with many partitions', () => {
  it('keeps a routed input over half the budget in memory when its tasks leave room, same rows, within the budget', async () => {
    const unbounded = new Engine({ threads: 2 });
    const small = new Engine({ threads: 2, memoryBudget: '20MiB', partitions: 128 });
    try {
      const want = valuesDigest((await job(unbounded).execute()).table);
      const { table, stats } = await job(small).execute();
      expect(valuesDigest(table)).toBe(want);
      expect(stats.partitions).toBeGreaterThanOrEqual(128);
      expect(stats.spilledBytes).toBe(0);
      expect(stats.peakTrackedBytes).toBeLessThanOrEqual(small.budget.limit);
      // The routed input (three 8-byte columns and a row id a row) is over half the budget.
      expect(rows * 28).toBeGreaterThan(small.budget.limit / 2);
      expect(small.budget.used).toBe(0);
    } finally {
      await unbounded.close();
      await small.close();
    }
  }, 60_000);
});
