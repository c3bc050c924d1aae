/**
 * Partition step, run in workers: routes one slab of rows (a few consecutive batches of only
 * the columns the operator needs) to partitions.
 *
 * 1. concatenate the slab's batches column by column (thread-local scratch);
 * 2. partition id per row: seeded hash of the key columns (src/shuffle/hash), or none (1 partition);
 * 3. counting scatter: row indices grouped by partition, stable in row order;
 * 4. one gather per column into a shared arena, so partition p is the contiguous region
 *    [offsets[p], offsets[p+1]) of every gathered column; global row ids alongside.
 * The reply names each non-empty partition's region: no per-partition buffers are created.
 * Cost: O(rows × columns), one pass each.
 */
import * as A from 'apache-arrow';
import { SharedArena } from '../columns/arena.js';
import { concatData, gatherData } from '../columns/gather.js';
import { describeData, rebuildData, toKeyColumn } from '../columns/shared.js';
import { countingScatter, hashColumns, partitionOf } from '../shuffle/hash.js';
import type { ChunkDesc, PartitionResult, PartitionTask } from '../types/tasks.js';
import { resetScratch, scratchAlloc } from './scratch.js';

export function runPartitionTask(task: PartitionTask): PartitionResult {
  resetScratch();
  const ncols = task.batches[0]?.columns.length ?? 0;
  const columns: A.Data[] = [];
  for (let c = 0; c < ncols; c++) {
    const parts = task.batches.map((b) => rebuildData(b.columns[c]!));
    columns.push(parts.length === 1 ? parts[0]! : concatData(parts, scratchAlloc as never));
  }
  const n = task.batches.reduce((s, b) => s + b.length, 0);
  const P = task.partitions;

  let pids: Uint32Array;
  if (task.keyColumns.length === 0 || P === 1) {
    pids = scratchAlloc(Uint32Array, n);
  } else {
    const keys = task.keyColumns.map((i) => toKeyColumn(columns[i]!));
    pids = partitionOf(hashColumns(keys, n, task.seed, scratchAlloc(Uint32Array, n)), P, scratchAlloc(Uint32Array, n));
  }
  const { offsets, order } = countingScatter(pids, P, scratchAlloc(Uint32Array, n));
  const arena = new SharedArena(Math.max(1 << 20, Math.min(64 << 20, n * 8 * (ncols + 1))), task.outputBuffer ?? null);
  const idx = new Int32Array(order.buffer, order.byteOffset, order.length);
  const gathered = columns.map((col) => gatherData(col, idx, n, arena.alloc));
  const rowIds = arena.alloc(Uint32Array, n);
  for (let i = 0; i < n; i++) rowIds[i] = task.rowBase + idx[i]!;
  const rowIdData = A.makeData({ type: new A.Uint32(), length: n, data: rowIds });

  return { bytes: arena.firstBytesUsed + arena.reserved, parts: partitionRegions(gathered, rowIdData, offsets) };
}

/** Each non-empty partition's region [offsets[p], offsets[p+1]) of the partition-ordered columns. */
export function partitionRegions(gathered: A.Data[], rowIds: A.Data, offsets: Uint32Array): PartitionResult['parts'] {
  const parts: PartitionResult['parts'] = [];
  for (let p = 0; p + 1 < offsets.length; p++) {
    const start = offsets[p]!;
    const len = offsets[p + 1]! - start;
    if (len === 0) continue;
    const chunk: ChunkDesc = {
      length: len,
      rowIds: describeData(rowIds.slice(start, len)),
      columns: gathered.map((g) => describeData(g.slice(start, len))),
    };
    parts.push({ partition: p, chunk });
  }
  return parts;
}
