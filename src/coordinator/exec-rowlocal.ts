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
import { elementIndexBytes, elementSlabBytes, explodeElements, explodeSplitOf, planBytes, planExplodeSlice, type ExplodeSlice, type ExplodeSplit } from './explode-split.js';
import { LoanCopies } from './loan-copies.js';
import type { RowOp } from '../types/tasks.js';
import { budgetTooSmall, LOAN_SLACK, type RunContext } from './run-context.js';
import { formatBytes } from '../memory/budget.js';
import { orderedMapAhead, type TaskLane } from './scheduler.js';

/** A slice's output columns and the bytes of them Sluice made (counted as `rowlocal.results`). */
interface Produced {
  columns: A.Data[];
  length: number;
  bytes: number;
}

/** Largest slice sent as one task: big batches are sliced so every thread gets work. */
export const MAX_TASK_ROWS = 128 * 1024;
const MIN_TASK_ROWS = 256;
/** Slabs of a split explode's element arrays past the one its task made (./explode-split). */
const FALLBACK_SLAB_BYTES = 4096;

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
  /** A worker's part of a slice: its columns copied into a loan, the ops (made beside them in the loan) applied to them. */
  const runTask = async (batch: A.RecordBatch, base: number, lane: TaskLane, opsIn: (loan: SharedArena) => RowOp[]): Promise<Produced & { slab: SharedArrayBuffer | null }> => {
    const n = Math.max(1, batch.numRows);
    const inBytes = batchCopyBytes(batch) + 64 * batch.numCols + 4 * (n + 1) + LOAN_SLACK;
    const [inLoan, scratch] = await ctx.loans('rowlocal', [inBytes, Math.ceil(scratchPerRow * 1.25 * n) + LOAN_SLACK]);
    try {
      const arena = new SharedArena(1 << 16, inLoan!.buffer, false);
      const copies = new LoanCopies();
      const desc = describeBatch(batch, arena.alloc, copies.onCopy);
      const res = await lane(() => ctx.task({ kind: 'rowlocal', batch: desc, rowBase: base, ops: opsIn(arena), sharedResults: collected, scratch: scratch!.buffer }));
      // Views of the input leave the loan before it is reused (shared with the input when they can).
      const columns = copies.resolveAll(res.value.columns, desc);
      scratchPerRow = Math.max(scratchPerRow, (res.scratch.used + res.scratch.overflow) / n);
      ctx.stats.overflowBytes += res.scratch.overflow;
      const slab = res.value.slab?.sab ?? null;
      if (slab !== null && !(slab instanceof SharedArrayBuffer)) throw new Error('internal: a row-local task returned its slab outside shared memory');
      const bytes = columns.reduce((sum, c) => sum + descBytes(c), 0) + (slab?.byteLength ?? 0);
      if (collected) ctx.handsOutShared(bytes);
      return { columns: columns.map(rebuildData), length: res.value.length, bytes, slab };
    } finally {
      inLoan!.release();
      scratch!.release();
    }
  };
  /**
   * A slice of a split explode (./explode-split): a worker repeats the parents and returns a
   * blank slab (collected runs: shared memory) that the elements are then built in here.
   */
  const runSplit = async (sp: ExplodeSplit, batch: A.RecordBatch, base: number, lane: TaskLane): Promise<Produced> => {
    // The plan's and the element builders' temporaries on this thread, counted until the slice is built.
    const planned = planBytes(batch.numRows, sp.op.inputs.length);
    // More than the whole budget: say so as a loan would (MEMORY_BUDGET_TOO_SMALL), before any row.
    if (planned > ctx.budget.limit) throw budgetTooSmall(ctx.budget.limit, Math.ceil((2 * planned) / 2 ** 20) * 2 ** 20, `one explode slice's plan needs ${formatBytes(planned)}`);
    const temps = ctx.budget.reserve('rowlocal.explode-plan');
    try {
      temps.grow(planned);
      const slice = planExplodeSlice(sp, batch, base);
      // Known once planned: a nested element's child indices, one a row out.
      temps.grow(elementIndexBytes(slice.plan.length));
      return await buildSplit(sp, slice, batch, base, lane);
    } finally {
      temps.free();
    }
  };
  const buildSplit = async (sp: ExplodeSplit, slice: ExplodeSlice, batch: A.RecordBatch, base: number, lane: TaskLane): Promise<Produced> => {
    const { plan } = slice;
    const slabBytes = collected && sp.parents.length > 0 ? elementSlabBytes(sp, slice, batch) : 0;
    const repeat = (arena: SharedArena): RowOp[] => {
      const outStart = arena.alloc(Int32Array, plan.n + 1, 'overwritten');
      outStart.set(plan.outStart.subarray(0, plan.n + 1));
      return [{ kind: 'repeat', outStart: bufRefOf(outStart), length: plan.length, slabBytes }];
    };
    const repeated = sp.parents.length > 0 ? await runTask(slice.parentBatch, base, lane, repeat) : null;
    let elements: Array<A.Data | null>;
    let bytes = repeated?.bytes ?? 0;
    if (repeated?.slab) {
      // Arrays past the slab (other element types) get shared buffers of their own, small
      // ones slabs of a few KiB (counted whole).
      const arena = new SharedArena(FALLBACK_SLAB_BYTES, repeated.slab, false);
      elements = explodeElements(sp, slice, batch, arena.alloc);
      bytes += arena.reserved;
    } else {
      const arena = new TransferArena(false, collected);
      elements = explodeElements(sp, slice, batch, arena.alloc);
      bytes += arena.owned.reduce((sum, b) => sum + b.byteLength, 0);
    }
    const columns = sp.op.spec.sources.map((src, i) => (src.kind === 'column' ? repeated!.columns[sp.parents.indexOf(src.column)]! : elements[i]!));
    return { columns, length: plan.length, bytes };
  };
  // A slice is copied while the tasks before it run (orderedMapAhead).
  const done = orderedMapAhead(
    sliced(),
    async ({ batch, rowBase: base }, lane) => {
      const out = split !== null ? await runSplit(split, batch, base, lane) : await runTask(batch, base, lane, () => ops);
      resultPerRow = Math.max(resultPerRow, out.bytes / Math.max(1, batch.numRows));
      // The result is Sluice's until the consumer takes it.
      results.grow(out.bytes);
      return out;
    },
    ctx.concurrency,
    ctx.roomAhead,
  );
  try {
    for await (const { columns, length, bytes } of ctx.clock.phaseOf('kernel', done)) {
      const batch = batchFromColumns(schema, columns, length);
      results.shrink(bytes);
      yield batch;
    }
  } finally {
    results.free();
  }
}
