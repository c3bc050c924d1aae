/**
 * Window task, run in a worker for one partition (or a group of small ones):
 * load the partition's rows → dense partition-group ids → ONE stable argsort by
 * (group, order keys) (row id breaks ties: rows arrive in row-id order) → permute the order and
 * measure columns → the pure kernel (src/ops/window) → scatter each output column to its rows'
 * global positions in the shared output arrays (tasks own disjoint rows, so no races).
 */
import { toKeyColumn, viewOf, type TypedArrayConstructor } from '../columns/shared.js';
import { computeWindow, computeWindowNaive, type WindowKernelInput } from '../ops/window.js';
import type { ResolvedWindow } from '../ops/window-spec.js';
import type { KeyColumn } from '../types/keys.js';
import type { WindowTask } from '../types/tasks.js';
import { groupIds, groupStartsOf } from './group-ids.js';
import { loadPartition } from './partition-input.js';
import { permuteKey, scatterValues } from './permute.js';
import { resetScratch, scratchAlloc } from './scratch.js';
import { argsortKeys } from './sort.js';

export async function runWindowTask(task: WindowTask): Promise<{ rows: number }> {
  resetScratch();
  const part = await loadPartition(task.input);
  const n = part.n;
  const keys: KeyColumn[] = part.columns.map(toKeyColumn);

  const window = task.window as ResolvedWindow;
  const partitionKeys = task.partitionBy.map((i) => keys[i]!);
  const groups = partitionKeys.length > 0 ? groupIds(partitionKeys, n, true) : null;
  const sortKeys = task.orderBy.map((i, k) => ({
    column: keys[i]!,
    descending: window.orderBy[k]!.descending,
    nullsFirst: window.orderBy[k]!.nulls === 'first',
  }));
  // Group ids lead the sort, so group g occupies the g-th run of sorted positions.
  const perm = argsortKeys(sortKeys, n, groups?.ids);
  const groupStarts = groups ? groupStartsOf(groups.ids, groups.groups) : Uint32Array.of(0, n);
  const input: WindowKernelInput = {
    n,
    groupStarts,
    order: task.orderBy.map((i) => permuteKey(keys[i]!, perm)),
    measures: task.measures.map((i) => permuteKey(keys[i]!, perm)),
    window,
  };
  const outs = task.naive ? computeWindowNaive(input, scratchAlloc as never) : computeWindow(input, scratchAlloc as never);

  const target = scratchAlloc(Uint32Array, n);
  for (let i = 0; i < n; i++) target[i] = part.rowIds[perm[i]!]!;
  outs.forEach((out, c) => {
    const dest = task.outputs[c]!;
    scatterValues(out.values, target, viewOf(out.values.constructor as TypedArrayConstructor, dest.values));
    if (out.valid) {
      const nulls = viewOf(Uint8Array, dest.nulls);
      const valid = out.valid;
      for (let i = 0; i < n; i++) if (valid[i] === 0) nulls[target[i]!] = 1;
    }
  });
  return { rows: n };
}
