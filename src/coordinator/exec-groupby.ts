/**
 * groupBy(...).agg(...), agg() and distinct() on the shared blocking path (./partitioned.ts):
 * ingest (hash partitioning by the group keys; one partition without keys), one group-by task
 * per non-empty partition (a partition too big for one task is split again by a re-mixed hash
 * of the keys, so groups stay whole), one output row per group keyed by its first row id into
 * a sparse output exchange, then the ranges in key order: groups come out in order of their
 * first row in the input, whatever the partitioning. Nothing is replayed: the task routes the
 * keys and measures (distinct: every column) and outputs every column itself.
 *
 * Every aggregate sees its whole group in one task, in input order, so results never depend
 * on slab or partition boundaries (float sums included: window's canonical order).
 */
import type * as A from 'apache-arrow';
import { schemaFromArrow, schemaToArrow } from '../columns/arrow-types.js';
import { batchFromColumns } from '../columns/shared.js';
import { intValues, valueAt } from '../ops/dense-int-keys.js';
import type { KeyColumn } from '../types/keys.js';
import { ExecutionError } from '../errors.js';
import type { ResolvedGroupBy } from '../ops/groupby-spec.js';
import type { GroupByTask, GroupOutputSpec, OutputRouting, PartitionInput, WindowGroupByTask } from '../types/tasks.js';
import type { WindowStagePlan } from './exec-window.js';
import { fixedWidth, outputRowBytes, rowBytesOf, rowBytesOfSchema } from './column-widths.js';
import { stageBytes } from './execute.js';
import type { Stage } from './planner.js';
import { mergePartials } from './agg-merge.js';
import { densePlanOf, denseRange, MIN_ROWS_PER_SLOT, runDenseGroupBy, type KeyRange } from './exec-groupby-dense.js';
import { ingest, type PartialIngest } from './ingest.js';
import { runAll } from './scheduler.js';
import type { Exchange } from '../shuffle/exchange.js';
import { FIRST_TABLE_KEYS } from '../shuffle/hash.js';
import { groupIdsFirstTableBytes, groupIdsValueKeyed } from '../worker/group-ids.js';
import { loadBytesOf, OutputRanges, partitionsNeeded, runKernels, type KernelOperator, type PartitionUnit } from './partitioned.js';
import { LOAN_SLACK, type RunContext } from './run-context.js';

const MAX_ROWS = 0xffffffff;

export interface GroupByStagePlan {
  resolved: ResolvedGroupBy;
  /** Input column indices routed to the workers; keys first. */
  routed: number[];
  keyPos: number[];
  outputs: GroupOutputSpec[];
  explain(indent: string, partitions: number, reuse: string | null): string[];
}

export function planGroupBy(resolved: ResolvedGroupBy): GroupByStagePlan {
  const routed: number[] = [];
  const pos = (index: number): number => {
    let p = routed.indexOf(index);
    if (p < 0) p = routed.push(index) - 1;
    return p;
  };
  const keyPos = resolved.keys.map((k) => pos(k.index));
  const outputs: GroupOutputSpec[] = resolved.outputs.map((o) => ({ fn: o.fn, column: o.column < 0 ? -1 : pos(o.column), ignoreNulls: o.ignoreNulls, type: o.type }));
  const plan: GroupByStagePlan = {
    resolved,
    routed,
    keyPos,
    outputs,
    explain(indent, partitions, reuse) {
      const next = indent + '  ';
      const keys = resolved.keys.map((k) => k.name).join(', ');
      const head = resolved.distinct ? `Distinct on (${keys}): the whole first row of each distinct tuple` : resolved.keys.length > 0 ? `GroupBy (${keys})` : 'Aggregate (no keys: the whole input is one group)';
      const partitioning =
        reuse ?? (resolved.keys.length === 0 ? 'none (no keys): 1 partition' : `hash(${keys}) into ${partitions} partitions, seeded; an oversized partition split again by a re-mixed hash (groups stay whole)`);
      const lines = [
        `${indent}${head}`,
        `${next}partitioning: ${partitioning}`,
        `${next}grouping per partition: open-addressing hash table of the key tuple (on the routing's hashes, carried with the rows; one integer key whose values span at most twice the rows: a table indexed by value; NULL keys one group, NaN = NaN, -0 = 0), groups numbered by first appearance, rows grouped by one stable counting scatter`,
      ];
      if (!reuse && densePlanOf(plan)) {
        lines.push(
          `${next}over the caller's tables, when the key's sampled values span at most 1/${MIN_ROWS_PER_SLOT} of the rows: no partitioning, every slab added straight into a table indexed by key value (one per thread, merged), groups in order of first appearance; a key outside the sample's range hands over to the hash group-by`,
        );
      }
      if (partialKeys(keyPos, outputs) && !reuse) lines.push(`${next}partial aggregation per slab before the exchange (its groups are routed, not its rows; kept when the first slab shrinks 10x, else every row is routed), merged per partition`);
      if (!resolved.distinct) {
        for (const o of resolved.outputs.slice(resolved.keys.length)) lines.push(`${next}${o.name} = ${o.text}: ${algorithm(o.fn, o.type)}`);
      }
      lines.push(`${next}output: one row per group keyed by its first row id, ranges assembled in key order (groups in order of first appearance)`);
      return lines;
    },
  };
  return plan;
}

function algorithm(fn: GroupOutputSpec['fn'], type: GroupOutputSpec['type']): string {
  switch (fn) {
    case 'sum':
    case 'avg':
      if (type.kind === 'decimal') return 'exact 128-bit running prefix (NULL past 38 digits)';
      return type.kind === 'float' && fn === 'sum'
        ? 'pairwise blocks in input order (window\'s canonical order)'
        : fn === 'avg'
          ? 'exact sum (integers) or pairwise sum (floats) / count'
          : 'differences of one running prefix (exact, 64-bit wrapping)';
    case 'count':
      return 'run lengths / non-NULL counts';
    case 'countDistinct':
      return 'distinct (group, value) pairs by hash, NULL ignored';
    case 'min':
    case 'max':
      return 'one scan per group (NaN above every number), value gathered';
    case 'first':
    case 'last':
      return 'the group\'s first/last row in input order';
  }
}

/** Scratch a group-by task needs for `rows` rows whose routed columns take `inputBytes`. */
function groupScratch(plan: GroupByStagePlan, rows: number, inputBytes: number): number {
  return inputBytes + rows * groupScratchPerRow(plan.outputs) + groupTableBytes(plan.outputs, rows);
}

/**
 * The part of the hash tables' scratch that does not grow with the rows: the first table of
 * src/worker/group-ids (four-byte slots) of the grouping and of each countDistinct.
 */
function groupTableBytes(outputs: GroupOutputSpec[], rows: number): number {
  return groupIdsFirstTableBytes(rows) * (1 + outputs.filter((o) => o.fn === 'countDistinct').length);
}

/**
 * Per row: the hash table's arrays (ids, hashes, keys, slots: up to 56 bytes; a countDistinct
 * groups (group, value) pairs in a second table), then per output.
 */
function groupScratchPerRow(outputs: GroupOutputSpec[]): number {
  // a decimal sum's running prefix: four words and a fifth, and the NULL counts (src/ops/group-agg)
  const decimalPrefix = (o: GroupOutputSpec): number => (o.fn === 'sum' && o.type.kind === 'decimal' ? 24 : 0);
  return 56 + outputs.reduce((s, o) => s + (o.fn === 'first' ? 8 : (fixedWidth(o.type) || 16) + 9) + (o.fn === 'countDistinct' ? 56 : 0) + decimalPrefix(o), 0);
}

/** The keys' positions among the partial outputs (each group's first row's key values), or null: no split. */
function partialKeys(keyPos: number[], outputs: GroupOutputSpec[]): number[] | null {
  if (keyPos.length === 0) return null;
  const merges = outputs.every((o) => o.fn === 'first' || o.fn === 'last' || o.fn === 'min' || o.fn === 'max' || o.fn === 'count' || (o.fn === 'sum' && o.type.kind === 'int'));
  if (!merges) return null;
  const keys = keyPos.map((p) => outputs.findIndex((o) => o.fn === 'first' && !o.ignoreNulls && o.column === p));
  return keys.some((k) => k < 0) ? null : keys;
}

/**
 * DataFusion's partial / final split for a keyed group-by whose aggregates merge exactly:
 * each slab is aggregated where it is partitioned (its groups, not its rows, go through the
 * exchange), and each partition's task groups those partial rows again with the merge of
 * every aggregate (count: sum of counts; integer sum: sum of sums, 64-bit wrapping as one
 * fold; min/max of minima/maxima; first/last of firsts/lasts). Partial rows carry their
 * group's first row id in the slab and arrive in row-id order, so the merge sees them in
 * input order: ties of min/max and first/last resolve as over the rows, and results never
 * depend on slab boundaries. Float sums and avg (window's canonical pairwise order over the
 * whole group) and countDistinct do not split: null, and every row is routed.
 */
export function partialSplit(plan: GroupByStagePlan): { partial: PartialIngest; final: GroupByStagePlan } | null {
  const finalKeys = partialKeys(plan.keyPos, plan.outputs);
  if (!finalKeys) return null;
  const finalOutputs: GroupOutputSpec[] = plan.outputs.map((o, i) => ({ ...o, fn: o.fn === 'count' ? 'sum' : o.fn, column: i }));
  const widen = plan.outputs.reduce((t, o) => t + fixedWidth(o.type) + 1, 0);
  return {
    partial: {
      aggregate: { keys: plan.keyPos, outputs: plan.outputs },
      schema: plan.resolved.output.map((f) => ({ name: f.name, type: f.type, nullable: f.nullable })),
      hashKeys: finalKeys,
      scratchPerRow: groupScratchPerRow(plan.outputs),
      scratchFixed: groupTableBytes(plan.outputs, FIRST_TABLE_KEYS),
      widenPerRow: widen,
    },
    final: { ...plan, keyPos: finalKeys, outputs: finalOutputs },
  };
}

/** The routed input rows, grouped per partition (the partitioning of a stage before may be reused). */
export interface GroupInput {
  units: PartitionUnit[];
  rows: number;
  release(): void;
}

/**
 * A window whose PARTITION BY keys are all group keys of the group-by after it: rows
 * hash-partitioned on the window's keys hold whole groups, so one task per partition computes
 * the window and then groups (src/worker/groupby-task runWindowGroupByTask), and the window's
 * output exchange, its replay and the group-by's shuffle all disappear.
 */
export interface WindowFusion {
  window: WindowStagePlan;
  /** Window input columns routed: the window's own, then what the group-by reads besides. */
  routed: number[];
  /** The group-by's keys and outputs as positions among routed columns then window outputs. */
  keys: number[];
  outputs: GroupOutputSpec[];
}

/** The fusion of `window` (input `inputWidth` columns wide) and the group-by after it, or null. */
export function fuseWindowGroupBy(window: WindowStagePlan, group: GroupByStagePlan, inputWidth: number): WindowFusion | null {
  const wkeys = window.resolved.partitionBy.map((c) => c.index);
  const gkeys = new Set(group.resolved.keys.map((k) => k.index));
  if (wkeys.length === 0 || !wkeys.every((k) => gkeys.has(k))) return null;
  const routed = [...window.routed];
  for (const c of group.routed) if (c < inputWidth && !routed.includes(c)) routed.push(c);
  // Group-by column c of the window's output: an input column, or window output c - inputWidth.
  const at = (c: number): number => (c < inputWidth ? routed.indexOf(c) : routed.length + (c - inputWidth));
  return {
    window,
    routed,
    keys: group.keyPos.map((p) => at(group.routed[p]!)),
    outputs: group.outputs.map((o) => ({ ...o, column: o.column < 0 ? -1 : at(group.routed[o.column]!) })),
  };
}

/** Window + group-by fused (see WindowFusion). */
export async function* execWindowGroupBy(
  ctx: RunContext,
  fusion: WindowFusion,
  plan: GroupByStagePlan,
  input: AsyncIterable<A.RecordBatch>,
  inputSchema: A.Schema,
  owned: boolean,
): AsyncGenerator<A.RecordBatch> {
  const w = fusion.window;
  const { exchange, rows } = await ingest(ctx, input, inputSchema, {
    name: 'window+groupBy',
    spillTail: true,
    routed: fusion.routed,
    hashKeys: w.partitionPos,
    partitions: ctx.config.partitions,
    owned,
    retain: false,
  });
  const windowSpec = { partitionBy: w.partitionPos, orderBy: w.orderPos, measures: w.measurePos, window: w.resolved, naive: ctx.config.windowAlgorithm === 'naive' };
  const extraPerRow = w.resolved.columns.reduce((t, c) => t + 2 * ((fixedWidth(c.type) || 16) + 1), 64);
  yield* groupOutputs(
    ctx,
    plan,
    { units: exchange.nonEmpty().map((p) => ({ sides: [exchange], p, level: 0 })), rows, release: () => exchange.release() },
    {
      splitKeys: [w.partitionPos],
      extraPerRow,
      counted: true,
      build: (partition, out, scratch) => ({ kind: 'windowGroupBy', input: partition, window: windowSpec, keys: fusion.keys, outputs: fusion.outputs, out, scratch }),
    },
  );
}

/** How groupOutputs builds its tasks (a plain group-by unless a fusion says otherwise). */
interface GroupTasks {
  splitKeys: number[][] | null;
  /** Scratch per row beyond the group-by's own. */
  extraPerRow: number;
  /** Whether the tasks' rows count on the kernel bar (not after a partial pass, which counted the input rows). */
  counted: boolean;
  /** The groups are the run's result (execute(), collect()): assembled in shared memory. */
  collected?: boolean;
  build(input: PartitionInput, out: OutputRouting, scratch: SharedArrayBuffer): GroupByTask | WindowGroupByTask;
}

export async function* execGroupBy(
  ctx: RunContext,
  plan: GroupByStagePlan,
  input: AsyncIterable<A.RecordBatch>,
  inputStage: Stage,
  owned: boolean,
  /** The caller's tables once before the run reads them (execute's previewOf), or null. */
  preview: (() => AsyncIterable<A.RecordBatch>) | null = null,
  /** The caller keeps every batch (src/coordinator/execute runStage): outputs assembled in shared memory. */
  collected = false,
): AsyncGenerator<A.RecordBatch> {
  const sample = preview && sampled(plan) ? await sampleKey(ctx, preview, plan.routed[plan.keyPos[0]!]!) : null;
  const dense = sample ? densePlanOf(plan) : null;
  const range = dense && sample ? denseRange(ctx, dense, sample) : null;
  if (!dense || !range || !preview) {
    yield* hashGroupBy(ctx, plan, input, inputStage, owned, sample, collected);
    return;
  }
  // Straight into tables indexed by key value (./exec-groupby-dense); a key outside the
  // sampled range hands over to the hash group-by, the rows read so far replayed.
  const rest = input[Symbol.asyncIterator]();
  try {
    const outcome = await runDenseGroupBy(ctx, plan, dense, range, rest);
    if (outcome.kind === 'done') {
      ctx.stats.partitions = 1;
      if (outcome.batch) yield outcome.batch;
      return;
    }
    yield* hashGroupBy(ctx, plan, replayThenRest(preview, outcome.consumed, rest), inputStage, owned, sample, collected);
  } finally {
    await rest.return?.(undefined);
  }
}

/** The hash group-by: partitioned by the keys' hash (after a partial pass per slab when it pays), one task per partition. */
async function* hashGroupBy(
  ctx: RunContext,
  plan: GroupByStagePlan,
  input: AsyncIterable<A.RecordBatch>,
  inputStage: Stage,
  owned: boolean,
  sample: KeyRange | null,
  collected = false,
): AsyncGenerator<A.RecordBatch> {
  const keyed = plan.keyPos.length > 0;
  const split = partialSplit(plan);
  const inputSchema = inputStage.schema;
  const partitions = keyed ? await groupPartitions(ctx, plan, inputStage, sample) : 1;
  ctx.stats.partitions = partitions;
  // A table that hashes its keys (several, or strings, floats...) takes the routing's hashes.
  const carryHash = keyed && !groupIdsValueKeyed(plan.resolved.keys.map((k) => k.type));
  const { exchange, rows, partial } = await ingest(ctx, input, inputSchema, {
    name: 'groupBy',
    spillTail: true,
    routed: plan.routed,
    hashKeys: plan.keyPos,
    partitions,
    owned,
    retain: false,
    carryHash,
    ...(split ? { partial: split.partial } : {}),
  });
  if (split && partial) {
    const final = split.final;
    const hashes = carryHash ? split.partial.schema.length : -1;
    yield* groupOutputs(ctx, final, { units: exchange.nonEmpty().map((p) => ({ sides: [exchange], p, level: 0 })), rows, release: () => exchange.release() }, {
      splitKeys: [final.keyPos],
      extraPerRow: 0,
      counted: false,
      collected,
      build: (partition, out, scratch) => ({ kind: 'groupBy', input: partition, keys: final.keyPos, hashes, outputs: final.outputs, out, scratch }),
    });
    return;
  }
  const hashes = carryHash ? plan.routed.length : -1;
  // Partial aggregates per piece merge counts, integer, decimal and float sums, min/max,
  // first/last: countDistinct needs the whole input in one task.
  const schema = schemaFromArrow(inputSchema);
  const pieceable = plan.resolved.outputs.every((o) => o.fn !== 'countDistinct');
  const decimalSums = plan.resolved.outputs.filter((o) => (o.fn === 'sum' || o.fn === 'avg') && o.column >= 0 && schema[o.column]!.type.kind === 'decimal').length;
  if (!keyed && !fitsOneTask(ctx, plan, exchange) && pieceable) {
    yield* wholeInputInPieces(ctx, plan, exchange, rows, decimalSums);
    return;
  }
  const units: PartitionUnit[] = (keyed ? exchange.nonEmpty() : [0]).map((p) => ({ sides: [exchange], p, level: 0 }));
  yield* groupOutputs(ctx, plan, { units, rows, release: () => exchange.release() }, {
    splitKeys: keyed ? [plan.keyPos] : null,
    extraPerRow: 0,
    counted: true,
    collected,
    build: (partition, out, scratch) => ({ kind: 'groupBy', input: partition, keys: plan.keyPos, hashes, outputs: plan.outputs, out, scratch }),
  });
}

/** The most partitions a group-by plans up front (more and every slab's chunks get tiny). */
const MAX_GROUP_PARTITIONS = 256;

/**
 * Hash partitions sized by the budget, so each partition's task fits its share and is not
 * split again (which moves every row once more): the source's size (when known) times what a
 * row takes in a task (routed columns, grouping scratch, its share of the outputs). Only an
 * estimate (a filter or limit before, or the partial pass, make the exchange smaller): capped,
 * never a reason to fail; a partition still too big is split again when it runs.
 */
async function groupPartitions(ctx: RunContext, plan: GroupByStagePlan, inputStage: Stage, sample: KeyRange | null): Promise<number> {
  const bytes = await stageBytes(inputStage);
  if (bytes === null || bytes <= 0) return ctx.config.partitions;
  const schema = schemaFromArrow(inputStage.schema);
  const routedRowBytes = plan.routed.reduce((t, c) => t + rowBytesOf(schema[c]!.type), 0);
  const taskRowBytes = routedRowBytes + groupScratchPerRow(plan.outputs) + outputRowBytes(plan.resolved.output);
  const inputRowBytes = rowBytesOfSchema(inputStage.schema);
  const parts = partitionsNeeded(ctx, bytes, inputRowBytes, taskRowBytes);
  const rows = bytes / Math.max(1, inputRowBytes);
  const byCache = Math.ceil(rows / GENERIC_TABLE_ROWS);
  let cached = byCache;
  if (groupIdsValueKeyed(plan.resolved.keys.map((k) => k.type))) {
    // One integer key: a partition whose keys span at most twice its rows is numbered by a
    // table indexed by value, which the caches hold at any partition count; a sparser key is
    // hashed, and its table gains from smaller partitions as the generic one does.
    // (A bool key spans 2 values at most: dense.)
    const span = sample === null ? 0 : sample.max >= sample.min ? sample.max - sample.min + 1 : 0;
    cached = span > (2 * rows) / ctx.config.partitions ? byCache : 1;
  }
  return Math.max(ctx.config.partitions, Math.min(MAX_GROUP_PARTITIONS, Math.max(parts, cached)));
}

/** Rows sampleKey reads: runs of SPAN_SAMPLE_RUN consecutive rows, one in SPAN_SAMPLE_STRIDE rows all told. */
const SPAN_SAMPLE_RUN = 16;
const SPAN_SAMPLE_STRIDE = 128;

/** Whether a group-by samples its key: one integer-like key, not bool (which spans 2 values at most). */
function sampled(plan: GroupByStagePlan): boolean {
  const types = plan.resolved.keys.map((k) => k.type);
  return types.length === 1 && types[0]!.kind !== 'bool' && groupIdsValueKeyed(types);
}

/**
 * The least and greatest value of an integer key among one row in SPAN_SAMPLE_STRIDE of the
 * caller's tables, in runs of SPAN_SAMPLE_RUN (-Infinity / Infinity for a value past ±2^52),
 * and the tables' rows: bounds from within of the true range, so a key found sparse is sparse
 * (10M int64 keys: ~80k rows read, 4 ms). Read in place: no copy of a batch's values or validity.
 */
async function sampleKey(ctx: RunContext, preview: () => AsyncIterable<A.RecordBatch>, column: number): Promise<KeyRange> {
  let min = Infinity;
  let max = -Infinity;
  let rows = 0;
  let skip = 0;
  for await (const batch of preview()) {
    ctx.checkAbort();
    const data = batch.data.children[column]!;
    const n = batch.numRows;
    rows += n;
    const values = intValues({ values: (data.values as KeyColumn['values']).subarray(0, n) });
    const bits = data.nullCount > 0 ? (data.nullBitmap as Uint8Array) : null;
    // Runs of consecutive rows, not single rows: a row every 128 was a cache miss each (10M
    // int64 keys: 6-15 ms on the main thread before any task could start).
    let i = skip;
    for (; i < n; i += SPAN_SAMPLE_RUN * SPAN_SAMPLE_STRIDE) {
      for (let j = i, end = Math.min(n, i + SPAN_SAMPLE_RUN); j < end; j++) {
        const b = data.offset + j;
        if (bits !== null && ((bits[b >>> 3]! >>> (b & 7)) & 1) === 0) continue;
        const x = valueAt(values, j);
        if (x !== x) return { min: -Infinity, max: Infinity, rows: 0 }; // far apart: neither dense nor worth counting
        if (x < min) min = x;
        if (x > max) max = x;
      }
    }
    skip = i - n;
  }
  return { min, max, rows };
}

/** The first `rows` rows of the caller's tables again, then the rest of `rest`. */
async function* replayThenRest(preview: () => AsyncIterable<A.RecordBatch>, rows: number, rest: AsyncIterator<A.RecordBatch>): AsyncGenerator<A.RecordBatch> {
  try {
    let left = rows;
    if (left > 0) {
      for await (const batch of preview()) {
        yield batch.numRows <= left ? batch : batch.slice(0, left);
        left -= Math.min(left, batch.numRows);
        if (left === 0) break;
      }
    }
    for (;;) {
      const r = await rest.next();
      if (r.done) return;
      yield r.value;
    }
  } finally {
    await rest.return?.(undefined);
  }
}

/**
 * Rows per task at which the generic grouping table (several key columns, strings, floats:
 * src/worker/group-ids) keeps its slots, group hashes and the first rows it compares with in
 * the core's caches. Distinct over 10M rows of (int64, int64, utf8), 1M groups, 2
 * threads, kernel phase: 8 partitions 1.05 s, 32 0.68 s, 64 0.62 s. One integer key: its
 * hashed table gains as much (5M groups in 10M rows, whole runs: 8 partitions 981-1,115 ms,
 * 40 partitions 893-1,027; group-by CPU 1,073-1,203 -> 792-924 ms), its value-indexed one does
 * not (100k groups: 277-297 -> 319-355 ms), so only keys sampled sparse get more partitions.
 */
const GENERIC_TABLE_ROWS = 1 << 18;

/** A whole-input aggregate's one partition fits one task. */
function fitsOneTask(ctx: RunContext, plan: GroupByStagePlan, ex: Exchange): boolean {
  const outRowBytes = outputRowBytes(plan.resolved.output);
  return groupScratch(plan, ex.rowsOf(0), loadBytesOf(ex, 0)) + outRowBytes + 2 * LOAN_SLACK <= ctx.limits.taskBytes;
}

/**
 * agg() without keys over an input bigger than one task: partial aggregates per piece of the
 * one partition (src/worker/agg-partial-task), merged here into the one row (./agg-merge);
 * results are bit-identical to one task over all rows.
 */
async function* wholeInputInPieces(ctx: RunContext, plan: GroupByStagePlan, ex: Exchange, rows: number, decimalSums: number): AsyncGenerator<A.RecordBatch> {
  try {
    // Row ids and positions in scratch (window-sum's prefix helpers allocate their own); a
    // decimal sum's or avg's prefix is in scratch too (four words and a fifth a row, src/ops/window-decimal).
    const perRow = 24 + 20 * decimalSums;
    const pieces = ex.piecesOf(0, (bytes, n) => 2 * bytes + n * perRow + LOAN_SLACK <= ctx.limits.taskBytes);
    ctx.progress.announce('kernel', rows);
    ctx.progress.start('kernel');
    const partials = await ctx.clock.during(
      'kernel',
      runAll(
        pieces.map(({ input, bytes, rows: n }) => async () => {
          const [scratch] = await ctx.loans('agg.partial', [2 * bytes + n * perRow + LOAN_SLACK]);
          try {
            const done = await ctx.task({ kind: 'aggPartial', input, outputs: plan.outputs, total: rows, copyUpTo: ctx.limits.copyBytes, scratch: scratch!.buffer });
            if (done.value.rows !== n) throw new ExecutionError('INTERNAL', `agg: a piece held ${n} rows but its task read ${done.value.rows}; refusing to return a partial result`);
            ctx.progress.add('kernel', n);
            return done.value;
          } finally {
            scratch!.release();
          }
        }),
        ctx.concurrency,
      ),
    );
    ex.release();
    yield batchFromColumns(schemaToArrow(plan.resolved.output), mergePartials(plan.outputs, partials), 1);
  } finally {
    ex.release();
  }
}

/** Runs the group-by tasks over `input`'s units and yields the groups in first-row order. */
async function* groupOutputs(ctx: RunContext, plan: GroupByStagePlan, input: GroupInput, tasks: GroupTasks): AsyncGenerator<A.RecordBatch> {
  const schema = schemaToArrow(plan.resolved.output);
  const out = new OutputRanges(ctx, plan.resolved.distinct ? 'distinct' : 'groupBy', plan.resolved.output, Math.max(1, input.rows), true, undefined, tasks.collected ?? false);
  try {
    if (input.rows > MAX_ROWS) throw new ExecutionError('TOO_MANY_ROWS', `groupBy: ${input.rows} input rows exceed the ${MAX_ROWS} rows one stage can number`);
    const outRowBytes = outputRowBytes(plan.resolved.output);
    const op: KernelOperator = {
      name: plan.resolved.distinct ? 'distinct' : 'groupBy',
      splitKeys: tasks.splitKeys,
      measured: tasks.counted ? [0] : [],
      job: ({ sides: [ex], p }) => {
        const n = ex!.rowsOf(p);
        return {
          rows: n,
          scratchBytes: groupScratch(plan, n, loadBytesOf(ex!, p)) + n * tasks.extraPerRow,
          outputBytes: Math.max(1, n) * outRowBytes,
          build: (routing, scratch) => tasks.build(ex!.inputFor(p), routing, scratch),
          done: (res) => {
            if (res.rows !== n) throw new ExecutionError('INTERNAL', `groupBy: a partition held ${n} rows but its task read ${res.rows}; refusing to return a partial result`);
            ex!.drop(p);
          },
        };
      },
    };
    await runKernels(ctx, op, input.units, out);
    input.release();
    for await (const range of out.sparseRanges()) {
      ctx.checkAbort();
      if (range.length > 0) yield batchFromColumns(schema, range.columns, range.length);
      out.consumed(range);
    }
  } finally {
    input.release();
    out.release();
  }
}

