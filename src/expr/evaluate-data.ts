/**
 * Low-level helpers shared by the evaluate-* kernels: allocation of result buffers (on a
 * SharedArrayBuffer by default), validity bitmaps (re-aligned to offset 0, ANDed byte-wise,
 * counted), read views of arrow `Data` (which may be sliced: fixed-width values are already
 * shifted by arrow-js, bitmaps and utf8 bytes are not), and construction of result `Data`.
 *
 * Conventions: a "bits" array is an LSB bitmap whose bit i is row i (offset 0); `null` means
 * "all valid". Bits past `length` in the last byte are unspecified.
 */
import { bitmapToBytes, bytesToBitmap, countSet as countBitmapSet, sliceBitmap } from '../columns/bits.js';
import * as arrow from 'apache-arrow';
import type { Data } from 'apache-arrow';
import type { TypeDesc } from '../types/column.js';
import { localAlloc, sharedAlloc } from '../columns/arena.js';
import { build, type BuildProps } from '../columns/gather.js';
import type { Allocator, TypedArray, TypedArrayConstructor } from '../types/keys.js';
import { typeToArrow } from './arrow-types.js';
import { int32Words, words64 } from '../ops/int64-words.js';

export type TypedArrayCtor = TypedArrayConstructor;

/** The evaluator's allocator: the code base's one Allocator type (src/types/keys.ts). */
export type Alloc = Allocator;

/** Default allocator: zeroed typed arrays on a fresh SharedArrayBuffer (crosses threads for free). */
export { sharedAlloc };

/** Plain (non-shared) allocation, for temporaries and constant folding. */
export const plainAlloc: Alloc = localAlloc;

/** Bitmap helpers of src/columns/bits.ts, in the (bits from 0) shapes the evaluator uses. */
export const alignBits = sliceBitmap;
export const countSet = (bits: Uint8Array, length: number): number => countBitmapSet(bits, 0, length);
export const packBytes = (bytes: Uint8Array, length: number, out: Uint8Array): Uint8Array => bytesToBitmap(bytes, length, out).bitmap;
export const unpackBits = (bits: Uint8Array, length: number, out: Uint8Array): Uint8Array => bitmapToBytes(bits, 0, length, out);

export function allocBits(alloc: Alloc, length: number): Uint8Array {
  return alloc(Uint8Array, (length + 7) >> 3) as Uint8Array;
}


/** Bits of a Data's validity aligned to 0 (a view when already aligned), or null if no NULLs. */
export function validityOf(d: Data): Uint8Array | null {
  if (d.typeId === arrow.Type.Null) return new Uint8Array((d.length + 7) >> 3);
  if (d.nullCount === 0 || !d.nullBitmap || d.nullBitmap.length === 0) return null;
  if ((d.offset & 7) === 0) return d.nullBitmap.subarray(d.offset >> 3, (d.offset >> 3) + ((d.length + 7) >> 3));
  return alignBits(d.nullBitmap, d.offset, d.length);
}

/** Bool values of a Data aligned to bit 0. */
export function boolBitsOf(d: Data): Uint8Array {
  const v = d.values as Uint8Array;
  if ((d.offset & 7) === 0) return v.subarray(d.offset >> 3, (d.offset >> 3) + ((d.length + 7) >> 3));
  return alignBits(v, d.offset, d.length);
}

/** AND of validity bitmaps into a new owned array (null if all inputs are null = all valid). */
export function andValidity(alloc: Alloc, length: number, ...vs: Array<Uint8Array | null>): Uint8Array | null {
  const present = vs.filter((v): v is Uint8Array => v !== null);
  if (present.length === 0) return null;
  const out = allocBits(alloc, length);
  out.set(present[0].subarray(0, out.length));
  for (let k = 1; k < present.length; k++) {
    const v = present[k];
    for (let i = 0; i < out.length; i++) out[i] &= v[i];
  }
  return out;
}



export function getBit(bits: Uint8Array, i: number): number {
  return (bits[i >> 3] >> (i & 7)) & 1;
}



/** Builds a result Data; drops the bitmap when nothing is NULL. */
export function makeResult(type: TypeDesc, length: number, validity: Uint8Array | null, props: Omit<BuildProps, 'type' | 'length' | 'nullCount' | 'nullBitmap'>): Data {
  const nulls = validity ? length - countSet(validity, length) : 0;
  return build({ type: typeToArrow(type), length, nullCount: nulls, ...(nulls > 0 && validity ? { nullBitmap: validity } : {}), ...props });
}

/** The typed-array constructor holding values of a fixed-width type. */
export function ctorOf(t: TypeDesc): TypedArrayCtor {
  switch (t.kind) {
    case 'int':
      switch (t.bits) {
        case 8:
          return t.signed ? Int8Array : Uint8Array;
        case 16:
          return t.signed ? Int16Array : Uint16Array;
        case 32:
          return t.signed ? Int32Array : Uint32Array;
        default:
          return t.signed ? BigInt64Array : BigUint64Array;
      }
    case 'float':
      return t.bits === 32 ? Float32Array : Float64Array;
    case 'date':
      return t.unit === 'day' ? Int32Array : BigInt64Array;
    case 'timestamp':
    case 'duration':
      return BigInt64Array;
    default:
      throw new Error(`ctorOf: ${t.kind} is not a fixed-width type`);
  }
}

/** Whether values of this type live in a 64-bit integer array (BigInt64Array / BigUint64Array). */
export function is64(t: TypeDesc): boolean {
  return (t.kind === 'int' && t.bits === 64) || (t.kind === 'date' && t.unit === 'ms') || t.kind === 'timestamp' || t.kind === 'duration';
}

/** Int32 halves of a 64-bit array: lo = u32[2i], hi = i32[2i+1] (little-endian). */
export function halves(v: BigInt64Array | BigUint64Array): { lo: Uint32Array; hi: Int32Array; uhi: Uint32Array } {
  const u = words64(v); // the one word view (src/ops/int64-words); hi words also read signed
  return { lo: u, hi: int32Words(v), uhi: u };
}

/** Offsets + bytes of a utf8/binary (or large) Data; row i is bytes[offsets[i] .. offsets[i+1]). */
export interface StrView {
  offsets: Int32Array | Float64Array;
  bytes: Uint8Array;
}
export function strViewOf(d: Data): StrView {
  const o = d.valueOffsets as unknown as Int32Array | BigInt64Array;
  const offsets = o instanceof BigInt64Array ? Float64Array.from(o.subarray(0, d.length + 1), Number) : o;
  return { offsets, bytes: (d.values as Uint8Array) ?? new Uint8Array(0) };
}

/** Growable byte buffer for building utf8 results. */
export class ByteBuilder {
  bytes = new Uint8Array(1024);
  length = 0;
  reserve(n: number): void {
    if (this.length + n <= this.bytes.length) return;
    let cap = this.bytes.length * 2;
    while (cap < this.length + n) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.bytes.subarray(0, this.length));
    this.bytes = next;
  }
  append(src: Uint8Array, start: number, end: number): void {
    this.reserve(end - start);
    this.bytes.set(src.subarray(start, end), this.length);
    this.length += end - start;
  }
  /** Appends a JS string as UTF-8 (ASCII fast path). */
  appendString(s: string): void {
    const n = s.length;
    this.reserve(n * 3);
    let ascii = true;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) {
        ascii = false;
        break;
      }
      this.bytes[this.length + i] = c;
    }
    if (ascii) {
      this.length += n;
      return;
    }
    const { written } = ENCODER.encodeInto(s, this.bytes.subarray(this.length));
    this.length += written;
  }
  /** The bytes, copied into an allocator-owned array. */
  finish(alloc: Alloc): Uint8Array {
    const out = alloc(Uint8Array, this.length) as Uint8Array;
    out.set(this.bytes.subarray(0, this.length));
    return out;
  }
}

export const ENCODER = new TextEncoder();
export const DECODER = new TextDecoder();

/** Decodes bytes[start, end) as a JS string (ASCII fast path). */
export function decodeUtf8(bytes: Uint8Array, start: number, end: number): string {
  if (end - start < 32) {
    let s = '';
    for (let i = start; i < end; i++) {
      const c = bytes[i];
      if (c >= 0x80) return DECODER.decode(bytes.subarray(start, end));
      s += String.fromCharCode(c);
    }
    return s;
  }
  return DECODER.decode(bytes.subarray(start, end));
}
