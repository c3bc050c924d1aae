/**
 * Partition step, run in workers: routes one slab of rows (a few consecutive batches of only
 * the columns the operator needs) to partitions.
 *
 * 1. concatenate the slab's batches column by column (scratch);
 * 2. partition id per row: seeded hash of the key columns (src/shuffle/hash), or none (1 partition);
 * 3. rows grouped by partition into the pooled output buffer (./routed-chunks), global row ids
 *    alongside; the reply names each non-empty partition's region.
 * A group-by's partial pass (`task.partial`) aggregates the slab between 1 and 2 and routes one
 * row per group instead (keyed by the group's first row id in the slab). A sort whose splitters
 * are known routes by key range instead of 2 (./sort-range).
 * Cost: O(rows × columns), one pass each.
 */
import type * as A from 'apache-arrow';
import { iota } from '../columns/array-loops.js';
import { concatData } from '../columns/gather.js';
import { rebuildData, toKeyColumn } from '../columns/shared.js';
import { hashColumns, partitionOf } from '../shuffle/hash.js';
import type { PartitionTask, RoutedChunks } from '../types/tasks.js';
import { aggregateGroups } from './groupby-task.js';
import { groupByDestination, routedChunks } from './routed-chunks.js';
import { scratchAlloc } from './scratch.js';
import { computedData } from './window-output.js';

const UINT32 = { kind: 'int', bits: 32, signed: false } as const;
import { routeBySortRange } from './sort-range.js';

export function runPartitionTask(task: PartitionTask): RoutedChunks {
  const ncols = task.batches[0]?.columns.length ?? 0;
  const columns: A.Data[] = [];
  for (let c = 0; c < ncols; c++) {
    const parts = task.batches.map((b) => rebuildData(b.columns[c]!));
    columns.push(parts.length === 1 ? parts[0]! : concatData(parts, scratchAlloc));
  }
  const n = task.batches.reduce((s, b) => s + b.length, 0);
  const rowIds = scratchAlloc(Uint32Array, n, 'overwritten');
  iota(rowIds, n, task.rowBase);
  if (task.partial) {
    // A group-by's partial pass: the slab's groups go out instead of its rows.
    const groups = aggregateGroups({ n, rowIds, columns }, task.partial.keys, task.partial.outputs);
    return route(groups.columns, groups.rowIds, groups.groups, task);
  }
  return route(columns, rowIds, n, task);
}

function route(columns: A.Data[], rowIds: Uint32Array, n: number, task: PartitionTask): RoutedChunks {
  const routing = task.routing;
  if (routing.kind === 'sortRange') {
    const { bufferBytes, buffer, extraBytes, rowIds: ids, columns: cols, bounds } = routeBySortRange({ n, rowIds, columns }, routing, task.outputBuffer);
    return { bufferBytes, buffer, extraBytes, rowIds: ids, columns: cols, bounds };
  }
  const { keyColumns, partitions, seed } = routing;
  let pids: Uint32Array;
  let hashes: Uint32Array | null = null;
  if (keyColumns.length === 0 || (partitions === 1 && !routing.carry)) {
    pids = scratchAlloc(Uint32Array, n);
  } else {
    const keys = keyColumns.map((i) => toKeyColumn(columns[i]!));
    hashes = hashColumns(keys, n, seed, scratchAlloc(Uint32Array, n, 'overwritten'));
    pids = partitionOf(hashes, partitions, scratchAlloc(Uint32Array, n, 'overwritten'));
  }
  // The hashes go along for the group table (every key of a row hashed as the table hashes it).
  const routed = routing.carry ? [...columns, computedData(UINT32, hashes ?? scratchAlloc(Uint32Array, n), null, n)] : columns;
  return routedChunks(groupByDestination(routed, rowIds, pids, partitions, task.outputBuffer));
}
