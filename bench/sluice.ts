/**
 * Loads the BUILT Sluice package (dist/index.js) at run time.
 *
 * The import is dynamic so that the benchmark files typecheck and the peers run
 * (`--peers-only`) before `dist/` exists. The types below are the slice of API.md the
 * benchmarks use, kept structural on purpose.
 */
import type { RecordBatch, Table } from 'apache-arrow';

export interface FrameAgg {
  rows(preceding: number | bigint | 'unbounded', following?: number | bigint | 'unbounded'): FrameAgg;
  range(preceding: number | bigint | string, following?: number | bigint | string): FrameAgg;
}
export interface DataFrameLike {
  window(spec: { partitionBy?: string | string[]; orderBy: string | string[]; columns: Record<string, FrameAgg> }): DataFrameLike;
  asofJoin(right: DataFrameLike, opts: { on: string | [string, string]; by?: string | string[]; direction?: 'backward' | 'forward' | 'nearest'; tolerance?: number | bigint | string }): DataFrameLike;
  explode(columns: string | string[], opts?: { outputColumn?: string | string[]; ignoreEmptyAndNull?: boolean; ordinality?: string }): DataFrameLike;
  collect(opts?: { signal?: AbortSignal }): Promise<Table>;
  execute(): Promise<{ table: Table; stats: RunStatsLike }>;
  writeIpc(path: string): Promise<RunStatsLike>;
}
export interface RunStatsLike {
  rowsIn: number; rowsOut: number; threads: number; partitions: number; spilledBytes: number;
  spillFiles: number; peakTrackedBytes: number; phases: Record<string, number>;
}
export interface EngineLike {
  fromArrow(src: Table | RecordBatch | RecordBatch[]): DataFrameLike;
  readIpc(path: string): DataFrameLike;
  close(): Promise<void>;
}
export interface EngineOptions {
  threads?: number;
  memoryBudget?: number | string;
  partitions?: number;
  /** to be added by the lead: 'naive' selects the per-frame fold (benchmark baseline) */
  windowAlgorithm?: 'prefix' | 'naive';
}
export interface SluiceModule {
  Engine: new (opts?: EngineOptions) => EngineLike;
  sum(column: string): FrameAgg;
  count(column?: string): FrameAgg;
  avg(column: string): FrameAgg;
  min(column: string): FrameAgg;
  max(column: string): FrameAgg;
  col(name: string): unknown;
}

/** the built package; SLUICE_MODULE=/path/to/module.js overrides it (to test the harness with a stub) */
export const SLUICE_URL = process.env.SLUICE_MODULE
  ? new URL(process.env.SLUICE_MODULE, `file://${process.cwd()}/`)
  : new URL('../dist/index.js', import.meta.url);

export async function loadSluice(): Promise<SluiceModule> {
  try {
    return (await import(SLUICE_URL.href)) as SluiceModule;
  } catch (e) {
    const err = e as Error;
    throw new Error(`cannot load the built Sluice package at ${SLUICE_URL.pathname} (run \`npm run build\`, or pass --peers-only): ${err.message}`);
  }
}
