/**
 * A sort of tables in memory plans its ranges before it ingests them, so its exchange leaves
 * free only what its range tasks will borrow, not the run's headroom (half the budget): data
 * of a little more than half the budget stays in memory, within the budget, and sorts as a
 * roomy run does. At a budget below the data it still spills and still agrees.
 */
import * as A from 'apache-arrow';
import { afterAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src/index.js';

const N = 200_000;
const BATCH = 8192;

function data(): { table: A.Table; bytes: number } {
  const parts: A.RecordBatch[] = [];
  let bytes = 0;
  for (let at = 0; at < N; at += BATCH) {
    const ids = Array.from({ length: Math.min(BATCH, N - at) }, (_, i) => at + i);
    const b = new A.Table({
      k: A.makeVector(Int32Array.from(ids, (i) => (i * 7919) % 5003)),
      t: A.makeVector(BigInt64Array.from(ids, (i) => BigInt((i * 104_729) % 1_000_003))),
      v: A.makeVector(Float64Array.from(ids, (i) => i / 7)),
    }).batches[0]!;
    bytes += b.data.children.reduce((t, c) => t + (c.values as Uint8Array).byteLength, 0);
    parts.push(b);
  }
  return { table: new A.Table(parts), bytes };
}

const { table, bytes } = data();
const roomy = new Engine({ threads: 2, memoryBudget: '512MiB' });
const engines: Engine[] = [roomy];
afterAll(async () => {
  for (const e of engines) await e.close();
});

/**
 * Ranges whose loans come close to a task's share (one thread, skewed row sizes: the plan sees
 * the average row): the exchange still leaves room for one task's loans as pooled buffers
 * reserve them (a little above the request), or the sort would fail with MEMORY_EXHAUSTED once
 * its input is in and nothing can spill any more.
 */
function skewed(): A.Table {
  const n = 140_000;
  const k = Int32Array.from({ length: n }, (_, i) => i);
  const s = Array.from({ length: n }, (_, i) => (i < 20_000 ? 'x'.repeat(1240) : 'y'.repeat(103)));
  return new A.Table({ k: A.makeVector(k), s: A.vectorFromArray(s, new A.Utf8()) });
}

describe('sort of a table in memory', () => {
  it.each([1, 2])('with %i thread(s) and rows of skewed sizes fits its loans at a 64 MiB budget', async (threads) => {
    const engine = new Engine({ threads, memoryBudget: '64MiB' });
    engines.push(engine);
    const t = skewed();
    const got = await engine.fromArrow(t).sort('k').collect();
    expect(got.numRows).toBe(t.numRows);
    const k = got.getChild('k')!.toArray() as Int32Array;
    for (let i = 0; i < k.length; i++) if (k[i] !== i) throw new Error(`row ${i}: k ${k[i]}`);
    const s = got.getChild('s')!;
    expect(s.get(0)).toBe('x'.repeat(1240));
    expect(s.get(t.numRows - 1)).toBe('y'.repeat(103));
  });

  it.each([
    ['keeps data of 55% of the budget in memory', bytes / 0.55, false],
    ['spills data of twice the budget', bytes / 2, true],
  ])('%s, within the budget, as a roomy run sorts', async (_name, budgetBytes, spills) => {
    const budget = Math.floor(budgetBytes);
    const engine = new Engine({ threads: 2, memoryBudget: budget });
    engines.push(engine);
    const plan = (e: Engine) => e.fromArrow(table).sort('k', { column: 't', descending: true });
    const { table: got, stats } = await plan(engine).execute();
    if (spills) expect(stats.spilledBytes).toBeGreaterThan(0);
    else expect(stats.spilledBytes).toBe(0);
    expect(stats.peakTrackedBytes).toBeLessThanOrEqual(budget);
    expect(stats.overflowBytes).toBe(0);
    const want = await plan(roomy).collect();
    expect(got.numRows).toBe(N);
    for (const f of want.schema.fields) expect(got.getChild(f.name)!.toArray()).toEqual(want.getChild(f.name)!.toArray());
  });
});
