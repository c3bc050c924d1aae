/**
 * Sliding count of distinct non-NULL values over precomputed frames [lo, hi).
 *
 * Input: a dense value id per sorted row (equal values share an id: NULL = -1, NaN = NaN,
 * -0 = +0, strings by bytes; computed by the caller) and the number of ids. Within a partition
 * group lo and hi are non-decreasing, so a multiset of ids slides along: rows enter as hi passes
 * them and leave as lo passes them; `distinct` counts ids with a non-zero multiplicity. Each row
 * enters and leaves once: O(1) amortized per row, one Int32Array of multiplicities.
 */
import type { Allocator } from '../types/keys.js';

export function countDistinctSliding(
  ids: Int32Array,
  idCount: number,
  groupStarts: Uint32Array,
  lo: Int32Array,
  hi: Int32Array,
  out32: Uint32Array,
  alloc: Allocator = (ctor, length) => new ctor(length),
): void {
  const mult = alloc(Int32Array, Math.max(idCount, 1));
  for (let g = 0; g + 1 < groupStarts.length; g++) {
    const s = groupStarts[g]!;
    const e = groupStarts[g + 1]!;
    let a = s; // rows [a, b) are in the multiset
    let b = s;
    let distinct = 0;
    for (let r = s; r < e; r++) {
      const l = lo[r]!;
      const h = hi[r]!;
      if (l >= b) {
        // disjoint from the previous frame: empty the multiset
        for (; a < b; a++) {
          const id = ids[a]!;
          if (id >= 0 && --mult[id] === 0) distinct--;
        }
        a = b = l;
      }
      for (; b < h; b++) {
        const id = ids[b]!;
        if (id >= 0 && mult[id]++ === 0) distinct++;
      }
      for (; a < l; a++) {
        const id = ids[a]!;
        if (id >= 0 && --mult[id] === 0) distinct--;
      }
      out32[2 * r] = distinct;
      out32[2 * r + 1] = 0;
    }
    for (; a < b; a++) {
      const id = ids[a]!;
      if (id >= 0) mult[id]--;
    }
  }
}

/** The same counts by scanning each frame (naive path). */
export function countDistinctNaive(ids: Int32Array, idCount: number, lo: Int32Array, hi: Int32Array, out32: Uint32Array): void {
  const seen = new Int32Array(Math.max(idCount, 1)).fill(-1);
  for (let r = 0; r < lo.length; r++) {
    let c = 0;
    for (let j = lo[r]!; j < hi[r]!; j++) {
      const id = ids[j]!;
      if (id >= 0 && seen[id] !== r) {
        seen[id] = r;
        c++;
      }
    }
    out32[2 * r] = c;
    out32[2 * r + 1] = 0;
  }
}
