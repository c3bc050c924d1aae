/**
 * Dense group-by task, run in a worker for one slab (src/coordinator/exec-groupby-dense): each
 * of its batches in turn, each row's slot in the key's table (key - base), then the batch's
 * rows added into the table the coordinator lent this task (src/ops/dense-aggregate). A key
 * outside the table's range stops the task and says so: the coordinator then groups the input
 * by hash instead (the table, maybe added to in part, is no longer used).
 * Slots, validity bytes and the like live in scratch (coordinator's scratchPerRow).
 */
import { rebuildData, toKeyColumn } from '../columns/shared.js';
import { accumulateDense, denseLayout, slotsOf } from '../ops/dense-aggregate.js';
import type { DenseAggResult, DenseAggTask } from '../types/tasks.js';
import { scratchAlloc, scratchMark, scratchRelease } from './scratch.js';

export function runDenseAggTask(task: DenseAggTask): DenseAggResult {
  const layout = denseLayout(task.outputs);
  const table = new Int32Array(task.table, 0, (task.span + 1) * layout.stride);
  let rows = 0;
  for (const batch of task.batches) {
    const n = batch.length;
    const mark = scratchMark();
    const columns = batch.columns.map((c) => toKeyColumn(rebuildData(c), scratchAlloc));
    const slots = scratchAlloc(Int32Array, n, 'overwritten');
    if (!slotsOf(columns[0]!, n, task.base, task.span, slots)) return { rows, inRange: false };
    accumulateDense(table, layout, slots, n, task.rowBase + rows, columns);
    scratchRelease(mark);
    rows += n;
  }
  return { rows, inRange: true };
}
