/**
 * One measured case: a system running one workload in one mode, in a child process of its own
 * (bench/child.ts), so its VmHWM is its own and one system's memory never inflates another's.
 * The parent passes the spec as JSON in argv and reads one `RESULT {json}` line from stdout.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Check } from './check.js';
import { vmRss } from './proc.js';
import type { RunStatsLike } from './systems/sluice-api.js';
import type { System, WorkloadParams } from './workloads.js';

export type Mode = 'memory' | 'file';
export type InFormat = 'ipc' | 'parquet' | 'csv';

export interface CaseSpec {
  system: System;
  workload: string;
  params: WorkloadParams;
  /** memory: the inputs are loaded before the timing and the result stays in memory;
   * file: read the input files, run, write `out`, all timed */
  mode: Mode;
  /** file mode: the input format; memory mode: the file the input is loaded from (always ipc,
   * except DuckDB's `read_parquet` load) */
  format: InFormat;
  /** DuckDB in memory: appender from Arrow (default) or `CREATE TABLE AS SELECT * FROM read_parquet` */
  duckdbLoad?: 'appender' | 'parquet';
  threads: number;
  /** input paths in `format`, one per role of the workload's `inputs` */
  inputs: string[];
  /** file mode output */
  out?: { path: string; format: 'parquet' | 'ipc' };
  repeat: number;
  warmup: number;
  sluice?: { memoryBudget?: string; partitions?: number; spillDir?: string };
  duckdb?: { memoryLimit?: string; tempDir?: string };
  /** compute the order-sensitive digest of the output (file mode) */
  digest?: boolean;
}

export type CaseStatus = 'ok' | 'failed' | 'not-implemented' | 'no-equivalent' | 'skipped';

export interface CaseResult {
  status: CaseStatus;
  message?: string;
  runsMs: number[];
  /** process CPU (user + system, all threads) per timed run */
  cpuMs: number[];
  loadMs?: number;
  /** RSS after the inputs are loaded (memory mode) or at start (file mode) */
  rssAfterLoad?: number;
  /** VmHWM of the child at the end: load and every run included */
  peakRss?: number;
  /** VmHWM from the end of loading to the end (reset through clear_refs), when available */
  queryPeakRss?: number;
  check?: Check;
  digest?: string;
  outBytes?: number;
  /** Sluice: the RunStats of the last run */
  stats?: RunStatsLike;
  version?: string;
  /** CPU time of the whole child process (all threads), for the machine-noise estimate */
  processCpuMs?: number;
}

export interface CaseRecord extends CaseResult {
  id: string;
  suite: string;
  spec: CaseSpec;
  medianMs?: number;
  minMs?: number;
  medianCpuMs?: number;
  /** wall time of the child process, data loading and checks included */
  childMs: number;
}

export function median(xs: number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

// Children run compiled JS (dist-bench, `npm run bench`): under tsx, `--import tsx` would be in
// process.execArgv, which Sluice hands to its worker threads, and every worker would start tsx
// (about a second per run start). From sources (tsx) the child runs through tsx as well.
const FROM_TS = import.meta.url.endsWith('.ts');
const CHILD = fileURLToPath(new URL(FROM_TS ? './child.ts' : './child.js', import.meta.url));
// --expose-gc from the start: setting it at run time (v8.setFlagsFromString, after V8 is up) is
// undefined behaviour by V8's own account, and the 100M-row window at 64 MiB ran 1.4-2.8x slower
// after it (183-372 s against 129-137 s without).
const CHILD_ARGS = FROM_TS ? ['--expose-gc', '--import', 'tsx', CHILD] : ['--expose-gc', CHILD];

/** children still running: an interrupted benchmark ends them instead of leaving them behind */
const live = new Set<ReturnType<typeof spawn>>();
export function killChildren(): void {
  for (const c of live) c.kill('SIGKILL');
}

/**
 * Runs the case in a child process; a crash, a timeout or a missing RESULT line is a failed
 * case. The child's RSS is sampled: past `maxRssBytes` it is stopped (the machine is shared:
 * better a failed case than the kernel's OOM killer picking someone else's process).
 */
export async function runCase(spec: CaseSpec, timeoutMs: number, maxRssBytes: number): Promise<CaseResult & { childMs: number }> {
  const t0 = performance.now();
  const env: NodeJS.ProcessEnv = { ...process.env };
  // Polars reads its pool size once, when it loads
  if (spec.system === 'polars') env.POLARS_MAX_THREADS = String(spec.threads);
  const child = spawn(process.execPath, [...CHILD_ARGS, JSON.stringify(spec)], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = ''; let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => { stdout += d; });
  child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr += d; if (process.env.BENCH_VERBOSE) process.stderr.write(d); });
  live.add(child);
  let stopped: string | undefined;
  let sampledPeak = 0;
  const timer = setTimeout(() => { stopped = `timed out after ${(timeoutMs / 1000).toFixed(0)} s`; child.kill('SIGKILL'); }, timeoutMs);
  const sampler = setInterval(() => {
    const rss = vmRss(child.pid!);
    if (Number.isFinite(rss)) sampledPeak = Math.max(sampledPeak, rss);
    if (rss > maxRssBytes && !stopped) { stopped = `stopped at ${(rss / 2 ** 30).toFixed(1)} GiB RSS, past the ${(maxRssBytes / 2 ** 30).toFixed(1)} GiB limit (80% of the memory available when the case started)`; child.kill('SIGKILL'); }
  }, 200);
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on('close', (c, s) => resolve([c, s])));
  clearTimeout(timer); clearInterval(sampler);
  live.delete(child);
  const childMs = performance.now() - t0;
  const line = stdout.split('\n').find((l) => l.startsWith('RESULT '));
  if (line) return { ...(JSON.parse(line.slice(7)) as CaseResult), childMs };
  const tail = stderr.trim().split('\n').slice(-3).join(' | ');
  const how = stopped ?? (signal ? `killed by ${signal}${signal === 'SIGKILL' ? ' (out of memory?)' : ''}` : `exited with ${code}`);
  return { status: 'failed', message: `${how}${tail ? `: ${tail}` : ''}`, runsMs: [], cpuMs: [], peakRss: sampledPeak || undefined, childMs };
}
