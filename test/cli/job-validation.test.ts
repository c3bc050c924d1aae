/**
 * Job files are checked by the same schemas as the API options (issue 10.9): every problem is
 * reported with its JSON path, unknown keys and values get "did you mean", "$schema" is
 * accepted, and a step's options reach the API unchanged.
 */
import { describe, expect, it } from 'vitest';
import { buildJob, JobError, parseJob } from '../../src/cli/job.js';
import { Engine } from '../../src/index.js';

const SOURCES = { trades: { type: 'demo', dataset: 'trades', rows: 50 }, quotes: { type: 'demo', dataset: 'quotes', rows: 50 } };
const job = (steps: unknown[], extra: Record<string, unknown> = {}) => ({ sources: SOURCES, steps, ...extra });

function problemOf(doc: unknown): string {
  try {
    parseJob(doc);
  } catch (err) {
    expect(err).toBeInstanceOf(JobError);
    return (err as Error).message;
  }
  throw new Error('expected the job to be rejected');
}

describe('job-file problems name the JSON path and the closest key', () => {
  it.each([
    [job([{ op: 'window', partition_by: 'sym', orderBy: 'ts', columns: { n: { fn: 'count' } } }]), '$.steps[0]: unknown key "partition_by"; did you mean "partitionBy"?'],
    [job([{ op: 'explode', columns: 'x', outputCol: 'y' }]), '$.steps[0]: unknown key "outputCol"; did you mean "outputColumn"?'],
    [job([{ op: 'explode', columns: 'x', ignoreEmptyAndNull: 'yes' }]), '$.steps[0].ignoreEmptyAndNull: expected true or false, got "yes" (string)'],
    [job([{ op: 'windw' }]), '$.steps[0].op: expected one of "select", "filter", "withColumns", "limit", "explode", "window", "asofJoin", '],
    [job([{ op: 'windw' }]), 'got "windw" (string); did you mean "window"?'],
    [job([{ op: 'window', orderBy: 'ts', columns: { tokens_7d: { fn: 'sum', column: 'qty', rows: [1, 2, 3] } } }]), '$.steps[0].columns.tokens_7d.rows: expected [preceding] or [preceding, following]'],
    [job([{ op: 'window', orderBy: 'ts', columns: { tokens_7d: { fn: 'sum', column: 'qty', row: 6 } } }]), '$.steps[0].columns.tokens_7d: unknown key "row"; did you mean "rows"?'],
    [job([{ op: 'window', orderBy: 'ts', columns: { t: { fn: 'summ', column: 'qty' } } }]), '$.steps[0].columns.t.fn: expected one of "sum", "count", "avg", "min", "max", "stddev", "variance", "stddevPop", "varPop", "countDistinct", "first", "last", "nthValue", "lag", "lead", "rowNumber", "rank", "denseRank", "percentRank", "cumeDist", "ntile", got "summ" (string); did you mean "sum"?'],
    [job([{ op: 'window', orderBy: 'ts', columns: { t: { fn: 'sum' } } }]), '$.steps[0].columns.t.column: expected a column name (only count may omit it)'],
    [job([{ op: 'window', orderBy: [{ column: 'ts', desc: true }], columns: { n: { fn: 'count' } } }]), '$.steps[0].orderBy[0]: unknown key "desc"; did you mean "descending"?'],
    // Keys the function would not read are refused, not ignored.
    [job([{ op: 'window', orderBy: 'ts', columns: { r: { fn: 'rank', column: 'qty' } } }]), '$.steps[0].columns.r.column: expected no "column": rank takes none'],
    [job([{ op: 'window', orderBy: 'ts', columns: { q: { fn: 'ntile', n: 4, column: 'qty' } } }]), '$.steps[0].columns.q.column: expected no "column": ntile takes none'],
    [job([{ op: 'window', orderBy: 'ts', columns: { t: { fn: 'sum', column: 'qty', n: 3 } } }]), '$.steps[0].columns.t.n: expected no "n": only nthValue, lag, lead, ntile take one, not sum'],
    [job([{ op: 'window', orderBy: 'ts', columns: { t: { fn: 'sum', column: 'qty', default: 3 } } }]), '$.steps[0].columns.t.default: expected no "default": only lag and lead take one, not sum'],
    [job([{ op: 'asofJoin', right: 'quotes', on: 'ts', direction: 'backwards' }]), '$.steps[0].direction: expected one of "backward", "forward", "nearest", got "backwards" (string); did you mean "backward"?'],
    [job([{ op: 'asofJoin', right: 'quotes', on: 'ts', tolerence: '5s' }]), '$.steps[0]: unknown key "tolerence"; did you mean "tolerance"?'],
    [job([{ op: 'asofJoin', right: 'quote', on: 'ts' }]), '$.steps[0].right: unknown source "quote"; did you mean "quotes"?'],
    [job([{ op: 'asofJoin', right: { source: 'quotes', steps: [{ op: 'limit', n: -1 }] }, on: 'ts' }]), '$.steps[0].right.steps[0].n: expected an integer >= 0, got -1 (number)'],
    [job([], { main: 'trade' }), '$.main: unknown source "trade"; did you mean "trades"?'],
    [job([], { descripton: 'x' }), '$: unknown key "descripton"; did you mean "description"?'],
    [{ sources: { c: { type: 'csv', path: 'x.csv', shema: { a: 'int64' } } } }, '$.sources.c: unknown key "shema"; did you mean "schema"?'],
    [{ sources: { c: { type: 'csv', path: 'x.csv', schema: { a: 'int65' } } } }, '$.sources.c.schema.a: expected a type name'],
    [{ sources: { c: { type: 'cvs', path: 'x.csv' } } }, '$.sources.c.type: expected one of "ipc", "parquet", "csv", "ndjson", "demo", got "cvs" (string); did you mean "csv"?'],
    [{ sources: { c: { path: 'x.csv', delimiter: ';' } } }, '$.sources.c: unknown key "delimiter". Known keys: path, type'],
    [{ sources: { c: { path: 'data/x.dat' } } }, '$.sources.c: cannot tell the format of "data/x.dat" from its extension'],
    [{ sources: { 'my data': { type: 'demo', dataset: 'trade' } } }, '$.sources["my data"].dataset: expected one of "serving_log", "trades", "quotes", "orders", got "trade" (string); did you mean "trades"?'],
  ])('%j', (doc, message) => {
    expect(problemOf(doc)).toContain(message);
  });

  it('lists the known keys with an unknown one', () => {
    expect(problemOf(job([{ op: 'limit', n: 1, m: 2 }]))).toBe('$.steps[0]: unknown key "m". Known keys: op, n');
  });
});

describe('valid job files', () => {
  it('a { "path" } source takes its format from the extension (a glob\'s too), case-insensitively', () => {
    const spec = parseJob({ sources: { a: { path: 'x.CSV' }, b: { path: 'logs/**/*.parquet' }, c: { path: 'q.arrows' }, d: { path: 'e.jsonl.gz' }, e: { type: 'csv', path: 'y.txt' } } });
    expect(Object.values(spec.sources).map((s) => s.type)).toEqual(['csv', 'parquet', 'ipc', 'ndjson', 'csv']);
  });

  it('accept "$schema" (for editors) and build through the public API', async () => {
    const spec = parseJob(
      job(
        [
          { op: 'asofJoin', right: 'quotes', on: 'ts', by: 'sym', tolerance: '30s', condition: 'venue = venue_right' },
          { op: 'window', partitionBy: 'sym', orderBy: [{ column: 'ts', descending: true }], columns: { q: { fn: 'sum', column: 'qty', rows: ['9223372036854775807', 0] } } },
          { op: 'limit', n: 5 },
        ],
        { $schema: '../schema/job.schema.json' },
      ),
    );
    const engine = new Engine({ threads: 0 });
    try {
      const df = await buildJob(engine, spec, '.');
      const t = await df.collect();
      expect(t.numRows).toBe(5);
      expect(t.schema.fields.map((f) => f.name)).toEqual(['sym', 'ts', 'price', 'qty', 'venue', 'ts_right', 'bid', 'ask', 'venue_right', 'q']);
    } finally {
      await engine.close();
    }
  });
});
