/**
 * Zip-style explode kernel (after Flink FLINK-40856): index arrays for one batch.
 *
 * Input: k >= 1 list columns over the same n rows, each as typed arrays: `offsets` (Int32Array
 * or BigInt64Array, n+1 absolute child positions, need not start at 0) or a fixed `size`, and
 * one validity byte per row (or null when no row is NULL).
 *
 * Steps:
 *   1. Validate and size, one pass over the rows: effective length len_i(r) = 0 for a NULL or
 *      empty list, else its element count. Every row must have len_0(r) = len_1(r) = ... ;
 *      this is checked for EVERY row before anything is emitted and before
 *      `ignoreEmptyAndNull` is applied, so a row whose first (driver) list is empty or NULL is
 *      still checked. The first mismatch throws ExecutionError EXPLODE_LENGTH_MISMATCH naming
 *      the global row (rowBase + r), the input names and their lengths. Output rows: L for
 *      L > 0; for L = 0 one all-NULL row unless `ignoreEmptyAndNull`, else none.
 *   2. Build once: parent[p] = r; child_i[p] = start_i(r) + e (absolute child position, -1 on
 *      the all-NULL row); ordinality[p] = e + 1 (0 on the all-NULL row, meaning NULL).
 *
 * Invariants: parent is non-decreasing (input row order, then element position); child_i are
 * positions in list i's child Data as its offsets give them. No per-row allocation; int64
 * offsets are read once through 32-bit halves (no BigInt per row).
 * Complexity: O(n * k + out * k) time, O(out * (k + 2)) output memory.
 */
import { ExecutionError } from '../errors.js';

export interface ExplodeListInput {
  kind: 'list' | 'largeList' | 'fixedSizeList' | 'map';
  /** list/largeList/map: n+1 offsets, row r is child positions offsets[r] .. offsets[r+1]-1. */
  offsets?: Int32Array | BigInt64Array | null;
  /** fixedSizeList: row r is child positions r*size .. r*size+size-1. */
  size?: number;
  /** One byte per row, 0 = NULL list; null when no row is NULL. */
  valid: Uint8Array | null;
  n: number;
}

export interface ExplodeKernelInput {
  lists: ExplodeListInput[];
  /** Input names for messages, one per list (column name or the expression's SQL text). */
  names: string[];
  ignoreEmptyAndNull: boolean;
  /** Global row number of row 0, for messages. */
  rowBase: number;
  /** Build the ordinality array (default true). */
  ordinality?: boolean;
  /** Allocates the ordinality array (an output column); default a plain Int32Array. */
  allocInt32?: (length: number) => Int32Array;
  /** Allocates the parent and child index arrays (temporaries: e.g. reused scratch memory). */
  scratchInt32?: (length: number) => Int32Array;
}

export interface ExplodeIndices {
  /** Output row count. */
  length: number;
  /** Input row of each output row. */
  parent: Int32Array;
  /** Per input list: absolute child position of each output row, -1 for NULL. */
  child: Int32Array[];
  /** 1-based element position, 0 where the output is NULL (all-empty row); null if not asked. */
  ordinality: Int32Array | null;
}

const TWO32 = 4294967296;
const MAX_INT32 = 0x7fffffff;

/** Start positions as numbers (n+1 entries), or null for fixed-size lists. */
function startsOf(l: ExplodeListInput): Int32Array | Float64Array | null {
  if (l.kind === 'fixedSizeList') return null;
  const o = l.offsets;
  if (!o) throw new Error(`explode kernel: ${l.kind} input without offsets`);
  if (o instanceof Int32Array) return o;
  const u32 = new Uint32Array(o.buffer, o.byteOffset, (l.n + 1) * 2);
  const i32 = new Int32Array(o.buffer, o.byteOffset, (l.n + 1) * 2);
  const out = new Float64Array(l.n + 1);
  for (let i = 0; i <= l.n; i++) out[i] = i32[2 * i + 1] * TWO32 + u32[2 * i];
  if (l.n >= 0 && out[l.n] > MAX_INT32 + 1) {
    throw new ExecutionError('EXPLODE_TOO_LARGE', `explode: a large list's child positions exceed ${MAX_INT32}`, {});
  }
  return out;
}

function effectiveLength(l: ExplodeListInput, s: Int32Array | Float64Array | null, r: number): number {
  if (l.valid !== null && l.valid[r] === 0) return 0;
  return s === null ? (l.size as number) : s[r + 1] - s[r];
}

export function explodeIndices(input: ExplodeKernelInput): ExplodeIndices {
  const { lists, ignoreEmptyAndNull } = input;
  const k = lists.length;
  if (k === 0) throw new Error('explode kernel: no input lists');
  const n = lists[0].n;
  for (const l of lists) if (l.n !== n) throw new Error(`explode kernel: inputs of ${n} and ${l.n} rows`);
  const starts = lists.map(startsOf);

  // 1. validate every row (before ignoreEmptyAndNull) and size the output.
  let total = 0;
  const l0 = lists[0];
  const s0 = starts[0];
  for (let r = 0; r < n; r++) {
    const len = effectiveLength(l0, s0, r);
    for (let i = 1; i < k; i++) {
      if (effectiveLength(lists[i], starts[i], r) !== len) throw mismatch(input, starts, r);
    }
    total += len > 0 ? len : ignoreEmptyAndNull ? 0 : 1;
  }
  if (total > MAX_INT32) throw new ExecutionError('EXPLODE_TOO_LARGE', `explode: ${total} output rows in one batch exceed ${MAX_INT32}`, {});

  // 2. build.
  const temp = input.scratchInt32 ?? ((len: number) => new Int32Array(len));
  const parent = temp(total);
  const child = lists.map(() => temp(total));
  const wantOrd = input.ordinality !== false;
  const ord = wantOrd ? (input.allocInt32 ? input.allocInt32(total) : new Int32Array(total)) : null;
  let p = 0;
  for (let r = 0; r < n; r++) {
    const len = effectiveLength(l0, s0, r);
    if (len === 0) {
      if (ignoreEmptyAndNull) continue;
      parent[p] = r;
      for (let i = 0; i < k; i++) child[i][p] = -1;
      if (ord) ord[p] = 0;
      p++;
      continue;
    }
    const end = p + len;
    parent.fill(r, p, end);
    for (let i = 0; i < k; i++) {
      const s = starts[i];
      const c = child[i];
      let e = s === null ? r * (lists[i].size as number) : s[r];
      for (let q = p; q < end; q++) c[q] = e++;
    }
    if (ord) for (let q = p, e = 1; q < end; q++) ord[q] = e++;
    p = end;
  }
  return { length: total, parent, child, ordinality: ord };
}

function mismatch(input: ExplodeKernelInput, starts: Array<Int32Array | Float64Array | null>, r: number): ExecutionError {
  const row = input.rowBase + r;
  const lengths: Record<string, number | null> = {};
  const parts = input.lists.map((l, i) => {
    const name = input.names[i] ?? `#${i}`;
    const isNull = l.valid !== null && l.valid[r] === 0;
    const len = effectiveLength(l, starts[i], r);
    lengths[name] = isNull ? null : len;
    return `${name}=${isNull ? '0 (NULL)' : len}`;
  });
  return new ExecutionError('EXPLODE_LENGTH_MISMATCH', `explode: row ${row} has lists of different lengths: ${parts.join(', ')}`, {
    row,
    column: input.names.join(', '),
    lengths,
  });
}
