/**
 * Routing of rows already partitioned once, run in workers: one piece of an exchange (chunks
 * or a spill file) → a destination per row → rows grouped by destination (./routed-chunks),
 * as in a partition task, row ids kept.
 * - by ASOF key range ((by keys, on key) tuples, src/ops/asof-range-order): binary search
 *   over the sorted splitters; without by keys NULL/NaN keys go to range 0, where they never
 *   match. For the right side it also reports each range's least tuple row (first of equal
 *   tuples, in row order) and greatest (last of equal ones): the boundary rows a neighbouring
 *   range may need.
 * - by a seeded hash of key columns (a partition split again with another seed);
 * - by ranges of (sort keys, row id) for a global sort (./sort-range);
 * - by row id ranges (an output range cut finer; rows arrive in row-id order, ties in piece order).
 * Cost: O(rows × (log ranges + columns)).
 */
import { rebuildData, toKeyColumn } from '../columns/shared.js';
import { normalizeAsofKey, type NormalizedKey } from '../ops/asof-keys.js';
import { alignByColumn, asofTupleComparer } from '../ops/asof-range-order.js';
import { hashColumns, partitionOf, remixHashes } from '../shuffle/hash.js';
import type { RouteResult, RouteTask } from '../types/tasks.js';
import { loadPartition } from './partition-input.js';
import { groupByDestination, routedChunks } from './routed-chunks.js';
import { scratchAlloc } from './scratch.js';
import { routeBySortRange } from './sort-range.js';
import { splittersAtOrBefore } from '../ops/sort-range-search.js';

function isValid(k: NormalizedKey, i: number): boolean {
  return k.valid === null || k.valid[i] === 1;
}

export async function runRouteTask(task: RouteTask): Promise<RouteResult> {
  const part = await loadPartition(task.input);
  const n = part.n;
  if (task.routing.kind === 'sortRange') return routeBySortRange(part, task.routing, task.outputBuffer);
  if (task.routing.kind === 'idRange') {
    const { base, shift, partitions } = task.routing;
    const pids = scratchAlloc(Uint32Array, n);
    for (let i = 0; i < n; i++) {
      const off = part.rowIds[i]! - base;
      const d = off >>> shift;
      if (off < 0 || d >= partitions) throw new Error(`internal: row id ${part.rowIds[i]} is outside the id ranges from ${base}`);
      pids[i] = d;
    }
    return { ...routedChunks(groupByDestination(part.columns, part.rowIds, pids, partitions, task.outputBuffer)), extremes: [] };
  }
  if (task.routing.kind === 'hash') {
    const { keyColumns, partitions, seed, level } = task.routing;
    const keys = keyColumns.map((i) => toKeyColumn(part.columns[i]!));
    const hashes = hashColumns(keys, n, seed, scratchAlloc(Uint32Array, n));
    if (level > 0) remixHashes(hashes, n, level);
    const pids = partitionOf(hashes, partitions, scratchAlloc(Uint32Array, n));
    return { ...routedChunks(groupByDestination(part.columns, part.rowIds, pids, partitions, task.outputBuffer)), extremes: [] };
  }
  const { key: plan, keyColumn, partitions, byColumns } = task.routing;
  const keys = normalizeAsofKey(toKeyColumn(part.columns[keyColumn]!), plan);
  const split = normalizeAsofKey(toKeyColumn(rebuildData(task.routing.splitters)), plan);
  const splitBy = task.routing.splitterBy.map((d) => toKeyColumn(rebuildData(d)));
  const by = byColumns.map((c, k) => alignByColumn(toKeyColumn(part.columns[c]!), splitBy[k]!));
  const alignedSplitBy = splitBy.map((c, k) => alignByColumn(c, by[k]!));
  const S = task.routing.splitters.length;
  // compare(splitter s, row i) <= 0: the splitter is at or before the row.
  const compare = asofTupleComparer(alignedSplitBy, split, by, keys);
  const pids = scratchAlloc(Uint32Array, n);
  for (let i = 0; i < n; i++) pids[i] = splittersAtOrBefore(compare, S, i);
  const g = groupByDestination(part.columns, part.rowIds, pids, partitions, task.outputBuffer);
  const routed = routedChunks(g);
  const extremes: RouteResult['extremes'] = [];
  const rowOrder = task.routing.extremes ? asofTupleComparer(by, keys, by, keys) : null;
  const order = rowOrder ? g.order() : null;
  for (let p = 0; rowOrder && p < partitions; p++) {
    const start = g.offsets[p]!;
    const len = g.offsets[p + 1]! - start;
    if (len === 0) continue;
    // Rows of a range are in row order: strict < keeps the first least tuple, >= the last greatest.
    let min = -1;
    let max = -1;
    for (let k = 0; k < len; k++) {
      const r = order![start + k]!;
      if (!isValid(keys, r)) continue;
      if (min < 0 || rowOrder(r, order![start + min]!) < 0) min = k;
      if (max < 0 || rowOrder(r, order![start + max]!) >= 0) max = k;
    }
    extremes.push({ partition: p, min, max });
  }
  return { ...routed, extremes };
}
