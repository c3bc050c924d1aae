/**
 * Group-by aggregate kernels over rows already grouped: group g is the contiguous run
 * [starts[g], starts[g+1]) of the measure columns, in input order within the run (the worker
 * sorts rows by dense group id, stably, and permutes the measures).
 *
 * - count(): run length; count(x): non-NULL values in the run.
 * - sum/avg of integers: window's one running prefix (./window-sum intPrefix: exact float64
 *   while Σ|x| < 2^52, else 96-bit limbs) differenced at the run bounds, so sums wrap to 64 bits
 *   exactly as a row-by-row fold and avg is the correctly rounded exact sum / count.
 * - sum/avg of floats: window's canonical order (blocks of the binary decomposition of the run
 *   length, smallest first, each summed pairwise), so the result depends only on the group's
 *   values in input order and equals window's sum over the whole partition; NULLs are -0.
 * - min/max: the position of the least/greatest non-NULL value (first among equals) in
 *   window's value order (./window-minmax makeLess: NaN above every number, -0 < +0; strings
 *   and binaries by unsigned bytes); first/last: the run's first/last position (optionally the
 *   first/last non-NULL one). Positions are gathered into the output by the worker (any type).
 * A group without a non-NULL value gets NULL (counts: 0).
 * Cost: O(rows) per aggregate; no allocation per row.
 */
import type { Allocator, KeyColumn } from '../types/keys.js';
import { valueCompare } from './sort-compare.js';
import { makeLess } from './window-minmax.js';
import { countPrefix, floatBase, intPrefix, intSumAvg } from './window-sum.js';
import { decimalPrefix, decimalSumAvg } from './window-decimal.js';

export interface GroupRuns {
  n: number;
  groups: number;
  /** Length groups + 1. */
  starts: Uint32Array;
}

/** int64 counts per group (rows, or non-NULL values of `valid`), written through 32-bit halves. */
export function groupCounts(runs: GroupRuns, valid: Uint8Array | null, alloc: Allocator): BigInt64Array {
  const { groups, starts } = runs;
  const out = alloc(BigInt64Array, groups);
  const w = new Uint32Array(out.buffer, out.byteOffset, groups * 2);
  for (let g = 0; g < groups; g++) {
    const a = starts[g]!;
    const b = starts[g + 1]!;
    let c = b - a;
    if (valid !== null) {
      c = 0;
      for (let i = a; i < b; i++) c += valid[i]!;
    }
    w[2 * g] = c;
  }
  return out;
}

/** Non-NULL values per group as plain numbers. */
function nonNullCounts(runs: GroupRuns, valid: Uint8Array | null, alloc: Allocator): Int32Array {
  const { groups, starts } = runs;
  const out = alloc(Int32Array, groups);
  for (let g = 0; g < groups; g++) {
    const a = starts[g]!;
    const b = starts[g + 1]!;
    if (valid === null) out[g] = b - a;
    else {
      let c = 0;
      for (let i = a; i < b; i++) c += valid[i]!;
      out[g] = c;
    }
  }
  return out;
}

/** 1 = valid for groups with a non-NULL value, or null when every group has one. */
export function validWhereCounted(counts: Int32Array, alloc: Allocator): Uint8Array | null {
  let empty = false;
  for (let g = 0; g < counts.length; g++) if (counts[g] === 0) empty = true;
  if (!empty) return null;
  const valid = alloc(Uint8Array, counts.length);
  for (let g = 0; g < counts.length; g++) valid[g] = counts[g]! > 0 ? 1 : 0;
  return valid;
}

export interface GroupValues {
  values: BigInt64Array | BigUint64Array | Float64Array;
  valid: Uint8Array | null;
}

/** sum (int64 / uint64 for uint64 input, wrapping) or avg (float64) of an integer measure. */
export function groupIntSum(runs: GroupRuns, col: KeyColumn, avg: boolean, alloc: Allocator): GroupValues {
  const { n, groups, starts } = runs;
  const prefix = intPrefix(col, n);
  const lo = new Int32Array(starts.buffer, starts.byteOffset, groups);
  const hi = new Int32Array(starts.buffer, starts.byteOffset + 4, groups);
  const counts = col.valid ? countPrefix(col.valid, n) : null;
  const valid = validWhereCounted(nonNullCounts(runs, col.valid, alloc), alloc);
  if (avg) {
    const out = alloc(Float64Array, groups);
    intSumAvg(prefix, lo, hi, null, out, counts);
    return { values: out, valid };
  }
  const out = col.values instanceof BigUint64Array ? alloc(BigUint64Array, groups) : alloc(BigInt64Array, groups);
  intSumAvg(prefix, lo, hi, new Uint32Array(out.buffer, out.byteOffset, groups * 2), null, counts);
  return { values: out, valid };
}

/**
 * sum (decimal128(38, s), exact; NULL past 38 digits, as window's) or avg (float64, the
 * correctly rounded exact mean) of a decimal measure, by window-decimal's running prefix.
 */
export function groupDecimalSum(runs: GroupRuns, col: KeyColumn, avg: boolean, alloc: Allocator): { values: Uint32Array | Float64Array; valid: Uint8Array | null } {
  const { n, groups, starts } = runs;
  if (col.type.kind !== 'decimal') throw new Error(`internal: groupDecimalSum of ${col.type.kind}`);
  // In the task's scratch (counted by its loan; overflow reported), not the worker's heap.
  const prefix = decimalPrefix(col, n, alloc);
  const lo = new Int32Array(starts.buffer, starts.byteOffset, groups);
  const hi = new Int32Array(starts.buffer, starts.byteOffset + 4, groups);
  const counts = col.valid ? countPrefix(col.valid, n, alloc) : null;
  const out = avg ? null : alloc(Uint32Array, 4 * groups);
  const mean = avg ? alloc(Float64Array, groups) : null;
  const makeValid = (): Uint8Array => alloc(Uint8Array, groups).fill(1);
  // Groups without a non-NULL value (fewer than 1) are NULL.
  const valid = decimalSumAvg(prefix, lo, hi, counts, col.type.scale, 1, out, mean, makeValid);
  return { values: out ?? mean!, valid };
}

/** Pairwise sum of x[start, start + size) for a power-of-two size, by a binary counter over pairs. */
export function pairwiseBlock(x: Float64Array, start: number, size: number, stack: Float64Array): number {
  if (size === 1) return x[start]!;
  let top = 0;
  for (let k = 0; k < size; k += 2) {
    let s = x[start + k]! + x[start + k + 1]!;
    let c = (k >>> 1) + 1;
    while ((c & 1) === 0) {
      s = stack[--top]! + s;
      c >>>= 1;
    }
    stack[top++] = s;
  }
  return stack[0]!;
}

/**
 * Canonical float sum of x[a, b): the blocks of the binary decomposition of b - a, smallest
 * first from a, each summed pairwise, folded left to right (window-sum's floatSumNaive order).
 */
export function canonicalFloatSum(x: Float64Array, a: number, b: number, stack: Float64Array): number {
  const m = b - a;
  let acc = 0;
  let pos = a;
  let first = true;
  for (let size = 1; size <= m; size *= 2) {
    if ((m & size) === 0) continue;
    const s = pairwiseBlock(x, pos, size, stack);
    acc = first ? s : acc + s;
    first = false;
    pos += size;
  }
  return acc;
}

/** sum or avg (float64) of a float measure. */
export function groupFloatSum(runs: GroupRuns, col: KeyColumn, avg: boolean, alloc: Allocator): GroupValues {
  const { n, groups, starts } = runs;
  const base = floatBase(col, n);
  const counts = nonNullCounts(runs, col.valid, alloc);
  const out = alloc(Float64Array, groups);
  const stack = new Float64Array(34);
  for (let g = 0; g < groups; g++) {
    const s = canonicalFloatSum(base, starts[g]!, starts[g + 1]!, stack);
    out[g] = avg ? s / counts[g]! : s;
  }
  return { values: out, valid: validWhereCounted(counts, alloc) };
}

/** Strict "row a before row b" for min/max (both non-NULL). */
export function lessOf(col: KeyColumn): (a: number, b: number) => boolean {
  if (col.offsets !== null) {
    const cmp = valueCompare(col, col);
    return (a, b) => cmp(a, b) < 0;
  }
  return makeLess(col);
}

/** Per group, the position of its min (or max) non-NULL value, first among equals; -1 if none. */
export function groupMinMax(runs: GroupRuns, col: KeyColumn, isMax: boolean, alloc: Allocator): Int32Array {
  const { groups, starts } = runs;
  const less = lessOf(col);
  const valid = col.valid;
  const out = alloc(Int32Array, groups);
  for (let g = 0; g < groups; g++) {
    let best = -1;
    const b = starts[g + 1]!;
    for (let i = starts[g]!; i < b; i++) {
      if (valid !== null && valid[i] === 0) continue;
      if (best < 0 || (isMax ? less(best, i) : less(i, best))) best = i;
    }
    out[g] = best;
  }
  return out;
}

/** Per group, its first (or last) position, or its first (last) non-NULL one; -1 if none. */
export function groupFirstLast(runs: GroupRuns, valid: Uint8Array | null, last: boolean, ignoreNulls: boolean, alloc: Allocator): Int32Array {
  const { groups, starts } = runs;
  const out = alloc(Int32Array, groups);
  for (let g = 0; g < groups; g++) {
    const a = starts[g]!;
    const b = starts[g + 1]!;
    let pick = -1;
    if (!ignoreNulls || valid === null) pick = a < b ? (last ? b - 1 : a) : -1;
    else if (last) {
      for (let i = b - 1; i >= a; i--) {
        if (valid[i] !== 0) {
          pick = i;
          break;
        }
      }
    } else {
      for (let i = a; i < b; i++) {
        if (valid[i] !== 0) {
          pick = i;
          break;
        }
      }
    }
    out[g] = pick;
  }
  return out;
}

/**
 * Canonical float-sum nodes of rows at positions [s, e) of a group of `total` positions (NULLs
 * as -0 in `x`, x[k] at position s + k): block j (a set bit of total, from position total mod
 * 2^j) is summed as a pairwise tree; the nodes of that tree lying wholly inside [s, e), as
 * (block, level, index, value) quadruples. Merged bottom-up (mergeFloatNodes) they give exactly
 * canonicalFloatSum of all positions, whatever the pieces.
 */
export function floatSumNodes(x: Float64Array, s: number, e: number, total: number, out: number[], stack: Float64Array): void {
  for (let j = 0; 2 ** j <= total; j++) {
    const size = 2 ** j;
    if (Math.floor(total / size) % 2 === 0) continue;
    const start = total % size;
    const lo = Math.max(s, start);
    const hi = Math.min(e, start + size);
    for (let p = lo; p < hi; ) {
      const r = p - start;
      let level = 0;
      while (level < j && r % 2 ** (level + 1) === 0 && r + 2 ** (level + 1) <= hi - start) level++;
      const len = 2 ** level;
      out.push(j, level, r / len, pairwiseBlock(x, p - s, len, stack));
      p += len;
    }
  }
}

/** The canonical float sum from the nodes of every piece (floatSumNodes), or null with none. */
export function mergeFloatNodes(nodes: number[]): number | null {
  const blocks = new Map<number, Array<Map<number, number>>>();
  for (let k = 0; k < nodes.length; k += 4) {
    const j = nodes[k]!;
    let levels = blocks.get(j);
    if (!levels) blocks.set(j, (levels = Array.from({ length: j + 1 }, () => new Map<number, number>())));
    levels[nodes[k + 1]!]!.set(nodes[k + 2]!, nodes[k + 3]!);
  }
  let acc: number | null = null;
  for (const j of [...blocks.keys()].sort((a, b) => a - b)) {
    const levels = blocks.get(j)!;
    for (let level = 0; level < j; level++) {
      const here = levels[level]!;
      for (const [idx, v] of here) {
        if (idx % 2 !== 0 || !here.has(idx + 1)) continue;
        levels[level + 1]!.set(idx / 2, v + here.get(idx + 1)!);
        here.delete(idx);
        here.delete(idx + 1);
      }
    }
    const root = levels[j]!.get(0);
    if (root === undefined) throw new RangeError(`float sum block ${j} is incomplete`);
    acc = acc === null ? root : acc + root;
  }
  return acc;
}
