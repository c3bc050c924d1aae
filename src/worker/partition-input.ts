/**
 * A partition's rows made contiguous in the worker: its in-memory chunks (regions of shared
 * slabs) and its spill files (Arrow IPC streams whose first column is `__row_id`) are
 * concatenated into thread-local columns in row-id order. Each piece comes from one slab, and
 * slabs cover consecutive, disjoint row-id ranges, so ordering pieces by their first row id
 * restores input order; a stable sort then breaks ties by row id for free.
 */
import * as A from 'apache-arrow';
import { typeToArrow } from '../columns/arrow-types.js';
import { concatData } from '../columns/gather.js';
import { rebuildData } from '../columns/shared.js';
import { readSpillAll } from '../memory/spill-file.js';
import type { PartitionInput } from '../types/tasks.js';
import { scratchAlloc } from './scratch.js';

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

/** Columns are this task's scratch memory (or views of the shared chunks): valid until the task ends. */
export async function loadPartition(input: PartitionInput): Promise<LoadedPartition> {
  const pieces: Piece[] = [];
  for (const chunk of input.chunks) {
    const ids = rebuildData(chunk.rowIds);
    pieces.push({ firstRow: firstId(ids), ids, cols: chunk.columns.map(rebuildData) });
  }
  for (const path of input.spillFiles) {
    for (const batch of await readSpillAll(path)) {
      const ids = batch.data.children[0]!;
      pieces.push({ firstRow: firstId(ids), ids, cols: batch.data.children.slice(1) });
    }
  }
  pieces.sort((a, b) => a.firstRow - b.firstRow);

  const n = pieces.reduce((s, p) => s + p.ids.length, 0);
  const rowIds = scratchAlloc(Uint32Array, n);
  let at = 0;
  for (const p of pieces) {
    rowIds.set((p.ids.values as Uint32Array).subarray(0, p.ids.length), at);
    at += p.ids.length;
  }
  const columns = input.schema.map((field, c) => {
    if (pieces.length === 0) return A.vectorFromArray([], typeToArrow(field.type)).data[0]! as A.Data;
    if (pieces.length === 1) return pieces[0]!.cols[c]!;
    return concatData(pieces.map((p) => p.cols[c]!), scratchAlloc as never);
  });
  return { n, rowIds, columns };
}

function firstId(ids: A.Data): number {
  return ids.length === 0 ? Number.MAX_SAFE_INTEGER : (ids.values as Uint32Array)[0]!;
}
