/**
 * Plain, typed-array views of one contiguous column, as kernels, sorts and hashes take them.
 * Built in the worker from arrow Data (src/columns) after rows are gathered into one partition.
 */
import type { TypeDesc } from './column.js';

export type TypedArray =
  | Int8Array
  | Int16Array
  | Int32Array
  | BigInt64Array
  | Uint8Array
  | Uint16Array
  | Uint32Array
  | BigUint64Array
  | Float32Array
  | Float64Array;

/**
 * A column of `length` rows starting at index 0 of `values`.
 * - fixed width (int, float, date, timestamp, duration): `values` is the natural typed array
 *   (Int8Array … BigInt64Array/BigUint64Array, Float32Array/Float64Array; date32 Int32Array,
 *   date64/timestamp/duration BigInt64Array); float16 is not supported as a key.
 * - decimal128: `values` is a Uint32Array of 4 words per row (little-endian two's complement).
 * - bool: `values` is a Uint8Array with one byte (0 or 1) per row.
 * - utf8/binary: `values` is the byte Uint8Array and `offsets` an Int32Array of length+1
 *   (offsets[0] need not be 0); row i is bytes offsets[i]..offsets[i+1].
 * `valid` is one byte per row (1 = valid, 0 = NULL), or null when the column has no NULLs.
 */
export interface KeyColumn {
  type: TypeDesc;
  length: number;
  values: TypedArray;
  offsets: Int32Array | null;
  valid: Uint8Array | null;
}

/**
 * An order-preserving unsigned sort field of n rows: row i's value is hi[i] * 2^32 + lo[i]
 * (hi null: lo[i] alone) and below 2^bits. Fields concatenate, most significant first, into the
 * words the radix argsort takes (src/worker/sort-keys packFields).
 */
export interface KeyField {
  bits: number;
  lo: Uint32Array;
  hi: Uint32Array | null;
}

/** A typed-array class (Int32Array, Float64Array, …) as allocators take it. */
export type TypedArrayConstructor<T extends TypedArray = TypedArray> = {
  new (buffer: ArrayBufferLike, byteOffset?: number, length?: number): T;
  new (length: number): T;
  readonly BYTES_PER_ELEMENT: number;
};

/**
 * Where a column's buffers come from: shared memory, a task's scratch loan, transferable
 * buffers. The one allocator type of the code base; every allocation is zero-filled and
 * 8-byte aligned, unless the caller passes `'overwritten'`: it writes every element before
 * reading any, so an allocator that reuses memory may skip clearing it (the task scratch does:
 * zeroing was 8% of the window kernel).
 */
export type Allocator = <T extends TypedArray>(ctor: TypedArrayConstructor<T>, length: number, fill?: AllocFill) => T;

/** 'zeroed' (the default): all zero bytes; 'overwritten': any contents, the caller writes them all. */
export type AllocFill = 'zeroed' | 'overwritten';
