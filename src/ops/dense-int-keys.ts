/**
 * Group ids of one integer-like key whose values lie in a small range, by a table indexed by
 * value - min (DuckDB's "perfect hash" aggregate): one load a row, no hashing, no probing.
 * The broadcast join table's direct layout (src/worker/join-table) indexes its entries the same
 * way, with the span and the values read here.
 * A hashed table pays a hash and an unpredictable probe a row even when it fits the caches
 * (groupIds64 on a 1.25M-row partition of 12.5k users over [0, 100k): ~26 ns a row).
 *
 * Values are read exactly as doubles: 64-bit words as hi * 2^32 + lo, taken only while every
 * high word is within +-2^20 (|value| < 2^52); narrower values as they are. The table is used
 * when the span max - min + 1 is at most `maxSpan` (the callers allow about the bytes a hashed
 * table of the same rows would take). Group numbering is the hashed tables': first appearance.
 */
import type { Allocator, KeyColumn } from '../types/keys.js';
import { highWords, TWO32, words64 } from './int64-words.js';

/** The least value and the span of a key's non-NULL rows, when dense enough. */
export interface DenseSpan {
  min: number;
  span: number;
}

/** Fewer rows than this: group-id's hashed tables are as quick, and their first table is smaller. */
export const DENSE_MIN_ROWS = 4096;

/**
 * The values of a 64-bit or narrower integer column: 64-bit ones as two words a row (`wide`
 * unsigned; `high`, the same words with the high ones read with the column's sign: row i is
 * high[2i+1] * 2^32 + wide[2i]), narrower ones as `num`.
 */
export interface IntValues {
  wide: Uint32Array | null;
  high: Int32Array | Uint32Array | null;
  num: ArrayLike<number>;
}

const NO_NUMBERS: ArrayLike<number> = new Int32Array(0);

export function intValues(c: Pick<KeyColumn, 'values'>): IntValues {
  const v = c.values;
  if (v instanceof BigInt64Array || v instanceof BigUint64Array) return { wide: words64(v), high: highWords(v), num: NO_NUMBERS };
  return { wide: null, high: null, num: v as ArrayLike<number> };
}

/** Row i's value as a double, or NaN when its high word is past +-2^20 (not exact, or too far apart to matter). */
export function valueAt(k: IntValues, i: number): number {
  const w = k.wide;
  if (w === null) return k.num[i]!;
  // A high word of 0 (values in [0, 2^32), the usual ids): the low word as is, without reading
  // the signed view (groupby-100k's slots: dense-task CPU 411-470 -> 348-419 ms a run).
  if (w[2 * i + 1] === 0) return w[2 * i]!;
  const hi = k.high![2 * i + 1]!;
  return hi >= -0x100000 && hi <= 0x100000 ? hi * TWO32 + w[2 * i]! : NaN;
}

/** min and span of the non-NULL values of rows 0..n-1, or null when a value is far out, every row is NULL, or span > maxSpan. */
export function denseKeySpan(c: KeyColumn, n: number, maxSpan: number): DenseSpan | null {
  if (!scanSpan(intValues(c), c.valid, n, maxSpan)) return null;
  const min = SPAN[0]!;
  const max = SPAN[1]!;
  if (min > max) return null; // every row NULL
  return { min, span: max - min + 1 };
}

/** scanSpan's least and greatest value. */
const SPAN = new Float64Array(2);

/**
 * The least and greatest non-NULL value into SPAN; false when a value is far out or
 * the span passes maxSpan. Checked block by block, not row by row (the scan is a pass over
 * every key): a far-out value (NaN) or a span already too wide ends it at the block's end.
 * A loop of its own (see src/ops/group-accumulate).
 */
function scanSpan(k: IntValues, valid: Uint8Array | null, n: number, maxSpan: number): boolean {
  let min = Infinity;
  let max = -Infinity;
  for (let from = 0; from < n; from += SPAN_BLOCK) {
    const to = Math.min(n, from + SPAN_BLOCK);
    let far = false;
    for (let i = from; i < to; i++) {
      if (valid !== null && valid[i] === 0) continue;
      const x = valueAt(k, i);
      far ||= x !== x;
      min = x < min ? x : min;
      max = x > max ? x : max;
    }
    if (far || max - min >= maxSpan) return false;
  }
  SPAN[0] = min;
  SPAN[1] = max;
  return true;
}

/** Rows denseKeySpan scans between its checks. */
const SPAN_BLOCK = 1024;

/**
 * ids[i] = the group of row i, numbered by first appearance, through a table of `span` slots
 * (from `alloc`). NULL rows: one group when nullsEqual (numbered where the first appears), else
 * a group each. Returns the number of groups.
 */
export function denseGroupIds(c: KeyColumn, n: number, nullsEqual: boolean, ids: Uint32Array | Int32Array, s: DenseSpan, alloc: Allocator): number {
  return numberByValue(c, n, nullsEqual, true, ids, s, alloc(Int32Array, s.span, 'overwritten').fill(-1)).groups;
}

/**
 * The value-indexed numbering both callers share: ids by first appearance through `table`
 * (span entries, -1 when empty). NULL rows: one group when nullsEqual; otherwise a fresh group
 * each (`freshNulls`) or -1.
 */
function numberByValue(c: KeyColumn, n: number, nullsEqual: boolean, freshNulls: boolean, ids: Uint32Array | Int32Array, s: DenseSpan, table: Int32Array): { groups: number; nullGroup: number } {
  const k = intValues(c);
  const valid = c.valid;
  const min = s.min;
  let groups = 0;
  let nullGroup = -1;
  if (valid === null && k.wide !== null) {
    // No NULLs, 64-bit words: the span's values are exact (denseKeySpan checked every row).
    return { groups: numberWide(k.wide, k.high!, n, min, table, ids), nullGroup };
  }
  for (let i = 0; i < n; i++) {
    if (valid !== null && valid[i] === 0) {
      if (nullsEqual) {
        if (nullGroup < 0) nullGroup = groups++;
        ids[i] = nullGroup;
      } else ids[i] = freshNulls ? groups++ : -1;
      continue;
    }
    const at = valueAt(k, i) - min;
    let g = table[at]!;
    if (g < 0) {
      g = groups++;
      table[at] = g;
    }
    ids[i] = g;
  }
  return { groups, nullGroup };
}

/** numberByValue without NULLs over 64-bit words; returns the number of groups (a loop of its own: see src/ops/group-accumulate). */
function numberWide(w: Uint32Array, hiW: Int32Array | Uint32Array, n: number, min: number, table: Int32Array, ids: Uint32Array | Int32Array): number {
  let groups = 0;
  for (let i = 0; i < n; i++) {
    const at = hiW[2 * i + 1]! * TWO32 + w[2 * i]! - min;
    let g = table[at]!;
    if (g < 0) {
      g = groups++;
      table[at] = g;
    }
    ids[i] = g;
  }
  return groups;
}

/** Probe ids without NULLs over 64-bit words (see denseMatchIds; a loop of its own: see src/ops/group-accumulate). */
function probeWide(w: Uint32Array, hiW: Int32Array | Uint32Array, n: number, min: number, span: number, table: Int32Array, probeIds: Int32Array): void {
  for (let i = 0; i < n; i++) {
    const at = hiW[2 * i + 1]! * TWO32 + w[2 * i]! - min;
    probeIds[i] = at >= 0 && at < span ? table[at]! : -1;
  }
}

/**
 * Shared ids of a build side and a probe side keyed by one integer-like column each (the same
 * class): build rows numbered by first appearance through the table of the build's span (NULL
 * build rows: one group when nullsEqual, else -1), probe rows get their value's build group or
 * -1 (NULL probe rows: the NULL group when nullsEqual, else -1). Returns the number of groups.
 */
export function denseMatchIds(b: KeyColumn, p: KeyColumn, nb: number, np: number, nullsEqual: boolean, buildIds: Int32Array, probeIds: Int32Array, s: DenseSpan, alloc: Allocator): number {
  const table = alloc(Int32Array, s.span, 'overwritten').fill(-1);
  const { groups, nullGroup } = numberByValue(b, nb, nullsEqual, false, buildIds, s, table);
  const min = s.min;
  const span = s.span;
  const pk = intValues(p);
  const pValid = p.valid;
  if (pValid === null && pk.wide !== null) {
    // No NULLs, 64-bit words read whole. Build values are exact (|v| < 2^52 + 2^32, denseKeySpan);
    // a probe value beyond them is too, up to 2^53, and past 2^53 (rounded, monotone) lies
    // 2^52 away: either way it falls outside the span, and one inside it is exact.
    probeWide(pk.wide, pk.high!, np, min, span, table, probeIds);
    return groups;
  }
  for (let i = 0; i < np; i++) {
    if (pValid !== null && pValid[i] === 0) {
      probeIds[i] = nullsEqual ? nullGroup : -1;
      continue;
    }
    // Out of the build's range (or far out: NaN) is no build value.
    const at = valueAt(pk, i) - min;
    probeIds[i] = at >= 0 && at < span ? table[at]! : -1;
  }
  return groups;
}
