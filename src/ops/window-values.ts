/**
 * Exact readings of integer-like measure columns (ints of any width, decimal128 unscaled, and
 * 64-bit temporal values) for the window kernels, without a BigInt per value on the fast path.
 *
 * - shiftedExact(col, n): x[i] - b as exact doubles, b = the first non-NULL value, when every
 *   valid |x - b| <= 2^52 (a span check on approximate values first, then exact word
 *   subtraction); null otherwise. NULL rows read 0. Moments (variance) are shift-invariant, so
 *   the kernels use these small numbers instead of the raw values.
 * - bigValue(col, i): the exact value of row i as a BigInt (the slow, exact fallback).
 * O(n) per column; 64-bit and 128-bit values are read through 32-bit words.
 */
import type { Allocator, KeyColumn, TypedArray } from '../types/keys.js';
import { words64 } from './int64-words.js';

const TWO32 = 4294967296;
const TWO52 = 2 ** 52;

/** Approximate value of each row as a double (one rounding per word); NULL rows read 0. */
function approxValues(col: KeyColumn, n: number, alloc: Allocator): Float64Array {
  const v = col.values;
  const out = alloc(Float64Array, n);
  if (col.type.kind === 'decimal') {
    const w = v as Uint32Array;
    for (let i = 0; i < n; i++) out[i] = (((w[4 * i + 3]! | 0) * TWO32 + w[4 * i + 2]!) * TWO32 + w[4 * i + 1]!) * TWO32 + w[4 * i]!;
  } else if (v instanceof BigInt64Array || v instanceof BigUint64Array) {
    const u = words64(v);
    const hw = v instanceof BigInt64Array ? new Int32Array(u.buffer, u.byteOffset, u.length) : u;
    for (let i = 0; i < n; i++) out[i] = hw[2 * i + 1]! * TWO32 + u[2 * i]!;
  } else {
    const w = v as Exclude<TypedArray, BigInt64Array | BigUint64Array>;
    for (let i = 0; i < n; i++) out[i] = w[i]!;
  }
  return out;
}

export function shiftedExact(col: KeyColumn, n: number, alloc: Allocator = (ctor, length) => new ctor(length)): Float64Array | null {
  const valid = col.valid;
  const out = approxValues(col, n, alloc);
  let base = -1;
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < n; i++) {
    if (valid && valid[i] === 0) continue;
    if (base < 0) base = i;
    const x = out[i]!;
    if (x < lo) lo = x;
    if (x > hi) hi = x;
  }
  out.fill(0);
  if (base < 0) return out;
  if (hi - lo > 2 ** 50) return null;
  const v = col.values;
  if (col.type.kind === 'decimal') {
    const w = v as Uint32Array;
    const b = 4 * base;
    for (let i = 0; i < n; i++) {
      if (valid && valid[i] === 0) continue;
      // 128-bit x - b with borrows, word by word; the span check says the top words are a sign extension.
      let d0 = w[4 * i]! - w[b]!;
      let borrow = d0 < 0 ? 1 : 0;
      if (borrow) d0 += TWO32;
      let d1 = w[4 * i + 1]! - w[b + 1]! - borrow;
      borrow = d1 < 0 ? 1 : 0;
      if (borrow) d1 += TWO32;
      let d2 = w[4 * i + 2]! - w[b + 2]! - borrow;
      borrow = d2 < 0 ? 1 : 0;
      if (borrow) d2 += TWO32;
      const d3 = ((w[4 * i + 3]! | 0) - (w[b + 3]! | 0) - borrow) | 0;
      // The difference is -2^52 <= x <= 2^52: d3 and d2 are a sign extension of d1's top bits.
      const neg = d3 < 0;
      const x = neg ? (d1 - TWO32) * TWO32 + d0 : d1 * TWO32 + d0;
      if ((neg ? d2 !== TWO32 - 1 : d2 !== 0) || x > TWO52 || x < -TWO52) return null;
      out[i] = x;
    }
    return out;
  }
  if (v instanceof BigInt64Array || v instanceof BigUint64Array) {
    const u = words64(v);
    const hw = v instanceof BigInt64Array ? new Int32Array(u.buffer, u.byteOffset, u.length) : u;
    const bh = hw[2 * base + 1]!;
    const bl = u[2 * base]!;
    for (let i = 0; i < n; i++) {
      if (valid && valid[i] === 0) continue;
      out[i] = (hw[2 * i + 1]! - bh) * TWO32 + (u[2 * i]! - bl);
    }
    return out;
  }
  const w = v as Exclude<TypedArray, BigInt64Array | BigUint64Array>;
  const b = w[base]!;
  for (let i = 0; i < n; i++) if (!valid || valid[i] !== 0) out[i] = w[i]! - b;
  return out;
}

/** The exact value of row i (integers, decimal unscaled, temporal counts). */
export function bigValue(col: KeyColumn, i: number): bigint {
  const v = col.values;
  if (col.type.kind === 'decimal') {
    const w = v as Uint32Array;
    const x = (BigInt(w[4 * i + 3]!) << 96n) | (BigInt(w[4 * i + 2]!) << 64n) | (BigInt(w[4 * i + 1]!) << 32n) | BigInt(w[4 * i]!);
    return BigInt.asIntN(128, x);
  }
  if (v instanceof BigInt64Array || v instanceof BigUint64Array) return v[i]!;
  return BigInt((v as Exclude<TypedArray, BigInt64Array | BigUint64Array>)[i]!);
}
