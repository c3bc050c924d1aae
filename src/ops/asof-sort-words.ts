/**
 * ASOF sort fields: a normalized key as order-preserving unsigned fields, most significant
 * first, for the worker's radix argsort after the group id (src/worker/asof-task sortSide: an
 * exact key's range packed with the group in one pass, the others' words as they are).
 */
import type { Allocator, KeyField } from '../types/keys.js';
import { localAlloc } from '../columns/arena.js';
import type { NormalizedKey } from './asof-key-types.js';
import { TWO32 as P32 } from './int64-words.js';
import { utf8Ranks } from './asof-string-keys.js';

const P52 = 4503599627370496;

/**
 * The key as fields whose lexicographic order is the key order. f64 exact: one field, the
 * value less the side's least valid value (only the bits the side's span needs: fewer radix
 * passes); float: 64 bits (IEEE bits, sign-flipped); wide: two of 64 bits (h + 2^52, then m
 * and l); utf8: the dense rank of the value among this side's distinct values in byte order.
 * Every field is only valid for sorting this side. Invalid rows (NULL/NaN) get zero; the
 * kernel ignores them wherever they sort. Numbers' words come from `alloc` (a task's scratch);
 * strings' ranks are new.
 */
export function asofSortFields(key: NormalizedKey, alloc: Allocator = localAlloc): KeyField[] {
  if (key.kind === 'f64') return key.exact ? [exactField(key.values, key.valid, alloc)] : [floatField(key.values, key.valid, alloc)];
  if (key.kind === 'wide') return wideFields(key, alloc);
  const ranks = utf8Ranks(key);
  let max = 0;
  for (let i = 0; i < ranks.length; i++) if (ranks[i]! > max) max = ranks[i]!;
  return [{ bits: 32 - Math.clz32(max), lo: ranks, hi: null }];
}

/**
 * The least valid value of an exact key (|v| <= 2^52) and the bits of its span (the greatest
 * less the least, exact): v - min is below 2^bits. No valid value: min 0, bits 0.
 */
export function asofExactRange(v: Float64Array, valid: Uint8Array | null): { min: number; bits: number } {
  // A loop per NULL form, the extremes by selects: no branch a row to mispredict.
  let min = Infinity;
  let max = -Infinity;
  if (valid === null) {
    for (let i = 0; i < v.length; i++) {
      const x = v[i]!;
      min = x < min ? x : min;
      max = x > max ? x : max;
    }
  } else {
    for (let i = 0; i < v.length; i++) {
      if (valid[i] === 0) continue;
      const x = v[i]!;
      min = x < min ? x : min;
      max = x > max ? x : max;
    }
  }
  return min === Infinity ? { min: 0, bits: 0 } : exactRangeOf(min, max);
}

/** The least exact key and the bits of the span up to the greatest (both within ±2^52). */
export function exactRangeOf(min: number, max: number): { min: number; bits: number } {
  const span = max - min;
  return { min, bits: span < P32 ? 32 - Math.clz32(span) : 64 - Math.clz32(Math.floor(span / P32)) };
}

/** Exact integers in doubles (|v| <= 2^52) as v - min over the valid rows (0 bits: all equal). */
function exactField(v: Float64Array, valid: Uint8Array | null, alloc: Allocator): KeyField {
  const n = v.length;
  const { min, bits } = asofExactRange(v, valid);
  const lo = alloc(Uint32Array, n, 'overwritten');
  if (bits <= 32) {
    reducedLow(v, valid, min, lo);
    return { bits, lo, hi: null };
  }
  const hi = alloc(Uint32Array, n, 'overwritten');
  reducedWide(v, valid, min, lo, hi);
  return { bits, lo, hi };
}

function reducedLow(v: Float64Array, valid: Uint8Array | null, min: number, lo: Uint32Array): void {
  for (let i = 0; i < v.length; i++) lo[i] = valid === null || valid[i] !== 0 ? v[i]! - min : 0;
}

function reducedWide(v: Float64Array, valid: Uint8Array | null, min: number, lo: Uint32Array, hi: Uint32Array): void {
  for (let i = 0; i < v.length; i++) {
    if (valid !== null && valid[i] === 0) {
      hi[i] = lo[i] = 0;
      continue;
    }
    const d = v[i]! - min; // an exact integer below 2^53
    const h = Math.floor(d / P32);
    hi[i] = h;
    lo[i] = d - h * P32;
  }
}

/** Doubles by their IEEE bits: negative ones complemented, the others with the sign bit set. */
function floatField(v: Float64Array, valid: Uint8Array | null, alloc: Allocator): KeyField {
  const n = v.length;
  const hiW = alloc(Uint32Array, n); // NULL rows stay 0
  const loW = alloc(Uint32Array, n);
  const bits = new Uint32Array(v.buffer, v.byteOffset, 2 * n);
  for (let i = 0; i < n; i++) {
    if (valid !== null && valid[i] === 0) continue;
    const hi = bits[2 * i + 1]!;
    const lo = bits[2 * i]!;
    if (hi >>> 31) {
      hiW[i] = ~hi >>> 0;
      loW[i] = ~lo >>> 0;
    } else {
      hiW[i] = (hi | 0x80000000) >>> 0;
      loW[i] = lo;
    }
  }
  return { bits: 64, lo: loW, hi: hiW };
}

/** Limbs v = h*2^64 + m*2^32 + l: h + 2^52 as 64 bits, then (m, l). */
function wideFields(key: Extract<NormalizedKey, { kind: 'wide' }>, alloc: Allocator): KeyField[] {
  const n = key.h.length;
  const valid = key.valid;
  const w0 = alloc(Uint32Array, n); // NULL rows stay 0
  const w1 = alloc(Uint32Array, n);
  for (let i = 0; i < n; i++) {
    if (valid !== null && valid[i] === 0) continue;
    const b = key.h[i]! + P52;
    const hi = Math.floor(b / P32);
    w0[i] = hi;
    w1[i] = b - hi * P32;
  }
  const m = alloc(Uint32Array, n, 'overwritten');
  const l = alloc(Uint32Array, n, 'overwritten');
  m.set(key.m.subarray(0, n));
  l.set(key.l.subarray(0, n));
  if (valid !== null) for (let i = 0; i < n; i++) if (valid[i] === 0) m[i] = l[i] = 0;
  return [
    { bits: 64, lo: w1, hi: w0 },
    { bits: 64, lo: l, hi: m },
  ];
}
