/**
 * ASOF sort words: a normalized key as unsigned 32-bit words, most significant first, whose
 * lexicographic order is the key order (the worker's radix argsort consumes them).
 */
import type { NormalizedKey } from './asof-key-types.js';
import { TWO32 as P32 } from './int64-words.js';
import { utf8Ranks } from './asof-string-keys.js';

const P52 = 4503599627370496;

/**
 * The key as unsigned 32-bit words, most significant first; lexicographic word order equals the
 * key order. f64 exact: 2 words (v + 2^52); float: 2 words (IEEE bits, sign-flipped);
 * wide: 4 words (h + 2^52 in two words, m, l); utf8: 1 word, the dense rank of the value among
 * this side's distinct values in byte order (so only valid for sorting this side).
 * Invalid rows (NULL/NaN) get all-zero words; the kernel ignores them wherever they sort.
 */
export function asofSortWords(key: NormalizedKey): Uint32Array[] {
  const valid = key.valid;
  if (key.kind === 'f64') {
    const n = key.values.length;
    const w0 = new Uint32Array(n);
    const w1 = new Uint32Array(n);
    const v = key.values;
    if (key.exact) {
      for (let i = 0; i < n; i++) {
        if (valid !== null && valid[i] === 0) continue;
        const b = v[i]! + P52;
        const hi = Math.floor(b / P32);
        w0[i] = hi;
        w1[i] = b - hi * P32;
      }
    } else {
      const bits = new Uint32Array(v.buffer, v.byteOffset, 2 * n);
      for (let i = 0; i < n; i++) {
        if (valid !== null && valid[i] === 0) continue;
        const hi = bits[2 * i + 1]!;
        const lo = bits[2 * i]!;
        if (hi >>> 31) {
          w0[i] = ~hi >>> 0;
          w1[i] = ~lo >>> 0;
        } else {
          w0[i] = (hi | 0x80000000) >>> 0;
          w1[i] = lo;
        }
      }
    }
    return [w0, w1];
  }
  if (key.kind === 'wide') {
    const n = key.h.length;
    const w0 = new Uint32Array(n);
    const w1 = new Uint32Array(n);
    for (let i = 0; i < n; i++) {
      if (valid !== null && valid[i] === 0) continue;
      const b = key.h[i]! + P52;
      const hi = Math.floor(b / P32);
      w0[i] = hi;
      w1[i] = b - hi * P32;
    }
    const m = key.m.slice();
    const l = key.l.slice();
    if (valid !== null) for (let i = 0; i < n; i++) if (valid[i] === 0) m[i] = l[i] = 0;
    return [w0, w1, m, l];
  }
  return [utf8Ranks(key)];
}
