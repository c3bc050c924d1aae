/**
 * Naive, row-at-a-time reference of the whole window semantics (API.md "window"), on plain JS
 * rows: int64/uint64/date64/timestamp values are bigint, other numbers are numbers.
 *
 * It partitions with a Map keyed by the partition values (NULL keys form one partition), sorts
 * each partition stably with a comparator (nulls first/last, NaN above every number, -0 = +0,
 * strings in code-point = UTF-8 byte order), decides frame membership row by row from the
 * definitions, and folds each frame from scratch: integer sums in exact BigInt then
 * BigInt.asIntN(64) (asUintN for uint64), int avg = Number(exact sum) / count, float sums
 * folded left to right. Outputs are in INPUT order. Float sums may legitimately differ from the
 * kernel within (m-1)·2^-53·Σ|x|; `compareWindowResults` checks that bound exactly (BigInt
 * arithmetic on the frame's values) and everything else bit for bit.
 *
 * Also: `windowKernelInputFromRows` / `kernelOutputToRows` turn rows into a sorted
 * WindowKernelInput and kernel outputs back into input-order JS values, for kernel tests.
 */
import type { FieldDesc, TypeDesc } from '../../src/types/column.js';
import type { KeyColumn, TypedArray } from '../../src/types/keys.js';
import { resolveWindow, type ResolvedWindow, type ResolvedOffset, type WindowOptions } from '../../src/ops/window-spec.js';
import type { WindowColumnOut, WindowKernelInput } from '../../src/ops/window.js';

export type RefValue = number | bigint | string | boolean | null;
export type RefRow = Record<string, RefValue>;
export type RefOut = number | bigint | boolean | null;

// ------------------------------------------------------------------------------------------
// Ordering
// ------------------------------------------------------------------------------------------

function cmpStrings(a: string, b: string): number {
  // Code-point order, which is UTF-8 byte order.
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const ca = a.codePointAt(i)!;
    const cb = b.codePointAt(j)!;
    if (ca !== cb) return ca < cb ? -1 : 1;
    i += ca > 0xffff ? 2 : 1;
    j += cb > 0xffff ? 2 : 1;
  }
  return i < a.length ? 1 : j < b.length ? -1 : 0;
}

/** Comparison of two non-NULL values of one column: NaN above every number, -0 = +0. */
export function cmpValues(a: RefValue, b: RefValue): number {
  if (typeof a === 'string' && typeof b === 'string') return cmpStrings(a, b);
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b ? 0 : a ? 1 : -1;
  if (typeof a === 'bigint' || typeof b === 'bigint') {
    const x = BigInt(a as bigint | number);
    const y = BigInt(b as bigint | number);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  const x = a as number;
  const y = b as number;
  if (Number.isNaN(x)) return Number.isNaN(y) ? 0 : 1;
  if (Number.isNaN(y)) return -1;
  return x < y ? -1 : x > y ? 1 : 0;
}

interface RefOrderKey {
  column: string;
  descending: boolean;
  nulls: 'first' | 'last';
}

function cmpKey(a: RefValue, b: RefValue, k: RefOrderKey): number {
  if (a === null || b === null) {
    if (a === null && b === null) return 0;
    const aFirst = k.nulls === 'first';
    return a === null ? (aFirst ? -1 : 1) : aFirst ? 1 : -1;
  }
  const c = cmpValues(a, b);
  return k.descending ? -c : c;
}

function partitionKey(row: RefRow, cols: string[]): string {
  return cols
    .map((c) => {
      const v = row[c] ?? null;
      if (v === null) return 'null';
      if (typeof v === 'number' && v === 0) return 'number:0'; // -0 and +0 together
      return `${typeof v}:${String(v)}`;
    })
    .join('\u0000');
}

/** Input row indices grouped by partition, each partition stably sorted by the order keys. */
export function sortedPartitions(rows: RefRow[], w: ResolvedWindow): number[][] {
  const pcols = w.partitionBy.map((p) => p.column);
  const parts = new Map<string, number[]>();
  rows.forEach((row, i) => {
    const key = partitionKey(row, pcols);
    let list = parts.get(key);
    if (!list) parts.set(key, (list = []));
    list.push(i);
  });
  const keys: RefOrderKey[] = w.orderBy;
  const out: number[][] = [];
  for (const list of parts.values()) {
    const sorted = [...list].sort((x, y) => {
      for (const k of keys) {
        const c = cmpKey(rows[x]![k.column] ?? null, rows[y]![k.column] ?? null, k);
        if (c !== 0) return c;
      }
      return x - y;
    });
    out.push(sorted);
  }
  return out;
}

// ------------------------------------------------------------------------------------------
// Frames
// ------------------------------------------------------------------------------------------

function isSpecial(v: RefValue): 0 | 1 | 2 {
  if (v === null) return 1;
  if (typeof v === 'number' && Number.isNaN(v)) return 2;
  return 0;
}

/** Sorted positions (within the partition) of the frame of sorted position i. */
function frameMembers(rows: RefRow[], part: number[], i: number, w: ResolvedWindow, frame: ResolvedWindow['columns'][number]['frame']): number[] {
  const members: number[] = [];
  const P = frame.preceding;
  const F = frame.following;
  const keys = w.orderBy;
  const row = (pos: number) => rows[part[pos]!]!;
  if (frame.mode === 'rows') {
    const p = P === null ? null : BigInt((P as { int: string }).int);
    const f = F === null ? null : BigInt((F as { int: string }).int);
    for (let j = 0; j < part.length; j++) {
      const d = BigInt(j - i);
      if ((p === null || d >= -p) && (f === null || d <= f)) members.push(j);
    }
    return members;
  }
  if (frame.mode === 'peers') {
    const peer = (j: number) => keys.every((k) => cmpKey(row(i)[k.column] ?? null, row(j)[k.column] ?? null, k) === 0);
    let first = -1;
    let last = -1;
    for (let j = 0; j < part.length; j++) {
      if (peer(j)) {
        if (first < 0) first = j;
        last = j;
      }
    }
    for (let j = 0; j < part.length; j++) {
      if ((P === null || j >= first) && (F === null || j <= last)) members.push(j);
    }
    return members;
  }
  // RANGE with offsets over one key.
  const k = keys[0]!;
  const ki = row(i)[k.column] ?? null;
  const si = isSpecial(ki);
  if (si !== 0) {
    let first = -1;
    let last = -1;
    for (let j = 0; j < part.length; j++) {
      if (isSpecial(row(j)[k.column] ?? null) === si) {
        if (first < 0) first = j;
        last = j;
      }
    }
    for (let j = 0; j < part.length; j++) if ((P === null || j >= first) && (F === null || j <= last)) members.push(j);
    return members;
  }
  const isFloat = k.type.kind === 'float';
  const num = (o: ResolvedOffset): number => ('float' in o ? o.float : Number(BigInt(o.int)));
  const big = (o: ResolvedOffset): bigint => BigInt((o as { int: string }).int);
  // In key-value space: ASC covers [k - p, k + f]; DESC covers [k - f, k + p].
  const lowerOff = k.descending ? F : P;
  const upperOff = k.descending ? P : F;
  for (let j = 0; j < part.length; j++) {
    const kj = row(j)[k.column] ?? null;
    if (isSpecial(kj) !== 0) {
      // Reached only through an unbounded side.
      if (j < i ? P === null : F === null) members.push(j);
      continue;
    }
    let ok: boolean;
    if (isFloat) {
      const x = ki as number;
      const y = kj as number;
      ok = (lowerOff === null || y >= x - num(lowerOff)) && (upperOff === null || y <= x + num(upperOff));
    } else {
      const x = BigInt(ki as number | bigint);
      const y = BigInt(kj as number | bigint);
      ok = (lowerOff === null || y >= x - big(lowerOff)) && (upperOff === null || y <= x + big(upperOff));
    }
    if (ok) members.push(j);
  }
  return members;
}

// ------------------------------------------------------------------------------------------
// Folds
// ------------------------------------------------------------------------------------------

/** Total order for min/max: -0 < +0, NaN above every number. */
function minMaxLess(a: RefValue, b: RefValue): boolean {
  if (typeof a === 'number' && typeof b === 'number') {
    if (Number.isNaN(a)) return false;
    if (Number.isNaN(b)) return true;
    if (a === b) return Object.is(a, -0) && Object.is(b, 0);
    return a < b;
  }
  return cmpValues(a, b) < 0;
}

export interface ReferenceDetail {
  values: Record<string, RefOut[]>;
  /** For float sum/avg columns: the non-NULL frame values of each row, in frame order. */
  floatFrames: Record<string, (number[] | null)[]>;
  window: ResolvedWindow;
}

export function referenceWindowDetailed(rows: RefRow[], schema: FieldDesc[], options: WindowOptions): ReferenceDetail {
  const w = resolveWindow(options, schema);
  const parts = sortedPartitions(rows, w);
  const values: Record<string, RefOut[]> = {};
  const floatFrames: Record<string, (number[] | null)[]> = {};
  for (const col of w.columns) {
    const out: RefOut[] = new Array(rows.length).fill(null);
    const measure = col.measure >= 0 ? w.measures[col.measure]! : null;
    const isFloat = measure?.type.kind === 'float';
    const unsigned = col.type.kind === 'int' && !col.type.signed;
    const frames: (number[] | null)[] | null = isFloat && (col.fn === 'sum' || col.fn === 'avg') ? new Array(rows.length).fill(null) : null;
    for (const part of parts) {
      for (let i = 0; i < part.length; i++) {
        const members = frameMembers(rows, part, i, w, col.frame);
        const vals: RefValue[] = [];
        for (const j of members) {
          const v = measure ? (rows[part[j]!]![measure.column] ?? null) : true;
          if (v !== null) vals.push(v);
        }
        const target = part[i]!;
        if (col.fn === 'count') {
          out[target] = BigInt(vals.length);
          continue;
        }
        if (vals.length === 0) continue; // NULL
        if (col.fn === 'min' || col.fn === 'max') {
          let best: RefValue = vals[0]!;
          for (const v of vals) if (col.fn === 'min' ? minMaxLess(v, best) : minMaxLess(best, v)) best = v;
          out[target] = best as RefOut;
          continue;
        }
        if (isFloat) {
          let acc = vals[0] as number;
          for (let q = 1; q < vals.length; q++) acc += vals[q] as number;
          out[target] = col.fn === 'sum' ? acc : acc / vals.length;
          frames![target] = vals as number[];
          continue;
        }
        let exact = 0n;
        for (const v of vals) exact += BigInt(v as number | bigint);
        if (col.fn === 'sum') out[target] = unsigned ? BigInt.asUintN(64, exact) : BigInt.asIntN(64, exact);
        else out[target] = Number(exact) / vals.length;
      }
    }
    values[col.name] = out;
    if (frames) floatFrames[col.name] = frames;
  }
  return { values, floatFrames, window: w };
}

/** The reference: output columns in input row order. */
export function referenceWindow(rows: RefRow[], schema: FieldDesc[], options: WindowOptions): Record<string, RefOut[]> {
  return referenceWindowDetailed(rows, schema, options).values;
}

// ------------------------------------------------------------------------------------------
// Comparison
// ------------------------------------------------------------------------------------------

const F64 = new Float64Array(1);
const U32 = new Uint32Array(F64.buffer);

/** x · 2^1074 as an exact BigInt (x finite). */
export function scaledExact(x: number): bigint {
  F64[0] = x;
  const lo = U32[0]!;
  const hi = U32[1]!;
  const sign = hi >>> 31 ? -1n : 1n;
  const exp = (hi >>> 20) & 0x7ff;
  const mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  const m = exp === 0 ? mant : mant | (1n << 52n);
  const shift = exp === 0 ? 0n : BigInt(exp - 1);
  return sign * (m << shift);
}

function specialSum(values: number[]): number | null {
  let nan = false;
  let pos = false;
  let neg = false;
  for (const v of values) {
    if (Number.isNaN(v)) nan = true;
    else if (v === Infinity) pos = true;
    else if (v === -Infinity) neg = true;
  }
  if (nan || (pos && neg)) return NaN;
  if (pos) return Infinity;
  if (neg) return -Infinity;
  return null;
}

/** |actual - Σ values| ≤ (m-1)·2^-53·Σ|values| exactly (NaN/±Inf must match the fold). */
export function floatSumWithinBound(actual: number, values: number[]): boolean {
  const sp = specialSum(values);
  if (sp !== null) return Object.is(actual, sp);
  if (!Number.isFinite(actual)) return false;
  let S = 0n;
  let A = 0n;
  for (const v of values) {
    const s = scaledExact(v);
    S += s;
    A += s < 0n ? -s : s;
  }
  const d = scaledExact(actual) - S;
  const m = BigInt(values.length);
  return (d < 0n ? -d : d) << 53n <= (m - 1n) * A;
}

/** avg = rnd(sum / m) with the sum within the bound above. */
export function floatAvgWithinBound(actual: number, values: number[]): boolean {
  const sp = specialSum(values);
  if (sp !== null) return Object.is(actual, sp);
  if (!Number.isFinite(actual)) return false;
  let S = 0n;
  let A = 0n;
  for (const v of values) {
    const s = scaledExact(v);
    S += s;
    A += s < 0n ? -s : s;
  }
  const m = BigInt(values.length);
  const d = scaledExact(actual) * m - S;
  const lhs = (d < 0n ? -d : d) << 106n;
  const rhs = (A << 53n) + (m - 1n) * A + ((m - 1n) * A << 53n);
  // Subnormal quotients may carry an extra absolute error of half an ulp of the smallest subnormal.
  return lhs <= rhs + (m << 106n);
}

function show(v: unknown): string {
  if (typeof v === 'bigint') return `${v}n`;
  if (typeof v === 'number' && Object.is(v, -0)) return '-0';
  return String(v);
}

/**
 * Compares kernel/engine results (input order) against the reference; returns mismatch
 * messages (empty = equal). Float sum/avg: within the API bound; everything else: identical
 * (Object.is for numbers, so -0 ≠ +0 and NaN = NaN).
 */
export function compareWindowResults(actual: Record<string, RefOut[]>, rows: RefRow[], schema: FieldDesc[], options: WindowOptions, maxMessages = 10): string[] {
  const ref = referenceWindowDetailed(rows, schema, options);
  const msgs: string[] = [];
  for (const col of ref.window.columns) {
    const exp = ref.values[col.name]!;
    const act = actual[col.name];
    if (!act) {
      msgs.push(`column ${col.name}: missing`);
      continue;
    }
    if (act.length !== exp.length) {
      msgs.push(`column ${col.name}: ${act.length} rows, expected ${exp.length}`);
      continue;
    }
    const frames = ref.floatFrames[col.name];
    for (let r = 0; r < exp.length && msgs.length < maxMessages; r++) {
      const e = exp[r]!;
      const a = act[r]!;
      let ok: boolean;
      if (frames && e !== null) {
        const vals = frames[r]!;
        ok = typeof a === 'number' && (col.fn === 'sum' ? floatSumWithinBound(a, vals) : floatAvgWithinBound(a, vals));
      } else ok = Object.is(a, e) || (typeof a === 'bigint' && typeof e === 'bigint' && a === e);
      if (!ok) msgs.push(`column ${col.name} (${col.fn}, ${col.frameText}) row ${r}: got ${show(a)}, expected ${show(e)}`);
    }
  }
  return msgs;
}

// ------------------------------------------------------------------------------------------
// Kernel harness
// ------------------------------------------------------------------------------------------

/** A KeyColumn of the given type from JS values (in the given row order). */
export function keyColumnFromValues(type: TypeDesc, values: RefValue[]): KeyColumn {
  const n = values.length;
  const hasNull = values.some((v) => v === null);
  const valid = hasNull ? Uint8Array.from(values, (v) => (v === null ? 0 : 1)) : null;
  let arr: TypedArray;
  let offsets: Int32Array | null = null;
  switch (type.kind) {
    case 'int': {
      const ctors = {
        8: [Int8Array, Uint8Array],
        16: [Int16Array, Uint16Array],
        32: [Int32Array, Uint32Array],
      } as const;
      if (type.bits === 64) {
        const a = type.signed ? new BigInt64Array(n) : new BigUint64Array(n);
        values.forEach((v, i) => {
          if (v !== null) a[i] = BigInt(v as number | bigint);
        });
        arr = a;
      } else {
        const C = ctors[type.bits][type.signed ? 0 : 1];
        const a = new C(n);
        values.forEach((v, i) => {
          if (v !== null) a[i] = Number(v);
        });
        arr = a;
      }
      break;
    }
    case 'float': {
      const a = type.bits === 32 ? new Float32Array(n) : new Float64Array(n);
      values.forEach((v, i) => {
        if (v !== null) a[i] = v as number;
      });
      arr = a;
      break;
    }
    case 'bool':
      arr = Uint8Array.from(values, (v) => (v === true ? 1 : 0));
      break;
    case 'date':
    case 'timestamp':
    case 'duration': {
      if (type.kind === 'date' && type.unit === 'day') {
        arr = Int32Array.from(values, (v) => (v === null ? 0 : Number(v)));
        break;
      }
      // date64 is int64 milliseconds
      const a = new BigInt64Array(n);
      values.forEach((v, i) => {
        if (v !== null) a[i] = BigInt(v as number | bigint);
      });
      arr = a;
      break;
    }
    case 'utf8':
    case 'largeUtf8':
    case 'binary':
    case 'largeBinary': {
      const enc = new TextEncoder();
      const parts = values.map((v) => (v === null ? new Uint8Array(0) : enc.encode(String(v))));
      offsets = new Int32Array(n + 1);
      let total = 0;
      parts.forEach((p, i) => {
        total += p.length;
        offsets![i + 1] = total;
      });
      const bytes = new Uint8Array(total);
      parts.forEach((p, i) => bytes.set(p, offsets![i]!));
      arr = bytes;
      break;
    }
    default:
      // Only validity is read (count).
      arr = new Uint8Array(n);
  }
  return { type, length: n, values: arr, offsets, valid };
}

export interface KernelHarness {
  input: WindowKernelInput;
  /** perm[sortedPosition] = input row index. */
  perm: number[];
}

export function windowKernelInputFromRows(rows: RefRow[], schema: FieldDesc[], options: WindowOptions): KernelHarness {
  const window = resolveWindow(options, schema);
  const parts = sortedPartitions(rows, window);
  const perm = parts.flat();
  const starts = [0];
  for (const p of parts) starts.push(starts[starts.length - 1]! + p.length);
  const column = (name: string, type: TypeDesc) => keyColumnFromValues(type, perm.map((i) => rows[i]![name] ?? null));
  return {
    perm,
    input: {
      n: rows.length,
      groupStarts: Uint32Array.from(starts),
      order: window.orderBy.map((k) => column(k.column, k.type)),
      measures: window.measures.map((m) => column(m.column, m.type)),
      window,
    },
  };
}

/** Kernel outputs (sorted order) → JS values in input order, like an Arrow column's .get(). */
export function kernelOutputToRows(outs: WindowColumnOut[], h: KernelHarness): Record<string, RefOut[]> {
  const res: Record<string, RefOut[]> = {};
  h.input.window.columns.forEach((col, c) => {
    const out = outs[c]!;
    const vals: RefOut[] = new Array(h.perm.length).fill(null);
    h.perm.forEach((row, pos) => {
      if (out.valid && out.valid[pos] === 0) return;
      const v = out.values[pos]!;
      vals[row] = col.type.kind === 'bool' ? v === 1 : (v as number | bigint);
    });
    res[col.name] = vals;
  });
  return res;
}
