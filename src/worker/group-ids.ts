/**
 * Dense group ids of key rows, in first-appearance order, by open addressing over typed arrays.
 *
 * Steps: hash every row (shuffle/hash with a private seed, or an inline hash on the single-key
 * fast paths); probe a power-of-two table of group ids linearly from hash & mask; on a slot
 * whose stored hash matches, compare the actual values with the group's first row (or the
 * group's stored key: the fast paths' keys, the generic table's ./group-key-store); a miss creates group `groups++`. The table doubles
 * when it is half full (rehash from the stored per-group hashes).
 * Equality: NULL == NULL only when nullsEqual; -0 == +0; NaN == NaN; integers of any width and
 * signedness compare by value (uint64 >= 2^63 never equals a negative int64); values of
 * different hash classes (shuffle/hash keyClass: int, float, date32, timestamp[unit] ...) never
 * compare equal; strings/binary compare bytes.
 * matchGroupIds builds the table on `build` and probes it with `probe`, so build group g and
 * probe rows with the same key get the same id g; probe keys absent from build get -1.
 * Complexity: O(n) expected time, O(n) memory; no allocation per row.
 */
import type { Allocator, KeyColumn } from '../types/keys.js';
import { localAlloc } from '../columns/arena.js';
import { DENSE_MIN_ROWS, denseGroupIds, denseKeySpan, denseMatchIds } from '../ops/dense-int-keys.js';
import { readAheadSink } from '../columns/read-ahead.js';
import { inlinePair, inlineWord } from '../columns/inline-words.js';
import { allocateStore, INLINE_BYTES, keyStoreOf, storeEntry, storeLongEqual, storeRowWords, type KeyStore } from './group-key-store.js';
import type { TypeDesc } from '../types/column.js';
import { FIRST_TABLE_KEYS, hashColumns, keyClass, KeyClass, openTableSlots, words64 } from '../shuffle/hash.js';

export const GROUP_SEED = 0x2f1e7a3b;

const R_NUM = 0; // JS number per row: ints <= 32 bits, bool, date32, float32/64
const R_I64 = 1; // lo/hi words: int64/uint64, date64, timestamp, duration
const R_BYTES = 2; // utf8/binary
const R_NULL = 3; // type null: every row is NULL
const R_DEC = 4; // decimal128: four words per row in w

export interface Acc {
  cls: number;
  repr: number;
  num: ArrayLike<number>;
  w: Uint32Array;
  signed: boolean;
  bytes: Uint8Array;
  offs: Int32Array;
  valid: Uint8Array | null;
}

const EMPTY_U32 = new Uint32Array(0);
const EMPTY_U8 = new Uint8Array(0);
const EMPTY_I32 = new Int32Array(0);
const ONE_WORD = new Uint32Array(1);

/** A key column's values as the equality below reads them. */
export function accessor(c: KeyColumn): Acc {
  const cls = keyClass(c.type);
  const v = c.values;
  const a: Acc = { cls, repr: R_NUM, num: EMPTY_U32, w: EMPTY_U32, signed: true, bytes: EMPTY_U8, offs: EMPTY_I32, valid: c.valid };
  if (cls === KeyClass.Null) a.repr = R_NULL;
  else if (cls === KeyClass.Decimal) {
    a.repr = R_DEC;
    a.w = v as Uint32Array;
  } else if (cls === KeyClass.Utf8 || cls === KeyClass.Binary) {
    a.repr = R_BYTES;
    a.bytes = v as Uint8Array;
    a.offs = c.offsets!;
  } else if (v instanceof BigInt64Array || v instanceof BigUint64Array) {
    a.repr = R_I64;
    a.w = words64(v);
    a.signed = v instanceof BigInt64Array;
  } else {
    a.num = v as ArrayLike<number>;
  }
  return a;
}

/** Values of row a of column A and row b of column B are equal (both non-NULL). */
function valuesEqual(A: Acc, a: number, B: Acc, b: number): boolean {
  if (A.repr === R_NUM) {
    const x = A.num[a]!;
    if (B.repr === R_NUM) {
      const y = B.num[b]!;
      return x === y || (x !== x && y !== y);
    }
    // number (an integer here: same class) vs 64-bit words
    const lo = B.w[2 * b]!;
    const hi = B.w[2 * b + 1]!;
    const neg = B.signed && hi >= 0x80000000;
    return neg === x < 0 && lo === x >>> 0 && hi === (x < 0 ? 0xffffffff : 0);
  }
  if (A.repr === R_I64) {
    if (B.repr === R_NUM) return valuesEqual(B, b, A, a);
    const ahi = A.w[2 * a + 1]!;
    const bhi = B.w[2 * b + 1]!;
    return (
      A.w[2 * a] === B.w[2 * b] && ahi === bhi && (A.signed && ahi >= 0x80000000) === (B.signed && bhi >= 0x80000000)
    );
  }
  if (A.repr === R_DEC) {
    const x = A.w;
    const y = B.w;
    return x[4 * a] === y[4 * b] && x[4 * a + 1] === y[4 * b + 1] && x[4 * a + 2] === y[4 * b + 2] && x[4 * a + 3] === y[4 * b + 3];
  }
  if (A.repr === R_BYTES) {
    const as = A.offs[a]!;
    const len = A.offs[a + 1]! - as;
    const bs = B.offs[b]!;
    if (B.offs[b + 1]! - bs !== len) return false;
    const x = A.bytes;
    const y = B.bytes;
    for (let k = 0; k < len; k++) if (x[as + k] !== y[bs + k]) return false;
    return true;
  }
  return true; // R_NULL: unreachable for non-NULL values
}

/** Rows equal on every column; NULL equals NULL (callers exclude NULL rows when !nullsEqual). */
export function rowsEqual(A: Acc[], a: number, B: Acc[], b: number): boolean {
  for (let c = 0; c < A.length; c++) {
    const x = A[c]!;
    const y = B[c]!;
    const xn = x.repr === R_NULL || (x.valid !== null && x.valid[a] === 0);
    const yn = y.repr === R_NULL || (y.valid !== null && y.valid[b] === 0);
    if (xn || yn) {
      if (xn !== yn) return false;
      continue;
    }
    if (x.cls !== y.cls) return false;
    if (!valuesEqual(x, a, y, b)) return false;
  }
  return true;
}

/** Rows a and b of one column are equal (NULL equals NULL; NaN equals NaN). */
type SameColumnEquals = (a: number, b: number) => boolean;

/**
 * rowsEqual for two rows of the same columns (a table's own rows), with the comparison of each
 * column chosen once: the per-row branches on representation and class of the general
 * rowsEqual (which also compares columns of two sides) cost more than the comparison itself.
 */
export function sameRowsEqual(accs: Acc[]): (a: number, b: number) => boolean {
  const eqs = accs.map(sameColumnEquals);
  // One composition per column count up to four: a loop over the comparisons calls them from one
  // call site that sees every column's function, which V8 cannot inline (distinct on three
  // columns: 10% of its grouping).
  switch (eqs.length) {
    case 1:
      return eqs[0]!;
    case 2: {
      const [e0, e1] = eqs as [SameColumnEquals, SameColumnEquals];
      return (a, b) => e0(a, b) && e1(a, b);
    }
    case 3: {
      const [e0, e1, e2] = eqs as [SameColumnEquals, SameColumnEquals, SameColumnEquals];
      return (a, b) => e0(a, b) && e1(a, b) && e2(a, b);
    }
    case 4: {
      const [e0, e1, e2, e3] = eqs as [SameColumnEquals, SameColumnEquals, SameColumnEquals, SameColumnEquals];
      return (a, b) => e0(a, b) && e1(a, b) && e2(a, b) && e3(a, b);
    }
    default:
      return (a, b) => {
        for (let c = 0; c < eqs.length; c++) if (!eqs[c]!(a, b)) return false;
        return true;
      };
  }
}

function sameColumnEquals(x: Acc): SameColumnEquals {
  const valid = x.valid;
  const values = ((): SameColumnEquals => {
    switch (x.repr) {
      case R_NULL:
        return () => true;
      case R_I64: {
        const w = x.w;
        return (a, b) => w[2 * a] === w[2 * b] && w[2 * a + 1] === w[2 * b + 1];
      }
      case R_DEC: {
        const w = x.w;
        return (a, b) => w[4 * a] === w[4 * b] && w[4 * a + 1] === w[4 * b + 1] && w[4 * a + 2] === w[4 * b + 2] && w[4 * a + 3] === w[4 * b + 3];
      }
      case R_BYTES: {
        const offs = x.offs;
        const bytes = x.bytes;
        return (a, b) => {
          const as = offs[a]!;
          const bs = offs[b]!;
          const len = offs[a + 1]! - as;
          if (offs[b + 1]! - bs !== len) return false;
          for (let k = 0; k < len; k++) if (bytes[as + k] !== bytes[bs + k]) return false;
          return true;
        };
      }
      default: {
        const num = x.num;
        return (a, b) => {
          const p = num[a]!;
          const q = num[b]!;
          return p === q || (p !== p && q !== q);
        };
      }
    }
  })();
  if (valid === null) return values;
  return (a, b) => {
    const va = valid[a]!;
    if (va !== valid[b]) return false;
    return va === 0 || values(a, b);
  };
}

/** 1 for rows with a NULL in any column, or null when no row has one. */
export function nullRows(columns: KeyColumn[], n: number, alloc: Allocator = localAlloc): Uint8Array | null {
  let out: Uint8Array | null = null;
  for (const c of columns) {
    if (c.type.kind === 'null') {
      out ??= alloc(Uint8Array, n);
      out.fill(1, 0, n);
      continue;
    }
    const v = c.valid;
    if (v === null) continue;
    for (let i = 0; i < n; i++) {
      if (v[i] === 0) {
        out ??= alloc(Uint8Array, n);
        out[i] = 1;
      }
    }
  }
  return out;
}

/** Open-addressing table of group ids keyed by the rows of `accs`. */
interface Table {
  /** Where the table's arrays come from (a task's scratch, or the heap). */
  alloc: Allocator;
  accs: Acc[];
  hashes: Uint32Array;
  slots: Int32Array;
  mask: number;
  /** group g: its hash and its first row */
  ghash: Uint32Array;
  first: Uint32Array;
  groups: number;
  /** Groups in the open table (NULL rows' singleton groups are not). */
  inTable: number;
}

function rehash(t: Table): void {
  t.slots = regrowByStoredHash(t.slots, t.ghash, 1, t.alloc);
  t.mask = t.slots.length - 1;
}

/** A table at twice the slots, each group placed again by its stored hash: group g's at hashes[stride * g]. */
function regrowByStoredHash(old: Int32Array, hashes: Uint32Array | Int32Array, stride: number, alloc: Allocator): Int32Array {
  const slots = alloc(Int32Array, old.length * 2, 'overwritten').fill(-1);
  const mask = slots.length - 1;
  for (let s = 0; s < old.length; s++) {
    const g = old[s]!;
    if (g < 0) continue;
    let p = hashes[stride * g]! & mask;
    while (slots[p] !== -1) p = (p + 1) & mask;
    slots[p] = g;
  }
  return slots;
}

/**
 * Build the table over rows 0..n-1. Rows with a NULL key: when nullsEqual they group together;
 * otherwise each gets `nullId` (-1) or, when nullId is 'fresh', a new singleton group.
 */
function build(columns: KeyColumn[], n: number, nullsEqual: boolean, fresh: boolean, ids: Int32Array | Uint32Array, alloc: Allocator = localAlloc, given: Uint32Array | null = null): Table {
  const accs = columns.map(accessor);
  const same = sameRowsEqual(accs);
  const hashes = given ?? hashColumns(columns, n, GROUP_SEED, alloc(Uint32Array, n, 'overwritten'));
  const nulls = nullsEqual ? null : nullRows(columns, n, alloc);
  let slots: Int32Array = alloc(Int32Array, firstTableSlots(n), 'overwritten').fill(-1);
  const t: Table = { alloc, accs, hashes, slots, mask: slots.length - 1, ghash: alloc(Uint32Array, n, 'overwritten'), first: alloc(Uint32Array, n, 'overwritten'), groups: 0, inTable: 0 };
  // The key store speeds up a grouping's build once its groups outgrow the caches (a join's or
  // ASOF's probes compare first rows anyway): the rows before then compare through first rows.
  const store = fresh ? keyStoreOf(columns, n) : null;
  const stopAt = store === null ? n : storeFromGroups(columns.length);
  const { ghash, first } = t;
  let mask = t.mask;
  let readTo = 0;
  const keyWords = accs.map(keyWordsOf);
  let i = 0;
  rows: for (; i < n; i++) {
    if (i >= readTo) {
      readTo = Math.min(n, i + READ_AHEAD);
      readAheadSink[0] ^= readAheadGroups(slots, mask, hashes, ghash, first, keyWords, i, readTo);
    }
    if (nulls !== null && nulls[i] === 1) {
      nullRow(t, i, fresh, ids);
      continue;
    }
    const h = hashes[i]!;
    let p = h & mask;
    for (;;) {
      const g = slots[p]!;
      if (g < 0) {
        addGroup(t, p, h, i, ids);
        slots = t.slots;
        mask = t.mask;
        // Checked where a group is made, not a row.
        if (t.groups >= stopAt) {
          i++;
          break rows;
        }
        break;
      }
      if (ghash[g] === h && same(i, first[g]!)) {
        ids[i] = g;
        break;
      }
      p = (p + 1) & mask;
    }
  }
  if (i < n) {
    allocateStore(store!, alloc);
    storeGroupsSoFar(t, store!, i);
    insertStored(t, store!, i, n, nulls, ids, same);
  }
  return t;
}

/** Row i starts group t.groups in slot p (hash h); the table doubles when half full. */
function addGroup(t: Table, p: number, h: number, i: number, ids: Int32Array | Uint32Array): void {
  const g = t.groups++;
  t.slots[p] = g;
  t.ghash[g] = h;
  t.first[g] = i;
  ids[i] = g;
  if (++t.inTable * 2 > t.slots.length) rehash(t);
}

/** Row i has a NULL key and NULLs are not equal: a group of its own when `fresh`, else -1. */
function nullRow(t: Table, i: number, fresh: boolean, ids: Int32Array | Uint32Array): void {
  if (fresh) {
    t.first[t.groups] = i;
    ids[i] = t.groups++;
  } else ids[i] = -1;
}

/**
 * Groups past which a grouping's build moves to its key store. Below, the groups' first rows
 * stay in the caches and comparing them in place costs less than writing every row's words;
 * the more key columns, the more lines a first-row comparison reads, and the sooner the store
 * pays. Measured (312,500 rows, hashes given, one thread, ns a row in place / with the store):
 * an int64, an int64 and a utf8 key: 1 group 35 / 35 (never moved), 5,000 groups 59 / 54,
 * 31,250 groups 95 / 73; one utf8 key of 5 bytes: 10,000 groups 39 / 43, 30,000 groups
 * 56 / 52, 100,000 groups 93 / 88.
 */
function storeFromGroups(keyColumns: number): number {
  return keyColumns > 1 ? 4096 : 16384;
}

/**
 * The key store's entries for the groups made from rows 0..to-1 (up to its capacity): those
 * rows' words block by block, each group's taken from its first row. Groups are numbered in
 * order of their first rows, so one pass over the rows finds them all.
 */
function storeGroupsSoFar(t: Table, store: KeyStore, to: number): void {
  const { first, ghash } = t;
  const groups = Math.min(t.groups, store.capacity);
  let g = 0;
  for (let from = 0; from < to && g < groups; from += store.blockRows) {
    const end = Math.min(to, from + store.blockRows);
    storeRowWords(store, from, end);
    for (; g < groups && first[g]! < end; g++) storeEntry(store, g, ghash[g]!, first[g]! - from);
  }
}

/** Rows whose slots and groups the builds read ahead (src/columns/read-ahead). */
const READ_AHEAD = 16;

/**
 * build's rows start..n-1 with a key store (./group-key-store), block by block: a row finds its
 * group by the words of the group's entry (groups past the store's capacity: by their first row).
 */
function insertStored(t: Table, store: KeyStore, start: number, n: number, nulls: Uint8Array | null, ids: Int32Array | Uint32Array, same: (a: number, b: number) => boolean): void {
  const { hashes, ghash, first } = t;
  const { capacity, entries, width, blockRows, rows } = store;
  let slots = t.slots;
  let mask = t.mask;
  for (let from = start; from < n; from += blockRows) {
    const to = Math.min(n, from + blockRows);
    const long = storeRowWords(store, from, to);
    let readTo = from;
    for (let i = from; i < to; i++) {
      if (i >= readTo) {
        readTo = Math.min(to, i + READ_AHEAD);
        readAheadSink[0] ^= readAheadStored(slots, mask, hashes, entries, width, capacity, i, readTo);
      }
      if (nulls !== null && nulls[i] === 1) {
        nullRow(t, i, true, ids); // a store is a grouping's: its NULL rows are groups of their own
        continue;
      }
      const h = hashes[i]!;
      const r = (i - from) * width;
      let p = h & mask;
      for (;;) {
        const g = slots[p]!;
        if (g < 0) {
          if (t.groups < capacity) storeEntry(store, t.groups, h, i - from);
          addGroup(t, p, h, i, ids);
          slots = t.slots;
          mask = t.mask;
          break;
        }
        let equal: boolean;
        if (g < capacity) {
          // The entry's hash, then its key words (equal keys: but for long strings, below).
          const e = g * width;
          equal = entries[e] === h;
          for (let k = 1; equal && k < width; k++) equal = entries[e + k] === rows[r + k];
          if (equal && long) equal = storeLongEqual(store, i, first[g]!);
        } else equal = ghash[g] === h && same(i, first[g]!);
        if (equal) {
          ids[i] = g;
          break;
        }
        p = (p + 1) & mask;
      }
    }
  }
}

/** insertStored's reading ahead: rows from..to-1's home slots and their groups' entries. */
function readAheadStored(slots: Int32Array, mask: number, hashes: Uint32Array, entries: Uint32Array, width: number, capacity: number, from: number, to: number): number {
  let x = 0;
  for (let i = from; i < to; i++) {
    const g = slots[hashes[i]! & mask]!;
    x ^= entries[g < 0 || g >= capacity ? 0 : g * width]!;
  }
  return x;
}

/** The generic build's reading ahead: rows from..to-1's home slots, their groups' hash and first row, and that row's key words. */
function readAheadGroups(slots: Int32Array, mask: number, hashes: Uint32Array, ghash: Uint32Array, first: Uint32Array, keyWords: KeyWords[], from: number, to: number): number {
  let x = 0;
  for (let i = from; i < to; i++) {
    const g = slots[hashes[i]! & mask]!;
    // An empty slot reads group 0's words and row 0's (in bounds, and never used but XORed).
    const at = g < 0 ? 0 : g;
    const f = g < 0 ? 0 : first[at]!;
    x ^= ghash[at]!;
    for (let c = 0; c < keyWords.length; c++) {
      const k = keyWords[c]!;
      x ^= k.words[k.stride * f]!;
    }
  }
  return x;
}

/** A key column's 32-bit words (values, or a string's offsets) and words per row, for reading a group's first row ahead. */
interface KeyWords {
  words: Uint32Array | Int32Array;
  stride: number;
}

function keyWordsOf(a: Acc): KeyWords {
  if (a.repr === R_I64) return { words: a.w, stride: 2 };
  if (a.repr === R_DEC) return { words: a.w, stride: 4 };
  if (a.repr === R_BYTES) return { words: a.offs, stride: 1 };
  return { words: ONE_WORD, stride: 0 }; // numbers and NULL columns: nothing read ahead

}

/** groupIds64's and groupIds32's reading ahead: rows from..to-1's home slots and their groups' key (`wide`: two words a key, interleaved). */
function readAheadKeys(slots: Int32Array, mask: number, w: Uint32Array | Int32Array, wide: boolean, keys: Uint32Array | Int32Array, from: number, to: number): number {
  let x = 0;
  const stride = wide ? 2 : 1;
  for (let i = from; i < to; i++) {
    const g = slots[(wide ? hash64(w[2 * i]!, w[2 * i + 1]!) : hash64(w[i]! | 0, 0)) & mask]!;
    x ^= keys[g < 0 ? 0 : stride * g]!;
  }
  return x;
}

export function hash64(lo: number, hi: number): number {
  let x = Math.imul(lo ^ Math.imul(hi, 0x85ebca6b), 0x9e3779b1);
  x ^= x >>> 15;
  x = Math.imul(x, 0x2c1b3c6d);
  return x ^ (x >>> 12);
}

/**
 * Most bytes per row groupIds takes from its allocator: ids (4), the key words or the hashes,
 * group hashes and first rows (12), the open table's generations (at most 8 slots of 4
 * bytes per group, every row its own group) and the generic table's key store (8: entries
 * for rows / words groups, and a block of rows' words), beyond its first table (groupIdsFirstTableBytes).
 */
export const GROUP_IDS_BYTES_PER_ROW = 56;

/** No keys, or one integer-like key column: groupIds' value-keyed fast paths, not the generic table. */
export function groupIdsValueKeyed(types: TypeDesc[]): boolean {
  if (types.length === 0) return true;
  if (types.length !== 1) return false;
  const cls = keyClass(types[0]!);
  return cls !== KeyClass.Float && cls !== KeyClass.Utf8 && cls !== KeyClass.Binary && cls !== KeyClass.Null && cls !== KeyClass.Decimal;
}

/** Slots of the first table of a grouping of `rows` rows (it doubles as it fills). */
function firstTableSlots(rows: number): number {
  return openTableSlots(Math.min(rows, FIRST_TABLE_KEYS));
}

/** Bytes of the first table a groupIds call over `rows` rows makes (a few rows get 16 slots). */
export function groupIdsFirstTableBytes(rows: number): number {
  return 4 * firstTableSlots(rows);
}

/** Fast path: one column of 64-bit integers (int64, uint64, date64, timestamp, duration). */
function groupIds64(c: KeyColumn, n: number, nullsEqual: boolean, ids: Uint32Array, alloc: Allocator): number {
  const w = words64(c.values as BigInt64Array);
  const valid = c.valid;
  // Each group's key words side by side: a probe that finds a group reads one line for both.
  const keys = alloc(Uint32Array, 2 * n, 'overwritten');
  let slots: Int32Array = alloc(Int32Array, firstTableSlots(n), 'overwritten').fill(-1);
  let mask = slots.length - 1;
  let inTable = 0;
  let groups = 0;
  let nullGroup = -1;
  let readTo = 0;
  for (let i = 0; i < n; i++) {
    if (i >= readTo) {
      readTo = Math.min(n, i + READ_AHEAD);
      readAheadSink[0] ^= readAheadKeys(slots, mask, w, true, keys, i, readTo);
    }
    if (valid !== null && valid[i] === 0) {
      if (!nullsEqual) ids[i] = groups++;
      else {
        if (nullGroup < 0) nullGroup = groups++;
        ids[i] = nullGroup;
      }
      continue;
    }
    const lo = w[2 * i]!;
    const hi = w[2 * i + 1]!;
    let p = hash64(lo, hi) & mask;
    for (;;) {
      const g = slots[p]!;
      if (g < 0) {
        slots[p] = groups;
        keys[2 * groups] = lo;
        keys[2 * groups + 1] = hi;
        ids[i] = groups++;
        if (++inTable * 2 > slots.length) {
          slots = regrowSlots(slots, keys, 2, alloc);
          mask = slots.length - 1;
        }
        break;
      }
      if (keys[2 * g] === lo && keys[2 * g + 1] === hi) {
        ids[i] = g;
        break;
      }
      p = (p + 1) & mask;
    }
  }
  return groups;
}

/** Fast path: one column of integers up to 32 bits (also bool, date32). */
function groupIds32(c: KeyColumn, n: number, nullsEqual: boolean, ids: Uint32Array, alloc: Allocator): number {
  const v = c.values as Int32Array;
  const valid = c.valid;
  const keys = alloc(Int32Array, n, 'overwritten');
  let slots: Int32Array = alloc(Int32Array, firstTableSlots(n), 'overwritten').fill(-1);
  let mask = slots.length - 1;
  let inTable = 0;
  let groups = 0;
  let nullGroup = -1;
  let readTo = 0;
  for (let i = 0; i < n; i++) {
    if (i >= readTo) {
      readTo = Math.min(n, i + READ_AHEAD);
      readAheadSink[0] ^= readAheadKeys(slots, mask, v, false, keys, i, readTo);
    }
    if (valid !== null && valid[i] === 0) {
      if (!nullsEqual) ids[i] = groups++;
      else {
        if (nullGroup < 0) nullGroup = groups++;
        ids[i] = nullGroup;
      }
      continue;
    }
    const k = v[i]! | 0;
    let p = hash64(k, 0) & mask;
    for (;;) {
      const g = slots[p]!;
      if (g < 0) {
        slots[p] = groups;
        keys[groups] = k;
        ids[i] = groups++;
        if (++inTable * 2 > slots.length) {
          slots = regrowSlots(slots, keys, 1, alloc);
          mask = slots.length - 1;
        }
        break;
      }
      if (keys[g] === k) {
        ids[i] = g;
        break;
      }
      p = (p + 1) & mask;
    }
  }
  return groups;
}

/**
 * Dense group id per row (0..groups-1, in order of first appearance) of the key tuple of
 * `columns` over rows 0..n-1. When nullsEqual is false, every row with a NULL key gets its own
 * singleton group. Arrays come from `alloc` (a task's scratch; default the heap).
 */
/**
 * `hashes`: the keys' hashes when the caller has them (a group-by's routing hashes, every key
 * of a row hashed together; used only where the table hashes its keys).
 */
export function groupIds(columns: KeyColumn[], n: number, nullsEqual = true, alloc: Allocator = localAlloc, hashes: Uint32Array | null = null): { ids: Uint32Array; groups: number } {
  const ids = alloc(Uint32Array, n);
  if (columns.length === 0) return { ids, groups: n > 0 ? 1 : 0 };
  if (columns.length === 1) {
    const c = columns[0]!;
    if (groupIdsValueKeyed([c.type])) {
      // A small value range: a table indexed by value (no more bytes than the hashed table's keys).
      const dense = n >= DENSE_MIN_ROWS ? denseKeySpan(c, n, 2 * n) : null;
      if (dense !== null) return { ids, groups: denseGroupIds(c, n, nullsEqual, ids, dense, alloc) };
      const v = c.values;
      const groups =
        v instanceof BigInt64Array || v instanceof BigUint64Array ? groupIds64(c, n, nullsEqual, ids, alloc) : groupIds32(c, n, nullsEqual, ids, alloc);
      return { ids, groups };
    }
  }
  const t = build(columns, n, nullsEqual, true, ids, alloc, hashes);
  return { ids, groups: t.groups };
}

/**
 * groupIds plus `first[g]`, the first row of group g (length >= groups), for callers that need
 * a representative row per group (e.g. ranking distinct strings). Generic path only.
 */
export function groupIdsWithFirst(columns: KeyColumn[], n: number, nullsEqual = true): { ids: Uint32Array; groups: number; first: Uint32Array } {
  const ids = new Uint32Array(n);
  const t = build(columns, n, nullsEqual, true, ids);
  return { ids, groups: t.groups, first: t.first };
}

/**
 * Shared group ids for two sides of a join: build rows and probe rows with equal keys get the
 * same id in 0..groups-1 (groups = distinct build keys). Probe keys absent from build get -1.
 * When nullsEqual is false, rows with any NULL key get -1 on both sides. Paired columns may
 * differ in integer width/signedness (compared as integers) and float32/float64. Every array,
 * the ids and the tables, comes from `alloc` (matchGroupIdsBytes at most). The ASOF and join
 * tasks leave it at the worker heap: from their scratch loans (estimates raised to match)
 * asof-str ran 3.5 -> 4-5.4 s warm, faulting 30-60% more fresh pages (see README, limits).
 */
export function matchGroupIds(
  build_: KeyColumn[],
  probe: KeyColumn[],
  nb: number,
  np: number,
  nullsEqual: boolean,
  alloc: Allocator = localAlloc,
): { buildIds: Int32Array; probeIds: Int32Array; groups: number } {
  if (build_.length !== probe.length) {
    throw new RangeError(`matchGroupIds: ${build_.length} build key columns vs ${probe.length} probe key columns`);
  }
  const buildIds = alloc(Int32Array, nb);
  const probeIds = alloc(Int32Array, np, 'overwritten');
  if (build_.length === 0) {
    // No keys: every row is in the one group, when there is a build row.
    probeIds.fill(nb > 0 ? 0 : -1);
    if (nb > 0) return { buildIds, probeIds, groups: 1 };
    return { buildIds, probeIds, groups: 0 };
  }
  if (build_.length === 1) {
    const groups = matchOneIntKey(build_[0]!, probe[0]!, nb, np, nullsEqual, buildIds, probeIds, alloc);
    if (groups >= 0) return { buildIds, probeIds, groups };
    const strings = matchOneStringKey(build_[0]!, probe[0]!, nb, np, nullsEqual, buildIds, probeIds, alloc);
    if (strings >= 0) return { buildIds, probeIds, groups: strings };
  }
  const t = build(build_, nb, nullsEqual, false, buildIds, alloc);
  const accs = probe.map(accessor);
  const hashes = hashColumns(probe, np, GROUP_SEED, alloc(Uint32Array, np, 'overwritten'));
  const nulls = nullsEqual ? null : nullRows(probe, np, alloc);
  const { slots, mask, ghash, first } = t;
  const baccs = t.accs;
  for (let i = 0; i < np; i++) {
    let id = -1;
    if (nulls === null || nulls[i] === 0) {
      const h = hashes[i]!;
      let p = h & mask;
      for (;;) {
        const g = slots[p]!;
        if (g < 0) break;
        if (ghash[g] === h && rowsEqual(accs, i, baccs, first[g]!)) {
          id = g;
          break;
        }
        p = (p + 1) & mask;
      }
    }
    probeIds[i] = id;
  }
  return { buildIds, probeIds, groups: t.groups };
}

/**
 * Bytes matchGroupIds takes from its allocator at most. A build row: its id, key words or hash,
 * group hash and first row (16; one string key's fast path: five words, 20), its NULL flag, and
 * table slots (at most 4 a group, and the smaller tables left behind by regrowing: 32). A probe
 * row: its id, hash and NULL flag.
 */
export function matchGroupIdsBytes(nb: number, np: number): number {
  return 56 * nb + 12 * np + 16 * 64;
}

/**
 * matchGroupIds' fast path for one integer-like key (the usual ASOF `by` and join key): both
 * sides of one class (not float, string, decimal or null) in the same array type, so equal raw
 * words are equal values. The table is keyed by the values themselves, not by the first rows
 * of the generic table (no row comparisons through accessors: 25-50 -> ~10 ns a row). Ids as
 * matchGroupIds gives them (the NULL group, when NULLs are equal, numbered at its first build
 * row). Returns the number of groups, or -1 when the key does not qualify (nothing written).
 */
function matchOneIntKey(b: KeyColumn, p: KeyColumn, nb: number, np: number, nullsEqual: boolean, buildIds: Int32Array, probeIds: Int32Array, alloc: Allocator): number {
  const cls = keyClass(b.type);
  if (cls !== keyClass(p.type) || cls === KeyClass.Float || cls === KeyClass.Utf8 || cls === KeyClass.Binary || cls === KeyClass.Null || cls === KeyClass.Decimal) return -1;
  if (b.values.constructor !== p.values.constructor) return -1;
  // A small value range on the build side: a table indexed by value (at most the bytes of the key words below).
  const dense = nb >= DENSE_MIN_ROWS ? denseKeySpan(b, nb, 2 * nb) : null;
  if (dense !== null) return denseMatchIds(b, p, nb, np, nullsEqual, buildIds, probeIds, dense, alloc);
  const wide = b.values instanceof BigInt64Array || b.values instanceof BigUint64Array;
  const bw = wide ? words64(b.values as BigInt64Array) : null;
  const pw = wide ? words64(p.values as BigInt64Array) : null;
  // 32-bit values as int32 words (|0 is one-to-one within one array type); 64-bit as two words.
  // Key words per group: sized for every row to be its own group, but mapped pages are only
  // touched (paid for) as far as groups are made.
  const lo = (w: Uint32Array | null, v: KeyColumn['values'], i: number): number => (w !== null ? w[2 * i]! | 0 : (v as Int32Array)[i]! | 0);
  const keys = alloc(Int32Array, Math.max(2, 2 * nb), 'overwritten');
  let slots: Int32Array = alloc(Int32Array, firstTableSlots(nb), 'overwritten').fill(-1);
  let mask = slots.length - 1;
  let groups = 0;
  let nullGroup = -1;
  const bValid = b.valid;
  for (let i = 0; i < nb; i++) {
    if (bValid !== null && bValid[i] === 0) {
      if (nullsEqual && nullGroup < 0) nullGroup = groups++;
      buildIds[i] = nullsEqual ? nullGroup : -1;
      continue;
    }
    const l = lo(bw, b.values, i);
    const h = bw !== null ? bw[2 * i + 1]! | 0 : 0;
    let s = hash64(l, h) & mask;
    for (;;) {
      const g = slots[s]!;
      if (g < 0) {
        slots[s] = groups;
        keys[2 * groups] = l;
        keys[2 * groups + 1] = h;
        buildIds[i] = groups++;
        if ((groups - (nullGroup >= 0 ? 1 : 0)) * 2 > slots.length) {
          slots = regrowSlots(slots, keys, 2, alloc);
          mask = slots.length - 1;
        }
        break;
      }
      if (keys[2 * g] === l && keys[2 * g + 1] === h) {
        buildIds[i] = g;
        break;
      }
      s = (s + 1) & mask;
    }
  }
  const pValid = p.valid;
  for (let i = 0; i < np; i++) {
    if (pValid !== null && pValid[i] === 0) {
      probeIds[i] = nullsEqual ? nullGroup : -1;
      continue;
    }
    const l = lo(pw, p.values, i);
    const h = pw !== null ? pw[2 * i + 1]! | 0 : 0;
    let s = hash64(l, h) & mask;
    let id = -1;
    for (;;) {
      const g = slots[s]!;
      if (g < 0) break;
      if (keys[2 * g] === l && keys[2 * g + 1] === h) {
        id = g;
        break;
      }
      s = (s + 1) & mask;
    }
    probeIds[i] = id;
  }
  return groups;
}

/** matchOneStringKey's first two words of a value (inlinePair's output). */
const PAIR = new Int32Array(2);

/** Words a group of matchOneStringKey's table keeps: hash, byte length, first 8 bytes (two words), first build row. */
const STRING_GROUP_WORDS = 5;

/**
 * matchGroupIds' fast path for one string or binary key of one class on both sides (the usual
 * ASOF `by` of ticker symbols): each row hashed and compared by its length and its first 8
 * bytes as two words, read once in the loop that probes the table (no hash pass over the rows,
 * no comparison through accessors and first rows); a longer value's hash takes every byte and
 * its bytes past the 8th are compared with the group's first build row. Ids as matchGroupIds
 * gives them. Returns the number of groups, or -1 when the key does not qualify (nothing written).
 */
function matchOneStringKey(b: KeyColumn, p: KeyColumn, nb: number, np: number, nullsEqual: boolean, buildIds: Int32Array, probeIds: Int32Array, alloc: Allocator): number {
  const cls = keyClass(b.type);
  if ((cls !== KeyClass.Utf8 && cls !== KeyClass.Binary) || keyClass(p.type) !== cls || b.offsets === null || p.offsets === null) return -1;
  const bBytes = b.values as Uint8Array;
  const bOffs = b.offsets;
  // Group g's words at STRING_GROUP_WORDS * g: sized for every row its own group, paid for as groups are made.
  const keys = alloc(Int32Array, STRING_GROUP_WORDS * Math.max(1, nb), 'overwritten');
  let slots: Int32Array = alloc(Int32Array, firstTableSlots(nb), 'overwritten').fill(-1);
  let mask = slots.length - 1;
  let groups = 0;
  let nullGroup = -1;
  const bValid = b.valid;
  for (let i = 0; i < nb; i++) {
    if (bValid !== null && bValid[i] === 0) {
      if (nullsEqual && nullGroup < 0) nullGroup = groups++;
      buildIds[i] = nullsEqual ? nullGroup : -1;
      continue;
    }
    const s = bOffs[i]!;
    const e = bOffs[i + 1]!;
    inlinePair(bBytes, s, e, PAIR);
    const w0 = PAIR[0]!;
    const w1 = PAIR[1]!;
    const h = stringKeyHash(bBytes, s, e, w0, w1);
    let q = h & mask;
    for (;;) {
      const g = slots[q]!;
      if (g < 0) {
        slots[q] = groups;
        const k = STRING_GROUP_WORDS * groups;
        keys[k] = h;
        keys[k + 1] = e - s;
        keys[k + 2] = w0;
        keys[k + 3] = w1;
        keys[k + 4] = i;
        buildIds[i] = groups++;
        if ((groups - (nullGroup >= 0 ? 1 : 0)) * 2 > slots.length) {
          slots = regrowByStoredHash(slots, keys, STRING_GROUP_WORDS, alloc);
          mask = slots.length - 1;
        }
        break;
      }
      const k = STRING_GROUP_WORDS * g;
      if (keys[k] === h && keys[k + 1] === e - s && keys[k + 2] === w0 && keys[k + 3] === w1 && tailsEqual(bBytes, s, e, bBytes, bOffs[keys[k + 4]!]!)) {
        buildIds[i] = g;
        break;
      }
      q = (q + 1) & mask;
    }
  }
  const pBytes = p.values as Uint8Array;
  const pOffs = p.offsets;
  const pValid = p.valid;
  for (let i = 0; i < np; i++) {
    if (pValid !== null && pValid[i] === 0) {
      probeIds[i] = nullsEqual ? nullGroup : -1;
      continue;
    }
    const s = pOffs[i]!;
    const e = pOffs[i + 1]!;
    inlinePair(pBytes, s, e, PAIR);
    const w0 = PAIR[0]!;
    const w1 = PAIR[1]!;
    const h = stringKeyHash(pBytes, s, e, w0, w1);
    let q = h & mask;
    let id = -1;
    for (;;) {
      const g = slots[q]!;
      if (g < 0) break;
      const k = STRING_GROUP_WORDS * g;
      if (keys[k] === h && keys[k + 1] === e - s && keys[k + 2] === w0 && keys[k + 3] === w1 && tailsEqual(pBytes, s, e, bBytes, bOffs[keys[k + 4]!]!)) {
        id = g;
        break;
      }
      q = (q + 1) & mask;
    }
    probeIds[i] = id;
  }
  return groups;
}

/** A string's hash from its first two words and length; past them every further word is mixed in (exported for tests). */
export function stringKeyHash(bytes: Uint8Array, s: number, e: number, w0: number, w1: number): number {
  let x = hash64(w0 ^ Math.imul(e - s, 0x9e3779b1), w1);
  for (let at = s + INLINE_BYTES; at < e; at += 4) x = hash64(x, inlineWord(bytes, at, e));
  return x;
}

/** The bytes of a's value (a..ae) past the first two words equal those of the value at b of the same length. */
function tailsEqual(aBytes: Uint8Array, a: number, ae: number, bBytes: Uint8Array, b: number): boolean {
  for (let k = INLINE_BYTES; a + k < ae; k++) if (aBytes[a + k] !== bBytes[b + k]) return false;
  return true;
}

/**
 * A value-keyed table (the integer fast paths) at twice the slots, its groups placed again by
 * the hash of their key words (`stride` 2: group g's low and high words at 2g and 2g + 1; 1:
 * 32-bit keys, high word 0). hash64 reads its arguments as 32-bit words, so signed and
 * unsigned views of the same words hash alike.
 */
function regrowSlots(old: Int32Array, keys: Int32Array | Uint32Array, stride: 1 | 2, alloc: Allocator): Int32Array {
  const slots = alloc(Int32Array, old.length * 2, 'overwritten').fill(-1);
  const mask = slots.length - 1;
  for (let s = 0; s < old.length; s++) {
    const g = old[s]!;
    if (g < 0) continue;
    let r = hash64(keys[stride * g]!, stride === 2 ? keys[2 * g + 1]! : 0) & mask;
    while (slots[r] !== -1) r = (r + 1) & mask;
    slots[r] = g;
  }
  return slots;
}

/**
 * Where each group's run starts once rows are sorted with their group id leading: start of g =
 * rows with a smaller id (ids outside [0, groups), e.g. -1 for "no group", sort after them).
 * Length groups + 1; the last entry is the number of rows that have a group.
 */
export function groupStartsOf(ids: ArrayLike<number>, groups: number): Uint32Array {
  const starts = new Uint32Array(groups + 1);
  for (let i = 0; i < ids.length; i++) {
    const g = ids[i]!;
    if (g >= 0 && g < groups) starts[g + 1]!++;
  }
  for (let g = 0; g < groups; g++) starts[g + 1]! += starts[g]!;
  return starts;
}
