/**
 * Window results for one sort range of a partition too big for one task (pure, typed arrays).
 *
 * The task computes the window over its range and both neighbour ranges (the halo), sorted as
 * usual by (group, order keys, row id), and keeps the results of its own rows. Only two groups
 * can be cut by what was loaded: `leftGroup`, the group of the first loaded row, has
 * `carry.rows` more rows before them; `rightGroup` goes on after them (`suffix.rows` more rows,
 * when the suffix pass ran: see window-ranges.ts). Everything else is whole. For a kept row of a
 * cut group:
 * - a frame (any mode) whose computed bounds stay strictly inside the loaded rows of its group
 *   was never clamped, so it is the true frame and its result is exact: kernels depend on the
 *   frame's values only (float sums and moments fold in a canonical order of the frame alone);
 *   a frame reaching the loaded edge of a cut group cannot be told from a clamped one: error;
 * - count, sum and avg (integer, duration and float measures) over a frame with an unbounded
 *   side are recomputed from the state of the rows outside (window-outside.ts): running frames
 *   (UNBOUNDED PRECEDING .. a bounded end) from the carried state of the rows before, frames to
 *   UNBOUNDED FOLLOWING from the suffix state of the rows after, whole-partition frames from
 *   the group's whole state (carried from the task that loaded the group's start, or made
 *   here from the loaded rows and the suffix); bit-identical to one pass over the whole group;
 * - lag/lead find their row inside the loaded rows, or cannot tell: error;
 * - rowNumber, rank, denseRank are shifted by the carry (rows, the straddling peer group, the
 *   peer groups before): exact; percentRank, cumeDist, ntile also need the group's size and the
 *   straddling peer group's rows after: exact with the suffix, else an error.
 * `carryOut` gives the carry of the next range (the group of this range's first row), and
 * `suffixOf` the suffix state a range hands to the range before it (the suffix pass).
 */
import { words64 } from './int64-words.js';
import { computeFrames, computePeers, type FrameBounds, type PeerGroups } from './window-frames.js';
import { aggFloatSum, AggFolder, copyAgg, emptyAgg, type OutsideAgg } from './window-outside.js';
import type { ResolvedWindowColumn } from './window-spec.js';
import { meanOfWide, wideMean, wideToNumber } from './window-sum.js';
import type { WindowColumnOut, WindowKernelInput } from './window.js';
import type { Allocator, KeyColumn } from '../types/keys.js';

export interface HaloCarry {
  rows: number;
  peerRows: number;
  peers: number;
  /** Per column with a running frame (outsideSide 'running'): its state over the carried rows. */
  running: Array<OutsideAgg | null>;
  /** Per column over the whole partition (outsideSide 'whole'): the group's whole state, once known. */
  whole: Array<OutsideAgg | null>;
}

/** The rows of a group after some point: how many, those of the peer group there, and per column (outsideSide 'suffix' or 'whole') their state. */
export interface HaloSuffix {
  rows: number;
  peerRows: number;
  columns: Array<OutsideAgg | null>;
}

export interface HaloCuts {
  /** Group with `carry.rows` rows before the loaded ones (-1: none). */
  leftGroup: number;
  /** Group that may have rows after the loaded ones (-1: none). */
  rightGroup: number;
  carry: HaloCarry;
  /** The rows after the loaded ones of the last loaded row's group; null: not known (no suffix pass). */
  suffix: HaloSuffix | null;
}

export const NO_CARRY: HaloCarry = { rows: 0, peerRows: 0, peers: 0, running: [], whole: [] };

/** The group (index into groupStarts) holding sorted position i. */
export function groupAt(groupStarts: Uint32Array, i: number): number {
  let lo = 0;
  let hi = groupStarts.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (groupStarts[mid]! <= i) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

function needsPeers(cols: ResolvedWindowColumn[]): boolean {
  return cols.some((c) => c.fn === 'rank' || c.fn === 'denseRank' || c.fn === 'percentRank' || c.fn === 'cumeDist');
}

/**
 * Which unbounded side of a column's frame reaches outside a cut group in a way its state can
 * answer: 'running' (UNBOUNDED PRECEDING .. a bounded end), 'suffix' (a bounded start ..
 * UNBOUNDED FOLLOWING), 'whole' (both unbounded); null for other columns and for measures
 * without an exact state (decimals, strings).
 */
export function outsideSide(col: ResolvedWindowColumn, measures: ReadonlyArray<{ type: { kind: string } }>): 'running' | 'suffix' | 'whole' | null {
  if (col.frame === null || (col.frame.preceding !== null && col.frame.following !== null)) return null;
  if (col.fn !== 'count' && col.fn !== 'sum' && col.fn !== 'avg') return null;
  if (col.fn !== 'count') {
    const kind = measures[col.measure]!.type.kind;
    if (kind !== 'int' && kind !== 'duration' && kind !== 'float') return null;
  }
  return col.frame.preceding !== null ? 'suffix' : col.frame.following !== null ? 'running' : 'whole';
}

/** Whether a window needs the suffix pass: a column reading its group's rows to the end, or its size. */
export function needsSuffix(cols: ResolvedWindowColumn[], measures: ReadonlyArray<{ type: { kind: string } }>): boolean {
  return cols.some((c) => c.fn === 'percentRank' || c.fn === 'cumeDist' || c.fn === 'ntile' || outsideSide(c, measures) === 'suffix' || outsideSide(c, measures) === 'whole');
}

/** The measure a column's state reads (null: count() of rows). */
function measureOf(input: WindowKernelInput, col: ResolvedWindowColumn): KeyColumn | null {
  return col.measure >= 0 ? input.measures[col.measure]! : null;
}

/** Frames of each column (computed once per distinct frame), peers on demand. */
class HaloFrames {
  private peers: PeerGroups | null = null;
  private readonly frames = new Map<string, FrameBounds>();
  constructor(
    private readonly input: WindowKernelInput,
    private readonly alloc: Allocator,
  ) {}
  peersOf(): PeerGroups {
    const { n, groupStarts, order } = this.input;
    return (this.peers ??= computePeers(n, groupStarts, order, this.alloc));
  }
  of(col: ResolvedWindowColumn): FrameBounds {
    const key = JSON.stringify(col.frame);
    let fb = this.frames.get(key);
    if (!fb) {
      const { n, groupStarts, order, window } = this.input;
      fb = computeFrames(n, groupStarts, order, window.orderBy, col.frame!, () => this.peersOf(), this.alloc);
      this.frames.set(key, fb);
    }
    return fb;
  }
}

/**
 * The first column whose result for a kept row (keep[i] = 1 at sorted position i) cannot be
 * told from the loaded rows and the states outside them, or null when every kept result is exact.
 */
export function firstUnreachable(input: WindowKernelInput, outs: WindowColumnOut[], keep: Uint8Array, cuts: HaloCuts, alloc: Allocator): ResolvedWindowColumn | null {
  const { groupStarts, window } = input;
  const segments: Array<{ g: number; left: boolean; right: boolean }> = [];
  const cutLeft = cuts.leftGroup >= 0 && cuts.carry.rows > 0;
  if (cutLeft) segments.push({ g: cuts.leftGroup, left: true, right: cuts.rightGroup === cuts.leftGroup });
  if (cuts.rightGroup >= 0 && !(cutLeft && cuts.rightGroup === cuts.leftGroup)) segments.push({ g: cuts.rightGroup, left: false, right: true });
  if (segments.length === 0) return null;
  const frames = new HaloFrames(input, alloc);
  for (let c = 0; c < window.columns.length; c++) {
    const col = window.columns[c]!;
    const out = outs[c]!;
    const side = outsideSide(col, window.measures);
    for (const { g, left, right } of segments) {
      const s = groupStarts[g]!;
      const e = groupStarts[g + 1]!;
      switch (col.fn) {
        case 'rowNumber':
        case 'rank':
        case 'denseRank':
          continue;
        case 'percentRank':
        case 'cumeDist':
        case 'ntile':
          // the group's size (and the straddling peer group's rows after) come with the suffix
          if (cuts.suffix === null) for (let i = s; i < e; i++) if (keep[i]) return col;
          continue;
        case 'lag':
        case 'lead': {
          if ((col.n > 0 && !left) || (col.n < 0 && !right) || col.n === 0) continue;
          const index = (out as Extract<WindowColumnOut, { kind: 'take' }>).index;
          for (let i = s; i < e; i++) if (keep[i] && index[i]! < 0) return col;
          continue;
        }
        default: {
          if (col.frame === null || side === 'whole') continue;
          const fb = frames.of(col);
          // A running frame starts before the loaded rows by design (the carry holds them) but
          // must end inside them (an end clamped to their start could lie among the carried
          // rows); a frame to UNBOUNDED FOLLOWING likewise ends after them (the suffix holds
          // those rows) and must start inside them.
          const runningLeft = left && side === 'running';
          const suffixRight = right && side === 'suffix' && cuts.suffix !== null;
          for (let i = s; i < e; i++) {
            if (!keep[i]) continue;
            const lo = fb.lo[i]!;
            const hi = fb.hi[i]!;
            if (left && (runningLeft ? hi <= s : lo <= s)) return col;
            if (right && (suffixRight ? lo >= e : hi >= e)) return col;
          }
        }
      }
    }
  }
  return null;
}

/** Writes a count / sum / avg result from a state (`anchor`: where its float nodes start; float: a float measure's). */
function writeAgg(out: Extract<WindowColumnOut, { kind: 'values' }>, col: ResolvedWindowColumn, float: boolean, i: number, st: OutsideAgg, anchor: 'start' | 'end', n: number, alloc: Allocator): void {
  const need = col.fn === 'count' ? col.minPeriods : Math.max(1, col.minPeriods);
  const ok = st.count >= need;
  if (!ok) {
    if (!out.valid) {
      out.valid = alloc(Uint8Array, n);
      out.valid.fill(1);
    }
    out.valid[i] = 0;
  } else if (out.valid) out.valid[i] = 1;
  const v = out.values;
  if (v instanceof Float64Array) {
    if (!ok) v[i] = 0;
    else {
      if (col.fn === 'avg') v[i] = float ? aggFloatSum(st, anchor) / st.count : wideMean(st.h, st.m, st.l, st.count);
      else v[i] = float ? aggFloatSum(st, anchor) : wideToNumber(st.h, st.m, st.l);
    }
    return;
  }
  const w = words64(v as BigInt64Array);
  if (col.fn === 'count') {
    w[2 * i] = st.count;
    w[2 * i + 1] = 0;
  } else if (!ok) w[2 * i] = w[2 * i + 1] = 0;
  else if (col.fn === 'avg') meanOfWide(st.h, st.m, st.l, st.count, w, i);
  else {
    w[2 * i] = st.l;
    w[2 * i + 1] = st.m;
  }
}

/**
 * Rewrites the results of the cut groups that depend on rows outside the loaded ones:
 * rowNumber / rank / denseRank shifted by the carry, percentRank / cumeDist / ntile from the
 * group's size, count / sum / avg with an unbounded side from the states outside.
 */
export function applyOutside(input: WindowKernelInput, outs: WindowColumnOut[], cuts: HaloCuts, alloc: Allocator): void {
  const { carry, leftGroup, rightGroup, suffix } = cuts;
  const cutLeft = leftGroup >= 0 && carry.rows > 0;
  const cutRight = rightGroup >= 0 && suffix !== null && suffix.rows > 0;
  if (!cutLeft && !cutRight) return;
  const { groupStarts, window, n } = input;
  const frames = new HaloFrames(input, alloc);
  window.columns.forEach((col, c) => {
    const out = outs[c]!;
    if (out.kind !== 'values') return;
    const side = outsideSide(col, window.measures);
    if (side !== null) {
      const m = measureOf(input, col);
      const float = m !== null && m.type.kind === 'float';
      if (side === 'running' && cutLeft) {
        const s = groupStarts[leftGroup]!;
        const e = groupStarts[leftGroup + 1]!;
        const hi = frames.of(col).hi;
        const st = copyAgg(carry.running[c]!);
        const folder = new AggFolder(m, 'start');
        let at = s;
        for (let i = s; i < e; i++) {
          for (const end = Math.min(e, hi[i]!); at < end; at++) folder.add(st, at);
          writeAgg(out, col, float, i, st, 'start', n, alloc);
        }
      }
      if (side === 'suffix' && cutRight) {
        const s = groupStarts[rightGroup]!;
        const e = groupStarts[rightGroup + 1]!;
        const lo = frames.of(col).lo;
        const st = copyAgg(suffix!.columns[c]!);
        const folder = new AggFolder(m, 'end');
        let at = e;
        for (let i = e - 1; i >= s; i--) {
          for (const start = Math.max(s, lo[i]!); at > start; ) folder.add(st, --at);
          writeAgg(out, col, float, i, st, 'end', n, alloc);
        }
      }
      if (side === 'whole') {
        for (const g of new Set([cutLeft ? leftGroup : -1, cutRight ? rightGroup : -1])) {
          if (g < 0) continue;
          const st = wholeState(input, col, c, g, cuts);
          for (let i = groupStarts[g]!; i < groupStarts[g + 1]!; i++) writeAgg(out, col, float, i, st, 'end', n, alloc);
        }
      }
      return;
    }
    if (col.fn === 'percentRank' || col.fn === 'cumeDist' || col.fn === 'ntile' || col.fn === 'rowNumber' || col.fn === 'rank' || col.fn === 'denseRank') rankOutside(input, out, col, cuts, frames);
  });
}

/** Ranking results of the cut groups (see applyOutside). */
function rankOutside(input: WindowKernelInput, out: Extract<WindowColumnOut, { kind: 'values' }>, col: ResolvedWindowColumn, cuts: HaloCuts, frames: HaloFrames): void {
  const { carry, leftGroup, rightGroup, suffix } = cuts;
  const { groupStarts } = input;
  const cutLeft = leftGroup >= 0 && carry.rows > 0;
  const cutRight = rightGroup >= 0 && suffix !== null && suffix.rows > 0;
  const shifts = col.fn === 'rowNumber' || col.fn === 'rank' || col.fn === 'denseRank';
  for (const g of new Set([leftGroup, rightGroup])) {
    if (g < 0) continue;
    const left = cutLeft && g === leftGroup;
    const right = cutRight && g === rightGroup;
    if (shifts ? !left : !left && !right) continue;
    const s = groupStarts[g]!;
    const e = groupStarts[g + 1]!;
    const before = left ? carry.rows : 0;
    const after = right ? suffix!.rows : 0;
    const N = before + (e - s) + after;
    const peers = col.fn === 'rowNumber' || col.fn === 'ntile' ? null : frames.peersOf();
    for (let i = s; i < e; i++) {
      const p = peers ? peers.of[i]! : -1;
      // rank: a peer group starting at the loaded start straddles from the carry
      const rank = peers === null ? 0 : peers.start[p] === s && left ? before - carry.peerRows + 1 : peers.start[p]! - s + 1 + before;
      if (col.fn === 'rowNumber' || col.fn === 'rank' || col.fn === 'denseRank' || col.fn === 'ntile') {
        const w = words64(out.values as BigInt64Array);
        let v: number;
        if (col.fn === 'rowNumber') v = i - s + 1 + before;
        else if (col.fn === 'rank') v = rank;
        else if (col.fn === 'denseRank') v = p - peers!.first[p]! + 1 + (left ? carry.peers - (carry.peerRows > 0 ? 1 : 0) : 0);
        else {
          const buckets = col.n || 1;
          const q = Math.floor(N / buckets);
          const R = N - q * buckets;
          const big = R * (q + 1);
          const k = i - s + before;
          v = k < big ? Math.floor(k / (q + 1)) + 1 : R + Math.floor((k - big) / q) + 1;
        }
        w[2 * i] = v;
        w[2 * i + 1] = 0;
        continue;
      }
      const f = out.values as Float64Array;
      if (col.fn === 'percentRank') f[i] = N === 1 ? 0 : (rank - 1) / (N - 1);
      else {
        // rows up to the last peer: a peer group reaching the loaded end goes on into the suffix
        const end = peers!.start[p + 1]!;
        f[i] = (before + (end - s) + (right && end >= e ? suffix!.peerRows : 0)) / N;
      }
    }
  }
}

/** Group g's whole state for column c: carried (it started before the loaded rows), or its loaded rows and the suffix. */
function wholeState(input: WindowKernelInput, col: ResolvedWindowColumn, c: number, g: number, cuts: HaloCuts): OutsideAgg {
  if (g === cuts.leftGroup && cuts.carry.rows > 0) return cuts.carry.whole[c]!;
  const { groupStarts } = input;
  const st = g === cuts.rightGroup && cuts.suffix !== null && cuts.suffix.rows > 0 ? copyAgg(cuts.suffix.columns[c]!) : emptyAgg();
  const folder = new AggFolder(measureOf(input, col), 'end');
  for (let j = groupStarts[g + 1]! - 1; j >= groupStarts[g]!; j--) folder.add(st, j);
  return st;
}

/**
 * The carry of the next range: about the group of sorted position q (this range's first row),
 * its rows before q (the loaded ones, and the carry's when it is the left-cut group), and its
 * whole state for whole-partition columns.
 */
export function carryOut(input: WindowKernelInput, q: number, cuts: HaloCuts, alloc: Allocator): HaloCarry {
  const { n, groupStarts, order, window } = input;
  const g = groupAt(groupStarts, q);
  const s = groupStarts[g]!;
  const inCut = g === cuts.leftGroup && cuts.carry.rows > 0;
  const c = cuts.carry;
  const rows = q - s + (inCut ? c.rows : 0);
  const running: Array<OutsideAgg | null> = [];
  const whole: Array<OutsideAgg | null> = [];
  window.columns.forEach((col, k) => {
    const side = outsideSide(col, window.measures);
    running.push(null);
    whole.push(null);
    if (side === 'running') {
      const st = inCut ? copyAgg(c.running[k]!) : emptyAgg();
      const folder = new AggFolder(measureOf(input, col), 'start');
      for (let j = s; j < q; j++) folder.add(st, j);
      running[k] = st;
    } else if (side === 'whole' && rows > 0) whole[k] = wholeState(input, col, k, g, cuts);
  });
  if (!needsPeers(window.columns)) return { rows, peerRows: 0, peers: 0, running, whole };
  const peers = computePeers(n, groupStarts, order, alloc);
  const p = peers.of[q]!;
  const ps = peers.start[p]!;
  const straddles = ps === s && inCut && c.peerRows > 0;
  return {
    rows,
    running,
    whole,
    peerRows: q - ps + (straddles ? c.peerRows : 0),
    peers: p - peers.first[p]! + (q > ps || straddles ? 1 : 0) + (inCut ? c.peers - (c.peerRows > 0 ? 1 : 0) : 0),
  };
}

/**
 * The suffix a range hands to the range before it (the suffix pass, run from the last range
 * back). Loaded are the range before and this range; q is the sorted position of this range's
 * first row, and `coversOwn` whether q's group holds all of this range. About the group of the
 * last row before this range (q's group, if it has rows before q; else the suffix is empty):
 * its rows from q on, those of that row's peer group among them, and the columns' states.
 * `next` is the suffix this range was handed (about its own last row's group), added when that
 * group is q's and covers all of this range.
 */
export function suffixOf(input: WindowKernelInput, q: number, coversOwn: boolean, next: HaloSuffix, alloc: Allocator): HaloSuffix {
  const { n, groupStarts, order, window } = input;
  const g = groupAt(groupStarts, q);
  const s = groupStarts[g]!;
  const e = groupStarts[g + 1]!;
  const starts = q === s;
  const goesOn = !starts && coversOwn && next.rows > 0;
  let peerRows = 0;
  if (!starts && window.columns.some((c) => c.fn === 'cumeDist')) {
    const peers = computePeers(n, groupStarts, order, alloc);
    const end = peers.start[peers.of[q - 1]! + 1]!;
    peerRows = end - q + (end === e && goesOn ? next.peerRows : 0);
  }
  const columns = window.columns.map((col, k) => {
    const side = outsideSide(col, window.measures);
    if (side !== 'suffix' && side !== 'whole') return null;
    const st = goesOn ? copyAgg(next.columns[k]!) : emptyAgg();
    if (starts) return st;
    const folder = new AggFolder(measureOf(input, col), 'end');
    for (let j = e - 1; j >= q; j--) folder.add(st, j);
    return st;
  });
  return { rows: starts ? 0 : e - q + (goesOn ? next.rows : 0), peerRows, columns };
}
