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
 *   peer groups before): exact; percentRank, cumeDist, ntile need the group's size: error.
 * `carryOut` gives the carry of the next range (the group of this range's first row).
 */
import { words64 } from './int64-words.js';
import { computeFrames, computePeers, type PeerGroups } from './window-frames.js';
import type { ResolvedWindowColumn } from './window-spec.js';
import type { WindowColumnOut, WindowKernelInput } from './window.js';
import type { Allocator } from '../types/keys.js';

export interface HaloCarry {
  rows: number;
  peerRows: number;
  peers: number;
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
          for (let i = s; i < e; i++) {
            if (!keep[i]) continue;
            if ((left && fb.lo[i]! <= s) || (right && fb.hi[i]! >= e)) return col;
          }
        }
      }
    }
  }
  return null;
}

/** Shifts rowNumber / rank / denseRank of the left-cut group by the carry. */
export function shiftRanks(input: WindowKernelInput, outs: WindowColumnOut[], cuts: HaloCuts, alloc: Allocator): void {
  const { carry, leftGroup } = cuts;
  if (leftGroup < 0 || carry.rows === 0) return;
  const { n, groupStarts, order, window } = input;
  const peers = needsPeers(window.columns) ? computePeers(n, groupStarts, order, alloc) : null;
  const s = groupStarts[leftGroup]!;
  const e = groupStarts[leftGroup + 1]!;
  window.columns.forEach((col, c) => {
    const out = outs[c]!;
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
  if (!needsPeers(window.columns)) return { rows, peerRows: 0, peers: 0 };
  const peers = computePeers(n, groupStarts, order, alloc);
  const p = peers.of[q]!;
  const ps = peers.start[p]!;
  const straddles = ps === s && inCut && c.peerRows > 0;
  return {
    rows,
    peerRows: q - ps + (straddles ? c.peerRows : 0),
    peers: p - peers.first[p]! + (q > ps || straddles ? 1 : 0) + (inCut ? c.peers - (c.peerRows > 0 ? 1 : 0) : 0),
  };
}
