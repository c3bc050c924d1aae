/**
 * Reorders a KeyColumn by a permutation (sorted position -> source row), on typed arrays.
 * 64-bit values are moved as two 32-bit words so no BigInt is created per value.
 */
import type { Allocator } from '../columns/arena.js';
import type { KeyColumn, TypedArray, TypedArrayConstructor } from '../types/keys.js';
import { rowWords } from '../columns/gather.js';
import { warmSource } from '../columns/read-ahead.js';
import { scratchAlloc } from './scratch.js';

/** Outputs come from `alloc` (default: this task's scratch memory). */
export function permuteKey(col: KeyColumn, perm: Uint32Array, alloc: Allocator = scratchAlloc): KeyColumn {
  const n = perm.length;
  const valid = col.valid ? permuteBytes(col.valid, perm, alloc) : null;
  if (col.offsets) {
    const src = col.offsets;
    const offsets = alloc(Int32Array, n + 1);
    let total = 0;
    for (let i = 0; i < n; i++) {
      const r = perm[i]!;
      total += src[r + 1]! - src[r]!;
      offsets[i + 1] = total;
    }
    const bytes = alloc(Uint8Array, total);
    const from = col.values as Uint8Array;
    for (let i = 0; i < n; i++) {
      const r = perm[i]!;
      bytes.set(from.subarray(src[r]!, src[r + 1]!), offsets[i]!);
    }
    return { type: col.type, length: n, values: bytes, offsets, valid };
  }
  if (col.type.kind === 'decimal') return { type: col.type, length: n, values: permuteWords(col.values as Uint32Array, 4, perm, alloc), offsets: null, valid };
  return { type: col.type, length: n, values: permuteValues(col.values, perm, alloc), offsets: null, valid };
}

/** Rows of `stride` 32-bit words (decimal128: 4) reordered by perm. */
function permuteWords(src: Uint32Array, stride: number, perm: Uint32Array, alloc: Allocator): Uint32Array {
  const n = perm.length;
  const out = alloc(Uint32Array, n * stride);
  for (let i = 0; i < n; i++) {
    const r = perm[i]! * stride;
    for (let k = 0; k < stride; k++) out[i * stride + k] = src[r + k]!;
  }
  return out;
}

export function permuteBytes(src: Uint8Array, perm: Uint32Array, alloc: Allocator = scratchAlloc): Uint8Array {
  const out = alloc(Uint8Array, perm.length);
  for (let i = 0; i < perm.length; i++) out[i] = src[perm[i]!]!;
  return out;
}

export function permuteValues<T extends TypedArray>(src: T, perm: Uint32Array, alloc: Allocator = scratchAlloc): T {
  const out = alloc(src.constructor as TypedArrayConstructor<T>, perm.length, 'overwritten');
  permuteInto(src, perm, out);
  return out;
}

/** out[i] = src[perm[i]] for i < perm.length; `out` of src's type (a view anywhere: a stretch of a staged direct output). */
export function permuteInto(src: TypedArray, perm: Uint32Array, out: TypedArray): void {
  const n = perm.length;
  warmSource(src, n);
  if (src.BYTES_PER_ELEMENT === 8) {
    // As float64 words where aligned (one load and store a row, every bit kept: see rowWords).
    const { src: s, dst: d, w } = rowWords(src, out, 8);
    if (w === 1) for (let i = 0; i < n; i++) d[i] = s[perm[i]!]!;
    else for (let i = 0; i < n; i++) for (let k = 0, r = perm[i]! * w; k < w; k++) d[i * w + k] = s[r + k]!;
    return;
  }
  const s = src as unknown as Int32Array;
  const d = out as unknown as Int32Array;
  for (let i = 0; i < n; i++) d[i] = s[perm[i]!]!;
}

/**
 * out[target[i]] = src[from[i]] (src[i] without `from`) for every i, moving 8-byte values as
 * float64 words. Used to write sorted-order kernel outputs to their rows' global positions.
 */
export function scatterValues(src: TypedArray, target: Uint32Array, out: TypedArray, from: Uint32Array | null = null): void {
  const n = target.length;
  if (src.BYTES_PER_ELEMENT === 8) {
    // As float64 words where aligned (one load and store a row, every bit kept: see rowWords).
    const { src: s, dst: d, w } = rowWords(src, out, 8);
    if (w === 1) {
      if (from) for (let i = 0; i < n; i++) d[target[i]!] = s[from[i]!]!;
      else for (let i = 0; i < n; i++) d[target[i]!] = s[i]!;
      return;
    }
    for (let i = 0; i < n; i++) {
      const t = target[i]! * w;
      const f = (from ? from[i]! : i) * w;
      for (let k = 0; k < w; k++) d[t + k] = s[f + k]!;
    }
    return;
  }
  const s = src as unknown as Int32Array;
  const d = out as unknown as Int32Array;
  if (from) for (let i = 0; i < n; i++) d[target[i]!] = s[from[i]!]!;
  else for (let i = 0; i < n; i++) d[target[i]!] = s[i]!;
}
