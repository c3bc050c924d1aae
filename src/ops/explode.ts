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
 *   2. The plan (`explodePlan`): per input row r its first output row `outStart[r]` (n+1
 *      entries, a prefix sum) and its element count `len[r]` (0 for the all-NULL row or no row),
 *      and per list its element start positions `starts_i` (n+1 numbers). Output rows
 *      outStart[r] .. outStart[r+1]-1 belong to row r; element e of row r is child position
 *      starts_i[r] + e. Column builders work from this (src/columns/runs: parent columns repeat
 *      a row, element columns copy child ranges as blocks) in O(n) per column plus the bytes.
 *   3. Or index arrays (`explodeIndices`, for the other column types): parent[p] = r;
 *      child_i[p] = start_i(r) + e (absolute child position, -1 on the all-NULL row);
 *      ordinality[p] = e + 1 (0 on the all-NULL row, meaning NULL).
 *
 * Invariants: parent is non-decreasing (input row order, then element position); child_i are
 * positions in list i's child Data as its offsets give them. No per-row allocation; int64
 * offsets are read once through 32-bit halves (no BigInt per row).
 * Complexity: plan O(n * k); indices O(out * (k + 2)) time and memory.
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

/** out[r] = the effective length of row r of `l` (0 for a NULL list). */
function effectiveLengths(l: ExplodeListInput, s: Int32Array | Float64Array | null, out: Int32Array): void {
  const { n, valid } = l;
  if (s === null) out.fill(l.size as number, 0, n);
  else for (let r = 0; r < n; r++) out[r] = s[r + 1] - s[r];
  if (valid !== null) for (let r = 0; r < n; r++) if (valid[r] === 0) out[r] = 0;
}

/** The first row before `limit` whose effective length in `l` differs from lens[r], else `limit`. */
function firstMismatch(l: ExplodeListInput, s: Int32Array | Float64Array | null, lens: Int32Array, limit: number): number {
  const valid = l.valid;
  const size = l.size as number;
  for (let r = 0; r < limit; r++) {
    const len = valid !== null && valid[r] === 0 ? 0 : s === null ? size : s[r + 1] - s[r];
    if (len !== lens[r]) return r;
  }
  return limit;
}

export interface ExplodePlan {
  /** Output row count. */
  length: number;
  /** Input rows. */
  n: number;
  /** First output row of each input row; outStart[n] = length. */
  outStart: Int32Array;
  /** Elements of each input row in the output (0: an all-NULL row, or no row when ignored). */
  len: Int32Array;
  /** Sum of len: output rows that carry elements (the others are all-NULL rows). */
  elements: number;
  /** Per input list: child position of each row's first element (n+1 entries). */
  starts: Array<Int32Array | Float64Array>;
}

/** Step 1 (validation, sizes) and the plan of step 2. */
export function explodePlan(input: ExplodeKernelInput): ExplodePlan {
  const { lists, ignoreEmptyAndNull } = input;
  const k = lists.length;
  if (k === 0) throw new Error('explode kernel: no input lists');
  const n = lists[0].n;
  for (const l of lists) if (l.n !== n) throw new Error(`explode kernel: inputs of ${n} and ${l.n} rows`);
  const starts = lists.map(startsOf);

  const temp = input.scratchInt32 ?? ((len: number) => new Int32Array(len));
  const outStart = temp(n + 1);
  const lens = temp(Math.max(n, 1));
  // Lengths one list at a time (tight loops, no call per row); the reported mismatch is the
  // first row where any list differs from the first.
  effectiveLengths(lists[0], starts[0], lens);
  let bad = n;
  for (let i = 1; i < k; i++) bad = Math.min(bad, firstMismatch(lists[i], starts[i], lens, bad));
  if (bad < n) throw mismatch(input, starts, bad);
  let total = 0;
  let elements = 0;
  const empty = ignoreEmptyAndNull ? 0 : 1;
  for (let r = 0; r < n; r++) {
    const len = lens[r];
    outStart[r] = total;
    elements += len;
    total += len > 0 ? len : empty;
  }
  // checked after every row's lengths (a mismatch is reported first); outStart wrapped if so
  if (total > MAX_INT32) throw new ExecutionError('EXPLODE_TOO_LARGE', `explode: ${total} output rows in one batch exceed ${MAX_INT32}`, {});
  outStart[n] = total;
  const positions = lists.map((l, i) => {
    const s = starts[i];
    if (s !== null) return s;
    // fixed-size lists: row r starts at r * size
    const size = l.size as number;
    if (n * size > MAX_INT32) throw new ExecutionError('EXPLODE_TOO_LARGE', `explode: a fixed-size list's child positions exceed ${MAX_INT32}`, {});
    const out = temp(n + 1);
    for (let r = 0; r <= n; r++) out[r] = r * size;
    return out;
  });
  return { length: total, n, outStart, len: lens, elements, starts: positions };
}

/** The 1-based element position of each output row, 0 on all-NULL rows. */
export function explodeOrdinality(plan: ExplodePlan, out: Int32Array): Int32Array {
  const { n, outStart, len } = plan;
  for (let r = 0; r < n; r++) {
    const p = outStart[r];
    const l = len[r];
    for (let e = 0; e < l; e++) out[p + e] = e + 1;
  }
  return out;
}

export function explodeIndices(input: ExplodeKernelInput): ExplodeIndices {
  const plan = explodePlan(input);
  const temp = input.scratchInt32 ?? ((len: number) => new Int32Array(len));
  const total = plan.length;
  const parent = parentIndices(plan, temp(total));
  const child = plan.starts.map((s) => childIndices(plan, s, temp(total)));
  const wantOrd = input.ordinality !== false;
  const ord = wantOrd ? explodeOrdinality(plan, input.allocInt32 ? input.allocInt32(total) : new Int32Array(total)) : null;
  return { length: total, parent, child, ordinality: ord };
}

/** parent[p] = the input row of output row p. */
export function parentIndices(plan: Pick<ExplodePlan, 'n' | 'outStart'>, out: Int32Array): Int32Array {
  const { n, outStart } = plan;
  for (let r = 0; r < n; r++) out.fill(r, outStart[r], outStart[r + 1]);
  return out;
}

/** child[p] = the child position of output row p in the list whose starts are `s`, -1 on all-NULL rows. */
export function childIndices(plan: Pick<ExplodePlan, 'n' | 'outStart' | 'len'>, s: Int32Array | Float64Array, out: Int32Array): Int32Array {
  const { n, outStart, len } = plan;
  for (let r = 0; r < n; r++) {
    const p = outStart[r];
    const l = len[r];
    if (l === 0) {
      if (outStart[r + 1] > p) out[p] = -1;
      continue;
    }
    for (let e = s[r], q = p, end = p + l; q < end; q++) out[q] = e++;
  }
  return out;
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
