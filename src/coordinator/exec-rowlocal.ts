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
import { SharedArena, TransferArena } from '../columns/arena.js';
import { batchCopyBytes, batchFromColumns, bufRefOf, descBytes, describeBatch, rebuildData } from '../columns/shared.js';
import { elementSlabBytes, explodeElements, explodeSplitOf, parentBytes, planExplodeSlice, type ExplodeSplit } from './explode-split.js';
import { LoanCopies } from './loan-copies.js';
import type { RowOp } from '../types/tasks.js';
import { LOAN_SLACK, type RunContext } from './run-context.js';
import { orderedMapAhead, type TaskLane } from './scheduler.js';

/**
 * A slice's output columns: the bytes of them Sluice made outside pooled chunks (counted as
 * `rowlocal.results` once made), and the chunks (counted when taken), each with the wrapper
 * the columns view it through, handed out with the batch (src/memory/buffer-pool handOut).
 */
interface Produced {
  columns: A.Data[];
  length: number;
  bytes: number;
  chunks: Array<{ chunk: SharedArrayBuffer; wrapper: SharedArrayBuffer }>;
}

/** A collected result smaller than this takes no pooled chunk (a buffer of its own is cheap). */
const MIN_CHUNK_BYTES = 64 * 1024;

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
  const split = explodeSplitOf(ops);
  /**
   * A worker's part of a slice: its columns copied into a loan, the ops (made beside them in
   * the loan) applied to them, its outputs carved from `chunk` first when given.
   */
  const runTask = async (batch: A.RecordBatch, base: number, lane: TaskLane, opsIn: (loan: SharedArena) => RowOp[], chunk: SharedArrayBuffer | null): Promise<Produced> => {
    const n = Math.max(1, batch.numRows);
    const inBytes = batchCopyBytes(batch) + 64 * batch.numCols + 4 * (n + 1) + LOAN_SLACK;
    const [inLoan, scratch] = await ctx.loans('rowlocal', [inBytes, Math.ceil(scratchPerRow * 1.25 * n) + LOAN_SLACK]);
    try {
      const arena = new SharedArena(1 << 16, inLoan!.buffer, false);
      const copies = new LoanCopies();
      const desc = describeBatch(batch, arena.alloc, copies.onCopy);
      // The task's own wrapper of the chunk (the pool keeps its own: see BufferPool.handOut).
      const resultChunk = chunk === null ? null : structuredClone(chunk);
      const res = await lane(() => ctx.task({ kind: 'rowlocal', batch: desc, rowBase: base, ops: opsIn(arena), sharedResults: collected, resultChunk, scratch: scratch!.buffer }));
      // Views of the input leave the loan before it is reused (shared with the input when they can).
      const columns = copies.resolveAll(res.value.columns, desc);
      scratchPerRow = Math.max(scratchPerRow, (res.scratch.used + res.scratch.overflow) / n);
      ctx.stats.overflowBytes += res.scratch.overflow;
      const wrapper = res.value.resultChunk;
      // Bytes outside the chunk (counted in the results when the task is done; the chunk was when taken).
      const bytes = columns.reduce((sum, c) => sum + descBytes(c, wrapper), 0);
      if (collected) ctx.handsOutShared(bytes);
      return { columns: columns.map(rebuildData), length: res.value.length, bytes, chunks: chunk !== null && wrapper !== null ? [{ chunk, wrapper }] : [] };
    } finally {
      inLoan!.release();
      scratch!.release();
    }
  };
  /** A pooled buffer for `bytes` of a collected result, counted in `results`; null when not collected, tiny or no room. */
  const takeChunk = (bytes: number): SharedArrayBuffer | null => (collected && bytes >= MIN_CHUNK_BYTES ? ctx.pool.tryTake(results, bytes, 'brief') : null);
  /**
   * A slice of a split explode (./explode-split): a worker repeats the parents while the
   * elements are built here, both into pooled result memory for a collected run.
   */
  const runSplit = async (sp: ExplodeSplit, batch: A.RecordBatch, base: number, lane: TaskLane): Promise<Produced> => {
    const slice = planExplodeSlice(sp, batch, base);
    const { plan } = slice;
    const repeat = (arena: SharedArena): RowOp[] => {
      const outStart = arena.alloc(Int32Array, plan.n + 1, 'overwritten');
      outStart.set(plan.outStart.subarray(0, plan.n + 1));
      return [{ kind: 'repeat', outStart: bufRefOf(outStart), length: plan.length }];
    };
    const parentsChunk = sp.parents.length > 0 ? takeChunk(parentBytes(slice)) : null;
    const pending = sp.parents.length > 0 ? runTask(slice.parentBatch, base, lane, repeat, parentsChunk) : null;
    let elements: Array<A.Data | null>;
    const own = new TransferArena(false, collected);
    const chunk = takeChunk(elementSlabBytes(sp, slice, batch));
    const wrapper = chunk === null ? null : structuredClone(chunk);
    try {
      // Arrays past the chunk (other element types) get buffers of their own.
      elements = explodeElements(sp, slice, batch, wrapper === null ? own.alloc : new SharedArena(0, wrapper, true, own.alloc).alloc);
    } catch (err) {
      await pending?.catch(() => undefined);
      throw err;
    }
    const repeated = pending === null ? null : await pending;
    const columns = sp.op.spec.sources.map((src, i) => (src.kind === 'column' ? repeated!.columns[sp.parents.indexOf(src.column)]! : elements[i]!));
    const chunks = [...(repeated?.chunks ?? []), ...(chunk !== null && wrapper !== null ? [{ chunk, wrapper }] : [])];
    return { columns, length: plan.length, bytes: own.owned.reduce((sum, b) => sum + b.byteLength, 0) + (repeated?.bytes ?? 0), chunks };
  };
  // A slice is copied while the tasks before it run (orderedMapAhead).
  const done = orderedMapAhead(
    sliced(),
    async ({ batch, rowBase: base }, lane) => {
      const out = split !== null ? await runSplit(split, batch, base, lane) : await runTask(batch, base, lane, () => ops, null);
      const chunkBytes = out.chunks.reduce((sum, c) => sum + c.chunk.byteLength, 0);
      resultPerRow = Math.max(resultPerRow, (out.bytes + chunkBytes) / Math.max(1, batch.numRows));
      // The result is Sluice's until the consumer takes it (its chunks were counted when taken).
      results.grow(out.bytes);
      return out;
    },
    ctx.concurrency,
    ctx.roomAhead,
  );
  try {
    for await (const { columns, length, bytes, chunks } of ctx.clock.phaseOf('kernel', done)) {
      const batch = batchFromColumns(schema, columns, length);
      results.shrink(bytes);
      for (const { chunk, wrapper } of chunks) ctx.pool.handOut(results, chunk, wrapper);
      yield batch;
    }
  } finally {
    results.free();
  }
}
