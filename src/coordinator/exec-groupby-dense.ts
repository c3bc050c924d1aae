/**
 * A group-by on one integer key of the caller's tables whose values span a small range, with
 * aggregates that merge exactly (count, integer sum, integer min/max, the key itself): no
 * exchange at all. The key is sampled first (./exec-groupby's sampleKey); each slab of the
 * input goes to a worker that adds its rows into a table indexed by key value
 * (src/ops/dense-aggregate, DuckDB's "perfect hash aggregate"), one table per thread, lent to
 * one task at a time; the tables are merged slot by slot and the groups come out in order of
 * their first row. A hash group-by moves every row twice (routed to a partition, grouped
 * there): 10M rows, 100k keys, 2 threads, warm runs interleaved: 280-290 ms, 163-202 here.
 *
 * The range comes from a sample, so a key outside it can still turn up: its slab's task stops
 * and says so (its table, maybe added to in part, is no longer used), and the run goes on as a
 * hash group-by of the whole input (the rows read so far replayed from the caller's tables,
 * then the rest).
 * Results are bit-identical to the hash group-by's at any thread count, slab size and budget:
 * every merge is exact and the first row decides the order.
 */
import type * as A from 'apache-arrow';
import { schemaToArrow } from '../columns/arrow-types.js';
import { localAlloc, SharedArena } from '../columns/arena.js';
import { batchCopyBytes, batchFromColumns, describeBatch, selectColumns } from '../columns/shared.js';
import { ctorOf } from '../expr/evaluate-data.js';
import { DENSE_MAX_SLOTS, denseLayout, denseOutputColumn, mergeDense, presentSlots, type DenseColumn, type DenseOutput } from '../ops/dense-aggregate.js';
import { isIntegerValued, type TypeDesc } from '../types/column.js';
import { permuteValues } from '../worker/permute.js';
import { argsortWords } from '../worker/sort.js';
import { computedData } from '../worker/window-output.js';
import type { GroupByStagePlan } from './exec-groupby.js';
import { ExecutionError } from '../errors.js';
import type { Reservation } from '../memory/budget.js';
import { LOAN_SLACK, type RunContext } from './run-context.js';
import { orderedMapAhead } from './scheduler.js';

/** A dense group-by: the outputs, and the input columns a slab carries (the key first, then the measures). */
export interface DensePlan {
  outputs: DenseOutput[];
  columns: number[];
}

/** The sampled key values' range (./exec-groupby's sampleKey). */
export interface KeyRange {
  min: number;
  max: number;
  /** Rows of the input. */
  rows: number;
}

/**
 * The dense plan of a group-by, or null when its key or an aggregate does not allow one. An
 * output's type tells its input's: a sum of integers is an integer, a min/max has its column's type.
 */
export function densePlanOf(plan: GroupByStagePlan): DensePlan | null {
  if (plan.keyPos.length !== 1 || !isIntegerValued(plan.resolved.keys[0]!.type)) return null;
  const keyPos = plan.keyPos[0]!;
  const columns = [plan.routed[keyPos]!];
  const at = (pos: number): number => {
    const c = plan.routed[pos]!;
    let i = columns.indexOf(c);
    if (i < 0) i = columns.push(c) - 1;
    return i;
  };
  const outputs: DenseOutput[] = [];
  for (const o of plan.outputs) {
    if ((o.fn === 'first' || o.fn === 'last') && o.column === keyPos) outputs.push({ fn: 'key', column: -1 });
    else if (o.fn === 'count') outputs.push(o.column < 0 ? { fn: 'rows', column: -1 } : { fn: 'count', column: at(o.column) });
    else if (o.fn === 'sum' && o.type.kind === 'int') outputs.push({ fn: 'sum', column: at(o.column) });
    else if ((o.fn === 'min' || o.fn === 'max') && isIntegerValued(o.type)) outputs.push({ fn: o.fn, column: at(o.column) });
    else return null;
  }
  return { outputs, columns };
}

/** The fewest rows a key value must average for the dense path: fewer, and its tables are mostly empty. */
export const MIN_ROWS_PER_SLOT = 16;

/**
 * The table's range for a sampled one: widened by 1/16 of its span (and 64 values) on each side,
 * since the sample's extremes are only bounds from within. Null when it is too wide for the
 * dense path: more slots than the rows fill, than DENSE_MAX_SLOTS, or tables (one per thread)
 * past an eighth of the budget.
 */
export function denseRange(ctx: RunContext, dense: DensePlan, sample: KeyRange): { base: number; span: number } | null {
  if (!(sample.max >= sample.min)) return null;
  const pad = 64 + Math.ceil((sample.max - sample.min + 1) / 16);
  const base = sample.min - pad;
  const span = sample.max + pad - base + 1;
  if (span + 1 > DENSE_MAX_SLOTS || span * MIN_ROWS_PER_SLOT > sample.rows) return null;
  // A table's counts are 32-bit words (src/ops/dense-aggregate).
  if (sample.rows >= 2 ** 32) return null;
  if (ctx.concurrency * tableBytes(dense, span) > ctx.budget.limit / 8) return null;
  return { base, span };
}

function tableBytes(dense: DensePlan, span: number): number {
  return (span + 1) * denseLayout(dense.outputs).stride * 4;
}

/** Rows a slab task adds at most: enough tasks for every thread, few enough to keep their overhead small. */
const SLAB_ROWS = 1 << 19;

/** How a dense group-by ended: its one batch, or a key outside the range after `consumed` rows of `input` (a hash group-by takes over). */
export type DenseOutcome = { kind: 'done'; batch: A.RecordBatch | null } | { kind: 'outside'; consumed: number };

/** Consecutive batches (or slices) of the key and measure columns, added by one task. */
interface Slab {
  batches: A.RecordBatch[];
  rows: number;
  rowBase: number;
}

/**
 * The tables, one per thread: pooled buffers kept for the whole stage under one reservation
 * (not loans: a slab's loans then never wait for them to come back), lent to one task at a time.
 */
class DenseTables {
  private readonly reservation: Reservation;
  private readonly buffers: SharedArrayBuffer[] = [];
  private readonly free: number[] = [];

  private constructor(private readonly ctx: RunContext) {
    this.reservation = ctx.budget.reserve('groupBy.dense.tables');
  }

  static async take(ctx: RunContext, bytes: number, count: number): Promise<DenseTables> {
    const t = new DenseTables(ctx);
    try {
      for (let i = 0; i < count; i++) {
        const [loan] = await ctx.loans('groupBy.dense.tables', [bytes], [0]);
        const buffer = loan!.handOver(t.reservation);
        // Pooled buffers come back as they were left: every field starts at 0.
        new Uint8Array(buffer, 0, bytes).fill(0);
        t.buffers.push(buffer);
        t.free.push(i);
      }
    } catch (err) {
      t.release();
      throw err;
    }
    return t;
  }

  get all(): readonly SharedArrayBuffer[] {
    return this.buffers;
  }

  /** A table no task holds: there are as many as tasks run at once. */
  lend(): number {
    const i = this.free.pop();
    if (i === undefined) throw new ExecutionError('INTERNAL', 'internal: a dense group-by task found every table lent');
    return i;
  }

  giveBack(i: number): void {
    this.free.push(i);
  }

  release(): void {
    for (const b of this.buffers.splice(0)) this.ctx.pool.give(this.reservation, b);
    this.reservation.free();
  }
}

export async function runDenseGroupBy(
  ctx: RunContext,
  plan: GroupByStagePlan,
  dense: DensePlan,
  range: { base: number; span: number },
  input: AsyncIterator<A.RecordBatch>,
): Promise<DenseOutcome> {
  const { base, span } = range;
  let tables: DenseTables;
  try {
    tables = await DenseTables.take(ctx, tableBytes(dense, span), ctx.concurrency);
  } catch (err) {
    // Tables that do not fit next to what else holds the budget: the hash group-by, which
    // spills, runs instead (nothing was read).
    if (err instanceof ExecutionError && err.code === 'MEMORY_EXHAUSTED') return { kind: 'outside', consumed: 0 };
    throw err;
  }
  let consumed = 0;
  let added = 0;
  let outside = false;
  // Slabs of about slabRows rows (small batches joined, big ones cut) whose loans fit a task's share.
  const slabs = async function* (): AsyncGenerator<Slab> {
    let slab: Slab = { batches: [], rows: 0, rowBase: 0 };
    for (;;) {
      ctx.checkAbort();
      const r = outside ? { done: true as const } : await input.next();
      if (r.done) break;
      consumed += r.value.numRows;
      // A table's counts are 32-bit words: an input that turns out longer than its preview said
      // hands over to the hash group-by (which replays every row consumed) before one could wrap.
      if (consumed >= 2 ** 32) {
        outside = true;
        break;
      }
      const batch = selectColumns(r.value, dense.columns);
      const perRow = batch.numRows > 0 ? batchCopyBytes(batch) / batch.numRows : 0;
      const fit = Math.floor((ctx.limits.taskBytes - 3 * LOAN_SLACK) / (1.25 * (perRow + scratchPerRow(dense))));
      const slabRows = Math.max(1, Math.min(SLAB_ROWS, ctx.config.slabRows, fit));
      for (let start = 0; start < batch.numRows; ) {
        const len = Math.min(slabRows - slab.rows, batch.numRows - start);
        slab.batches.push(start === 0 && len === batch.numRows ? batch : batch.slice(start, start + len));
        slab.rows += len;
        start += len;
        if (slab.rows >= slabRows) {
          yield slab;
          slab = { batches: [], rows: 0, rowBase: slab.rowBase + slab.rows };
        }
      }
    }
    if (slab.rows > 0 && !outside) yield slab;
  };
  ctx.progress.start('partition');
  ctx.progress.start('kernel');
  try {
    // A slab is copied into shared memory while the tasks before it run (orderedMapAhead):
    // copied only once a thread was free, each slab of 512k rows kept a worker waiting ~1.7 ms.
    const done = orderedMapAhead(
      slabs(),
      async ({ batches, rows: n, rowBase }, lane) => {
        if (outside) return;
        const inBytes = batches.reduce((t, b) => t + batchCopyBytes(b) + 64 * b.numCols, 0) + LOAN_SLACK;
        const [inLoan, scratch] = await ctx.loans('groupBy.dense.slab', [inBytes, scratchPerRow(dense) * n + 8 * dense.columns.length + LOAN_SLACK]);
        try {
          const arena = new SharedArena(1 << 16, inLoan!.buffer, false);
          const described = batches.map((b) => describeBatch(b, arena.alloc));
          await lane(async () => {
            if (outside) return;
            const lent = tables.lend();
            try {
              const res = await ctx.task({ kind: 'denseAgg', batches: described, rowBase, table: tables.all[lent]!, base, span, outputs: dense.outputs, scratch: scratch!.buffer });
              ctx.stats.overflowBytes += res.scratch.overflow;
              if (!res.value.inRange) outside = true;
              else {
                if (res.value.rows !== n) throw new ExecutionError('INTERNAL', `groupBy: a slab held ${n} rows but its task added ${res.value.rows}; refusing to return a partial result`);
                added += n;
                // A slab added is routed and computed at once: both bars move together.
                ctx.progress.add('partition', n);
                ctx.progress.add('kernel', n);
              }
            } finally {
              tables.giveBack(lent);
            }
          });
        } finally {
          inLoan!.release();
          scratch!.release();
        }
      },
      // (a slab's task keeps no result: its loans alone, which wait for room)
      ctx.concurrency,
    );
    for await (const _ of ctx.clock.phaseOf('kernel', done)) {
      if (outside) break;
    }
    if (outside) {
      // The hash group-by counts every row again: its first `added` rows are already on the bars.
      ctx.progress.recount('partition', added);
      ctx.progress.recount('kernel', added);
      return { kind: 'outside', consumed };
    }
    if (added !== consumed) throw new ExecutionError('INTERNAL', `groupBy: ${consumed} rows read but ${added} added; refusing to return a partial result`);
    const prev = ctx.clock.enter('assemble');
    try {
      return { kind: 'done', batch: outputBatch(ctx, plan, dense, range, tables.all) };
    } finally {
      ctx.clock.enter(prev);
    }
  } finally {
    tables.release();
  }
}

/**
 * Scratch bytes a slab task takes a row: its slots (4), and per column at most a validity byte,
 * a bool's value byte and large strings' 32-bit offsets (src/worker/dense-agg-task).
 */
function scratchPerRow(dense: DensePlan): number {
  return 4 + 6 * dense.columns.length;
}

/** argsortWords' digit counts for 32-bit keys: at most three of 2^11 words. */
const ARGSORT_COUNT_BYTES = 3 * 4 * 2 ** 11;

/** An empty array of an integer-valued type's values. */
function integerValues(type: TypeDesc, n: number): DenseColumn['values'] {
  const values = new (ctorOf(type))(n);
  if (values instanceof Float32Array || values instanceof Float64Array) throw new Error(`internal: ${type.kind} is not integer-valued`);
  return values;
}

/** The tables merged into the first, and one output row per group in first-row order. */
function outputBatch(ctx: RunContext, plan: GroupByStagePlan, dense: DensePlan, range: { base: number; span: number }, tables: readonly SharedArrayBuffer[]): A.RecordBatch | null {
  const layout = denseLayout(dense.outputs);
  const slots = range.span + 1;
  const views = tables.map((t) => new Int32Array(t, 0, slots * layout.stride));
  for (let i = 1; i < views.length; i++) mergeDense(views[0]!, views[i]!, layout, slots);
  const types = plan.resolved.output.map((f) => f.type);
  const held = ctx.budget.reserve('groupBy.dense.output');
  try {
    // At most a slot each: its first row and id, the radix argsort's rows and ping-pong rows,
    // and the ids in order; and the argsort's digit counts.
    held.grow(20 * slots + ARGSORT_COUNT_BYTES);
    const { firsts, ids } = presentSlots(views[0]!, layout.stride, slots);
    const n = ids.length;
    if (n === 0) return null;
    const groups = { order: permuteValues(ids, argsortWords([firsts], n), localAlloc), table: views[0]! };
    held.grow(types.reduce((t, type) => t + n * (ctorOf(type).BYTES_PER_ELEMENT + 1), 0));
    const columns = dense.outputs.map((_, i) => {
      const type = types[i]!;
      const col = denseOutputColumn(groups, layout, dense.outputs, i, range.base, range.span, integerValues(type, n));
      return computedData(type, col.values, col.valid, n);
    });
    return batchFromColumns(schemaToArrow(plan.resolved.output), columns, n);
  } finally {
    held.free();
  }
}
