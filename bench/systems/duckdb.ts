/**
 * DuckDB side of a case (child process), `threads` set on the instance.
 *  memory: the inputs loaded into DuckDB tables before the timing, through the appender from
 *          the Arrow table (`duckdbLoad: 'appender'`) or natively from Parquet
 *          (`CREATE TABLE AS SELECT * FROM read_parquet`); then the query materialized with
 *          `CREATE TEMP TABLE res AS <query>` timed (dropped between runs, untimed).
 *  file:   `COPY (<query over read_parquet(...) | read_csv(...)>) TO out (FORMAT parquet,
 *          COMPRESSION zstd)` timed; DuckDB reads no Arrow IPC natively, so IPC input is read
 *          with apache-arrow and appended inside the timing.
 */
import { readFileSync, rmSync, statSync } from 'node:fs';
import { tableFromIPC } from 'apache-arrow';
import type { CaseResult, CaseSpec } from '../case.js';
import { resetHwm, vmHwm, vmRss } from '../proc.js';
import type { Workload } from '../workloads.js';
import { appendArrowTable } from './duckdb-load.js';
import { checkParquetFile, duckdbCheck, sqlString } from './duckdb-check.js';
import { timeRuns } from './timing.js';

export async function runDuckdb(spec: CaseSpec, w: Workload): Promise<CaseResult> {
  if (!w.duckdb) return { status: 'no-equivalent', message: w.notes?.duckdb ?? 'no DuckDB equivalent', runsMs: [], cpuMs: [] };
  const { DuckDBInstance, version: duckVersion } = await import('@duckdb/node-api');
  const config: Record<string, string> = { threads: String(spec.threads) };
  if (spec.duckdb?.memoryLimit) config.memory_limit = spec.duckdb.memoryLimit;
  if (spec.duckdb?.tempDir) config.temp_directory = spec.duckdb.tempDir;
  const db = await DuckDBInstance.create(':memory:', config);
  const conn = await db.connect();
  const version = `duckdb ${duckVersion()}`;
  const label = `duckdb ${spec.workload} ${spec.mode}${spec.mode === 'file' ? ` ${spec.format}` : ` ${spec.duckdbLoad ?? 'appender'}`} t${spec.threads}`;
  const columns = w.check(spec.params);
  const sql = w.duckdb.bind(w);
  const tables = w.inputs.map((role) => `in_${role}`);
  const load = async (how: 'appender' | 'parquet') => {
    for (let i = 0; i < spec.inputs.length; i++) {
      if (how === 'appender') await appendArrowTable(conn, tables[i]!, tableFromIPC(readFileSync(spec.inputs[i]!)));
      else await conn.run(`CREATE OR REPLACE TABLE ${tables[i]} AS SELECT * FROM read_parquet(${sqlString(spec.inputs[i]!)})`);
    }
  };
  try {
    if (spec.mode === 'memory') {
      const t0 = performance.now();
      await load(spec.duckdbLoad ?? 'appender');
      const loadMs = performance.now() - t0;
      const rssAfterLoad = vmRss(); const hwmLoad = vmHwm(); const reset = resetHwm();
      const query = sql(tables, spec.params);
      const timed = await timeRuns({ ...spec, label }, async () => { await conn.run(`CREATE TEMP TABLE res AS ${query}`); }, async () => { await conn.run('DROP TABLE IF EXISTS res'); });
      const peak = vmHwm();
      return {
        status: 'ok', runsMs: timed.runsMs, cpuMs: timed.cpuMs, loadMs, rssAfterLoad, peakRss: Math.max(hwmLoad, peak), queryPeakRss: reset ? peak : undefined,
        check: await duckdbCheck(conn, 'res', columns), version,
      };
    }
    const out = spec.out!;
    if (out.format !== 'parquet') throw new Error('duckdb: file runs write Parquet');
    const rels = spec.format === 'ipc' ? tables : spec.inputs.map((p) => (spec.format === 'parquet' ? `read_parquet(${sqlString(p)})` : `read_csv(${sqlString(p)})`));
    const copy = `COPY (${sql(rels, spec.params)}) TO ${sqlString(out.path)} (FORMAT parquet, COMPRESSION zstd)`;
    const rssAfterLoad = vmRss(); const hwmLoad = vmHwm(); const reset = resetHwm();
    const timed = await timeRuns({ ...spec, label }, async () => {
      if (spec.format === 'ipc') await load('appender');
      await conn.run(copy);
      if (spec.format === 'ipc') for (const t of tables) await conn.run(`DROP TABLE ${t}`);
    }, () => rmSync(out.path, { force: true }));
    const peak = vmHwm();
    const check = await checkParquetFile(out.path, columns);
    const outBytes = statSync(out.path).size;
    rmSync(out.path, { force: true });
    return { status: 'ok', runsMs: timed.runsMs, cpuMs: timed.cpuMs, rssAfterLoad, peakRss: Math.max(hwmLoad, peak), queryPeakRss: reset ? peak : undefined, check, outBytes, version };
  } finally {
    conn.closeSync(); db.closeSync();
  }
}
