/**
 * What each suite measures: the list of cases (system x workload x mode x parameters) and the
 * curves they form, for full runs and for `--quick` (tiny inputs, a few cases per suite: a
 * smoke run of the whole harness in well under a minute, not a measurement).
 *
 * Sections:
 *  - memory: in-memory Arrow input -> in-memory result; Sluice at the main thread count and on
 *    one thread, Polars, DuckDB loaded through the appender and from Parquet.
 *  - file:   file -> Parquet for every input format of the workload, all three systems.
 *  - curve:  one parameter varied (rows, threads, partitions, a hot key, frame width, ASOF
 *    side sizes), the rest at the defaults, memory mode.
 *  - spill:  issue 8: readIpc -> window -> writeIpc at several memory budgets and sizes, ASOF
 *    at 64 MiB, DuckDB with a memory limit on the same job from Parquet; and issue 4's
 *    streaming readIpc -> explode -> writeIpc of 20M rows.
 */
import os from 'node:os';
import type { InFormat, Mode } from './case.js';
import { SYSTEMS, type System, workload, type WorkloadParams } from './workloads.js';

export const SUITES = ['window', 'asof', 'explode', 'relational', 'spill'] as const;
export type SuiteName = (typeof SUITES)[number];
export type Section = 'memory' | 'file' | 'curve' | 'spill';

export interface CaseDef {
  suite: SuiteName;
  section: Section;
  workload: string;
  system: System;
  mode: Mode;
  format: InFormat;
  duckdbLoad?: 'appender' | 'parquet';
  threads: number;
  params: WorkloadParams;
  sluice?: { memoryBudget?: string; partitions?: number };
  duckdb?: { memoryLimit?: string };
  outFormat?: 'parquet' | 'ipc';
  digest?: boolean;
  repeat?: number;
  curve?: { id: string; x: number; label: string };
  /** short description shown in tables (budget, partitions...) */
  variant?: string;
}

export interface CurveDef {
  id: string;
  suite: SuiteName;
  workload: string;
  title: string;
  axis: string;
  logX: boolean;
  /** y is seconds, or seconds per million rows for the rows / widths curves */
  y: 'seconds' | 'per-million-rows';
}

export interface PlanOptions {
  quick: boolean;
  /** base input rows (default 10M, explode 2M; quick 100k / 20k) */
  rows?: number;
  threads: number;
  systems: System[];
  workloads?: string[];
  /** only these curves (ids as in the report); runs them even with --workloads */
  curves?: string[];
  sections: Section[];
  formats: InFormat[];
  spillSizes?: number[];
}

export interface Plan { cases: CaseDef[]; curves: CurveDef[] }

const M = 1_000_000;
const SUITE_WORKLOADS: Record<Exclude<SuiteName, 'spill'>, string[]> = {
  window: ['window1', 'window6', 'lag-lead-rank', 'stddev'],
  asof: ['asof', 'asof-nearest', 'asof-str'],
  explode: ['explode'],
  relational: ['groupby-100k', 'groupby-5m', 'join-int-inner', 'join-int-left', 'join-str-inner', 'join-str-left', 'sort', 'distinct'],
};
const QUICK_WORKLOADS: Record<Exclude<SuiteName, 'spill'>, string[]> = {
  window: ['window1', 'stddev'], asof: ['asof-str'], explode: ['explode'], relational: ['groupby-100k'],
};
/** --quick runs one file-to-file format per workload, each format once */
const QUICK_FILE_FORMAT: Record<string, InFormat> = { window1: 'csv', 'asof-str': 'parquet', explode: 'ipc' };

export const baseRows = (name: string, o: Pick<PlanOptions, 'quick' | 'rows'>): number => {
  const kernel = workload(name).kernel;
  if (kernel === 'explode') return o.rows ? Math.max(1, Math.round(o.rows / 5)) : o.quick ? 20_000 : 2 * M;
  return o.rows ?? (o.quick ? 100_000 : 10 * M);
};

function threadCounts(quick: boolean): number[] {
  const cores = os.availableParallelism();
  if (quick) return [1, 2];
  const out = [1, 2];
  for (let t = 4; t <= cores; t *= 2) out.push(t);
  if (cores > 2 && !out.includes(cores)) out.push(cores);
  return out;
}

export function planSuite(suite: SuiteName, o: PlanOptions): Plan {
  const cases: CaseDef[] = []; const curves: CurveDef[] = [];
  const want = (s: System) => o.systems.includes(s);
  const add = (c: Omit<CaseDef, 'suite'>) => { if (want(c.system)) cases.push({ suite, ...c }); };
  if (suite === 'spill') { planSpill(o, add); return { cases, curves }; }

  const names = (o.quick ? QUICK_WORKLOADS : SUITE_WORKLOADS)[suite].filter((n) => !o.workloads || o.workloads.includes(n));
  for (const name of names) {
    const w = workload(name);
    const params: WorkloadParams = { rows: baseRows(name, o) };
    if (o.sections.includes('memory')) {
      add({ section: 'memory', workload: name, system: 'sluice', mode: 'memory', format: 'ipc', threads: o.threads, params });
      if (o.threads !== 1 && (!o.quick || name === 'window1')) add({ section: 'memory', workload: name, system: 'sluice', mode: 'memory', format: 'ipc', threads: 1, params });
      add({ section: 'memory', workload: name, system: 'polars', mode: 'memory', format: 'ipc', threads: o.threads, params });
      add({ section: 'memory', workload: name, system: 'duckdb', mode: 'memory', format: 'ipc', duckdbLoad: 'appender', threads: o.threads, params });
      if (!o.quick) add({ section: 'memory', workload: name, system: 'duckdb', mode: 'memory', format: 'parquet', duckdbLoad: 'parquet', threads: o.threads, params });
    }
    if (o.sections.includes('file')) {
      const formats = w.formats.filter((f) => o.formats.includes(f) && (!o.quick || QUICK_FILE_FORMAT[name] === f));
      for (const format of formats) for (const system of SYSTEMS) add({ section: 'file', workload: name, system, mode: 'file', format, threads: o.threads, params, outFormat: 'parquet' });
    }
  }
  if (o.sections.includes('curve') && (!o.workloads || o.curves)) planCurves(suite, o, add, curves);
  return { cases, curves };
}

function planCurves(suite: SuiteName, o: PlanOptions, add: (c: Omit<CaseDef, 'suite'>) => void, curves: CurveDef[]): void {
  const q = o.quick;
  const curve = (c: CurveDef, systems: System[], points: Array<{ x: number; label: string; params: WorkloadParams; threads?: number; partitions?: number }>) => {
    if (o.curves && !o.curves.includes(c.id)) return;
    curves.push(c);
    for (const p of points) for (const system of systems) {
      add({
        section: 'curve', workload: c.workload, system, mode: 'memory', format: 'ipc', duckdbLoad: system === 'duckdb' ? 'appender' : undefined,
        threads: p.threads ?? o.threads, params: p.params, curve: { id: c.id, x: p.x, label: p.label },
        ...(p.partitions ? { sluice: { partitions: p.partitions }, variant: `partitions ${p.partitions}` } : {}),
      });
    }
  };
  const fmt = (n: number) => (n >= M ? `${n / M}M` : `${n / 1000}k`);
  const rowsPoints = (xs: number[], extra: Partial<WorkloadParams> = {}) => xs.map((r) => ({ x: r, label: fmt(r), params: { rows: r, ...extra } }));
  const threadsPoints = (rows: number) => threadCounts(q).map((t) => ({ x: t, label: String(t), params: { rows }, threads: t }));
  // --quick: every system on the window rows curve, Sluice alone on the others
  const all = SYSTEMS;
  const some: System[] = q ? ['sluice'] : SYSTEMS;
  const base = (name: string) => baseRows(name, o);
  const rowsSeries = q ? [50_000, 100_000] : [1 * M, 10 * M, 30 * M];
  const partitionSeries = q ? [2, 8] : [2, 4, 8, 16, 64, 256];
  const hotSeries = q ? [0, 0.3] : [0, 0.1, 0.3];

  if (suite === 'window') {
    curve({ id: 'window-rows', suite, workload: 'window1', title: 'window1: input rows', axis: 'rows', logX: true, y: 'per-million-rows' }, all, rowsPoints(rowsSeries));
    if (!q) {
      curve({ id: 'window-threads', suite, workload: 'window1', title: 'window1: threads', axis: 'threads', logX: false, y: 'seconds' }, all, threadsPoints(base('window1')));
      curve({ id: 'window-partitions', suite, workload: 'window1', title: 'window1: Sluice hash partitions', axis: 'partitions', logX: true, y: 'seconds' }, ['sluice'],
        partitionSeries.map((p) => ({ x: p, label: String(p), params: { rows: base('window1') }, partitions: p })));
      curve({ id: 'window-hot', suite, workload: 'window1', title: 'window1: share of rows on one user', axis: 'hot key share', logX: false, y: 'seconds' }, all,
        hotSeries.map((h) => ({ x: h, label: `${Math.round(h * 100)}%`, params: { rows: base('window1'), ...(h ? { hot: h } : {}) } })));
    }
    const widths = q ? [3, 1000] : [3, 10, 30, 100, 300, 1000];
    const wrows = q ? 100_000 : base('window1');
    curve({ id: 'window-widths', suite, workload: 'window1', title: 'window: one sum, ROWS frame width (prefix path: flat)', axis: 'frame width (rows)', logX: true, y: 'seconds' }, some,
      widths.map((w) => ({ x: w, label: String(w), params: { rows: wrows, widths: [w] } })));
    if (!q) {
      curve({ id: 'stddev-widths', suite, workload: 'stddev', title: 'window: stddev, ROWS frame width', axis: 'frame width (rows)', logX: true, y: 'seconds' }, all,
        widths.map((w) => ({ x: w, label: String(w), params: { rows: wrows, widths: [w] } })));
    }
  }
  if (suite === 'asof') {
    const name = 'asof';
    if (!q) {
      curve({ id: 'asof-rows', suite, workload: name, title: 'ASOF backward: rows per side', axis: 'rows per side', logX: true, y: 'per-million-rows' }, all, rowsPoints(rowsSeries));
      curve({ id: 'asof-threads', suite, workload: name, title: 'ASOF backward: threads', axis: 'threads', logX: false, y: 'seconds' }, all, threadsPoints(base(name)));
      curve({ id: 'asof-partitions', suite, workload: name, title: 'ASOF backward: Sluice hash partitions', axis: 'partitions', logX: true, y: 'seconds' }, ['sluice'],
        partitionSeries.map((p) => ({ x: p, label: String(p), params: { rows: base(name) }, partitions: p })));
      curve({ id: 'asof-hot', suite, workload: name, title: 'ASOF backward: share of rows on one symbol', axis: 'hot key share', logX: false, y: 'seconds' }, all,
        hotSeries.map((h) => ({ x: h, label: `${Math.round(h * 100)}%`, params: { rows: base(name), ...(h ? { hot: h } : {}) } })));
    }
    const big = q ? 100_000 : base(name); const small = Math.round(big / 10);
    const sizes: Array<[number, number]> = [[big, small], [big, big], [small, big]];
    curve({ id: 'asof-ratio', suite, workload: name, title: 'ASOF backward: left x right rows', axis: 'left / right rows', logX: true, y: 'seconds' }, some,
      sizes.map(([l, r]) => ({ x: l / r, label: `${fmt(l)} x ${fmt(r)}`, params: { rows: l, rightRows: r } })));
  }
  if (suite === 'explode') {
    curve({ id: 'explode-rows', suite, workload: 'explode', title: 'explode: input rows', axis: 'input rows', logX: true, y: 'per-million-rows' }, some,
      rowsPoints(q ? [10_000, 20_000] : [M / 2, 2 * M, 6 * M]));
    if (!q) curve({ id: 'explode-threads', suite, workload: 'explode', title: 'explode: threads', axis: 'threads', logX: false, y: 'seconds' }, all, threadsPoints(base('explode')));
  }
  if (suite === 'relational' && !q) {
    curve({ id: 'groupby-threads', suite, workload: 'groupby-100k', title: 'groupBy (rows/100 groups): threads', axis: 'threads', logX: false, y: 'seconds' }, all, threadsPoints(base('groupby-100k')));
    curve({ id: 'join-threads', suite, workload: 'join-int-inner', title: 'inner join on int64: threads', axis: 'threads', logX: false, y: 'seconds' }, all, threadsPoints(base('join-int-inner')));
  }
}

/** budgets of the spill suite; 'none' is a budget far above the machine's memory */
export const NO_BUDGET = '1024GiB';

function planSpill(o: PlanOptions, add: (c: Omit<CaseDef, 'suite'>) => void): void {
  const sizes = o.spillSizes ?? (o.quick ? [100_000] : [10 * M, 30 * M, 100 * M]);
  const budgets: Array<[string, string]> = o.quick ? [['none', NO_BUDGET], ['64MiB', '64MiB']] : [['none', NO_BUDGET], ['256MiB', '256MiB'], ['64MiB', '64MiB']];
  const duck: Array<[string, string | undefined]> = o.quick ? [['256MB', '256MB']] : [['none', undefined], ['256MB', '256MB']];
  const sluice = o.systems.includes('sluice');
  const duckdb = o.systems.includes('duckdb');
  for (const rows of sizes) {
    const params: WorkloadParams = { rows };
    for (const [label, memoryBudget] of sluice ? budgets : []) {
      add({ section: 'spill', workload: 'window1', system: 'sluice', mode: 'file', format: 'ipc', threads: o.threads, params, sluice: { memoryBudget }, outFormat: 'ipc', digest: true, repeat: 1, variant: `budget ${label}` });
    }
    for (const [label, memoryLimit] of duckdb ? duck : []) {
      add({ section: 'spill', workload: 'window1', system: 'duckdb', mode: 'file', format: 'parquet', threads: o.threads, params, ...(memoryLimit ? { duckdb: { memoryLimit } } : {}), outFormat: 'parquet', repeat: 1, variant: `memory_limit ${label}` });
    }
  }
  const asofRows = o.quick ? 100_000 : 10 * M;
  // The ASOF rows are short and their 2x target is read as a ratio: medians of 3 on a noisy machine.
  const asofRepeat = o.quick ? 1 : 3;
  for (const [label, memoryBudget] of sluice ? ([['none', NO_BUDGET], ['64MiB', '64MiB']] as const) : []) {
    add({ section: 'spill', workload: 'asof', system: 'sluice', mode: 'file', format: 'ipc', threads: o.threads, params: { rows: asofRows }, sluice: { memoryBudget }, outFormat: 'ipc', digest: true, repeat: asofRepeat, variant: `budget ${label}` });
  }
  if (duckdb) add({ section: 'spill', workload: 'asof', system: 'duckdb', mode: 'file', format: 'parquet', threads: o.threads, params: { rows: asofRows }, duckdb: { memoryLimit: '256MB' }, outFormat: 'parquet', repeat: asofRepeat, variant: 'memory_limit 256MB' });
  // issue 4: a streaming readIpc -> explode -> writeIpc holds a few batches whatever the input size
  if (sluice) add({ section: 'spill', workload: 'explode', system: 'sluice', mode: 'file', format: 'ipc', threads: o.threads, params: { rows: o.quick ? 20_000 : 20 * M }, outFormat: 'ipc', repeat: 1, variant: 'default budget' });
}
