/**
 * Group-by aggregates by group id, in one pass over the rows in input order: no grouping
 * permutation. Row i belongs to group ids[i] (dense ids in order of first appearance, as
 * src/worker/group-ids gives them), so scanning rows in order visits each group's rows in
 * input order, and every result equals the run kernels' (./group-agg) over the same rows:
 *
 * - count: rows, or non-NULL values, per group;
 * - sum of integers: the low and high 32-bit words of each value added into two float64
 *   accumulators per group (exact: a group's words are carried every 2^20 values, long before
 *   an accumulator could pass 2^53), then reduced mod 2^64: the row-by-row fold's wrapping sum;
 * - min/max: the position of the least/greatest non-NULL value, first among equals, in the
 *   same value order (NaN above every number, -0 < +0, strings by unsigned bytes; integers of
 *   32 bits or fewer compared as numbers, 64-bit ones as two words);
 * - first/last: the group's first/last position (optionally its first/last non-NULL one).
 * Positions are indices into the rows; a group without a value gets -1 (or NULL).
 * Cost: O(rows) per aggregate, one sequential pass, random access only into per-group state.
 */
import type { Allocator, KeyColumn } from '../types/keys.js';
import { carryWordSums, highWords, WORD_SUM_CARRY_MASK, words64 } from './int64-words.js';
import { lessOf, validWhereCounted, type GroupValues } from './group-agg.js';

/** Rows of values of 32 bits or fewer whose sums never pass 2^53 (2^21 × 2^32). */
const NO_CARRY_ROWS = 1 << 21;

/** Integer values of 32 bits or fewer (also days) as plain numbers, compared as they are. */
function smallInts(col: KeyColumn): Int32Array | null {
  const t = col.type;
  const small = (t.kind === 'int' && t.bits <= 32) || (t.kind === 'date' && t.unit === 'day');
  return small ? (col.values as Int32Array) : null;
}

/** Rows (valid null) or non-NULL values per group, as int64 (written through 32-bit halves). */
export function countById(ids: Uint32Array, groups: number, valid: Uint8Array | null, alloc: Allocator): BigInt64Array {
  const out = alloc(BigInt64Array, groups);
  countInto(ids, valid, words64(out), ids.length);
  return out;
}

// Every loop below is a function of its own that ends with the loop (as are the hot loops
// elsewhere that point here): V8 compiles a long loop while it runs (on-stack replacement),
// before the code after it has ever run, and that code, without type feedback, deoptimized the
// compiled loop at the end of every call, which then ran interpreted into the next call's loop
// until compiled again (164 -> 49 deoptimizations in three groupby-100k runs).

function countInto(ids: Uint32Array, valid: Uint8Array | null, w: Uint32Array, n: number): void {
  if (valid === null) for (let i = 0; i < n; i++) w[2 * ids[i]!]!++;
  else for (let i = 0; i < n; i++) w[2 * ids[i]!]! += valid[i]!;
}

/** Wrapping int64 sum (uint64 for uint64 input) of an integer measure per group; NULL where no value. */
export function intSumById(ids: Uint32Array, groups: number, col: KeyColumn, alloc: Allocator): GroupValues {
  const n = ids.length;
  const lo = alloc(Float64Array, groups);
  const hi = alloc(Float64Array, groups);
  const counts = alloc(Int32Array, groups);
  const valid = col.valid;
  const v = col.values;
  if (v instanceof BigInt64Array || v instanceof BigUint64Array) addWords(ids, words64(v), valid, lo, hi, counts, n);
  else if (valid === null && n <= NO_CARRY_ROWS) addSmall(ids, v as Int32Array, lo, counts, n);
  else addNumbers(ids, v as ArrayLike<number>, valid, lo, hi, counts, n);
  const out = v instanceof BigUint64Array ? alloc(BigUint64Array, groups) : alloc(BigInt64Array, groups);
  wordSumsOut(lo, hi, words64(out), groups);
  return { values: out, valid: validWhereCounted(counts, alloc) };
}

/** 64-bit values: both words as unsigned (the same sum mod 2^64 as signed high words). */
function addWords(ids: Uint32Array, w: Uint32Array, valid: Uint8Array | null, lo: Float64Array, hi: Float64Array, counts: Int32Array, n: number): void {
  for (let i = 0; i < n; i++) {
    if (valid !== null && valid[i] === 0) continue;
    const g = ids[i]!;
    lo[g] = lo[g]! + w[2 * i]!;
    hi[g] = hi[g]! + w[2 * i + 1]!;
    if ((++counts[g]! & WORD_SUM_CARRY_MASK) === 0) carryWordSums(lo, g, hi, g);
  }
}

/**
 * Few enough values of 32 bits or fewer, none NULL, that no sum can pass 2^53: no carries
 * (counts only mark the groups that have a value).
 */
function addSmall(ids: Uint32Array, a: Int32Array, lo: Float64Array, counts: Int32Array, n: number): void {
  for (let i = 0; i < n; i++) {
    const g = ids[i]!;
    lo[g] += a[i]!;
    counts[g] = 1;
  }
}

/** Values of 32 bits or fewer, signed or not: added whole (|x| < 2^32). */
function addNumbers(ids: Uint32Array, v: ArrayLike<number>, valid: Uint8Array | null, lo: Float64Array, hi: Float64Array, counts: Int32Array, n: number): void {
  for (let i = 0; i < n; i++) {
    if (valid !== null && valid[i] === 0) continue;
    const g = ids[i]!;
    lo[g] = lo[g]! + v[i]!;
    if ((++counts[g]! & WORD_SUM_CARRY_MASK) === 0) carryWordSums(lo, g, hi, g);
  }
}

function wordSumsOut(lo: Float64Array, hi: Float64Array, ow: Uint32Array, groups: number): void {
  for (let g = 0; g < groups; g++) {
    carryWordSums(lo, g, hi, g);
    ow[2 * g] = lo[g]!;
    ow[2 * g + 1] = hi[g]!;
  }
}

/** Per group, the position of its min (or max) non-NULL value, first among equals; -1 if none. */
export function minMaxById(ids: Uint32Array, groups: number, col: KeyColumn, isMax: boolean, alloc: Allocator): Int32Array {
  const n = ids.length;
  const valid = col.valid;
  const best = alloc(Int32Array, groups, 'overwritten').fill(-1);
  const a = smallInts(col);
  if (a !== null) {
    // Integers compare as numbers; the best value so far kept per group (no reads back).
    bestSmall(ids, a, valid, isMax, best, alloc(Float64Array, groups), n);
    return best;
  }
  const v = col.values;
  if (v instanceof BigInt64Array || v instanceof BigUint64Array) {
    // 64-bit integers as (high word with the array's sign, low word unsigned): the best words
    // so far kept per group.
    bestWords(ids, highWords(v), words64(v), valid, isMax, best, alloc(Float64Array, groups), alloc(Float64Array, groups), n);
    return best;
  }
  bestBy(ids, lessOf(col), valid, isMax, best, n);
  return best;
}

function bestSmall(ids: Uint32Array, a: Int32Array, valid: Uint8Array | null, isMax: boolean, best: Int32Array, top: Float64Array, n: number): void {
  for (let i = 0; i < n; i++) {
    if (valid !== null && valid[i] === 0) continue;
    const g = ids[i]!;
    const x = a[i]!;
    if (best[g]! < 0 || (isMax ? x > top[g]! : x < top[g]!)) {
      best[g] = i;
      top[g] = x;
    }
  }
}

function bestWords(ids: Uint32Array, hiW: Int32Array | Uint32Array, loW: Uint32Array, valid: Uint8Array | null, isMax: boolean, best: Int32Array, topHi: Float64Array, topLo: Float64Array, n: number): void {
  for (let i = 0; i < n; i++) {
    if (valid !== null && valid[i] === 0) continue;
    const g = ids[i]!;
    const h = hiW[2 * i + 1]!;
    const l = loW[2 * i]!;
    const b = best[g]!;
    const th = topHi[g]!;
    if (b < 0 || (isMax ? h > th || (h === th && l > topLo[g]!) : h < th || (h === th && l < topLo[g]!))) {
      best[g] = i;
      topHi[g] = h;
      topLo[g] = l;
    }
  }
}

function bestBy(ids: Uint32Array, less: (a: number, b: number) => boolean, valid: Uint8Array | null, isMax: boolean, best: Int32Array, n: number): void {
  for (let i = 0; i < n; i++) {
    if (valid !== null && valid[i] === 0) continue;
    const g = ids[i]!;
    const b = best[g]!;
    if (b < 0 || (isMax ? less(b, i) : less(i, b))) best[g] = i;
  }
}

/** Per group, its first (or last) position, or its first (last) non-NULL one; -1 if none. */
export function firstLastById(ids: Uint32Array, groups: number, valid: Uint8Array | null, last: boolean, alloc: Allocator): Int32Array {
  const pick = alloc(Int32Array, groups, 'overwritten').fill(-1);
  if (last) pickLast(ids, valid, pick, ids.length);
  else pickFirst(ids, valid, pick, ids.length);
  return pick;
}

function pickLast(ids: Uint32Array, valid: Uint8Array | null, pick: Int32Array, n: number): void {
  for (let i = 0; i < n; i++) if (valid === null || valid[i] !== 0) pick[ids[i]!] = i;
}

function pickFirst(ids: Uint32Array, valid: Uint8Array | null, pick: Int32Array, n: number): void {
  for (let i = 0; i < n; i++) {
    const g = ids[i]!;
    if (pick[g]! < 0 && (valid === null || valid[i] !== 0)) pick[g] = i;
  }
}
