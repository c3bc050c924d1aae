/**
 * Ranking functions over sorted rows: rowNumber, rank, denseRank, percentRank, cumeDist, ntile.
 *
 * Rows arrive sorted by (partition group, order keys, row id); peers are rows equal in every
 * order key (window-frames computePeers: NULL = NULL, NaN = NaN, -0 = +0; no order key: the
 * whole partition is one peer group). For row i of a partition [s, e) with N = e - s rows, in
 * peer group [ps, pe) which is the partition's d-th group (from 0):
 *   rowNumber = i - s + 1; rank = ps - s + 1; denseRank = d + 1;
 *   percentRank = (rank - 1) / (N - 1), 0 when N = 1; cumeDist = (pe - s) / N;
 *   ntile(b): q = floor(N / b), R = N mod b; the first R buckets hold q + 1 rows, the others q
 *   (remainder rows go to the first buckets); k = i - s: bucket = k < R(q+1) ? floor(k / (q+1)) + 1
 *   : R + floor((k - R(q+1)) / q) + 1. With b >= N every row is its own bucket.
 * int64 outputs are written through their 32-bit halves (values < 2^32). O(n) per column.
 */
import type { PeerGroups } from './window-frames.js';

export type RankFn = 'rowNumber' | 'rank' | 'denseRank' | 'percentRank' | 'cumeDist' | 'ntile';

// Small integers for the per-row switch.
const CODES: Record<RankFn, number> = { rowNumber: 0, rank: 1, denseRank: 2, ntile: 3, percentRank: 4, cumeDist: 5 };

/** int64 results (as the low halves of out32; high halves 0) or float64 results into f64. */
export function rankColumn(fn: RankFn, groupStarts: Uint32Array, peers: PeerGroups, buckets: number, out32: Uint32Array | null, f64: Float64Array | null): void {
  const { of, start, first } = peers;
  const code = CODES[fn];
  for (let g = 0; g + 1 < groupStarts.length; g++) {
    const s = groupStarts[g]!;
    const e = groupStarts[g + 1]!;
    const N = e - s;
    const q = Math.floor(N / buckets);
    const R = N - q * buckets;
    const big = R * (q + 1);
    for (let i = s; i < e; i++) {
      const p = of[i]!;
      let v: number;
      switch (code) {
        case 0:
          v = i - s + 1;
          break;
        case 1:
          v = start[p]! - s + 1;
          break;
        case 2:
          v = p - first[p]! + 1;
          break;
        case 3: {
          const k = i - s;
          v = k < big ? Math.floor(k / (q + 1)) + 1 : R + Math.floor((k - big) / q) + 1;
          break;
        }
        case 4:
          v = N === 1 ? 0 : (start[p]! - s) / (N - 1);
          break;
        default:
          v = (start[p + 1]! - s) / N;
      }
      if (out32) {
        out32[2 * i] = v;
        out32[2 * i + 1] = 0;
      } else f64![i] = v;
    }
  }
}
