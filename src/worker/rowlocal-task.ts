/**
 * Row-local task: applies a fused chain of select / withColumns / filter / explode to one
 * batch, column at a time (expressions evaluated vectorized, src/expr/evaluate). The output
 * columns are built in thread-local ArrayBuffers that travel back in the reply's transfer list:
 * the worker keeps no view of them (a worker's rare GCs would otherwise keep every batch's
 * memory alive); or, when the stage's rows are the run's collected result (`sharedResults`),
 * in SharedArrayBuffers the coordinator receives without a transfer: transferred buffers count
 * as external memory there, and its collector held explode's main thread ~200 ms a run (warm
 * runs 410-471 -> 324-397 ms, VmHWM unchanged). Columns passing through unchanged, and an
 * exploded list's bytes, stay views of the input: the coordinator resolves them to the memory
 * the input was copied from, or copies them, before it reuses the input's buffer
 * (src/coordinator/loan-copies).
 */
import type * as A from 'apache-arrow';
import { TransferArena } from '../columns/arena.js';
import { gatherData } from '../columns/gather.js';
import { buffersOf, bufRefsOf, describeData, rebuildData, toSharedData, viewOf } from '../columns/shared.js';
import { repeatRows } from '../columns/runs.js';
import type { BufRef, ColumnDesc } from '../types/column.js';
import { evaluate, evaluatePredicate } from '../expr/evaluate.js';
import type { RowLocalResult, RowLocalTask } from '../types/tasks.js';
import { explodeBatch } from '../ops/explode-batch.js';
import { scratchAlloc } from './scratch.js';

/** The smallest page size of the platforms Node runs on. */
const PAGE_BYTES = 4096;

export function runRowLocalTask(task: RowLocalTask): RowLocalResult {
  let columns: A.Data[] = task.batch.columns.map(rebuildData);
  let length = task.batch.length;
  const arena = new TransferArena(false, task.sharedResults);
  const alloc = arena.alloc;
  let slab: BufRef | null = null;

  for (const op of task.ops) {
    switch (op.kind) {
      case 'select':
        columns = op.items.map((it) => evaluate(it.expr, columns, length, alloc));
        break;
      case 'withColumns': {
        const values = op.columns.map((c) => evaluate(c.expr, columns, length, alloc));
        const next = columns.slice();
        op.columns.forEach((c, i) => {
          if (c.replace >= 0) next[c.replace] = values[i]!;
          else next.push(values[i]!);
        });
        columns = next;
        break;
      }
      case 'filter': {
        const keep = evaluatePredicate(op.predicate, columns, length);
        let count = 0;
        for (let i = 0; i < length; i++) count += keep[i]!;
        if (count === length) break;
        const idx = new Int32Array(count);
        for (let i = 0, k = 0; i < length; i++) if (keep[i]) idx[k++] = i;
        columns = columns.map((c) => gatherData(c, idx, count, alloc));
        length = count;
        break;
      }
      case 'explode': {
        const inputs = op.inputs.map((inp) => (inp.expr === null ? columns[inp.column!]! : evaluate(inp.expr, columns, length, alloc)));
        columns = explodeBatch(columns, inputs, op.spec, task.rowBase, alloc, (n) => scratchAlloc(Int32Array, n));
        length = columns.length > 0 ? columns[0]!.length : 0;
        if (columns.length === 0) length = 0;
        break;
      }
      case 'repeat': {
        const runs = { n: length, length: op.length, outStart: viewOf(Int32Array, op.outStart) };
        columns = columns.map((c) => repeatRows(c, runs, alloc, (n) => scratchAlloc(Int32Array, n)));
        length = op.length;
        if (op.slabBytes > 0) {
          const bytes = alloc(Uint8Array, op.slabBytes);
          // Its pages faulted in here, beside the coordinator, not by the coordinator's writes
          // (the heap maps fresh zero pages for it when it has given memory back).
          for (let i = 0; i < bytes.length; i += PAGE_BYTES) bytes[i] = 0;
          slab = { sab: bytes.buffer as ArrayBuffer | SharedArrayBuffer, byteOffset: 0, byteLength: op.slabBytes };
        }
        break;
      }
    }
  }
  // What a column may point into: the result's buffers and the input's (named for the
  // coordinator, which resolves them). A view of anything else (a computed list's child in
  // scratch) is copied.
  const inputRefs = task.batch.columns.flatMap(bufRefsOf);
  const inputBuffers = new Set<ArrayBufferLike>(inputRefs.map((r) => r.sab));
  const kept = new Set<ArrayBufferLike>([...arena.owned, ...inputBuffers]);
  const descs = columns.map((c) => (buffersOf(c).every((b) => kept.has(b.buffer)) ? nameInputViews(describeData(c, true), inputRefs, inputBuffers) : null) ?? describeData(toSharedData(c, alloc), true));
  return { length, columns: descs, slab, transfer: arena.buffers };
}

/**
 * `desc` with each region that lies in an input region marked with that region's number, or
 * null when one lies in an input buffer outside every input region (the caller copies it).
 */
function nameInputViews(desc: ColumnDesc, inputRefs: BufRef[], inputBuffers: ReadonlySet<ArrayBufferLike>): ColumnDesc | null {
  let unnamed = false;
  const mark = (r: BufRef | null): BufRef | null => {
    if (r === null || !inputBuffers.has(r.sab)) return r;
    const k = inputRefs.findIndex((x) => x.sab === r.sab && r.byteOffset >= x.byteOffset && r.byteOffset + r.byteLength <= x.byteOffset + x.byteLength);
    if (k < 0) unnamed = true;
    return { ...r, inInput: k };
  };
  const children: ColumnDesc[] = [];
  for (const c of desc.children) {
    const named = nameInputViews(c, inputRefs, inputBuffers);
    if (named === null) return null;
    children.push(named);
  }
  const out = { ...desc, validity: mark(desc.validity), offsets: mark(desc.offsets), values: mark(desc.values), children };
  return unnamed ? null : out;
}

