/**
 * Group-by task (also distinct), run in a worker for one partition: the partition's rows in
 * row-id order → dense group ids of the key tuple in order of first appearance (./group-ids;
 * NULL keys form one group, NaN = NaN, -0 = 0) → per output column one pass by group id
 * (src/ops/group-accumulate: count, integer sum, min/max, first/last), or, when an output needs
 * its group's values in order (float sums, avg, countDistinct), rows sorted by group id with one
 * stable counting scatter, so each group is a run in input order, and a kernel over the runs
 * (src/ops/group-agg; countDistinct here: distinct (group, value) pairs by a second grouping)
 * → one output row per group, keyed by the group's first row id and grouped by
 * row-id range (./routed-chunks) for the sparse output exchange. Without keys all rows are one
 * group, which exists even when the partition is empty (agg() of no rows is one row).
 * Everything but the routed outputs lives in the task's scratch loan.
 * Fused after a window on a subset of the keys (runWindowGroupByTask), the window's outputs are
 * computed first in the same task and grouped with the partition's own columns.
 */
import { toKeyColumn } from '../columns/shared.js';
import * as A from 'apache-arrow';
import { gatherData } from '../columns/gather.js';
import { countById, firstLastById, intSumById, minMaxById } from '../ops/group-accumulate.js';
import { groupCounts, groupDecimalSum, groupFirstLast, groupFloatSum, groupIntSum, groupMinMax, type GroupRuns } from '../ops/group-agg.js';
import { countingScatter } from '../shuffle/hash.js';
import type { KeyColumn } from '../types/keys.js';
import type { GroupByTask, GroupOutputSpec, KernelResult, OutputRouting, WindowGroupByTask } from '../types/tasks.js';
import { groupIds } from './group-ids.js';
import { loadPartition, type LoadedPartition } from './partition-input.js';
import { permuteKey } from './permute.js';
import { groupByDestination, outputRangesOf, routedChunks } from './routed-chunks.js';
import { scratchAlloc } from './scratch.js';
import { computedData } from './window-output.js';
import { windowColumnsInRowOrder } from './window-task.js';

const UINT32 = { kind: 'int', bits: 32, signed: false } as const;

export async function runGroupByTask(task: GroupByTask): Promise<KernelResult> {
  const part = await loadPartition(task.input);
  const hashes = task.hashes < 0 ? null : (part.columns[task.hashes]!.values as Uint32Array).subarray(0, part.n);
  return groupRows(part, task.keys, task.outputs, task.out, hashes);
}

/** A window fused with the group-by after it: the window's outputs join the partition's columns. */
export async function runWindowGroupByTask(task: WindowGroupByTask): Promise<KernelResult> {
  const part = await loadPartition(task.input);
  const columns = [...part.columns, ...windowColumnsInRowOrder(part, task.window)];
  return groupRows({ n: part.n, rowIds: part.rowIds, columns }, task.keys, task.outputs, task.out);
}

/** One output row per group of the partition's rows, routed by the group's first row id. */
function groupRows(part: LoadedPartition, keyColumns: number[], outputs: GroupOutputSpec[], out: OutputRouting, hashes: Uint32Array | null = null): KernelResult {
  const { columns, rowIds, groups } = aggregateGroups(part, keyColumns, outputs, hashes);
  if (out.kind !== 'routed') throw new Error('internal: group-by outputs are routed by first row id');
  const dest = outputRangesOf(rowIds, groups, out.rangeShift);
  return { ...routedChunks(groupByDestination(columns, rowIds, dest, out.ranges, out.buffer)), rows: part.n, rightRows: 0 };
}

/**
 * The rows' groups (dense ids of the key tuple in order of first appearance) and one value per
 * group and output, with each group's first row id; all in scratch. Also the partial pass of a
 * slab (./partition-task), whose outputs are merged by a second group-by of the same kernels.
 */
export function aggregateGroups(part: LoadedPartition, keyColumns: number[], outputs: GroupOutputSpec[], hashes: Uint32Array | null = null): { columns: A.Data[]; rowIds: Uint32Array; groups: number } {
  const n = part.n;
  const keys = keyColumns.map((i) => toKeyColumn(part.columns[i]!));
  let ids: Uint32Array;
  let groups: number;
  if (keys.length === 0) {
    ids = scratchAlloc(Uint32Array, n);
    groups = 1;
  } else ({ ids, groups } = groupIds(keys, n, true, scratchAlloc, hashes));
  if (outputs.every((o) => accumulates(o, part))) return accumulateGroups(part, ids, groups, outputs);
  const { offsets: starts, order: perm } = countingScatter(ids, groups, scratchAlloc(Uint32Array, n));
  const runs: GroupRuns = { n, groups, starts };
  const grouped = new GroupedPartition(part, perm, ids, runs);
  const columns = outputs.map((o) => grouped.output(o));

  const firsts = groupFirstLast(runs, null, false, false, scratchAlloc);
  const rowIds = scratchAlloc(Uint32Array, groups);
  for (let g = 0; g < groups; g++) rowIds[g] = firsts[g]! < 0 ? 0 : part.rowIds[perm[firsts[g]!]!]!;
  return { columns, rowIds, groups };
}

/** Whether an output has a one-pass kernel by group id (src/ops/group-accumulate). */
function accumulates(o: GroupOutputSpec, part: LoadedPartition): boolean {
  if (o.column >= 0 && part.columns[o.column]!.type.typeId === A.Type.Null) return false;
  return o.fn === 'count' || o.fn === 'min' || o.fn === 'max' || o.fn === 'first' || o.fn === 'last' || (o.fn === 'sum' && o.type.kind === 'int');
}

/** aggregateGroups by group id in one pass per output: rows are never permuted into runs. */
function accumulateGroups(part: LoadedPartition, ids: Uint32Array, groups: number, outputs: GroupOutputSpec[]): { columns: A.Data[]; rowIds: Uint32Array; groups: number } {
  const keyColumn = new Map<number, KeyColumn>();
  const measure = (c: number): KeyColumn => {
    let m = keyColumn.get(c);
    if (!m) keyColumn.set(c, (m = toKeyColumn(part.columns[c]!)));
    return m;
  };
  const take = (c: number, rows: Int32Array): A.Data => gatherData(part.columns[c]!, rows, groups, scratchAlloc);
  // Each group's first row: its key values, distinct's columns, and its row id.
  const firsts = firstLastById(ids, groups, null, false, scratchAlloc);
  const columns = outputs.map((o): A.Data => {
    switch (o.fn) {
      case 'first':
      case 'last':
        if (o.fn === 'first' && !o.ignoreNulls) return take(o.column, firsts);
        return take(o.column, firstLastById(ids, groups, o.ignoreNulls ? measure(o.column).valid : null, o.fn === 'last', scratchAlloc));
      case 'min':
      case 'max':
        return take(o.column, minMaxById(ids, groups, measure(o.column), o.fn === 'max', scratchAlloc));
      case 'count':
        return computedData(o.type, countById(ids, groups, o.column < 0 ? null : measure(o.column).valid, scratchAlloc), null, groups);
      case 'sum': {
        const r = intSumById(ids, groups, measure(o.column), scratchAlloc);
        return computedData(o.type, r.values, r.valid, groups);
      }
      default:
        throw new Error(`internal: ${o.fn} has no one-pass kernel`);
    }
  });
  const rowIds = scratchAlloc(Uint32Array, groups);
  for (let g = 0; g < groups; g++) rowIds[g] = firsts[g]! < 0 ? 0 : part.rowIds[firsts[g]!]!;
  return { columns, rowIds, groups };
}

/** A partition's rows with their group runs; measure columns permuted into run order once each. */
class GroupedPartition {
  private readonly permuted = new Map<number, KeyColumn>();
  private readonly index: Int32Array;

  constructor(
    private readonly part: LoadedPartition,
    private readonly perm: Uint32Array,
    private readonly ids: Uint32Array,
    private readonly runs: GroupRuns,
  ) {
    this.index = new Int32Array(perm.buffer, perm.byteOffset, perm.length);
  }

  private measure(column: number): KeyColumn {
    let m = this.permuted.get(column);
    if (!m) {
      m = permuteKey(toKeyColumn(this.part.columns[column]!), this.perm);
      this.permuted.set(column, m);
    }
    return m;
  }

  /** The group's value of a run position picked per group (-1: NULL), as the input's type. */
  private take(column: number, picks: Int32Array): A.Data {
    const rows = scratchAlloc(Int32Array, picks.length);
    for (let g = 0; g < picks.length; g++) rows[g] = picks[g]! < 0 ? -1 : this.index[picks[g]!]!;
    return gatherData(this.part.columns[column]!, rows, picks.length, scratchAlloc);
  }

  output(o: GroupOutputSpec): A.Data {
    const runs = this.runs;
    const groups = runs.groups;
    switch (o.fn) {
      case 'first':
      case 'last': {
        const valid = o.ignoreNulls ? this.measureValidity(o.column) : null;
        return this.take(o.column, groupFirstLast(runs, valid, o.fn === 'last', o.ignoreNulls, scratchAlloc));
      }
      case 'min':
      case 'max':
        return this.take(o.column, groupMinMax(runs, this.measure(o.column), o.fn === 'max', scratchAlloc));
      case 'count': {
        const valid = o.column < 0 ? null : this.measureValidity(o.column);
        return computedData(o.type, groupCounts(runs, valid ?? null, scratchAlloc), null, groups);
      }
      case 'sum':
      case 'avg': {
        const m = this.measure(o.column);
        const avg = o.fn === 'avg';
        const r = m.type.kind === 'float' ? groupFloatSum(runs, m, avg, scratchAlloc) : m.type.kind === 'decimal' ? groupDecimalSum(runs, m, avg, scratchAlloc) : groupIntSum(runs, m, avg, scratchAlloc);
        return computedData(o.type, r.values, r.valid, groups);
      }
      case 'countDistinct':
        return computedData(o.type, this.countDistinct(o.column), null, groups);
    }
  }

  /** NULL bytes of a column in run order (null: no NULLs); a `null`-typed column is all NULL. */
  private measureValidity(column: number): Uint8Array | null {
    const m = this.measure(column);
    if (m.type.kind === 'null') return scratchAlloc(Uint8Array, m.length);
    return m.valid;
  }

  /** Distinct non-NULL values per group: distinct (group id, value) pairs, counted once each. */
  private countDistinct(column: number): BigInt64Array {
    const { groups, n } = this.runs;
    const value = toKeyColumn(this.part.columns[column]!);
    const out = scratchAlloc(BigInt64Array, groups);
    const counts = new Uint32Array(out.buffer, out.byteOffset, groups * 2);
    if (value.type.kind === 'null') return out;
    const groupCol: KeyColumn = { type: UINT32, length: n, values: this.ids, offsets: null, valid: null };
    const pairs = groupIds([groupCol, value], n, true, scratchAlloc);
    const seen = scratchAlloc(Uint8Array, pairs.groups);
    const valid = value.valid;
    const pid = pairs.ids;
    for (let i = 0; i < n; i++) {
      if (valid !== null && valid[i] === 0) continue;
      const p = pid[i]!;
      if (seen[p] === 1) continue;
      seen[p] = 1;
      counts[2 * this.ids[i]!]!++;
    }
    return out;
  }
}
