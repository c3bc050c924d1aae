/**
 * The generic group table's compact key store: each group's hash and key as a few 32-bit words
 * side by side (DuckDB keeps its group keys in the hash table's row layout the same way), so
 * a row that finds its group compares against one line of the store, not against the group's
 * first row scattered over every key column (a hash, a first row, then each column's value,
 * and a string's offsets and bytes: five or six cache misses a row for distinct() of an int64,
 * an int64 and a utf8 column).
 *
 * Words of a key, in column order: a nullable column's valid flag (its value words 0 when
 * NULL); int64-like: low, high; ints of at most 32 bits, bool, date32: the value's 32 bits;
 * floats: the float64 bits with -0 made +0 and every NaN one NaN (so equal words are exactly
 * group-ids' equality); decimal128: four words; utf8/binary: the byte length and the first
 * INLINE_BYTES bytes (zero past the end), longer values' rest compared through the group's
 * first row; a NULL-typed column: none. Equal keys therefore always have equal words, and
 * unequal keys have unequal words unless a value is longer than INLINE_BYTES.
 *
 * Rows' words are written block by block (column by column: one typed loop each) into a small
 * buffer; the store holds `capacity` groups (entries and block take 4 bytes a row of the
 * grouping each, at most), and later groups are compared through their first rows as before.
 * Writing the words costs ~16 ns a row, so a build moves to the store only past thousands of
 * groups (src/worker/group-ids storeFromGroups, with its measurements). Measured (one thread,
 * 312,500 rows of int64, int64, utf8 of up to 8 bytes, hashes given): 31,250 groups 95 -> 73 ns
 * a row; distinct() of 10M such rows, 2 threads: group-by CPU 1.06-1.19 -> 0.85-0.90 s a run.
 */
import { inlineWord } from '../columns/inline-words.js';
import type { Allocator, KeyColumn } from '../types/keys.js';
import { keyClass, KeyClass, words64 } from '../shuffle/hash.js';

/** Bytes of a string or binary key kept in the store (two words: wordsBytes writes them). */
export const INLINE_BYTES = 8;
/** Most words a group's entry may take (hash included); wider keys use no store. */
const MAX_WORDS = 16;
/** Most rows whose words are written at a time. */
const STORE_BLOCK_ROWS = 256;

const K_I64 = 0;
const K_INT = 1;
const K_FLOAT = 2;
const K_DEC = 3;
const K_BYTES = 4;

interface StoreColumn {
  kind: number;
  /** First word of this column in an entry (after the valid flag when nullable). */
  at: number;
  valid: Uint8Array | null;
  w: Uint32Array;
  num: ArrayLike<number>;
  offs: Int32Array;
  bytes: Uint8Array;
}

export interface KeyStore {
  /** Words per entry: the hash, then the key's words. */
  width: number;
  /** Groups the store holds (0..capacity-1). */
  capacity: number;
  entries: Uint32Array;
  /** Rows whose words are written at a time (at most STORE_BLOCK_ROWS). */
  blockRows: number;
  /** Words of rows from..from+blockRows-1, row-major (`width` a row, word 0 unused). */
  rows: Uint32Array;
  columns: StoreColumn[];
  /** String or binary columns: a value longer than INLINE_BYTES needs its rest compared. */
  long: StoreColumn[];
}

const EMPTY_U32 = new Uint32Array(0);
const EMPTY_U8 = new Uint8Array(0);
const EMPTY_I32 = new Int32Array(0);

/**
 * The layout of a store for grouping `n` rows of `columns`, or null when a key is too wide for
 * one; its memory comes with allocateStore, when a build moves to it.
 */
export function keyStoreOf(columns: KeyColumn[], n: number): KeyStore | null {
  const out: StoreColumn[] = [];
  let width = 1;
  for (const c of columns) {
    const cls = keyClass(c.type);
    if (cls === KeyClass.Null) continue;
    const valid = c.valid;
    if (valid !== null) width++;
    const v = c.values;
    const col: StoreColumn = { kind: K_INT, at: width, valid, w: EMPTY_U32, num: EMPTY_U32, offs: EMPTY_I32, bytes: EMPTY_U8 };
    if (cls === KeyClass.Utf8 || cls === KeyClass.Binary) {
      col.kind = K_BYTES;
      col.offs = c.offsets!;
      col.bytes = v as Uint8Array;
      width += 1 + INLINE_BYTES / 4;
    } else if (cls === KeyClass.Decimal) {
      col.kind = K_DEC;
      col.w = v as Uint32Array;
      width += 4;
    } else if (v instanceof BigInt64Array || v instanceof BigUint64Array) {
      col.kind = K_I64;
      col.w = words64(v);
      width += 2;
    } else if (cls === KeyClass.Float) {
      col.kind = K_FLOAT;
      col.num = v as ArrayLike<number>;
      width += 2;
    } else {
      col.num = v as ArrayLike<number>;
      width += 1;
    }
    out.push(col);
  }
  // Fewer rows than words: too few for a store of 4 bytes a row.
  if (width > MAX_WORDS || n < width) return null;
  // At most 4 bytes a row each for the entries and the block (GROUP_IDS_BYTES_PER_ROW counts them).
  const capacity = Math.floor(n / width);
  const blockRows = Math.min(STORE_BLOCK_ROWS, capacity);
  return {
    width,
    capacity,
    blockRows,
    entries: EMPTY_U32,
    rows: EMPTY_U32,
    columns: out,
    long: out.filter((c) => c.kind === K_BYTES),
  };
}

/** Takes the store's entries and block of row words from `alloc`. */
export function allocateStore(store: KeyStore, alloc: Allocator): void {
  store.entries = alloc(Uint32Array, store.capacity * store.width, 'overwritten');
  store.rows = alloc(Uint32Array, store.blockRows * store.width, 'overwritten');
}

/**
 * Writes the words of rows from..to-1 (at most blockRows) into store.rows; returns whether a
 * string or binary value among them is longer than INLINE_BYTES (then storeLongEqual decides).
 */
export function storeRowWords(store: KeyStore, from: number, to: number): boolean {
  const { rows, width } = store;
  let long = false;
  for (const c of store.columns) {
    switch (c.kind) {
      case K_I64:
        wordsI64(c.w, from, to, rows, width, c.at);
        break;
      case K_INT:
        wordsInt(c.num, from, to, rows, width, c.at);
        break;
      case K_FLOAT:
        wordsFloat(c.num, from, to, rows, width, c.at);
        break;
      case K_DEC:
        wordsDec(c.w, from, to, rows, width, c.at);
        break;
      default:
        if (wordsBytes(c.offs, c.bytes, from, to, rows, width, c.at) > INLINE_BYTES) long = true;
    }
    if (c.valid !== null) validWords(c.valid, from, to, rows, width, c.at, c.kind === K_INT ? 1 : c.kind === K_BYTES ? 1 + INLINE_BYTES / 4 : c.kind === K_DEC ? 4 : 2);
  }
  return long;
}

function wordsI64(w: Uint32Array, from: number, to: number, rows: Uint32Array, width: number, at: number): void {
  for (let i = from, r = at; i < to; i++, r += width) {
    rows[r] = w[2 * i]!;
    rows[r + 1] = w[2 * i + 1]!;
  }
}

function wordsInt(num: ArrayLike<number>, from: number, to: number, rows: Uint32Array, width: number, at: number): void {
  for (let i = from, r = at; i < to; i++, r += width) rows[r] = num[i]! | 0;
}

const F64 = new Float64Array(1);
const F64_WORDS = new Uint32Array(F64.buffer);

function wordsFloat(num: ArrayLike<number>, from: number, to: number, rows: Uint32Array, width: number, at: number): void {
  for (let i = from, r = at; i < to; i++, r += width) {
    const x = num[i]!;
    // -0 as +0, and one NaN for every NaN: the words equal exactly when the values group together.
    F64[0] = x === 0 ? 0 : x !== x ? NaN : x;
    rows[r] = F64_WORDS[0]!;
    rows[r + 1] = F64_WORDS[1]!;
  }
}

function wordsDec(w: Uint32Array, from: number, to: number, rows: Uint32Array, width: number, at: number): void {
  for (let i = from, r = at; i < to; i++, r += width) {
    rows[r] = w[4 * i]!;
    rows[r + 1] = w[4 * i + 1]!;
    rows[r + 2] = w[4 * i + 2]!;
    rows[r + 3] = w[4 * i + 3]!;
  }
}

/** Returns the longest value's length. */
function wordsBytes(offs: Int32Array, bytes: Uint8Array, from: number, to: number, rows: Uint32Array, width: number, at: number): number {
  let longest = 0;
  for (let i = from, r = at; i < to; i++, r += width) {
    const s = offs[i]!;
    const end = offs[i + 1]!;
    const len = end - s;
    rows[r] = len;
    if (len > longest) longest = len;
    rows[r + 1] = inlineWord(bytes, s, end);
    rows[r + 2] = inlineWord(bytes, s + 4, end);
  }
  return longest;
}

/** The valid flag before a nullable column's words, and its value words zeroed on NULL rows. */
function validWords(valid: Uint8Array, from: number, to: number, rows: Uint32Array, width: number, at: number, words: number): void {
  for (let i = from, r = at; i < to; i++, r += width) {
    const v = valid[i]!;
    rows[r - 1] = v;
    if (v === 0) for (let k = 0; k < words; k++) rows[r + k] = 0;
  }
}

/** Group g's entry (g < capacity) is row `row`'s words of the current block (row - from) with hash h. */
export function storeEntry(store: KeyStore, g: number, h: number, blockRow: number): void {
  const { entries, rows, width } = store;
  const e = g * width;
  const r = blockRow * width;
  entries[e] = h;
  for (let k = 1; k < width; k++) entries[e + k] = rows[r + k]!;
}

/** Rows a and b, whose store words are equal, have equal bytes past INLINE_BYTES in every string or binary column. */
export function storeLongEqual(store: KeyStore, a: number, b: number): boolean {
  const long = store.long;
  for (let c = 0; c < long.length; c++) {
    const { offs, bytes, valid } = long[c]!;
    // A NULL's bytes (Arrow lets them be any) are not its key: its words already matched.
    if (valid !== null && valid[a] === 0) continue;
    const as = offs[a]!;
    const len = offs[a + 1]! - as;
    if (len <= INLINE_BYTES) continue;
    const bs = offs[b]!;
    for (let k = INLINE_BYTES; k < len; k++) if (bytes[as + k] !== bytes[bs + k]) return false;
  }
  return true;
}
