/**
 * Range routing of a global sort, run in route tasks: each row of a piece goes to the range of
 * its (keys, row id) tuple among the sorted splitter rows (src/ops/sort-range-search), then rows
 * are grouped by range (./routed-chunks).
 * Cost: O(rows × log ranges) comparisons, O(rows × columns) copying.
 */
import { rebuildData, toKeyColumn } from '../columns/shared.js';
import { rangesOfRows } from '../ops/sort-range-search.js';
import type { RouteResult, SortRangeRouting } from '../types/tasks.js';
import type { LoadedPartition } from './partition-input.js';
import { groupByDestination, routedChunks } from './routed-chunks.js';
import { scratchAlloc } from './scratch.js';

export function routeBySortRange(part: LoadedPartition, routing: SortRangeRouting, outputBuffer: SharedArrayBuffer | null): RouteResult {
  const n = part.n;
  const keys = routing.keys.map((k) => toKeyColumn(part.columns[k.column]!));
  const split = routing.splitters.map((d) => toKeyColumn(rebuildData(d)));
  const splitIds = rebuildData(routing.splitterIds).values as Uint32Array;
  const dest = rangesOfRows(split, splitIds, keys, part.rowIds, routing.keys, n, scratchAlloc(Uint32Array, n));
  return { ...routedChunks(groupByDestination(part.columns, part.rowIds, dest, routing.partitions, outputBuffer)), extremes: [] };
}
