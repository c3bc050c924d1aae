/**
 * Window kernel: sliding sum / count / avg / min / max over sorted rows (pure, typed arrays).
 *
 * Input: n rows already sorted by (partition group, order keys, row id), the group starts, the
 * order-key and distinct measure columns in that order, and the ResolvedWindow (plain data).
 * Steps:
 *   1. frames: one [lo, hi) pair of arrays per DISTINCT resolved frame (window-frames.ts);
 *   2. per measure, lazily and once: the running non-NULL count (nullable measures), the ONE
 *      integer prefix shared by every sum/avg column on it (window-sum.ts), and the canonical
 *      float sums of all its float sum/avg columns in one level-by-level pass;
 *   3. per output column: O(1) per row from the prefixes, or the deque min/max
 *      (window-minmax.ts); a frame with no non-NULL value → NULL (count → 0).
 * Outputs are in sorted order: int64 → BigInt64Array, uint64 → BigUint64Array, float64 →
 * Float64Array, min/max → the measure's typed-array kind; `valid` is null when no row is NULL.
 * Cost: O(n) per distinct frame + O(n) per integer measure + O(1) per row per sum/count/avg
 * column; O(log W) per row for float sums; O(1) amortized for min/max. Extra memory O(n) per
 * distinct frame and per measure.
 * `computeWindowNaive` shares the frames but re-folds every frame row by row (O(W) per row)
 * with the same arithmetic, so both paths return identical bits (benchmark baseline).
 */
import type { TypeDesc } from '../types/column.js';
import type { Allocator, KeyColumn, TypedArray, TypedArrayConstructor } from '../types/keys.js';
import { computeFrames, halves, type FrameBounds } from './window-frames.js';
import { gatherArgs, minMaxArgs, minMaxArgsNaive } from './window-minmax.js';
import type { ResolvedWindow, ResolvedWindowColumn } from './window-spec.js';
import { countPrefix, floatBase, floatSumNaive, floatSums, intPrefix, intSumAvg, wideToNumber, type FloatSumJob, type IntPrefix } from './window-sum.js';

export interface WindowKernelInput {
  /** Rows of this task, ALREADY SORTED by (partition group, order keys, row id). */
  n: number;
  /** Start of each partition group in sorted order, then n (length groups + 1). */
  groupStarts: Uint32Array;
  /** Order-by columns in sorted order (ResolvedWindow.orderBy order). */
  order: KeyColumn[];
  /** Distinct measure columns in sorted order (ResolvedWindow.measures order). */
  measures: KeyColumn[];
  window: ResolvedWindow;
}

export interface WindowColumnOut {
  type: TypeDesc;
  values: TypedArray;
  valid: Uint8Array | null;
}

export type TypedArrayCtor = TypedArrayConstructor;

/** Allocates an output array (e.g. in a task's scratch); every element is written. */
export type WindowAlloc = Allocator;

const defaultAlloc: WindowAlloc = (ctor, length) => new ctor(length);

interface Ctx {
  input: WindowKernelInput;
  alloc: WindowAlloc;
  frames: Map<string, FrameBounds>;
  counts: Map<number, Int32Array | null>;
  prefixes: Map<number, IntPrefix>;
  floatOut: Map<ResolvedWindowColumn, Float64Array>;
}

function framesOf(ctx: Ctx, col: ResolvedWindowColumn): FrameBounds {
  const key = JSON.stringify(col.frame);
  let fb = ctx.frames.get(key);
  if (!fb) {
    const { n, groupStarts, order, window } = ctx.input;
    fb = computeFrames(n, groupStarts, order, window.orderBy, col.frame);
    ctx.frames.set(key, fb);
  }
  return fb;
}

/** Running non-NULL count of a measure, or null when the measure has no NULLs. */
function countsOf(ctx: Ctx, measure: number): Int32Array | null {
  if (!ctx.counts.has(measure)) {
    const col = ctx.input.measures[measure]!;
    ctx.counts.set(measure, col.valid ? countPrefix(col.valid, ctx.input.n) : null);
  }
  return ctx.counts.get(measure)!;
}

function isFloatCol(col: KeyColumn): boolean {
  return col.values instanceof Float64Array || col.values instanceof Float32Array;
}

function ctorOf(t: TypeDesc, measure: KeyColumn | null): TypedArrayCtor {
  if (t.kind === 'int' && t.bits === 64) return t.signed ? BigInt64Array : BigUint64Array;
  if (t.kind === 'float' && t.bits === 64 && (!measure || !(measure.values instanceof Float64Array))) return Float64Array;
  return measure!.values.constructor as TypedArrayCtor;
}

/** Sets valid[r] = 0 where the frame has no non-NULL value; returns the array or null. */
function nullsWhereEmpty(ctx: Ctx, fb: FrameBounds, counts: Int32Array | null): Uint8Array | null {
  const { lo, hi } = fb;
  const n = lo.length;
  let valid: Uint8Array | null = null;
  for (let r = 0; r < n; r++) {
    const c = counts ? counts[hi[r]!]! - counts[lo[r]!]! : hi[r]! - lo[r]!;
    if (c === 0) {
      valid ??= newValid(ctx, n);
      valid[r] = 0;
    }
  }
  return valid;
}

function newValid(ctx: Ctx, n: number): Uint8Array {
  const v = ctx.alloc(Uint8Array, n) as Uint8Array;
  v.fill(1);
  return v;
}

export function computeWindow(input: WindowKernelInput, alloc: WindowAlloc = defaultAlloc): WindowColumnOut[] {
  return run(input, alloc, false);
}

/** Same results as computeWindow, re-folding every frame row by row (benchmark baseline). */
export function computeWindowNaive(input: WindowKernelInput, alloc: WindowAlloc = defaultAlloc): WindowColumnOut[] {
  return run(input, alloc, true);
}

function run(input: WindowKernelInput, alloc: WindowAlloc, naive: boolean): WindowColumnOut[] {
  const ctx: Ctx = { input, alloc, frames: new Map(), counts: new Map(), prefixes: new Map(), floatOut: new Map() };
  const { window } = input;
  if (!naive) prepareFloatSums(ctx);
  return window.columns.map((col) => (naive ? naiveColumn(ctx, col) : fastColumn(ctx, col)));
}

/** One level-by-level pass per float measure for all its sum/avg columns. */
function prepareFloatSums(ctx: Ctx): void {
  const { window, measures, n } = ctx.input;
  const byMeasure = new Map<number, { col: ResolvedWindowColumn; job: FloatSumJob }[]>();
  for (const col of window.columns) {
    if ((col.fn !== 'sum' && col.fn !== 'avg') || col.measure < 0 || !isFloatCol(measures[col.measure]!)) continue;
    const fb = framesOf(ctx, col);
    const out = (col.fn === 'sum' ? ctx.alloc(Float64Array, n) : new Float64Array(n)) as Float64Array;
    const list = byMeasure.get(col.measure) ?? [];
    list.push({ col, job: { lo: fb.lo, hi: fb.hi, maxWidth: fb.maxWidth, out } });
    byMeasure.set(col.measure, list);
  }
  for (const [m, list] of byMeasure) {
    floatSums(measures[m]!, n, list.map((x) => x.job));
    for (const { col, job } of list) ctx.floatOut.set(col, job.out);
  }
}

function fastColumn(ctx: Ctx, col: ResolvedWindowColumn): WindowColumnOut {
  const { n, measures, groupStarts } = ctx.input;
  const fb = framesOf(ctx, col);
  const { lo, hi } = fb;
  const mcol = col.measure >= 0 ? measures[col.measure]! : null;
  const counts = col.measure >= 0 ? countsOf(ctx, col.measure) : null;

  if (col.fn === 'count') {
    const out = ctx.alloc(BigInt64Array, n) as BigInt64Array;
    const o = halves(out);
    for (let r = 0; r < n; r++) {
      o[2 * r] = counts ? counts[hi[r]!]! - counts[lo[r]!]! : hi[r]! - lo[r]!;
      o[2 * r + 1] = 0;
    }
    return { type: col.type, values: out, valid: null };
  }
  const m = mcol!;
  if (col.fn === 'min' || col.fn === 'max') {
    const arg = minMaxArgs(m, groupStarts, lo, hi, col.fn === 'max');
    const out = ctx.alloc(ctorOf(col.type, m), n);
    const valid = gatherArgs(m, arg, out, () => newValid(ctx, n));
    return { type: col.type, values: out, valid };
  }
  // sum / avg
  const valid = nullsWhereEmpty(ctx, fb, counts);
  if (isFloatCol(m)) {
    const sums = ctx.floatOut.get(col)!;
    if (col.fn === 'sum') return { type: col.type, values: sums, valid };
    const out = ctx.alloc(Float64Array, n) as Float64Array;
    for (let r = 0; r < n; r++) {
      const c = counts ? counts[hi[r]!]! - counts[lo[r]!]! : hi[r]! - lo[r]!;
      out[r] = c === 0 ? 0 : sums[r]! / c;
    }
    return { type: col.type, values: out, valid };
  }
  let prefix = ctx.prefixes.get(col.measure);
  if (!prefix) {
    prefix = intPrefix(m, n);
    ctx.prefixes.set(col.measure, prefix);
  }
  if (col.fn === 'sum') {
    const out = ctx.alloc(ctorOf(col.type, m), n) as BigInt64Array;
    intSumAvg(prefix, lo, hi, halves(out), null, counts);
    return { type: col.type, values: out, valid };
  }
  const out = ctx.alloc(Float64Array, n) as Float64Array;
  intSumAvg(prefix, lo, hi, null, out, counts);
  if (valid) for (let r = 0; r < n; r++) if (valid[r] === 0) out[r] = 0;
  return { type: col.type, values: out, valid };
}

const TWO32 = 4294967296;

/** Re-folds each frame: count by scanning, ints in 32-bit limbs, floats in the canonical order. */
function naiveColumn(ctx: Ctx, col: ResolvedWindowColumn): WindowColumnOut {
  const { n, measures } = ctx.input;
  const { lo, hi } = framesOf(ctx, col);
  const m = col.measure >= 0 ? measures[col.measure]! : null;
  const mv = m?.valid ?? null;

  if (col.fn === 'count') {
    const out = ctx.alloc(BigInt64Array, n) as BigInt64Array;
    const o = halves(out);
    for (let r = 0; r < n; r++) {
      let c = 0;
      for (let j = lo[r]!; j < hi[r]!; j++) if (!mv || mv[j] !== 0) c++;
      o[2 * r] = c;
      o[2 * r + 1] = 0;
    }
    return { type: col.type, values: out, valid: null };
  }
  const mc = m!;
  if (col.fn === 'min' || col.fn === 'max') {
    const arg = minMaxArgsNaive(mc, lo, hi, col.fn === 'max');
    const out = ctx.alloc(ctorOf(col.type, mc), n);
    const valid = gatherArgs(mc, arg, out, () => newValid(ctx, n));
    return { type: col.type, values: out, valid };
  }
  let valid: Uint8Array | null = null;
  const out = ctx.alloc(col.fn === 'avg' ? Float64Array : ctorOf(col.type, mc), n);
  if (isFloatCol(mc)) {
    const base = floatBase(mc, n);
    const o = out as Float64Array;
    for (let r = 0; r < n; r++) {
      let c = 0;
      for (let j = lo[r]!; j < hi[r]!; j++) if (!mv || mv[j] !== 0) c++;
      if (c === 0) {
        valid ??= newValid(ctx, n);
        valid[r] = 0;
        o[r] = 0;
        continue;
      }
      const s = floatSumNaive(base, lo[r]!, hi[r]!);
      o[r] = col.fn === 'sum' ? s : s / c;
    }
    return { type: col.type, values: out, valid };
  }
  // Integers: fold into three 32-bit limbs (h·2^64 + m·2^32 + l), exact and wrapping-correct.
  const v = mc.values;
  const is64 = v instanceof BigInt64Array || v instanceof BigUint64Array;
  const u = is64 ? halves(v) : null;
  const signed = !(v instanceof BigUint64Array || v instanceof Uint8Array || v instanceof Uint16Array || v instanceof Uint32Array);
  const w = v as Exclude<TypedArray, BigInt64Array | BigUint64Array>;
  const o32 = col.fn === 'sum' ? halves(out as BigInt64Array) : null;
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
    if (c === 0) {
      valid ??= newValid(ctx, n);
      valid[r] = 0;
      if (o32) o32[2 * r] = o32[2 * r + 1] = 0;
      else (out as Float64Array)[r] = 0;
      continue;
    }
    if (o32) {
      o32[2 * r] = l;
      o32[2 * r + 1] = mm;
    } else (out as Float64Array)[r] = wideToNumber(h, mm, l) / c;
  }
  return { type: col.type, values: out, valid };
}
