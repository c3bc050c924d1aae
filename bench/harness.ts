/**
 * Benchmark harness: argument parsing, warmup + K timed repeats (median and min), peak RSS per
 * measured system, and the printed result table.
 *
 * Peak RSS: Linux keeps a per-process high-water mark (VmHWM in /proc/self/status); writing "5"
 * to /proc/self/clear_refs resets it. Each measurement resets it first and reads it after, so
 * the number is the peak of the whole process (main thread, Sluice workers, DuckDB and Polars
 * native threads) while that system ran, including the input data already in memory.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// ---------------------------------------------------------------------------------------------
// arguments

export interface BenchArgs {
  quick: boolean;
  rows?: number;
  repeat: number;
  warmup: number;
  peersOnly: boolean;
  sluiceOnly: boolean;
  threads: number;
  /** names of measurements to skip or keep (substring match), from --only / --skip */
  only?: string[];
  skip?: string[];
  flags: Set<string>;
  values: Map<string, string>;
}

export function parseArgs(argv: string[]): { command: string; args: BenchArgs } {
  const flags = new Set<string>(); const values = new Map<string, string>();
  let command = 'all';
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      if (eq > 0) values.set(a.slice(2, eq), a.slice(eq + 1));
      else if (i + 1 < argv.length && !argv[i + 1]!.startsWith('--') && VALUE_FLAGS.has(a.slice(2))) values.set(a.slice(2), argv[++i]!);
      else flags.add(a.slice(2));
    } else command = a;
  }
  const num = (k: string): number | undefined => {
    const v = values.get(k); if (v === undefined) return undefined;
    const n = Number(v.replace(/_/g, '').replace(/[mM]$/, 'e6').replace(/[kK]$/, 'e3'));
    if (!Number.isFinite(n) || n < 0) throw new Error(`--${k} expects a number, got ${JSON.stringify(v)}`);
    return n;
  };
  const list = (k: string) => values.get(k)?.split(',').map((s) => s.trim()).filter(Boolean);
  const quick = flags.has('quick');
  return {
    command,
    args: {
      quick, rows: num('rows'), repeat: num('repeat') ?? (quick ? 2 : 3), warmup: num('warmup') ?? 1,
      peersOnly: flags.has('peers-only'), sluiceOnly: flags.has('sluice-only'), threads: num('threads') ?? 2,
      only: list('only'), skip: list('skip'), flags, values,
    },
  };
}

const VALUE_FLAGS = new Set(['rows', 'repeat', 'warmup', 'threads', 'only', 'skip', 'shape-rows', 'stream-rows', 'duckdb-fetch', 'right-rows', 'out']);

export function wanted(args: BenchArgs, name: string): boolean {
  if (args.only && !args.only.some((o) => name.includes(o))) return false;
  if (args.skip && args.skip.some((o) => name.includes(o))) return false;
  return true;
}

// ---------------------------------------------------------------------------------------------
// memory

let gcFn: (() => void) | undefined;
export function gc(): void {
  if (!gcFn) {
    setFlagsFromString('--expose-gc');
    gcFn = runInNewContext('gc') as () => void;
  }
  gcFn(); gcFn();
}

function statusKb(field: string, pid: number | 'self' = 'self'): number {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch { return 0; }
}
export const rssBytes = (pid: number | 'self' = 'self'): number => statusKb('VmRSS', pid);
export const peakRssBytes = (pid: number | 'self' = 'self'): number => statusKb('VmHWM', pid);
let canReset: boolean | undefined;
/** resets the process' peak-RSS mark; false when the kernel does not allow it */
export function resetPeakRss(): boolean {
  if (canReset === false) return false;
  try { writeFileSync('/proc/self/clear_refs', '5'); canReset = true; } catch { canReset = false; }
  return canReset;
}

export const fmtBytes = (b: number): string =>
  b >= 2 ** 30 ? `${(b / 2 ** 30).toFixed(2)} GiB` : `${(b / 2 ** 20).toFixed(0)} MiB`;
export const fmtS = (ms: number): string => (ms / 1000).toFixed(ms < 10_000 ? 3 : 2);

// ---------------------------------------------------------------------------------------------
// measurement

export interface Measurement {
  name: string;
  group: string;
  medianMs: number;
  minMs: number;
  runsMs: number[];
  /** median CPU time (user + system, all threads of the process) per run; less sensitive than
   * wall time to other processes competing for the cores */
  cpuMs?: number;
  peakRss: number;
  /** RSS before the first run (input data and earlier allocations included) */
  baseRss: number;
  /** free-form detail shown in the table (rows out, thread setting, ...) */
  note?: string;
  error?: string;
}

export interface RunOptions { warmup: number; repeat: number; }

/**
 * Runs `fn` warmup + repeat times; `fn` returns its own elapsed ms when it times only a part of
 * itself (e.g. excludes a setup step), otherwise the whole call is timed.
 */
export async function measure(
  group: string, name: string, opts: RunOptions, fn: () => Promise<number | void> | number | void, note?: string,
): Promise<Measurement> {
  const runs: number[] = [];
  const cpus: number[] = [];
  gc();
  const baseRss = rssBytes();
  const reset = resetPeakRss();
  let peak = 0;
  try {
    for (let i = 0; i < opts.warmup + opts.repeat; i++) {
      gc();
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      const r = await fn();
      const ms = typeof r === 'number' ? r : performance.now() - t0;
      const c = process.cpuUsage(c0);
      if (i >= opts.warmup) { runs.push(ms); cpus.push((c.user + c.system) / 1000); }
      peak = Math.max(peak, peakRssBytes());
      process.stderr.write(`  ${group} / ${name}: run ${i + 1}/${opts.warmup + opts.repeat} ${i < opts.warmup ? '(warmup) ' : ''}${fmtS(ms)} s\n`);
    }
  } catch (e) {
    const err = e as Error;
    process.stderr.write(`  ${group} / ${name}: FAILED ${err.stack ?? err}\n`);
    return { name, group, medianMs: NaN, minMs: NaN, runsMs: runs, peakRss: peak, baseRss, note, error: String(err.message ?? err).split('\n')[0] };
  }
  if (!reset) peak = Math.max(peak, baseRss);
  return { name, group, medianMs: median(runs), minMs: Math.min(...runs), runsMs: runs, cpuMs: median(cpus), peakRss: peak, baseRss, note };
}

export function median(xs: number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

// ---------------------------------------------------------------------------------------------
// printing

export function printTable(title: string, ms: Measurement[], ratios: Array<[string, Measurement | undefined, Measurement | undefined]>): string {
  const rows: string[][] = [['group', 'system', 'median s', 'min s', 'CPU s', 'peak RSS', 'RSS before', 'note']];
  for (const m of ms) {
    rows.push([m.group, m.name, m.error ? 'FAILED' : fmtS(m.medianMs), m.error ? '' : fmtS(m.minMs), m.cpuMs === undefined || m.error ? '' : fmtS(m.cpuMs), m.peakRss ? fmtBytes(m.peakRss) : '',
      m.baseRss ? fmtBytes(m.baseRss) : '', m.error ?? m.note ?? '']);
  }
  let out = `\n## ${title}\n\n` + mdTable(rows);
  const rr: string[][] = [['ratio', 'wall (median / median)', 'CPU (median / median)']];
  for (const [label, a, b] of ratios) {
    if (!a || !b || a.error || b.error) continue;
    rr.push([label, `${(a.medianMs / b.medianMs).toFixed(2)}x`, a.cpuMs && b.cpuMs ? `${(a.cpuMs / b.cpuMs).toFixed(2)}x` : '']);
  }
  if (rr.length > 1) out += '\n' + mdTable(rr);
  out += `\nload average at the end: ${loadavg().map((x) => x.toFixed(2)).join(' ')} (other processes on the machine skew timings)\n`;
  process.stdout.write(out);
  return out;
}

function mdTable(rows: string[][]): string {
  const w = rows[0]!.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length)));
  const line = (r: string[]) => '| ' + r.map((x, c) => (x ?? '').padEnd(w[c]!)).join(' | ') + ' |\n';
  return line(rows[0]!) + '| ' + w.map((n) => '-'.repeat(n)).join(' | ') + ' |\n' + rows.slice(1).map(line).join('');
}

export function header(args: BenchArgs, extra: Record<string, string | number>): void {
  const kv = Object.entries(extra).map(([k, v]) => `${k}=${v}`).join(' ');
  process.stdout.write(`\n# Sluice bench (node ${process.version}, ${availableParallelism()} cores, load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}, warmup ${args.warmup}, repeat ${args.repeat}) ${kv}\n`);
}
