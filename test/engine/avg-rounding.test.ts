// avg of int64 is the float64 nearest the exact mean in every path (groupBy, agg() of the whole
// input, window frames, at any budget): the case found against DuckDB, where dividing the sum
// after rounding it to float64 gave 3002399751580330 instead of 3002399751580329.5.
import * as A from 'apache-arrow';
import { afterAll, describe, expect, it } from 'vitest';
import { avg, Engine } from '../../src/index.js';

const S = 27021597764222966n;
const v = [S - 8n, 1n, 1n, 1n, 1n, 1n, 1n, 1n, 1n];
const table = new A.Table({
  k: A.makeVector(Int32Array.from(v, () => 1)),
  v: A.makeVector(BigInt64Array.from(v)),
  neg: A.makeVector(BigInt64Array.from(v, (x) => -x)),
});
const WANT = 3002399751580329.5;

const engines = [new Engine({ threads: 0 }), new Engine({ threads: 2, partitions: 3 })];
afterAll(async () => {
  for (const e of engines) await e.close();
});

describe('int64 avg is correctly rounded', () => {
  it.each(engines.map((e, i) => [i, e] as const))('engine %i: groupBy, agg and window', async (_i, e) => {
    const g = await e.fromArrow(table).groupBy('k').agg({ a: avg('v'), b: avg('neg') }).collect();
    expect(g.getChild('a')!.get(0)).toBe(WANT);
    expect(g.getChild('b')!.get(0)).toBe(-WANT);
    const whole = await e.fromArrow(table).agg({ a: avg('v') }).collect();
    expect(whole.getChild('a')!.get(0)).toBe(WANT);
    const w = await e.fromArrow(table).window({ partitionBy: 'k', orderBy: 'v', columns: { a: avg('v').rows('unbounded', 'unbounded') } }).collect();
    expect(new Set(w.getChild('a')!.toArray())).toEqual(new Set([WANT]));
  });
});
