/**
 * A global sort on the shared blocking path:
 *
 *   an input in memory (the caller's tables): its sort keys sampled first (./sort-sample), then
 *   every column ingested and routed by (keys, row id) against the sample's splitters in the
 *   partition tasks, one pass; any other input: ingested into one partition (spilled over the
 *   budget) while its keys are sampled, then, when more than one range is wanted, range-routed
 *   (route tasks, ./reroute) ─► per range, in order: one
 *   task sorts the range with one stable radix argsort and gathers every column ─► the ranges'
 *   rows are the output, range by range, at most one range per thread in flight.
 *
 * Ranges: as many as the engine's partitions, and more when the data would not fit one task's
 * share of the budget (about three times its bytes per range); a range that still does not fit
 * (a sample is only a sample) is split again by its own quantiles before it is sorted. Equal keys keep input order:
 * ranges split by (keys, row id), and each range is loaded in row-id order before its stable
 * sort. There is no replay: the sort routes every column.
 */
import type * as A from 'apache-arrow';
import { batchCopyBytes, batchFromColumns, rebuildData, descBytes } from '../columns/shared.js';
import { ExecutionError } from '../errors.js';
import { sortKeyText, type ResolvedSortKey } from '../ops/sort-spec.js';
import type { Exchange } from '../shuffle/exchange.js';
import type { SortKeyOrder, SortRangeRouting } from '../types/tasks.js';
import { fixedWidth } from './column-widths.js';
import { ingest } from './ingest.js';
import { bytesForTasks, loadBytesOf } from './partitioned.js';
import { reroute } from './reroute.js';
import { LOAN_SLACK, type RunContext } from './run-context.js';
import { orderedMap } from './scheduler.js';
import { sampleDestination } from './exchange-sample.js';
import { SortSampler } from './sort-sample.js';

const MAX_ROWS = 0xffffffff;
const MAX_RANGES = 4096;
/** Rows of the average size a task's share must hold for the sort to plan its exchange's headroom. */
const SMALL_ROWS = 1024;

export interface SortStagePlan {
  keys: ResolvedSortKey[];
  orders: SortKeyOrder[];
  explain(indent: string, partitions: number): string[];
}

export function planSort(keys: ResolvedSortKey[]): SortStagePlan {
  const orders = keys.map((k) => ({ column: k.index, descending: k.descending, nullsFirst: k.nulls === 'first' }));
  return {
    keys,
    orders,
    explain(indent, partitions) {
      const next = indent + '  ';
      return [
        `${indent}Sort (${keys.map(sortKeyText).join(', ')}), stable`,
        `${next}partitioning: range-partitioned on sampled quantiles of (${keys.map((k) => k.name).join(', ')}, row id) into ${partitions} ranges or more (enough for each to fit a task's share of the budget); every column routed`,
        `${next}sort per range: LSD radix argsort, once; ties keep input order (row id)`,
        `${next}output: ranges in key order, each range's rows in sorted order`,
      ];
    },
  };
}

/** Scratch a sort task needs: its input made contiguous, key words, ping-pong buffers, permutation. */
function sortScratch(plan: SortStagePlan, rows: number, inputBytes: number): number {
  const keyBytes = plan.keys.reduce((s, k) => s + (fixedWidth(k.type) > 4 ? 8 : 4) * 3, 0);
  // Per row: the permutation, two ping-pong index buffers, the row ids and the loaded ids (4 bytes
  // each), and the merge of a spilled range's pieces by row id (measured: ~20 bytes a row more).
  return inputBytes + rows * (56 + keyBytes);
}

/**
 * `preview`: the input's batches once before the run reads them (the caller's tables in
 * memory): the keys are sampled from it first, so the rows are routed by range as they are
 * ingested, with no single partition to hold (and spill) and no second routing pass.
 */
export async function* execSort(
  ctx: RunContext,
  plan: SortStagePlan,
  input: AsyncIterable<A.RecordBatch>,
  inputSchema: A.Schema,
  owned: boolean,
  preview: (() => AsyncIterable<A.RecordBatch>) | null,
  /** The caller keeps every batch (src/coordinator/execute runStage): outputs in shared memory. */
  collected = false,
): AsyncGenerator<A.RecordBatch> {
  const columns = inputSchema.fields.map((_, i) => i);
  const sampler = new SortSampler(
    plan.orders.map((o) => o.column),
    plan.orders,
  );
  // Enough ranges for each range's task (its rows read back, key words, permutation) to fit a
  // task's share with room for the sample's imprecision.
  const rangesFor = (rows: number, bytes: number): number => {
    const needed = Math.ceil((2 * sortScratch(plan, rows, bytes)) / Math.max(1, ctx.limits.taskBytes - 4 * LOAN_SLACK));
    return Math.min(MAX_RANGES, Math.max(ctx.config.partitions, needed));
  };
  let ranges: SortRangeRouting | null = null;
  let headroom: number | undefined;
  if (preview) {
    let rows = 0;
    let bytes = 0;
    for await (const batch of preview()) {
      ctx.checkAbort();
      if (batch.numRows === 0) continue;
      sampler.add(batch, rows);
      rows += batch.numRows;
      bytes += batchCopyBytes(batch);
    }
    // A range's load bytes (loadBytesOf) double when its pieces come back from a spill file
    // (read whole, then copied out): planned as if they will.
    const split = rows > 0 && rows <= MAX_ROWS ? sampler.splitters(rangesFor(rows, 2 * bytes + 4 * rows)) : null;
    if (split) {
      ranges = { kind: 'sortRange', keys: plan.orders, splitters: split.columns, splitterIds: split.ids, partitions: split.count + 1 };
      // The range tasks' loans are planned now, so the exchange need only leave room for those
      // of the tasks in flight (one range a thread), not the run's whole headroom (half the
      // budget): 10M rows of 68 bytes at 1 GiB then stay in memory instead of spilling 544 MB
      // of 680. Not when rows are big against a task's share: a range of one row cannot be
      // split, and its loan may need more than that room.
      if (bytes * SMALL_ROWS <= rows * ctx.limits.taskBytes) {
        const perRange = sortScratch(plan, Math.ceil(rows / ranges.partitions), Math.ceil((2 * bytes + 4 * rows) / ranges.partitions));
        headroom = bytesForTasks(ctx, new Array<number>(ctx.concurrency).fill(perRange));
      }
    }
  }
  const ingested = await ingest(ctx, input, inputSchema, {
    name: 'sort',
    routed: columns,
    hashKeys: [],
    partitions: ranges ? ranges.partitions : 1,
    owned,
    retain: false,
    ...(headroom !== undefined ? { headroom } : {}),
    ...(ranges ? { ranges } : { onBatch: (batch: A.RecordBatch, rowBase: number) => sampler.add(batch, rowBase) }),
  });
  let exchange: Exchange = ingested.exchange;
  try {
    const rows = ingested.rows;
    if (rows > MAX_ROWS) throw new ExecutionError('TOO_MANY_ROWS', `sort: ${rows} input rows exceed the ${MAX_ROWS} rows one sort can number`);
    if (rows === 0) return;
    ctx.progress.announce('sort', rows);
    ctx.progress.start('sort');
    const split = ranges ? null : sampler.splitters(rangesFor(rows, loadBytesOf(exchange, 0)));
    if (split) {
      const routing = { kind: 'sortRange' as const, keys: plan.orders, splitters: split.columns, splitterIds: split.ids, partitions: split.count + 1 };
      const from = exchange;
      exchange = await reroute(ctx, from, 0, routing, 'sort.ranges');
      from.release();
    }
    const schema = inputSchema;
    const pieces = new SplitRanges(ctx, plan);
    const sorted = orderedMap(
      pieces.units(exchange),
      async ({ ex, r }) => {
        const n = ex.rowsOf(r);
        const [scratch] = await ctx.loans('sort', [pieces.scratchOf(ex, r)]);
        try {
          const done = await ctx.clock.during('sort', ctx.task({ kind: 'sort', input: ex.inputFor(r), keys: plan.orders, sharedResults: collected, scratch: scratch!.buffer }));
          scratch!.release();
          if (collected) ctx.handsOutShared(done.value.columns.reduce((t, c) => t + descBytes(c), 0));
          ctx.stats.overflowBytes += done.scratch.overflow;
          ex.drop(r);
          if (done.value.length !== n) throw new ExecutionError('INTERNAL', `sort: range ${r} held ${n} rows but its task returned ${done.value.length}; refusing to return a partial result`);
          return batchFromColumns(schema, done.value.columns.map(rebuildData), n);
        } finally {
          scratch!.release();
        }
      },
      ctx.concurrency,
    );
    try {
      for await (const batch of sorted) {
        ctx.checkAbort();
        ctx.progress.add('sort', batch.numRows);
        yield batch;
      }
    } finally {
      pieces.release();
    }
  } finally {
    exchange.release();
    ingested.exchange.release();
  }
}


/**
 * The ranges of a sort in key order, a range too big for one task split again by its own
 * quantiles: every stride-th row of each of its pieces sampled by tasks, splitters drawn from
 * that sample (./sort-sample), the range routed into sub-ranges (./reroute), recursively.
 */
class SplitRanges {
  private readonly owned: Exchange[] = [];

  constructor(
    private readonly ctx: RunContext,
    private readonly plan: SortStagePlan,
  ) {}

  scratchOf(ex: Exchange, r: number): number {
    return sortScratch(this.plan, ex.rowsOf(r), loadBytesOf(ex, r)) + LOAN_SLACK;
  }

  async *units(ex: Exchange): AsyncGenerator<{ ex: Exchange; r: number }> {
    for (const r of ex.nonEmpty()) {
      const need = this.scratchOf(ex, r);
      const sub = need > this.ctx.limits.taskBytes && ex.rowsOf(r) > 1 ? await this.split(ex, r, need) : null;
      if (sub) yield* this.units(sub);
      else yield { ex, r };
    }
  }

  private async split(ex: Exchange, r: number, need: number): Promise<Exchange | null> {
    const ctx = this.ctx;
    const parts = Math.min(MAX_RANGES, Math.ceil((2 * need) / ctx.limits.taskBytes));
    const sampler = new SortSampler(
      this.plan.orders.map((_, k) => k),
      this.plan.orders,
    );
    const keys = this.plan.orders.map((o) => o.column);
    for (const part of await sampleDestination(ctx, ex, r, keys, Math.min(4096, 16 * parts), 'sort', 'sort')) sampler.addRows(part.ids, part.keys);
    const split = sampler.splitters(parts);
    if (!split) return null;
    const routing = { kind: 'sortRange' as const, keys: this.plan.orders, splitters: split.columns, splitterIds: split.ids, partitions: split.count + 1 };
    const sub = await reroute(ctx, ex, r, routing, 'sort.split');
    this.owned.push(sub);
    return sub;
  }

  release(): void {
    for (const e of this.owned) e.release();
  }
}
