/**
 * Range routing for an ASOF join without `by` keys, run in workers: one chunk of a side's
 * rows → the key range of each row (binary search over the sorted splitters; NULL/NaN keys go
 * to range 0, where they never match) → one gather per column into a pooled shared buffer, so
 * range p is a contiguous region, as in a partition task. For the right side it also reports
 * each range's least key row (first of equal keys, in row order) and greatest (last of equal
 * keys): the boundary rows a neighbouring range may need.
 * Cost: O(rows × (log ranges + columns)).
 */
import * as A from 'apache-arrow';
import { SharedArena } from '../columns/arena.js';
import { gatherData } from '../columns/gather.js';
import { rebuildData, toKeyColumn } from '../columns/shared.js';
import { compareAsofKeys, normalizeAsofKey, type AsofKeyPlan, type NormalizedKey } from '../ops/asof-keys.js';
import { countingScatter } from '../shuffle/hash.js';
import type { RouteResult, RouteTask } from '../types/tasks.js';
import { loadPartition } from './partition-input.js';
import { partitionRegions } from './partition-task.js';
import { resetScratch, scratchAlloc } from './scratch.js';

function isValid(k: NormalizedKey, i: number): boolean {
  return k.valid === null || k.valid[i] === 1;
}

export async function runRouteTask(task: RouteTask): Promise<RouteResult> {
  resetScratch();
  const part = await loadPartition(task.input);
  const n = part.n;
  const plan = task.key as AsofKeyPlan;
  const keys = normalizeAsofKey(toKeyColumn(part.columns[task.keyPos]!), plan);
  const split = normalizeAsofKey(toKeyColumn(rebuildData(task.splitters)), plan);
  const S = task.splitters.length;

  const pids = scratchAlloc(Uint32Array, n);
  for (let i = 0; i < n; i++) {
    if (!isValid(keys, i)) continue;
    let lo = 0;
    let hi = S;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareAsofKeys(split, mid, keys, i) <= 0) lo = mid + 1;
      else hi = mid;
    }
    pids[i] = lo;
  }
  const P = task.partitions;
  const { offsets, order } = countingScatter(pids, P, scratchAlloc(Uint32Array, n));
  const idx = new Int32Array(order.buffer, order.byteOffset, n);
  const arena = new SharedArena(Math.max(1 << 20, Math.min(64 << 20, n * 8 * (part.columns.length + 1))), task.outputBuffer ?? null);
  const gathered = part.columns.map((c) => gatherData(c, idx, n, arena.alloc as never));
  const rowIds = arena.alloc(Uint32Array, n);
  for (let i = 0; i < n; i++) rowIds[i] = part.rowIds[idx[i]!]!;
  const rowIdData = A.makeData({ type: new A.Uint32(), length: n, data: rowIds });

  const parts = partitionRegions(gathered, rowIdData, offsets);
  const extremes: RouteResult['extremes'] = [];
  for (const { partition: p } of task.extremes ? parts : []) {
    const start = offsets[p]!;
    const len = offsets[p + 1]! - start;
    // Rows of a range are in row order: strict < keeps the first least key, >= the last greatest.
    let min = -1;
    let max = -1;
    for (let k = 0; k < len; k++) {
      const r = idx[start + k]!;
      if (!isValid(keys, r)) continue;
      if (min < 0 || compareAsofKeys(keys, r, keys, idx[start + min]!) < 0) min = k;
      if (max < 0 || compareAsofKeys(keys, r, keys, idx[start + max]!) >= 0) max = k;
    }
    extremes.push({ partition: p, min, max });
  }
  return { bytes: arena.firstBytesUsed + arena.reserved, parts, extremes };
}
