/**
 * Sliding min / max over precomputed frames [lo, hi) with a monotonic deque.
 *
 * Steps per partition group: rows enter the deque as the frame end passes them (NULLs are
 * skipped); before pushing x, entries not strictly better than x are popped from the back, so
 * the deque holds strictly improving candidates in position order; entries below the frame
 * start leave from the front; the front is the answer (none left → NULL).
 * Order: a total order on values — integers/bools/dates numerically, 64-bit values through
 * their 32-bit halves (no BigInt), floats with -0 < +0 and NaN above every number (all NaNs
 * equal), decimal128 as signed 128-bit integers (same scale), strings and binary by unsigned
 * bytes (UTF-8 byte order = code point order) — so ties are bit-identical and the result does
 * not depend on the algorithm. Ties pick the latest best row.
 * Invariants: within a group lo and hi are non-decreasing, so each row is pushed and popped at
 * most once: O(1) amortized per row per column (O(length) per string comparison), one
 * Int32Array deque of n slots.
 * Output: the sorted position of the chosen row per output row (-1 = NULL): the caller gathers
 * the measure column, whatever its type.
 */
import type { Allocator, KeyColumn, TypedArray } from '../types/keys.js';
import { words64 } from './int64-words.js';

/** Strict "a before b" in the total order of the column's values (rows a, b non-NULL). */
export function makeLess(col: KeyColumn, alloc: Allocator = (ctor, length) => new ctor(length)): (a: number, b: number) => boolean {
  const v = col.values;
  if (col.offsets) {
    const off = col.offsets;
    const bytes = v as Uint8Array;
    return (a, b) => {
      const as = off[a]!;
      const bs = off[b]!;
      const la = off[a + 1]! - as;
      const lb = off[b + 1]! - bs;
      const m = la < lb ? la : lb;
      for (let k = 0; k < m; k++) {
        const x = bytes[as + k]!;
        const y = bytes[bs + k]!;
        if (x !== y) return x < y;
      }
      return la < lb;
    };
  }
  if (col.type.kind === 'decimal') {
    const w = v as Uint32Array;
    return (a, b) => {
      const ha = w[4 * a + 3]! | 0;
      const hb = w[4 * b + 3]! | 0;
      if (ha !== hb) return ha < hb;
      for (let k = 2; k >= 0; k--) {
        const x = w[4 * a + k]!;
        const y = w[4 * b + k]!;
        if (x !== y) return x < y;
      }
      return false;
    };
  }
  if (v instanceof BigInt64Array || v instanceof BigUint64Array) {
    const u = words64(v);
    // Fast path: every value an exact float64 integer (|x| < 2^53) → compare as numbers.
    const hw = v instanceof BigInt64Array ? new Int32Array(u.buffer, u.byteOffset, u.length) : u;
    const asNum = alloc(Float64Array, v.length);
    let exact = true;
    for (let i = 0; i < v.length && exact; i++) {
      const h = hw[2 * i + 1]!;
      if (h >= 0x200000 || h < -0x200000) exact = false;
      else asNum[i] = h * 4294967296 + u[2 * i]!;
    }
    if (exact) return (a, b) => asNum[a]! < asNum[b]!;
    if (v instanceof BigInt64Array) {
      return (a, b) => {
        const ha = u[2 * a + 1]! | 0;
        const hb = u[2 * b + 1]! | 0;
        return ha < hb || (ha === hb && u[2 * a]! < u[2 * b]!);
      };
    }
    return (a, b) => {
      const ha = u[2 * a + 1]!;
      const hb = u[2 * b + 1]!;
      return ha < hb || (ha === hb && u[2 * a]! < u[2 * b]!);
    };
  }
  if (v instanceof Float64Array || v instanceof Float32Array) {
    return (a, b) => {
      const x = v[a]!;
      const y = v[b]!;
      if (x < y) return true;
      if (x > y) return false;
      if (x === y) return x === 0 && 1 / x < 0 && 1 / y > 0;
      return x === x; // y is NaN (above every number), x is a number
    };
  }
  const w = v as Exclude<TypedArray, BigInt64Array | BigUint64Array>;
  return (a, b) => w[a]! < w[b]!;
}

/**
 * For each row, the sorted position holding the frame's min (or max), or -1 when the frame
 * has no non-NULL value.
 */
export function minMaxArgs(
  col: KeyColumn,
  groupStarts: Uint32Array,
  lo: Int32Array,
  hi: Int32Array,
  isMax: boolean,
  arg: Int32Array = new Int32Array(lo.length),
  alloc: Allocator = (ctor, length) => new ctor(length),
): Int32Array {
  const n = lo.length;
  const valid = col.valid;
  const less = makeLess(col, alloc);
  const dq = alloc(Int32Array, Math.max(n, 1));
  for (let g = 0; g + 1 < groupStarts.length; g++) {
    const s = groupStarts[g]!;
    const e = groupStarts[g + 1]!;
    let head = 0;
    let tail = 0;
    let next = s;
    for (let r = s; r < e; r++) {
      const a = lo[r]!;
      const b = hi[r]!;
      if (next < a) {
        next = a;
        head = tail; // every queued row is before the frame
      }
      for (; next < b; next++) {
        if (valid && valid[next] === 0) continue;
        if (isMax) while (tail > head && !less(next, dq[tail - 1]!)) tail--;
        else while (tail > head && !less(dq[tail - 1]!, next)) tail--;
        dq[tail++] = next;
      }
      while (head < tail && dq[head]! < a) head++;
      arg[r] = head < tail ? dq[head]! : -1;
    }
  }
  return arg;
}

/** Naive path: rescans each frame (same total order, same tie rule: the latest best row). */
export function minMaxArgsNaive(col: KeyColumn, lo: Int32Array, hi: Int32Array, isMax: boolean, arg: Int32Array = new Int32Array(lo.length)): Int32Array {
  const n = lo.length;
  const valid = col.valid;
  const less = makeLess(col);
  for (let r = 0; r < n; r++) {
    let best = -1;
    for (let j = lo[r]!; j < hi[r]!; j++) {
      if (valid && valid[j] === 0) continue;
      if (best < 0 || (isMax ? !less(j, best) : !less(best, j))) best = j;
    }
    arg[r] = best;
  }
  return arg;
}
