/**
 * Assembly of one row-id range of an output exchange, run in a worker: the range's pieces from
 * every partition (in memory or spilled) → one position per row (row id - base; every row of
 * the range exactly once, checked) → each column into transferable buffers in row-id order,
 * ready to be attached to the replayed input rows. Fixed-width and bool columns are scattered
 * from the pieces where they lie (one read and one write a value); other types are first
 * concatenated, then gathered (window at 64 MiB: the concatenation was half the task's time).
 * Sparse ranges (group-by: a row per group keyed by its first row id; join: any number of rows
 * per left row id) are put in key order instead: loadPartition's stable order by row id, which
 * keeps the rows of one key in the order their task wrote them; their keys go back too.
 * Cost: O(rows × columns).
 */
import { iota } from '../columns/array-loops.js';
import * as A from 'apache-arrow';
import { TransferArena } from '../columns/arena.js';
import { typeToArrow } from '../columns/arrow-types.js';
import { bitmapBytes, build, gatherData, wordView } from '../columns/gather.js';
import { describeData, flatLayoutOf } from '../columns/shared.js';
import { ExecutionError } from '../errors.js';
import type { Allocator, TypedArray } from '../types/keys.js';
import type { AssembleSparseTask, AssembleTask, ColumnsResult, SparseColumnsResult } from '../types/tasks.js';
import { loadPartition, loadPieces, type Piece } from './partition-input.js';
import { scratchAlloc } from './scratch.js';

export async function runAssembleTask(task: AssembleTask): Promise<ColumnsResult> {
  const types = task.input.schema.map((f) => typeToArrow(f.type));
  if (types.every((t) => SCATTERED.has(flatLayoutOf(t)?.layout))) return scatterRange(task, types);
  // Rows are placed by id below: their load order does not matter (no sort of interleaved pieces).
  const part = await loadPartition(task.input, true);
  const { base, rows } = task;
  if (part.n !== rows) throw lost(`holds ${part.n} rows, expected ${rows}`, base);
  const pos = scratchAlloc(Int32Array, rows).fill(-1);
  for (let k = 0; k < rows; k++) {
    const at = part.rowIds[k]! - base;
    if (at < 0 || at >= rows || pos[at] !== -1) throw lost(`has row id ${part.rowIds[k]} out of place`, base);
    pos[at] = k;
  }
  const arena = new TransferArena();
  const columns = part.columns.map((c) => describeData(gatherData(c, pos, rows, arena.alloc), true));
  return { length: rows, columns, transfer: arena.buffers };
}

/** Column layouts scatterRange writes from the pieces directly. */
const SCATTERED = new Set<string | undefined>(['fixed', 'bool']);

/** The range's fixed-width and bool columns written straight from the pieces to row id - base. */
function scatterRange(task: AssembleTask, types: A.DataType[]): ColumnsResult {
  const { base, rows } = task;
  const pieces = loadPieces(task.input, types);
  const n = pieces.reduce((t, p) => t + p.ids.length, 0);
  if (n !== rows) throw lost(`holds ${n} rows, expected ${rows}`, base);
  const seen = scratchAlloc(Uint8Array, rows);
  for (const p of pieces) {
    const ids = p.ids.values as Uint32Array;
    for (let k = 0; k < p.ids.length; k++) {
      const at = ids[k]! - base;
      if (at < 0 || at >= rows || seen[at] !== 0) throw lost(`has row id ${ids[k]} out of place`, base);
      seen[at] = 1;
    }
  }
  const arena = new TransferArena();
  const columns = types.map((type, c) => describeData(scatterColumn(pieces, c, type, base, rows, arena.alloc), true));
  return { length: rows, columns, transfer: arena.buffers };
}

function scatterColumn(pieces: Piece[], c: number, type: A.DataType, base: number, rows: number, alloc: Allocator): A.Data {
  const f = flatLayoutOf(type)!;
  let nullBitmap: Uint8Array | undefined;
  let nullCount = 0;
  if (pieces.some((p) => p.cols[c]!.nullCount > 0)) {
    // All valid, then each piece's NULLs cleared: rows of all-valid bytes are skipped.
    nullBitmap = alloc(Uint8Array, bitmapBytes(rows), 'overwritten');
    nullBitmap.fill(0xff, 0, rows >>> 3);
    if ((rows & 7) !== 0) nullBitmap[rows >>> 3] = (1 << (rows & 7)) - 1;
    nullBitmap.fill(0, (rows + 7) >>> 3);
    for (const p of pieces) if (p.cols[c]!.nullCount > 0) nullCount += clearNulls(p.cols[c]!.nullBitmap!, p.cols[c]!.offset, p, base, nullBitmap);
    if (nullCount === 0) nullBitmap = undefined;
  }
  if (f.layout === 'bool') {
    const bits = alloc(Uint8Array, bitmapBytes(rows));
    for (const p of pieces) scatterBits(p.cols[c]!.values as Uint8Array, p.cols[c]!.offset, p, base, bits);
    return A.makeData({ type: type as A.Bool, length: rows, nullCount, nullBitmap, data: bits });
  }
  // Every row is written once (checked above): no clearing first.
  const out = alloc(f.ctor, rows * f.stride, 'overwritten');
  const words = wordView(out, f.rowBytes);
  for (const p of pieces) scatterFixed(p.cols[c]!.values as TypedArray, f.rowBytes, p, base, out, words);
  return build({ type, length: rows, nullCount, nullBitmap, data: out });
}

/**
 * Row k of the piece to row ids[k] - base of `out`, `rowBytes` each, in the widest words both
 * allow (`words`: `out` in its widest words, made once per column, not per piece).
 */
function scatterFixed(values: TypedArray, rowBytes: number, p: Piece, base: number, out: TypedArray, words: Int32Array | Uint16Array | Uint8Array): void {
  const ids = p.ids.values as Uint32Array;
  const n = p.ids.length;
  let src = wordView(values, rowBytes);
  let dst = words;
  if (src.BYTES_PER_ELEMENT !== dst.BYTES_PER_ELEMENT) {
    src = new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
    dst = new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
  }
  const w = rowBytes / src.BYTES_PER_ELEMENT;
  if (w === 1) {
    for (let k = 0; k < n; k++) dst[ids[k]! - base] = src[k]!;
  } else if (w === 2) {
    for (let k = 0; k < n; k++) {
      const at = 2 * (ids[k]! - base);
      dst[at] = src[2 * k]!;
      dst[at + 1] = src[2 * k + 1]!;
    }
  } else {
    for (let k = 0; k < n; k++) {
      const at = w * (ids[k]! - base);
      for (let j = 0; j < w; j++) dst[at + j] = src[w * k + j]!;
    }
  }
}

/** Bit `offset + k` of `bits` to bit ids[k] - base of the zeroed `out`. */
function scatterBits(bits: Uint8Array, offset: number, p: Piece, base: number, out: Uint8Array): void {
  const ids = p.ids.values as Uint32Array;
  const n = p.ids.length;
  for (let k = 0; k < n; k++) {
    const b = offset + k;
    if (((bits[b >>> 3]! >>> (b & 7)) & 1) !== 0) {
      const at = ids[k]! - base;
      out[at >>> 3] |= 1 << (at & 7);
    }
  }
}

/** Clears bit ids[k] - base of `out` where bit `offset + k` of `valid` is 0; returns how many. */
function clearNulls(valid: Uint8Array, offset: number, p: Piece, base: number, out: Uint8Array): number {
  const ids = p.ids.values as Uint32Array;
  const n = p.ids.length;
  let nulls = 0;
  for (let k = 0; k < n; k++) {
    const b = offset + k;
    // a whole byte of valid rows at once
    if ((b & 7) === 0 && k + 8 <= n && valid[b >>> 3] === 0xff) {
      k += 7;
      continue;
    }
    if (((valid[b >>> 3]! >>> (b & 7)) & 1) === 0) {
      const at = ids[k]! - base;
      out[at >>> 3] &= ~(1 << (at & 7));
      nulls++;
    }
  }
  return nulls;
}

function lost(what: string, base: number): ExecutionError {
  return new ExecutionError('INTERNAL', `output range at row ${base} ${what}; refusing to return a partial result`);
}

export async function runAssembleSparseTask(task: AssembleSparseTask): Promise<SparseColumnsResult> {
  const part = await loadPartition(task.input);
  const n = part.n;
  const arena = new TransferArena(false, task.sharedResults);
  // The row ids only order the ranges on the coordinator, which then drops them: moved, so that
  // no worker keeps them in shared memory, uncounted, until the run's end.
  const idArena = new TransferArena();
  const ids = idArena.alloc(Uint32Array, n);
  const stray = copyIdsInRange(part.rowIds, n, task.base, task.end, ids);
  if (stray >= 0) throw lost(`has row id ${part.rowIds[stray]!} out of place`, task.base);
  const all = scratchAlloc(Int32Array, n);
  iota(all, n);
  const columns = part.columns.map((c) => describeData(gatherData(c, all, n, arena.alloc), true));
  const rowIds = describeData(A.makeData({ type: new A.Uint32(), length: n, data: ids }), true);
  return { length: n, columns, rowIds, transfer: [...idArena.buffers, ...arena.buffers] };
}

// Loops of their own over typed arrays (see src/ops/group-accumulate): inline, each call's
// first run of the code after them threw their compiled code away.

/** ids[k] = rowIds[k] for k < n; the first k whose id is outside [base, end), or -1. */
function copyIdsInRange(rowIds: Uint32Array, n: number, base: number, end: number, ids: Uint32Array): number {
  for (let k = 0; k < n; k++) {
    const id = rowIds[k]!;
    if (id < base || id >= end) return k;
    ids[k] = id;
  }
  return -1;
}
