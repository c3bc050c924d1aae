/**
 * Every failing CLI case through the built CLI, each under a timeout: the process ends by
 * itself (no hang, issue 7 item 9), with the documented exit code (0/1/2), and stderr is ONE
 * line, `sluice: error: ` then the message, typed errors with class and code (item 12).
 */
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir, tradesJob, writeJob } from './helpers.js';
import { BUILT, errorLines, sluice } from './spawn.js';

let dir: string;
let cleanup: () => Promise<void>;
let polarsParquet: string | undefined;

const explodeMismatch = {
  sources: { o: { type: 'demo', dataset: 'orders', rows: 2000 } },
  steps: [{ op: 'explode', columns: ['items', "split(label, 'p')"] }],
};

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir());
  await writeJob(dir, 'ok.json', tradesJob);
  await writeJob(dir, 'mismatch.json', explodeMismatch);
  await writeJob(dir, 'broken.json', '{ "sources": ');
  await writeJob(dir, 'typo.json', { sources: { a: { type: 'demo', dataset: 'trades' } }, steps: [{ op: 'filter', where: 'x', typo: 1 }] });
  await writeJob(dir, 'plan.json', { sources: { t: { type: 'demo', dataset: 'trades', rows: 10 } }, steps: [{ op: 'select', exprs: ['sym', 'no_such_column'] }] });
  await writeJob(dir, 'missing.json', { sources: { p: { type: 'parquet', path: 'nope.parquet' } } });
  await writeFile(join(dir, 'corrupt.parquet'), 'PAR1 definitely not a parquet file PAR1');
  await writeJob(dir, 'corrupt.json', { sources: { p: { type: 'parquet', path: 'corrupt.parquet' } } });
  await writeJob(dir, 'to-parquet.json', { sources: { t: { type: 'demo', dataset: 'trades', rows: 100 } }, output: { path: 'out.parquet', format: 'csv' } });
  // message texts (a new user's probe): plain words, no duplication, hints, one line
  await writeFile(join(dir, 'ts.csv'), 'ts\n2024-01-01T00:00:00.5\n');
  await writeJob(dir, 'ts-precise.json', { sources: { c: { type: 'csv', path: 'ts.csv', schema: 'ts timestamp[s]' } } });
  const log = { type: 'demo', dataset: 'serving_log', rows: 10 };
  await writeJob(dir, 'frame-order.json', { sources: { log }, steps: [{ op: 'window', orderBy: 'create_ts', columns: { x: { fn: 'sum', column: 'tokens', rows: [0, -1] } } }] });
  await writeJob(dir, 'rank-frame.json', { sources: { log }, steps: [{ op: 'window', orderBy: 'create_ts', columns: { r: { fn: 'rank', rows: [1, 0] } } }] });
  await writeJob(dir, 'type-typo.json', { sources: { c: { type: 'csv', path: 'ts.csv', schema: { ts: 'int65' } } } });
  await writeJob(dir, 'type-typo-text.json', { sources: { c: { type: 'csv', path: 'ts.csv', schema: 'ts int65' } } });
  await writeJob(dir, 'parse.json', { sources: { log }, steps: [{ op: 'filter', where: 'tokens >> 3' }] });
  // a Parquet file written by Polars (strings come back as Utf8View): writing it once hung `sluice run`
  try {
    const pl = (await import('nodejs-polars')).default;
    polarsParquet = join(dir, 'polars.parquet');
    pl.DataFrame({ s: ['a', 'bb', null], x: [1, 2, 3] }).writeParquet(polarsParquet);
    await writeJob(dir, 'polars.json', { sources: { p: { type: 'parquet', path: 'polars.parquet' } } });
  } catch {
    polarsParquet = undefined;
  }
});
afterAll(async () => cleanup());

type Case = [name: string, args: (d: string) => string[], code: number, line: RegExp];

const CASES: Case[] = [
  ['unknown command', () => ['frobnicate'], 2, /^sluice: error: unknown command 'frobnicate' \(see 'sluice --help'\)$/],
  ['no command', () => [], 2, /^sluice: error: missing command/],
  ['missing argument', () => ['run'], 2, /^sluice: error: missing required argument 'job' \(see 'sluice run --help'\)$/],
  ['unknown option', () => ['demo', '--no-such-flag'], 2, /^sluice: error: unknown option '--no-such-flag'/],
  ['a command\'s option before the command', () => ['-n', '2', 'head', 'x.csv'], 2, /^sluice: error: unknown option '-n' before the command: options of head go after it \(sluice head \.\.\. -n\) \(see 'sluice head --help'\)$/],
  ['another tool\'s word for a flag', () => ['--memory', '1g', 'demo'], 2, /^sluice: error: unknown option '--memory' \(Did you mean --memory-limit\?\) \(see 'sluice demo --help'\)$/],
  ['the library\'s option name', () => ['demo', '--spill-dir', '/tmp'], 2, /^sluice: error: unknown option '--spill-dir' \(Did you mean --temp-dir\?\)/],
  ['bad --threads', () => ['--threads', 'two', 'demo'], 2, /^sluice: error: option '--threads <n>' argument 'two' is invalid/],
  ['bad --format', (d) => ['--format', 'xml', 'run', `${d}/ok.json`], 2, /^sluice: error: option '--format <format>' argument 'xml' is invalid/],
  ['bad --memory-limit', (d) => ['--memory-limit', 'lots', 'run', `${d}/ok.json`], 2, /^sluice: error: --memory-limit: /],
  ['missing --temp-dir', (d) => ['--temp-dir', `${d}/no/such`, 'run', `${d}/ok.json`], 2, /^sluice: error: --temp-dir: .* is not an existing folder \(see 'sluice run --help'\)$/],
  ['missing job file', (d) => ['run', `${d}/nope.json`], 2, /^sluice: error: job file not found: /],
  ['invalid JSON', (d) => ['run', `${d}/broken.json`], 2, /^sluice: error: job file .* is not valid JSON: /],
  ['unknown job key', (d) => ['explain', `${d}/typo.json`], 2, /^sluice: error: .*\$\.steps\[0\]: unknown key "typo"/],
  ['plan error', (d) => ['run', `${d}/plan.json`], 2, /^sluice: error: PlanError \[UNKNOWN_COLUMN\]: \$\.steps\[0\] \(select\): .*no_such_column/],
  ['missing input', (d) => ['run', `${d}/missing.json`], 2, /^sluice: error: InputError \[INPUT_NOT_FOUND\]: .*nope\.parquet$/],
  ['corrupt input', (d) => ['run', `${d}/corrupt.json`], 2, /^sluice: error: InputError \[INPUT_MALFORMED\]: /],
  ['output folder missing', (d) => ['run', `${d}/ok.json`, '-o', `${d}/no/such/out.csv`], 2, /^sluice: error: output folder: /],
  ['unknown extension', (d) => ['run', `${d}/ok.json`, '-o', `${d}/out.xlsx`], 2, /^sluice: error: cannot tell the output format/],
  ['--format vs -o extension', (d) => ['run', `${d}/ok.json`, '--format', 'table', '-o', `${d}/out.parquet`], 2, /^sluice: error: --format table disagrees with the extension of .*out\.parquet/],
  ['job format vs path', (d) => ['run', `${d}/to-parquet.json`], 2, /^sluice: error: \S+\/to-parquet\.json: \$\.output\.format csv disagrees with the extension/],
  ['-o is a folder', (d) => ['run', `${d}/ok.json`, '-o', `${d}/sub.csv`], 2, /^sluice: error: output .*sub\.csv" is a folder \(see 'sluice run --help'\)$/],
  ['a too precise CSV timestamp', (d) => ['run', `${d}/ts-precise.json`], 1, /^sluice: error: InputError \[INPUT_MALFORMED\]: .*line 2, column ts: "2024-01-01T00:00:00\.5" is too precise: it has a finer fraction of a second than the column unit \(s\)/],
  ['a frame that ends before it starts', (d) => ['run', `${d}/frame-order.json`], 2, /^sluice: error: PlanError \[FRAME_START_AFTER_END\]: \$\.steps\[0\] \(window\): sum\("tokens"\)\.rows\(\): the frame starts after it ends \(ROWS BETWEEN CURRENT ROW AND 1 PRECEDING\): it starts at the current row but ends 1 row before the current row$/],
  ['a frame on rank', (d) => ['run', `${d}/rank-frame.json`], 2, /^sluice: error: PlanError \[FRAME_NOT_ALLOWED\]: \$\.steps\[0\] \(window\): rank\(\) takes no frame \(ROWS BETWEEN 1 PRECEDING AND CURRENT ROW\): ranking functions work/],
  ['a type name typo', (d) => ['run', `${d}/type-typo.json`], 2, /^sluice: error: .*type-typo\.json: \$\.sources\.c\.schema\.ts: expected a type name \(.*\), got "int65" \(string\); did you mean "int64"\? \(see 'sluice run --help'\)$/],
  ['a type name typo in a text schema', (d) => ['run', `${d}/type-typo-text.json`], 2, /^sluice: error: .*got the column "ts int65"; did you mean "int64"\?/],
  ['a parse error: position, no caret', (d) => ['run', `${d}/parse.json`], 2, /^sluice: error: PlanError \[PARSE_ERROR\]: \$\.steps\[0\] \(filter\): Syntax error: expected an expression, found ">" at position 9 in "tokens >> 3"$/],
  ['--format on demo', () => ['demo', '--format', 'csv'], 2, /^sluice: error: --format does not apply to demo/],
  ['--stats on explain', (d) => ['--stats', 'json', 'explain', `${d}/ok.json`], 2, /^sluice: error: --stats does not apply to explain/],
  ['runtime failure to stdout', (d) => ['--threads', '2', 'run', `${d}/mismatch.json`], 1, /^sluice: error: ExecutionError \[EXPLODE_LENGTH_MISMATCH\]: /],
  ['runtime failure to csv', (d) => ['--threads', '2', 'run', `${d}/mismatch.json`, '-o', `${d}/f.csv`], 1, /^sluice: error: ExecutionError \[EXPLODE_LENGTH_MISMATCH\]: /],
  ['runtime failure to parquet', (d) => ['--threads', '0', 'run', `${d}/mismatch.json`, '-o', `${d}/f.parquet`], 1, /^sluice: error: ExecutionError \[EXPLODE_LENGTH_MISMATCH\]: /],
  ['runtime failure to arrow', (d) => ['--threads', '2', 'run', `${d}/mismatch.json`, '-o', `${d}/f.arrow`], 1, /^sluice: error: ExecutionError \[EXPLODE_LENGTH_MISMATCH\]: /],
  ['write to /dev/full', (d) => ['run', `${d}/ok.json`, '-o', '/dev/full'], 1, /^sluice: error: InputError \[OUTPUT_UNWRITABLE\]: .*\/dev\/full: ENOSPC/],
  ['parquet to /dev/full', (d) => ['run', `${d}/ok.json`, '-o', '/dev/full', '--format', 'parquet'], 1, /^sluice: error: InputError \[OUTPUT_UNWRITABLE\]: .*ENOSPC/],
];

describe.skipIf(!BUILT)('failing CLI cases end by themselves with one error line', () => {
  beforeAll(async () => {
    await import('node:fs/promises').then((fs) => fs.mkdir(join(dir, 'sub.csv'), { recursive: true }));
  });

  it.each(CASES)('%s', async (_name, args, code, line) => {
    const r = await sluice(args(dir), { cwd: dir, timeoutMs: 30_000 });
    expect(r.timedOut).toBe(false);
    expect(r.signal).toBeNull();
    expect(r.code).toBe(code);
    const lines = errorLines(r.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(line);
  });

  it('stdout onto a full device (> /dev/full) exits 1 with one line, for every text and binary format', async () => {
    for (const format of ['csv', 'json', 'ndjson', 'table', 'arrow', 'parquet']) {
      const r = await sluice(['--threads', '0', 'run', `${dir}/ok.json`, '--format', format], { stdoutPath: '/dev/full', timeoutMs: 30_000 });
      expect(r.timedOut).toBe(false);
      expect(r.code, format).toBe(1);
      const lines = errorLines(r.stderr);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^sluice: error: InputError \[OUTPUT_UNWRITABLE\]: Cannot write .* output <stdout>: ENOSPC/);
    }
  });

  it('a reader that goes away (| head) ends the run quietly with exit code 0', async () => {
    const { spawn } = await import('node:child_process');
    const main = join(import.meta.dirname, '../../dist/cli/main.js');
    const r = await new Promise<{ code: number | null; err: string }>((resolve) => {
      // pipefail: the pipeline's status is sluice's unless sluice exits 0
      const sh = spawn('bash', ['-c', `set -o pipefail; "${process.execPath}" "${main}" --threads 0 demo --rows 200000 | head -c 100 > /dev/null`], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let err = '';
      sh.stderr.on('data', (d: Buffer) => (err += d.toString()));
      const t = setTimeout(() => sh.kill('SIGKILL'), 60_000);
      sh.on('close', (code) => {
        clearTimeout(t);
        resolve({ code, err });
      });
    });
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
  });

  it('a Polars Parquet file (Utf8View strings) written back as Parquet: no hang', async (ctx) => {
    if (polarsParquet === undefined) ctx.skip();
    const r = await sluice(['--threads', '2', 'run', `${dir}/polars.json`, '-o', `${dir}/polars-out.parquet`], { timeoutMs: 30_000 });
    expect(r.timedOut).toBe(false);
    expect(r.signal).toBeNull();
    if (r.code !== 0) {
      expect(r.code).toBe(1);
      expect(errorLines(r.stderr)).toHaveLength(1);
      expect(r.stderr).toMatch(/^sluice: error: \w+Error \[[A-Z_]+\]: /);
      expect((await readdir(dir)).filter((f) => f.startsWith('polars-out') || f.includes('sluice-tmp'))).toEqual([]);
    }
  });

  it('failed runs leave no output or temp files behind', async () => {
    expect((await readdir(dir)).filter((f) => /^f\.|sluice-tmp/.test(f))).toEqual([]);
  });
});

describe.skipIf(!BUILT)('sluice run - (the job on standard input)', () => {
  it('runs a job read from stdin, as from a file', async () => {
    const fromFile = await sluice(['--threads', '0', '--quiet', 'run', join(dir, 'ok.json')]);
    const fromStdin = await sluice(['--threads', '0', '--quiet', 'run', '-'], { stdin: Buffer.from(JSON.stringify(tradesJob)) });
    expect(fromStdin.stderr.toString()).toBe('');
    expect(fromStdin.code).toBe(0);
    expect(fromStdin.stdout.toString()).toBe(fromFile.stdout.toString());
  });

  it('a job on stdin whose source reads stdin, and two sources reading stdin, are job errors', async () => {
    const job = { sources: { a: { type: 'csv', path: '-' } } };
    const self = await sluice(['--threads', '0', 'run', '-'], { stdin: Buffer.from(JSON.stringify(job)) });
    expect(self.code).toBe(2);
    expect(self.stderr.toString()).toMatch(/source a reads standard input, which holds the job itself/);
    const two = await writeJob(dir, 'two-stdin.json', { sources: { a: { type: 'csv', path: '-' }, b: { type: 'csv', path: '-' } } });
    const r = await sluice(['--threads', '0', 'run', two], { stdin: Buffer.from('x\n1\n') });
    expect(r.code).toBe(2);
    expect(r.stderr.toString()).toMatch(/sources a and b both read standard input: only one source can/);
  });

  it('a job that uses its stdin source twice (a self-join) says stdin is read once, before anything runs', async () => {
    const self = await writeJob(dir, 'self-join-stdin.json', { sources: { s: { type: 'csv', path: '-' } }, steps: [{ op: 'join', right: 's', on: 'id' }] });
    for (const cmd of ['run', 'explain']) {
      const r = await sluice(['--threads', '0', cmd, self], { stdin: Buffer.from('id,v\n1,a\n') });
      expect(r.code).toBe(2);
      expect(errorLines(r.stderr)).toHaveLength(1);
      expect(r.stderr).toMatch(/^sluice: error: .*self-join-stdin\.json: source s reads standard input, which can be read only once, but the job uses it 2 times \(the main source, \$\.steps\[0\]\.right\): write standard input to a file first/);
      expect(r.stderr).not.toMatch(/earlier run|pass a Table/);
      expect(r.stdout.length).toBe(0);
    }
    const union = await writeJob(dir, 'union-stdin.json', {
      sources: { t: { type: 'csv', path: 'x.csv' }, s: { type: 'csv', path: '-' } },
      steps: [{ op: 'union', others: ['s', { source: 's', steps: [{ op: 'limit', n: 1 }] }] }],
    });
    const u = await sluice(['--threads', '0', 'run', union], { stdin: Buffer.from('id,v\n1,a\n') });
    expect(u.code).toBe(2);
    expect(u.stderr).toMatch(/uses it 2 times \(\$\.steps\[0\]\.others\[0\], \$\.steps\[0\]\.others\[1\]\.source\)/);
  });
});
