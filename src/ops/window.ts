/**
 * Window kernel: every window function over sorted rows (pure, typed arrays).
 *
 * Input: n rows already sorted by (partition group, order keys, row id), the group starts, the
 * order-key and distinct measure columns in that order, the ResolvedWindow (plain data), and
 * for countDistinct the dense value ids of its measures.
 * Steps:
 *   1. frames: one [lo, hi) pair of arrays per DISTINCT resolved frame (window-frames.ts), and
 *      the peer groups once (ranking, GROUPS and peer frames share them);
 *   2. per measure, lazily and once: the running non-NULL count and non-NULL positions, the ONE
 *      integer prefix shared by every sum/avg column on it (window-sum.ts), the decimal prefix
 *      (window-decimal.ts), the exact moment prefix (window-stats.ts), and the canonical float
 *      sums / moments of all its float columns in one level-by-level pass;
 *   3. per output column: O(1) per row from the prefixes and index arithmetic (sums, counts,
 *      averages, integer variances, ranking, lag/lead, first/last/nthValue), O(1) amortized for
 *      min/max (deque) and countDistinct (sliding multiset), O(log W) for float sums/variances.
 *   `minPeriods` turns rows whose frame holds fewer non-NULL values into NULLs.
 * Outputs are in sorted order, one per column, either computed values ('values': int64 →
 * BigInt64Array, uint64 → BigUint64Array, float64 → Float64Array, decimal128 → Uint32Array of 4
 * words per row, duration → BigInt64Array; `valid` null when no row is NULL) or a 'take': per row
 * the sorted position of a measure row whose value is the result (-1 = NULL, -2 = lag/lead's
 * default), so min/max/first/last/nthValue/lag/lead of any type are a gather of the measure.
 * `computeWindowNaive` shares the frames but re-folds every frame row by row (O(W) per row) with
 * the same arithmetic, so both paths return identical bits (benchmark baseline).
 */
import type { TypeDesc } from '../types/column.js';
import type { Allocator, KeyColumn, TypedArray, TypedArrayConstructor } from '../types/keys.js';
import { countDistinctNaive, countDistinctSliding } from './window-distinct.js';
import { decimalPrefix, decimalSumAvg, decimalSumAvgNaive, type DecimalPrefix } from './window-decimal.js';
import { computeFrames, computePeers, type FrameBounds, type PeerGroups } from './window-frames.js';
import { words64 } from './int64-words.js';
import { minMaxArgs, minMaxArgsNaive } from './window-minmax.js';
import { frameNthIndex, frameNthIndexNaive, nonNullIndex, offsetIndex, offsetIndexNaive, TAKE_DEFAULT, type NonNullIndex } from './window-nav.js';
import { rankColumn, type RankFn } from './window-rank.js';
import type { ResolvedWindow, ResolvedWindowColumn } from './window-spec.js';
import {
  floatMomentNaive,
  floatMoments,
  intVariance,
  intVarianceNaive,
  momentPrefix,
  momentsToVariance,
  type FloatMomentJob,
  type MomentPrefix,
  type VarianceKind,
} from './window-stats.js';
import {
  countPrefix,
  floatBase,
  floatRunningSumNaive,
  floatRunningSums,
  floatSumNaive,
  floatSums,
  intMeanRounded,
  intPrefix,
  intSumAvg,
  meanOfWide,
  wideMean,
  type FloatSumJob,
  type IntPrefix,
} from './window-sum.js';

export { TAKE_DEFAULT } from './window-nav.js';

export interface WindowKernelInput {
  /** Rows of this task, ALREADY SORTED by (partition group, order keys, row id). */
  n: number;
  /** Start of each partition group in sorted order, then n (length groups + 1). */
  groupStarts: Uint32Array;
  /** Order-by columns in sorted order (ResolvedWindow.orderBy order). */
  order: KeyColumn[];
  /**
   * Distinct measure columns in sorted order (ResolvedWindow.measures order). Measures read only
   * by take functions (first/last/nthValue/lag/lead) of nested types may carry just `valid`.
   */
  measures: KeyColumn[];
  window: ResolvedWindow;
  /** countDistinct: dense ids of each measure's values in sorted order (NULL = -1); null for other measures. */
  distinctIds?: Array<{ ids: Int32Array; count: number } | null>;
}

export type WindowColumnOut =
  | { kind: 'values'; type: TypeDesc; values: TypedArray; valid: Uint8Array | null }
  /** index[r] = sorted position in measure `measure` (-1 = NULL, TAKE_DEFAULT = the column's default). */
  | { kind: 'take'; type: TypeDesc; measure: number; index: Int32Array };

export type TypedArrayCtor = TypedArrayConstructor;

/** Allocates an output array (e.g. in a task's scratch); every element is written. */
export type WindowAlloc = Allocator;

const defaultAlloc: WindowAlloc = (ctor, length) => new ctor(length);

interface Ctx {
  input: WindowKernelInput;
  alloc: WindowAlloc;
  naive: boolean;
  frames: Map<string, FrameBounds>;
  peers: PeerGroups | null;
  counts: Map<number, Int32Array | null>;
  nonNull: Map<number, NonNullIndex>;
  prefixes: Map<number, IntPrefix>;
  decimals: Map<number, DecimalPrefix>;
  moments: Map<number, MomentPrefix>;
  floatOut: Map<ResolvedWindowColumn, Float64Array>;
  floatMoments: Map<ResolvedWindowColumn, FloatMomentJob>;
}

function peersOf(ctx: Ctx): PeerGroups {
  if (!ctx.peers) {
    const { n, groupStarts, order } = ctx.input;
    ctx.peers = computePeers(n, groupStarts, order, ctx.alloc);
  }
  return ctx.peers;
}

function framesOf(ctx: Ctx, col: ResolvedWindowColumn): FrameBounds {
  const key = JSON.stringify(col.frame);
  let fb = ctx.frames.get(key);
  if (!fb) {
    const { n, groupStarts, order, window } = ctx.input;
    fb = computeFrames(n, groupStarts, order, window.orderBy, col.frame!, () => peersOf(ctx), ctx.alloc);
    ctx.frames.set(key, fb);
  }
  return fb;
}

/** Running non-NULL count of a measure, or null when the measure has no NULLs. */
function countsOf(ctx: Ctx, measure: number): Int32Array | null {
  if (!ctx.counts.has(measure)) {
    const col = ctx.input.measures[measure]!;
    ctx.counts.set(measure, col.valid ? countPrefix(col.valid, ctx.input.n, ctx.alloc) : null);
  }
  return ctx.counts.get(measure)!;
}

function nonNullOf(ctx: Ctx, measure: number): NonNullIndex {
  let nn = ctx.nonNull.get(measure);
  if (!nn) {
    nn = nonNullIndex(ctx.input.measures[measure]!.valid, ctx.input.n, ctx.alloc);
    ctx.nonNull.set(measure, nn);
  }
  return nn;
}

function memo<T>(map: Map<number, T>, key: number, make: () => T): T {
  let v = map.get(key);
  if (v === undefined) {
    v = make();
    map.set(key, v);
  }
  return v;
}

function isFloatCol(col: KeyColumn): boolean {
  return col.values instanceof Float64Array || col.values instanceof Float32Array;
}

const INT64_CTOR = BigInt64Array;

function newValid(ctx: Ctx, n: number): Uint8Array {
  const v = ctx.alloc(Uint8Array, n, 'overwritten') as Uint8Array;
  v.fill(1);
  return v;
}

/** Non-NULL values of a measure in frame r (rows of the frame for count() of rows). */
function frameCount(counts: Int32Array | null, lo: Int32Array, hi: Int32Array, r: number): number {
  return counts ? counts[hi[r]!]! - counts[lo[r]!]! : hi[r]! - lo[r]!;
}

/**
 * The first row from `from` on whose frame holds fewer than k non-NULL values (n: none). A
 * loop per case, where frameCount tests for `counts` every row (window6 warm runs: ~5.15 ->
 * ~4.88 s with it).
 */
function firstFewer(counts: Int32Array | null, lo: Int32Array, hi: Int32Array, k: number, from: number, n: number): number {
  if (counts) {
    for (let r = from; r < n; r++) if (counts[hi[r]!]! - counts[lo[r]!]! < k) return r;
  } else {
    for (let r = from; r < n; r++) if (hi[r]! - lo[r]! < k) return r;
  }
  return n;
}

/**
 * The first NULL row (rowValid[r] = 0) from `from` on whose frame, ending at it, holds no
 * non-NULL value (n: none).
 */
function firstEmptyAtNull(rowValid: Uint8Array, counts: Int32Array, lo: Int32Array, from: number, n: number): number {
  for (let r = from; r < n; r++) if (rowValid[r] === 0 && counts[r + 1]! === counts[lo[r]!]!) return r;
  return n;
}

/**
 * A validity array with 0 where the frame holds fewer than k non-NULL values, or null when no
 * frame does. `rowValid`: the measure's validity by row, when `counts` is its running count.
 */
function nullsWhereFewer(ctx: Ctx, fb: FrameBounds, counts: Int32Array | null, k: number, rowValid: Uint8Array | null = null): Uint8Array | null {
  const { lo, hi } = fb;
  const n = lo.length;
  let valid: Uint8Array | null = null;
  // Without NULLs a frame's count is its width: every frame at least k wide, nothing to check
  // (window6: 30 sums over 5 frames, each row checked 30 times where 5 passes now decide).
  if (k <= 0 || (counts === null && fb.minWidth >= k)) return valid;
  if (k === 1 && counts !== null && rowValid !== null && fb.endsAtRow) {
    // A frame that ends at its row holds a value unless that row is NULL: only those rows are
    // counted (a byte a row read, where every row's count read four arrays: window6 warm runs
    // ~4.57 -> ~4.45 s).
    for (let r = firstEmptyAtNull(rowValid, counts, lo, 0, n); r < n; r = firstEmptyAtNull(rowValid, counts, lo, r + 1, n)) {
      valid ??= newValid(ctx, n);
      valid[r] = 0;
    }
    return valid;
  }
  for (let r = firstFewer(counts, lo, hi, k, 0, n); r < n; r = firstFewer(counts, lo, hi, k, r + 1, n)) {
    valid ??= newValid(ctx, n);
    valid[r] = 0;
  }
  return valid;
}

/** index[r] = -1 where the frame holds fewer than k non-NULL values. */
function takeWhereEnough(fb: FrameBounds, counts: Int32Array | null, k: number, index: Int32Array): void {
  if (k <= 0 || (counts === null && fb.minWidth >= k)) return;
  const { lo, hi } = fb;
  const n = index.length;
  for (let r = firstFewer(counts, lo, hi, k, 0, n); r < n; r = firstFewer(counts, lo, hi, k, r + 1, n)) index[r] = -1;
}

/**
 * Bytes per row of the kernel's temporaries and outputs, all taken from `alloc`, for what this
 * window uses: frames (8 per distinct frame), peer groups (12), per measure its running count
 * (4) and non-NULL index (8), its integer (12), decimal (20) or moment (24) prefix, the float
 * base and pairwise tables (8 + 24), the min/max deque and keys (12); per column its output
 * (values up to 16 bytes + validity, or a 4-byte take) and a float job (8 or 24).
 * Slow paths (BigInt prefixes of huge values) allocate outside it.
 */
export function kernelBytesPerRow(window: ResolvedWindow): number {
  const cols = window.columns;
  const framed = cols.filter((c) => c.frame !== null);
  let bytes = 8 * new Set(framed.map((c) => JSON.stringify(c.frame))).size;
  if (cols.some((c) => c.frame === null || c.frame.mode === 'peers' || c.frame.mode === 'groups')) bytes += 12;
  window.measures.forEach((m, i) => {
    const on = cols.filter((c) => c.measure === i);
    const isFloat = m.type.kind === 'float';
    if (m.nullable) bytes += 4;
    if (on.some((c) => c.ignoreNulls)) bytes += 8;
    if (on.some((c) => c.fn === 'sum' || c.fn === 'avg')) bytes += isFloat ? 8 : m.type.kind === 'decimal' ? 20 : 12;
    if (on.some((c) => VARIANCE_FNS.has(c.fn))) bytes += isFloat ? 24 : 24;
    if (on.some((c) => c.fn === 'min' || c.fn === 'max')) bytes += 12;
  });
  for (const c of cols) {
    const isFloat = c.measure >= 0 && window.measures[c.measure]!.type.kind === 'float';
    bytes += c.type.kind === 'decimal' ? 17 : 9;
    if (isFloat && (c.fn === 'sum' || c.fn === 'avg')) bytes += 8;
    if (isFloat && VARIANCE_FNS.has(c.fn)) bytes += 24;
  }
  return bytes;
}

export function computeWindow(input: WindowKernelInput, alloc: WindowAlloc = defaultAlloc): WindowColumnOut[] {
  return run(input, alloc, false);
}

/** Same results as computeWindow, re-folding every frame row by row (benchmark baseline). */
export function computeWindowNaive(input: WindowKernelInput, alloc: WindowAlloc = defaultAlloc): WindowColumnOut[] {
  return run(input, alloc, true);
}

function run(input: WindowKernelInput, alloc: WindowAlloc, naive: boolean): WindowColumnOut[] {
  const ctx: Ctx = {
    input,
    alloc,
    naive,
    frames: new Map(),
    peers: null,
    counts: new Map(),
    nonNull: new Map(),
    prefixes: new Map(),
    decimals: new Map(),
    moments: new Map(),
    floatOut: new Map(),
    floatMoments: new Map(),
  };
  if (!naive) {
    prepareFloatSums(ctx);
    prepareFloatMoments(ctx);
  }
  return input.window.columns.map((col) => column(ctx, col));
}

const VARIANCE_FNS = new Set(['stddev', 'variance', 'stddevPop', 'varPop']);

/**
 * Whether a column's frame runs from UNBOUNDED PRECEDING to a bounded end: its float sums take
 * the start-anchored order (window-sum.ts floatRunningSums), which ranges of a partition too
 * big for one task continue from a carried state (window-outside.ts).
 */
export function isRunningFrame(col: ResolvedWindowColumn): boolean {
  return col.frame !== null && col.frame.preceding === null && col.frame.following !== null;
}

/** One level-by-level pass per float measure for all its sum/avg columns (running frames: one counter pass each). */
function prepareFloatSums(ctx: Ctx): void {
  const { window, measures, n } = ctx.input;
  const byMeasure = new Map<number, { col: ResolvedWindowColumn; job: FloatSumJob }[]>();
  for (const col of window.columns) {
    if ((col.fn !== 'sum' && col.fn !== 'avg') || col.measure < 0 || !isFloatCol(measures[col.measure]!)) continue;
    const fb = framesOf(ctx, col);
    const out = ctx.alloc(Float64Array, n);
    if (isRunningFrame(col)) {
      floatRunningSums(floatBase(measures[col.measure]!, n, ctx.alloc), fb.lo, fb.hi, out);
      ctx.floatOut.set(col, out);
      continue;
    }
    const list = byMeasure.get(col.measure) ?? [];
    list.push({ col, job: { lo: fb.lo, hi: fb.hi, maxWidth: fb.maxWidth, out } });
    byMeasure.set(col.measure, list);
  }
  for (const [m, list] of byMeasure) {
    floatSums(measures[m]!, n, list.map((x) => x.job), ctx.alloc);
    for (const { col, job } of list) ctx.floatOut.set(col, job.out);
  }
}

/** One level-by-level pass per float measure for all its variance columns. */
function prepareFloatMoments(ctx: Ctx): void {
  const { window, measures, n } = ctx.input;
  const byMeasure = new Map<number, { col: ResolvedWindowColumn; job: FloatMomentJob }[]>();
  for (const col of window.columns) {
    if (!VARIANCE_FNS.has(col.fn) || !isFloatCol(measures[col.measure]!)) continue;
    const fb = framesOf(ctx, col);
    const job: FloatMomentJob = { lo: fb.lo, hi: fb.hi, maxWidth: fb.maxWidth, cnt: ctx.alloc(Float64Array, n), mean: ctx.alloc(Float64Array, n), m2: ctx.alloc(Float64Array, n) };
    const list = byMeasure.get(col.measure) ?? [];
    list.push({ col, job });
    byMeasure.set(col.measure, list);
  }
  for (const [m, list] of byMeasure) {
    floatMoments(measures[m]!, n, list.map((x) => x.job), ctx.alloc);
    for (const { col, job } of list) ctx.floatMoments.set(col, job);
  }
}

function values(col: ResolvedWindowColumn, values: TypedArray, valid: Uint8Array | null): WindowColumnOut {
  return { kind: 'values', type: col.type, values, valid };
}

function column(ctx: Ctx, col: ResolvedWindowColumn): WindowColumnOut {
  const { n, groupStarts } = ctx.input;
  switch (col.fn) {
    case 'rowNumber':
    case 'rank':
    case 'denseRank':
    case 'ntile': {
      const out = ctx.alloc(INT64_CTOR, n) as BigInt64Array;
      rankColumn(col.fn as RankFn, groupStarts, peersOf(ctx), col.n || 1, words64(out), null);
      return values(col, out, null);
    }
    case 'percentRank':
    case 'cumeDist': {
      const out = ctx.alloc(Float64Array, n) as Float64Array;
      rankColumn(col.fn, groupStarts, peersOf(ctx), 1, null, out);
      return values(col, out, null);
    }
    case 'lag':
    case 'lead': {
      const index = ctx.alloc(Int32Array, n) as Int32Array;
      const outside = col.default !== null && col.default.kind !== 'null' ? TAKE_DEFAULT : -1;
      const m = ctx.input.measures[col.measure]!;
      if (ctx.naive) offsetIndexNaive(groupStarts, col.n, outside, col.ignoreNulls ? m.valid : null, index);
      else offsetIndex(groupStarts, col.n, outside, col.ignoreNulls && m.valid ? nonNullOf(ctx, col.measure) : null, index);
      return { kind: 'take', type: col.type, measure: col.measure, index };
    }
    case 'first':
    case 'last':
    case 'nthValue': {
      const fb = framesOf(ctx, col);
      const index = ctx.alloc(Int32Array, n) as Int32Array;
      const m = ctx.input.measures[col.measure]!;
      const nth = col.fn === 'nthValue' ? col.n : 1;
      const fromEnd = col.fn === 'last';
      const skip = col.ignoreNulls && m.valid !== null;
      if (ctx.naive) frameNthIndexNaive(fb.lo, fb.hi, nth, fromEnd, skip ? m.valid : null, index);
      else frameNthIndex(fb.lo, fb.hi, nth, fromEnd, skip ? nonNullOf(ctx, col.measure) : null, index);
      takeWhereEnough(fb, countsOf(ctx, col.measure), col.minPeriods, index);
      return { kind: 'take', type: col.type, measure: col.measure, index };
    }
    case 'min':
    case 'max': {
      const fb = framesOf(ctx, col);
      const m = ctx.input.measures[col.measure]!;
      const index = ctx.alloc(Int32Array, n) as Int32Array;
      if (ctx.naive) minMaxArgsNaive(m, fb.lo, fb.hi, col.fn === 'max', index);
      else minMaxArgs(m, groupStarts, fb.lo, fb.hi, col.fn === 'max', index, ctx.alloc);
      takeWhereEnough(fb, countsOf(ctx, col.measure), col.minPeriods, index);
      return { kind: 'take', type: col.type, measure: col.measure, index };
    }
    case 'count':
      return countColumn(ctx, col);
    case 'countDistinct':
      return countDistinctColumn(ctx, col);
    case 'sum':
    case 'avg':
      return sumAvgColumn(ctx, col);
    default:
      return varianceColumn(ctx, col);
  }
}

function countColumn(ctx: Ctx, col: ResolvedWindowColumn): WindowColumnOut {
  const { n, measures } = ctx.input;
  const fb = framesOf(ctx, col);
  const { lo, hi } = fb;
  const counts = col.measure >= 0 ? countsOf(ctx, col.measure) : null;
  const out = ctx.alloc(INT64_CTOR, n) as BigInt64Array;
  const o = words64(out);
  if (ctx.naive) {
    const mv = col.measure >= 0 ? measures[col.measure]!.valid : null;
    for (let r = 0; r < n; r++) {
      let c = 0;
      for (let j = lo[r]!; j < hi[r]!; j++) if (!mv || mv[j] !== 0) c++;
      o[2 * r] = c;
      o[2 * r + 1] = 0;
    }
  } else {
    for (let r = 0; r < n; r++) {
      o[2 * r] = frameCount(counts, lo, hi, r);
      o[2 * r + 1] = 0;
    }
  }
  return values(col, out, nullsWhereFewer(ctx, fb, counts, col.minPeriods));
}

function countDistinctColumn(ctx: Ctx, col: ResolvedWindowColumn): WindowColumnOut {
  const { n, groupStarts } = ctx.input;
  const fb = framesOf(ctx, col);
  const ids = ctx.input.distinctIds?.[col.measure];
  if (!ids) throw new Error(`internal: countDistinct needs the dense value ids of measure ${col.measure}`);
  const out = ctx.alloc(INT64_CTOR, n) as BigInt64Array;
  if (ctx.naive) countDistinctNaive(ids.ids, ids.count, fb.lo, fb.hi, words64(out));
  else countDistinctSliding(ids.ids, ids.count, groupStarts, fb.lo, fb.hi, words64(out), ctx.alloc);
  return values(col, out, nullsWhereFewer(ctx, fb, countsOf(ctx, col.measure), col.minPeriods));
}

function sumAvgColumn(ctx: Ctx, col: ResolvedWindowColumn): WindowColumnOut {
  const { n, measures } = ctx.input;
  const fb = framesOf(ctx, col);
  const { lo, hi } = fb;
  const m = measures[col.measure]!;
  const counts = countsOf(ctx, col.measure);
  const minCount = Math.max(1, col.minPeriods);
  const isSum = col.fn === 'sum';

  if (m.type.kind === 'decimal') {
    const scale = m.type.scale;
    const out = isSum ? (ctx.alloc(Uint32Array, 4 * n) as Uint32Array) : null;
    const avg = isSum ? null : (ctx.alloc(Float64Array, n) as Float64Array);
    const mk = () => newValid(ctx, n);
    const valid = ctx.naive
      ? decimalSumAvgNaive(m, lo, hi, scale, minCount, out, avg, mk)
      : decimalSumAvg(memo(ctx.decimals, col.measure, () => decimalPrefix(m, n, ctx.alloc)), lo, hi, counts, scale, minCount, out, avg, mk);
    return values(col, (out ?? avg)!, valid);
  }
  const valid = nullsWhereFewer(ctx, fb, counts, minCount, ctx.naive ? null : m.valid);
  if (isFloatCol(m)) {
    if (ctx.naive) return floatNaive(ctx, col, m, valid);
    const sums = ctx.floatOut.get(col)!;
    if (isSum) return values(col, sums, valid);
    const out = ctx.alloc(Float64Array, n) as Float64Array;
    for (let r = 0; r < n; r++) {
      const c = frameCount(counts, lo, hi, r);
      out[r] = c === 0 ? 0 : sums[r]! / c;
    }
    return values(col, out, valid);
  }
  if (ctx.naive) return intNaive(ctx, col, m, valid);
  const prefix = memo(ctx.prefixes, col.measure, () => intPrefix(m, n, ctx.alloc));
  if (isSum) {
    // uint64 sums wrap in uint64: the same bits, read unsigned
    // intSumAvg writes every row
    const out = col.type.kind === 'int' && !col.type.signed ? (ctx.alloc(BigUint64Array, n, 'overwritten') as unknown as BigInt64Array) : ctx.alloc(BigInt64Array, n, 'overwritten');
    intSumAvg(prefix, lo, hi, words64(out), null, counts);
    return values(col, out, valid);
  }
  if (col.type.kind === 'duration') {
    const out = ctx.alloc(BigInt64Array, n) as BigInt64Array;
    intMeanRounded(prefix, lo, hi, counts, words64(out));
    return values(col, out, valid);
  }
  const out = ctx.alloc(Float64Array, n) as Float64Array;
  intSumAvg(prefix, lo, hi, null, out, counts);
  if (valid) for (let r = 0; r < n; r++) if (valid[r] === 0) out[r] = 0;
  return values(col, out, valid);
}

function varianceColumn(ctx: Ctx, col: ResolvedWindowColumn): WindowColumnOut {
  const { n, measures } = ctx.input;
  const fb = framesOf(ctx, col);
  const m = measures[col.measure]!;
  const kind = col.fn as VarianceKind;
  const sample = kind === 'variance' || kind === 'stddev';
  const minCount = Math.max(sample ? 2 : 1, col.minPeriods);
  const out = ctx.alloc(Float64Array, n) as Float64Array;
  const mk = () => newValid(ctx, n);
  if (isFloatCol(m)) {
    if (ctx.naive) {
      const cnt = ctx.alloc(Float64Array, n);
      const m2 = ctx.alloc(Float64Array, n);
      const acc = { cnt: 0, mean: 0, m2: 0 };
      for (let r = 0; r < n; r++) {
        floatMomentNaive(m, fb.lo[r]!, fb.hi[r]!, acc);
        cnt[r] = acc.cnt;
        m2[r] = acc.m2;
      }
      return values(col, out, momentsToVariance(cnt, m2, kind, minCount, out, mk));
    }
    const job = ctx.floatMoments.get(col)!;
    return values(col, out, momentsToVariance(job.cnt, job.m2, kind, minCount, out, mk));
  }
  const scale = m.type.kind === 'decimal' ? m.type.scale : 0;
  if (ctx.naive) return values(col, out, intVarianceNaive(m, fb.lo, fb.hi, kind, scale, minCount, out, mk));
  const prefix = memo(ctx.moments, col.measure, () => momentPrefix(m, n, ctx.alloc));
  return values(col, out, intVariance(prefix, fb.lo, fb.hi, countsOf(ctx, col.measure), kind, scale, minCount, out, mk));
}

/** Naive float sum/avg: the canonical order folded from scratch per frame. */
function floatNaive(ctx: Ctx, col: ResolvedWindowColumn, mc: KeyColumn, valid: Uint8Array | null): WindowColumnOut {
  const { n } = ctx.input;
  const { lo, hi } = framesOf(ctx, col);
  const mv = mc.valid;
  const base = floatBase(mc, n, ctx.alloc);
  const running = isRunningFrame(col);
  const o = ctx.alloc(Float64Array, n) as Float64Array;
  for (let r = 0; r < n; r++) {
    let c = 0;
    for (let j = lo[r]!; j < hi[r]!; j++) if (!mv || mv[j] !== 0) c++;
    if (valid && valid[r] === 0) {
      o[r] = 0;
      continue;
    }
    const s = running ? floatRunningSumNaive(base, lo[r]!, hi[r]!) : floatSumNaive(base, lo[r]!, hi[r]!);
    o[r] = col.fn === 'sum' ? s : s / c;
  }
  return values(col, o, valid);
}

const TWO32 = 4294967296;

/** Naive integer sum/avg: folds each frame into three 32-bit limbs (exact and wrapping-correct). */
function intNaive(ctx: Ctx, col: ResolvedWindowColumn, mc: KeyColumn, valid: Uint8Array | null): WindowColumnOut {
  const { n } = ctx.input;
  const { lo, hi } = framesOf(ctx, col);
  const mv = mc.valid;
  const v = mc.values;
  const is64 = v instanceof BigInt64Array || v instanceof BigUint64Array;
  const u = is64 ? words64(v) : null;
  const signed = !(v instanceof BigUint64Array || v instanceof Uint8Array || v instanceof Uint16Array || v instanceof Uint32Array);
  const w = v as Exclude<TypedArray, BigInt64Array | BigUint64Array>;
  const isSum = col.fn === 'sum';
  const durationAvg = !isSum && col.type.kind === 'duration';
  const unsigned = col.type.kind === 'int' && !col.type.signed;
  const out: TypedArray = isSum || durationAvg ? (unsigned ? ctx.alloc(BigUint64Array, n) : ctx.alloc(BigInt64Array, n)) : ctx.alloc(Float64Array, n);
  const o32 = isSum || durationAvg ? words64(out as BigInt64Array) : null;
  for (let r = 0; r < n; r++) {
    let l = 0;
    let mm = 0;
    let h = 0;
    let c = 0;
    for (let j = lo[r]!; j < hi[r]!; j++) {
      if (mv && mv[j] === 0) continue;
      c++;
      let xl: number;
      let xh: number;
      if (u) {
        xl = u[2 * j]!;
        xh = u[2 * j + 1]!;
      } else {
        const x = w[j]!;
        xl = x < 0 ? x + TWO32 : x;
        xh = x < 0 ? TWO32 - 1 : 0;
      }
      l += xl;
      if (l >= TWO32) {
        l -= TWO32;
        mm += 1;
      }
      mm += xh;
      if (mm >= TWO32) {
        mm -= TWO32;
        h += 1;
      }
      if (signed && xh >= 0x80000000) h -= 1;
    }
    if (valid && valid[r] === 0) {
      if (o32) o32[2 * r] = o32[2 * r + 1] = 0;
      else (out as Float64Array)[r] = 0;
      continue;
    }
    if (isSum) {
      o32![2 * r] = l;
      o32![2 * r + 1] = mm;
    } else if (durationAvg) meanOfWide(h, mm, l, c, o32!, r);
    else (out as Float64Array)[r] = wideMean(h, mm, l, c);
  }
  return values(col, out, valid);
}
