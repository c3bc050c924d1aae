/**
 * Executes a row-local chain: each input batch (big ones cut into slices) is copied once into
 * a pooled shared buffer and sent to a worker; results come back in input order with at most
 * one task per thread in flight plus one waiting, so memory stays bounded by a few slices
 * whatever the input size.
 *
 * Memory: a task holds two loans (its input copy and its scratch), and its result, built in
 * transferable buffers, counts as `rowlocal.results` until the consumer takes it. Slices are
 * sized so that a task's input, scratch and result fit in one task's share of the budget, from
 * what earlier tasks measured per input row (an explode's output can be many times its input).
 */
import type * as A from 'apache-arrow';
import { SharedArena } from '../columns/arena.js';
import { batchCopyBytes, batchFromColumns, descBytes, describeBatch, rebuildData } from '../columns/shared.js';
import { LoanCopies } from './loan-copies.js';
import type { RowOp } from '../types/tasks.js';
import { LOAN_SLACK, type RunContext } from './run-context.js';
import { orderedMapAhead } from './scheduler.js';

/** Largest slice sent as one task: big batches are sliced so every thread gets work. */
export const MAX_TASK_ROWS = 128 * 1024;
const MIN_TASK_ROWS = 256;

export async function* execRowLocal(
  ctx: RunContext,
  ops: RowOp[],
  schema: A.Schema,
  input: AsyncIterable<A.RecordBatch>,
  /** The caller keeps every batch (src/coordinator/execute runStage): outputs built in shared memory. */
  collected = false,
): AsyncGenerator<A.RecordBatch> {
  // Measured bytes per input row: scratch used, and result size (input copy is known).
  let scratchPerRow = 16;
  let resultPerRow = 0;
  let rowBase = 0;
  const results = ctx.budget.reserve('rowlocal.results');
  const sliceRows = (inputPerRow: number): number => {
    const perRow = inputPerRow + scratchPerRow + Math.max(resultPerRow, 2 * inputPerRow);
    const fit = Math.floor((ctx.limits.taskBytes - 3 * LOAN_SLACK) / (perRow * 1.25));
    return Math.max(MIN_TASK_ROWS, Math.min(MAX_TASK_ROWS, fit));
  };
  const sliced = async function* (): AsyncGenerator<{ batch: A.RecordBatch; rowBase: number }> {
    for await (const batch of input) {
      const perRow = batch.numRows > 0 ? batchCopyBytes(batch) / batch.numRows : 0;
      for (let start = 0; start < batch.numRows; ) {
        const len = Math.min(sliceRows(perRow), batch.numRows - start);
        const piece = start === 0 && len === batch.numRows ? batch : batch.slice(start, start + len);
        yield { batch: piece, rowBase };
        rowBase += len;
        start += len;
      }
    }
  };
  // A slice is copied while the tasks before it run (orderedMapAhead).
  const done = orderedMapAhead(
    sliced(),
    async ({ batch, rowBase: base }, lane) => {
      const n = Math.max(1, batch.numRows);
      const inBytes = batchCopyBytes(batch) + 64 * batch.numCols + LOAN_SLACK;
      const [inLoan, scratch] = await ctx.loans('rowlocal', [inBytes, Math.ceil(scratchPerRow * 1.25 * n) + LOAN_SLACK]);
      try {
        const arena = new SharedArena(1 << 16, inLoan!.buffer, false);
        const copies = new LoanCopies();
        const desc = describeBatch(batch, arena.alloc, copies.onCopy);
        const res = await lane(() => ctx.task({ kind: 'rowlocal', batch: desc, rowBase: base, ops, sharedResults: collected, scratch: scratch!.buffer }));
        // Views of the input leave the loan before it is reused (shared with the input when they can).
        res.value.columns = copies.resolveAll(res.value.columns, desc);
        scratchPerRow = Math.max(scratchPerRow, (res.scratch.used + res.scratch.overflow) / n);
        ctx.stats.overflowBytes += res.scratch.overflow;
        const bytes = res.value.columns.reduce((s, c) => s + descBytes(c), 0);
        resultPerRow = Math.max(resultPerRow, bytes / n);
        // The result is Sluice's until the consumer takes it.
        results.grow(bytes);
        if (collected) ctx.handsOutShared(bytes);
        return { value: res.value, bytes };
      } finally {
        inLoan!.release();
        scratch!.release();
      }
    },
    ctx.concurrency,
    ctx.roomAhead,
  );
  try {
    for await (const { value, bytes } of ctx.clock.phaseOf('kernel', done)) {
      const batch = batchFromColumns(schema, value.columns.map(rebuildData), value.length);
      results.shrink(bytes);
      yield batch;
    }
  } finally {
    results.free();
  }
}
