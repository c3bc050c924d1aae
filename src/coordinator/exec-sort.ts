/**
 * A global sort on the shared blocking path:
 *
 *   ingest every column into one partition (spilled over the budget), sampling the sort keys
 *   (./sort-sample) ─► when more than one range is wanted: range-route the rows by (keys, row
 *   id) against the sample's splitters (route tasks, ./reroute) ─► per range, in order: one
 *   task sorts the range with one stable radix argsort and gathers every column ─► the ranges'
 *   rows are the output, range by range, at most one range per thread in flight.
 *
 * Ranges: as many as the engine's partitions, and more when the data would not fit one task's
 * share of the budget (about three times its bytes per range). Equal keys keep input order:
 * ranges split by (keys, row id), and each range is loaded in row-id order before its stable
 * sort. There is no replay: the sort routes every column.
 */
import type * as A from 'apache-arrow';
import { batchFromColumns, rebuildData } from '../columns/shared.js';
import { ExecutionError } from '../errors.js';
import { sortKeyText, type ResolvedSortKey } from '../ops/sort-spec.js';
import type { Exchange } from '../shuffle/exchange.js';
import type { SortKeyOrder } from '../types/tasks.js';
import { fixedWidth } from './column-widths.js';
import { ingest } from './ingest.js';
import { reroute } from './reroute.js';
import { LOAN_SLACK, type RunContext } from './run-context.js';
import { orderedMap } from './scheduler.js';
import { SortSampler } from './sort-sample.js';

const MAX_ROWS = 0xffffffff;
const MAX_RANGES = 4096;

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
  return inputBytes + rows * (24 + keyBytes);
}

export async function* execSort(ctx: RunContext, plan: SortStagePlan, input: AsyncIterable<A.RecordBatch>, inputSchema: A.Schema, owned: boolean): AsyncGenerator<A.RecordBatch> {
  const columns = inputSchema.fields.map((_, i) => i);
  const sampler = new SortSampler(
    plan.orders.map((o) => o.column),
    plan.orders,
  );
  const ingested = await ingest(ctx, input, inputSchema, {
    name: 'sort',
    routed: columns,
    hashKeys: [],
    partitions: 1,
    owned,
    retain: false,
    onBatch: (batch, rowBase) => sampler.add(batch, rowBase),
  });
  let exchange: Exchange = ingested.exchange;
  try {
    const rows = ingested.rows;
    if (rows > MAX_ROWS) throw new ExecutionError('TOO_MANY_ROWS', `sort: ${rows} input rows exceed the ${MAX_ROWS} rows one sort can number`);
    if (rows === 0) return;
    const bytes = exchange.memoryBytesOf(0) + exchange.spillBytesOf(0);
    const needed = Math.ceil((3 * bytes) / Math.max(1, ctx.limits.taskBytes - 4 * LOAN_SLACK));
    const wanted = Math.min(MAX_RANGES, Math.max(ctx.config.partitions, needed));
    const split = wanted > 1 ? sampler.splitters(wanted) : null;
    if (split) {
      const routing = { kind: 'sortRange' as const, keys: plan.orders, splitters: split.columns, splitterIds: split.ids, partitions: split.count + 1 };
      const from = exchange;
      exchange = await reroute(ctx, from, 0, routing, 'sort.ranges');
      from.release();
    }
    const schema = inputSchema;
    const ex = exchange;
    async function* ranges(): AsyncGenerator<number> {
      for (const r of ex.nonEmpty()) yield r;
    }
    const sorted = orderedMap(
      ranges(),
      async (r) => {
        const n = ex.rowsOf(r);
        const scratchBytes = sortScratch(plan, n, ex.memoryBytesOf(r) + 2 * ex.spillBytesOf(r)) + LOAN_SLACK;
        const [scratch] = await ctx.loans('sort', [scratchBytes]);
        try {
          const done = await ctx.clock.during('sort', ctx.task({ kind: 'sort', input: ex.inputFor(r), keys: plan.orders, scratch: scratch!.buffer }));
          scratch!.release();
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
    let done = 0;
    const total = ex.nonEmpty().length;
    for await (const batch of sorted) {
      ctx.checkAbort();
      ctx.progress('sort', ++done, total);
      yield batch;
    }
  } finally {
    exchange.release();
    ingested.exchange.release();
  }
}

