/**
 * Row comparison for a global sort's range boundaries: rows of key columns compared in the
 * order of the radix sort keys (src/worker/sort-keys): integers by value (64-bit through their
 * 32-bit halves), floats with -0 = +0 and every NaN equal and above every number, bool false <
 * true, dates/timestamps/durations as their signed counts, decimals as 128-bit integers, strings and binaries by unsigned
 * bytes; DESC reverses values only; NULLs first or last as asked; ties broken by row id, so
 * every row has a distinct position. Used on a few thousand sample rows and by the range
 * router's binary search (O(log ranges) comparisons per row); the sort itself is a radix sort.
 */
import type { KeyColumn } from '../types/keys.js';
import { words64 } from './int64-words.js';

export interface SortOrder {
  descending: boolean;
  nullsFirst: boolean;
}

/** Compares row a of column A with row b of column B (same type, both non-NULL). */
export type ValueCompare = (a: number, b: number) => number;


function cmpNum(x: number, y: number): number {
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Values of column A against column B of the same type (A may be B). */
export function valueCompare(A: KeyColumn, B: KeyColumn): ValueCompare {
  const va = A.values;
  const vb = B.values;
  if (A.offsets !== null && B.offsets !== null) {
    const oa = A.offsets;
    const ob = B.offsets;
    const xa = va as Uint8Array;
    const xb = vb as Uint8Array;
    return (a, b) => {
      const sa = oa[a]!;
      const sb = ob[b]!;
      const la = oa[a + 1]! - sa;
      const lb = ob[b + 1]! - sb;
      const m = la < lb ? la : lb;
      for (let k = 0; k < m; k++) {
        const d = xa[sa + k]! - xb[sb + k]!;
        if (d !== 0) return d < 0 ? -1 : 1;
      }
      return cmpNum(la, lb);
    };
  }
  if (va instanceof Float64Array || va instanceof Float32Array) {
    const fb = vb as Float64Array | Float32Array;
    return (a, b) => {
      const x = va[a]!;
      const y = fb[b]!;
      if (x < y) return -1;
      if (x > y) return 1;
      if (x === y) return 0; // -0 = +0
      const xn = x !== x;
      const yn = y !== y;
      return xn === yn ? 0 : xn ? 1 : -1;
    };
  }
  if (va instanceof BigInt64Array || va instanceof BigUint64Array) {
    const wa = words64(va);
    const wb = words64(vb as BigInt64Array);
    const signed = va instanceof BigInt64Array;
    return (a, b) => {
      const ha = signed ? wa[2 * a + 1]! | 0 : wa[2 * a + 1]!;
      const hb = signed ? wb[2 * b + 1]! | 0 : wb[2 * b + 1]!;
      if (ha !== hb) return ha < hb ? -1 : 1;
      return cmpNum(wa[2 * a]!, wb[2 * b]!);
    };
  }
  if (A.type.kind === 'decimal') {
    // 128-bit two's complement, four little-endian words a row: the signed top word, then the
    // others unsigned (one column has one scale, so unscaled values compare as the values)
    const wa = va as Uint32Array;
    const wb = vb as Uint32Array;
    return (a, b) => {
      const ha = wa[4 * a + 3]! | 0;
      const hb = wb[4 * b + 3]! | 0;
      if (ha !== hb) return ha < hb ? -1 : 1;
      for (let k = 2; k >= 0; k--) {
        const x = wa[4 * a + k]!;
        const y = wb[4 * b + k]!;
        if (x !== y) return x < y ? -1 : 1;
      }
      return 0;
    };
  }
  const na = va as unknown as ArrayLike<number>;
  const nb = vb as unknown as ArrayLike<number>;
  return (a, b) => cmpNum(na[a]!, nb[b]!);
}

/**
 * Compares row a of `A` (one column per key) with row b of `B` by the keys in order, then by
 * their row ids. `A` and `B` hold the same key types.
 */
export function rowComparer(A: KeyColumn[], idsA: ArrayLike<number>, B: KeyColumn[], idsB: ArrayLike<number>, orders: SortOrder[]): (a: number, b: number) => number {
  const cmps = A.map((c, k) => valueCompare(c, B[k]!));
  const k = A.length;
  return (a, b) => {
    for (let c = 0; c < k; c++) {
      const ca = A[c]!;
      const cb = B[c]!;
      const an = ca.type.kind === 'null' || (ca.valid !== null && ca.valid[a] === 0);
      const bn = cb.type.kind === 'null' || (cb.valid !== null && cb.valid[b] === 0);
      const o = orders[c]!;
      if (an || bn) {
        if (an && bn) continue;
        return an === o.nullsFirst ? -1 : 1;
      }
      const d = cmps[c]!(a, b);
      if (d !== 0) return o.descending ? -d : d;
    }
    return cmpNum(idsA[a]!, idsB[b]!);
  };
}
