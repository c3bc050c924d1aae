/**
 * Partition step, run in workers: routes one slab of rows (a few consecutive batches of only
 * the columns the operator needs) to partitions.
 *
 * 1. concatenate the slab's batches column by column (scratch);
 * 2. partition id per row: seeded hash of the key columns (src/shuffle/hash), or none (1 partition);
 * 3. rows grouped by partition into the pooled output buffer (./routed-chunks), global row ids
 *    alongside; the reply names each non-empty partition's region.
 * Cost: O(rows × columns), one pass each.
 */
import type * as A from 'apache-arrow';
import { concatData } from '../columns/gather.js';
import { rebuildData, toKeyColumn } from '../columns/shared.js';
import { hashColumns, partitionOf } from '../shuffle/hash.js';
import type { PartitionTask, RoutedChunks } from '../types/tasks.js';
import { groupByDestination, routedChunks } from './routed-chunks.js';
import { scratchAlloc } from './scratch.js';

export function runPartitionTask(task: PartitionTask): RoutedChunks {
  const ncols = task.batches[0]?.columns.length ?? 0;
  const columns: A.Data[] = [];
  for (let c = 0; c < ncols; c++) {
    const parts = task.batches.map((b) => rebuildData(b.columns[c]!));
    columns.push(parts.length === 1 ? parts[0]! : concatData(parts, scratchAlloc));
  }
  const n = task.batches.reduce((s, b) => s + b.length, 0);
  const { keyColumns, partitions, seed } = task.routing;
  let pids: Uint32Array;
  if (keyColumns.length === 0 || partitions === 1) {
    pids = scratchAlloc(Uint32Array, n);
  } else {
    const keys = keyColumns.map((i) => toKeyColumn(columns[i]!));
    pids = partitionOf(hashColumns(keys, n, seed, scratchAlloc(Uint32Array, n)), partitions, scratchAlloc(Uint32Array, n));
  }
  const rowIds = scratchAlloc(Uint32Array, n);
  for (let i = 0; i < n; i++) rowIds[i] = task.rowBase + i;
  return routedChunks(groupByDestination(columns, rowIds, pids, partitions, task.outputBuffer));
}
