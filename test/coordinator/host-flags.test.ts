/**
 * Host Node flags (issue 7.5): a process started with process-wide flags (--max-old-space-size,
 * --expose-gc, --stack-size, ...) runs threaded plans, from the build and from sources; a pool
 * that cannot start is a WorkerError with one line of text.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ThreadExecutor, workerEntry, workerFlags } from '../../src/coordinator/pool.js';
import { WorkerError } from '../../src/index.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DIST = join(ROOT, 'dist/index.js');
const MAIN = join(ROOT, 'dist/cli/main.js');
const HOST_FLAGS = ['--max-old-space-size=4096', '--expose-gc', '--stack-size=2000', '--max-semi-space-size=32', '--title=sluice-host-flags'];

// Scripts live under the package (node_modules/.cache) so that they resolve apache-arrow.
mkdirSync(join(ROOT, 'node_modules/.cache'), { recursive: true });
const dir = mkdtempSync(join(ROOT, 'node_modules/.cache/sluice-host-flags-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A script that runs a threaded window and an explode and prints what it got. */
function script(from: string): string {
  return `
import { Engine, sum } from ${JSON.stringify(from)};
import { tableFromArrays } from 'apache-arrow';
const t = tableFromArrays({ k: Int32Array.from({ length: 1000 }, (_, i) => i % 7), v: Float64Array.from({ length: 1000 }, (_, i) => i) });
const engine = new Engine({ threads: 2 });
try {
  const out = await engine.fromArrow(t).window({ partitionBy: 'k', orderBy: 'v', columns: { s: sum('v').rows('unbounded') } }).collect();
  const s = out.getChild('s').toArray();
  console.log(JSON.stringify({ rows: out.numRows, last: s[999], gc: typeof globalThis.gc }));
} finally {
  await engine.close();
}
`;
}

function node(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

// Row 999 has k = 999 % 7 = 5: the running sum of v over k = 5 up to 999 (every 7th value from 5).
const expectedLast = Array.from({ length: 1000 }, (_, i) => i).filter((i) => i % 7 === 5).reduce((a, b) => a + b, 0);

describe.skipIf(!existsSync(DIST))('from the build (dist/)', () => {
  it('a host started with process-wide flags runs threaded plans', () => {
    const file = join(dir, 'dist-host.mjs');
    writeFileSync(file, script(DIST));
    const r = node([...HOST_FLAGS, file]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ rows: 1000, last: expectedLast, gc: 'function' });
  });

  it('a host that forbids code generation from strings runs spilling relational plans and the CLI summaries', () => {
    // apache-arrow's vectorFromArray compiles builders with new Function: Sluice must not reach it
    const file = join(dir, 'dist-nocodegen.mjs');
    writeFileSync(
      file,
      `
import { Engine, sum, count } from ${JSON.stringify(DIST)};
import { makeData, Int32, Table, Vector } from 'apache-arrow';
const n = 200000;
const col = (f) => new Vector([makeData({ type: new Int32(), length: n, nullCount: 0, data: Int32Array.from({ length: n }, (_, i) => f(i)) })]);
const t = new Table({ k: col((i) => (i * 7919) % 5003), v: col((i) => i % 1000) });
const engine = new Engine({ threads: 2, memoryBudget: '8MiB' });
try {
  const g = await engine.fromArrow(t).groupBy('k').agg({ s: sum('v'), n: count() }).collect();
  const j = await engine.fromArrow(t).join(engine.fromArrow(t).distinct('k'), { on: 'k', how: 'semi' }).collect();
  console.log(JSON.stringify({ groups: g.numRows, semi: j.numRows }));
} finally {
  await engine.close();
}
`,
    );
    const r = node(['--disallow-code-generation-from-strings', file]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ groups: 5003, semi: 200000 });
    const cli = node(['--disallow-code-generation-from-strings', MAIN, '--threads', '0', 'demo', '--rows', '2000', '--quiet']);
    expect(cli.stderr).toBe('');
    expect(cli.status).toBe(0);
  });

  it('a host without WebAssembly (--jitless) imports Sluice and runs; Parquet is a PlanError WASM_UNAVAILABLE', () => {
    const file = join(dir, 'dist-jitless.mjs');
    writeFileSync(
      file,
      `
import { Engine, sum } from ${JSON.stringify(DIST)};
import { tableFromArrays } from 'apache-arrow';
const t = tableFromArrays({ k: Int32Array.from({ length: 1000 }, (_, i) => i % 7), v: Float64Array.from({ length: 1000 }, (_, i) => i) });
const engine = new Engine({ threads: 2 });
try {
  const out = await engine.fromArrow(t).window({ partitionBy: 'k', orderBy: 'v', columns: { s: sum('v').rows('unbounded') } }).collect();
  let parquet = 'written';
  try { await engine.fromArrow(t).writeParquet(${JSON.stringify(join(dir, 'jitless.parquet'))}); } catch (e) { parquet = e.name + ' ' + e.code; }
  console.log(JSON.stringify({ rows: out.numRows, parquet }));
} finally {
  await engine.close();
}
`,
    );
    const r = node(['--jitless', file]);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ rows: 1000, parquet: 'PlanError WASM_UNAVAILABLE' });
  });

  it('the CLI runs the demo with 2 threads under those flags', () => {
    const r = node([...HOST_FLAGS, MAIN, 'demo', '--rows', '2000', '--threads', '2', '--quiet']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/explode/);
  });

  it('pools closed while their workers still load the task modules never abort the process', () => {
    // Before the CommonJS loader (src/worker/entry-loader), piscina require()d the ES module
    // graph and 3 of ~100 pools closed 10-250 ms after a worker started ended in "FATAL ERROR:
    // v8::Module::IsGraphAsync" (SIGABRT; CI saw it on Ctrl-C). Closed at staggered times.
    const file = join(dir, 'dist-early-close.mjs');
    writeFileSync(
      file,
      `
import { ThreadExecutor } from ${JSON.stringify(join(ROOT, 'dist/coordinator/pool.js'))};
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
for (let ms = 0; ms < 300; ms += 12) {
  const pool = new ThreadExecutor(2);
  await sleep(ms);
  await pool.close();
}
console.log('closed');
`,
    );
    const r = node([file]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe('closed');
  });

  it('workers that cannot load the task modules fail the task with WORKER_START_FAILED and the reason', () => {
    const copy = join(dir, 'broken-dist');
    cpSync(join(ROOT, 'dist'), copy, { recursive: true });
    writeFileSync(join(copy, 'worker/entry.js'), "throw new Error('entry module broken on purpose');\n");
    const file = join(dir, 'dist-broken.mjs');
    writeFileSync(
      file,
      `
import { ThreadExecutor } from ${JSON.stringify(join(copy, 'coordinator/pool.js'))};
const pool = new ThreadExecutor(1);
try { await pool.run({ kind: 'fault', mode: 'throw' }); } catch (e) { console.log(JSON.stringify({ name: e.name, code: e.code, message: e.message })); }
await pool.close();
`,
    );
    const r = node([file]);
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { name: string; code: string; message: string };
    expect(out.name).toBe('WorkerError');
    expect(out.code).toBe('WORKER_START_FAILED');
    expect(out.message).toMatch(/entry module broken on purpose/);
  });

  it("under Node's permission model without --allow-worker: WORKER_START_FAILED saying what to do; --threads 0 runs", () => {
    const perm = ['--experimental-permission', '--allow-fs-read=*', '--allow-fs-write=*', '--no-warnings'];
    const r = node([...perm, MAIN, '--threads', '2', 'demo', '--rows', '2000', '--quiet']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/WORKER_START_FAILED.*--allow-worker.*--threads 0/);
    expect(node([...perm, MAIN, '--threads', '0', 'demo', '--rows', '2000', '--quiet']).status).toBe(0);
  });

  it('workers still get the host\'s per-thread flags (--cpu-prof writes one profile per thread)', () => {
    const file = join(dir, 'dist-prof.mjs');
    writeFileSync(file, script(DIST));
    const profDir = join(dir, 'prof');
    const r = node(['--expose-gc', '--cpu-prof', `--cpu-prof-dir=${profDir}`, file]);
    expect(r.status).toBe(0);
    // the main thread and both workers
    expect(readdirSync(profDir).filter((f) => f.endsWith('.cpuprofile')).length).toBeGreaterThanOrEqual(3);
  });
});

describe('from sources (tsx)', () => {
  it('a host started with process-wide flags and --import tsx runs threaded plans', () => {
    const file = join(dir, 'src-host.mts');
    writeFileSync(file, script(join(ROOT, 'src/index.ts')));
    const r = node([...HOST_FLAGS, '--import', 'tsx', file]);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ rows: 1000, last: expectedLast, gc: 'function' });
  });

  it('workerFlags keeps what workers accept and drops process-wide flags with their values', () => {
    expect(
      workerFlags(['--max-old-space-size=4096', '--enable-source-maps', '--expose-gc', '--title', 'x', '--conditions', 'node', '--stack-size=2000', '--no-warnings']),
    ).toEqual(['--enable-source-maps', '--conditions', 'node', '--no-warnings']);
    expect(workerFlags([])).toEqual([]);
  });

  it('under vitest the workers are given only flags they accept', () => {
    const { execArgv } = workerEntry();
    expect(execArgv?.slice(-2)).toEqual(['--import', 'tsx']);
  });
});

describe('a pool that cannot start', () => {
  it('is a WorkerError WORKER_START_FAILED with a one-line message', () => {
    let err: unknown;
    try {
      new ThreadExecutor(2, { url: workerEntry().url, execArgv: ['--expose-gc'] });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(WorkerError);
    expect((err as WorkerError).code).toBe('WORKER_START_FAILED');
    expect((err as Error).message).toMatch(/ERR_WORKER_INVALID_EXEC_ARGV/);
    expect((err as Error).message).not.toMatch(/\n/);
  });
});
