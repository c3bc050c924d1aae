/**
 * Window task, run in a worker for one partition (or a group of small ones):
 * load the partition's rows → dense partition-group ids → ONE stable argsort by
 * (group, order keys) (row id breaks ties: rows arrive in row-id order) → permute the order and
 * measure columns → the pure kernel (src/ops/window) → each output column's values in sorted
 * order (takes gathered from the measure, window-output.ts) → scattered to its rows' global
 * positions in the shared output arrays (tasks own disjoint rows, so no races).
 * Fixed-width outputs only: variable-width results (strings, binary, nested types) need the
 * sorted-order output path (windowOutputData).
 */
import type * as A from 'apache-arrow';
import { toKeyColumn, viewOf, type TypedArrayConstructor } from '../columns/shared.js';
import { bitmapToBytes } from '../columns/bits.js';
import { typeFromArrow } from '../columns/arrow-types.js';
import { computeWindow, computeWindowNaive, type WindowKernelInput } from '../ops/window.js';
import type { ResolvedWindow } from '../ops/window-spec.js';
import type { KeyColumn, TypedArray } from '../types/keys.js';
import type { WindowTask } from '../types/tasks.js';
import { groupIds, groupStartsOf } from './group-ids.js';
import { loadPartition } from './partition-input.js';
import { permuteKey, scatterValues } from './permute.js';
import { resetScratch, scratchAlloc } from './scratch.js';
import { argsortKeys } from './sort.js';
import { takeFixedValues } from './window-output.js';

/**
 * A measure column as the kernel sees it: typed arrays for primitive types; for nested types
 * (read only by first/last/nthValue/lag/lead, which gather the column) just its validity.
 */
export function measureKeyColumn(data: A.Data): KeyColumn {
  const t = typeFromArrow(data.type);
  switch (t.kind) {
    case 'list':
    case 'largeList':
    case 'fixedSizeList':
    case 'struct':
    case 'map': {
      const n = data.length;
      const valid = data.nullCount > 0 ? bitmapToBytes(data.nullBitmap, data.offset, n) : null;
      return { type: t, length: n, values: new Uint8Array(0), offsets: null, valid };
    }
    default:
      return toKeyColumn(data);
  }
}

/** Dense ids of a sorted measure's values for countDistinct (NULL = -1). */
export function distinctIdsOf(col: KeyColumn, n: number): { ids: Int32Array; count: number } {
  const { ids, groups } = groupIds([col], n, true);
  const out = new Int32Array(ids.buffer, ids.byteOffset, n);
  const valid = col.valid;
  if (valid) for (let i = 0; i < n; i++) if (valid[i] === 0) out[i] = -1;
  return { ids: out, count: groups };
}

export async function runWindowTask(task: WindowTask): Promise<{ rows: number }> {
  resetScratch();
  const part = await loadPartition(task.input);
  const n = part.n;
  const key = (i: number): KeyColumn => toKeyColumn(part.columns[i]!);

  const window = task.window as ResolvedWindow;
  const partitionKeys = task.partitionBy.map(key);
  const groups = partitionKeys.length > 0 ? groupIds(partitionKeys, n, true) : null;
  const orderKeys = task.orderBy.map(key);
  const sortKeys = orderKeys.map((column, k) => ({
    column,
    descending: window.orderBy[k]!.descending,
    nullsFirst: window.orderBy[k]!.nulls === 'first',
  }));
  // Group ids lead the sort, so group g occupies the g-th run of sorted positions.
  const perm = argsortKeys(sortKeys, n, groups?.ids);
  const groupStarts = groups ? groupStartsOf(groups.ids, groups.groups) : Uint32Array.of(0, n);
  const measures = task.measures.map((i) => permuteKey(measureKeyColumn(part.columns[i]!), perm));
  const input: WindowKernelInput = {
    n,
    groupStarts,
    order: orderKeys.map((k) => permuteKey(k, perm)),
    measures,
    window,
    distinctIds: measures.map((m, i) => (window.columns.some((c) => c.fn === 'countDistinct' && c.measure === i) ? distinctIdsOf(m, n) : null)),
  };
  const outs = task.naive ? computeWindowNaive(input, scratchAlloc as never) : computeWindow(input, scratchAlloc as never);

  const target = scratchAlloc(Uint32Array, n);
  for (let i = 0; i < n; i++) target[i] = part.rowIds[perm[i]!]!;
  outs.forEach((out, c) => {
    const dest = task.outputs[c]!;
    let values: TypedArray;
    let valid: Uint8Array | null;
    if (out.kind === 'values') ({ values, valid } = out);
    else ({ values, valid } = takeFixedValues(out.index, measures[out.measure]!, window.columns[c]!.default, scratchAlloc as never));
    const stride = out.type.kind === 'decimal' ? 4 : 1;
    scatterValues(values, target, viewOf(values.constructor as TypedArrayConstructor, dest.values), stride);
    if (valid) {
      const nulls = viewOf(Uint8Array, dest.nulls);
      for (let i = 0; i < n; i++) if (valid[i] === 0) nulls[target[i]!] = 1;
    }
  });
  return { rows: n };
}
