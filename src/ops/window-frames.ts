/**
 * Frame bounds: for every sorted row i, the half-open frame [lo[i], hi[i]) in sorted positions.
 *
 * Rows arrive sorted by (partition group, order keys, row id); frames never cross a group.
 * - ROWS: lo = clamp(i - p, s, e), hi = clamp(i + f + 1, s, e). Offsets saturate: they are
 *   exact integers up to 2^63-1, clamped to ±n (any offset past the rows clamps alike) before
 *   becoming numbers.
 * - peers (RANGE with only CURRENT ROW / UNBOUNDED bounds, incl. the default frame): runs of
 *   rows equal in every order key (NULL = NULL, NaN = NaN, -0 = +0) are peer groups; CURRENT ROW
 *   is the group's start (for the start) or end (for the end). No order key: one peer group.
 * - GROUPS: the same peer groups numbered 0..G-1 within the partition; row i in group q has
 *   lo = start of group clamp(q - p), hi = end of group clamp(q + f) (offsets saturate like ROWS;
 *   a frame entirely before / after the partition is empty at its start / end).
 * - RANGE with offsets (one numeric/temporal key): in order direction d = ASC ? k : -k, the frame
 *   of a regular row is { j regular : d[j] >= d[i] - p and d[j] <= d[i] + f }; NULL and NaN rows
 *   form their own runs: their bounded sides are their run's ends, and regular rows reach them
 *   only through an unbounded side. Keys are turned into exact float64 numbers once per task
 *   (ints ≤ 32 bits directly; 64-bit keys relative to a base key when the span is ≤ 2^50, read
 *   through 32-bit halves; decimal128 keys likewise through their four words), else into exact
 *   word vectors (2 words for 64-bit keys, 4 for decimal128; src/ops/int64-words) whose bounds
 *   k ± offset carry into an unbounded top word: exact, no overflow, no BigInt per row. Float
 *   keys use float64 arithmetic for d[i] - p and d[i] + f.
 * Invariants: s ≤ lo[i] ≤ hi[i] ≤ e; within a group lo and hi are non-decreasing (sliding
 * kernels rely on it). Cost: O(n) per frame (two monotone pointers), O(n) memory.
 */
import type { ResolvedFrame, ResolvedOffset, ResolvedOrderKey } from './window-spec.js';
import type { Allocator, KeyColumn, TypedArray } from '../types/keys.js';
import { shiftedExact } from './window-values.js';
import { addWordsInto, cmpWordsAt, highWords, negateWordsAt, splitWords, subWordsInto, TWO32, words64 } from './int64-words.js';

export interface FrameBounds {
  lo: Int32Array;
  hi: Int32Array;
  /** Largest hi - lo over all rows. */
  maxWidth: number;
  /** Smallest hi - lo over all rows (0 with no rows): a frame count of k or more for every row needs no check. */
  minWidth: number;
  /** Every frame ends at its own row (hi[i] = i + 1: ROWS frames to CURRENT ROW), so a frame holds a value wherever its row does. */
  endsAtRow: boolean;
}

const fresh: Allocator = (ctor, length) => new ctor(length);

/**
 * Peer groups of the sorted rows (runs equal in every order key, never crossing a partition
 * group): `of[i]` is row i's peer group (global number), `start[q]` the first row of group q
 * (`start[groups] = n`), `first[q]` the first peer group of q's partition group.
 */
export interface PeerGroups {
  of: Int32Array;
  start: Int32Array;
  first: Int32Array;
  groups: number;
}

export function computePeers(n: number, groupStarts: Uint32Array, order: KeyColumn[], alloc: Allocator = fresh): PeerGroups {
  const of = alloc(Int32Array, n);
  const startTmp = alloc(Int32Array, n + 1);
  const firstTmp = alloc(Int32Array, n + 1);
  const eqs = order.map(makeRowEq);
  const k = eqs.length;
  let q = 0;
  for (let g = 0; g + 1 < groupStarts.length; g++) {
    const s = groupStarts[g]!;
    const e = groupStarts[g + 1]!;
    const firstOfPartition = q;
    let a = s;
    while (a < e) {
      let b = a + 1;
      if (k > 0) {
        outer: for (; b < e; b++) {
          for (let c = 0; c < k; c++) if (!eqs[c]!(a, b)) break outer;
        }
      } else b = e;
      startTmp[q] = a;
      firstTmp[q] = firstOfPartition;
      for (let i = a; i < b; i++) of[i] = q;
      q++;
      a = b;
    }
  }
  startTmp[q] = n;
  return { of, start: startTmp.subarray(0, q + 1), first: firstTmp.subarray(0, q), groups: q };
}

export function computeFrames(
  n: number,
  groupStarts: Uint32Array,
  order: KeyColumn[],
  orderKeys: ResolvedOrderKey[],
  frame: ResolvedFrame,
  peers: () => PeerGroups = () => computePeers(n, groupStarts, order),
  alloc: Allocator = fresh,
): FrameBounds {
  // ROWS frames write every row's bounds (the groups cover [0, n)); the others may skip some.
  const fill = frame.mode === 'rows' ? 'overwritten' : 'zeroed';
  const lo = alloc(Int32Array, n, fill);
  const hi = alloc(Int32Array, n, fill);
  // ROWS frames note their widths as they are made (a pass of its own cost as much as making them).
  if (frame.mode === 'rows') rowsFrames(groupStarts, frame, lo, hi);
  else {
    if (frame.mode === 'peers') peerFrames(groupStarts, peers(), frame, lo, hi);
    else if (frame.mode === 'groups') groupsFrames(groupStarts, peers(), frame, lo, hi);
    else rangeFrames(groupStarts, order[0]!, orderKeys[0]!.descending, frame, lo, hi, alloc);
    frameWidths(lo, hi, n);
  }
  // (A start after the row would make the frame empty: the resolver rejects one with FOLLOWING 0.)
  const endsAtRow = frame.mode === 'rows' && frame.following !== null && clampOffset(frame.following, n) === 0 && (frame.preceding === null || clampOffset(frame.preceding, n) >= 0);
  return { lo, hi, maxWidth: widths[1]!, minWidth: widths[0]!, endsAtRow };
}

/** frameWidths' result: [smallest, largest]. */
const widths = new Int32Array(2);

/**
 * The narrowest and widest frames, into `widths`. A loop of its own: inlined above, it was
 * compiled while it ran and the result object after it, never run before, threw the compiled
 * code away at every call (114 deoptimizations in three window1 runs; see
 * src/ops/group-accumulate).
 */
function frameWidths(lo: Int32Array, hi: Int32Array, n: number): void {
  let maxWidth = 0;
  let minWidth = n > 0 ? 0x7fffffff : 0;
  for (let i = 0; i < n; i++) {
    const w = hi[i]! - lo[i]!;
    if (w > maxWidth) maxWidth = w;
    if (w < minWidth) minWidth = w;
  }
  widths[0] = minWidth;
  widths[1] = maxWidth;
}

/** Exact integer offset clamped to ±limit, as a number. */
export function clampOffset(o: ResolvedOffset, limit: number): number {
  if ('float' in o) return Math.max(-limit, Math.min(limit, o.float));
  const v = BigInt(o.int);
  const l = BigInt(limit);
  return Number(v > l ? l : v < -l ? -l : v);
}

/** ROWS frame bounds, and their narrowest and widest into `widths` (as frameWidths). */
function rowsFrames(gs: Uint32Array, frame: ResolvedFrame, lo: Int32Array, hi: Int32Array): void {
  // Offsets past the rows (n) clamp alike, so they are cut to ±n: every bound below is then an
  // int32 (n < 2^31), and the loop integer arithmetic with its tests hoisted: a float offset
  // and `=== null` a row cost 6.2 against 2.8 ns a row (78K rows in groups of 100, one thread).
  const n = gs[gs.length - 1]!;
  const bounded = frame.preceding !== null;
  const boundedAfter = frame.following !== null;
  const p = bounded ? clampOffset(frame.preceding!, n) | 0 : 0;
  const f = boundedAfter ? clampOffset(frame.following!, n) : 0;
  const f1 = (f >= n ? n : f + 1) | 0; // n + 1 would wrap at n = 2^31 - 1; n clamps alike
  let maxWidth = 0;
  let minWidth = n > 0 ? 0x7fffffff : 0;
  for (let g = 0; g + 1 < gs.length; g++) {
    const s = gs[g]! | 0;
    const e = gs[g + 1]! | 0;
    for (let i = s; i < e; i++) {
      let a = bounded ? i - p : s;
      let b = boundedAfter ? i + f1 : e;
      a = a < s ? s : a > e ? e : a;
      b = b < s ? s : b > e ? e : b;
      if (b < a) b = a;
      lo[i] = a;
      hi[i] = b;
      const w = b - a;
      if (w > maxWidth) maxWidth = w;
      if (w < minWidth) minWidth = w;
    }
  }
  widths[0] = minWidth;
  widths[1] = maxWidth;
}

/** Equality of two rows of one key column (NULL = NULL, NaN = NaN, -0 = +0). */
export function makeRowEq(col: KeyColumn): (i: number, j: number) => boolean {
  const valid = col.valid;
  const v = col.values;
  let eq: (i: number, j: number) => boolean;
  if (col.offsets) {
    const off = col.offsets;
    const bytes = v as Uint8Array;
    eq = (i, j) => {
      const a0 = off[i]!;
      const b0 = off[j]!;
      const len = off[i + 1]! - a0;
      if (off[j + 1]! - b0 !== len) return false;
      for (let k = 0; k < len; k++) if (bytes[a0 + k] !== bytes[b0 + k]) return false;
      return true;
    };
  } else if (col.type.kind === 'decimal') {
    const w = v as Uint32Array;
    eq = (i, j) => w[4 * i] === w[4 * j] && w[4 * i + 1] === w[4 * j + 1] && w[4 * i + 2] === w[4 * j + 2] && w[4 * i + 3] === w[4 * j + 3];
  } else if (v instanceof BigInt64Array || v instanceof BigUint64Array) {
    const u = words64(v);
    eq = (i, j) => u[2 * i] === u[2 * j] && u[2 * i + 1] === u[2 * j + 1];
  } else if (v instanceof Float64Array || v instanceof Float32Array) {
    eq = (i, j) => {
      const a = v[i]!;
      const b = v[j]!;
      return a === b || (a !== a && b !== b);
    };
  } else {
    const w = v as Exclude<TypedArray, BigInt64Array | BigUint64Array>;
    eq = (i, j) => w[i] === w[j];
  }
  if (!valid) return eq;
  return (i, j) => {
    const a = valid[i]!;
    const b = valid[j]!;
    if (a === 0 || b === 0) return a === b;
    return eq(i, j);
  };
}

function peerFrames(gs: Uint32Array, peers: PeerGroups, frame: ResolvedFrame, lo: Int32Array, hi: Int32Array): void {
  const pUnb = frame.preceding === null;
  const fUnb = frame.following === null;
  const { of, start } = peers;
  for (let g = 0; g + 1 < gs.length; g++) {
    const s = gs[g]!;
    const e = gs[g + 1]!;
    for (let i = s; i < e; i++) {
      const q = of[i]!;
      lo[i] = pUnb ? s : start[q]!;
      hi[i] = fUnb ? e : start[q + 1]!;
    }
  }
}

function groupsFrames(gs: Uint32Array, peers: PeerGroups, frame: ResolvedFrame, lo: Int32Array, hi: Int32Array): void {
  const LIMIT = 2 ** 40;
  const p = frame.preceding === null ? null : clampOffset(frame.preceding, LIMIT);
  const f = frame.following === null ? null : clampOffset(frame.following, LIMIT);
  const { of, start, first } = peers;
  for (let g = 0; g + 1 < gs.length; g++) {
    const s = gs[g]!;
    const e = gs[g + 1]!;
    if (s === e) continue;
    const qa = first[of[s]!]!;
    const qb = of[e - 1]! + 1; // one past the partition's last peer group
    for (let i = s; i < e; i++) {
      const q = of[i]!;
      const a = p === null ? qa : q - p;
      const b = f === null ? qb - 1 : q + f; // last group, inclusive
      if (a >= qb) lo[i] = hi[i] = e;
      else if (b < qa) lo[i] = hi[i] = s;
      else {
        lo[i] = start[a < qa ? qa : a]!;
        hi[i] = start[(b >= qb ? qb - 1 : b) + 1]!;
      }
    }
  }
}

/** Marks NULL (1) and NaN (2) keys; 0 for regular keys. */
function specialKinds(col: KeyColumn, n: number, alloc: Allocator): Uint8Array {
  const sp = alloc(Uint8Array, n);
  const valid = col.valid;
  const v = col.values;
  const isFloat = v instanceof Float64Array || v instanceof Float32Array;
  for (let i = 0; i < n; i++) {
    if (valid && valid[i] === 0) sp[i] = 1;
    else if (isFloat && v[i] !== v[i]) sp[i] = 2;
  }
  return sp;
}

function rangeFrames(gs: Uint32Array, col: KeyColumn, desc: boolean, frame: ResolvedFrame, lo: Int32Array, hi: Int32Array, alloc: Allocator): void {
  const n = lo.length;
  const sp = specialKinds(col, n, alloc);
  const P = frame.preceding;
  const F = frame.following;
  const v = col.values;
  const sign = desc ? -1 : 1;

  // Direction-normalised keys: exact float64 where possible, else K exact words per row.
  let d: Float64Array | null = null;
  let p = 0;
  let f = 0;
  let words: KeyWords | null = null;
  if (col.type.kind === 'decimal') {
    // decimal128: exact doubles relative to a base when the span allows, else 4 words.
    const rel = shiftedExact(col, n, alloc);
    if (rel !== null) {
      d = rel;
      if (sign < 0) for (let i = 0; i < n; i++) d[i] = -rel[i]!;
      if (P) p = clampOffset(P, 2 ** 53);
      if (F) f = clampOffset(F, 2 ** 53);
    } else words = decimalWords(v as Uint32Array, sp, desc, P, F, alloc);
  } else if (v instanceof BigInt64Array || v instanceof BigUint64Array) {
    const u = words64(v);
    const hw = highWords(v);
    // Approximate extremes (one rounding each) decide whether keys relative to a base key
    // stay exact float64 integers (|k - base| ≤ span + rounding slack < 2^53).
    let lo = Infinity;
    let hi = -Infinity;
    let base = -1;
    for (let i = 0; i < n; i++) {
      if (sp[i] !== 0) continue;
      const x = hw[2 * i + 1]! * TWO32 + u[2 * i]!;
      if (x < lo) lo = x;
      if (x > hi) hi = x;
      if (base < 0) base = i;
    }
    if (base < 0 || hi - lo <= 2 ** 50) {
      d = alloc(Float64Array, n);
      if (base >= 0) {
        const bh = hw[2 * base + 1]!;
        const bl = u[2 * base]!;
        for (let i = 0; i < n; i++) if (sp[i] === 0) d[i] = sign * ((hw[2 * i + 1]! - bh) * TWO32 + (u[2 * i]! - bl));
      }
      if (P) p = clampOffset(P, 2 ** 52);
      if (F) f = clampOffset(F, 2 ** 52);
    } else words = int64Words(u, hw, sp, desc, P, F, alloc);
  } else {
    d = alloc(Float64Array, n);
    const w = v as Exclude<TypedArray, BigInt64Array | BigUint64Array>;
    for (let i = 0; i < n; i++) if (sp[i] === 0) d[i] = sign * w[i]!;
    const isFloat = v instanceof Float64Array || v instanceof Float32Array;
    // Integer keys span < 2^33: clamping offsets to ±2^34 keeps every comparison unchanged.
    if (P) p = isFloat ? clampOffset(P, Infinity) : clampOffset(P, 2 ** 34);
    if (F) f = isFloat ? clampOffset(F, Infinity) : clampOffset(F, 2 ** 34);
  }

  for (let g = 0; g + 1 < gs.length; g++) {
    const s = gs[g]!;
    const e = gs[g + 1]!;
    let i = s;
    while (i < e) {
      const kind = sp[i]!;
      let j = i + 1;
      while (j < e && sp[j] === kind) j++;
      if (kind !== 0) {
        // NULL or NaN run: its own peer group.
        const l = P === null ? s : i;
        const h = F === null ? e : j;
        for (let r = i; r < j; r++) {
          lo[r] = l;
          hi[r] = h;
        }
      } else if (d) {
        let a = i;
        let b = i;
        for (let r = i; r < j; r++) {
          if (P === null) lo[r] = s;
          else {
            const t = d[r]! - p;
            while (a < j && d[a]! < t) a++;
            lo[r] = a;
          }
          if (F === null) hi[r] = e;
          else {
            const t = d[r]! + f;
            while (b < j && d[b]! <= t) b++;
            hi[r] = b;
          }
        }
      } else if (words!.k === 2) rangeRun2(words!, s, e, i, j, P === null, F === null, lo, hi);
      else rangeRunK(words!, s, e, i, j, P === null, F === null, lo, hi);
      i = j;
    }
  }
}

/**
 * A RANGE key as k exact words per row (most significant first, top word signed, others in
 * [0, 2^32); direction applied; NULL/NaN rows 0) and the offsets as words: k ± offset never
 * wraps, so every bound comparison is exact.
 */
interface KeyWords {
  k: number;
  w: Float64Array;
  p: number[];
  f: number[];
  /** scratch for one bound */
  t: Float64Array;
}

function keyWords(k: number, w: Float64Array, P: ResolvedOffset | null, F: ResolvedOffset | null): KeyWords {
  // 64-bit and decimal keys take integer offsets (in key units; decimals unscaled)
  const split = (o: ResolvedOffset | null): number[] => (o === null ? [] : splitWords(BigInt((o as { int: string }).int), k));
  return { k, w, p: split(P), f: split(F), t: new Float64Array(k) };
}

function int64Words(u: Uint32Array, hw: Int32Array | Uint32Array, sp: Uint8Array, desc: boolean, P: ResolvedOffset | null, F: ResolvedOffset | null, alloc: Allocator): KeyWords {
  const n = sp.length;
  const w = alloc(Float64Array, 2 * n);
  for (let i = 0; i < n; i++) {
    if (sp[i] !== 0) continue;
    let h = hw[2 * i + 1]!;
    let l = u[2 * i]!;
    if (desc) {
      if (l === 0) h = -h;
      else {
        h = -h - 1;
        l = TWO32 - l;
      }
    }
    w[2 * i] = h;
    w[2 * i + 1] = l;
  }
  return keyWords(2, w, P, F);
}

function decimalWords(v: Uint32Array, sp: Uint8Array, desc: boolean, P: ResolvedOffset | null, F: ResolvedOffset | null, alloc: Allocator): KeyWords {
  const n = sp.length;
  const w = alloc(Float64Array, 4 * n);
  for (let i = 0; i < n; i++) {
    if (sp[i] !== 0) continue;
    w[4 * i] = v[4 * i + 3]! | 0;
    w[4 * i + 1] = v[4 * i + 2]!;
    w[4 * i + 2] = v[4 * i + 1]!;
    w[4 * i + 3] = v[4 * i]!;
    if (desc) negateWordsAt(w, 4 * i, 4);
  }
  return keyWords(4, w, P, F);
}

/** RANGE bounds of the regular run [i, j) of partition [s, e) over two-word keys. */
function rangeRun2(kw: KeyWords, s: number, e: number, i: number, j: number, pUnb: boolean, fUnb: boolean, lo: Int32Array, hi: Int32Array): void {
  const w = kw.w;
  const ph = kw.p[0] ?? 0;
  const pl = kw.p[1] ?? 0;
  const fh = kw.f[0] ?? 0;
  const fl = kw.f[1] ?? 0;
  let a = i;
  let b = i;
  for (let r = i; r < j; r++) {
    const rh = w[2 * r]!;
    const rl = w[2 * r + 1]!;
    if (pUnb) lo[r] = s;
    else {
      let th = rh - ph;
      let tl = rl - pl;
      if (tl < 0) {
        tl += TWO32;
        th -= 1;
      }
      while (a < j) {
        const ah = w[2 * a]!;
        if (ah < th || (ah === th && w[2 * a + 1]! < tl)) a++;
        else break;
      }
      lo[r] = a;
    }
    if (fUnb) hi[r] = e;
    else {
      let th = rh + fh;
      let tl = rl + fl;
      if (tl >= TWO32) {
        tl -= TWO32;
        th += 1;
      }
      while (b < j) {
        const bh = w[2 * b]!;
        if (bh < th || (bh === th && w[2 * b + 1]! <= tl)) b++;
        else break;
      }
      hi[r] = b;
    }
  }
}

/** `rangeRun2` for k words per key (decimal128). */
function rangeRunK(kw: KeyWords, s: number, e: number, i: number, j: number, pUnb: boolean, fUnb: boolean, lo: Int32Array, hi: Int32Array): void {
  const { k, w, t } = kw;
  let a = i;
  let b = i;
  for (let r = i; r < j; r++) {
    if (pUnb) lo[r] = s;
    else {
      subWordsInto(w, k * r, kw.p, k, t);
      while (a < j && cmpWordsAt(w, k * a, t, k) < 0) a++;
      lo[r] = a;
    }
    if (fUnb) hi[r] = e;
    else {
      addWordsInto(w, k * r, kw.f, k, t);
      while (b < j && cmpWordsAt(w, k * b, t, k) <= 0) b++;
      hi[r] = b;
    }
  }
}
