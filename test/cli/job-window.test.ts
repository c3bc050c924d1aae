/** Job files know every window function: ranking, lag/lead with n/default, GROUPS, modifiers. */
import { afterAll, describe, expect, it } from 'vitest';
import { buildJob, JobError, parseJob } from '../../src/cli/job.js';
import { Engine, PlanError } from '../../src/index.js';

const engine = new Engine({ threads: 0 });
afterAll(() => engine.close());

const job = (columns: Record<string, unknown>) =>
  parseJob({
    sources: { t: { type: 'demo', dataset: 'trades', rows: 200, seed: 3 } },
    steps: [{ op: 'window', partitionBy: 'sym', orderBy: 'ts', columns }],
  });

describe('window steps in job files', () => {
  it('run every new function and show them in explain()', async () => {
    const j = job({
      rn: { fn: 'rowNumber' },
      rk: { fn: 'rank' },
      dr: { fn: 'denseRank' },
      pr: { fn: 'percentRank' },
      cd: { fn: 'cumeDist' },
      q: { fn: 'ntile', n: 4 },
      prev: { fn: 'lag', column: 'qty', n: 2, default: 0 },
      next: { fn: 'lead', column: 'qty', ignoreNulls: true },
      f: { fn: 'first', column: 'qty', rows: [3, 0] },
      l: { fn: 'last', column: 'qty', groups: [1, 0] },
      n2: { fn: 'nthValue', column: 'qty', n: '2', rows: ['unbounded', 0] },
      sd: { fn: 'stddev', column: 'price', rows: [29, 0], minPeriods: 5 },
      v: { fn: 'variance', column: 'qty', rows: [9] },
      sp: { fn: 'stddevPop', column: 'qty' },
      vp: { fn: 'varPop', column: 'price', range: ['unbounded', 'unbounded'] },
      cdx: { fn: 'countDistinct', column: 'qty', rows: [5, 5] },
    });
    const df = await buildJob(engine, j, '.');
    const out = await df.collect();
    expect(out.numRows).toBe(200);
    for (const name of ['rn', 'rk', 'dr', 'pr', 'cd', 'q', 'prev', 'next', 'f', 'l', 'n2', 'sd', 'v', 'sp', 'vp', 'cdx']) expect(out.getChild(name), name).not.toBeNull();
    const text = await df.explain();
    expect(text).toMatch(/rk = rank\(\) over the partition order: peer groups/);
    expect(text).toMatch(/prev = lag\(qty\) over the partition order: row offset 2 back .*with a default/);
    expect(text).toMatch(/sd = stddev\(price\) ROWS BETWEEN 29 PRECEDING AND CURRENT ROW: pairwise blocks .*NULL below 5 values/);
    expect(text).toMatch(/v = variance\(qty\) .*exact prefix sums of x and x\^2/);
    expect(text).toMatch(/l = last\(qty\) GROUPS BETWEEN 1 PRECEDING AND CURRENT ROW/);
  });

  it('reject malformed window columns with the JSON path', () => {
    expect(() => job({ a: { fn: 'lag', column: 'qty', n: 1.5 } })).toThrow(JobError);
    expect(() => job({ a: { fn: 'lag', column: 'qty', n: 1.5 } })).toThrow(/columns\.a\.n/);
    expect(() => job({ a: { fn: 'sum', column: 'qty', rows: [1], groups: [1] } })).toThrow(/one of "rows", "range" or "groups", got "rows" and "groups"/);
    expect(() => job({ a: { fn: 'first', column: 'qty', ignoreNulls: 'yes' } })).toThrow(/ignoreNulls/);
    expect(() => job({ a: { fn: 'sum', column: 'qty', minPeriods: -1 } })).toThrow(/minPeriods/);
    expect(() => job({ a: { fn: 'lag', column: 'qty', default: [1] } })).toThrow(/default/);
    expect(() => job({ a: { fn: 'median', column: 'qty' } })).toThrow(/fn/);
    expect(() => job({ a: { fn: 'stddev' } })).toThrow(/column/);
  });

  it('plan errors of the new functions come through with the step path', async () => {
    await expect(buildJob(engine, job({ a: { fn: 'rank', rows: [1, 0] } }), '.')).rejects.toThrow(PlanError);
    await expect(buildJob(engine, job({ a: { fn: 'rank', rows: [1, 0] } }), '.')).rejects.toThrow(/steps\[0\].*FRAME|takes no frame/);
    await expect(buildJob(engine, job({ a: { fn: 'lag', column: 'sym', default: 3 } }), '.')).rejects.toThrow(/Expected a string/);
  });
});

describe('preserveOrder in job files', () => {
  const step = (preserveOrder: unknown) =>
    parseJob({
      sources: { t: { type: 'demo', dataset: 'trades', rows: 200, seed: 3 } },
      steps: [{ op: 'window', partitionBy: 'sym', orderBy: 'ts', columns: { n: { fn: 'rowNumber' } }, preserveOrder }],
    });

  it('a window step with preserveOrder: false gives the same rows, in partition order', async () => {
    const unordered = await buildJob(engine, step(false), '.');
    expect(await unordered.explain()).toContain('order: partition order (preserveOrder: false)');
    const a = await unordered.collect();
    const b = await (await buildJob(engine, step(true), '.')).collect();
    expect(a.numRows).toBe(200);
    const key = (t: typeof a) => Array.from({ length: t.numRows }, (_, i) => `${String(t.getChild('ts')!.get(i))}|${String(t.getChild('sym')!.get(i))}|${String(t.getChild('n')!.get(i))}`).sort();
    expect(key(a)).toStrictEqual(key(b));
  });

  it('rejects a preserveOrder that is not true or false, with the step path', () => {
    expect(() => step('no')).toThrow(JobError);
    expect(() => step('no')).toThrow(/steps\[0\]\.preserveOrder/);
  });
});
