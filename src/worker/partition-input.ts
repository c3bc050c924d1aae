/**
 * A partition's rows made contiguous in the worker, in row-id order: its in-memory chunks
 * (regions of shared buffers) and its spill pieces (runs of batches of Arrow IPC streams whose
 * first column is `__row_id`, read into the task's scratch and viewed without another copy)
 * are concatenated into scratch columns.
 * Pieces usually hold disjoint, increasing row-id ranges (one slab each), so ordering them by
 * their first row id restores input order; when they interleave (rows routed twice), one
 * stable argsort by row id does. Kernels rely on it: a stable sort then breaks ties by row id.
 */
import { emptyData } from '../io/arrow-input.js';
import { openSync, readSync, closeSync } from 'node:fs';
import * as A from 'apache-arrow';
import { typeToArrow } from '../columns/arrow-types.js';
import { type ConcatChunk, concatData, gatherData } from '../columns/gather.js';
import { countSet } from '../columns/bits.js';
import { flatLayoutOf, flatViewOf, rebuildData, viewOf } from '../columns/shared.js';
import { ExecutionError } from '../errors.js';
import { readBatchMessage } from '../io/ipc-batch-meta.js';
import { words64 } from '../ops/int64-words.js';
import type { BufRef } from '../types/column.js';
import type { Allocator } from '../types/keys.js';
import type { PartitionInput, SpillPiece } from '../types/tasks.js';
import { scratchAlloc } from './scratch.js';
import { argsortWords } from './sort.js';

export interface LoadedPartition {
  n: number;
  rowIds: Uint32Array;
  columns: A.Data[];
}

export interface Piece {
  firstRow: number;
  /** Row ids (uint32, from row 0 of `values`). */
  ids: ConcatChunk;
  /** Arrow Data (chunks in memory) or views of a spilled batch's bytes. */
  cols: ConcatChunk[];
}

/**
 * Columns are this task's scratch memory (or views of the shared chunks): valid until the task
 * ends. Rows come in row-id order, unless `anyOrder` (a caller that places rows by id itself).
 * `into`: the columns and row ids are copied into memory from that allocator instead (a rows
 * output's region, which outlives the task), each exactly once.
 */
export async function loadPartition(input: PartitionInput, anyOrder = false, into: Allocator | null = null): Promise<LoadedPartition> {
  const pieces = loadPieces(input);

  const n = pieces.reduce((s, p) => s + p.ids.length, 0);
  let rowIds = scratchAlloc(Uint32Array, n, 'overwritten'); // the pieces' ids fill it end to end
  let at = 0;
  for (const p of pieces) {
    rowIds.set((p.ids.values as Uint32Array).subarray(0, p.ids.length), at);
    at += p.ids.length;
  }
  const sort = !anyOrder && !ascending(rowIds, n);
  // Copied once: straight into `into`, unless a sort by id follows (then that gather is the copy).
  const concatInto = into && !sort ? into : scratchAlloc;
  let columns = input.schema.map((field, c) => {
    if (pieces.length === 0) return emptyData(typeToArrow(field.type));
    const only = pieces.length === 1 ? pieces[0]!.cols[c]! : null;
    if (only instanceof A.Data && concatInto === scratchAlloc) return only;
    return concatData(pieces.map((p) => p.cols[c]!), concatInto);
  });
  if (sort) {
    const order = argsortWords([rowIds], n, scratchAlloc(Uint32Array, n, 'overwritten'));
    const idx = new Int32Array(order.buffer, order.byteOffset, n);
    columns = columns.map((c) => gatherData(c, idx, n, into ?? scratchAlloc));
    const sorted = (into ?? scratchAlloc)(Uint32Array, n, 'overwritten');
    for (let i = 0; i < n; i++) sorted[i] = rowIds[idx[i]!]!;
    rowIds = sorted;
  } else if (into) {
    const copy = into(Uint32Array, n, 'overwritten');
    copy.set(rowIds);
    rowIds = copy;
  }
  return { n, rowIds, columns };
}

/**
 * A partition's pieces as they lie: its chunks (Arrow Data over the shared regions) and its
 * spilled batches (views of their bytes, read into this task's scratch), ordered by first row id.
 */
export function loadPieces(input: PartitionInput, types: A.DataType[] = input.schema.map((f) => typeToArrow(f.type))): Piece[] {
  const pieces: Piece[] = [];
  for (const chunk of input.chunks) {
    const ids = rebuildData(chunk.rowIds);
    pieces.push({ firstRow: firstId(ids), ids, cols: chunk.columns.map(rebuildData) });
  }
  if (input.spills.length > 0) {
    for (const batch of readSpillPieces(input.spills, [new A.Uint32(), ...types])) {
      const ids = batch[0]!;
      pieces.push({ firstRow: firstId(ids), ids, cols: batch.slice(1) });
    }
  }
  return pieces.sort((a, b) => a.firstRow - b.firstRow);
}

function ascending(ids: Uint32Array, n: number): boolean {
  for (let i = 1; i < n; i++) if (ids[i - 1]! > ids[i]!) return false;
  return true;
}

function firstId(ids: ConcatChunk): number {
  return ids.length === 0 ? Number.MAX_SAFE_INTEGER : (ids.values as Uint32Array)[0]!;
}

/**
 * The batches of spill pieces (each its columns, row ids first, of `types`): per file, its
 * schema message and the pieces' bytes read into one scratch buffer (one open, one read per
 * piece) and viewed in place.
 */
function readSpillPieces(pieces: SpillPiece[], types: A.DataType[]): ConcatChunk[][] {
  const byPath = new Map<string, SpillPiece[]>();
  for (const piece of pieces) {
    const list = byPath.get(piece.path);
    if (list) list.push(piece);
    else byPath.set(piece.path, [piece]);
  }
  const out: ConcatChunk[][] = [];
  for (const [path, list] of byPath) {
    const schemaBytes = list[0]!.schemaBytes;
    const body = list.reduce((n, x) => n + x.end - x.start, 0);
    // Every byte is read from the file but the 8 zero bytes after the batches, which read as
    // the end-of-stream marker: no clearing of the rest.
    const bytes = scratchAlloc(Uint8Array, schemaBytes + body + 8, 'overwritten');
    bytes.fill(0, schemaBytes + body);
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch (err) {
      throw unreadable(path, err);
    }
    try {
      readFully(fd, bytes, 0, schemaBytes, 0, path);
      let at = schemaBytes;
      for (const piece of list) {
        readFully(fd, bytes, at, piece.end - piece.start, piece.start, path);
        at += piece.end - piece.start;
      }
    } finally {
      closeSync(fd);
    }
    try {
      const batches = flatBatches(bytes, schemaBytes, types) ?? arrowBatches(bytes, types.length);
      const rows = batches.reduce((s, b) => s + (b[0]?.length ?? 0), 0);
      const want = list.reduce((s, x) => s + x.rows, 0);
      if (rows !== want) throw new Error(`${rows} rows where ${want} were written`);
      for (const b of batches) out.push(b);
    } catch (err) {
      throw unreadable(path, err);
    }
  }
  return out;
}

/**
 * The record batches after the schema message (at `from`), each as views of its columns in
 * `bytes`, when every column is flat (fixed-width, bool, binary / utf8) and every buffer lies
 * where its type's typed array can view it; otherwise null (apache-arrow's reader then decodes
 * them). Spilled batches are read this way: the reader's objects per batch were most of a
 * worker's garbage (ipc-batch-meta.ts).
 */
function flatBatches(bytes: Uint8Array, from: number, types: A.DataType[]): ConcatChunk[][] | null {
  const layouts = types.map(flatLayoutOf);
  if (layouts.some((f) => f === null)) return null;
  const out: ConcatChunk[][] = [];
  for (let at = from, msg = readBatchMessage(bytes, at); msg; at = msg.next, msg = readBatchMessage(bytes, at)) {
    if (msg.nodes.length !== 2 * types.length) throw new Error(`a batch of ${msg.nodes.length / 2} columns where ${types.length} were written`);
    const { nodes, buffers } = msg;
    let b = 0;
    let aligned = true;
    const region = (minBytes: number, align: number): BufRef => {
      const offset = buffers[2 * b]!;
      const length = buffers[2 * b + 1]!;
      b++;
      if (2 * b > buffers.length || offset + length > msg!.bodyBytes || length < minBytes) throw new Error(`a batch's buffer ${b - 1} does not hold its column`);
      const byteOffset = bytes.byteOffset + msg!.bodyStart + offset;
      if (byteOffset % align !== 0) aligned = false;
      return { sab: bytes.buffer, byteOffset, byteLength: length };
    };
    const columns: ConcatChunk[] = [];
    for (let c = 0; c < types.length; c++) {
      const f = layouts[c]!;
      const length = nodes[2 * c]!;
      if (length !== msg.length) throw new Error(`a batch of ${msg.length} rows has a column of ${length}`);
      const bitBytes = Math.ceil(length / 8);
      const validity = region(nodes[2 * c + 1]! > 0 ? bitBytes : 0, 1);
      let values: BufRef;
      let offsets: BufRef | null = null;
      if (f.layout === 'fixed') values = region(length * f.rowBytes, f.ctor.BYTES_PER_ELEMENT);
      else if (f.layout === 'bool') values = region(bitBytes, 1);
      else {
        offsets = region((length + 1) * f.offsetBytes, f.offsetBytes);
        values = region(0, 1);
      }
      if (!aligned) return null;
      if (offsets) checkOffsets(offsets, length, f.offsetBytes === 8, values.byteLength);
      // NULLs counted from the bitmap, not taken from the file.
      const nullCount = validity.byteLength >= bitBytes && length > 0 ? length - countSet(viewOf(Uint8Array, validity), 0, length) : 0;
      columns.push(flatViewOf({ length, offset: 0, nullCount, validity: nullCount > 0 ? validity : null, offsets, values }, types[c]!)!);
    }
    out.push(columns);
  }
  return out;
}

/** The batches through apache-arrow's reader (nested types), each column as long as its batch. */
function arrowBatches(bytes: Uint8Array, columns: number): A.Data[][] {
  return A.tableFromIPC(bytes).batches.map((b) => {
    const cols = b.data.children as A.Data[];
    if (cols.length !== columns || cols.some((c) => c.length !== b.numRows)) throw new Error(`a batch of ${b.numRows} rows whose columns do not match it`);
    return cols;
  });
}

/**
 * A varbinary column's offsets start at 0 and never go back or past its `bytes` (a corrupt file
 * would otherwise read its neighbours' bytes); 64-bit offsets as (low, high) words, high 0.
 */
function checkOffsets(offsets: BufRef, length: number, wide: boolean, bytes: number): void {
  const w = wide ? words64(viewOf(BigInt64Array, offsets)) : viewOf(Int32Array, offsets);
  let prev = 0;
  for (let i = 0; i <= length; i++) {
    const o = wide ? w[2 * i]! : w[i]!;
    if ((wide && w[2 * i + 1] !== 0) || (i === 0 && o !== 0) || o < prev || o > bytes) throw new Error(`a batch's value offsets are out of order or past its bytes (row ${i})`);
    prev = o;
  }
}

function readFully(fd: number, into: Uint8Array, at: number, length: number, position: number, path: string): void {
  let done = 0;
  while (done < length) {
    let got: number;
    try {
      got = readSync(fd, into, at + done, length - done, position + done);
    } catch (err) {
      throw unreadable(path, err);
    }
    if (got === 0) throw unreadable(path, new Error(`file ends before byte ${position + length}`));
    done += got;
  }
}

function unreadable(path: string, err: unknown): ExecutionError {
  return new ExecutionError('SPILL_UNREADABLE', `Spill file ${path} cannot be read back: ${(err as Error)?.message ?? String(err)}`, { path }, { cause: err });
}
