/**
 * Messages between the coordinator and the workers: plain data only (structured clone).
 * Column data travels as descriptors of SharedArrayBuffer regions, never as copies.
 */
import type { ErrorEnvelope } from '../errors.js';
import type { BatchDesc, BufRef, ColumnDesc, SchemaDesc } from './column.js';

/** A run of rows of one partition: key/payload columns plus the global row id of each row. */
export interface ChunkDesc {
  length: number;
  rowIds: ColumnDesc; // uint32
  columns: ColumnDesc[];
}

/** Where a partition's rows are: chunks in memory and/or spill files (Arrow IPC streams). */
export interface PartitionInput {
  chunks: ChunkDesc[];
  spillFiles: string[];
  /** Column names/types of `columns` (spill files also carry `__row_id` first). */
  schema: SchemaDesc;
}

export interface PartitionTask {
  kind: 'partition';
  /** Consecutive batches of the columns to route (already in shared memory), routed as one slab. */
  batches: BatchDesc[];
  /** Indices into batch.columns of the hash keys; empty = everything to partition 0. */
  keyColumns: number[];
  /** Range partitioning instead of hashing: see src/worker/partition-task.ts. */
  ranges?: unknown;
  partitions: number;
  seed: number;
  rowBase: number;
  /** Where to put the partitioned columns first (a pooled buffer the coordinator owns). */
  outputBuffer?: SharedArrayBuffer;
}

export interface PartitionResult {
  /** Shared memory the regions live in (for the memory budget). */
  bytes: number;
  /** One entry per non-empty partition. */
  parts: Array<{ partition: number; chunk: ChunkDesc }>;
}

/** Which column of the spilled/chunked partition plays which role is op-specific (see ops' resolved specs). */
export interface WindowTask {
  kind: 'window';
  input: PartitionInput;
  partitionBy: number[];
  /** Positions among the routed columns; directions and NULL order come from `window`. */
  orderBy: number[];
  measures: number[];
  /** ResolvedWindow (src/ops/window-spec.ts), plain data. */
  window: unknown;
  naive: boolean;
  /** Outputs indexed by global row id, written in place (disjoint rows per task); `nulls`: 1 = NULL. */
  outputs: Array<{ values: BufRef; nulls: BufRef }>;
}

export interface AsofTask {
  kind: 'asof';
  left: PartitionInput;
  right: PartitionInput;
  /** ResolvedAsof-derived plain settings, see src/worker/asof-task.ts. */
  spec: unknown;
  /** Int32Array indexed by global left row id: matched global right row id or -1. */
  matches: BufRef;
}

export interface RowLocalTask {
  kind: 'rowlocal';
  batch: BatchDesc;
  rowBase: number;
  ops: RowOp[];
}

/** Row-local operations with expressions already bound (src/expr/bind: plain data). */
export type RowOp =
  | { kind: 'select'; items: Array<{ name: string; expr: unknown }> }
  /** `replace` is the index of the column a new value replaces, or -1 to append. */
  | { kind: 'withColumns'; columns: Array<{ name: string; expr: unknown; replace: number }> }
  | { kind: 'filter'; predicate: unknown }
  /** `expr` is null for a direct column input (then `column` names it). */
  | { kind: 'explode'; inputs: Array<{ column: number | null; expr: unknown }>; spec: unknown };

export interface RowLocalResult {
  length: number;
  /** In ArrayBuffers transferred with the reply (listed in `transfer`). */
  columns: ColumnDesc[];
  transfer?: ArrayBuffer[];
}

/** Used by tests: a task that fails or crashes on purpose. */
export interface FaultTask {
  kind: 'fault';
  mode: 'throw' | 'exit' | 'hang';
}

export type Task = PartitionTask | WindowTask | AsofTask | RowLocalTask | RouteTask | FaultTask;

export type TaskReply<T> = { ok: true; value: T; ms: number } | { ok: false; error: ErrorEnvelope };

/** Range routing (ASOF join without `by` keys): rows of one chunk to key ranges. */
export interface RouteTask {
  kind: 'route';
  input: PartitionInput;
  /** Position of the key among the routed columns. */
  keyPos: number;
  /** AsofKeyPlan (src/ops/asof-keys), plain data. */
  key: unknown;
  /** Sorted splitter keys (raw key type of the left side): range i holds keys k with s[i-1] <= k < s[i]. */
  splitters: ColumnDesc;
  partitions: number;
  /** Also report each range's least and greatest valid key rows (the right side's boundary rows). */
  extremes: boolean;
  outputBuffer?: SharedArrayBuffer;
}

export interface RouteResult extends PartitionResult {
  /** Per non-empty range: positions within its chunk of the least key row (first of equal keys) and the greatest (last of equal keys); -1 when no valid key. */
  extremes: Array<{ partition: number; min: number; max: number }>;
}
