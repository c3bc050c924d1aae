/**
 * ASOF string keys: UTF-8 byte-order comparison, and the dense ranks that sort one side.
 */
import type { NormalizedKey } from './asof-key-types.js';

/** UTF-8 byte-order comparison of row i of (ab, ao) with row j of (bb, bo). */
export function compareUtf8(ab: Uint8Array, ao: Int32Array, i: number, bb: Uint8Array, bo: Int32Array, j: number): number {
  let p = ao[i]!;
  const pe = ao[i + 1]!;
  let q = bo[j]!;
  const qe = bo[j + 1]!;
  while (p < pe && q < qe) {
    const d = ab[p]! - bb[q]!;
    if (d !== 0) return d < 0 ? -1 : 1;
    p++;
    q++;
  }
  return p < pe ? 1 : q < qe ? -1 : 0;
}

/**
 * Dense byte-order ranks of one side's strings, by a comparator sort of every valid row:
 * the simple reference; the worker ranks distinct values only (src/worker/sort-keys).
 */
export function utf8Ranks(key: Extract<NormalizedKey, { kind: 'utf8' }>): Uint32Array {
  const n = key.offsets.length - 1;
  const rank = new Uint32Array(n);
  const ids: number[] = [];
  for (let i = 0; i < n; i++) if (key.valid === null || key.valid[i] !== 0) ids.push(i);
  const { bytes, offsets } = key;
  ids.sort((a, b) => compareUtf8(bytes, offsets, a, bytes, offsets, b));
  let r = 0;
  for (let t = 0; t < ids.length; t++) {
    if (t === 0 || compareUtf8(bytes, offsets, ids[t - 1]!, bytes, offsets, ids[t]!) !== 0) r++;
    rank[ids[t]!] = r;
  }
  return rank;
}
