/**
 * Range routing of a global sort, run in route tasks: each row of a piece goes to the range of
 * its (keys, row id) tuple among the sorted splitter rows: the number of splitters <= the row
 * (binary search, src/ops/sort-compare), then rows grouped by range (./routed-chunks).
 * Cost: O(rows × log ranges × keys) comparisons, O(rows × columns) copying.
 */
import { rebuildData, toKeyColumn } from '../columns/shared.js';
import { rowComparer } from '../ops/sort-compare.js';
import type { RouteResult, SortRangeRouting } from '../types/tasks.js';
import type { LoadedPartition } from './partition-input.js';
import { groupByDestination, routedChunks } from './routed-chunks.js';
import { scratchAlloc } from './scratch.js';

export function routeBySortRange(part: LoadedPartition, routing: SortRangeRouting, outputBuffer: SharedArrayBuffer | null): RouteResult {
  const n = part.n;
  const keys = routing.keys.map((k) => toKeyColumn(part.columns[k.column]!));
  const split = routing.splitters.map((d) => toKeyColumn(rebuildData(d)));
  const splitIds = rebuildData(routing.splitterIds).values as Uint32Array;
  const S = routing.splitterIds.length;
  // compare(split row s, row i) <= 0 means splitter s is at or before row i.
  const compare = rowComparer(split, splitIds, keys, part.rowIds, routing.keys);
  const dest = scratchAlloc(Uint32Array, n);
  for (let i = 0; i < n; i++) {
    let lo = 0;
    let hi = S;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compare(mid, i) <= 0) lo = mid + 1;
      else hi = mid;
    }
    dest[i] = lo;
  }
  return { ...routedChunks(groupByDestination(part.columns, part.rowIds, dest, routing.partitions, outputBuffer)), extremes: [] };
}
