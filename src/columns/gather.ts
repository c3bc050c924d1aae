/**
 * Gather and concatenate arrow `Data` of any supported type into new, contiguous buffers.
 *
 * Layout conventions of apache-arrow (JS) that every function here relies on:
 * - `data.offset` applies to bitmaps only (validity, and the values of `Bool`): row i is bit
 *   `offset + i`. `values` and `valueOffsets` are already sliced: row i is `values[i * stride]`
 *   and `valueOffsets[i] .. valueOffsets[i + 1]` (absolute positions in the child or the byte
 *   buffer, which may not start at 0). Struct and FixedSizeList children are sliced with their
 *   parent (child row of struct row i is i; of fixed-size-list row i is i * size + k), while
 *   List/LargeList/Map children are not (their offsets are absolute).
 *
 * gatherData(data, indices, count): output row j = input row indices[j], or NULL when -1.
 *   1. validity: count NULLs (index -1 or invalid source), allocate a bitmap only if any.
 *   2. values by type: fixed-width rows are copied as 32/16/8-bit words (no BigInt, no NaN
 *      canonicalization); bool bits one by one; utf8/binary in two passes (sizes, then bytes,
 *      runs of consecutive source rows copied as one block);
 *      list/largeList/map rebase offsets by a prefix sum and gather the child by the expanded
 *      element ranges; fixedSizeList gathers child rows i*size+k (-1 rows pad with NULL);
 *      struct gathers each child with the same indices (a NULL struct stays NULL, its fields
 *      are NULL too); dictionary gathers its indices and keeps the same dictionary.
 * concatData(chunks): same-typed chunks into one Data; memcpy for fixed-width values and
 *   byte buffers, offsets rebased to 0, list children concatenated over their used ranges.
 *
 * Invariants of every output: offset 0, exact nullCount, a null bitmap only when nullCount > 0,
 * all buffers from `alloc` (default: a fresh SharedArrayBuffer, so outputs can cross threads).
 * Complexity: O(count + bytes/elements copied), nested types recurse once per child.
 * Unsupported (throw): unions, view types, dictionaries with differing dictionaries in concat.
 */
import { Data, Type, makeData } from 'apache-arrow';
import type { DataType } from 'apache-arrow';
import { shiftedCopy } from './array-loops.js';
import { readAheadSink } from './read-ahead.js';
import { INLINE_LONG, INLINE_RECORD_BYTES, INLINE_RECORD_WORDS } from './inline-words.js';
import type { Allocator, TypedArray, TypedArrayConstructor } from '../types/keys.js';
import { sharedAlloc } from './arena.js';
import { copyBitRange, countSet, setBitRange } from './bits.js';

export type { Allocator };

const MAX_INT32 = 0x7fffffff;
const TWO32 = 4294967296;

export interface BuildProps {
  type: DataType;
  length: number;
  nullCount: number;
  nullBitmap?: Uint8Array;
  data?: TypedArray;
  valueOffsets?: Int32Array | BigInt64Array;
  child?: Data;
  children?: Data[];
  dictionary?: unknown;
}
export const build = makeData as unknown as (props: BuildProps) => Data;

function allocU8(alloc: Allocator, n: number): Uint8Array {
  return alloc(Uint8Array, n) as Uint8Array;
}

/**
 * How a type's values lie in memory, as the copy routines (here and in ./runs) see it: words of
 * `stride` elements per row, a dictionary's indices (one per row), bits, bytes with offsets, or
 * child columns (nested; NULL has no values).
 */
export type ValueLayout = 'fixed' | 'dictionary' | 'bool' | 'varbinary' | 'nested' | 'null';

export function valueLayout(type: DataType): ValueLayout {
  switch (type.typeId) {
    case Type.Null:
      return 'null';
    case Type.Bool:
      return 'bool';
    case Type.Int:
    case Type.Float:
    case Type.Date:
    case Type.Time:
    case Type.Timestamp:
    case Type.Duration:
    case Type.Interval:
    case Type.Decimal:
    case Type.FixedSizeBinary:
      return 'fixed';
    case Type.Dictionary:
      return 'dictionary';
    case Type.Utf8:
    case Type.Binary:
    case Type.LargeUtf8:
    case Type.LargeBinary:
      return 'varbinary';
    default:
      return 'nested';
  }
}

/** Bytes of a validity bitmap for n rows, padded to 64 bits. */
export function bitmapBytes(n: number): number {
  return ((n + 63) >>> 6) << 3;
}

/** The bitmap of `data` when it has NULLs, else null. */
export function nullsOf(data: Pick<Data, 'nullBitmap' | 'nullCount'>): Uint8Array | null {
  const bm = data.nullBitmap as Uint8Array | undefined;
  return bm && bm.length > 0 && data.nullCount > 0 ? bm : null;
}

/** Offsets of rows 0..length as plain numbers (Int32Array as is, BigInt64Array converted once). */
export function offsetsOf(data: Pick<Data, 'valueOffsets' | 'length'>): Int32Array | Float64Array {
  const vo = data.valueOffsets as Int32Array | BigInt64Array;
  const n = data.length;
  if (vo instanceof Int32Array) return vo.subarray(0, n + 1);
  return largeOffsetsToNumbers(vo, n + 1);
}

/** Reads int64 offsets through 32-bit halves (little-endian), without creating BigInts. */
export function largeOffsetsToNumbers(vo: BigInt64Array, count: number): Float64Array {
  const u32 = new Uint32Array(vo.buffer, vo.byteOffset, count * 2);
  const i32 = new Int32Array(vo.buffer, vo.byteOffset, count * 2);
  const out = new Float64Array(count);
  for (let i = 0; i < count; i++) out[i] = i32[2 * i + 1] * TWO32 + u32[2 * i];
  return out;
}

/** Writes non-negative numeric offsets into a new int64 offsets buffer. */
export function numbersToLargeOffsets(src: Float64Array | Int32Array, count: number, alloc: Allocator): BigInt64Array {
  const out = alloc(BigInt64Array, count) as BigInt64Array;
  const u32 = new Uint32Array(out.buffer, out.byteOffset, count * 2);
  for (let i = 0; i < count; i++) {
    const v = src[i];
    u32[2 * i] = v % TWO32;
    u32[2 * i + 1] = Math.floor(v / TWO32);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// gather

/**
 * Output row j = row indices[j] of `data` (relative to `data`), NULL where indices[j] is -1.
 * `negatives`: how many indices are -1, when the caller knows (else they are counted, once a
 * column: a join's probe gathering six columns counted 9M indices six times, 4% of its CPU).
 */
export function gatherData(data: Data, indices: Int32Array, count: number = indices.length, alloc: Allocator = sharedAlloc, negatives?: number): Data {
  const type = data.type as DataType;
  if (type.typeId === Type.Null) return build({ type, length: count, nullCount: count });
  const [nullBitmap, nullCount] = gatherValidity(data, indices, count, alloc, negatives);
  const base = { type, length: count, nullCount, nullBitmap };
  switch (valueLayout(type)) {
    case 'bool':
      return build({ ...base, data: gatherBitmap(data.values as Uint8Array, data.offset, indices, count, alloc) });
    case 'fixed':
      return build({ ...base, data: gatherFixed(data.values as TypedArray, data.stride, indices, count, alloc) });
    case 'dictionary':
      return build({ ...base, data: gatherFixed(data.values as TypedArray, 1, indices, count, alloc), dictionary: data.dictionary });
    case 'varbinary':
      return gatherVarBinary(data, indices, count, alloc, base);
    default:
      break;
  }
  switch (type.typeId) {
    case Type.List:
    case Type.LargeList:
    case Type.Map:
      return gatherList(data, indices, count, alloc, base);
    case Type.FixedSizeList:
      return gatherFixedSizeList(data, indices, count, alloc, base);
    case Type.Struct:
      return build({ ...base, children: data.children.map((c) => gatherData(c, indices, count, alloc)) });
    default:
      throw new Error(`gatherData: unsupported arrow type ${String(type)}`);
  }
}

/**
 * The concatenation of rows starts[k] .. ends[k]-1 of `data`, for k < count (row positions as
 * `valueOffsets` give them, e.g. a list's element ranges into its child).
 */
export function gatherRanges(
  data: Data,
  starts: Int32Array | Float64Array,
  ends: Int32Array | Float64Array,
  count: number = starts.length,
  alloc: Allocator = sharedAlloc,
): Data {
  let total = 0;
  for (let k = 0; k < count; k++) total += ends[k] - starts[k];
  if (total > MAX_INT32) throw new RangeError(`gatherRanges: ${total} elements exceed the int32 index range`);
  const idx = new Int32Array(total);
  let p = 0;
  for (let k = 0; k < count; k++) for (let e = starts[k], end = ends[k]; e < end; e++) idx[p++] = e;
  return gatherData(data, idx, total, alloc);
}

/** The validity of output rows idx[0..n) (NULL where idx is -1): a bitmap, or undefined when none is NULL, and the NULL count. */
export function gatherValidity(data: Data, idx: Int32Array, n: number, alloc: Allocator, negatives: number | undefined): [Uint8Array | undefined, number] {
  const bm = nullsOf(data);
  if (!bm) {
    const nulls = negatives ?? countNegative(idx, n);
    return nulls === 0 ? [undefined, 0] : [gatherBitmap(null, 0, idx, n, alloc), nulls];
  }
  // One pass over the rows, then NULLs counted by bytes: the bitmap of rows that all turn out
  // valid is dropped (its n/8 bytes stay allocated), where counting first read every row twice.
  const out = gatherBitmap(bm, data.offset, idx, n, alloc);
  const nulls = n - countSet(out, 0, n);
  return nulls === 0 ? [undefined, 0] : [out, nulls];
}

/** Entries of idx[0..n) below 0 (a loop of its own: see src/ops/group-accumulate). */
function countNegative(idx: Int32Array, n: number): number {
  let k = 0;
  for (let j = 0; j < n; j++) if (idx[j]! < 0) k++;
  return k;
}

/**
 * out bit j = bit `off + idx[j]` of `bits` (all set when `bits` is null), 0 where idx[j] < 0.
 * Each output byte is assembled whole and written once: the memory needs no clearing first.
 */
function gatherBitmap(bits: Uint8Array | null, off: number, idx: Int32Array, n: number, alloc: Allocator): Uint8Array {
  const out = alloc(Uint8Array, bitmapBytes(n), 'overwritten') as Uint8Array;
  gatherBits(bits, off, idx, n, out);
  // Bytes past bitmapBytes(n)'s padding, if the allocator rounded up, are never read.
  return out;
}

// The loops below are functions of their own over typed arrays and numbers, apart from the
// allocator calls and the arrow objects around them: a task's allocator is a new closure each
// task, and a loop compiled with the call to the last one inlined was thrown away ("wrong call
// target") at the next task's first call and ran unoptimized until compiled again (join-int-inner:
// gatherVarBinary deoptimized twice a probe task; 512k-row slices instead of 128k halved the probe
// tasks' CPU, which is how it showed).

function gatherBits(bits: Uint8Array | null, off: number, idx: Int32Array, n: number, out: Uint8Array): void {
  const nbytes = bitmapBytes(n);
  for (let byte = 0; byte < nbytes; byte++) {
    let v = 0;
    const end = Math.min(n, (byte << 3) + 8);
    if (bits === null) {
      for (let j = byte << 3, k = 0; j < end; j++, k++) if (idx[j]! >= 0) v |= 1 << k;
    } else {
      for (let j = byte << 3, k = 0; j < end; j++, k++) {
        const r = idx[j]!;
        if (r < 0) continue;
        const b = off + r;
        v |= ((bits[b >>> 3]! >>> (b & 7)) & 1) << k;
      }
    }
    out[byte] = v;
  }
}

/** A view of the same bytes as 32-, 16- or 8-bit words, whichever divides a row and the offset. */
export function wordView(a: TypedArray, rowBytes: number): Int32Array | Uint16Array | Uint8Array {
  if (rowBytes % 4 === 0 && a.byteOffset % 4 === 0) return new Int32Array(a.buffer, a.byteOffset, a.byteLength >>> 2);
  if (rowBytes % 2 === 0 && a.byteOffset % 2 === 0) return new Uint16Array(a.buffer, a.byteOffset, a.byteLength >>> 1);
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}

/** The words rows move as (rowWords). */
export type WordArray = Float64Array | Int32Array | Uint16Array | Uint8Array;

/**
 * Views of `values` and `out` in the widest word both allow for rows of `rowBytes`, and the
 * words per row: what moving fixed-width rows one by one (gather, scatter) reads and writes.
 * Rows of whole 8-byte words at 8-byte offsets move as float64 words: one load and one store
 * where int32 words take two (a random gather of 1.25M rows: 7.5 against 11 ns a row). The
 * words are only loaded and stored, never computed on, and V8 keeps every bit of a float64 it
 * moves that way, NaN payloads and signalling NaNs included, in every tier (the int64 values
 * that are NaN patterns are tested through gather and scatter: test/columns/move-bits.test.ts).
 */
export function rowWords(values: TypedArray, out: TypedArray, rowBytes: number): { src: WordArray; dst: WordArray; w: number } {
  if (rowBytes % 8 === 0 && values.byteOffset % 8 === 0 && out.byteOffset % 8 === 0) {
    const src = new Float64Array(values.buffer, values.byteOffset, values.byteLength >>> 3);
    const dst = new Float64Array(out.buffer, out.byteOffset, out.byteLength >>> 3);
    return { src, dst, w: rowBytes / 8 };
  }
  let src: Int32Array | Uint16Array | Uint8Array = wordView(values, rowBytes);
  let dst = wordView(out, rowBytes);
  if (src.BYTES_PER_ELEMENT !== dst.BYTES_PER_ELEMENT) {
    // Source values at an offset the output's word size does not divide: bytes on both sides.
    src = new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
    dst = new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
  }
  return { src, dst, w: rowBytes / src.BYTES_PER_ELEMENT };
}

function gatherFixed(values: TypedArray, stride: number, idx: Int32Array, n: number, alloc: Allocator): TypedArray {
  const ctor = values.constructor as TypedArrayConstructor;
  const rowBytes = stride * ctor.BYTES_PER_ELEMENT;
  // Every word is written (zeros where idx[j] < 0, a NULL's slot): no clearing first.
  const out = alloc(ctor, n * stride, 'overwritten');
  if (n === 0 || rowBytes === 0) return out;
  const { src, dst, w } = rowWords(values, out, rowBytes);
  gatherWords(src, dst, w, idx, n);
  return out;
}

/** dst row j = src row idx[j] (rows of w words), zeros where idx[j] < 0. */
export function gatherWords(src: WordArray, dst: WordArray, w: number, idx: Int32Array, n: number): void {
  if (w === 1) {
    for (let j = 0; j < n; j++) {
      const r = idx[j]!;
      dst[j] = r >= 0 ? src[r]! : 0;
    }
  } else if (w === 2) {
    for (let j = 0; j < n; j++) {
      const r = idx[j]!;
      if (r >= 0) {
        dst[2 * j] = src[2 * r]!;
        dst[2 * j + 1] = src[2 * r + 1]!;
      } else {
        dst[2 * j] = 0;
        dst[2 * j + 1] = 0;
      }
    }
  } else {
    for (let j = 0; j < n; j++) {
      const r = idx[j]!;
      for (let k = 0, s = r * w, d = j * w; k < w; k++) dst[d + k] = r >= 0 ? src[s + k]! : 0;
    }
  }
}

/** Copies bytes src[a..b) to dst at p: a loop for short runs (no view per row), memcpy for long. */
export function copyBytes(src: Uint8Array, a: number, b: number, dst: Uint8Array, p: number): void {
  if (b - a > 48) dst.set(src.subarray(a, b), p);
  else for (let k = a; k < b; k++) dst[p++] = src[k];
}

/** Rows whose values are touched ahead of the copy in gatherVarBinary. */
const TOUCH_AHEAD = 32;

/** XOR of the first byte of each non-empty value of rows idx[from..to). */
function touchValues(offs: Int32Array | Float64Array, bytes: Uint8Array, idx: Int32Array, from: number, to: number): number {
  let x = 0;
  for (let q = from; q < to; q++) {
    const r = idx[q]!;
    if (r < 0) continue;
    const a = offs[r]!;
    if (offs[r + 1]! > a) x ^= bytes[a]!;
  }
  return x;
}

function gatherVarBinary(data: Data, idx: Int32Array, n: number, alloc: Allocator, base: BuildProps): Data {
  const large = data.type.typeId === Type.LargeUtf8 || data.type.typeId === Type.LargeBinary;
  const offs = offsetsOf(data);
  const bytes = data.values as Uint8Array;
  const total = gatheredBytes(offs, idx, n);
  if (!large && total > MAX_INT32) throw new RangeError(`gatherData: ${total} bytes exceed the int32 offsets of ${String(data.type)}`);
  // Bytes and offsets are written end to end below (offset 0 here).
  const out = alloc(Uint8Array, total, 'overwritten') as Uint8Array;
  const outOffs = large ? new Float64Array(n + 1) : (alloc(Int32Array, n + 1, 'overwritten') as Int32Array);
  copyGathered(offs, bytes, idx, n, out, outOffs);
  const valueOffsets = large ? numbersToLargeOffsets(outOffs, n + 1, alloc) : (outOffs as Int32Array);
  return build({ ...base, data: out, valueOffsets });
}

/**
 * gatherData of a utf8/binary column with int32 offsets through its inline records
 * (./inline-words inlineRecords, made once for a column gathered many times at random, as the
 * broadcast join's right payload): the output offsets from the rows' length bytes (a table a
 * quarter the size of the offsets, which the caches keep), then each row's record read once and
 * its first 12 bytes written as three words at its offset (values past 12 bytes copied from
 * the column's bytes). A random 9-byte value of a 1M-row column: one cache miss instead of two.
 */
export function gatherInlined(data: Data, records: Int32Array, lengths: Uint8Array, idx: Int32Array, n: number, alloc: Allocator, negatives: number | undefined): Data {
  const [nullBitmap, nullCount] = gatherValidity(data, idx, n, alloc, negatives);
  const offs = offsetsOf(data);
  const outOffs = alloc(Int32Array, n + 1, 'overwritten') as Int32Array;
  const total = inlinedOffsets(lengths, offs, idx, n, outOffs);
  if (total > MAX_INT32) throw new RangeError(`gatherData: ${total} bytes exceed the int32 offsets of ${String(data.type)}`);
  const out = alloc(Uint8Array, total, 'overwritten') as Uint8Array;
  const dv = wordWriter(out);
  const bytes = data.values as Uint8Array;
  // Each block's records read ahead first: loads alone, their misses overlap.
  for (let from = 0; from < n; from += RECORDS_AHEAD) {
    const to = Math.min(n, from + RECORDS_AHEAD);
    readAheadSink[0] ^= touchRecords(records, idx, from, to);
    writeInlineWords(records, INLINE_RECORD_WORDS, 0, bytes, idx, from, to, outOffs, out, dv);
  }
  return build({ type: data.type as DataType, length: n, nullCount, nullBitmap, data: out, valueOffsets: outOffs });
}

/**
 * A DataView of `out` to write whole words through, or null when `out` lies in a resizable or
 * growable buffer (mapped pages), where a DataView is 5-9x slower than over a fixed-length one,
 * shared or not (41-78 against 8 ns a 9-byte value, measured): writeInlineWords then copies
 * values from their column's bytes instead.
 */
export function wordWriter(out: Uint8Array): DataView | null {
  const b = out.buffer as ArrayBufferLike & { resizable?: boolean; growable?: boolean };
  return b.resizable || b.growable ? null : new DataView(b, out.byteOffset, out.byteLength);
}

/** outOffs of rows idx[0..n) from their length bytes (rows idx < 0 empty); returns the total. */
function inlinedOffsets(lengths: Uint8Array, offs: Int32Array | Float64Array, idx: Int32Array, n: number, outOffs: Int32Array): number {
  let total = 0;
  outOffs[0] = 0;
  for (let j = 0; j < n; j++) {
    const r = idx[j]!;
    if (r >= 0) {
      const len = lengths[r]!;
      total += len < INLINE_LONG ? len : offs[r + 1]! - offs[r]!;
    }
    outOffs[j + 1] = total;
  }
  return total;
}

/**
 * Output rows from..to-1's values at their offsets outOffs[j] in `out` (`dv`: wordWriter's),
 * from inline words: row j's in `words` at `stride` × idx[j] + `at` (rows idx < 0 have none),
 * the first 12 bytes as three little-endian words and then the value's offset in `bytes`
 * (./inline-words inlineRecords' records; the broadcast join's row-store lines, src/ops/
 * join-row-store). A value of up to 12 bytes is written as the three words, the bytes past its
 * end overwritten by the next value's (writes move forward); longer ones, those within 12 bytes
 * of the end, and all without `dv` are copied from `bytes`.
 */
export function writeInlineWords(words: Int32Array, stride: number, at: number, bytes: Uint8Array, idx: Int32Array, from: number, to: number, outOffs: Int32Array, out: Uint8Array, dv: DataView | null): void {
  const last = out.length - INLINE_RECORD_BYTES;
  for (let j = from; j < to; j++) {
    const r = idx[j]!;
    if (r < 0) continue;
    const p = outOffs[j]!;
    const len = outOffs[j + 1]! - p;
    const w = stride * r + at;
    if (dv !== null && len <= INLINE_RECORD_BYTES && p <= last) {
      dv.setInt32(p, words[w]!, true);
      dv.setInt32(p + 4, words[w + 1]!, true);
      dv.setInt32(p + 8, words[w + 2]!, true);
    } else {
      const a = words[w + 3]!;
      copyBytes(bytes, a, a + len, out, p);
    }
  }
}

/** Rows of a block whose records gatherInlined reads ahead: loads alone, their misses overlap. */
const RECORDS_AHEAD = 64;

/** XOR of the first word of the records of rows idx[from..to). */
function touchRecords(records: Int32Array, idx: Int32Array, from: number, to: number): number {
  let x = 0;
  for (let j = from; j < to; j++) {
    const r = idx[j]!;
    if (r >= 0) x ^= records[INLINE_RECORD_WORDS * r]!;
  }
  return x;
}

/** Bytes of the values of rows idx[0..n) (none for idx < 0). */
function gatheredBytes(offs: Int32Array | Float64Array, idx: Int32Array, n: number): number {
  let total = 0;
  for (let j = 0; j < n; j++) {
    const r = idx[j]!;
    if (r >= 0) total += offs[r + 1]! - offs[r]!;
  }
  return total;
}

/**
 * The values of rows idx[0..n) end to end into `out`, and their offsets (from 0) into outOffs.
 * Runs of consecutive source rows (common: explode's child indices) are copied as one block.
 */
function copyGathered(offs: Int32Array | Float64Array, bytes: Uint8Array, idx: Int32Array, n: number, out: Uint8Array, outOffs: Int32Array | Float64Array): void {
  outOffs[0] = 0;
  let p = 0;
  let j = 0;
  let touchedTo = 0;
  while (j < n) {
    // Read the first byte of the next rows' values before copying them: their cache misses
    // then overlap instead of one at a time (a random gather of 9-byte strings from 9 MB:
    // 125 -> 50 ns a row, measured). Cheap when rows are consecutive.
    if (j >= touchedTo) {
      touchedTo = Math.min(n, j + TOUCH_AHEAD);
      readAheadSink[0] ^= touchValues(offs, bytes, idx, j, touchedTo);
    }
    const r = idx[j]!;
    if (r < 0) {
      outOffs[++j] = p;
      continue;
    }
    let j2 = j + 1;
    while (j2 < n && idx[j2] === idx[j2 - 1]! + 1) j2++;
    const a = offs[r]!;
    const shift = p - a;
    for (let q = j, s = r + 1; q < j2; q++, s++) outOffs[q + 1] = offs[s]! + shift;
    const b = offs[r + j2 - j]!;
    copyBytes(bytes, a, b, out, p);
    p += b - a;
    j = j2;
  }
}

function gatherList(data: Data, idx: Int32Array, n: number, alloc: Allocator, base: BuildProps): Data {
  const large = data.type.typeId === Type.LargeList;
  const offs = offsetsOf(data);
  let total = 0;
  for (let j = 0; j < n; j++) {
    const r = idx[j];
    if (r >= 0) total += offs[r + 1] - offs[r];
  }
  if (total > MAX_INT32) throw new RangeError(`gatherData: ${total} list elements exceed the int32 index range`);
  const childIdx = new Int32Array(total);
  const outOffs = large ? new Float64Array(n + 1) : (alloc(Int32Array, n + 1) as Int32Array);
  let p = 0;
  for (let j = 0; j < n; j++) {
    const r = idx[j];
    if (r >= 0) for (let e = offs[r], end = offs[r + 1]; e < end; e++) childIdx[p++] = e;
    outOffs[j + 1] = p;
  }
  const child = gatherData(data.children[0], childIdx, total, alloc);
  const valueOffsets = large ? numbersToLargeOffsets(outOffs, n + 1, alloc) : (outOffs as Int32Array);
  return build({ ...base, valueOffsets, child });
}

function gatherFixedSizeList(data: Data, idx: Int32Array, n: number, alloc: Allocator, base: BuildProps): Data {
  const size = (data.type as DataType & { listSize: number }).listSize;
  const total = n * size;
  if (total > MAX_INT32) throw new RangeError(`gatherData: ${total} list elements exceed the int32 index range`);
  const childIdx = new Int32Array(total);
  for (let j = 0, p = 0; j < n; j++) {
    const r = idx[j];
    if (r < 0) for (let k = 0; k < size; k++) childIdx[p++] = -1;
    else for (let k = 0, e = r * size; k < size; k++) childIdx[p++] = e + k;
  }
  return build({ ...base, child: gatherData(data.children[0], childIdx, total, alloc) });
}

// ---------------------------------------------------------------------------------------------
// concat

/**
 * What concatData reads of a chunk: an Arrow Data, or a flat column's buffers viewed in place
 * (columns/shared.ts flatViewOf), which costs no Data construction per chunk.
 */
export type ConcatChunk = Pick<Data, 'type' | 'length' | 'offset' | 'stride' | 'nullCount' | 'nullBitmap' | 'values' | 'valueOffsets' | 'children' | 'dictionary'>;

/** Same-typed chunks (any offsets) as one contiguous Data with offset 0. */
export function concatData(chunks: ConcatChunk[], alloc: Allocator = sharedAlloc): Data {
  if (chunks.length === 0) throw new Error('concatData: no chunks (the type is unknown)');
  const type = chunks[0].type as DataType;
  let n = 0;
  for (const c of chunks) {
    if (c.type.typeId !== type.typeId) throw new Error(`concatData: chunk of type ${String(c.type)} among ${String(type)}`);
    n += c.length;
  }
  if (type.typeId === Type.Null) return build({ type, length: n, nullCount: n });
  const [nullBitmap, nullCount] = concatValidity(chunks, n, alloc);
  const base: BuildProps = { type, length: n, nullCount, nullBitmap };
  const layout = valueLayout(type);
  switch (layout) {
    case 'bool': {
      const out = allocU8(alloc, bitmapBytes(n));
      let p = 0;
      for (const c of chunks) {
        copyBitRange(c.values as Uint8Array, c.offset, out, p, c.length);
        p += c.length;
      }
      return build({ ...base, data: out });
    }
    case 'fixed':
    case 'dictionary': {
      const stride = layout === 'dictionary' ? 1 : chunks[0].stride;
      if (layout === 'dictionary') {
        for (const c of chunks) {
          if (c.dictionary !== chunks[0].dictionary) throw new Error('concatData: dictionary chunks with different dictionaries; decode them first');
        }
      }
      const ctor = (chunks[0].values as TypedArray).constructor as TypedArrayConstructor;
      // the chunks' rows fill it end to end
      const out = alloc(ctor, n * stride, 'overwritten');
      let p = 0;
      for (const c of chunks) {
        const v = c.values as TypedArray;
        (out as Uint8Array).set(v.subarray(0, c.length * stride) as Uint8Array, p * stride);
        p += c.length;
      }
      return build({ ...base, data: out, dictionary: chunks[0].dictionary });
    }
    default:
      break;
  }
  switch (type.typeId) {
    case Type.Utf8:
    case Type.Binary:
    case Type.LargeUtf8:
    case Type.LargeBinary:
    case Type.List:
    case Type.LargeList:
    case Type.Map:
      return concatOffsetted(chunks, n, alloc, base);
    case Type.FixedSizeList: {
      const size = (type as DataType & { listSize: number }).listSize;
      return build({ ...base, child: concatData(chunks.map((c) => c.children[0].slice(0, c.length * size)), alloc) });
    }
    case Type.Struct:
      return build({
        ...base,
        children: chunks[0].children.map((_, k) => concatData(chunks.map((c) => c.children[k].slice(0, c.length)), alloc)),
      });
    default:
      throw new Error(`concatData: unsupported arrow type ${String(type)}`);
  }
}

/** Utf8/Binary (bytes) and List/Map (child rows): offsets rebased to start at 0. */
function concatOffsetted(chunks: ConcatChunk[], n: number, alloc: Allocator, base: BuildProps): Data {
  const id = base.type.typeId;
  const large = id === Type.LargeUtf8 || id === Type.LargeBinary || id === Type.LargeList;
  const isBytes = id === Type.Utf8 || id === Type.Binary || id === Type.LargeUtf8 || id === Type.LargeBinary;
  const offsList = chunks.map(offsetsOf);
  let total = 0;
  for (let c = 0; c < chunks.length; c++) total += offsList[c][chunks[c].length] - offsList[c][0];
  if (!large && total > MAX_INT32) throw new RangeError(`concatData: ${total} exceeds the int32 offsets of ${String(base.type)}`);
  // Offsets and bytes are written end to end below (offset 0 here).
  const outOffs = large ? new Float64Array(n + 1) : (alloc(Int32Array, n + 1, 'overwritten') as Int32Array);
  outOffs[0] = 0;
  const bytes = isBytes ? (alloc(Uint8Array, total, 'overwritten') as Uint8Array) : null;
  const pieces: ConcatChunk[] = [];
  let row = 0;
  let pos = 0;
  for (let c = 0; c < chunks.length; c++) {
    const chunk = chunks[c];
    const offs = offsList[c];
    const len = chunk.length;
    const first = offs[0];
    shiftedCopy(offs, 1, len + 1, pos - first, outOffs, row);
    const used = offs[len] - first;
    if (bytes) {
      if (used > 0) bytes.set((chunk.values as Uint8Array).subarray(first, first + used), pos);
    } else pieces.push(chunk.children[0].slice(first, used));
    row += len;
    pos += used;
  }
  const valueOffsets = large ? numbersToLargeOffsets(outOffs, n + 1, alloc) : (outOffs as Int32Array);
  if (bytes) return build({ ...base, data: bytes, valueOffsets });
  return build({ ...base, valueOffsets, child: concatData(pieces, alloc) });
}

function concatValidity(chunks: ConcatChunk[], n: number, alloc: Allocator): [Uint8Array | undefined, number] {
  let nulls = 0;
  for (const c of chunks) if (nullsOf(c)) nulls += c.nullCount;
  if (nulls === 0) return [undefined, 0];
  const out = allocU8(alloc, bitmapBytes(n));
  let p = 0;
  for (const c of chunks) {
    const bm = nullsOf(c);
    if (bm) copyBitRange(bm, c.offset, out, p, c.length);
    else setBitRange(out, p, c.length);
    p += c.length;
  }
  return [out, nulls];
}

