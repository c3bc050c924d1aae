/**
 * Window results for one sort range of a partition too big for one task (pure, typed arrays).
 *
 * The task computes the window over its range and both neighbour ranges (the halo), sorted as
 * usual by (group, order keys, row id), and keeps the results of its own rows. Only two groups
 * can be cut by what was loaded: `leftGroup`, the group of the first loaded row, has
 * `carry.rows` more rows before them; `rightGroup` may go on after them. Everything else is
 * whole. For a kept row of a cut group:
 * - a frame (any mode) whose computed bounds stay strictly inside the loaded rows of its group
 *   was never clamped, so it is the true frame and its result is exact: kernels depend on the
 *   frame's values only (float sums and moments fold in a canonical order of the frame alone);
 *   a frame reaching the loaded edge of a cut group cannot be told from a clamped one: error;
 * - lag/lead find their row inside the loaded rows, or cannot tell: error;
 * - rowNumber, rank, denseRank are shifted by the carry (rows, the straddling peer group, the
 *   peer groups before): exact; percentRank, cumeDist, ntile need the group's size: error;
 * - count and integer sums over a running frame (UNBOUNDED PRECEDING .. a bounded end) are
 *   recomputed for the left-cut group from the carried count and wrapping int64 sum plus the
 *   loaded rows (64-bit words, exact: the same bits as one fold over the whole group).
 * `carryOut` gives the carry of the next range (the group of this range's first row).
 */
import { words64 } from './int64-words.js';
import { computeFrames, computePeers, type PeerGroups } from './window-frames.js';
import type { ResolvedWindowColumn } from './window-spec.js';
import type { WindowColumnOut, WindowKernelInput } from './window.js';
import type { Allocator } from '../types/keys.js';

/** Non-NULL count and wrapping int64 sum (32-bit words) of a measure over some rows. */
export interface RunningSum {
  count: number;
  lo: number;
  hi: number;
}

export interface HaloCarry {
  rows: number;
  peerRows: number;
  peers: number;
  /** Per column with a running frame (isRunning): its state over the carried rows. */
  running: Array<RunningSum | null>;
}

export interface HaloCuts {
  /** Group with `carry.rows` rows before the loaded ones (-1: none). */
  leftGroup: number;
  /** Group that may have rows after the loaded ones (-1: none). */
  rightGroup: number;
  carry: HaloCarry;
}

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
  return cols.some((c) => c.fn === 'rank' || c.fn === 'denseRank');
}

/**
 * The first column whose result for a kept row (keep[i] = 1 at sorted position i) cannot be
 * told from the loaded rows, or null when every kept result is exact.
 */
export function firstUnreachable(input: WindowKernelInput, outs: WindowColumnOut[], keep: Uint8Array, cuts: HaloCuts, alloc: Allocator): ResolvedWindowColumn | null {
  const { n, groupStarts, order, window } = input;
  const segments: Array<{ g: number; left: boolean; right: boolean }> = [];
  const cutLeft = cuts.leftGroup >= 0 && cuts.carry.rows > 0;
  if (cutLeft) segments.push({ g: cuts.leftGroup, left: true, right: cuts.rightGroup === cuts.leftGroup });
  if (cuts.rightGroup >= 0 && !(cutLeft && cuts.rightGroup === cuts.leftGroup)) segments.push({ g: cuts.rightGroup, left: false, right: true });
  if (segments.length === 0) return null;
  let peers: PeerGroups | null = null;
  const peersOf = (): PeerGroups => (peers ??= computePeers(n, groupStarts, order, alloc));
  const frames = new Map<string, { lo: Int32Array; hi: Int32Array }>();
  for (let c = 0; c < window.columns.length; c++) {
    const col = window.columns[c]!;
    const out = outs[c]!;
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
          for (let i = s; i < e; i++) if (keep[i]) return col;
          continue;
        case 'lag':
        case 'lead': {
          if ((col.n > 0 && !left) || (col.n < 0 && !right) || col.n === 0) continue;
          const index = (out as Extract<WindowColumnOut, { kind: 'take' }>).index;
          for (let i = s; i < e; i++) if (keep[i] && index[i]! < 0) return col;
          continue;
        }
        default: {
          if (col.frame === null) continue;
          const key = JSON.stringify(col.frame);
          let fb = frames.get(key);
          if (!fb) {
            fb = computeFrames(n, groupStarts, order, window.orderBy, col.frame, peersOf, alloc);
            frames.set(key, fb);
          }
          // A running frame starts before the loaded rows by design (the carry holds them) but
          // must end inside them: an end clamped to their start could lie among the carried rows.
          const running = left && isRunning(col, input);
          const checkLeft = left && !running;
          for (let i = s; i < e; i++) {
            if (!keep[i]) continue;
            if ((checkLeft && fb.lo[i]! <= s) || (running && fb.hi[i]! <= s) || (right && fb.hi[i]! >= e)) return col;
          }
        }
      }
    }
  }
  return null;
}

/**
 * Whether a range carries this column's running state: count, or a sum of an integer measure,
 * over a frame from UNBOUNDED PRECEDING to a bounded end.
 */
export function isRunning(col: ResolvedWindowColumn, input: WindowKernelInput): boolean {
  if (col.frame === null || col.frame.preceding !== null || col.frame.following === null) return false;
  if (col.fn === 'count') return true;
  if (col.fn !== 'sum') return false;
  const m = input.window.measures[col.measure]!.type.kind;
  return m === 'int' || m === 'duration';
}

const TWO32 = 4294967296;

/**
 * Running count and wrapping sum of measure `measure` (-1: rows) over sorted positions
 * [s, s + k) for k = 0..e - s, starting from `from`: counts and sum words, length e - s + 1.
 */
function runningOver(input: WindowKernelInput, measure: number, s: number, e: number, from: RunningSum | null, alloc: Allocator): { count: Int32Array; lo: Uint32Array; hi: Uint32Array } {
  const m = e - s;
  const count = alloc(Int32Array, m + 1);
  const lo = alloc(Uint32Array, m + 1);
  const hi = alloc(Uint32Array, m + 1);
  let c = from?.count ?? 0;
  let l = from?.lo ?? 0;
  let h = from?.hi ?? 0;
  count[0] = c;
  lo[0] = l;
  hi[0] = h;
  const col = measure >= 0 ? input.measures[measure]! : null;
  const valid = col?.valid ?? null;
  const v = col?.values;
  const wide = v instanceof BigInt64Array || v instanceof BigUint64Array ? words64(v) : null;
  const narrow = v as unknown as ArrayLike<number>;
  for (let k = 0; k < m; k++) {
    const j = s + k;
    if (valid === null || valid[j] === 1) {
      c++;
      if (col) {
        let xl: number;
        let xh: number;
        if (wide) {
          xl = wide[2 * j]!;
          xh = wide[2 * j + 1]!;
        } else {
          const x = narrow[j]!;
          xl = x >>> 0;
          xh = x < 0 ? 0xffffffff : 0;
        }
        l += xl;
        let up = 0;
        if (l >= TWO32) {
          l -= TWO32;
          up = 1;
        }
        h = (h + xh + up) >>> 0;
      }
    }
    count[k + 1] = c;
    lo[k + 1] = l;
    hi[k + 1] = h;
  }
  return { count, lo, hi };
}

/**
 * The left-cut group's results that depend on rows before the loaded ones: rowNumber / rank /
 * denseRank shifted by the carry; running counts and integer sums recomputed from the carried state.
 */
export function applyCarry(input: WindowKernelInput, outs: WindowColumnOut[], cuts: HaloCuts, alloc: Allocator): void {
  const { carry, leftGroup } = cuts;
  if (leftGroup < 0 || carry.rows === 0) return;
  const { n, groupStarts, order, window } = input;
  const peers = needsPeers(window.columns) ? computePeers(n, groupStarts, order, alloc) : null;
  const s = groupStarts[leftGroup]!;
  const e = groupStarts[leftGroup + 1]!;
  window.columns.forEach((col, c) => {
    const out = outs[c]!;
    if (out.kind === 'values' && isRunning(col, input)) {
      const fb = computeFrames(n, groupStarts, order, window.orderBy, col.frame!, () => peers ?? computePeers(n, groupStarts, order, alloc), alloc);
      const run = runningOver(input, col.measure, s, e, carry.running[c] ?? null, alloc);
      const w = words64(out.values as BigInt64Array);
      const need = col.fn === 'count' ? col.minPeriods : Math.max(1, col.minPeriods);
      for (let i = s; i < e; i++) {
        const k = Math.min(e, Math.max(s, fb.hi[i]!)) - s;
        const cnt = run.count[k]!;
        if (col.fn === 'count') {
          w[2 * i] = cnt;
          w[2 * i + 1] = 0;
        } else {
          w[2 * i] = run.lo[k]!;
          w[2 * i + 1] = run.hi[k]!;
        }
        if (cnt < need) {
          if (!out.valid) {
            out.valid = alloc(Uint8Array, n);
            out.valid.fill(1);
          }
          out.valid[i] = 0;
        } else if (out.valid) out.valid[i] = 1;
      }
      return;
    }
    if (out.kind !== 'values' || (col.fn !== 'rowNumber' && col.fn !== 'rank' && col.fn !== 'denseRank')) return;
    const w = words64(out.values as BigInt64Array);
    for (let i = s; i < e; i++) {
      let v = w[2 * i]!;
      if (col.fn === 'rowNumber') v += carry.rows;
      else if (col.fn === 'rank') v = peers!.start[peers!.of[i]!] === s ? carry.rows - carry.peerRows + 1 : v + carry.rows;
      else v += carry.peers - (carry.peerRows > 0 ? 1 : 0);
      w[2 * i] = v;
    }
  });
}

/**
 * The carry of the next range: about the group of sorted position q (this range's first row),
 * its rows before q (the loaded ones, and the carry's when it is the left-cut group).
 */
export function carryOut(input: WindowKernelInput, q: number, cuts: HaloCuts, alloc: Allocator): HaloCarry {
  const { n, groupStarts, order, window } = input;
  const g = groupAt(groupStarts, q);
  const s = groupStarts[g]!;
  const inCut = g === cuts.leftGroup && cuts.carry.rows > 0;
  const c = cuts.carry;
  const rows = q - s + (inCut ? c.rows : 0);
  const running = window.columns.map((col, k) => {
    if (!isRunning(col, input)) return null;
    const run = runningOver(input, col.measure, s, q, inCut ? (c.running[k] ?? null) : null, alloc);
    return { count: run.count[q - s]!, lo: run.lo[q - s]!, hi: run.hi[q - s]! };
  });
  if (!needsPeers(window.columns)) return { rows, peerRows: 0, peers: 0, running };
  const peers = computePeers(n, groupStarts, order, alloc);
  const p = peers.of[q]!;
  const ps = peers.start[p]!;
  const straddles = ps === s && inCut && c.peerRows > 0;
  return {
    rows,
    running,
    peerRows: q - ps + (straddles ? c.peerRows : 0),
    peers: p - peers.first[p]! + (q > ps || straddles ? 1 : 0) + (inCut ? c.peers - (c.peerRows > 0 ? 1 : 0) : 0),
  };
}
