/** Sluice's public surface (API.md). */
export { Engine, type EngineOptions, type CsvOptions, type NdjsonOptions, type Paths, type SchemaOption, type ColumnType } from './coordinator/engine.js';
export { DataFrame, GroupedDataFrame, type ActionOptions, type RunStream, type Aggregate, type IpcWriteOptions, type ParquetWriteOptions } from './coordinator/dataframe.js';
export { Expr, col, lit, expr, array, split, slice, cardinality, sequence, coalesce, caseWhen } from './expr/builders.js';
export {
  WindowFn, sum, count, avg, min, max, stddev, stddevPop, variance, varPop, first, last, nthValue,
  countDistinct, lag, lead, rowNumber, rank, denseRank, percentRank, cumeDist, ntile,
} from './expr/aggregates.js';
export { SluiceError, PlanError, ExecutionError, InputError, WorkerError, AbortError } from './errors.js';
export type { RunStats, Progress, Phase } from './types/plan.js';
export type { AsofOptions } from './ops/asof-spec.js';
export type { WindowOptions } from './ops/window-spec.js';
export type { JoinOptions, JoinHow } from './ops/join-spec.js';
export type { SortKeyInput } from './ops/sort-spec.js';
