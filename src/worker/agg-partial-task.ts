/**
 * Partial aggregates of one piece of a whole-input aggregate (agg() without keys, input bigger
 * than one task), run in a worker: the piece's rows in row-id order as one group (./groupby
 * kernels of src/ops/group-agg), reduced to what merges exactly:
 * - counts; integer sums as exact 96-bit limbs (wrapped to 64 bits, or divided for avg, only
 *   after the merge); decimal sums as exact 160-bit words (checked against 38 digits, or divided
 *   for avg, only after the merge);
 * - float sums as the nodes of the canonical pairwise tree lying wholly inside each run of
 *   consecutive row ids (the whole input is one group whose positions are the row ids), so the
 *   merged sum is bit-identical to one task's;
 * - first/last/min/max as one candidate row (value and row id).
 * countDistinct does not merge this way: the planner keeps such aggregates in one task.
 */
import * as A from 'apache-arrow';
import { TransferArena } from '../columns/arena.js';
import { gatherData } from '../columns/gather.js';
import { describeData, toKeyColumn } from '../columns/shared.js';
import { floatSumNodes, groupFirstLast, groupMinMax, type GroupRuns } from '../ops/group-agg.js';
import { decimalPrefix, decimalTotal } from '../ops/window-decimal.js';
import { floatBase, intPrefix } from '../ops/window-sum.js';
import type { KeyColumn } from '../types/keys.js';
import type { AggPartialResult, AggPartialTask, PartialAgg } from '../types/tasks.js';
import { loadPartition, type LoadedPartition } from './partition-input.js';
import { scratchAlloc } from './scratch.js';

const TWO32 = 4294967296;

export async function runAggPartialTask(task: AggPartialTask): Promise<AggPartialResult> {
  const part = await loadPartition(task.input);
  const n = part.n;
  const runs: GroupRuns = { n, groups: 1, starts: Uint32Array.of(0, n) };
  const arena = new TransferArena();
  const parts = task.outputs.map((o): PartialAgg => {
    if (o.fn === 'count') return { kind: 'count', n: o.column < 0 ? n : nonNull(toKeyColumn(part.columns[o.column]!)) };
    const col = toKeyColumn(part.columns[o.column]!);
    switch (o.fn) {
      case 'sum':
      case 'avg':
        return col.type.kind === 'float' ? floatPartial(part, col, task.total) : col.type.kind === 'decimal' ? decimalPartial(col, n) : intPartial(col, n);
      case 'first':
      case 'last':
        return pick(part, groupFirstLast(runs, o.ignoreNulls ? col.valid : null, o.fn === 'last', o.ignoreNulls && col.valid !== null, scratchAlloc)[0]!, o.column, arena);
      case 'min':
      case 'max':
        return pick(part, groupMinMax(runs, col, o.fn === 'max', scratchAlloc)[0]!, o.column, arena);
      case 'countDistinct':
        throw new Error('internal: countDistinct has no partial aggregate');
    }
  });
  return { rows: n, parts, transfer: arena.buffers };
}

function nonNull(col: KeyColumn): number {
  if (col.type.kind === 'null') return 0;
  if (col.valid === null) return col.length;
  let c = 0;
  for (let i = 0; i < col.length; i++) c += col.valid[i]!;
  return c;
}

/** The exact sum of the piece as limbs (the last entry of window's running prefix). */
function intPartial(col: KeyColumn, n: number): PartialAgg {
  const count = nonNull(col);
  const prefix = intPrefix(col, n);
  if (prefix.kind === 'limbs') return { kind: 'intSum', h: prefix.H[n]!, m: prefix.M[n]!, l: prefix.L[n]!, count };
  const s = prefix.P[n]!; // an exact integer, |s| < 2^52
  const q = Math.floor(s / TWO32);
  return { kind: 'intSum', h: q < 0 ? -1 : 0, m: q < 0 ? q + TWO32 : q, l: s - q * TWO32, count };
}

/** The exact decimal sum of the piece (the last entry of window's decimal prefix, in scratch). */
function decimalPartial(col: KeyColumn, n: number): PartialAgg {
  if (col.type.kind !== 'decimal') throw new Error(`internal: decimalPartial of ${col.type.kind}`);
  const { words, top } = decimalTotal(decimalPrefix(col, n, scratchAlloc), n);
  return { kind: 'decimalSum', words, top, count: nonNull(col), scale: col.type.scale };
}

/** Canonical tree nodes of each run of consecutive row ids (NULL rows add -0, as in one task). */
function floatPartial(part: LoadedPartition, col: KeyColumn, total: number): PartialAgg {
  const n = part.n;
  const base = floatBase(col, n);
  const ids = part.rowIds;
  const nodes: number[] = [];
  const stack = new Float64Array(34);
  for (let a = 0; a < n; ) {
    let b = a + 1;
    while (b < n && ids[b] === ids[b - 1]! + 1) b++;
    floatSumNodes(base.subarray(a, b), ids[a]!, ids[b - 1]! + 1, total, nodes, stack);
    a = b;
  }
  return { kind: 'floatSum', nodes, count: nonNull(col) };
}

/** The candidate at position `at` (-1: none) as a one-row column, with its row id. */
function pick(part: LoadedPartition, at: number, column: number, arena: TransferArena): PartialAgg {
  if (at < 0) return { kind: 'pick', rowId: -1, value: null };
  const one = gatherData(part.columns[column]!, Int32Array.of(at), 1, arena.alloc);
  return { kind: 'pick', rowId: part.rowIds[at]!, value: describeData(one as A.Data, true) };
}
