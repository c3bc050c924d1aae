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
