/**
 * Navigation functions as index arithmetic over sorted rows: each returns, per row, the sorted
 * position of the row whose measure value is the result (-1 = NULL, TAKE_DEFAULT = lag/lead's
 * default), so the caller gathers the measure column whatever its type.
 *
 * - lag/lead (no frame): k = signed rows back (lag n → n, lead n → -n); j = i - k if j lies in
 *   the partition, else the default. With ignoreNulls the k-th non-NULL row before (k > 0) or
 *   after (k < 0) the current row; k = 0 is the current row.
 * - first/last/nthValue over frames [lo, hi): lo + n - 1 (first: n = 1) or hi - 1, NULL when the
 *   frame is shorter. With ignoreNulls the n-th non-NULL value of the frame from its start
 *   (first, nthValue) or the last one.
 * ignoreNulls in O(1) per row: C[i] = non-NULL rows before i and nn = the positions of the
 * non-NULL rows in order, so the t-th non-NULL row of [a, b) is nn[C[a] + t - 1] when
 * C[a] + t - 1 < C[b]. No scans: O(1) per row for every frame width; O(n) memory.
 */

import type { Allocator } from '../types/keys.js';

export const TAKE_DEFAULT = -2;

/** Running non-NULL count C (length n + 1) and the non-NULL positions nn (length C[n]). */
export interface NonNullIndex {
  C: Int32Array;
  nn: Int32Array;
}

export function nonNullIndex(valid: Uint8Array | null, n: number, alloc: Allocator = (ctor, length) => new ctor(length)): NonNullIndex {
  const C = alloc(Int32Array, n + 1);
  let c = 0;
  for (let i = 0; i < n; i++) {
    C[i] = c;
    if (!valid || valid[i] !== 0) c++;
  }
  C[n] = c;
  const nn = alloc(Int32Array, c);
  for (let i = 0, k = 0; i < n; i++) if (!valid || valid[i] !== 0) nn[k++] = i;
  return { C, nn };
}

/** lag/lead: `back` signed rows back; `outside` is what rows past the partition edge get. */
export function offsetIndex(groupStarts: Uint32Array, back: number, outside: number, nulls: NonNullIndex | null, out: Int32Array): void {
  for (let g = 0; g + 1 < groupStarts.length; g++) {
    const s = groupStarts[g]!;
    const e = groupStarts[g + 1]!;
    if (back === 0) {
      for (let i = s; i < e; i++) out[i] = i;
    } else if (nulls === null) {
      for (let i = s; i < e; i++) {
        const j = i - back;
        out[i] = j >= s && j < e ? j : outside;
      }
    } else {
      const { C, nn } = nulls;
      const cs = C[s]!;
      const ce = C[e]!;
      for (let i = s; i < e; i++) {
        // back > 0: the back-th non-NULL row before i; back < 0: the (-back)-th after i.
        const t = back > 0 ? C[i]! - back : C[i + 1]! - 1 - back;
        out[i] = t >= cs && t < ce ? nn[t]! : outside;
      }
    }
  }
}

/** first (nth = 1, fromEnd = false), last (nth = 1, fromEnd = true), nthValue (nth = n). */
export function frameNthIndex(lo: Int32Array, hi: Int32Array, nth: number, fromEnd: boolean, nulls: NonNullIndex | null, out: Int32Array): void {
  const n = lo.length;
  if (nulls === null) {
    for (let r = 0; r < n; r++) {
      const a = lo[r]!;
      const b = hi[r]!;
      const j = fromEnd ? b - nth : a + nth - 1;
      out[r] = b - a >= nth ? j : -1;
    }
    return;
  }
  const { C, nn } = nulls;
  for (let r = 0; r < n; r++) {
    const ca = C[lo[r]!]!;
    const cb = C[hi[r]!]!;
    out[r] = cb - ca >= nth ? nn[fromEnd ? cb - nth : ca + nth - 1]! : -1;
  }
}

/** The same results by scanning each frame (naive path). */
export function frameNthIndexNaive(lo: Int32Array, hi: Int32Array, nth: number, fromEnd: boolean, valid: Uint8Array | null, out: Int32Array): void {
  for (let r = 0; r < lo.length; r++) {
    let seen = 0;
    let found = -1;
    if (fromEnd) {
      for (let j = hi[r]! - 1; j >= lo[r]!; j--) {
        if (valid && valid[j] === 0) continue;
        if (++seen === nth) {
          found = j;
          break;
        }
      }
    } else {
      for (let j = lo[r]!; j < hi[r]!; j++) {
        if (valid && valid[j] === 0) continue;
        if (++seen === nth) {
          found = j;
          break;
        }
      }
    }
    out[r] = found;
  }
}

/** lag/lead by scanning (naive path). */
export function offsetIndexNaive(groupStarts: Uint32Array, back: number, outside: number, valid: Uint8Array | null, out: Int32Array): void {
  for (let g = 0; g + 1 < groupStarts.length; g++) {
    const s = groupStarts[g]!;
    const e = groupStarts[g + 1]!;
    for (let i = s; i < e; i++) {
      if (back === 0) {
        out[i] = i;
        continue;
      }
      const step = back > 0 ? -1 : 1;
      const want = back > 0 ? back : -back;
      let seen = 0;
      let found = outside;
      for (let j = i + step; j >= s && j < e; j += step) {
        if (valid && valid[j] === 0) continue;
        if (++seen === want) {
          found = j;
          break;
        }
      }
      out[i] = found;
    }
  }
}
