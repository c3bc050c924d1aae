/**
 * Group-by aggregates straight into a table indexed by key value (DuckDB's "perfect hash
 * aggregate"), for one integer-like key whose values lie in a small known range [base,
 * base + span): a row's slot is its key - base, so nothing is hashed, numbered, grouped or
 * routed. One slot per value and one for the NULL key (slot `span`).
 *
 * A slot is `stride` doubles (DenseLayout): its first row id + 1 (0: the slot is empty), then
 * the state of each distinct output (two outputs of the same function and column share it):
 * - rows (count()): the row count;
 * - count(column): its non-NULL count;
 * - sum of integers: low and high word sums and the non-NULL count, carried as
 *   src/ops/group-accumulate's intSumById carries them (results bit-identical to it);
 * - min/max of integers: the best value so far as (high word, low word) (narrower values: the
 *   value, 0) and the non-NULL count. Equal integers are indistinguishable, so ties need no row.
 * Every field starts at 0, so fresh zeroed memory is an empty table, and two tables over the
 * same range merge slot by slot: the result never depends on which rows went to which table.
 * Groups come out in order of their first row.
 *
 * Cost: one pass for the slots (sequential), one per output, block by block (random access
 * into the table only); the table is (span + 1) * stride * 8 bytes.
 */
import type { KeyColumn } from '../types/keys.js';
import { intValues, valueAt, type IntValues } from './dense-int-keys.js';
import { carryWordSums, TWO32, WORD_SUM_CARRY_MASK, words64 } from './int64-words.js';

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

/** The most slots a table may have (2^21: 16 MiB a table per double of its stride). */
export const DENSE_MAX_SLOTS = 1 << 21;

export function denseLayout(outputs: DenseOutput[]): DenseLayout {
  let stride = 1;
  const fields = new Map<string, number>();
  const at = outputs.map((o) => {
    if (o.fn === 'key') return -1;
    const name = `${o.fn}:${o.column}`;
    let field = fields.get(name);
    if (field === undefined) {
      fields.set(name, (field = stride));
      stride += o.fn === 'rows' || o.fn === 'count' ? 1 : 3;
    }
    return field;
  });
  return { stride, at };
}

/** Each distinct output's function and field, once (outputs sharing a field are one). */
function distinctFields(layout: DenseLayout, outputs: DenseOutput[]): Array<{ fn: DenseFn; column: number; at: number }> {
  const seen = new Set<number>();
  const out: Array<{ fn: DenseFn; column: number; at: number }> = [];
  outputs.forEach((o, i) => {
    const at = layout.at[i]!;
    if (o.fn === 'key' || seen.has(at)) return;
    seen.add(at);
    out.push({ fn: o.fn, column: o.column, at });
  });
  return out;
}

/**
 * Each row's slot into `slots` (NULL keys: `span`); false when a key lies outside [base, base +
 * span) (then `slots` holds nothing useful and no table may be touched).
 */
export function slotsOf(key: KeyColumn, n: number, base: number, span: number, slots: Int32Array): boolean {
  return slotLoop(intValues(key), key.valid, n, base, span, slots);
}

/** slotsOf's loop (a function of its own that ends with the loop: see src/ops/group-accumulate). */
function slotLoop(k: IntValues, valid: Uint8Array | null, n: number, base: number, span: number, slots: Int32Array): boolean {
  let inRange = true;
  for (let i = 0; i < n; i++) {
    if (valid !== null && valid[i] === 0) {
      slots[i] = span;
      continue;
    }
    // valueAt is NaN for a value past +-2^52, far outside any table's range: never in range.
    const g = valueAt(k, i) - base;
    slots[i] = g;
    inRange &&= g >= 0 && g < span;
  }
  return inRange;
}

/**
 * Adds rows 0..n-1 (row ids rowBase + i, their slots from slotsOf) into `table`; `measures[c]`
 * is the task's column c (only the outputs' columns are read).
 */
export function accumulateDense(table: Float64Array, layout: DenseLayout, outputs: DenseOutput[], slots: Int32Array, n: number, rowBase: number, measures: KeyColumn[]): void {
  const stride = layout.stride;
  const fields = distinctFields(layout, outputs);
  const rows = fields.find((f) => f.fn === 'rows');
  const passes = fields.filter((f) => f.fn !== 'rows');
  const values = passes.map((p) => intValues(measures[p.column]!));
  // Block by block, each output's pass right after the block's first rows: the block's slots
  // are still in the core's caches (one table miss a row, not one a row and output). 10M rows,
  // 100k keys, sum, count and max, 2 threads, interleaved warm runs: 163-202 ms, against
  // 164-390 for one pass a measure column doing all its outputs (fused: quicker in a one-thread
  // micro-benchmark, 155-177 against 183-268 ms, but slower in the workers).
  for (let from = 0; from < n; from += BLOCK_ROWS) {
    const to = Math.min(n, from + BLOCK_ROWS);
    firstRows(slots, from, to, rowBase, table, stride, rows ? rows.at : -1);
    for (let p = 0; p < passes.length; p++) {
      const { fn, column, at } = passes[p]!;
      const valid = measures[column]!.valid;
      const k = values[p]!;
      if (fn === 'count') {
        if (valid === null) countAll(slots, from, to, table, stride, at);
        else countValid(slots, from, to, valid, table, stride, at);
      } else if (fn === 'sum') {
        if (k.wide !== null) sumWide(slots, from, to, k.wide, valid, table, stride, at);
        else sumNarrow(slots, from, to, k.num, valid, table, stride, at);
      } else if (k.wide !== null) bestWide(slots, from, to, k.high!, k.wide, valid, fn === 'max', table, stride, at);
      else bestNarrow(slots, from, to, k.num, valid, fn === 'max', table, stride, at);
    }
  }
}

/** Rows a block of accumulateDense: their table slots (a line or two each) stay in the first-level cache between passes. */
const BLOCK_ROWS = 512;

/** First rows (row ids from rowBase) and row counts (at rowsAt, unless -1). */
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

/** 64-bit values: both words added as unsigned (the same sum mod 2^64 as a signed high word). */
function sumWide(slots: Int32Array, from: number, to: number, w: Uint32Array, valid: Uint8Array | null, t: Float64Array, stride: number, at: number): void {
  for (let i = from; i < to; i++) {
    if (valid !== null && valid[i] === 0) continue;
    const s = slots[i]! * stride + at;
    t[s] = t[s]! + w[2 * i]!;
    t[s + 1] = t[s + 1]! + w[2 * i + 1]!;
    if ((++t[s + 2]! & WORD_SUM_CARRY_MASK) === 0) carryWordSums(t, s, t, s + 1);
  }
}

/** Values of 32 bits or fewer, signed or not: added whole into the low sum. */
function sumNarrow(slots: Int32Array, from: number, to: number, v: ArrayLike<number>, valid: Uint8Array | null, t: Float64Array, stride: number, at: number): void {
  for (let i = from; i < to; i++) {
    if (valid !== null && valid[i] === 0) continue;
    const s = slots[i]! * stride + at;
    t[s] = t[s]! + v[i]!;
    if ((++t[s + 2]! & WORD_SUM_CARRY_MASK) === 0) carryWordSums(t, s, t, s + 1);
  }
}

/** 64-bit values: the high word compared with the column's sign, then the low one. */
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
  const parts = distinctFields(layout, outputs);
  for (let g = 0; g < slots; g++) {
    const s = g * stride;
    const f = from[s]!;
    if (f === 0) continue;
    if (into[s] === 0 || f < into[s]!) into[s] = f;
    for (const p of parts) {
      const a = s + p.at;
      if (p.fn === 'rows' || p.fn === 'count') into[a] = into[a]! + from[a]!;
      else if (p.fn === 'sum') {
        carryWordSums(from, a, from, a + 1);
        carryWordSums(into, a, into, a + 1);
        into[a] = into[a]! + from[a]!;
        into[a + 1] = into[a + 1]! + from[a + 1]!;
        into[a + 2] = into[a + 2]! + from[a + 2]!;
        carryWordSums(into, a, into, a + 1);
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

/** The non-empty slots of a table of `slots` slots (`ids`, in slot order) and their first row ids. */
export function presentSlots(table: Float64Array, stride: number, slots: number): { firsts: Uint32Array; ids: Int32Array } {
  let present = 0;
  for (let g = 0; g < slots; g++) if (table[g * stride] !== 0) present++;
  const firsts = new Uint32Array(present);
  const ids = new Int32Array(present);
  let k = 0;
  for (let g = 0; g < slots; g++) {
    const f = table[g * stride]!;
    if (f !== 0) {
      firsts[k] = f - 1;
      ids[k++] = g;
    }
  }
  return { firsts, ids };
}

/** An output column: values in the output type's typed array (64-bit ones written as words), validity bytes or null. */
export interface DenseColumn {
  values: Int8Array | Uint8Array | Int16Array | Uint16Array | Int32Array | Uint32Array | BigInt64Array | BigUint64Array;
  valid: Uint8Array | null;
}

/** 64-bit values as their 32-bit words; narrower ones as they are. */
type ValueSlots = Exclude<DenseColumn['values'], BigInt64Array | BigUint64Array>;

/** The groups of a table in first-row order: their slots, and their slots' fields copied in that order. */
export interface DenseGroups {
  order: Int32Array;
  /** Group j's fields at j * stride (one random read of the table a group, then all outputs read in order). */
  fields: Float64Array;
}

/** The groups `order` (slots, in first-row order) with their fields gathered in that order. */
export function gatherGroups(table: Float64Array, stride: number, order: Int32Array): DenseGroups {
  const fields = new Float64Array(order.length * stride);
  gatherSlots(table, stride, order, fields, order.length);
  return { order, fields };
}

function gatherSlots(t: Float64Array, stride: number, order: Int32Array, out: Float64Array, n: number): void {
  for (let j = 0; j < n; j++) {
    const s = order[j]! * stride;
    for (let k = 0; k < stride; k++) out[j * stride + k] = t[s + k]!;
  }
}

/**
 * Output `i`'s values for `groups`, into `values` (an empty array of the output's type). 'key'
 * writes base + slot (NULL for the NULL slot `span`).
 */
export function denseOutputColumn(groups: DenseGroups, layout: DenseLayout, outputs: DenseOutput[], i: number, base: number, span: number, values: DenseColumn['values']): DenseColumn {
  const fn = outputs[i]!.fn;
  const stride = layout.stride;
  const at = layout.at[i]!;
  const { order, fields: t } = groups;
  const n = order.length;
  const wide = values instanceof BigInt64Array || values instanceof BigUint64Array;
  const out: ValueSlots = wide ? words64(values) : values;
  if (fn === 'key') {
    keysOut(order, base, wide, out, n);
    const nullAt = order.indexOf(span);
    if (nullAt < 0) return { values, valid: null };
    const valid = new Uint8Array(n).fill(1);
    valid[nullAt] = 0;
    out[wide ? 2 * nullAt : nullAt] = 0;
    if (wide) out[2 * nullAt + 1] = 0;
    return { values, valid };
  }
  if (fn === 'rows' || fn === 'count') {
    // Counts stay below 2^32: one word.
    countsOut(t, stride, at, wide ? 2 : 1, out, n);
    return { values, valid: null };
  }
  if (fn === 'sum') sumsOut(t, stride, at, out, n);
  else if (wide) bestWordsOut(t, stride, at, out, n);
  else bestOut(t, stride, at, out, n);
  return { values, valid: validWhereValues(t, stride, at + 2, n) };
}

function keysOut(order: Int32Array, base: number, wide: boolean, out: ValueSlots, n: number): void {
  for (let j = 0; j < n; j++) {
    // Exact integers below 2^53 (the NULL slot's value is never read).
    const v = base + order[j]!;
    if (wide) {
      const hi = Math.floor(v / TWO32);
      out[2 * j] = v - hi * TWO32;
      out[2 * j + 1] = hi;
    } else out[j] = v;
  }
}

function countsOut(t: Float64Array, stride: number, at: number, step: number, out: ValueSlots, n: number): void {
  for (let j = 0; j < n; j++) out[step * j] = t[j * stride + at]!;
}

function sumsOut(t: Float64Array, stride: number, at: number, out: ValueSlots, n: number): void {
  for (let j = 0; j < n; j++) {
    const s = j * stride + at;
    carryWordSums(t, s, t, s + 1);
    out[2 * j] = t[s]!;
    out[2 * j + 1] = t[s + 1]!;
  }
}

function bestWordsOut(t: Float64Array, stride: number, at: number, out: ValueSlots, n: number): void {
  for (let j = 0; j < n; j++) {
    const s = j * stride + at;
    out[2 * j] = t[s + 1]!;
    out[2 * j + 1] = t[s]!;
  }
}

function bestOut(t: Float64Array, stride: number, at: number, out: ValueSlots, n: number): void {
  for (let j = 0; j < n; j++) out[j] = t[j * stride + at]!;
}

/** Validity bytes where a group's non-NULL count (field `at`) is 0, or null when none is. */
function validWhereValues(t: Float64Array, stride: number, at: number, n: number): Uint8Array | null {
  let empty = -1;
  for (let j = 0; j < n && empty < 0; j++) if (t[j * stride + at] === 0) empty = j;
  if (empty < 0) return null;
  const valid = new Uint8Array(n);
  for (let j = 0; j < n; j++) valid[j] = t[j * stride + at] === 0 ? 0 : 1;
  return valid;
}
