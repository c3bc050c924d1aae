/**
 * Hash join task, run in a worker for one partition (both sides hash-partitioned on the keys
 * with the same seed, so equal keys meet here):
 *
 * 1. both sides' rows in row-id order; keys scaled to common units (./join-keys);
 * 2. shared group ids (./group-ids matchGroupIds), the hash table built on the smaller side;
 *    NULL keys get no group unless nullsEqual; rows whose scaled key overflowed get none;
 * 3. right rows grouped by group id with one stable counting scatter: each group's right rows
 *    are a run in right input order;
 * 4. output, left rows in order: for each left row the right rows of its group (inner, left,
 *    right, full), or the left row alone when it has none (left, full); semi/anti: the left row
 *    once when it has matches / none; then (right, full) every right row whose group has no
 *    left row, in right input order, keyed by rightBase + its row id;
 * 5. the right payload gathered per output row (NULL where there is no right row), grouped by
 *    output key range (./routed-chunks) for the sparse output exchange; the stable grouping
 *    keeps each left row's matches in right order.
 * Cost: O(nL + nR + output rows × payload columns).
 */
import * as A from 'apache-arrow';
import { gatherData } from '../columns/gather.js';
import { countingScatter } from '../shuffle/hash.js';
import type { JoinTask, KernelResult } from '../types/tasks.js';
import { matchGroupIds } from './group-ids.js';
import { clearNever, sideKeys } from './join-keys.js';
import { loadPartition } from './partition-input.js';
import { groupByDestination, outputRangesOf, routedChunks } from './routed-chunks.js';
import { scratchAlloc } from './scratch.js';

export async function runJoinTask(task: JoinTask): Promise<KernelResult> {
  const spec = task.spec;
  const [left, right] = await Promise.all([loadPartition(task.left), loadPartition(task.right)]);
  const nL = left.n;
  const nR = right.n;
  const lk = sideKeys(left.columns, nL, spec.leftKeys, spec.scales, 'left');
  const rk = sideKeys(right.columns, nR, spec.rightKeys, spec.scales, 'right');

  // 2. the smaller side builds the table
  let lIds: Int32Array;
  let rIds: Int32Array;
  let groups: number;
  if (nR <= nL) {
    const m = matchGroupIds(rk.columns, lk.columns, nR, nL, spec.nullsEqual);
    rIds = m.buildIds;
    lIds = m.probeIds;
    groups = m.groups;
  } else {
    const m = matchGroupIds(lk.columns, rk.columns, nL, nR, spec.nullsEqual);
    lIds = m.buildIds;
    rIds = m.probeIds;
    groups = m.groups;
  }
  clearNever(lIds, lk.never);
  clearNever(rIds, rk.never);

  // 3. right rows by group (rows without a group in the extra last bucket)
  const bucket = scratchAlloc(Uint32Array, nR);
  for (let j = 0; j < nR; j++) bucket[j] = rIds[j]! < 0 ? groups : rIds[j]!;
  const { offsets: rStarts, order: rOrder } = countingScatter(bucket, groups + 1, scratchAlloc(Uint32Array, nR));

  // 4. output rows
  const how = spec.how;
  const keepUnmatchedLeft = how === 'left' || how === 'full';
  const keepUnmatchedRight = how === 'right' || how === 'full';
  let leftHas: Uint8Array | null = null;
  if (keepUnmatchedRight) {
    leftHas = scratchAlloc(Uint8Array, groups);
    for (let i = 0; i < nL; i++) if (lIds[i]! >= 0) leftHas[lIds[i]!] = 1;
  }
  let total = 0;
  for (let i = 0; i < nL; i++) {
    const g = lIds[i]!;
    const m = g >= 0 ? rStarts[g + 1]! - rStarts[g]! : 0;
    if (how === 'semi') total += m > 0 ? 1 : 0;
    else if (how === 'anti') total += m === 0 ? 1 : 0;
    else total += m === 0 && keepUnmatchedLeft ? 1 : m;
  }
  if (leftHas !== null) for (let j = 0; j < nR; j++) if (rIds[j]! < 0 || leftHas[rIds[j]!] === 0) total++;

  const outIds = scratchAlloc(Uint32Array, total);
  const pick = scratchAlloc(Int32Array, total);
  let k = 0;
  for (let i = 0; i < nL; i++) {
    const g = lIds[i]!;
    const a = g >= 0 ? rStarts[g]! : 0;
    const b = g >= 0 ? rStarts[g + 1]! : 0;
    const id = left.rowIds[i]!;
    if (how === 'semi' || how === 'anti') {
      if ((b > a) === (how === 'semi')) outIds[k++] = id;
      continue;
    }
    if (a === b) {
      if (keepUnmatchedLeft) {
        outIds[k] = id;
        pick[k++] = -1;
      }
      continue;
    }
    for (let r = a; r < b; r++) {
      outIds[k] = id;
      pick[k++] = rOrder[r]!;
    }
  }
  if (leftHas !== null) {
    for (let j = 0; j < nR; j++) {
      if (rIds[j]! >= 0 && leftHas[rIds[j]!] === 1) continue;
      outIds[k] = spec.rightBase + right.rowIds[j]!;
      pick[k++] = j;
    }
  }

  // 5. payload and routing
  const columns: A.Data[] = spec.payload.map((p) => gatherData(right.columns[p]!, pick, total, scratchAlloc));
  const out = task.out;
  if (out.kind !== 'routed') throw new Error('internal: join outputs are routed by left row id');
  const dest = outputRangesOf(outIds, total, out.rangeShift);
  return { ...routedChunks(groupByDestination(columns, outIds, dest, out.ranges, out.buffer)), rows: nL, rightRows: nR };
}
