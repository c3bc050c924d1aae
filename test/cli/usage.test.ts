import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, tempDir, tradesJob, writeJob } from './helpers.js';

let dir: string;
let cleanup: () => Promise<void>;
beforeAll(async () => ({ dir, cleanup } = await tempDir()));
afterAll(async () => cleanup());

describe('sluice usage errors (exit 2)', () => {
  it('--help and --version exit 0', async () => {
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Usage: sluice/);
    expect(help.stdout).toMatch(/demo/);
    expect(help.stdout).toMatch(/--memory-limit/);
    const v = await cli(['--version']);
    expect(v.code).toBe(0);
    expect(v.stdout).toMatch(/^\d+\.\d+\.\d+/);
  });

  it.each([
    [['frobnicate']],
    [['run']],
    [['demo', '--no-such-flag']],
    [['--threads', 'two', 'demo']],
    [['--threads', '-1', 'demo']],
    [['--partitions', '0', 'demo']],
    [['--partitions', '100000000', 'demo']],
    [['--threads', '100000', 'demo']],
    [['help', 'nope']],
    [['--format', 'xml', 'demo']],
    [['--stats', 'yaml', 'demo']],
    [['--max-rows', '1.5', 'demo']],
    [[]],
  ])('%j exits 2', async (argv) => {
    const r = await cli(argv);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.length).toBeGreaterThan(0);
  });

  it('a bad --memory-limit exits 2 naming the flag', async () => {
    const job = await writeJob(dir, 'ok.json', tradesJob);
    const r = await cli(['--memory-limit', 'lots', 'run', job]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--memory-limit/);
  });

  it('a run refused as it starts puts nothing on stdout (no CSV header without rows)', async () => {
    const job = await writeJob(dir, 'explode.json', { sources: { o: { type: 'demo', dataset: 'orders', rows: 100 } }, steps: [{ op: 'explode', columns: ['items', 'quantities'] }] });
    for (const format of ['csv', 'arrow', 'json']) {
      const r = await cli(['--threads', '0', '--memory-limit', '10', '--format', format, 'run', job]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/MEMORY_BUDGET_TOO_SMALL/);
      expect(r.stdout).toBe("");
    }
  });

  it('help on an unknown command names it; over-large --partitions names the range', async () => {
    expect((await cli(['help', 'nope'])).stderr).toMatch(/unknown command 'nope'/);
    expect((await cli(['help', 'nope'])).stderr).not.toMatch(/Did you mean/);
    expect((await cli(['help', 'rnu'])).stderr).toMatch(/unknown command 'rnu' \(Did you mean run\?\)/);
    expect((await cli(['--partitions', '100000000', 'demo'])).stderr).toMatch(/--partitions expects an integer from 1 to 65536/);
  });

  it('a --stats-file that is the output file exits 2 and writes neither', async () => {
    const job = await writeJob(dir, 'same-stats.json', tradesJob);
    const out = `${dir}/same.csv`;
    const r = await cli(['--threads', '0', '-o', out, '--stats-file', out, 'run', job]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--stats-file is the output file/);
    expect(existsSync(out)).toBe(false);
  });

  it('a --stats-file in a missing folder exits 2 before the run writes anything', async () => {
    const job = await writeJob(dir, 'ok-stats.json', tradesJob);
    const out = `${dir}/stats-out.csv`;
    const r = await cli(['--threads', '0', '-o', out, '--stats-file', `${dir}/no-such-folder/stats.json`, 'run', job]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--stats-file folder: .* is not an existing folder/);
    expect(existsSync(out)).toBe(false);
  });

  it('a missing job file exits 2', async () => {
    const r = await cli(['run', `${dir}/nope.json`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/job file not found/);
  });

  it('a job file saved with a UTF-8 byte-order mark is read', async () => {
    const job = await writeJob(dir, 'bom.json', `\ufeff${JSON.stringify(tradesJob)}`);
    const r = await cli(['explain', job]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });

  it('invalid JSON exits 2', async () => {
    const job = await writeJob(dir, 'broken.json', '{ "sources": ');
    const r = await cli(['explain', job]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/not valid JSON/);
  });

  it.each([
    [{}, /\$\.sources: expected an object/],
    [{ sources: { a: { type: 'excel', path: 'x' } } }, /\$\.sources\.a\.type: expected one of/],
    [{ sources: { a: { type: 'demo', dataset: 'trades' } }, steps: [{ op: 'pivot' }] }, /\$\.steps\[0\]\.op: expected one of/],
    [{ sources: { a: { type: 'demo', dataset: 'trades' } }, steps: [{ op: 'limit', n: -1 }] }, /\$\.steps\[0\]\.n: expected an integer >= 0/],
    [{ sources: { a: { type: 'demo', dataset: 'trades' } }, steps: [{ op: 'filter', where: 'x', typo: 1 }] }, /\$\.steps\[0\]: unknown key "typo"/],
    [
      { sources: { a: { type: 'demo', dataset: 'trades' } }, steps: [{ op: 'window', orderBy: 'ts', columns: { s: { fn: 'total', column: 'qty' } } }] },
      /\$\.steps\[0\]\.columns\.s\.fn/,
    ],
    [{ sources: { a: { type: 'demo', dataset: 'trades' } }, steps: [{ op: 'asofJoin', right: 'b', on: 'ts' }] }, /\$\.steps\[0\]\.right: unknown source "b"/],
    [{ sources: { a: { type: 'demo', dataset: 'trades' } }, output: { format: 'xls' } }, /\$\.output\.format/],
  ])('job %j is rejected with its JSON path', async (doc, message) => {
    const job = await writeJob(dir, 'bad.json', doc);
    const r = await cli(['run', job]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
  });

  it('a PlanError in a job exits 2 with the message and the step', async () => {
    const job = await writeJob(dir, 'plan.json', {
      sources: { t: { type: 'demo', dataset: 'trades', rows: 10 } },
      steps: [{ op: 'withColumns', columns: { x: 'price + 1' } }, { op: 'select', exprs: ['sym', 'no_such_column'] }],
    });
    const r = await cli(['run', job]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/PlanError/);
    expect(r.stderr).toMatch(/\$\.steps\[1\] \(select\)/);
    expect(r.stderr).toMatch(/no_such_column/);
    expect(r.stdout).toBe('');
  });

  it('a window frame error (RANGE over a string key) is a PlanError, exit 2', async () => {
    const job = await writeJob(dir, 'plan2.json', {
      sources: { t: { type: 'demo', dataset: 'trades', rows: 10 } },
      steps: [{ op: 'window', orderBy: 'sym', columns: { s: { fn: 'sum', column: 'qty', range: [5, 0] } } }],
    });
    const r = await cli(['explain', job]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/PlanError/);
    expect(r.stderr).toMatch(/\$\.steps\[0\] \(window\)/);
  });

  it('an unknown output extension without --format exits 2', async () => {
    const job = await writeJob(dir, 'ok2.json', tradesJob);
    const r = await cli(['run', job, '-o', `${dir}/out.xlsx`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cannot tell the output format/);
  });

  it('a missing --temp-dir or output folder exits 2 before running', async () => {
    const job = await writeJob(dir, 'ok4.json', tradesJob);
    const a = await cli(['--temp-dir', `${dir}/no/such/dir`, 'run', job]);
    expect(a.code).toBe(2);
    expect(a.stderr).toMatch(/--temp-dir: .* is not an existing folder/);
    const b = await cli(['run', job, '-o', `${dir}/no/such/out.csv`]);
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(/output folder/);
  });

  it('refuses binary output on a terminal', async () => {
    const job = await writeJob(dir, 'ok3.json', tradesJob);
    const r = await cli(['--threads', '0', 'run', job, '--format', 'parquet'], { tty: true });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/terminal/);
  });
});
