/**
 * Job-file steps of the relational verbs (sort, groupBy, join, distinct, rename, drop, union):
 * the same checks and "did you mean" as every step, other sources named by `right` / `others`
 * (with their own steps), and a job gives what the same API calls give.
 */
import { describe, expect, it } from 'vitest';
import { buildJob, JobError, parseJob } from '../../src/cli/job.js';
import { count, countDistinct, Engine, first, max, sum } from '../../src/index.js';

const SOURCES = { trades: { type: 'demo', dataset: 'trades', rows: 60 }, quotes: { type: 'demo', dataset: 'quotes', rows: 60 } };
const job = (steps: unknown[]) => ({ sources: SOURCES, steps });

function problemOf(doc: unknown): string {
  try {
    parseJob(doc);
  } catch (err) {
    expect(err).toBeInstanceOf(JobError);
    return (err as Error).message;
  }
  throw new Error('expected the job to be rejected');
}

describe('relational job steps are checked like every step', () => {
  it.each([
    [job([{ op: 'sort', by: [{ column: 'ts', desc: true }] }]), '$.steps[0].by[0]: unknown key "desc"; did you mean "descending"?'],
    [job([{ op: 'sort' }]), '$.steps[0].by: expected a sort key or a non-empty list of them'],
    [job([{ op: 'groupBy', by: 'sym', aggs: { n: { fn: 'cnt' } } }]), '$.steps[0].aggs.n.fn: expected one of "sum", "count", "avg", "min", "max", "first", "last", "countDistinct", got "cnt" (string); did you mean "count"?'],
    [job([{ op: 'groupBy', by: 'sym', aggs: { s: { fn: 'sum' } } }]), '$.steps[0].aggs.s.column: expected a column name (only count may omit it)'],
    [job([{ op: 'groupBy', keys: 'sym', aggs: {} }]), '$.steps[0]: unknown key "keys"'],
    [job([{ op: 'join', right: 'quotes', on: 'sym', how: 'outer' }]), '$.steps[0].how: expected one of "inner", "left", "right", "full", "semi", "anti", got "outer" (string)'],
    [job([{ op: 'join', right: 'quote', on: 'sym' }]), '$.steps[0].right: unknown source "quote"; did you mean "quotes"?'],
    [job([{ op: 'join', right: 'quotes', on: 'sym', nullEqual: true }]), '$.steps[0]: unknown key "nullEqual"; did you mean "nullsEqual"?'],
    [job([{ op: 'union', others: ['trades', 'qoutes'] }]), '$.steps[0].others[1]: unknown source "qoutes"; did you mean "quotes"?'],
    [job([{ op: 'rename', columns: { sym: '' } }]), '$.steps[0].columns.sym: expected a new column name (non-empty string)'],
    [job([{ op: 'drop', column: 'sym' }]), '$.steps[0]: unknown key "column"; did you mean "columns"?'],
    [job([{ op: 'distinct', columns: [] }]), '$.steps[0].columns: expected a non-empty list of column names, got an array []'],
    [job([{ op: 'sortt', by: 'ts' }]), 'got "sortt" (string); did you mean "sort"?'],
  ])('%j', (doc, message) => {
    expect(problemOf(doc)).toContain(message);
  });

  it('reports a plan problem of a step with its path', async () => {
    const engine = new Engine({ threads: 0 });
    try {
      await expect(buildJob(engine, parseJob(job([{ op: 'groupBy', by: 'symbol', aggs: { n: { fn: 'count' } } }])), '.')).rejects.toThrow(/^\$\.steps\[0\] \(groupBy\): groupBy\(\): unknown column "symbol"/);
    } finally {
      await engine.close();
    }
  });
});

describe('relational job steps run as the API does', () => {
  it('sort, groupBy, join, distinct, rename, drop, union', async () => {
    const engine = new Engine({ threads: 1, partitions: 3 });
    try {
      const spec = parseJob(
        job([
          { op: 'join', right: { source: 'quotes', steps: [{ op: 'distinct', columns: 'sym' }, { op: 'drop', columns: ['ts', 'venue'] }] }, on: 'sym', how: 'left' },
          { op: 'union', others: { source: 'trades', steps: [{ op: 'join', right: { source: 'quotes', steps: [{ op: 'distinct', columns: 'sym' }, { op: 'drop', columns: ['ts', 'venue'] }] }, on: 'sym', how: 'left' }] } },
          { op: 'rename', columns: { sym: 'symbol' } },
          { op: 'groupBy', by: ['symbol', 'venue'], aggs: { n: { fn: 'count' }, qty: { fn: 'sum', column: 'qty' }, hi: { fn: 'max', column: 'price' }, first_bid: { fn: 'first', column: 'bid' }, days: { fn: 'countDistinct', column: 'ts' } } },
          { op: 'sort', by: ['symbol', { column: 'n', descending: true }] },
        ]),
      );
      const viaJob = await (await buildJob(engine, spec, '.')).collect();
      const [trades, quotes] = [await (await buildJob(engine, parseJob({ sources: SOURCES, main: 'trades' }), '.')), await buildJob(engine, parseJob({ sources: SOURCES, main: 'quotes' }), '.')];
      const right = quotes.distinct('sym').drop('ts', 'venue');
      const joined = trades.join(right, { on: 'sym', how: 'left' });
      const viaApi = await joined
        .union(joined)
        .rename({ sym: 'symbol' })
        .groupBy('symbol', 'venue')
        .agg({ n: count(), qty: sum('qty'), hi: max('price'), first_bid: first('bid'), days: countDistinct('ts') })
        .sort('symbol', { column: 'n', descending: true })
        .collect();
      expect(viaJob.schema.fields.map((f) => f.name)).toEqual(['symbol', 'venue', 'n', 'qty', 'hi', 'first_bid', 'days']);
      expect(viaJob.numRows).toBeGreaterThan(0);
      expect(viaJob.toArray().map((r) => r.toJSON())).toEqual(viaApi.toArray().map((r) => r.toJSON()));
    } finally {
      await engine.close();
    }
  });
});
