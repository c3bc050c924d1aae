/**
 * Executes a window stage on the shared blocking path (./partitioned.ts): ingest (hash
 * partitioning by the PARTITION BY keys; one partition without them), one task per non-empty
 * partition (sort once + kernel), outputs routed by row id, then the input replayed in order
 * with the new columns attached; or, with preserveOrder: false, each partition's rows handed on
 * with their new columns as its task ends (./kernel-rows).
 */
import * as A from 'apache-arrow';
import { fieldToArrow, schemaFromArrow, schemaToArrow } from '../columns/arrow-types.js';
import { appendColumns, batchFromColumns } from '../columns/shared.js';
import { ExecutionError } from '../errors.js';
import type { ResolvedWindow } from '../ops/window-spec.js';
import { kernelBytesPerRow } from '../ops/window.js';
import type { FieldDesc } from '../types/column.js';
import type { OutputRouting, RowsOutput } from '../types/tasks.js';
import { fixedWidth, outputRowBytes, rowBytesOf, rowBytesOfSchema } from './column-widths.js';
import { stageBytes, stageRows } from './execute.js';
import type { Stage } from './planner.js';
import { ingest } from './ingest.js';
import { streamKernelRows } from './kernel-rows.js';
import {
  bytesForTasks,
  dataBytesOf,
  PARTITION_SKEW,
  loadBytesOf,
  denseOutputBytes,
  FIRST_LEVEL_PARTITIONS,
  OutputRanges,
  partitionCount,
  partitionsForDirect,
  replayWithOutputs,
  runKernels,
  stableLoadBytesOf,
  type KernelJob,
  type KernelOperator,
  type PartitionUnit,
} from './partitioned.js';
import { LOAN_SLACK, type RunContext } from './run-context.js';
import { WindowRanges } from './window-ranges.js';
import { GROUP_IDS_BYTES_PER_ROW, groupIdsFirstTableBytes } from '../worker/group-ids.js';

const MAX_ROWS = 0xffffffff;

/**
 * Rows a window task is cut to when the input is big enough: a task computes its columns one
 * at a time over its rows, and at this size one column's prefix, values and output stay in a
 * core's L2 cache (2 MiB here). 10M rows, 2 threads, interleaved runs: window6 (30 columns) in
 * 81 partitions 7.95-8.48 s, in 128 7.07-7.69 s; window1 (5 columns) 24 -> 128 partitions the
 * same 1.86-2.03 s, VmHWM 1.78 -> 1.66 GiB (smaller tasks' scratch).
 */
const WINDOW_TASK_ROWS = 1 << 16;

export interface WindowStagePlan {
  resolved: ResolvedWindow;
  /** false: rows leave in partition order, without the retained input and its replay (./kernel-rows). */
  preserveOrder: boolean;
  /** Input column indices routed to the workers, and the roles' positions among them. */
  routed: number[];
  partitionPos: number[];
  orderPos: number[];
  measurePos: number[];
}

/** `first`: columns routed ahead of the roles' (every input column, for rows outputs). */
export function planWindowRouting(resolved: ResolvedWindow, preserveOrder = true, first: number[] = []): WindowStagePlan {
  const routed: number[] = [...first];
  const pos = (index: number): number => {
    let p = routed.indexOf(index);
    if (p < 0) p = routed.push(index) - 1;
    return p;
  };
  const partitionPos = resolved.partitionBy.map((c) => pos(c.index));
  const orderPos = resolved.orderBy.map((c) => pos(c.index));
  const measurePos = resolved.measures.map((c) => pos(c.index));
  return { resolved, preserveOrder, routed, partitionPos, orderPos, measurePos };
}

/**
 * Scratch a window task needs for `rows` rows whose routed columns take `inputBytes`: the
 * partition made contiguous, group ids and their table, the sort (words, ping-pong buffers,
 * permutation), permuted keys and measures, frames, prefixes and the outputs in sorted order.
 */
function windowScratch(r: ResolvedWindow, rows: number, inputBytes: number): number {
  const permuted = [...r.orderBy, ...r.measures].reduce((s, c) => s + (fixedWidth(c.type) || 16) + 1, 0);
  const outputs = r.columns.reduce((s, c) => s + (fixedWidth(c.type) || 16) + 2, 0);
  return inputBytes + rows * (48 + GROUP_IDS_BYTES_PER_ROW * groupedColumns(r) + kernelBytesPerRow(r) + permuted + outputs);
}

/** Group ids a window task computes (src/worker/group-ids): of the partition keys, and of each countDistinct measure's values. */
function groupedColumns(r: ResolvedWindow): number {
  return (r.partitionBy.length > 0 ? 1 : 0) + new Set(r.columns.filter((c) => c.fn === 'countDistinct').map((c) => c.measure)).size;
}

/** A window task's scratch for `rows` rows: windowScratch and the first tables of its group ids (sized by the rows: a tiny partition's are tiny). */
function taskScratch(r: ResolvedWindow, rows: number, inputBytes: number): number {
  return windowScratch(r, rows, inputBytes) + groupedColumns(r) * groupIdsFirstTableBytes(rows);
}

/** Scratch of a range task (src/coordinator/window-ranges) loading `rows` rows (its range and both neighbours) of `loadBytes`: it copies the three into one, and the halo checks recompute frames. */
function rangeScratch(r: ResolvedWindow, rows: number, loadBytes: number): number {
  return taskScratch(r, rows, 2 * loadBytes) + rows * (8 * r.columns.length + 16);
}

/**
 * What a range task's loans come to (windowJob's scratch and output), from stable load bytes:
 * `rows` loaded, `ownRows` of them its own with `ownDataBytes` of columns.
 */
function rangeTaskBytes(r: ResolvedWindow, outRowBytes: number, regionSlack: number | null): (rows: number, stableLoadBytes: number, ownRows: number, ownDataBytes: number) => number {
  return (rows, stableLoadBytes, ownRows, ownDataBytes) =>
    rangeScratch(r, rows, stableLoadBytes) + (regionSlack === null ? 0 : ownDataBytes + regionSlack) + ownRows * outRowBytes + 2 * LOAN_SLACK;
}

/**
 * Hash partitions sized by the budget: each task fits its share, and when all the outputs are
 * fixed-width, enough that they can stay direct next to the input exchange.
 */
async function windowPartitions(ctx: RunContext, plan: WindowStagePlan, inputStage: Stage, routedRowBytes: number, outRowBytes: number, collected: boolean): Promise<number> {
  const { resolved } = plan;
  const bytes = await stageBytes(inputStage);
  const inputRowBytes = rowBytesOfSchema(inputStage.schema);
  const base = partitionCount(ctx, bytes, inputRowBytes, windowScratch(resolved, 1, routedRowBytes) + outRowBytes);
  const widths = resolved.columns.map((c) => fixedWidth(c.type));
  const rows = (await stageRows(inputStage)) ?? (bytes === null ? null : Math.ceil(bytes / Math.max(1, inputRowBytes)));
  if (rows === null) return base;
  // Tasks of at most WINDOW_TASK_ROWS rows where the first routing allows it.
  const cacheSized = Math.max(base, Math.min(FIRST_LEVEL_PARTITIONS, Math.ceil(rows / WINDOW_TASK_ROWS)));
  if (!widths.every((w) => w > 0)) return cacheSized;
  // Collected: the dense outputs are the result's columns, outside the budget.
  const denseBytes = collected ? 0 : denseOutputBytes(widths, rows);
  return partitionsForDirect(ctx, cacheSized, rows, rows * routedRowBytes, denseBytes, windowScratch(resolved, 1, routedRowBytes));
}

/**
 * With many hash partitions of a known input, the exchange need only leave room for the loans
 * of the tasks in flight (one partition a thread, PARTITION_SKEW over the mean, loaded from a
 * spill at worst), not the run's whole headroom (half the budget): window6's 680 MB of routed
 * input at 1 GiB then stays in memory (peak tracked 940 MiB) instead of spilling 656 MB. A
 * partition far over the mean (a hot key) still gets its loan: the exchange is spilled for it.
 */
async function plannedHeadroom(ctx: RunContext, plan: WindowStagePlan, inputStage: Stage, partitions: number, routedRowBytes: number): Promise<number | undefined> {
  if (partitions < PLANNED_HEADROOM_PARTITIONS) return undefined;
  const rows = await stageRows(inputStage);
  if (rows === null) return undefined;
  const partRows = Math.ceil((PARTITION_SKEW * rows) / partitions);
  const perTask = taskScratch(plan.resolved, partRows, 2 * partRows * routedRowBytes) + 2 * LOAN_SLACK;
  if (perTask > ctx.limits.taskBytes) return undefined;
  return bytesForTasks(ctx, new Array<number>(ctx.concurrency).fill(perTask));
}

/** Hash partitions from which a window plans its exchange's headroom (fewer: tasks too big to plan for). */
const PLANNED_HEADROOM_PARTITIONS = 32;

export async function* execWindow(
  ctx: RunContext,
  plan: WindowStagePlan,
  input: AsyncIterable<A.RecordBatch>,
  inputStage: Stage,
  owned: boolean,
  reread: (() => AsyncIterable<A.RecordBatch>) | null = null,
  /** The caller keeps every output batch (see runStage). */
  collected = false,
): AsyncGenerator<A.RecordBatch> {
  if (!plan.preserveOrder) return yield* execWindowRows(ctx, plan, input, inputStage, owned);
  const { resolved } = plan;
  const inputSchema = inputStage.schema;
  const outRowBytes = outputRowBytes(resolved.columns);
  const routedRowBytes = plan.routed.reduce((s, i) => s + rowBytesOf(schemaFromArrow(inputSchema)[i]!.type), 4);
  const partitions = resolved.partitionBy.length === 0 ? 1 : await windowPartitions(ctx, plan, inputStage, routedRowBytes, outRowBytes, collected);
  ctx.stats.partitions = partitions;
  const headroom = await plannedHeadroom(ctx, plan, inputStage, partitions, routedRowBytes);
  const { store, exchange, rows } = await ingest(ctx, input, inputSchema, {
    name: 'window',
    routed: plan.routed,
    hashKeys: plan.partitionPos,
    partitions,
    owned,
    retain: true,
    spillTail: true,
    reread,
    ...(headroom !== undefined ? { headroom } : {}),
  });
  const outFields: FieldDesc[] = resolved.columns.map((c) => ({ name: c.name, type: c.type, nullable: c.nullable }));
  const taskNeeds = exchange.nonEmpty().map((p) => taskScratch(resolved, exchange.rowsOf(p), loadBytesOf(exchange, p)));
  let out: OutputRanges | null = null;
  try {
    if (rows > MAX_ROWS) {
      throw new ExecutionError('TOO_MANY_ROWS', `window: ${rows} input rows exceed the ${MAX_ROWS} rows one window stage can number`);
    }
    out = new OutputRanges(ctx, 'window', outFields, rows, false, bytesForTasks(ctx, taskNeeds), collected, true);
    const ranges = new WindowRanges(ctx, plan, (rows, loadBytes) => taskScratch(resolved, rows, 2 * loadBytes), rangeTaskBytes(resolved, outRowBytes, null));
    const op: KernelOperator = {
      name: 'window',
      // Rows split again by the PARTITION BY keys keep every group whole.
      splitKeys: plan.partitionPos.length > 0 ? [plan.partitionPos] : null,
      measured: [0],
      oversized: (unit, need) => ranges.cut(unit, need),
      job: (unit) => windowJob(ctx, plan, ranges, unit, outRowBytes, null),
    };
    await runKernels(ctx, op, exchange.nonEmpty().map((p) => ({ sides: [exchange], p, level: 0 })), out);
    exchange.release();

    const fields = resolved.columns.map((c) => fieldToArrow({ name: c.name, type: c.type, nullable: c.nullable }));
    for await (const batch of replayWithOutputs(store!, out, (b, cols) => appendColumns(b, fields, cols))) {
      ctx.checkAbort();
      yield batch;
    }
  } finally {
    exchange.release();
    store!.release();
    out?.release();
  }
}

/**
 * preserveOrder: false: every input column goes through the exchange (nothing retained) and each
 * partition's task loads its rows into its output region and returns them in their own order
 * (row ids) with the new columns appended, handed on partition by partition (./kernel-rows).
 */
async function* execWindowRows(
  ctx: RunContext,
  stagePlan: WindowStagePlan,
  input: AsyncIterable<A.RecordBatch>,
  inputStage: Stage,
  owned: boolean,
): AsyncGenerator<A.RecordBatch> {
  const { resolved } = stagePlan;
  const inputSchema = inputStage.schema;
  const width = inputSchema.fields.length;
  // Every input column first, in order: the region's columns are then the output schema's.
  const plan = planWindowRouting(resolved, false, Array.from({ length: width }, (_, i) => i));
  const outRowBytes = outputRowBytes(resolved.columns);
  const rowBytes = rowBytesOfSchema(inputSchema);
  const partitions =
    resolved.partitionBy.length === 0 ? 1 : partitionCount(ctx, await stageBytes(inputStage), rowBytes, windowScratch(resolved, 1, rowBytes) + rowBytes + outRowBytes);
  ctx.stats.partitions = partitions;
  const { exchange, rows } = await ingest(ctx, input, inputSchema, {
    name: 'window',
    routed: plan.routed,
    hashKeys: plan.partitionPos,
    partitions,
    owned,
    retain: false,
  });
  try {
    if (rows > MAX_ROWS) {
      throw new ExecutionError('TOO_MANY_ROWS', `window: ${rows} input rows exceed the ${MAX_ROWS} rows one window stage can number`);
    }
    const regionSlack = 32 * (width + resolved.columns.length + 1);
    const ranges = new WindowRanges(ctx, plan, (rows, loadBytes) => taskScratch(resolved, rows, 2 * loadBytes), rangeTaskBytes(resolved, outRowBytes, regionSlack));
    const op: KernelOperator<RowsOutput> = {
      name: 'window',
      splitKeys: plan.partitionPos.length > 0 ? [plan.partitionPos] : null,
      measured: [0],
      oversized: (unit, need) => ranges.cut(unit, need),
      job: (unit) => windowJob(ctx, plan, ranges, unit, outRowBytes, regionSlack),
    };
    const schema = schemaToArrow(resolved.outputSchema);
    for await (const b of streamKernelRows(ctx, op, exchange.nonEmpty().map((p) => ({ sides: [exchange], p, level: 0 })))) {
      ctx.checkAbort();
      yield batchFromColumns(schema, b.columns, b.length);
    }
  } finally {
    exchange.release();
  }
}

/**
 * The task of one unit (a hash partition, or a sort range of one too big for a task:
 * ./window-ranges); `regionSlack`: a rows output's (preserveOrder: false: the unit's rows are
 * loaded into its region, and whether to split is decided from its stable estimate), or null.
 */
function windowJob<O extends OutputRouting | RowsOutput>(
  ctx: RunContext,
  plan: WindowStagePlan,
  ranges: WindowRanges,
  { sides: [ex], p }: PartitionUnit,
  outRowBytes: number,
  regionSlack: number | null,
): KernelJob<O> {
  const { resolved } = plan;
  const n = ex!.rowsOf(p);
  const range = ranges.jobOf(ex!, p);
  // A rows output's region: every routed column and the row ids, and the new columns.
  const inRegion = regionSlack === null ? 0 : dataBytesOf(ex!, p);
  const outputBytes = inRegion + n * outRowBytes + (regionSlack ?? 0);
  // Scratch from load bytes: a partition's rows loaded into the region need none for the copy.
  const scratchOf = (loadBytes: number): number => (range ? rangeScratch(resolved, range.rows, loadBytes) : taskScratch(resolved, n, loadBytes - inRegion));
  return {
    rows: range ? range.rows : n,
    scratchBytes: scratchOf(range ? range.inputBytes : loadBytesOf(ex!, p)),
    outputBytes,
    ...(regionSlack === null ? {} : { stableBytes: scratchOf(range ? range.stableInputBytes : stableLoadBytesOf(ex!, p)) + outputBytes + 2 * LOAN_SLACK }),
    build: (out, scratch) => ({
      kind: 'window',
      input: ex!.inputFor(p),
      partitionBy: plan.partitionPos,
      orderBy: plan.orderPos,
      measures: plan.measurePos,
      window: resolved,
      naive: ctx.config.windowAlgorithm === 'naive',
      out,
      ...(range ? { halo: range.halo() } : {}),
      scratch,
    }),
    done: (res) => {
      if (res.rows !== n) throw new ExecutionError('INTERNAL', `window: a ${range ? 'range' : 'partition'} held ${n} rows but its task returned ${res.rows}; refusing to return a partial result`);
      if (range) range.done(res.carry);
      else ex!.drop(p);
    },
  };
}
