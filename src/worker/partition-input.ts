/**
 * A partition's rows made contiguous in the worker, in row-id order: its in-memory chunks
 * (regions of shared buffers) and its spill pieces (runs of batches of Arrow IPC streams whose
 * first column is `__row_id`, read into the task's scratch and viewed without another copy)
 * are concatenated into scratch columns.
 * Pieces usually hold disjoint, increasing row-id ranges (one slab each), so ordering them by
 * their first row id restores input order; when they interleave (rows routed twice), one
 * stable argsort by row id does. Kernels rely on it: a stable sort then breaks ties by row id.
 */
import { openSync, readSync, closeSync } from 'node:fs';
import * as A from 'apache-arrow';
import { typeToArrow } from '../columns/arrow-types.js';
import { concatData, gatherData } from '../columns/gather.js';
import { rebuildData } from '../columns/shared.js';
import { ExecutionError } from '../errors.js';
import type { Allocator } from '../types/keys.js';
import type { PartitionInput, SpillPiece } from '../types/tasks.js';
import { scratchAlloc } from './scratch.js';
import { argsortWords } from './sort.js';

export interface LoadedPartition {
  n: number;
  rowIds: Uint32Array;
  columns: A.Data[];
}

interface Piece {
  firstRow: number;
  ids: A.Data;
  cols: A.Data[];
}

/**
 * Columns are this task's scratch memory (or views of the shared chunks): valid until the task
 * ends. Rows come in row-id order, unless `anyOrder` (a caller that places rows by id itself).
 * `into`: the columns and row ids are copied into memory from that allocator instead (a rows
 * output's region, which outlives the task), each exactly once.
 */
export async function loadPartition(input: PartitionInput, anyOrder = false, into: Allocator | null = null): Promise<LoadedPartition> {
  const pieces: Piece[] = [];
  for (const chunk of input.chunks) {
    const ids = rebuildData(chunk.rowIds);
    pieces.push({ firstRow: firstId(ids), ids, cols: chunk.columns.map(rebuildData) });
  }
  for (const batch of readSpillPieces(input.spills)) {
    const ids = batch.data.children[0]!;
    pieces.push({ firstRow: firstId(ids), ids, cols: batch.data.children.slice(1) });
  }
  pieces.sort((a, b) => a.firstRow - b.firstRow);

  const n = pieces.reduce((s, p) => s + p.ids.length, 0);
  let rowIds = scratchAlloc(Uint32Array, n);
  let at = 0;
  for (const p of pieces) {
    rowIds.set((p.ids.values as Uint32Array).subarray(0, p.ids.length), at);
    at += p.ids.length;
  }
  const sort = !anyOrder && !ascending(rowIds, n);
  // Copied once: straight into `into`, unless a sort by id follows (then that gather is the copy).
  const concatInto = into && !sort ? into : scratchAlloc;
  let columns = input.schema.map((field, c) => {
    if (pieces.length === 0) return A.vectorFromArray([], typeToArrow(field.type)).data[0]! as A.Data;
    if (pieces.length === 1 && concatInto === scratchAlloc) return pieces[0]!.cols[c]!;
    return concatData(pieces.map((p) => p.cols[c]!), concatInto);
  });
  if (sort) {
    const order = argsortWords([rowIds], n, scratchAlloc(Uint32Array, n));
    const idx = new Int32Array(order.buffer, order.byteOffset, n);
    columns = columns.map((c) => gatherData(c, idx, n, into ?? scratchAlloc));
    const sorted = (into ?? scratchAlloc)(Uint32Array, n);
    for (let i = 0; i < n; i++) sorted[i] = rowIds[idx[i]!]!;
    rowIds = sorted;
  } else if (into) {
    const copy = into(Uint32Array, n);
    copy.set(rowIds);
    rowIds = copy;
  }
  return { n, rowIds, columns };
}

function ascending(ids: Uint32Array, n: number): boolean {
  for (let i = 1; i < n; i++) if (ids[i - 1]! > ids[i]!) return false;
  return true;
}

function firstId(ids: A.Data): number {
  return ids.length === 0 ? Number.MAX_SAFE_INTEGER : (ids.values as Uint32Array)[0]!;
}

/**
 * The batches of spill pieces: per file, its schema message and the pieces' bytes read into
 * one scratch buffer (one open, one read per piece) and decoded as views in one pass.
 */
function readSpillPieces(pieces: SpillPiece[]): A.RecordBatch[] {
  const byPath = new Map<string, SpillPiece[]>();
  for (const piece of pieces) {
    const list = byPath.get(piece.path);
    if (list) list.push(piece);
    else byPath.set(piece.path, [piece]);
  }
  const out: A.RecordBatch[] = [];
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
      const batches = A.tableFromIPC(bytes).batches;
      const rows = batches.reduce((s, b) => s + b.numRows, 0);
      const want = list.reduce((s, x) => s + x.rows, 0);
      if (rows !== want) throw new Error(`${rows} rows where ${want} were written`);
      out.push(...batches);
    } catch (err) {
      throw unreadable(path, err);
    }
  }
  return out;
}

function readFully(fd: number, into: Uint8Array, at: number, length: number, position: number, path: string): void {
  let done = 0;
  while (done < length) {
    const got = readSync(fd, into, at + done, length - done, position + done);
    if (got === 0) throw unreadable(path, new Error(`file ends before byte ${position + length}`));
    done += got;
  }
}

function unreadable(path: string, err: unknown): ExecutionError {
  return new ExecutionError('SPILL_UNREADABLE', `Spill file ${path} cannot be read back: ${(err as Error)?.message ?? String(err)}`, { path }, { cause: err });
}
