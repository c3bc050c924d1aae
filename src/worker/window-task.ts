/**
 * Window task, run in a worker for one partition (or a group of small ones):
 * load the partition's rows → dense partition-group ids → ONE stable argsort by
 * (group, order keys) (row id breaks ties: rows arrive in row-id order) → permute the order and
 * measure columns → the pure kernel (src/ops/window) → outputs written in place by row id
 * (direct), or as arrow Data grouped by row-id range (./routed-chunks) for the output exchange.
 * Everything but the routed outputs lives in the task's scratch loan.
 */
import { toKeyColumn } from '../columns/shared.js';
import type * as A from 'apache-arrow';
import { computeWindow, computeWindowNaive, type WindowColumnOut, type WindowKernelInput } from '../ops/window.js';
import type { KeyColumn, TypedArrayConstructor } from '../types/keys.js';
import type { KernelResult, WindowTask } from '../types/tasks.js';
import { groupIds, groupStartsOf } from './group-ids.js';
import { loadPartition, type LoadedPartition } from './partition-input.js';
import { permuteKey, scatterValues } from './permute.js';
import { groupByDestination, routedChunks } from './routed-chunks.js';
import { scratchAlloc } from './scratch.js';
import { argsortKeys } from './sort.js';
import { scatterDirect } from './direct-output.js';
import { windowOutputData } from './window-output.js';

/** The window settings of a task (a window task's, or a fused window + group-by task's). */
export type WindowSpec = Pick<WindowTask, 'partitionBy' | 'orderBy' | 'measures' | 'window' | 'naive'>;

/** The kernel's outputs for a loaded partition, in sorted order, and that order (sorted position -> row). */
function computeSorted(part: LoadedPartition, task: WindowSpec): { outs: WindowColumnOut[]; perm: Uint32Array } {
  const n = part.n;
  const keys: KeyColumn[] = part.columns.map(toKeyColumn);

  const window = task.window;
  const partitionKeys = task.partitionBy.map((i) => keys[i]!);
  const groups = partitionKeys.length > 0 ? groupIds(partitionKeys, n, true) : null;
  const sortKeys = task.orderBy.map((i, k) => ({
    column: keys[i]!,
    descending: window.orderBy[k]!.descending,
    nullsFirst: window.orderBy[k]!.nulls === 'first',
  }));
  // Group ids lead the sort, so group g occupies the g-th run of sorted positions.
  const perm = argsortKeys(sortKeys, n, groups?.ids, scratchAlloc(Uint32Array, n));
  const groupStarts = groups ? groupStartsOf(groups.ids, groups.groups) : Uint32Array.of(0, n);
  const input: WindowKernelInput = {
    n,
    groupStarts,
    order: task.orderBy.map((i) => permuteKey(keys[i]!, perm)),
    measures: task.measures.map((i) => permuteKey(keys[i]!, perm)),
    window,
  };
  const outs = task.naive ? computeWindowNaive(input, scratchAlloc) : computeWindow(input, scratchAlloc);
  return { outs, perm };
}

/**
 * The window outputs of a loaded partition as arrow Data in the partition's own row order (row
 * id order), for an operator fused after the window in the same task (src/worker/groupby-task).
 */
export function windowColumnsInRowOrder(part: LoadedPartition, task: WindowSpec): A.Data[] {
  const { outs, perm } = computeSorted(part, task);
  const n = part.n;
  return outs.map((o) => {
    const values = scratchAlloc(o.values.constructor as TypedArrayConstructor, n);
    scatterValues(o.values, perm, values);
    let valid: Uint8Array | null = null;
    if (o.valid) {
      valid = scratchAlloc(Uint8Array, n);
      for (let i = 0; i < n; i++) valid[perm[i]!] = o.valid[i]!;
    }
    return windowOutputData({ type: o.type, values, valid }, n);
  });
}

export async function runWindowTask(task: WindowTask): Promise<KernelResult> {
  const part = await loadPartition(task.input);
  const n = part.n;
  const { outs, perm } = computeSorted(part, task);

  const rowIds = scratchAlloc(Uint32Array, n);
  for (let i = 0; i < n; i++) rowIds[i] = part.rowIds[perm[i]!]!;
  const out = task.out;
  if (out.kind === 'direct') {
    outs.forEach((o, c) => scatterDirect(o.values, o.valid, rowIds, out.columns[c]!));
    return { bufferBytes: 0, extraBytes: 0, parts: [], rows: n, rightRows: 0 };
  }
  const dest = scratchAlloc(Uint32Array, n);
  for (let i = 0; i < n; i++) dest[i] = rowIds[i]! >>> out.rangeShift;
  const columns = outs.map((o) => windowOutputData(o, n));
  return { ...routedChunks(groupByDestination(columns, rowIds, dest, out.ranges, out.buffer)), rows: n, rightRows: 0 };
}
