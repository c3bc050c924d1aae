/**
 * One Sluice workload run for profiling (scripts/profile.mjs runs this under `node --cpu-prof`,
 * or 0x with --0x):
 *
 *   profile-job.ts <workload> [--rows N] [--threads T] [--mode memory|file] [--format ipc|parquet|csv] [--out parquet|ipc] [--runs K] [--memory-budget B] [--prepare]
 *
 * The data set is the benchmark's own (bench/gen, generated into .bench-data/data when
 * missing, before the profiled part matters); memory mode loads the IPC file into an Arrow
 * table first, file mode reads the file and writes Parquet (or `--out ipc`: Arrow IPC, as the
 * spill benchmark does) to a temporary path. `--runs K`
 * repeats the run (the first one includes the worker start); `--prepare` only makes the data.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tableFromIPC } from 'apache-arrow';
import { ensureDataset, type FileFormat } from './gen/write.js';
import { fullGc } from './proc.js';
import { ROOT } from './paths.js';
import { loadSluice } from './systems/sluice-api.js';
import { baseRows } from './suites.js';
import { workload } from './workloads.js';

const argv = process.argv.slice(2);
const opt = (k: string): string | undefined => { const i = argv.indexOf(`--${k}`); return i >= 0 ? argv[i + 1] : undefined; };
const count = (v: string | undefined): number | undefined => (v === undefined ? undefined : Number(v.replace(/[mM]$/, 'e6').replace(/[kK]$/, 'e3')));
const name = argv.find((a, i) => !a.startsWith('--') && !(i > 0 && argv[i - 1]!.startsWith('--') && argv[i - 1] !== '--prepare')) ?? 'window1';
const w = workload(name);
const rows = count(opt('rows')) ?? baseRows(name, { quick: false });
const threads = count(opt('threads')) ?? 2;
const mode = opt('mode') ?? 'memory';
const format = (opt('format') ?? 'ipc') as FileFormat;
const runs = count(opt('runs')) ?? 1;
const outFormat = opt('out') ?? 'parquet';
if (outFormat !== 'parquet' && outFormat !== 'ipc') throw new Error(`--out: parquet or ipc, not ${outFormat}`);
const params = { rows };

const files = await ensureDataset(join(ROOT, '.bench-data', 'data'), w.data(params), [format]);
const paths = w.inputs.map((role) => files.files[role]![format]!);
if (argv.includes('--prepare')) process.exit(0);
const s = await loadSluice();
const budget = opt('memory-budget');
const engine = new s.Engine({ threads, ...(budget ? { memoryBudget: budget } : {}) });
const tables = mode === 'memory' ? paths.map((p) => tableFromIPC(readFileSync(p))) : [];
const out = join(ROOT, '.bench-data', `profile-out-${process.pid}.${outFormat === 'ipc' ? 'arrow' : 'parquet'}`);
try {
  for (let i = 0; i < runs; i++) {
    // As the benchmark does between runs (bench/systems/timing): the last result let go first.
    await fullGc();
    const inputs = mode === 'memory' ? tables.map((t) => engine.fromArrow(t)) : paths.map((p) => (format === 'ipc' ? engine.readIpc(p) : format === 'parquet' ? engine.readParquet(p) : engine.readCsv(p)));
    const t0 = performance.now();
    const df = w.sluice(s, inputs, params);
    const rowsOut = mode === 'memory' ? (await df.collect()).numRows : (await (outFormat === 'ipc' ? df.writeIpc(out) : df.writeParquet(out))).rowsOut;
    process.stderr.write(`${name} (${mode}${mode === 'file' ? ` ${format} -> ${outFormat}` : ''}, ${rows} rows, threads ${threads}): ${rowsOut} rows out in ${((performance.now() - t0) / 1000).toFixed(3)} s\n`);
  }
} finally {
  rmSync(out, { force: true });
  await engine.close();
}
