/**
 * schema/job.schema.json, the published JSON Schema of job files (issue 10.9): generated from
 * the same zod schemas that check job files and API options, kept up to date, valid JSON
 * Schema, and in agreement with the loader: it accepts every job Sluice accepts (the examples of
 * README-jobs.md and the test jobs) and rejects the structural mistakes Sluice rejects.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { parseJob } from '../../src/cli/job.js';
import { jobJsonSchema } from '../../src/cli/job-schema.js';
import { csvReadShape, ipcReadShape, ndjsonReadShape, parquetReadShape } from '../../src/options/read.js';
import { ordersJob, tradesJob } from './helpers.js';

const file = fileURLToPath(new URL('../../schema/job.schema.json', import.meta.url));
const published = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
const validate = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true }).compile(published);

/** The JSON blocks of README-jobs.md that are whole jobs (have "sources"). */
function readmeJobs(): unknown[] {
  const md = readFileSync(fileURLToPath(new URL('../../src/cli/README-jobs.md', import.meta.url)), 'utf8');
  return [...md.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]!) as Record<string, unknown>).filter((d) => 'sources' in d);
}

/** A job around one step, for the step examples of README-jobs.md. */
const D = { trades: { type: 'demo', dataset: 'trades' }, quotes: { type: 'demo', dataset: 'quotes' } };

describe('schema/job.schema.json', () => {
  it('is up to date with src/cli/job-schema.ts (run `npm run schema`)', () => {
    expect(published).toEqual(JSON.parse(JSON.stringify(jobJsonSchema())));
  });

  it('has no API-only parts (functions, bigints, Arrow objects)', () => {
    const text = JSON.stringify(published);
    expect(text).not.toMatch(/x-api-only/);
    expect(text).not.toMatch(/"type":"(function|bigint)"/);
  });

  const good = [...readmeJobs(), tradesJob, ordersJob, { $schema: '../schema/job.schema.json', sources: D, steps: [{ op: 'limit', n: 1 }] }, { sources: { t: { path: 'in.parquet' } } }];

  it.each(good.map((d, i) => [i, d]))('accepts job %i, as Sluice does', (_i, doc) => {
    expect(() => parseJob(doc)).not.toThrow();
    expect(validate(doc), JSON.stringify(validate.errors)).toBe(true);
  });

  it('README-jobs.md has example jobs to check', () => {
    expect(readmeJobs().length).toBeGreaterThan(0);
  });

  const bad: unknown[] = [
    {},
    { sources: D, stepz: [] },
    { sources: D, steps: [{ op: 'windw' }] },
    { sources: D, steps: [{ op: 'window', partition_by: 'sym', columns: { n: { fn: 'count' } } }] },
    { sources: D, steps: [{ op: 'explode', columns: 'x', outputCol: 'y' }] },
    { sources: D, steps: [{ op: 'explode', columns: 'x', ignoreEmptyAndNull: 'yes' }] },
    { sources: D, steps: [{ op: 'limit', n: -1 }] },
    { sources: D, steps: [{ op: 'limit', n: 1.5 }] },
    { sources: D, steps: [{ op: 'asofJoin', right: 'quotes', on: 'ts', direction: 'backwards' }] },
    { sources: D, steps: [{ op: 'asofJoin', right: { source: 'quotes', steps: [{ op: 'limit' }] }, on: 'ts' }] },
    { sources: D, steps: [{ op: 'window', columns: { t: { fn: 'sum', column: 'x', rows: [1, 2, 3] } } }] },
    { sources: { c: { type: 'csv', path: 'x.csv', header: 'yes' } } },
    { sources: { c: { type: 'csv', path: 'x.csv', delimiter: '"' } } },
    { sources: D, output: { format: 'xls' } },
    { sources: D, output: { path: 'x.parquet', compression: 'lzo' } },
    { sources: D, output: { path: 'x', format: 'parquet', partitionBy: [] } },
  ];

  it.each(bad.map((d, i) => [i, d]))('rejects bad job %i, as Sluice does', (_i, doc) => {
    expect(() => parseJob(doc)).toThrow();
    expect(validate(doc)).toBe(false);
  });

  it("README-jobs.md's source table lists every option of each file source", () => {
    const md = readFileSync(fileURLToPath(new URL('../../src/cli/README-jobs.md', import.meta.url)), 'utf8');
    const shapes = { ipc: ipcReadShape, parquet: parquetReadShape, csv: csvReadShape, ndjson: ndjsonReadShape };
    for (const [type, shape] of Object.entries(shapes)) {
      const row = new RegExp(`^\\| \`${type}\` \\| (.*) \\|$`, 'm').exec(md)?.[1];
      expect(row, type).toBeDefined();
      for (const key of ['path', ...Object.keys(shape)]) expect(row, `${type}: ${key}`).toContain(`\`${key}\``);
    }
  });
});
