/**
 * Polars side of a case (child process; POLARS_MAX_THREADS is set by the parent before
 * nodejs-polars loads).
 *  memory: `pl.readIPC(file).rechunk()` before the timing (Polars' native reader, one chunk
 *          per column, as a Polars user holds a frame), then the workload's lazy plan over
 *          `df.lazy()` and `collectSync()` timed: sorts included, result materialized.
 *  file:   `pl.scanIPC|scanParquet|scanCSV(file)` -> plan -> `sinkParquet(out, zstd)` timed.
 */
import { rmSync, statSync } from 'node:fs';
import type { CaseResult, CaseSpec } from '../case.js';
import type { Check } from '../check.js';
import { resetHwm, vmHwm, vmRss } from '../proc.js';
import type { LazyFrame, PL, Workload } from '../workloads.js';
import { checkParquetFile } from './duckdb-check.js';
import { timeRuns } from './timing.js';

type Frame = ReturnType<PL['readIPC']>;

const INT = /^(Int|UInt)\d+$/;
const FLOAT = /^Float\d+$/;

function polarsCheck(pl: PL, df: Frame, columns: string[]): Check {
  const kinds = columns.map((c) => {
    const t = String(df.getColumn(c).dtype.variant ?? df.getColumn(c).dtype);
    return INT.test(t) ? 'int' : FLOAT.test(t) ? 'float' : 'other';
  });
  const exprs = [pl.len().alias('__rows')];
  columns.forEach((c, i) => {
    exprs.push(pl.col(c).count().alias(`${c}__n`));
    if (kinds[i] === 'int') exprs.push(pl.col(c).cast(pl.Float64).sum().alias(`${c}__s`));
    if (kinds[i] === 'float') exprs.push(pl.col(c).sum().alias(`${c}__s`));
  });
  const rec = df.select(...exprs).toRecords()[0] as Record<string, unknown>;
  const check: Check = { rows: Number(rec.__rows), columns: {} };
  columns.forEach((c, i) => {
    check.columns[c] = { count: Number(rec[`${c}__n`]) };
    if (kinds[i] !== 'other') { check.columns[c]!.sum = Number(rec[`${c}__s`] ?? 0); check.columns[c]!.int = kinds[i] === 'int'; }
  });
  return check;
}

export async function runPolars(spec: CaseSpec, w: Workload): Promise<CaseResult> {
  if (!w.polars) return { status: 'no-equivalent', message: w.notes?.polars ?? 'no Polars equivalent', runsMs: [], cpuMs: [] };
  const { default: pl } = await import('nodejs-polars');
  const version = `nodejs-polars ${String(pl.version)}`;
  const label = `polars ${spec.workload} ${spec.mode}${spec.mode === 'file' ? ` ${spec.format}` : ''} t${spec.threads}`;
  const columns = w.check(spec.params);
  const query = w.polars.bind(w);
  if (spec.mode === 'memory') {
    const t0 = performance.now();
    const frames: Frame[] = spec.inputs.map((p) => pl.readIPC(p).rechunk());
    const loadMs = performance.now() - t0;
    const rssAfterLoad = vmRss(); const hwmLoad = vmHwm(); const reset = resetHwm();
    const timed = await timeRuns({ ...spec, label }, () => query(pl, frames.map((f) => f.lazy() as LazyFrame), spec.params).collectSync(), () => undefined);
    const peak = vmHwm();
    return {
      status: 'ok', runsMs: timed.runsMs, cpuMs: timed.cpuMs, loadMs, rssAfterLoad, peakRss: Math.max(hwmLoad, peak), queryPeakRss: reset ? peak : undefined,
      check: polarsCheck(pl, timed.last, columns), version,
    };
  }
  const out = spec.out!;
  if (out.format !== 'parquet') throw new Error('polars: file runs write Parquet');
  const scan = (p: string): LazyFrame => (spec.format === 'ipc' ? pl.scanIPC(p) : spec.format === 'parquet' ? pl.scanParquet(p) : pl.scanCSV(p));
  const rssAfterLoad = vmRss(); const hwmLoad = vmHwm(); const reset = resetHwm();
  const timed = await timeRuns({ ...spec, label }, () => { query(pl, spec.inputs.map(scan), spec.params).sinkParquet(out.path, { compression: 'zstd' }).collectSync(); }, () => rmSync(out.path, { force: true }));
  const peak = vmHwm();
  const check = await checkParquetFile(out.path, columns);
  const outBytes = statSync(out.path).size;
  rmSync(out.path, { force: true });
  return { status: 'ok', runsMs: timed.runsMs, cpuMs: timed.cpuMs, rssAfterLoad, peakRss: Math.max(hwmLoad, peak), queryPeakRss: reset ? peak : undefined, check, outBytes, version };
}
