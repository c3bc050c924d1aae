/**
 * Rows grouped by destination in shared memory: the last step of every task that feeds an
 * exchange (partition slabs by hash, ASOF sides by key range, kernel outputs by row-id range).
 *
 * 1. counting sort of the destination ids: each row's place when grouped by destination, stable;
 * 2. one scatter (fixed widths) or gather (other layouts) per column, and of the row ids,
 *    into a SharedArena that starts in the pooled output buffer the coordinator lent, so
 *    destination d is the contiguous region [offsets[d], offsets[d+1]) of every column;
 * 3. the grouped columns described once, with the destinations' bounds: the coordinator
 *    cuts them into chunks (shuffle/routed-parts.ts), so a reply is a few objects, not some
 *    25 per destination.
 * Cost: O(rows × columns), one pass each. Temporaries come from the task's scratch loan.
 */
import * as A from 'apache-arrow';
import { invertInto } from '../columns/array-loops.js';
import { SharedArena } from '../columns/arena.js';
import { gatherData } from '../columns/gather.js';
import { scatterData } from '../columns/scatter.js';
import { describeData } from '../columns/shared.js';
import { countingPositions } from '../shuffle/hash.js';
import type { ChunkDesc, RoutedChunks } from '../types/tasks.js';
import { scratchAlloc } from './scratch.js';

export interface Grouped {
  /** Grouped columns and row ids, destination by destination. */
  columns: A.Data[];
  rowIds: Uint32Array;
  /** Destination d is rows [offsets[d], offsets[d+1]). */
  offsets: Uint32Array;
  /** order()[k] = source row of grouped row k (made on first use, in the task's scratch). */
  order(): Int32Array;
  arena: SharedArena;
}

/**
 * The output exchange's range of each of the first n row ids (`rowId >>> shift`), in the task's
 * scratch. A function of its own: a loop written inline before the task's result object was
 * compiled while it ran and thrown away when the code after it first ran (see src/ops/group-accumulate).
 */
export function outputRangesOf(rowIds: Uint32Array, n: number, shift: number): Uint32Array {
  const dest = scratchAlloc(Uint32Array, n, 'overwritten');
  shiftInto(rowIds, n, shift, dest);
  return dest;
}

function shiftInto(rowIds: Uint32Array, n: number, shift: number, dest: Uint32Array): void {
  for (let i = 0; i < n; i++) dest[i] = rowIds[i]! >>> shift;
}

/** Steps 1-2: `dest[i]` in [0, destinations) per row; `rowIds[i]` the global id of row i. */
export function groupByDestination(
  columns: A.Data[],
  rowIds: Uint32Array,
  dest: Uint32Array,
  destinations: number,
  buffer: SharedArrayBuffer | null,
): Grouped {
  const n = dest.length;
  // positions and order are permutations of the rows and ids a copy per row: all written whole
  const pos = scratchAlloc(Uint32Array, n, 'overwritten');
  const offsets = countingPositions(dest, destinations, pos);
  let order: Int32Array | null = null;
  const orderOf = (): Int32Array => {
    if (order) return order;
    order = scratchAlloc(Int32Array, n, 'overwritten');
    invertInto(pos, 0, order, n);
    return order;
  };
  const arena = new SharedArena(Math.max(1 << 20, Math.min(64 << 20, n * 8 * (columns.length + 1))), buffer);
  // Fixed-width columns are scattered (one forward read of the rows, see columns/scatter), the rest gathered.
  const grouped = columns.map((c) => scatterData(c, pos, arena.alloc) ?? gatherData(c, orderOf(), n, arena.alloc));
  const ids = arena.alloc(Uint32Array, n, 'overwritten');
  placeIds(rowIds, pos, ids, n);
  return { columns: grouped, rowIds: ids, offsets, order: orderOf, arena };
}

/** ids[pos[i]] = rowIds[i] (a loop of its own: see src/ops/group-accumulate). */
function placeIds(rowIds: Uint32Array, pos: Uint32Array, ids: Uint32Array, n: number): void {
  for (let i = 0; i < n; i++) ids[pos[i]!] = rowIds[i]!;
}

/** Step 3: the gathered columns described once, with the destinations' bounds (a copy: `offsets` lies in the task's scratch). */
export function routedChunks(g: Grouped): RoutedChunks {
  const n = g.rowIds.length;
  if (n === 0) return { ...noRows(), bufferBytes: g.arena.firstBytesUsed, buffer: g.arena.firstBuffer, extraBytes: g.arena.reserved };
  const rowIds = describeData(A.makeData({ type: new A.Uint32(), length: n, data: g.rowIds }));
  return { bufferBytes: g.arena.firstBytesUsed, buffer: g.arena.firstBuffer, extraBytes: g.arena.reserved, rowIds, columns: g.columns.map((c) => describeData(c)), bounds: g.offsets.slice() };
}

/** A task result with no routed rows (its output went straight to the caller's columns). */
export function noRows(): RoutedChunks {
  return { rowIds: null, columns: [], bounds: new Uint32Array(0), bufferBytes: 0, buffer: null, extraBytes: 0 };
}

/** The region of a kernel's rows output (RowsOutput): shared memory starting in the pooled buffer. */
export function rowsArena(buffer: SharedArrayBuffer | null): SharedArena {
  return new SharedArena(4 << 20, buffer);
}

/** A rows output's columns and row ids, all allocated from `arena`, as destination 0. */
export function rowsRegion(arena: SharedArena, columns: A.Data[], rowIds: Uint32Array, n: number): RoutedChunks {
  const used = { bufferBytes: arena.firstBytesUsed, buffer: arena.firstBuffer, extraBytes: arena.reserved };
  if (n === 0) return { ...noRows(), ...used };
  const rowIdData = A.makeData({ type: new A.Uint32(), length: n, data: rowIds.subarray(0, n) });
  return { ...used, rowIds: describeData(rowIdData), columns: columns.map((c) => describeData(c)), bounds: Uint32Array.of(0, n) };
}
