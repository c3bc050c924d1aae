/**
 * The broadcast join's right payload as rows indexed by key, for one int key whose right values
 * are unique and dense (DuckDB's perfect hash join keeps its payload beside the key the same way).
 *
 * A direct table (src/worker/join-table) finds a left key's right row at slot key - min; the
 * payload is then gathered column by column by that row: for an int64 and a short string, three
 * more random reads a row (the value, the string's length, its inline record), each a cache
 * miss in a 1M-row right side. When every key has at most one right row, the payload can sit
 * where the key leads, and no table is needed: line `key - min` of a row store holds the right
 * row's id and each payload column's words (a fixed value's 1 or 2 words; a string's first 12
 * bytes as three words and its offset), and small byte tables say which keys have a row
 * (`hit`) and each string's length (`lens`), which the caches keep. A probe then reads one line
 * a matched row. Measured (one thread, 512k probes of a 1.1M span, an int64 and a 9-byte string
 * payload): 26-29 -> 17-20 ns a row for the probe and the payload's gathers; the store is
 * filled by every thread at once (a range of right rows each), where the table was built by one.
 *
 * Line layout: word 0 the right row id, then each payload column's words at `at`. Fixed-width
 * values are copied as their own bits (8 bytes as two 32-bit words; 4, 2 and 1 as one word),
 * so floats keep every NaN payload. Strings: three little-endian words of the first 12 bytes
 * (zero past the end) and the value's offset, an inline record's layout (../columns/
 * inline-words), which ../columns/gather writeInlineWords writes out for both; a length byte of
 * 255 means "255 or more: read the offsets". Validity is not in the line: the caller gathers
 * the bitmaps by right row id.
 */
import { type Data, type DataType, Type } from 'apache-arrow';
import type { TypedArray } from '../types/keys.js';
import { wordView } from '../columns/gather.js';
import { INLINE_LONG, inlineWord } from '../columns/inline-words.js';
import type { IntValues } from './dense-int-keys.js';
import { valueAt } from './dense-int-keys.js';

/** A payload column in a line. */
export interface RowStoreColumn {
  /** 'bytes': utf8 or binary with int32 offsets. */
  kind: 'fixed' | 'bytes';
  /** First word of the column in a line. */
  at: number;
  /** fixed: bytes a value (1, 2, 4 or 8). */
  width: number;
  /** bytes: which length table (`lens`) is this column's. */
  lens: number;
}

export interface RowStoreLayout {
  /** Words a line. */
  words: number;
  columns: RowStoreColumn[];
  /** How many string columns (length tables). */
  strings: number;
}

/** A length byte for a value of 255 bytes or more: its length is read from the offsets (an inline record's, ../columns/inline-words). */
const LONG = INLINE_LONG;

/** The layout for these payload columns, or null when one cannot be stored (then the join gathers as usual). */
export function rowStoreLayout(columns: Data[]): RowStoreLayout | null {
  let words = 1;
  let strings = 0;
  const out: RowStoreColumn[] = [];
  for (const c of columns) {
    const t = c.type as DataType;
    if ((t.typeId === Type.Utf8 || t.typeId === Type.Binary) && c.valueOffsets instanceof Int32Array) {
      out.push({ kind: 'bytes', at: words, width: 0, lens: strings++ });
      words += 4;
      continue;
    }
    const width = fixedWidth(c);
    if (width === 0) return null;
    out.push({ kind: 'fixed', at: words, width, lens: -1 });
    words += width === 8 ? 2 : 1;
  }
  return { words, columns: out, strings };
}

/** Bytes a value of a fixed-width column of one element a row (ints, floats, dates, times, timestamps, durations), or 0. */
function fixedWidth(c: Data): number {
  switch ((c.type as DataType).typeId) {
    case Type.Int:
    case Type.Float:
    case Type.Date:
    case Type.Time:
    case Type.Timestamp:
    case Type.Duration:
      break;
    default:
      return 0;
  }
  if (c.stride !== 1) return 0;
  const v = c.values as TypedArray;
  const bytes = v.BYTES_PER_ELEMENT;
  // Read as words of min(bytes, 4) (../columns/gather wordView), which an offset must allow.
  return (bytes === 1 || bytes === 2 || bytes === 4 || bytes === 8) && v.byteOffset % Math.min(bytes, 4) === 0 ? bytes : 0;
}

/** Bytes of a store over `span` keys: the lines, `hit`, and a length table a string column. */
export function rowStoreBytes(layout: RowStoreLayout, span: number): number {
  return 4 * layout.words * span + span * (1 + layout.strings);
}

/**
 * Writes right rows from..to-1 whose keys (`key`, `valid`) lie within [min, min + span) into
 * the store: each key's `hit` byte (cleared before by the caller), its line and its length
 * bytes, a column at a time in right order (the columns read front to back, the lines written
 * at random). Threads may fill disjoint row ranges of one store at once; a key of two rows
 * leaves fewer hit bytes set than rows (the caller counts them: storedKeys).
 */
export function fillRowStore(layout: RowStoreLayout, payload: Data[], key: IntValues, valid: Uint8Array | null, min: number, from: number, to: number, lines: Int32Array, hit: Uint8Array, lens: Uint8Array[]): void {
  const W = layout.words;
  placeIds(lines, W, key, valid, min, from, to, hit);
  layout.columns.forEach((col, c) => {
    const data = payload[c]!;
    if (col.kind === 'bytes') fillBytes(lines, W, col.at, key, valid, min, from, to, data.values as Uint8Array, data.valueOffsets as Int32Array, lens[col.lens]!);
    else if (col.width === 8) fillWide(lines, W, col.at, key, valid, min, from, to, wordView(data.values as TypedArray, 8) as Int32Array);
    else fillNarrow(lines, W, col.at, key, valid, min, from, to, wordView(data.values as TypedArray, col.width));
  });
}

/** How many keys of the store have a row (its `hit` bytes set). */
export function storedKeys(hit: Uint8Array, span: number): number {
  let n = 0;
  for (let e = 0; e < span; e++) n += hit[e]!;
  return n;
}

// One loop a column kind over typed arrays (see src/ops/group-accumulate).

/** Each row's id in its key's line, and the key's `hit` byte. */
function placeIds(lines: Int32Array, W: number, key: IntValues, valid: Uint8Array | null, min: number, from: number, to: number, hit: Uint8Array): void {
  for (let j = from; j < to; j++) {
    if (valid !== null && valid[j] === 0) continue;
    const e = valueAt(key, j) - min;
    hit[e] = 1;
    lines[W * e] = j;
  }
}

function fillWide(lines: Int32Array, W: number, at: number, key: IntValues, valid: Uint8Array | null, min: number, from: number, to: number, src: Int32Array): void {
  for (let j = from; j < to; j++) {
    if (valid !== null && valid[j] === 0) continue;
    const l = W * (valueAt(key, j) - min) + at;
    lines[l] = src[2 * j]!;
    lines[l + 1] = src[2 * j + 1]!;
  }
}

function fillNarrow(lines: Int32Array, W: number, at: number, key: IntValues, valid: Uint8Array | null, min: number, from: number, to: number, src: Int32Array | Uint16Array | Uint8Array): void {
  for (let j = from; j < to; j++) {
    if (valid !== null && valid[j] === 0) continue;
    lines[W * (valueAt(key, j) - min) + at] = src[j]!;
  }
}

function fillBytes(lines: Int32Array, W: number, at: number, key: IntValues, valid: Uint8Array | null, min: number, from: number, to: number, bytes: Uint8Array, offs: Int32Array, lens: Uint8Array): void {
  for (let j = from; j < to; j++) {
    if (valid !== null && valid[j] === 0) continue;
    const e = valueAt(key, j) - min;
    const l = W * e + at;
    const a = offs[j]!;
    const end = offs[j + 1]!;
    lens[e] = Math.min(end - a, LONG);
    lines[l] = inlineWord(bytes, a, end);
    lines[l + 1] = inlineWord(bytes, a + 4, end);
    lines[l + 2] = inlineWord(bytes, a + 8, end);
    lines[l + 3] = a;
  }
}

/**
 * The probe through `hit`: per output row its left row and its key's line (-1: no right row,
 * a left join's unmatched row). `skip` rows (NULL keys, keys that can equal nothing) match
 * nothing. Returns the output rows; `unmatched[0]` gets how many have no right row.
 */
export function probeRowStore(
  values: IntValues,
  skip: Uint8Array | null,
  valid: Uint8Array | null,
  min: number,
  span: number,
  hit: Uint8Array,
  np: number,
  keepUnmatched: boolean,
  leftRows: Int32Array,
  lineOf: Int32Array,
  unmatched: Int32Array,
): number {
  let k = 0;
  let none = 0;
  for (let i = 0; i < np; i++) {
    // NaN (a value far out) is outside the span, as a NULL or skipped row is.
    const e = (valid !== null && valid[i] === 0) || (skip !== null && skip[i] === 1) ? -1 : valueAt(values, i) - min;
    if (e >= 0 && e < span && hit[e] === 1) {
      leftRows[k] = i;
      lineOf[k++] = e;
    } else if (keepUnmatched) {
      leftRows[k] = i;
      lineOf[k++] = -1;
      none++;
    }
  }
  unmatched[0] = none;
  return k;
}

/** Output offsets of a string column from its length table (the offsets for long values); returns the total. */
export function rowStoreOffsets(lens: Uint8Array, lines: Int32Array, W: number, offs: Int32Array, lineOf: Int32Array, n: number, outOffs: Int32Array): number {
  let p = 0;
  outOffs[0] = 0;
  for (let k = 0; k < n; k++) {
    const e = lineOf[k]!;
    if (e >= 0) {
      const b = lens[e]!;
      if (b === LONG) {
        const j = lines[W * e]!;
        p += offs[j + 1]! - offs[j]!;
      } else p += b;
    }
    outOffs[k + 1] = p;
  }
  return p;
}

/** Rows of a block the lines of which stay in the caches while each column is written. */
export const ROW_STORE_BLOCK = 64;

/** Right row ids of output rows from..to-1 (-1 where none): the block's first read of its lines. */
export function rowStoreIds(lines: Int32Array, W: number, lineOf: Int32Array, from: number, to: number, ids: Int32Array): void {
  for (let k = from; k < to; k++) {
    const e = lineOf[k]!;
    ids[k] = e < 0 ? -1 : lines[W * e]!;
  }
}

/** An 8-byte column's words of output rows from..to-1 (zero where there is no row). */
export function rowStoreWide(lines: Int32Array, W: number, at: number, lineOf: Int32Array, from: number, to: number, dst: Int32Array): void {
  for (let k = from; k < to; k++) {
    const e = lineOf[k]!;
    if (e < 0) {
      dst[2 * k] = 0;
      dst[2 * k + 1] = 0;
    } else {
      const l = W * e + at;
      dst[2 * k] = lines[l]!;
      dst[2 * k + 1] = lines[l + 1]!;
    }
  }
}

/** A 1-, 2- or 4-byte column's values of output rows from..to-1 (zero where there is no row). */
export function rowStoreNarrow(lines: Int32Array, W: number, at: number, lineOf: Int32Array, from: number, to: number, dst: Int32Array | Uint16Array | Uint8Array): void {
  for (let k = from; k < to; k++) {
    const e = lineOf[k]!;
    dst[k] = e < 0 ? 0 : lines[W * e + at]!;
  }
}
