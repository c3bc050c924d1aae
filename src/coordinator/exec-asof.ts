/**
 * Plans and executes an ASOF join stage.
 *
 * Planning: options resolved against both schemas (src/ops/asof-spec), the condition bound
 * against the output schema, and the columns each side must route to the workers: its `by`
 * keys, its `on` key, and the columns the condition reads.
 * Execution, on the shared blocking path (./partitioned.ts): both sides hash-partitioned on the
 * `by` keys with the same seeded hash (matching groups meet in one task); the right side routes
 * the columns the output takes from it too, so it is never held whole; one task per partition
 * gives each left row its match and the right columns gathered by it (`__matched` first),
 * routed by left row id; then the left batches are replayed in order with those attached.
 * With preserveOrder: false the left side routes every column and is not retained: each task
 * returns its left rows with the right columns beside them (./kernel-rows).
 * Without `by` keys all rows share one group: both sides are range-partitioned on the key
 * instead (src/coordinator/asof-range.ts), unless a condition can reject rows: then one task.
 * A `by` partition too big for a task (a hot by key) is cut the same way, into ranges of
 * (by, on) tuples; with a condition it runs whole, and one over the budget is PARTITION_TOO_LARGE.
 */
import * as A from 'apache-arrow';
import { schemaFromArrow, schemaToArrow } from '../columns/arrow-types.js';
import { gatherData } from '../columns/gather.js';
import { batchFromColumns } from '../columns/shared.js';
import { ExecutionError } from '../errors.js';
import { bindPredicate, type BoundExpr } from '../expr/bind.js';
import { toPredicateNode, type Expr } from '../expr/builders.js';
import { resolveAsof, type AsofOptions, type ResolvedAsof } from '../ops/asof-spec.js';
import type { FieldDesc, SchemaDesc } from '../types/column.js';
import { formatBytes } from '../memory/budget.js';
import { byTypesOrderable } from '../ops/asof-range-order.js';
import type { Exchange } from '../shuffle/exchange.js';
import type { AsofTaskSpec, OutputRouting, RowsOutput } from '../types/tasks.js';
import { splitAsofByRange } from './asof-range.js';
import { fixedWidth, outputRowBytes, rowBytesOf, rowBytesOfSchema } from './column-widths.js';
import { SortSampler } from './sort-sample.js';
import { ownsBatches, rereadOf, runStage, stageBytes, stageRows } from './execute.js';
import { ingest } from './ingest.js';
import { streamKernelRows } from './kernel-rows.js';
import { bytesForTasks, dataBytesOf, denseOutputBytes, FIRST_LEVEL_PARTITIONS, loadBytesOf, OutputRanges, PARTITION_SKEW, partitionCount, partitionsForDirect, replayWithOutputs, runKernels, stableLoadBytesOf, type KernelOperator, type PartitionUnit } from './partitioned.js';
import type { Stage } from './planner.js';
import { LOAN_SLACK, type RunContext } from './run-context.js';

const MAX_RIGHT_ROWS = 0x7fffffff;

export interface AsofStagePlan {
  resolved: ResolvedAsof;
  /** hash: on the by keys; range: on the join key (no by keys); single: one task. */
  mode: 'hash' | 'range' | 'single';
  /** false: rows leave in left-partition order, without the retained left input and its replay (./kernel-rows). */
  preserveOrder: boolean;
  outputSchema: FieldDesc[];
  leftRouted: number[];
  rightRouted: number[];
  task: AsofTaskSpec;
  /** The kernel's output columns: `__matched`, then the right columns the output takes. */
  outFields: FieldDesc[];
  /** For each output column: a left input column, or the position among `outFields`. */
  assemble: Array<{ side: 'left'; index: number } | { side: 'right'; out: number }>;
  explain(indent: string, partitions: number): string[];
}

export function planAsof(options: AsofOptions, left: SchemaDesc, right: SchemaDesc): AsofStagePlan {
  const resolved = resolveAsof(options, left, right);
  const preserveOrder = options.preserveOrder !== false;
  const outputSchema = resolved.output;
  // Rows outputs route every left column, first and in order (the tasks return the left rows).
  const leftRouted: number[] = preserveOrder ? [] : left.map((_, i) => i);
  const rightRouted: number[] = [];
  const route = (side: 'left' | 'right', index: number): number => {
    const list = side === 'left' ? leftRouted : rightRouted;
    let p = list.indexOf(index);
    if (p < 0) p = list.push(index) - 1;
    return p;
  };
  const leftBy = resolved.by.map((b) => route('left', b.left.index));
  const rightBy = resolved.by.map((b) => route('right', b.right.index));
  const leftOn = route('left', resolved.on.left.index);
  const rightOn = route('right', resolved.on.right.index);

  let condition: BoundExpr | null = null;
  const conditionColumns: AsofTaskSpec['conditionColumns'] = [];
  if (resolved.condition !== undefined && resolved.condition !== null) {
    const full = bindPredicate(toPredicateNode(resolved.condition as Expr), outputSchema);
    // Re-bind against only the columns the condition reads, in pair order.
    const used = new Set<number>();
    collectColumns(full, used);
    const remap = new Map<number, number>();
    for (const outIndex of [...used].sort((a, b) => a - b)) {
      const src = resolved.outputSources[outIndex]!;
      remap.set(outIndex, conditionColumns.length);
      conditionColumns.push({ side: src.side, pos: route(src.side, src.index) });
    }
    condition = remapColumns(full, remap);
  }

  // The right columns the output takes travel with the right rows (payload).
  const payload: number[] = [];
  const outFields: FieldDesc[] = [{ name: '__matched', type: { kind: 'int', bits: 8, signed: false }, nullable: false }];
  const assemble: AsofStagePlan['assemble'] = resolved.outputSources.map((src, i) => {
    if (src.side === 'left') return { side: 'left', index: src.index };
    payload.push(route('right', src.index));
    outFields.push({ ...outputSchema[i]!, nullable: true });
    return { side: 'right', out: outFields.length - 1 };
  });

  const task: AsofTaskSpec = {
    leftBy,
    rightBy,
    leftOn,
    rightOn,
    key: resolved.key,
    direction: resolved.direction,
    tolerance: resolved.tolerance,
    allowExactMatches: resolved.allowExactMatches,
    nullsEqual: resolved.nullsEqual,
    condition,
    conditionColumns,
    payload,
    dropUnmatched: !preserveOrder && resolved.how === 'inner',
  };
  const mode = resolved.by.length > 0 ? 'hash' : condition ? 'single' : 'range';
  return {
    resolved,
    mode,
    preserveOrder,
    outputSchema,
    leftRouted,
    rightRouted,
    task,
    outFields,
    assemble,
    explain(indent, partitions) {
      const next = indent + '  ';
      const byText = resolved.by.map((b) => (b.left.name === b.right.name ? b.left.name : `${b.left.name} = ${b.right.name}`)).join(', ');
      const partitioning =
        mode === 'hash'
          ? `hash(${byText}) on both sides into ${partitions} partitions, same seed; a partition too big for a task (a hot by key) is cut into ranges of (${byText}, ${resolved.on.left.name})${condition ? ' (not with a condition: it runs whole)' : ', each also getting the nearest right rows below and above it'}`
          : mode === 'range'
            ? `no by keys: both sides range-partitioned on ${resolved.on.left.name} into up to ${partitions} ranges (left-key quantiles); each range also gets the nearest right rows below and above it`
            : 'no by keys and a condition that can reject rows: one partition, a single task (a boundary row from another range could be rejected)';
      return [
        `${indent}AsofJoin ${resolved.how} ${resolved.direction} on ${resolved.on.left.name} ~ ${resolved.on.right.name}` +
          `${resolved.toleranceText ? `, tolerance ${resolved.toleranceText}` : ''}${resolved.allowExactMatches ? '' : ', exact matches excluded'}`,
        `${next}partitioning: ${partitioning}`,
        `${next}sort per partition: (by group, ${resolved.on.left.name}, row id) on each side, LSD radix argsort, once`,
        `${next}key comparison: ${resolved.key.cls}${resolved.key.unit ? ` in ${resolved.key.unit}` : ''}, exact gaps`,
        `${next}match: merge cursors per group${condition ? `; condition ${condition.name} checked in vectorized rounds (walks on to the next eligible row)` : ', O(n + m)'}`,
        preserveOrder
          ? `${next}output: right columns gathered in the task by match, routed by left row id; left order${resolved.how === 'inner' ? '; unmatched left rows dropped' : ''}`
          : `${next}output: right columns gathered in the task by match beside the left rows; order: partition order (preserveOrder: false), left rows in input order within a partition${resolved.how === 'inner' ? '; unmatched left rows dropped in the task' : ''}`,
      ];
    },
  };
}

function collectColumns(e: BoundExpr, out: Set<number>): void {
  if (e.kind === 'col') out.add(e.index);
  for (const v of Object.values(e)) {
    if (v && typeof v === 'object' && 'kind' in (v as object) && 'type' in (v as object)) collectColumns(v as BoundExpr, out);
    if (Array.isArray(v)) for (const x of v) if (x && typeof x === 'object' && 'kind' in x && 'type' in x) collectColumns(x as BoundExpr, out);
  }
}

function remapColumns(e: BoundExpr, remap: Map<number, number>): BoundExpr {
  if (e.kind === 'col') return { ...e, index: remap.get(e.index)! };
  const copy: Record<string, unknown> = { ...e };
  for (const [k, v] of Object.entries(e)) {
    if (v && typeof v === 'object' && 'kind' in (v as object) && 'type' in (v as object)) copy[k] = remapColumns(v as BoundExpr, remap);
    else if (Array.isArray(v)) copy[k] = v.map((x) => (x && typeof x === 'object' && 'kind' in x && 'type' in x ? remapColumns(x as BoundExpr, remap) : x));
  }
  return copy as unknown as BoundExpr;
}

/** `keptWhole`: the caller keeps every output batch (see runStage). */
export async function* execAsof(ctx: RunContext, plan: AsofStagePlan, leftStage: Stage, rightStage: Stage, keptWhole = false): AsyncGenerator<A.RecordBatch> {
  const { resolved } = plan;
  // An inner join's result drops the unmatched rows, copying the rest out of the dense
  // outputs: those are then not the result, and stay counted.
  const collected = keptWhole && resolved.how !== 'inner';
  const outRowBytes = outputRowBytes(plan.outFields);
  const partitions = plan.mode === 'hash' ? await hashPartitions(ctx, plan, leftStage, rightStage, outRowBytes, collected) : 1;
  if (plan.mode === 'hash') ctx.stats.partitions = partitions;
  // The range path's splitters come from left keys sampled by row id as they are ingested.
  const sampler = plan.mode === 'range' ? new SortSampler([plan.task.leftOn], [{ descending: false, nullsFirst: true }]) : null;
  const left = await ingest(ctx, runStage(ctx, leftStage), leftStage.schema, {
    name: 'asof-left',
    spillTail: true,
    routed: plan.leftRouted,
    hashKeys: plan.task.leftBy,
    partitions,
    owned: ownsBatches(leftStage),
    retain: plan.preserveOrder,
    // An IPC scan is read again at the replay instead of kept: kept, the left input took the
    // budget's spillable half and every routed reply of both sides spilled alone (10M x 10M at
    // 64 MiB: 712 spills of ~1 MB, 146K messages of ~5 KB).
    reread: plan.preserveOrder ? rereadOf(ctx, leftStage) : null,
    ...(sampler ? { onBatch: (batch: A.RecordBatch, rowBase: number) => sampler.add(batch, rowBase) } : {}),
  });
  let right: Awaited<ReturnType<typeof ingest>> | null = null;
  let out: OutputRanges | null = null;
  // Exchanges of the key ranges of a join without `by` keys.
  const owned: Exchange[] = [];
  try {
    right = await ingest(ctx, runStage(ctx, rightStage), rightStage.schema, {
      name: 'asof-right',
      spillTail: true,
      routed: plan.rightRouted,
      hashKeys: plan.task.rightBy,
      partitions,
      owned: ownsBatches(rightStage),
      retain: false,
    });
    if (right.rows > MAX_RIGHT_ROWS) {
      throw new ExecutionError('TOO_MANY_ROWS', `asofJoin: the right input has ${right.rows} rows; one join can address at most ${MAX_RIGHT_ROWS}`);
    }
    // Without by keys: from one partition to key ranges, so every thread gets work (and
    // enough ranges for each to fit a task's share of the budget). Rows outputs, whose order
    // follows the ranges, count from the rows' column bytes only, the same on every run.
    let units: PartitionUnit[] | null = null;
    if (plan.mode === 'range' && left.rows > 0) {
      const loadOf = plan.preserveOrder ? loadBytesOf : stableLoadBytesOf;
      const need = loadOf(left.exchange, 0) + loadOf(right.exchange, 0) + (left.rows + right.rows) * TASK_ROW_BYTES + 2 * left.rows * outRowBytes;
      const parts = Math.max(ctx.config.partitions, Math.ceil((2 * need) / ctx.limits.taskBytes));
      const ranged = await splitAsofByRange(ctx, plan, left.exchange, right.exchange, 0, parts, 0, null, sampler!.sampled());
      if (ranged) {
        owned.push(...ranged.owned);
        units = ranged.units;
      }
    }
    const leftEx = left.exchange;
    const rightEx = right.exchange;
    units ??= leftEx.nonEmpty().map((p) => ({ sides: [leftEx, rightEx], p, level: 0 }));
    const schema = schemaToArrow(plan.outputSchema);
    const orderable = resolved.by.every((b) => byTypesOrderable(b.left.type, b.right.type));
    // Exchanges of key ranges whose largest range holds every row of the unit cut.
    const noFurther = new Set<Exchange>();
    /**
     * The kernel operator, with the output bytes of a partition (nL left rows in `lx`); `rows`: a
     * rows output (the left rows load into its region unless only the matched ones leave).
     */
    const operator = <O extends OutputRouting | RowsOutput>(outputBytes: (lx: Exchange, p: number, nL: number) => number, rows: boolean): KernelOperator<O> => ({
      name: 'asof',
      // Rows split again by the by keys (both sides alike) keep every by group in one task.
      splitKeys: plan.mode === 'hash' ? [plan.task.leftBy, plan.task.rightBy] : null,
      measured: [0], // one output row per left row
      oversized: async (unit, need) => {
        const [lx, rx] = unit.sides;
        const why = plan.task.condition
          ? 'with a condition it cannot be cut into key ranges (the condition can reject the boundary rows a range would borrow from its neighbours): raise memoryBudget, or filter the right side instead of using a condition'
          : !orderable
            ? 'its `by` columns (uint64 with a narrower or signed integer) have no common order to cut it into key ranges by: raise memoryBudget, or cast one side'
            : null;
        if (why) {
          if (need <= ctx.budget.limit) return null; // runs alone
          const leftRows = lx!.rowsOf(unit.p);
          const rightRows = rx!.rowsOf(unit.p);
          throw new ExecutionError(
            'PARTITION_TOO_LARGE',
            `asofJoin: a partition of ${leftRows} left and ${rightRows} right rows (one \`by\` group, or the whole join without \`by\`) needs ${formatBytes(need)}, more than the memory budget of ${formatBytes(ctx.budget.limit)}; ${why}`,
            { rows: leftRows, rightRows, need, budget: ctx.budget.limit },
          );
        }
        if (noFurther.has(lx!)) return null;
        const parts = Math.max(2, Math.ceil((3 * need) / ctx.limits.taskBytes));
        const cut = await splitAsofByRange(ctx, plan, lx!, rx!, unit.p, parts, unit.level + 1, unit.outside ?? null, null);
        if (!cut) return null;
        // One tuple (a by key and an on key value) holding most rows cannot be cut again.
        if (cut.largest === lx!.rowsOf(unit.p)) noFurther.add(cut.owned[0]!);
        return { ...cut, chained: false };
      },
      job: ({ sides: [lx, rx], p, outside }) => {
        const nL = lx!.rowsOf(p);
        const extra = outside ? [...outside.below, ...outside.above] : [];
        const nR = rx!.rowsOf(p) + extra.length;
        if (nL === 0) return null;
        const scratch = (inputBytes: number, rightRows: number): number => taskScratch(inputBytes, nL, rightRows, outRowBytes);
        const output = outputBytes(lx!, p, nL);
        const inRegion = rows && !plan.task.dropUnmatched ? dataBytesOf(lx!, p) : 0;
        // The borrowed rows are a few candidates per piece the ranges were routed from (how many
        // depends on what spilled): the stable estimate leaves them out (the loans count them).
        // It counts the rows' content, not their chunks' bytes (which depend on what spilled).
        const stableRegion = rows && !plan.task.dropUnmatched ? lx!.contentBytesOf(p) : 0;
        const stableOutput = rows ? output - dataBytesOf(lx!, p) + lx!.contentBytesOf(p) : output;
        const stable = (): number => scratch(stableLoadBytesOf(lx!, p) - stableRegion + stableLoadBytesOf(rx!, p), rx!.rowsOf(p)) + stableOutput + 2 * LOAN_SLACK;
        return {
          rows: nL + nR,
          scratchBytes: scratch(loadBytesOf(lx!, p) - inRegion + loadBytesOf(rx!, p), nR),
          outputBytes: output,
          ...(rows ? { stableBytes: stable() } : {}),
          build: (routing, scratchBuffer) => {
            const rightInput = rx!.inputFor(p);
            return {
              kind: 'asof',
              left: lx!.inputFor(p),
              right: extra.length > 0 ? { ...rightInput, chunks: [...rightInput.chunks, ...extra] } : rightInput,
              spec: plan.task,
              out: routing,
              scratch: scratchBuffer,
            };
          },
          done: (res) => {
            if (res.rows !== nL || res.rightRows !== nR) {
              throw new ExecutionError('INTERNAL', `asofJoin: a partition lost rows on its way to the worker; refusing to return a partial result`);
            }
            lx!.drop(p);
            rx!.drop(p);
          },
        };
      },
    });

    if (!plan.preserveOrder) {
      // The region: every left column and the row ids, then the payload columns.
      const payloadBytes = outRowBytes - 2; // without `__matched`
      const slack = 32 * (plan.outputSchema.length + 1);
      const op = operator<RowsOutput>((lx, p, nL) => dataBytesOf(lx, p) + nL * payloadBytes + slack, true);
      // Region column of each output column: left columns are routed first, in order.
      const width = leftStage.schema.fields.length;
      const at = plan.assemble.map((a) => (a.side === 'left' ? a.index : width + a.out - 1));
      for await (const b of streamKernelRows(ctx, op, units)) {
        ctx.checkAbort();
        yield batchFromColumns(schema, at.map((c) => b.columns[c]!), b.length);
      }
      return;
    }

    // Direct outputs need room next to the input exchanges for the kernel loans only (the
    // tasks then borrow no output buffer), not the whole headroom: routed, the outputs went
    // to an exchange, spilled at 1 GiB on 10M x 10M and took an assemble pass.
    const needs = units.map(({ sides: [lx, rx], p }) => taskScratch(loadBytesOf(lx!, p) + loadBytesOf(rx!, p), lx!.rowsOf(p), rx!.rowsOf(p), outRowBytes));
    out = new OutputRanges(ctx, 'asof', plan.outFields, left.rows, false, bytesForTasks(ctx, needs), collected, true);
    await runKernels(ctx, operator<OutputRouting>((_lx, _p, nL) => nL * outRowBytes, false), units, out);
    for (const e of owned) e.release();
    leftEx.release();
    rightEx.release();

    const inner = resolved.how === 'inner';
    const combine = (batch: A.RecordBatch, outputs: A.Data[]): A.RecordBatch | null => {
      let columns = plan.assemble.map((a) => (a.side === 'left' ? batch.data.children[a.index]! : outputs[a.out]!));
      let rows = batch.numRows;
      if (inner) {
        const kept = matchedRows(outputs[0]!);
        if (kept.length === 0) return null;
        if (kept.length < rows) {
          columns = columns.map((c) => gatherData(c, kept, kept.length));
          rows = kept.length;
        }
      }
      return batchFromColumns(schema, columns, rows);
    };
    for await (const batch of replayWithOutputs(left.store!, out, combine)) {
      ctx.checkAbort();
      yield batch;
    }
  } finally {
    left.exchange.release();
    left.store?.release();
    right?.exchange.release();
    for (const e of owned) e.release();
    out?.release();
  }
}

/**
 * Scratch per row of an ASOF task beyond its loaded input: group ids (4), the normalized key
 * (8) and its sorted copy (8), the sort (permutation 4, while it runs words 8, group word 4 and
 * its buffers 12), the match and picks (9, left rows): about 41 at the peak.
 */
const TASK_ROW_BYTES = 64;

/** A task's scratch loan: its loaded input, TASK_ROW_BYTES per row, and its left rows' outputs. */
function taskScratch(inputBytes: number, leftRows: number, rightRows: number, outRowBytes: number): number {
  return inputBytes + (leftRows + rightRows) * TASK_ROW_BYTES + leftRows * outRowBytes;
}

/**
 * Rows of both sides per ASOF task on average (whole `by` groups land lumpily), whatever room
 * the budget leaves, as window's WINDOW_TASK_ROWS: a side's keys, permutation and sort buffers
 * then stay near the caches, and the tasks' loans are smaller. Measured (10M x 10M by int32
 * sym, 2 threads, 1 GiB, warm runs alternating, 3 processes each): the budget's 19 partitions
 * -> 38: wall ~1,655 -> ~1,577 ms, user CPU ~3,050 -> ~2,900 ms, VmHWM 1.64 -> 1.49 GiB (32 to
 * 96 partitions alike in time, 76 ~4% slower; 1M x 1M: 8 partitions either way).
 */
const ASOF_TASK_ROWS = 1 << 19;

/**
 * Hash partitions such that a partition's task (both sides' rows: loaded, plus TASK_ROW_BYTES
 * each, plus the left rows' outputs) fits its share of the budget without being split again:
 * splitting re-routes the rows through new exchanges, which spill when the first ones fill the
 * budget's spillable half.
 */
async function hashPartitions(ctx: RunContext, plan: AsofStagePlan, leftStage: Stage, rightStage: Stage, outRowBytes: number, collected: boolean): Promise<number> {
  const [lb, rb] = await Promise.all([stageBytes(leftStage), stageBytes(rightStage)]);
  if (lb === null || rb === null) return ctx.config.partitions;
  const routed = (stage: Stage, cols: number[]): number => cols.reduce((t, i) => t + rowBytesOf(schemaFromArrow(stage.schema)[i]!.type), 4);
  const leftRows = lb / Math.max(1, rowBytesOfSchema(leftStage.schema));
  const rightRows = rb / Math.max(1, rowBytesOfSchema(rightStage.schema));
  // A spilled partition (the inputs are more than spillable consumers may keep) is loaded as its
  // files' bytes and then as columns copied out of them: its routed bytes twice.
  const load = lb + rb > ctx.budget.limit - ctx.limits.headroom ? 2 : 1;
  const need = leftRows * (load * routed(leftStage, plan.leftRouted) + TASK_ROW_BYTES + outRowBytes) + rightRows * (load * routed(rightStage, plan.rightRouted) + TASK_ROW_BYTES);
  // One level: a partition split again is routed again, both sides. Sized for the largest
  // partition, not the mean: `by` groups are whole, and a few thousand large ones land lumpily
  // (10M x 10M with 1,000 symbols in 244 partitions: 20K to 140K rows each). At 64 MiB: 128
  // partitions, every one split in 4: 8.6-8.9 s, VmHWM 361-394 MiB; 384 and no splits:
  // 6.9-7.3 s, 326-332 MiB.
  // At least enough partitions for tasks of ASOF_TASK_ROWS rows (up to the first level's count),
  // counted exactly where the stages know them (an aggregated side is far smaller than its input).
  const [lr, rr] = await Promise.all([stageRows(leftStage), stageRows(rightStage)]);
  const cached = Math.min(FIRST_LEVEL_PARTITIONS, Math.ceil(((lr ?? leftRows) + (rr ?? rightRows)) / ASOF_TASK_ROWS));
  const base = Math.max(partitionCount(ctx, PARTITION_SKEW * need, 1, 1, true), cached);
  // With preserveOrder, all-fixed-width outputs are written in place by row id when they fit
  // next to the input exchanges and the loans in flight: smaller tasks may make them fit, which
  // saves the output exchange, its spill and the assemble pass (as window's partitions do).
  const widths = plan.outFields.map((f) => fixedWidth(f.type));
  if (!plan.preserveOrder || !widths.every((w) => w > 0)) return base;
  // Collected: the dense outputs are the result's columns, outside the budget.
  const denseBytes = collected ? 0 : denseOutputBytes(widths, leftRows);
  const exchangeBytes = leftRows * routed(leftStage, plan.leftRouted) + rightRows * routed(rightStage, plan.rightRouted);
  return partitionsForDirect(ctx, base, leftRows + rightRows, exchangeBytes, denseBytes, need / Math.max(1, leftRows + rightRows));
}

/** Positions of the rows whose `__matched` byte is 1. */
function matchedRows(matched: A.Data): Int32Array {
  const m = matched.values as Uint8Array;
  const n = matched.length;
  let count = 0;
  for (let i = 0; i < n; i++) count += m[i]!;
  const idx = new Int32Array(count);
  for (let i = 0, k = 0; i < n; i++) if (m[i]) idx[k++] = i;
  return idx;
}
