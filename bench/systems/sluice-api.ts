/**
 * The slice of Sluice's public API (API.md) the benchmarks use, typed structurally, and the
 * loader of the BUILT package (dist/index.js) at run time: the import is dynamic so the harness
 * typechecks and the peers run before `dist/` exists, and so functions that other engineers are
 * still adding (lag, rank, stddev, groupBy, join, sort, distinct) are detected at run time
 * (`missingSluiceApi`) instead of failing the benchmark.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { RecordBatch, Table } from 'apache-arrow';
import { ROOT } from '../paths.js';

export interface WindowFnLike {
  rows(preceding: number | bigint | 'unbounded', following?: number | bigint | 'unbounded'): WindowFnLike;
  range(preceding: number | bigint | string, following?: number | bigint | string): WindowFnLike;
}
export type AggLike = WindowFnLike;

export interface RunStatsLike {
  rowsIn: number; rowsOut: number; threads: number; partitions: number; spilledBytes: number;
  spillFiles: number; peakTrackedBytes: number; wallMs?: number; phases: Record<string, number>;
}

export interface DataFrameLike {
  window(spec: { partitionBy?: string | string[]; orderBy: string | string[]; columns: Record<string, WindowFnLike> }): DataFrameLike;
  asofJoin(right: DataFrameLike, opts: { on: string; by?: string | string[]; direction?: 'backward' | 'forward' | 'nearest' }): DataFrameLike;
  explode(columns: string | string[], opts?: { outputColumn?: string | string[] }): DataFrameLike;
  select(...exprs: string[]): DataFrameLike;
  collect(): Promise<Table>;
  execute(): Promise<{ table: Table; stats: RunStatsLike }>;
  writeIpc(path: string): Promise<RunStatsLike>;
  writeParquet(path: string, opts?: { compression?: 'zstd' }): Promise<RunStatsLike>;
  // relational verbs (issue 12): may be missing on a build that predates them
  groupBy?(...keys: string[]): { agg(aggs: Record<string, AggLike>): DataFrameLike };
  join?(right: DataFrameLike, opts: { on: string; how?: 'inner' | 'left' }): DataFrameLike;
  sort?(...keys: string[]): DataFrameLike;
  distinct?(...names: string[]): DataFrameLike;
}

export interface EngineOptionsLike {
  threads?: number;
  memoryBudget?: number | string;
  spillDir?: string;
  partitions?: number;
}

export interface EngineLike {
  fromArrow(src: Table | RecordBatch | RecordBatch[]): DataFrameLike;
  readIpc(path: string): DataFrameLike;
  readParquet(path: string): DataFrameLike;
  readCsv(path: string): DataFrameLike;
  close(): Promise<void>;
}

export interface SluiceModule {
  Engine: new (opts?: EngineOptionsLike) => EngineLike;
  sum(column: string): WindowFnLike;
  count(column?: string): WindowFnLike;
  max(column: string): WindowFnLike;
  // window functions of issue 11: may be missing
  stddev?(column: string): WindowFnLike;
  lag?(column: string, n?: number): WindowFnLike;
  lead?(column: string, n?: number): WindowFnLike;
  rowNumber?(): WindowFnLike;
  rank?(): WindowFnLike;
}

/** the built package; SLUICE_MODULE=/path/to/index.js loads another build */
export const sluiceUrl = (): URL => (process.env.SLUICE_MODULE
  ? new URL(process.env.SLUICE_MODULE, `file://${process.cwd()}/`)
  : pathToFileURL(join(ROOT, 'dist', 'index.js')));

export async function loadSluice(): Promise<SluiceModule> {
  const url = sluiceUrl();
  try {
    return (await import(url.href)) as SluiceModule;
  } catch (e) {
    throw new Error(`cannot load the built Sluice package at ${url.pathname} (run \`npm run build\`, or pass --peers-only): ${(e as Error).message}`);
  }
}

/** names of the module functions / DataFrame methods a workload needs that this build lacks */
export function missingSluiceApi(s: SluiceModule, df: DataFrameLike, needs: { functions?: string[]; methods?: string[] }): string[] {
  const mod = s as unknown as Record<string, unknown>;
  const obj = df as unknown as Record<string, unknown>;
  return [
    ...(needs.functions ?? []).filter((f) => typeof mod[f] !== 'function'),
    ...(needs.methods ?? []).filter((m) => typeof obj[m] !== 'function').map((m) => `DataFrame.${m}`),
  ];
}
