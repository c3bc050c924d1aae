import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tableFromIPC, type Table } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src/index.js';
import { cli, ordersJob, tempDir, tradesJob, writeJob } from './helpers.js';

let dir: string;
let cleanup: () => Promise<void>;
let engine: Engine;
beforeAll(async () => {
  ({ dir, cleanup } = await tempDir());
  engine = new Engine({ threads: 0 });
});
afterAll(async () => {
  await engine.close();
  await cleanup();
});

/** Rows of a table as plain objects with exact values (bigint, timestamps as raw numbers). */
function rows(t: Table): Array<Record<string, unknown>> {
  return t.toArray().map((r) => {
    const o = r.toJSON() as Record<string, unknown>;
    for (const k of Object.keys(o)) if (o[k] && typeof o[k] === 'object') o[k] = JSON.stringify(o[k], (_k, v) => (typeof v === 'bigint' ? `${v}n` : v));
    return o;
  });
}

const T0 = ['--threads', '0', '--quiet'];

describe('sluice run', () => {
  it('runs window + asof to every output format, atomically, with the same rows', async () => {
    const job = await writeJob(dir, 'trades.json', tradesJob);
    const arrowPath = join(dir, 'out.arrow');
    const r = await cli([...T0, 'run', job, '-o', arrowPath]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const ref = tableFromIPC(await readFile(arrowPath));
    expect(ref.numRows).toBe(400);
    expect(ref.schema.fields.map((f) => f.name)).toEqual([
      'sym', 'ts', 'price', 'qty', 'venue', 'ts_right', 'bid', 'ask', 'venue_right', 'qty_3', 'px_1m', 'n', 'notional',
    ]);

    const pq = join(dir, 'out.parquet');
    expect((await cli([...T0, 'run', job, '-o', pq])).code).toBe(0);
    const fromPq = await engine.readParquet(pq).collect();
    expect(rows(fromPq)).toEqual(rows(ref));

    // csv to a file and to stdout are the same text, and read back to the same rows
    const csvPath = join(dir, 'out.csv');
    expect((await cli([...T0, 'run', job, '-o', csvPath])).code).toBe(0);
    const stdoutCsv = await cli([...T0, 'run', job, '--format', 'csv']);
    expect(stdoutCsv.code).toBe(0);
    const fileCsv = await readFile(csvPath, 'utf8');
    expect(stdoutCsv.stdout).toBe(fileCsv);
    expect(fileCsv.split('\n')[0]).toBe('sym,ts,price,qty,venue,ts_right,bid,ask,venue_right,qty_3,px_1m,n,notional');
    // read the CSV back through a job with a csv source and a typed schema
    const schema = {
      sym: 'utf8', ts: 'timestamp[ns]', price: 'float64', qty: 'int32', venue: 'utf8', ts_right: 'timestamp[ns]', bid: 'float64',
      ask: 'float64', venue_right: 'utf8', qty_3: 'int64', px_1m: 'float64', n: 'int64', notional: 'float64',
    };
    const backJob = await writeJob(dir, 'back.json', { sources: { c: { type: 'csv', path: 'out.csv', schema } } });
    const back = await cli([...T0, 'run', backJob, '--format', 'arrow']);
    expect(back.code).toBe(0);
    expect(rows(tableFromIPC(back.stdoutBytes))).toEqual(rows(ref));

    // json: one array; ndjson: one object per line; same content
    const json = await cli([...T0, 'run', job, '--format', 'json']);
    const arr = JSON.parse(json.stdout) as Array<Record<string, unknown>>;
    expect(arr).toHaveLength(400);
    const nd = await cli([...T0, 'run', job, '--format', 'ndjson']);
    const lines = nd.stdout.trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(lines).toEqual(arr);
    expect(typeof arr[0]!.ts).toBe('string');
    expect(arr[0]!.ts).toMatch(/^2024-03-01T\d\d:\d\d:\d\d\.\d{9}$/);
    expect(typeof arr[0]!.n).toBe('number');
    const tsvPath = join(dir, 'out.tsv');
    expect((await cli([...T0, 'run', job, '-o', tsvPath])).code).toBe(0);
    expect(await readFile(tsvPath, 'utf8')).toBe(fileCsv.replaceAll(',', '\t'));

    // arrow to stdout is an IPC stream
    const ipc = await cli([...T0, 'run', job, '--format', 'arrow']);
    expect(rows(tableFromIPC(ipc.stdoutBytes))).toEqual(rows(ref));

    // no temp files left behind
    expect((await readdir(dir)).filter((f) => f.includes('sluice-tmp'))).toEqual([]);
  });

  it('zip explode then window, table view on a terminal', async () => {
    const job = await writeJob(dir, 'orders.json', ordersJob);
    const r = await cli([...T0, 'run', job, '--max-rows', '6'], { tty: true });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/item/);
    expect(r.stdout).toMatch(/list|utf8/);
    expect(r.stdout).toMatch(/\d[\d,]* rows \(6 shown\), 6 columns/);
    // --format csv to stdout reads back through the engine
    const csv = await cli([...T0, 'run', job, '--format', 'csv']);
    const p = join(dir, 'orders.csv');
    await writeFile(p, csv.stdout);
    const back = await engine.readCsv(p).collect();
    expect(back.schema.fields.map((f) => f.name)).toEqual(['id', 'item', 'label', 'quantity', 'pos', 'q_run']);
    expect(back.numRows).toBe(csv.stdout.trimEnd().split('\n').length - 1);
  });

  it('--stats json prints RunStats as JSON alone on stderr, or into --stats-file', async () => {
    const job = await writeJob(dir, 'trades2.json', tradesJob);
    const r = await cli(['--threads', '0', '--stats', 'json', 'run', job, '-o', join(dir, 's.csv')]);
    expect(r.code).toBe(0);
    // nothing but the JSON: no "sluice: wrote" line
    const stats = JSON.parse(r.stderr);
    expect(stats).toMatchObject({ rowsIn: 1200, rowsOut: 400, threads: 0 });
    expect(typeof stats.phases).toBe('object');
    expect(typeof stats.phases.write).toBe('number');
    expect(stats.wallMs).toBeGreaterThan(0);
    // API.md: phases are disjoint wall-clock spans, so they add up to at most wallMs
    const phaseSum = Object.values(stats.phases as Record<string, number>).reduce((t, ms) => t + ms, 0);
    expect(phaseSum).toBeLessThanOrEqual(stats.wallMs + 1e-6);
    const file = join(dir, 'stats.json');
    const f = await cli(['--threads', '0', '--stats-file', file, 'run', job, '-o', join(dir, 's2.csv')]);
    expect(f.code).toBe(0);
    expect(f.stderr).toMatch(/^sluice: wrote 400 rows \(csv, [\d,]+ bytes\) to .*s2\.csv in [\d.]+ s\n$/);
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({ rowsIn: 1200, rowsOut: 400 });
  });

  it('explain prints the plan', async () => {
    const job = await writeJob(dir, 'trades3.json', tradesJob);
    const r = await cli([...T0, 'explain', job]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Window/i);
    expect(r.stdout).toMatch(/Asof/i);
  });

  it('a runtime failure exits 1 and leaves an existing output untouched', async () => {
    const job = await writeJob(dir, 'mismatch.json', {
      sources: { o: { type: 'demo', dataset: 'orders', rows: 200 } },
      steps: [{ op: 'explode', columns: ['items', "split(label, 'p')"] }],
    });
    for (const ext of ['csv', 'parquet', 'arrow']) {
      const out = join(dir, `keep.${ext}`);
      await writeFile(out, 'previous');
      const r = await cli([...T0, 'run', job, '-o', out]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/ExecutionError \[EXPLODE_LENGTH_MISMATCH\]/);
      expect(await readFile(out, 'utf8')).toBe('previous');
    }
    expect((await readdir(dir)).filter((f) => f.includes('sluice-tmp'))).toEqual([]);
  });

  it('-o naming the job file itself is a usage error, and the job stays as it was', async () => {
    const job = await writeJob(dir, 'self.json', { sources: { o: { type: 'demo', dataset: 'orders', rows: 20 } } });
    const before = await readFile(job, 'utf8');
    const r = await cli([...T0, 'run', job, '-o', job]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/is the job file itself/);
    expect(await readFile(job, 'utf8')).toBe(before);
  });

  it('a missing input file is an InputError with the path', async () => {
    const job = await writeJob(dir, 'missing.json', { sources: { a: { type: 'parquet', path: 'nope.parquet' } } });
    const r = await cli([...T0, 'run', job]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/InputError/);
    expect(r.stderr).toMatch(/nope\.parquet/);
  });

  it('an aborted run exits 130 and writes nothing', async () => {
    // Big enough to be running when the abort comes (400k rows once took ~1.5 s; now 1.2 s).
    const job = await writeJob(dir, 'big.json', {
      sources: { log: { type: 'demo', dataset: 'serving_log', rows: 4_000_000 } },
      steps: [{ op: 'window', partitionBy: 'user_id', orderBy: 'create_ts', columns: { t: { fn: 'sum', column: 'tokens', range: ['7d', 0] } } }],
    });
    const controller = new AbortController();
    const out = join(dir, 'aborted.csv');
    const pending = cli(['--threads', '2', '--quiet', 'run', job, '-o', out], { signal: controller.signal });
    setTimeout(() => controller.abort(), 1500);
    const r = await pending;
    expect(r.code).toBe(130);
    expect(r.stderr).toMatch(/interrupted/);
    expect((await readdir(dir)).filter((f) => f.startsWith('aborted') || f.includes('sluice-tmp'))).toEqual([]);
  });
});
