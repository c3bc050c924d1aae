/**
 * Window task, run in a worker for one partition (or a group of small ones):
 * load the partition's rows → dense partition-group ids → ONE stable argsort by
 * (group, order keys) (row id breaks ties: rows arrive in row-id order) → permute the order and
 * measure columns (nested measures: only their validity) → the pure kernel (src/ops/window) →
 * outputs written in place by row id (direct: fixed-width results, takes gathered from the
 * permuted measure), or as arrow Data in sorted order (./window-output: takes gathered from the
 * measure column of any type) grouped by row-id range (./routed-chunks) for the output exchange,
 * or (rows output, preserveOrder: false) gathered back to the partition's own row order and
 * appended to its rows, which were loaded straight into the output region.
 * Everything but the routed outputs lives in the task's scratch loan.
 */
import type * as A from 'apache-arrow';
import { typeFromArrow } from '../columns/arrow-types.js';
import { bitmapToBytes } from '../columns/bits.js';
import { gatherData } from '../columns/gather.js';
import { toKeyColumn } from '../columns/shared.js';
import { computeWindow, computeWindowNaive, type WindowColumnOut, type WindowKernelInput } from '../ops/window.js';
import type { Allocator, KeyColumn, TypedArray } from '../types/keys.js';
import type { KernelResult, WindowTask } from '../types/tasks.js';
import { scatterDirect } from './direct-output.js';
import { groupIds, groupStartsOf } from './group-ids.js';
import { loadPartition, type LoadedPartition } from './partition-input.js';
import { permuteKey } from './permute.js';
import { groupByDestination, routedChunks, rowsArena, rowsRegion } from './routed-chunks.js';
import { scratchAlloc } from './scratch.js';
import { argsortKeys } from './sort.js';
import { takeFixedValues, windowOutputData } from './window-output.js';

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
    case 'map':
    case 'null': {
      const n = data.length;
      const valid = t.kind === 'null' ? new Uint8Array(n) : data.nullCount > 0 ? bitmapToBytes(data.nullBitmap, data.offset, n, scratchAlloc(Uint8Array, n)) : null;
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

/** The window settings of a task (a window task's, or a fused window + group-by task's). */
export type WindowSpec = Pick<WindowTask, 'partitionBy' | 'orderBy' | 'measures' | 'window' | 'naive'>;

/** The kernel's outputs for a loaded partition in sorted order, that order (sorted position -> row) and the permuted measures. */
function computeSorted(part: LoadedPartition, task: WindowSpec): { outs: WindowColumnOut[]; perm: Uint32Array; measures: KeyColumn[] } {
  const n = part.n;
  const key = (i: number): KeyColumn => toKeyColumn(part.columns[i]!);

  const window = task.window;
  const partitionKeys = task.partitionBy.map(key);
  const groups = partitionKeys.length > 0 ? groupIds(partitionKeys, n, true) : null;
  const orderKeys = task.orderBy.map(key);
  const sortKeys = orderKeys.map((column, k) => ({
    column,
    descending: window.orderBy[k]!.descending,
    nullsFirst: window.orderBy[k]!.nulls === 'first',
  }));
  // Group ids lead the sort, so group g occupies the g-th run of sorted positions.
  const perm = argsortKeys(sortKeys, n, groups?.ids, scratchAlloc(Uint32Array, n));
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
  const outs = task.naive ? computeWindowNaive(input, scratchAlloc) : computeWindow(input, scratchAlloc);
  return { outs, perm, measures };
}

/**
 * The window outputs of a loaded partition as arrow Data in the partition's own row order (row
 * id order), in memory from `alloc`: for an operator fused after the window in the same task
 * (src/worker/groupby-task), or a rows output (preserveOrder: false).
 */
export function windowColumnsInRowOrder(part: LoadedPartition, task: WindowSpec, alloc: Allocator = scratchAlloc): A.Data[] {
  const { outs, perm } = computeSorted(part, task);
  const n = part.n;
  // Sorted position of each row: gathering the sorted outputs by it puts them in row order.
  const position = scratchAlloc(Int32Array, n);
  for (let i = 0; i < n; i++) position[perm[i]!] = i;
  return outs.map((o, c) => {
    const sorted = windowOutputData(o, task.window.columns[c]!, o.kind === 'take' ? part.columns[task.measures[o.measure]!]! : null, perm, scratchAlloc);
    return gatherData(sorted, position, n, alloc);
  });
}

export async function runWindowTask(task: WindowTask): Promise<KernelResult> {
  const out = task.out;
  // Rows output: the partition is loaded straight into the region the rows leave in.
  const region = out.kind === 'rows' ? rowsArena(out.buffer) : null;
  const part = await loadPartition(task.input, false, region?.alloc ?? null);
  const n = part.n;
  // The rows in their own order (row ids), the outputs gathered back to it, in the region.
  if (out.kind === 'rows') return { ...rowsRegion(region!, [...part.columns, ...windowColumnsInRowOrder(part, task, region!.alloc)], part.rowIds, n), rows: n, rightRows: 0 };
  const { outs, perm, measures } = computeSorted(part, task);
  const window = task.window;

  const rowIds = scratchAlloc(Uint32Array, n);
  for (let i = 0; i < n; i++) rowIds[i] = part.rowIds[perm[i]!]!;
  if (out.kind === 'direct') {
    // Every result is fixed-width here: a take is gathered from the permuted measure.
    outs.forEach((o, c) => {
      let values: TypedArray;
      let valid: Uint8Array | null;
      if (o.kind === 'values') ({ values, valid } = o);
      else ({ values, valid } = takeFixedValues(o.index, measures[o.measure]!, window.columns[c]!.default, scratchAlloc));
      scatterDirect(values, valid, rowIds, out.columns[c]!);
    });
    return { bufferBytes: 0, extraBytes: 0, parts: [], rows: n, rightRows: 0 };
  }
  const columns = outs.map((o, c) => windowOutputData(o, window.columns[c]!, o.kind === 'take' ? part.columns[task.measures[o.measure]!]! : null, perm, scratchAlloc));
  const dest = scratchAlloc(Uint32Array, n);
  for (let i = 0; i < n; i++) dest[i] = rowIds[i]! >>> out.rangeShift;
  return { ...routedChunks(groupByDestination(columns, rowIds, dest, out.ranges, out.buffer)), rows: n, rightRows: 0 };
}
