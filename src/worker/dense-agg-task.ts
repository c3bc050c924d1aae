/**
 * Dense group-by task, run in a worker for one slab (src/coordinator/exec-groupby-dense): each
 * row's slot in the key's table (key - base), then the slab's rows added into the table the
 * coordinator lent this task (src/ops/dense-aggregate). A key outside the table's range leaves
 * the table untouched and says so: the coordinator then groups the input by hash instead.
 * Only the slots (4 bytes a row) live in scratch.
 */
import { rebuildData, toKeyColumn } from '../columns/shared.js';
import { accumulateDense, denseLayout, slotsOf } from '../ops/dense-aggregate.js';
import type { DenseAggResult, DenseAggTask } from '../types/tasks.js';
import { scratchAlloc } from './scratch.js';

export function runDenseAggTask(task: DenseAggTask): DenseAggResult {
  const n = task.batch.length;
  const columns = task.batch.columns.map((c) => toKeyColumn(rebuildData(c)));
  const slots = scratchAlloc(Int32Array, n, 'overwritten');
  if (!slotsOf(columns[0]!, n, task.base, task.span, slots)) return { rows: n, inRange: false };
  const layout = denseLayout(task.outputs);
  accumulateDense(new Float64Array(task.table, 0, (task.span + 1) * layout.stride), layout, task.outputs, slots, n, task.rowBase, columns);
  return { rows: n, inRange: true };
}
