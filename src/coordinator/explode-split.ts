/**
 * An explode of lists the coordinator holds (a row-local chain of one explode whose inputs are
 * columns, not expressions) splits its work by where the data is: the coordinator plans each
 * slice (lengths checked, each row's output rows) and builds the element columns from the
 * lists themselves, and a worker repeats the parent columns from the plan's row starts
 * (RowOp `repeat`). The lists never go to a worker: before, every list was copied into shared
 * memory for the worker to copy its elements out again (for explode's bench, 2M rows -> 16.2M:
 * ~360 of the ~400 MB the coordinator copied a run), and an exploded list's string bytes were
 * copied only to be found again in the caller's memory (src/coordinator/loan-copies). Now its
 * fixed-width elements are copied once, straight into the result, and its strings' bytes are a
 * view of the caller's (runs.copyRanges), only the offsets new.
 *
 * The elements are written into a slab the worker's task returns blank (RowLocalResult): memory
 * from the worker's heap, which hands out the last run's freed memory again, where the
 * coordinator's gave it back and faulted in fresh pages (~280 MiB a warm explode run).
 */
import * as A from 'apache-arrow';
import { batchFromColumns, buffersOf, toSharedData } from '../columns/shared.js';
import { bitmapBytes, valueLayout, type Allocator } from '../columns/gather.js';
import { elementData, explodeBatchPlan, explodeSourceColumn } from '../ops/explode-batch.js';
import type { TypedArray } from '../types/keys.js';
import type { ExplodePlan } from '../ops/explode.js';
import type { RowOp } from '../types/tasks.js';

type ExplodeOp = Extract<RowOp, { kind: 'explode' }>;

export interface ExplodeSplit {
  op: ExplodeOp;
  /** Batch columns a worker repeats (in this order in its result); empty: no worker task. */
  parents: number[];
}

/** The split of a chain that is one explode of columns, or null. */
export function explodeSplitOf(ops: RowOp[]): ExplodeSplit | null {
  if (ops.length !== 1) return null;
  const op = ops[0]!;
  if (op.kind !== 'explode' || op.inputs.some((i) => i.expr !== null || i.column === null)) return null;
  const parents: number[] = [];
  for (const s of op.spec.sources) if (s.kind === 'column' && !parents.includes(s.column)) parents.push(s.column);
  return { op, parents };
}

export interface ExplodeSlice {
  plan: ExplodePlan;
  /** The parent columns, for the worker. */
  parentBatch: A.RecordBatch;
}

/**
 * Bytes of the coordinator's temporaries for planning `rows` rows of `lists` lists (row starts
 * and lengths, each list's validity bytes and its starts as numbers when its offsets are 64-bit
 * or it has a fixed size) and for copyRanges' run triples (three words a row at most).
 */
export function planBytes(rows: number, lists: number): number {
  return 8 * (rows + 1) + lists * (9 * rows + 16) + 12 * rows;
}

/** Bytes of a nested element's child indices when building `outRows` output rows (one word a row). */
export function elementIndexBytes(outRows: number): number {
  return 4 * outRows;
}

/** A slice's plan (throws EXPLODE_LENGTH_MISMATCH naming row rowBase + r) and its parent columns. */
export function planExplodeSlice(split: ExplodeSplit, batch: A.RecordBatch, rowBase: number): ExplodeSlice {
  const columns = batch.data.children;
  const plan = explodeBatchPlan(listsOf(split, batch), split.op.spec, rowBase);
  const schema = new A.Schema(split.parents.map((c) => batch.schema.fields[c]!));
  return { plan, parentBatch: batchFromColumns(schema, split.parents.map((c) => columns[c]!), batch.numRows) };
}

/**
 * Bytes of the slab the element columns are built in: what copyRanges allocates for
 * fixed-width, dictionary, bool and string elements (their bytes views) and for ordinality,
 * the bitmaps included. Other element types take new buffers past the slab (SharedArena).
 */
export function elementSlabBytes(split: ExplodeSplit, slice: ExplodeSlice, batch: A.RecordBatch): number {
  const count = slice.plan.length;
  const bitmap = bitmapBytes(count);
  const inputs = listsOf(split, batch);
  let bytes = 0;
  for (const src of split.op.spec.sources) {
    if (src.kind === 'column') continue;
    if (src.kind === 'ordinality') {
      bytes += align8(4 * count) + bitmap;
      continue;
    }
    const child = elementData(src, inputs);
    switch (valueLayout(child.type as A.DataType)) {
      case 'fixed':
      case 'dictionary':
        bytes += align8(count * child.stride * (child.values as TypedArray).BYTES_PER_ELEMENT) + bitmap;
        break;
      case 'bool':
        bytes += 2 * bitmap;
        break;
      case 'varbinary': {
        // The bytes are a view of the child's when its ranges are read end to end (runs.copyRanges).
        const large = child.typeId === A.Type.LargeUtf8 || child.typeId === A.Type.LargeBinary;
        bytes += align8((large ? 8 : 4) * (count + 1)) + bitmap;
        break;
      }
      default:
        break;
    }
  }
  return bytes;
}

function align8(bytes: number): number {
  return Math.ceil(bytes / 8) * 8;
}

function listsOf(split: ExplodeSplit, batch: A.RecordBatch): A.Data[] {
  return split.op.inputs.map((i) => batch.data.children[i.column!]!);
}

/**
 * The output columns in spec order built here (from `alloc`), null for the parents' (the
 * worker's). A column that views the input's shared memory (an upstream stage's, which it may
 * reuse) is copied; the caller's own JavaScript memory lives as long as a view of it.
 */
export function explodeElements(split: ExplodeSplit, slice: ExplodeSlice, batch: A.RecordBatch, alloc: Allocator): Array<A.Data | null> {
  const columns = batch.data.children;
  const inputs = listsOf(split, batch);
  const inputShared = new Set<ArrayBufferLike>(inputs.flatMap((d) => buffersOf(d)).map((b) => b.buffer).filter((b) => b instanceof SharedArrayBuffer));
  return split.op.spec.sources.map((src) => {
    if (src.kind === 'column') return null;
    const out = explodeSourceColumn(src, slice.plan, columns, inputs, alloc);
    return buffersOf(out).some((b) => inputShared.has(b.buffer)) ? toSharedData(out, alloc) : out;
  });
}
