/**
 * Sluice side of a case (runs inside the child process).
 *  memory: `tableFromIPC(readFileSync(file))` before the timing, then
 *          `engine.fromArrow(table).<query>.execute()` timed (end to end: partitioning,
 *          sorting, the kernel, the result as an Arrow table in input order).
 *  file:   `engine.readIpc|readParquet|readCsv(file).<query>.writeParquet|writeIpc(out)` timed.
 * The engine is created once, before the timing; the first run starts its workers.
 */
import { readFileSync, rmSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { RecordBatchReader, type Table, tableFromIPC } from 'apache-arrow';
import type { CaseResult, CaseSpec } from '../case.js';
import { Checker } from '../check.js';
import { fullGc, resetHwm, vmHwm, vmRss } from '../proc.js';
import type { Workload } from '../workloads.js';
import { checkParquetFile } from './duckdb-check.js';
import { type DataFrameLike, type EngineLike, loadSluice, missingSluiceApi, type RunStatsLike } from './sluice-api.js';
import { timeRuns } from './timing.js';

function source(engine: EngineLike, format: CaseSpec['format'], path: string): DataFrameLike {
  if (format === 'ipc') return engine.readIpc(path);
  if (format === 'parquet') return engine.readParquet(path);
  return engine.readCsv(path);
}

/**
 * Check and digest of an IPC output file, batch by batch. Through a FileHandle: apache-arrow
 * reads an IPC *file* from a byte stream by buffering all of it (3.8 GiB of RSS for a 1.8 GiB
 * file), from a handle by random access (one batch at a time).
 */
async function checkIpcFile(path: string, columns: string[], digest: boolean) {
  const checker = new Checker(columns, digest);
  const handle = await open(path);
  try {
    const reader = await RecordBatchReader.from(handle);
    for await (const b of reader) checker.add(b);
  } finally {
    await handle.close();
  }
  return checker.result();
}

export async function runSluice(spec: CaseSpec, w: Workload): Promise<CaseResult> {
  const s = await loadSluice();
  const engine = new s.Engine({ threads: spec.threads, ...spec.sluice });
  const label = `sluice ${spec.workload} ${spec.mode}${spec.mode === 'file' ? ` ${spec.format}` : ''} t${spec.threads}`;
  const columns = w.check(spec.params);
  try {
    const t0 = performance.now();
    const tables: Table[] = spec.mode === 'memory' ? spec.inputs.map((p) => tableFromIPC(readFileSync(p))) : [];
    const loadMs = performance.now() - t0;
    const inputs = (): DataFrameLike[] => (spec.mode === 'memory' ? tables.map((t) => engine.fromArrow(t)) : spec.inputs.map((p) => source(engine, spec.format, p)));
    const missing = missingSluiceApi(s, inputs()[0]!, w.needs ?? {});
    if (missing.length) return { status: 'not-implemented', message: `sluice: not implemented yet (${missing.join(', ')})`, runsMs: [], cpuMs: [] };
    const rssAfterLoad = vmRss(); const hwmLoad = vmHwm(); const reset = resetHwm();
    let result: CaseResult;
    if (spec.mode === 'memory') {
      const timed = await timeRuns({ ...spec, label }, () => w.sluice(s, inputs(), spec.params).execute(), () => undefined);
      const peak = vmHwm();
      const checker = new Checker(columns);
      for (const b of timed.last.table.batches) checker.add(b);
      result = { status: 'ok', runsMs: timed.runsMs, cpuMs: timed.cpuMs, loadMs, rssAfterLoad, peakRss: Math.max(hwmLoad, peak), queryPeakRss: reset ? peak : undefined, check: checker.result().check, stats: timed.last.stats };
    } else {
      const out = spec.out!;
      const write = (df: DataFrameLike): Promise<RunStatsLike> => (out.format === 'parquet' ? df.writeParquet(out.path, { compression: 'zstd' }) : df.writeIpc(out.path));
      const timed = await timeRuns({ ...spec, label }, () => write(w.sluice(s, inputs(), spec.params)), () => rmSync(out.path, { force: true }));
      const peak = vmHwm();
      // the output is on disk: give the engine's memory back before reading it for the checks
      await engine.close();
      await fullGc();
      const checked = out.format === 'parquet' ? { check: await checkParquetFile(out.path, columns), digest: undefined } : await checkIpcFile(out.path, columns, spec.digest ?? false);
      result = {
        status: 'ok', runsMs: timed.runsMs, cpuMs: timed.cpuMs, rssAfterLoad, peakRss: Math.max(hwmLoad, peak), queryPeakRss: reset ? peak : undefined,
        check: checked.check, digest: checked.digest, outBytes: statSync(out.path).size, stats: timed.last,
      };
      rmSync(out.path, { force: true });
    }
    return result;
  } finally {
    await engine.close(); // idempotent
  }
}
