/**
 * Columns built from runs of rows (explode's outputs), without a per-output-row index gather.
 *
 * `RowRuns` says where each input row r goes: output rows outStart[r] .. outStart[r+1]-1 (a
 * prefix sum; length = outStart[n]), of which the first len[r] carry elements (the rest, at
 * most one row here, is an all-NULL row).
 *
 * repeatRows(data, runs): output rows of r are copies of row r of `data` (explode's parent
 *   columns): fixed-width words written in a short loop per row, strings/binary copied once per
 *   output row, validity and bool bits set a range per row.
 * copyRanges(data, runs, starts): output row outStart[r] + e is row starts[r] + e of `data` for
 *   e < len[r], the rest of r's rows NULL (explode's element columns, `data` being the list's
 *   child). Consecutive rows whose ranges touch form one run: fixed-width values and string
 *   bytes move as one block copy per run, string offsets are rebased by one shift per run, and
 *   validity bits are copied a byte at a time. When the runs read one range of strings end to
 *   end (an exploded list's elements), the output's bytes are a view of `data`'s: no copy.
 * Other types (nested, null) fall back to an index gather (src/columns/gather).
 *
 * Outputs follow gather's invariants: offset 0, exact nullCount, a bitmap only with NULLs,
 * every buffer from `alloc` (zero-filled) but those shared bytes. Complexity O(n + output rows + bytes) per column.
 */
import { Type, type Data, type DataType } from 'apache-arrow';
import { childIndices, parentIndices } from '../ops/explode.js';
import type { TypedArray, TypedArrayConstructor } from '../types/keys.js';
import { shiftedCopy } from './array-loops.js';
import { countSet, copyBitRange, setBitRange } from './bits.js';
import {
  bitmapBytes,
  build,
  copyBytes,
  gatherData,
  nullsOf,
  numbersToLargeOffsets,
  offsetsOf,
  wordView,
  valueLayout,
  type Allocator,
  type BuildProps,
} from './gather.js';

const MAX_INT32 = 0x7fffffff;

export interface RowRuns {
  /** Input rows. */
  n: number;
  /** Output rows (outStart[n]). */
  length: number;
  /** First output row of each input row (n+1 entries). */
  outStart: Int32Array;
  /** Rows of each input row that carry values (copyRanges); the rest of its rows are NULL. */
  len: Int32Array;
  /** Sum of len. */
  elements: number;
}

/** What repeatRows reads of the runs: each input row's output rows. */
export type RowRepeats = Pick<RowRuns, 'n' | 'length' | 'outStart'>;

type Temp = (length: number) => Int32Array;
const plainTemp: Temp = (length) => new Int32Array(length);

// ---------------------------------------------------------------------------------------------
// repeat

/** Each row r of `data` repeated outStart[r+1] - outStart[r] times. */
export function repeatRows(data: Data, runs: RowRepeats, alloc: Allocator, temp: Temp = plainTemp): Data {
  const type = data.type as DataType;
  const count = runs.length;
  switch (valueLayout(type)) {
    case 'fixed':
      return build({ ...repeatValidity(data, runs, alloc), data: repeatFixed(data.values as TypedArray, data.stride, runs, alloc) });
    case 'dictionary':
      return build({ ...repeatValidity(data, runs, alloc), data: repeatFixed(data.values as TypedArray, 1, runs, alloc), dictionary: data.dictionary });
    case 'bool':
      return build({ ...repeatValidity(data, runs, alloc), data: repeatBits(data.values as Uint8Array, data.offset, runs, alloc) });
    case 'varbinary':
      return repeatVarBinary(data, runs, alloc, repeatValidity(data, runs, alloc));
    default:
      return gatherData(data, parentIndices(runs, temp(count)), count, alloc);
  }
}

function repeatValidity(data: Data, runs: RowRepeats, alloc: Allocator): BuildProps {
  const { n, outStart } = runs;
  const base: BuildProps = { type: data.type as DataType, length: runs.length, nullCount: 0 };
  const bm = nullsOf(data);
  if (!bm) return base;
  const off = data.offset;
  let nulls = 0;
  for (let r = 0; r < n; r++) {
    const b = off + r;
    if (((bm[b >>> 3] >>> (b & 7)) & 1) === 0) nulls += outStart[r + 1] - outStart[r];
  }
  if (nulls === 0) return base;
  const out = alloc(Uint8Array, bitmapBytes(runs.length)) as Uint8Array;
  for (let r = 0; r < n; r++) {
    const b = off + r;
    if ((bm[b >>> 3] >>> (b & 7)) & 1) setBitRange(out, outStart[r], outStart[r + 1] - outStart[r]);
  }
  return { ...base, nullCount: nulls, nullBitmap: out };
}

function repeatBits(bits: Uint8Array, off: number, runs: RowRepeats, alloc: Allocator): Uint8Array {
  const { n, outStart } = runs;
  const out = alloc(Uint8Array, bitmapBytes(runs.length)) as Uint8Array;
  for (let r = 0; r < n; r++) {
    const b = off + r;
    if ((bits[b >>> 3] >>> (b & 7)) & 1) setBitRange(out, outStart[r], outStart[r + 1] - outStart[r]);
  }
  return out;
}

function repeatFixed(values: TypedArray, stride: number, runs: RowRepeats, alloc: Allocator): TypedArray {
  const ctor = values.constructor as TypedArrayConstructor;
  const rowBytes = stride * ctor.BYTES_PER_ELEMENT;
  // Every output row is some input row's copy: nothing to clear first.
  const out = alloc(ctor, runs.length * stride, 'overwritten');
  if (runs.length === 0 || rowBytes === 0) return out;
  const { n, outStart } = runs;
  const src = wordView(values, rowBytes);
  const dst = wordView(out, rowBytes);
  const w = rowBytes / src.BYTES_PER_ELEMENT;
  if (w === 1) {
    for (let r = 0; r < n; r++) {
      const v = src[r];
      for (let q = outStart[r], end = outStart[r + 1]; q < end; q++) dst[q] = v;
    }
  } else if (w === 2) {
    for (let r = 0; r < n; r++) {
      const lo = src[2 * r];
      const hi = src[2 * r + 1];
      for (let q = outStart[r], end = outStart[r + 1]; q < end; q++) {
        dst[2 * q] = lo;
        dst[2 * q + 1] = hi;
      }
    }
  } else {
    for (let r = 0; r < n; r++) {
      for (let q = outStart[r], end = outStart[r + 1]; q < end; q++) {
        for (let k = 0, s = r * w, d = q * w; k < w; k++) dst[d + k] = src[s + k];
      }
    }
  }
  return out;
}

function isLarge(type: DataType): boolean {
  return type.typeId === Type.LargeUtf8 || type.typeId === Type.LargeBinary;
}

/**
 * The staging buffer of repeatVarBinary, one per thread (plain memory, reused by every call; 16
 * bytes of slack past STAGE_BYTES take a short value's last word).
 */
const STAGE_BYTES = 1 << 16;
const STAGE = new ArrayBuffer(STAGE_BYTES + 16);
const STAGE_WORDS = new DataView(STAGE);
const STAGE_BYTES_VIEW = new Uint8Array(STAGE);

function repeatVarBinary(data: Data, runs: RowRepeats, alloc: Allocator, base: BuildProps): Data {
  const large = isLarge(data.type as DataType);
  const { n, outStart } = runs;
  const offs = offsetsOf(data);
  const bytes = data.values as Uint8Array;
  let total = 0;
  for (let r = 0; r < n; r++) total += (offs[r + 1] - offs[r]) * (outStart[r + 1] - outStart[r]);
  if (!large && total > MAX_INT32) throw new RangeError(`repeatRows: ${total} bytes exceed the int32 offsets of ${String(data.type)}`);
  // Every byte and offset is written below: nothing to clear first.
  const out = alloc(Uint8Array, total, 'overwritten') as Uint8Array;
  const outOffs = large ? new Float64Array(runs.length + 1) : (alloc(Int32Array, runs.length + 1, 'overwritten') as Int32Array);
  outOffs[0] = 0;
  // Copies are made in a plain staging buffer and moved to `out` a block at a time: a DataView
  // over shared or resizable memory (where outputs live) is ~8x slower than over a plain
  // ArrayBuffer in Node 20. Short values (most repeated labels) are written as four 32-bit words
  // per copy: the bytes past a value's end are overwritten by the next value (writes move
  // forward) or never moved out, so no byte loop is needed for them.
  const src = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const srcEnd = bytes.byteLength - 16;
  let p = 0; // bytes moved to `out`
  let sp = 0; // bytes in the stage
  const flush = (): void => {
    out.set(STAGE_BYTES_VIEW.subarray(0, sp), p);
    p += sp;
    sp = 0;
  };
  for (let r = 0; r < n; r++) {
    const a = offs[r];
    const b = offs[r + 1];
    const len = b - a;
    const q0 = outStart[r];
    const q1 = outStart[r + 1];
    if (len <= 16 && a <= srcEnd) {
      const w0 = src.getInt32(a, true);
      const w1 = src.getInt32(a + 4, true);
      const w2 = src.getInt32(a + 8, true);
      const w3 = src.getInt32(a + 12, true);
      for (let q = q0; q < q1; q++) {
        if (sp > STAGE_BYTES - 16) flush();
        STAGE_WORDS.setInt32(sp, w0, true);
        STAGE_WORDS.setInt32(sp + 4, w1, true);
        STAGE_WORDS.setInt32(sp + 8, w2, true);
        STAGE_WORDS.setInt32(sp + 12, w3, true);
        sp += len;
        outOffs[q + 1] = p + sp;
      }
      continue;
    }
    for (let q = q0; q < q1; q++) {
      if (len > STAGE_BYTES - sp) flush();
      if (len > STAGE_BYTES) {
        copyBytes(bytes, a, b, out, p);
        p += len;
      } else {
        copyBytes(bytes, a, b, STAGE_BYTES_VIEW, sp);
        sp += len;
      }
      outOffs[q + 1] = p + sp;
    }
  }
  flush();
  const valueOffsets = large ? numbersToLargeOffsets(outOffs, runs.length + 1, alloc) : (outOffs as Int32Array);
  return build({ ...base, data: out, valueOffsets });
}

// ---------------------------------------------------------------------------------------------
// ranges

/**
 * The maximal runs, as triples in `at` (from 0 to 3 * count): rows s .. s+e-1 of the data go to
 * output rows d .. d+e-1 (consecutive input rows whose ranges touch in both), in output order.
 * Found once per column and read by each of its loops (validity, values).
 */
interface RunList {
  at: Int32Array;
  count: number;
}

/** Child positions and output rows are below 2^31 (explode checks): triples fit int32. */
function runListOf(runs: RowRuns, starts: Int32Array | Float64Array, temp: Temp): RunList {
  const { n, outStart, len } = runs;
  // At most one run a row: 3 words each, from the caller's temporaries (a worker's scratch).
  const at = temp(3 * n);
  let count = 0;
  let r = 0;
  while (r < n) {
    const first = len[r]!;
    if (first === 0) {
      r++;
      continue;
    }
    const s = starts[r]!;
    const d = outStart[r]!;
    let e = first;
    r++;
    for (;;) {
      // rows with no output rows at all (ignored NULL/empty lists) do not break a run
      while (r < n && len[r] === 0 && outStart[r + 1] === outStart[r]) r++;
      if (r >= n || len[r] === 0 || starts[r] !== s + e || outStart[r] !== d + e) break;
      e += len[r]!;
      r++;
    }
    at[3 * count] = s;
    at[3 * count + 1] = d;
    at[3 * count + 2] = e;
    count++;
  }
  return { at, count };
}

/** Output row outStart[r] + e = row starts[r] + e of `data` (e < len[r]); r's other rows NULL. */
export function copyRanges(data: Data, runs: RowRuns, starts: Int32Array | Float64Array, alloc: Allocator, temp: Temp = plainTemp): Data {
  const type = data.type as DataType;
  const count = runs.length;
  const layout = valueLayout(type);
  if (layout !== 'fixed' && layout !== 'dictionary' && layout !== 'bool' && layout !== 'varbinary') {
    return gatherData(data, childIndices(runs, starts, temp(count)), count, alloc);
  }
  const list = runListOf(runs, starts, temp);
  const validity = rangesValidity(data, runs, list, alloc);
  switch (layout) {
    case 'fixed':
      return build({ ...validity, data: rangesFixed(data.values as TypedArray, data.stride, count, list, alloc) });
    case 'dictionary':
      return build({ ...validity, data: rangesFixed(data.values as TypedArray, 1, count, list, alloc), dictionary: data.dictionary });
    case 'bool':
      return build({ ...validity, data: rangesBits(data.values as Uint8Array, data.offset, count, list, alloc) });
    case 'varbinary':
      return rangesVarBinary(data, count, list, alloc, validity);
  }
}

function rangesValidity(data: Data, runs: RowRuns, list: RunList, alloc: Allocator): BuildProps {
  const count = runs.length;
  const base: BuildProps = { type: data.type as DataType, length: count, nullCount: 0 };
  const bm = nullsOf(data);
  const nullRows = count - runs.elements;
  if (!bm && nullRows === 0) return base;
  const out = alloc(Uint8Array, bitmapBytes(count)) as Uint8Array;
  let valid = 0;
  const off = data.offset;
  const { at } = list;
  for (let k = 0; k < 3 * list.count; k += 3) {
    const s = at[k]!;
    const d = at[k + 1]!;
    const e = at[k + 2]!;
    if (bm) {
      copyBitRange(bm, off + s, out, d, e);
      valid += countSet(bm, off + s, e);
    } else {
      setBitRange(out, d, e);
      valid += e;
    }
  }
  if (valid === count) return base;
  return { ...base, nullCount: count - valid, nullBitmap: out };
}

function rangesBits(bits: Uint8Array, off: number, count: number, list: RunList, alloc: Allocator): Uint8Array {
  const out = alloc(Uint8Array, bitmapBytes(count)) as Uint8Array;
  const { at } = list;
  for (let k = 0; k < 3 * list.count; k += 3) copyBitRange(bits, off + at[k]!, out, at[k + 1]!, at[k + 2]!);
  return out;
}

function rangesFixed(values: TypedArray, stride: number, count: number, list: RunList, alloc: Allocator): TypedArray {
  const ctor = values.constructor as TypedArrayConstructor;
  const rowBytes = stride * ctor.BYTES_PER_ELEMENT;
  const out = alloc(ctor, count * stride);
  if (count === 0 || rowBytes === 0) return out;
  const src = wordView(values, rowBytes);
  const dst = wordView(out, rowBytes);
  const w = rowBytes / src.BYTES_PER_ELEMENT;
  const { at } = list;
  for (let k = 0; k < 3 * list.count; k += 3) {
    const a = at[k]! * w;
    const b = a + at[k + 2]! * w;
    // a view per run for long runs (memcpy), a loop for short ones
    if (b - a > 16) dst.set(src.subarray(a, b), at[k + 1]! * w);
    else for (let i = a, p = at[k + 1]! * w; i < b; i++) dst[p++] = src[i]!;
  }
  return out;
}

/** When the runs read one range end to end (each starts where the one before ended): the position past it; else -1. */
function contiguousEnd(list: RunList): number {
  const { at } = list;
  for (let k = 3; k < 3 * list.count; k += 3) if (at[k] !== at[k - 3]! + at[k - 1]!) return -1;
  return list.count === 0 ? -1 : at[3 * list.count - 3]! + at[3 * list.count - 1]!;
}

function rangesVarBinary(data: Data, count: number, list: RunList, alloc: Allocator, base: BuildProps): Data {
  const large = isLarge(data.type as DataType);
  const offs = offsetsOf(data);
  const bytes = data.values as Uint8Array;
  const { at } = list;
  // Runs that read the values end to end (an exploded list's elements, in order) share them:
  // the output's bytes are a view of the input's, only the offsets are new.
  const end = contiguousEnd(list);
  let total = 0;
  if (end >= 0) total = offs[end]! - offs[at[0]!]!;
  else for (let k = 0; k < 3 * list.count; k += 3) total += offs[at[k]! + at[k + 2]!]! - offs[at[k]!]!;
  if (!large && total > MAX_INT32) throw new RangeError(`copyRanges: ${total} bytes exceed the int32 offsets of ${String(data.type)}`);
  const shared = end >= 0 ? bytes.subarray(offs[at[0]!]!, offs[at[0]!]! + total) : null;
  const out = shared ?? (alloc(Uint8Array, total, 'overwritten') as Uint8Array);
  const outOffs = large ? new Float64Array(count + 1) : (alloc(Int32Array, count + 1, 'overwritten') as Int32Array);
  outOffs[0] = 0;
  // Runs in output order; output rows between runs (NULL rows) hold empty values.
  let p = 0;
  let q = 0;
  for (let k = 0; k < 3 * list.count; k += 3) {
    const s = at[k]!;
    const d = at[k + 1]!;
    const e = at[k + 2]!;
    for (; q < d; q++) outOffs[q + 1] = p;
    const a = offs[s]!;
    shiftedCopy(offs, s + 1, s + e + 1, p - a, outOffs, d - s);
    const b = offs[s + e]!;
    if (shared === null) copyBytes(bytes, a, b, out, p);
    p += b - a;
    q = d + e;
  }
  for (; q < count; q++) outOffs[q + 1] = p;
  const valueOffsets = large ? numbersToLargeOffsets(outOffs, count + 1, alloc) : (outOffs as Int32Array);
  return build({ ...base, data: out, valueOffsets });
}
