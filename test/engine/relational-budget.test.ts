/**
 * The relational verbs within a memory budget of 1/10 of their input (~8 MiB of partitioned
 * rows against a ~0.8 MiB budget): every one spills, never tracks more than the budget, needs
 * no memory beyond its loans, and gives exactly the result of a run with room to spare (agg()
 * without keys then runs piece by piece and merges partial aggregates, float sums included).
 * (README "Limits": much smaller budgets hit fixed per-task costs.)
 */
import * as A from 'apache-arrow';
import { afterAll, describe, expect, it } from 'vitest';
import { avg, count, countDistinct, Engine, first, last, max, min, sum, type DataFrame } from '../../src/index.js';

const N = 300_000;
const BATCH = 4096;

function data(): { left: A.Table; right: A.Table; bytes: number } {
  const parts: A.RecordBatch[] = [];
  let bytes = 0;
  for (let at = 0; at < N; at += BATCH) {
    const ids = Array.from({ length: Math.min(BATCH, N - at) }, (_, i) => at + i);
    const b = new A.Table({
      k: A.makeVector(Int32Array.from(ids, (i) => (i * 7919) % (N / 10))),
      v: A.makeVector(Float64Array.from(ids, (i) => (i % 1000) / 7)),
      x: A.makeVector(BigInt64Array.from(ids, (i) => BigInt(i % 977) - 400n)),
      s: A.vectorFromArray(ids.map((i) => `s${i % 5000}`), new A.Utf8()),
    }).batches[0]!;
    bytes += b.data.children.reduce((t, c) => t + (c.values as Uint8Array).byteLength + ((c.valueOffsets as Int32Array | undefined)?.byteLength ?? 0), 0);
    parts.push(b);
  }
  const right = A.tableFromArrays({ k: Int32Array.from({ length: N / 10 }, (_, i) => (i * 3) % (N / 10)), w: Float64Array.from({ length: N / 10 }, (_, i) => i) });
  return { left: new A.Table(parts), right, bytes };
}

const { left, right, bytes } = data();
const budget = Math.floor(bytes / 10);
const small = new Engine({ threads: 2, memoryBudget: budget });
const roomy = new Engine({ threads: 2, memoryBudget: '512MiB' });
afterAll(async () => {
  await small.close();
  await roomy.close();
});

const plans: Array<[string, (e: Engine) => DataFrame]> = [
  ['sort', (e) => e.fromArrow(left).sort('s', { column: 'x', descending: true })],
  ['groupBy', (e) => e.fromArrow(left).groupBy('k').agg({ n: count(), total: sum('v'), hi: max('x'), first_s: first('s'), kinds: countDistinct('s') })],
  ['distinct', (e) => e.fromArrow(left).distinct('s')],
  ['join', (e) => e.fromArrow(left).join(e.fromArrow(right), { on: 'k', how: 'full' })],
  ['agg', (e) => e.fromArrow(left).agg({ n: count(), c: count('s'), total: sum('v'), xs: sum('x'), mean: avg('x'), fmean: avg('v'), lo: min('s'), hi: max('v'), f: first('s'), l: last('x') })],
];

describe('relational verbs at 1/10 of their data', () => {
  it.each(plans)('%s spills within the budget and matches a roomy run', async (_name, plan) => {
    const { table, stats } = await plan(small).execute();
    expect(stats.spilledBytes).toBeGreaterThan(0);
    expect(stats.peakTrackedBytes).toBeLessThanOrEqual(budget);
    expect(stats.overflowBytes).toBe(0);
    if (_name === 'agg') expect(stats.cpuMs.aggPartial).toBeGreaterThan(0); // piece by piece, merged
    const want = await plan(roomy).collect();
    expect(table.numRows).toBe(want.numRows);
    for (const f of want.schema.fields) expect(table.getChild(f.name)!.toArray()).toEqual(want.getChild(f.name)!.toArray());
  });
});

/**
 * A join whose left rows have many matches each (fan-out 10 on 40 string keys, NULL one of
 * them): an output range keyed by left row id holds ten rows a key, more than one assemble task
 * can hold at these budgets. Such a range is routed again by finer key ranges; every run gives
 * the roomy result (before, 6 MiB failed with MEMORY_EXHAUSTED where 4 MiB and 8 MiB passed).
 */
describe('a join with many matches a row, at small budgets', () => {
  const L = 8000;
  const keys = Array.from({ length: 40 }, (_, i) => (i === 0 ? null : `key${i}`));
  const l = new A.Table({
    i: A.makeVector(Int32Array.from({ length: L }, (_, i) => i)),
    s: A.vectorFromArray(Array.from({ length: L }, (_, i) => keys[(i * 7) % 40]!), new A.Utf8()),
  });
  const r = new A.Table({
    s: A.vectorFromArray(Array.from({ length: 400 }, (_, i) => keys[(i * 3) % 40]!), new A.Utf8()),
    f: A.makeVector(Float64Array.from({ length: 400 }, (_, i) => i / 4)),
  });
  const join = (e: Engine, how: 'full' | 'right', nullsEqual: boolean): DataFrame => e.fromArrow(l).join(e.fromArrow(r), { on: 's', how, nullsEqual });

  it.each([
    ['full', true, ['6MiB'], ['6MiB']],
    ['right', false, ['4MiB'], ['8MiB']],
  ] as const)('%s (nullsEqual %s) at small budgets equals a roomy run', async (how, nullsEqual, twoThreads, oneThread) => {
    const want = await join(roomy, how, nullsEqual).collect();
    for (const [threads, partitions, budgets] of [
      [2, 8, twoThreads],
      [1, 2, oneThread],
    ] as const) {
      for (const memoryBudget of budgets) {
        const e = new Engine({ threads, partitions, memoryBudget });
        try {
          const { table, stats } = await join(e, how, nullsEqual).execute();
          expect(stats.peakTrackedBytes).toBeLessThanOrEqual(e.budget.limit);
          expect(table.numRows).toBe(want.numRows);
          for (const f of want.schema.fields) expect(table.getChild(f.name)!.toArray(), `${memoryBudget} ${threads}/${partitions} ${f.name}`).toEqual(want.getChild(f.name)!.toArray());
          expect(e.budget.used).toBe(0);
        } finally {
          await e.close();
        }
      }
    }
  });
});
