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
 * A sort range of a partition too big for one task (`halo`) also loads its neighbour ranges,
 * computes over all three and keeps its own rows' results (src/ops/window-halo), whichever the output.
 * Everything but the routed outputs lives in the task's scratch loan.
 */
import { invertInto } from '../columns/array-loops.js';
import type * as A from 'apache-arrow';
import { typeFromArrow } from '../columns/arrow-types.js';
import { bitmapToBytes } from '../columns/bits.js';
import { concatData, gatherData } from '../columns/gather.js';
import { toKeyColumn } from '../columns/shared.js';
import { computeWindow, computeWindowNaive, type WindowColumnOut, type WindowKernelInput } from '../ops/window.js';
import { ExecutionError } from '../errors.js';
import { words64 } from '../ops/int64-words.js';
import { applyOutside, carryOut, firstUnreachable, groupAt, NO_CARRY, suffixOf, type HaloCuts } from '../ops/window-halo.js';
import { formatBytes } from '../memory/budget.js';
import type { Allocator, KeyColumn, TypedArray, TypedArrayConstructor } from '../types/keys.js';
import type { KernelResult, WindowCarry, WindowHalo, WindowSuffix, WindowSuffixTask, WindowTask } from '../types/tasks.js';
import { claimStaging, clearNullRows, scatterDirect, stageDirect } from './direct-output.js';
import { groupIds, groupStartsOf } from './group-ids.js';
import { loadPartition, type LoadedPartition } from './partition-input.js';
import { permuteKey, permuteValues } from './permute.js';
import { groupByDestination, noRows, outputRangesOf, routedChunks, rowsArena, rowsRegion } from './routed-chunks.js';
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
  const { ids, groups } = groupIds([col], n, true, scratchAlloc);
  const out = new Int32Array(ids.buffer, ids.byteOffset, n);
  const valid = col.valid;
  if (valid) for (let i = 0; i < n; i++) if (valid[i] === 0) out[i] = -1;
  return { ids: out, count: groups };
}

/** The window settings of a task (a window task's, or a fused window + group-by task's). */
export type WindowSpec = Pick<WindowTask, 'partitionBy' | 'orderBy' | 'measures' | 'window' | 'naive'>;

/** A loaded partition sorted for the kernel: its input in sorted order, and that order (sorted position -> row). */
function sortedInput(part: LoadedPartition, task: Omit<WindowSpec, 'naive'>): { input: WindowKernelInput; perm: Uint32Array } {
  const n = part.n;
  const key = (i: number): KeyColumn => toKeyColumn(part.columns[i]!);

  const window = task.window;
  const partitionKeys = task.partitionBy.map(key);
  // In the task's loan, not fresh memory: first-touching ~100 MB of it per 10M rows cost more than the grouping.
  const groups = partitionKeys.length > 0 ? groupIds(partitionKeys, n, true, scratchAlloc) : null;
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
  return { input, perm };
}

/** The kernel's outputs for a loaded partition in sorted order, that order (sorted position -> row) and the permuted measures. */
function computeSorted(part: LoadedPartition, task: WindowSpec): { outs: WindowColumnOut[]; perm: Uint32Array; measures: KeyColumn[]; input: WindowKernelInput } {
  const { input, perm } = sortedInput(part, task);
  const outs = task.naive ? computeWindowNaive(input, scratchAlloc) : computeWindow(input, scratchAlloc);
  return { outs, perm, measures: input.measures, input };
}

/**
 * One step of the suffix pass (WindowSuffixTask): the range and the one before it, sorted as a
 * range task sorts them, and the suffix the one before needs (src/ops/window-halo suffixOf).
 */
export async function runWindowSuffixTask(task: WindowSuffixTask): Promise<WindowSuffix> {
  const own = await loadPartition(task.input);
  const { part, own: at } = await joinLoads(await loadPartition(task.before), own, null);
  const { input, perm } = sortedInput(part, task);
  const n = part.n;
  // The range's first row: the least of its (keys, row id) tuples, the one sorted first among its rows.
  let q = -1;
  for (let i = 0; i < n && q < 0; i++) if (perm[i]! >= at.start) q = i;
  const g = groupAt(input.groupStarts, q);
  let inOwn = 0;
  for (let i = input.groupStarts[g]!; i < input.groupStarts[g + 1]!; i++) if (perm[i]! >= at.start) inOwn++;
  return suffixOf(input, q, inOwn === own.n, task.next, scratchAlloc);
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
  const position = scratchAlloc(Int32Array, n, 'overwritten');
  invertInto(perm, 0, position, n);
  return outs.map((o, c) => {
    const sorted = windowOutputData(o, task.window.columns[c]!, o.kind === 'take' ? part.columns[task.measures[o.measure]!]! : null, perm, scratchAlloc);
    return gatherData(sorted, position, n, alloc);
  });
}

export async function runWindowTask(task: WindowTask): Promise<KernelResult> {
  const out = task.out;
  const halo = task.halo;
  // Rows output: the partition (a range's own rows) is loaded straight into the region the rows leave in.
  const region = out.kind === 'rows' ? rowsArena(out.buffer) : null;
  const own = await loadPartition(task.input, false, region?.alloc ?? null);
  // The rows in their own order (row ids), the outputs gathered back to it, in the region.
  if (out.kind === 'rows' && !halo) return { ...rowsRegion(region!, [...own.columns, ...windowColumnsInRowOrder(own, task, region!.alloc)], own.rowIds, own.n), rows: own.n, rightRows: 0 };
  const loaded = halo ? await withHalo(own, halo) : { part: own, own: null };
  const part = loaded.part;
  const sorted = computeSorted(part, task);
  const { measures, perm } = sorted;
  let outs = sorted.outs;
  const window = task.window;
  let n = part.n;
  // Load position of each output row (takes index the full sorted order through `perm`).
  let rowPerm = perm;
  let carry: WindowCarry | undefined;
  if (halo) {
    const kept = keepOwnRows(sorted.input, outs, perm, part.rowIds, loaded.own!, halo);
    ({ outs, rowPerm, n, carry } = kept);
  }
  const takeFrom = (o: WindowColumnOut): A.Data | null => (o.kind === 'take' ? part.columns[task.measures[o.measure]!]! : null);

  if (out.kind === 'rows') {
    // A range's own rows, in row-id order: own row j is at load position own.start + j.
    const position = scratchAlloc(Int32Array, n, 'overwritten');
    invertInto(rowPerm, loaded.own!.start, position, n);
    const columns = outs.map((o, c) => gatherData(windowOutputData(o, window.columns[c]!, takeFrom(o), perm, scratchAlloc), position, n, region!.alloc));
    return { ...rowsRegion(region!, [...own.columns, ...columns], own.rowIds, n), rows: n, rightRows: 0, carry };
  }
  if (out.kind === 'direct') {
    // Every result is fixed-width here: a take is gathered from the permuted measure. Written
    // in load order (ascending row ids), each row reading its sorted position: see scatterDirect.
    const { target, from } = directOrder(part.rowIds, rowPerm, n, halo ? loaded.own! : null);
    // Staged: each column's values at the task's own stretch, in load order (see DirectStaging).
    const base = out.staging ? claimStaging(out.staging, target) : 0;
    // The row id of each sorted-order output, made for the first column with NULLs: their bits
    // are cleared by scanning the column's validity in order, where reading it through `from`
    // read a byte at random per row of every column (window6: most of its 30 have a NULL).
    let sortedIds: Uint32Array | null = null;
    outs.forEach((o, c) => {
      let values: TypedArray;
      let valid: Uint8Array | null;
      if (o.kind === 'values') ({ values, valid } = o);
      else ({ values, valid } = takeFixedValues(o.index, measures[o.measure]!, window.columns[c]!.default, scratchAlloc));
      if (out.staging) stageDirect(values, target, out.columns[c]!, base, from);
      else scatterDirect(values, target, out.columns[c]!, from);
      if (valid) clearNullRows(valid, (sortedIds ??= permuteValues(part.rowIds, rowPerm.subarray(0, n))), out.columns[c]!);
    });
    return { ...noRows(), rows: n, rightRows: 0, carry };
  }
  const rowIds = permuteValues(part.rowIds, rowPerm.subarray(0, n));
  const columns = outs.map((o, c) => windowOutputData(o, window.columns[c]!, takeFrom(o), perm, scratchAlloc));
  const dest = outputRangesOf(rowIds, n, out.rangeShift);
  return { ...routedChunks(groupByDestination(columns, rowIds, dest, out.ranges, out.buffer)), rows: n, rightRows: 0, carry };
}

/**
 * The output rows in load order: target[j] their global row id, from[j] their position among
 * the n sorted-order outputs (rowPerm: output position -> load position). Load positions are
 * all of the partition's, or the own range's [start, end) of a halo load.
 */
function directOrder(loadIds: Uint32Array, rowPerm: Uint32Array, n: number, own: { start: number; end: number } | null): { target: Uint32Array; from: Uint32Array } {
  const base = own ? own.start : 0;
  const from = scratchAlloc(Uint32Array, n, 'overwritten');
  invertInto(rowPerm, base, from, n);
  return { target: loadIds.subarray(base, base + n), from };
}

/**
 * A range (`own`, loaded) and its neighbours as one partition: before, own, after, each in
 * row-id order (equal sort keys across ranges are in row-id order too, as ranges are cut by
 * (keys, row id), so the stable sort keeps ties in row-id order); `own` marks the range's own
 * rows by load position.
 */
async function withHalo(own: LoadedPartition, halo: WindowHalo): Promise<{ part: LoadedPartition; own: { start: number; end: number } }> {
  return joinLoads(halo.before ? await loadPartition(halo.before.input) : null, own, halo.after ? await loadPartition(halo.after.input) : null);
}

/** Loaded ranges as one partition, in this order; `own` marks the middle one's rows by load position. */
function joinLoads(before: LoadedPartition | null, own: LoadedPartition, after: LoadedPartition | null): { part: LoadedPartition; own: { start: number; end: number } } {
  const parts = [before, own, after].filter((x): x is LoadedPartition => x !== null);
  const start = before ? before.n : 0;
  if (parts.length === 1) return { part: own, own: { start, end: start + own.n } };
  const n = parts.reduce((t, x) => t + x.n, 0);
  const rowIds = scratchAlloc(Uint32Array, n);
  let at = 0;
  for (const x of parts) {
    rowIds.set(x.rowIds.subarray(0, x.n), at);
    at += x.n;
  }
  const columns = own.columns.map((_, c) => concatData(parts.map((x) => x.columns[c]!), scratchAlloc));
  return { part: { n, rowIds, columns }, own: { start, end: start + own.n } };
}

/**
 * The outputs of the range's own rows only (in sorted order, with their sort permutation),
 * ranks shifted by the carry, and the carry of the next range; PARTITION_TOO_LARGE when a kept
 * result needs rows beyond the neighbours (src/ops/window-halo).
 */
function keepOwnRows(
  input: WindowKernelInput,
  outs: WindowColumnOut[],
  perm: Uint32Array,
  loadIds: Uint32Array,
  own: { start: number; end: number },
  halo: WindowHalo,
): { outs: WindowColumnOut[]; rowPerm: Uint32Array; n: number; carry: WindowCarry } {
  const n = input.n;
  const positionOf = (id: number): number => {
    if (id < 0) return -1;
    for (let i = 0; i < n; i++) if (loadIds[perm[i]!] === id) return i;
    throw new ExecutionError('INTERNAL', `internal: window range row ${id} is not among the task's rows`);
  };
  const keep = scratchAlloc(Uint8Array, n);
  let kept = 0;
  for (let i = 0; i < n; i++) {
    const k = perm[i]! >= own.start && perm[i]! < own.end ? 1 : 0;
    keep[i] = k;
    kept += k;
  }
  const firstLoaded = halo.before ? positionOf(halo.before.firstId) : positionOf(halo.firstId);
  const leftGroup = firstLoaded < 0 ? -1 : groupAt(input.groupStarts, firstLoaded);
  let rightGroup = -1;
  if (halo.after?.more && (halo.suffix === null || halo.suffix.rows > 0)) {
    // The last loaded row's group goes on, and has own rows, only if it holds all of the after
    // range (else it starts inside it). Without the suffix pass it may go on.
    const g = groupAt(input.groupStarts, positionOf(halo.after.firstId));
    let inAfter = 0;
    for (let i = input.groupStarts[g]!; i < input.groupStarts[g + 1]!; i++) if (perm[i]! >= own.end) inAfter++;
    if (inAfter === n - own.end) rightGroup = g;
  }
  const cuts: HaloCuts = { leftGroup, rightGroup, carry: halo.carry, suffix: halo.suffix };
  const col = firstUnreachable(input, outs, keep, cuts, scratchAlloc);
  if (col) {
    throw new ExecutionError(
      'PARTITION_TOO_LARGE',
      `window: column ${JSON.stringify(col.name)} (${col.fn}, ${col.frameText}) needs rows beyond what one task can hold: its partition has ${halo.partitionRows} rows, too many for one task within the memory budget of ${formatBytes(halo.budget)}, so it runs in sort ranges of about ${own.end - own.start} rows, each seeing its neighbours only. On such a partition, bounded frame sides must stay within a neighbour range (no RANGE/GROUPS offsets wider than a range), lag/lead must find their row there, and UNBOUNDED frame sides are available for count, sum and avg of numbers only: raise memoryBudget, or add a partitionBy key`,
      { column: col.name, fn: col.fn, rows: halo.partitionRows, budget: halo.budget },
    );
  }
  applyOutside(input, outs, cuts, scratchAlloc);
  const carry = halo.firstId < 0 ? NO_CARRY : carryOut(input, positionOf(halo.firstId), cuts, scratchAlloc);
  const idx = scratchAlloc(Int32Array, kept);
  for (let i = 0, k = 0; i < n; i++) if (keep[i]) idx[k++] = i;
  const keptPerm = scratchAlloc(Uint32Array, kept);
  for (let k = 0; k < kept; k++) keptPerm[k] = perm[idx[k]!]!;
  return { outs: outs.map((o) => keptOutput(o, idx)), rowPerm: keptPerm, n: kept, carry };
}

/** Rows idx of a kernel output (sorted positions): computed values gathered; a take keeps its measure positions. */
function keptOutput(o: WindowColumnOut, idx: Int32Array): WindowColumnOut {
  const m = idx.length;
  if (o.kind === 'take') {
    const index = scratchAlloc(Int32Array, m);
    for (let k = 0; k < m; k++) index[k] = o.index[idx[k]!]!;
    return { ...o, index };
  }
  const stride = o.type.kind === 'decimal' ? 4 : 1;
  const ctor = o.values.constructor as TypedArrayConstructor;
  const values = scratchAlloc(ctor, m * stride);
  const src = o.values;
  if (src instanceof BigInt64Array || src instanceof BigUint64Array) {
    const a = words64(src);
    const b = words64(values as BigInt64Array);
    for (let k = 0; k < m; k++) {
      b[2 * k] = a[2 * idx[k]!]!;
      b[2 * k + 1] = a[2 * idx[k]! + 1]!;
    }
  } else {
    const a = src as Exclude<TypedArray, BigInt64Array | BigUint64Array>;
    const b = values as Exclude<TypedArray, BigInt64Array | BigUint64Array>;
    for (let k = 0; k < m; k++) for (let w = 0; w < stride; w++) b[k * stride + w] = a[idx[k]! * stride + w]!;
  }
  let valid: Uint8Array | null = null;
  if (o.valid) {
    valid = scratchAlloc(Uint8Array, m);
    for (let k = 0; k < m; k++) valid[k] = o.valid[idx[k]!]!;
  }
  return { ...o, values, valid };
}
