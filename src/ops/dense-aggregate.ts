/**
 * Group-by aggregates straight into a table indexed by key value (DuckDB's "perfect hash
 * aggregate"), for one integer-like key whose values lie in a small known range [base,
 * base + span): a row's slot is its key - base, so nothing is hashed, numbered, grouped or
 * routed. One slot per value and one for the NULL key (slot `span`).
 *
 * A slot is `stride` doubles: its first row id + 1 (0: the slot is empty), then each output's
 * state (./dense-aggregate's DenseLayout):
 * - rows (count()): the row count;
 * - count(column): its non-NULL count;
 * - sum of integers: low and high word sums and the non-NULL count, carried every 2^20 values
 *   exactly as src/ops/group-accumulate's intSumById does (results bit-identical to it);
 * - min/max of integers: the best value so far as (high word, low word) (narrower values: the
 *   value, 0) and the non-NULL count. Equal integers are indistinguishable, so ties need no row.
 * Every field starts at 0, so fresh zeroed memory is an empty table, and two tables over the
 * same range merge slot by slot: the result never depends on which rows went to which table.
 * Groups come out in order of their first row.
 *
 * Cost: one pass for the slots (sequential), one per output (random access into the table
 * only); the table is (span + 1) * stride * 8 bytes.
 */
import type { KeyColumn } from '../types/keys.js';
import { intValues } from './dense-int-keys.js';
import { TWO32, words64 } from './int64-words.js';

/** What a dense output computes: the key's value ('key': first/last of the key column), count() of rows, or an aggregate of a measure. */
export type DenseFn = 'key' | 'rows' | 'count' | 'sum' | 'min' | 'max';

export interface DenseOutput {
  fn: DenseFn;
  /** The measure's position among the task's columns; -1 for 'key' and 'rows'. */
  column: number;
}

export interface DenseLayout {
  /** Doubles per slot. */
  stride: number;
  /** Each output's first field in a slot (-1 for 'key': its value is the slot's). */
  at: number[];
}

/** Values a sum adds before its word sums are carried (2^20 × 2^32 < 2^53). */
const CARRY_MASK = 0xfffff;

/** The most slots a table may have: (first row) × slots stays an exact double when ordering groups. */
export const DENSE_MAX_SLOTS = 1 << 21;

export function denseLayout(outputs: DenseOutput[]): DenseLayout {
  let stride = 1;
  const at = outputs.map((o) => {
    if (o.fn === 'key') return -1;
    const field = stride;
    stride += o.fn === 'rows' || o.fn === 'count' ? 1 : 3;
    return field;
  });
  return { stride, at };
}

/**
 * Each row's slot into `slots` (NULL keys: `span`); false when a key lies outside [base, base +
 * span) (then `slots` holds nothing useful and no table may be touched).
 */
export function slotsOf(key: KeyColumn, n: number, base: number, span: number, slots: Int32Array): boolean {
  const k = intValues(key);
  return k.wide !== null ? wideSlots(k.wide, k.high!, key.valid, n, base, span, slots) : narrowSlots(k.num, key.valid, n, base, span, slots);
}

// Each loop is a function of its own that ends with the loop (see src/ops/group-accumulate).

function wideSlots(w: Uint32Array, hi: Int32Array | Uint32Array, valid: Uint8Array | null, n: number, base: number, span: number, slots: Int32Array): boolean {
  let lo = 0;
  let top = 0;
  for (let i = 0; i < n; i++) {
    if (valid !== null && valid[i] === 0) {
      slots[i] = span;
      continue;
    }
    // Exact below 2^53; a key far out of range rounds but stays far out.
    const g = hi[2 * i + 1]! * TWO32 + w[2 * i]! - base;
    slots[i] = g;
    lo = g < lo ? g : lo;
    top = g > top ? g : top;
  }
  return lo >= 0 && top < span;
}

function narrowSlots(num: ArrayLike<number>, valid: Uint8Array | null, n: number, base: number, span: number, slots: Int32Array): boolean {
  let lo = 0;
  let top = 0;
  for (let i = 0; i < n; i++) {
    if (valid !== null && valid[i] === 0) {
      slots[i] = span;
      continue;
    }
    const g = num[i]! - base;
    slots[i] = g;
    lo = g < lo ? g : lo;
    top = g > top ? g : top;
  }
  return lo >= 0 && top < span;
}

/**
 * Adds rows 0..n-1 (row ids rowBase + i, their slots from slotsOf) into `table`; `measures[c]`
 * is the task's column c (only the outputs' columns are read).
 */
export function accumulateDense(table: Float64Array, layout: DenseLayout, outputs: DenseOutput[], slots: Int32Array, n: number, rowBase: number, measures: KeyColumn[]): void {
  const stride = layout.stride;
  const rowsAt = outputs.findIndex((o) => o.fn === 'rows');
  const passes = outputs.map((o, i) => ({ o, at: layout.at[i]!, m: o.column < 0 ? null : measures[o.column]! })).filter((p) => p.m !== null);
  const values = passes.map((p) => intValues(p.m!));
  // Block by block, each output's pass right after the first: the block's slots are still in
  // the core's caches (one miss a row, not one a row and output; 10M rows, 100k keys, sum,
  // count and max: 15 ns a row a pass over the whole slab, ~20 for all of them a block at a time).
  for (let from = 0; from < n; from += BLOCK_ROWS) {
    const to = Math.min(n, from + BLOCK_ROWS);
    firstRows(slots, from, to, rowBase, table, stride, rowsAt < 0 ? -1 : layout.at[rowsAt]!);
    for (let p = 0; p < passes.length; p++) {
      const { o, at, m } = passes[p]!;
      const valid = m!.valid;
      const k = values[p]!;
      if (o.fn === 'count') {
        if (valid === null) countAll(slots, from, to, table, stride, at);
        else countValid(slots, from, to, valid, table, stride, at);
      } else if (o.fn === 'sum') {
        if (k.wide !== null) sumWide(slots, from, to, k.wide, valid, table, stride, at);
        else sumNarrow(slots, from, to, k.num, valid, table, stride, at);
      } else if (k.wide !== null) bestWide(slots, from, to, k.high!, k.wide, valid, o.fn === 'max', table, stride, at);
      else bestNarrow(slots, from, to, k.num, valid, o.fn === 'max', table, stride, at);
    }
  }
}

/** Rows a block of accumulateDense: their table slots (a line or two each) stay in the first-level cache between passes. */
const BLOCK_ROWS = 512;

function firstRows(slots: Int32Array, from: number, to: number, rowBase: number, t: Float64Array, stride: number, rowsAt: number): void {
  for (let i = from; i < to; i++) {
    const s = slots[i]! * stride;
    if (t[s] === 0) t[s] = rowBase + i + 1;
    if (rowsAt >= 0) t[s + rowsAt]++;
  }
}

function countAll(slots: Int32Array, from: number, to: number, t: Float64Array, stride: number, at: number): void {
  for (let i = from; i < to; i++) t[slots[i]! * stride + at]++;
}

function countValid(slots: Int32Array, from: number, to: number, valid: Uint8Array, t: Float64Array, stride: number, at: number): void {
  for (let i = from; i < to; i++) t[slots[i]! * stride + at] += valid[i]!;
}

/** A slot's word sums made canonical: the low sum's carries moved into the high one, both in [0, 2^32). */
function carry(t: Float64Array, s: number): void {
  const q = Math.floor(t[s]! / TWO32);
  t[s] = t[s]! - q * TWO32;
  const h = (t[s + 1]! + q) % TWO32;
  t[s + 1] = h < 0 ? h + TWO32 : h;
}

/** 64-bit values: both words added as unsigned (the same sum mod 2^64 as a signed high word). */
function sumWide(slots: Int32Array, from: number, to: number, w: Uint32Array, valid: Uint8Array | null, t: Float64Array, stride: number, at: number): void {
  for (let i = from; i < to; i++) {
    if (valid !== null && valid[i] === 0) continue;
    const s = slots[i]! * stride + at;
    t[s] = t[s]! + w[2 * i]!;
    t[s + 1] = t[s + 1]! + w[2 * i + 1]!;
    if ((++t[s + 2]! & CARRY_MASK) === 0) carry(t, s);
  }
}

/** Values of 32 bits or fewer, signed or not: added whole into the low sum. */
function sumNarrow(slots: Int32Array, from: number, to: number, v: ArrayLike<number>, valid: Uint8Array | null, t: Float64Array, stride: number, at: number): void {
  for (let i = from; i < to; i++) {
    if (valid !== null && valid[i] === 0) continue;
    const s = slots[i]! * stride + at;
    t[s] = t[s]! + v[i]!;
    if ((++t[s + 2]! & CARRY_MASK) === 0) carry(t, s);
  }
}

function bestWide(slots: Int32Array, from: number, to: number, hiW: Int32Array | Uint32Array, w: Uint32Array, valid: Uint8Array | null, isMax: boolean, t: Float64Array, stride: number, at: number): void {
  for (let i = from; i < to; i++) {
    if (valid !== null && valid[i] === 0) continue;
    const s = slots[i]! * stride + at;
    const h = hiW[2 * i + 1]!;
    const l = w[2 * i]!;
    const th = t[s]!;
    if (t[s + 2]++ === 0 || (isMax ? h > th || (h === th && l > t[s + 1]!) : h < th || (h === th && l < t[s + 1]!))) {
      t[s] = h;
      t[s + 1] = l;
    }
  }
}

function bestNarrow(slots: Int32Array, from: number, to: number, v: ArrayLike<number>, valid: Uint8Array | null, isMax: boolean, t: Float64Array, stride: number, at: number): void {
  for (let i = from; i < to; i++) {
    if (valid !== null && valid[i] === 0) continue;
    const s = slots[i]! * stride + at;
    const x = v[i]!;
    if (t[s + 2]++ === 0 || (isMax ? x > t[s]! : x < t[s]!)) t[s] = x;
  }
}

/** Merges table `from` into `into` (both of `slots` slots, the same layout), slot by slot. */
export function mergeDense(into: Float64Array, from: Float64Array, layout: DenseLayout, outputs: DenseOutput[], slots: number): void {
  const stride = layout.stride;
  const parts = outputs.map((o, i) => ({ fn: o.fn, at: layout.at[i]! })).filter((p) => p.fn !== 'key');
  for (let g = 0; g < slots; g++) {
    const s = g * stride;
    const f = from[s]!;
    if (f === 0) continue;
    if (into[s] === 0 || f < into[s]!) into[s] = f;
    for (const p of parts) {
      const a = s + p.at;
      if (p.fn === 'rows' || p.fn === 'count') into[a] = into[a]! + from[a]!;
      else if (p.fn === 'sum') {
        carry(from, a);
        carry(into, a);
        into[a] = into[a]! + from[a]!;
        into[a + 1] = into[a + 1]! + from[a + 1]!;
        into[a + 2] = into[a + 2]! + from[a + 2]!;
        carry(into, a);
      } else if (from[a + 2]! > 0) {
        const h = from[a]!;
        const l = from[a + 1]!;
        const th = into[a]!;
        const tl = into[a + 1]!;
        if (into[a + 2] === 0 || (p.fn === 'max' ? h > th || (h === th && l > tl) : h < th || (h === th && l < tl))) {
          into[a] = h;
          into[a + 1] = l;
        }
        into[a + 2] = into[a + 2]! + from[a + 2]!;
      }
    }
  }
}

/** The non-empty slots of a table of `slots` slots, in order of their first row. */
export function slotsInFirstRowOrder(table: Float64Array, stride: number, slots: number): Int32Array {
  if (slots > DENSE_MAX_SLOTS + 1) throw new Error(`internal: a dense table of ${slots} slots`);
  let present = 0;
  for (let g = 0; g < slots; g++) if (table[g * stride] !== 0) present++;
  // (first row) * slots + slot: exact (first row < 2^32, slots <= 2^21 + 1), ordered by first row.
  const keys = new Float64Array(present);
  let k = 0;
  for (let g = 0; g < slots; g++) {
    const f = table[g * stride]!;
    if (f !== 0) keys[k++] = (f - 1) * slots + g;
  }
  keys.sort();
  const out = new Int32Array(present);
  for (let i = 0; i < present; i++) out[i] = keys[i]! % slots;
  return out;
}

/** An output column: values in the output type's typed array (64-bit ones written as words), validity bytes or null. */
export interface DenseColumn {
  values: Int8Array | Uint8Array | Int16Array | Uint16Array | Int32Array | Uint32Array | BigInt64Array | BigUint64Array;
  valid: Uint8Array | null;
}

/**
 * Output `i`'s values for the groups in `order` (slots), into `values` (an empty array of the
 * output's type). 'key' writes base + slot (NULL for the NULL slot `span`).
 */
export function denseOutputColumn(table: Float64Array, layout: DenseLayout, outputs: DenseOutput[], i: number, order: Int32Array, base: number, span: number, values: DenseColumn['values']): DenseColumn {
  const o = outputs[i]!;
  const at = layout.at[i]!;
  const stride = layout.stride;
  const n = order.length;
  const wide = values instanceof BigInt64Array || values instanceof BigUint64Array;
  const w = wide ? words64(values) : null;
  const out = w ?? (values as Exclude<DenseColumn['values'], BigInt64Array | BigUint64Array>);
  let valid: Uint8Array | null = null;
  const nullAt = (j: number): void => {
    valid ??= new Uint8Array(n).fill(1);
    valid[j] = 0;
  };
  for (let j = 0; j < n; j++) {
    const g = order[j]!;
    const s = g * stride + at;
    if (o.fn === 'key') {
      if (g === span) nullAt(j);
      else writeValue(out, wide, j, base + g);
    } else if (o.fn === 'rows' || o.fn === 'count') writeValue(out, wide, j, table[s]!);
    else if (table[s + 2] === 0) nullAt(j);
    else if (o.fn === 'sum') {
      carry(table, s);
      out[2 * j] = table[s]!;
      out[2 * j + 1] = table[s + 1]!;
    } else if (wide) {
      out[2 * j] = table[s + 1]!;
      out[2 * j + 1] = table[s]!;
    } else out[j] = table[s]!;
  }
  return { values, valid };
}

/** An exact integer value (|v| < 2^53) at row j: as two words when wide, else as itself. */
function writeValue(out: DenseColumnWords, wide: boolean, j: number, v: number): void {
  if (!wide) {
    out[j] = v;
    return;
  }
  const hi = Math.floor(v / TWO32);
  out[2 * j] = v - hi * TWO32;
  out[2 * j + 1] = hi;
}

type DenseColumnWords = Exclude<DenseColumn['values'], BigInt64Array | BigUint64Array>;
