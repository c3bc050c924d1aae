/**
 * Window task, run in a worker for one partition (or a group of small ones):
 * load the partition's rows → dense partition-group ids → ONE stable argsort by
 * (group, order keys) (row id breaks ties: rows arrive in row-id order) → permute the order and
 * measure columns → the pure kernel (src/ops/window) → scatter each output column to its rows'
 * global positions in the shared output arrays (tasks own disjoint rows, so no races).
 */
import { toKeyColumn } from '../columns/shared.js';
import { computeWindow, computeWindowNaive, type WindowKernelInput } from '../ops/window.js';
import type { ResolvedWindow } from '../ops/window-spec.js';
import type { KeyColumn, TypedArray } from '../types/keys.js';
import type { ColumnDesc } from '../types/column.js';
import type { WindowTask } from '../types/tasks.js';
import { groupIds } from './group-ids.js';
import { loadPartition } from './partition-input.js';
import { permuteKey, scatterValues } from './permute.js';
import { resetScratch, scratchAlloc } from './scratch.js';
import { argsortKeys } from './sort.js';

export async function runWindowTask(task: WindowTask): Promise<{ rows: number }> {
  resetScratch();
  const part = await loadPartition(task.input);
  const n = part.n;
  const keys: KeyColumn[] = part.columns.map(toKeyColumn);

  const partitionKeys = task.partitionBy.map((i) => keys[i]!);
  const gids = partitionKeys.length > 0 ? groupIds(partitionKeys, n, true).ids : undefined;
  const sortKeys = task.orderBy.map((i, k) => ({
    column: keys[i]!,
    descending: task.orderFlags[k]!.descending,
    nullsFirst: task.orderFlags[k]!.nullsFirst,
  }));
  const perm = argsortKeys(sortKeys, n, gids);

  const groupStarts = segmentStarts(gids, perm, n);
  const input: WindowKernelInput = {
    n,
    groupStarts,
    order: task.orderBy.map((i) => permuteKey(keys[i]!, perm)),
    measures: task.measures.map((i) => permuteKey(keys[i]!, perm)),
    window: task.window as ResolvedWindow,
  };
  const outs = task.naive ? computeWindowNaive(input, scratchAlloc as never) : computeWindow(input, scratchAlloc as never);

  const target = scratchAlloc(Uint32Array, n);
  for (let i = 0; i < n; i++) target[i] = part.rowIds[perm[i]!]!;
  outs.forEach((out, c) => {
    const dest = task.outputs[c]!;
    scatterValues(out.values, target, viewOf(dest.values, out.values));
    if (out.valid) {
      const nulls = viewOf(dest.nulls, new Uint8Array(0)) as Uint8Array;
      const valid = out.valid;
      for (let i = 0; i < n; i++) if (valid[i] === 0) nulls[target[i]!] = 1;
    }
  });
  return { rows: n };
}

/** Start of each run of equal group ids in sorted order, then n. */
function segmentStarts(gids: Uint32Array | undefined, perm: Uint32Array, n: number): Uint32Array {
  if (!gids || n === 0) return Uint32Array.of(0, n);
  const starts: number[] = [0];
  let prev = gids[perm[0]!]!;
  for (let i = 1; i < n; i++) {
    const g = gids[perm[i]!]!;
    if (g !== prev) {
      starts.push(i);
      prev = g;
    }
  }
  starts.push(n);
  return Uint32Array.from(starts);
}

function viewOf(desc: ColumnDesc, like: TypedArray): TypedArray {
  const ref = desc.values!;
  const Ctor = like.constructor as { new (b: ArrayBufferLike, o: number, l: number): TypedArray; BYTES_PER_ELEMENT: number };
  return new Ctor(ref.sab, ref.byteOffset, ref.byteLength / Ctor.BYTES_PER_ELEMENT);
}
