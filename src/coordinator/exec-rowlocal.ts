/**
 * Executes a row-local chain: each input batch (big ones cut into slices) is copied once into
 * shared memory and sent to a worker; results come back in input order with at most two tasks
 * per thread in flight, so memory stays bounded by a few batches whatever the input size.
 */
import * as A from 'apache-arrow';
import { SharedArena } from '../columns/arena.js';
import { batchBytes, batchFromColumns, describeBatch, rebuildData } from '../columns/shared.js';
import type { RowLocalResult, RowOp } from '../types/tasks.js';
import type { RunContext } from './run-context.js';
import { orderedMap } from './scheduler.js';

/** Largest batch sent as one task: big batches are sliced so every thread gets work. */
export const MAX_TASK_ROWS = 128 * 1024;

export async function* execRowLocal(ctx: RunContext, ops: RowOp[], schema: A.Schema, input: AsyncIterable<A.RecordBatch>): AsyncGenerator<A.RecordBatch> {
  let rowBase = 0;
  const sliced = async function* (): AsyncGenerator<{ batch: A.RecordBatch; rowBase: number }> {
    for await (const batch of input) {
      for (let start = 0; start < batch.numRows; start += MAX_TASK_ROWS) {
        const len = Math.min(MAX_TASK_ROWS, batch.numRows - start);
        const piece = start === 0 && len === batch.numRows ? batch : batch.slice(start, start + len);
        yield { batch: piece, rowBase };
        rowBase += len;
      }
    }
  };
  const results = orderedMap(
    sliced(),
    async ({ batch, rowBase: base }) => {
      // The batch goes over in a pooled shared buffer, reused once the task is done (the
      // task's output never refers to it).
      const input = ctx.pool.take(batchBytes(batch) + 64 * batch.numCols + 4096);
      const arena = new SharedArena(Math.max(1 << 16, Math.min(16 << 20, batch.numRows * 16 * batch.numCols)), input, false);
      const t0 = performance.now();
      try {
        return await ctx.run<RowLocalResult>({ kind: 'rowlocal', batch: describeBatch(batch, arena.alloc), rowBase: base, ops });
      } finally {
        ctx.pool.give([input]);
        ctx.addPhase('kernel', performance.now() - t0);
      }
    },
    ctx.concurrency,
  );
  for await (const res of results) {
    yield batchFromColumns(schema, res.columns.map(rebuildData), res.length);
  }
}

