/**
 * Direct outputs (OutputRouting kind 'direct'): a task writes its rows' results in place into
 * dense shared arrays indexed by global row id, values at the column's width (bool: a byte per
 * row), and clears its NULL rows' bits in the column's validity bitmap (all set by the
 * coordinator; only NULLs are written, atomically: a word's 32 rows may be other tasks').
 * 64-bit values move as float64 words (src/columns/gather rowWords): no BigInt per value.
 */
import * as A from 'apache-arrow';
import { bitmapToBytes } from '../columns/bits.js';
import { viewOf } from '../columns/shared.js';
import type { BufRef } from '../types/column.js';
import type { TypedArray } from '../types/keys.js';
import { ExecutionError } from '../errors.js';
import type { DirectStaging } from '../types/tasks.js';
import { permuteInto, scatterValues } from './permute.js';
import { gatherWords, rowWords } from '../columns/gather.js';
import { scratchAlloc } from './scratch.js';

type Dest = { values: BufRef; valid: BufRef };

/** Row r is NULL: its bit of the validity words cleared (Arrow's order: bit r & 7 of byte r >> 3, little-endian words). */
function clearValid(words: Int32Array, r: number): void {
  Atomics.and(words, r >>> 5, ~(1 << (r & 31)));
}

/**
 * dest[target[i]] = values[from[i]] (values[i] without `from`); NULLs: clearNullRows. With
 * `from` a caller can walk the destinations in ascending order (its rows' load order) and read
 * the small sorted-order outputs at random instead: the writes into the whole-input arrays then
 * touch each page once, where sorted-order writes land on a new page almost every row
 * (measured: the scatter took a fifth of the window kernel).
 */
export function scatterDirect(values: TypedArray, target: Uint32Array, dest: Dest, from: Uint32Array | null = null): void {
  const ctor = values.constructor as { new (b: ArrayBufferLike, o: number, l: number): TypedArray; BYTES_PER_ELEMENT: number };
  scatterValues(values, target, new ctor(dest.values.sab, dest.values.byteOffset, dest.values.byteLength / ctor.BYTES_PER_ELEMENT), from);
}

/** Clears row rowIds[q]'s validity bit where valid[q] is 0 (both in one order: a scan of `valid` in order). */
export function clearNullRows(valid: Uint8Array, rowIds: Uint32Array, dest: Dest): void {
  const words = viewOf(Int32Array, dest.valid);
  const n = rowIds.length;
  for (let q = 0; q < n; q++) if (valid[q] === 0) clearValid(words, rowIds[q]!);
}

/**
 * Staged direct outputs (DirectStaging): claims the positions [base, base + n) of every output
 * column for the task's n rows, row target[j] at base + j, and records them in `pos`.
 */
export function claimStaging(staging: DirectStaging, target: Uint32Array): number {
  const n = target.length;
  const pos = viewOf(Int32Array, staging.pos);
  const base = Atomics.add(viewOf(Uint32Array, staging.claim), 0, n);
  if (base + n > pos.length) throw new ExecutionError('INTERNAL', `internal: staged direct outputs: ${base + n} rows claimed of ${pos.length}`);
  for (let j = 0; j < n; j++) pos[target[j]!] = base + j;
  return base;
}

/**
 * A staged column's values at the task's positions: dest[base + j] = values[from[j]] (values[j]
 * without `from`), sequential writes, for the n = target.length rows; NULLs: clearNullRows (the
 * bitmap is the result's own, by row).
 */
export function stageDirect(values: TypedArray, target: Uint32Array, dest: Dest, base: number, from: Uint32Array | null = null): void {
  const n = target.length;
  const bpe = values.BYTES_PER_ELEMENT;
  const at = dest.values.byteOffset + base * bpe;
  if (from) {
    const ctor = values.constructor as { new (b: ArrayBufferLike, o: number, l: number): TypedArray };
    permuteInto(values, from, new ctor(dest.values.sab, at, n));
  } else {
    new Uint8Array(dest.values.sab, at, n * bpe).set(new Uint8Array(values.buffer, values.byteOffset, n * bpe));
  }
}

/**
 * dest[target[i]] = source row pick[i] of a fixed-width column (NULL when pick[i] < 0 or the
 * source row is NULL): a gather and a scatter in one pass. Staged (`base` >= 0, claimStaging):
 * the values go to dest[base + i] instead, one gather; the validity bit is row target[i]'s.
 */
export function takeDirect(source: A.Data, pick: Int32Array, target: Uint32Array, dest: Dest, base = -1): void {
  const n = target.length;
  const words = viewOf(Int32Array, dest.valid);
  const srcValid = source.nullCount > 0 ? bitmapToBytes(source.nullBitmap, source.offset, source.length, scratchAlloc(Uint8Array, source.length)) : null;
  for (let i = 0; i < n; i++) {
    const r = pick[i]!;
    if (r < 0 || (srcValid !== null && srcValid[r] === 0)) clearValid(words, target[i]!);
  }
  const bytes = source.typeId === A.Type.Bool ? bitmapToBytes(source.values as Uint8Array, source.offset, source.length, scratchAlloc(Uint8Array, source.length)) : null;
  if (base >= 0) {
    const values = bytes ?? (source.values as TypedArray);
    const ctor = values.constructor as { new (b: ArrayBufferLike, o: number, l: number): TypedArray; BYTES_PER_ELEMENT: number };
    const rowBytes = ctor.BYTES_PER_ELEMENT;
    const { src, dst, w } = rowWords(values, new ctor(dest.values.sab, dest.values.byteOffset + base * rowBytes, n), rowBytes);
    gatherWords(src, dst, w, pick, n);
    return;
  }
  if (bytes) {
    const out = viewOf(Uint8Array, dest.values);
    for (let i = 0; i < n; i++) {
      const r = pick[i]!;
      if (r >= 0) out[target[i]!] = bytes[r]!;
    }
    return;
  }
  const src = source.values as TypedArray;
  if (src.BYTES_PER_ELEMENT === 8) {
    // As float64 words where aligned (one load and store a row, every bit kept: see rowWords).
    const { src: s, dst: d, w } = rowWords(src, viewOf(Float64Array, dest.values), 8);
    for (let i = 0; i < n; i++) {
      const r = pick[i]!;
      if (r < 0) continue;
      if (w === 1) d[target[i]!] = s[r]!;
      else for (let k = 0, t = target[i]! * w, f = r * w; k < w; k++) d[t + k] = s[f + k]!;
    }
    return;
  }
  const ctor = src.constructor as { new (b: ArrayBufferLike, o: number, l: number): TypedArray; BYTES_PER_ELEMENT: number };
  const d = new ctor(dest.values.sab, dest.values.byteOffset, dest.values.byteLength / ctor.BYTES_PER_ELEMENT) as Int32Array;
  const sv = src as Int32Array;
  for (let i = 0; i < n; i++) {
    const r = pick[i]!;
    if (r >= 0) d[target[i]!] = sv[r]!;
  }
}
