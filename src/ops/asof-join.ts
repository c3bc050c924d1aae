/**
 * ASOF join kernel: for every left row, the matching right row (API.md "asofJoin").
 *
 * Input: both sides in sorted order, rows sorted by (group, key, row id); `groupStarts[g]` is the
 * first sorted position of group g (length G+1; left group g pairs with right group g). Keys are
 * `NormalizedKey`s indexed by sorted position (see `permuteAsofKey`).
 *
 * Steps
 * 1. Preparation, O(n + m): right rows whose key is invalid (NULL/NaN) are dropped (compacted,
 *    with a map back to sorted positions) so they are absent wherever they sorted; left invalid
 *    rows get -1 and never move a cursor. Both keys are brought to one representation: doubles
 *    (exact integers or floats), limbs (when either side has integers beyond ±2^52), or for
 *    strings dense ranks computed per group by merging the two sorted key runs.
 * 2. Per group, merge-like cursors (x is non-decreasing along the left run):
 *    - back cursor: first right position with key > x (key >= x when exact matches are
 *      excluded); P = the position before it, the LAST of equal keys.
 *    - forward cursor: first right position with key >= x (> x when excluded); S = it, the
 *      FIRST of equal keys.
 *    backward takes P, forward takes S, nearest takes S only if |S - x| < |x - P| (exact gaps);
 *    a candidate with gap > tolerance (inclusive, exact) is absent. Doubles run a specialized
 *    loop on plain array reads (`scanF64`); limbs go through the `Keys` methods.
 * 3. With a residual condition (`checkPairs`): vectorized rounds. Every unresolved left row
 *    proposes its current candidate(s) (P walking down, S walking up); one `checkPairs` call
 *    judges all of them; rejected candidates step outward. A walk ends at the group boundary
 *    or when the gap exceeds the tolerance (gaps only grow outward), and for nearest when the
 *    other side already found a candidate this walk can no longer beat (P needs
 *    gap(P) <= gap(S), S needs gap(S) < gap(P)). A row is resolved when both walks ended.
 *
 * Invariants: the result maps left sorted position → right sorted position or -1; ties among
 * equal keys follow sorted order, which is right input order (ties are sorted by row id).
 * Complexity: O(n + m) per group without a condition (plus O(n + m) string comparisons for
 * string keys); with a condition, O(n + m + checked pairs), in at most (longest walk) rounds.
 */
import {
  cmpLimbs,
  compareUtf8,
  gapSignF,
  gapSignLimbs,
  widenAsofKey,
  withinF,
  withinLimbs,
  type NormalizedKey,
  type NormalizedTolerance,
} from './asof-keys.js';

export interface AsofKernelSide {
  n: number;
  groupStarts: Uint32Array;
  /** the key of each sorted position */
  key: NormalizedKey;
}

export interface AsofKernelInput {
  left: AsofKernelSide;
  right: AsofKernelSide;
  direction: 'backward' | 'forward' | 'nearest';
  tolerance: null | NormalizedTolerance;
  allowExactMatches: boolean;
  /**
   * Optional residual condition, vectorized over candidate pairs: positions are sorted positions.
   * Returns one byte per pair: 1 = TRUE (eligible), 0 = FALSE or NULL.
   */
  checkPairs?: (leftPos: Int32Array, rightPos: Int32Array, count: number) => Uint8Array;
}

const MODE_EXACT = 0; // doubles holding exact integers (|v| <= 2^52) or ranks
const MODE_FLOAT = 1; // doubles holding floats (exact gaps through gapSignF/withinF)
const MODE_WIDE = 2; // limbs

/** Comparison context over (left sorted position, compacted right index). */
class Keys {
  mode = MODE_EXACT;
  lv: Float64Array = new Float64Array(0);
  rv: Float64Array = new Float64Array(0);
  lh: Float64Array = new Float64Array(0);
  lm: Uint32Array = new Uint32Array(0);
  ll: Uint32Array = new Uint32Array(0);
  rh: Float64Array = new Float64Array(0);
  rm: Uint32Array = new Uint32Array(0);
  rl: Uint32Array = new Uint32Array(0);
  tol: NormalizedTolerance | null = null;

  /** sign(right[j] - left[i]) */
  cmp(j: number, i: number): number {
    if (this.mode !== MODE_WIDE) {
      const a = this.rv[j]!;
      const b = this.lv[i]!;
      return a < b ? -1 : a > b ? 1 : 0;
    }
    return cmpLimbs(this.rh[j]!, this.rm[j]!, this.rl[j]!, this.lh[i]!, this.lm[i]!, this.ll[i]!);
  }

  /** |left[i] - right[j]| <= tolerance */
  within(i: number, j: number): boolean {
    const tol = this.tol;
    if (tol === null) return true;
    if (this.mode === MODE_EXACT) return Math.abs(this.lv[i]! - this.rv[j]!) <= tol.lo;
    if (this.mode === MODE_FLOAT) return withinF(this.lv[i]!, this.rv[j]!, tol);
    return withinLimbs(this.lh[i]!, this.lm[i]!, this.ll[i]!, this.rh[j]!, this.rm[j]!, this.rl[j]!, tol);
  }

  /** sign(gap(s) - gap(p)) for left i, right p (predecessor) and s (successor). */
  gapSign(i: number, p: number, s: number): number {
    if (this.mode === MODE_EXACT) {
      const x = this.lv[i]!;
      const d = Math.abs(this.rv[s]! - x) - Math.abs(x - this.rv[p]!);
      return d < 0 ? -1 : d > 0 ? 1 : 0;
    }
    if (this.mode === MODE_FLOAT) return gapSignF(this.lv[i]!, this.rv[p]!, this.rv[s]!);
    return gapSignLimbs(
      this.lh[i]!, this.lm[i]!, this.ll[i]!,
      this.rh[p]!, this.rm[p]!, this.rl[p]!,
      this.rh[s]!, this.rm[s]!, this.rl[s]!,
    );
  }
}

function groupCount(a: Uint32Array, b: Uint32Array): number {
  return Math.max(a.length, b.length, 1) - 1;
}

function bound(starts: Uint32Array, g: number, n: number): number {
  return g < starts.length ? starts[g]! : n;
}

export function asofMatch(input: AsofKernelInput): Int32Array {
  const { left, right, direction, allowExactMatches } = input;
  const nL = left.n;
  const nR = right.n;
  const res = new Int32Array(nL).fill(-1);
  if (nL === 0) return res;
  if (input.tolerance !== null && left.key.kind === 'utf8') throw new TypeError('asofMatch: string keys take no tolerance');
  if (direction === 'nearest' && left.key.kind === 'utf8') throw new TypeError('asofMatch: string keys cannot use nearest');

  const G = groupCount(left.groupStarts, right.groupStarts);
  const lStarts = new Int32Array(G + 1);
  for (let g = 0; g <= G; g++) lStarts[g] = Math.min(bound(left.groupStarts, g, nL), nL);

  // ---- 1. compact the right side (drop invalid keys)
  const rValid = right.key.valid;
  let rMap: Int32Array | null = null;
  const rStarts = new Int32Array(G + 1);
  if (rValid !== null) {
    rMap = new Int32Array(nR);
    let c = 0;
    for (let g = 0; g < G; g++) {
      rStarts[g] = c;
      const e = Math.min(bound(right.groupStarts, g + 1, nR), nR);
      for (let p = Math.min(bound(right.groupStarts, g, nR), nR); p < e; p++) if (rValid[p] !== 0) rMap[c++] = p;
    }
    rStarts[G] = c;
    rMap = rMap.subarray(0, c);
  } else {
    for (let g = 0; g <= G; g++) rStarts[g] = Math.min(bound(right.groupStarts, g, nR), nR);
  }
  const rN = rMap === null ? nR : rMap.length;
  const lValid = left.key.valid;

  // ---- 1b. one representation for both sides
  const k = new Keys();
  k.tol = input.tolerance;
  const lk = left.key;
  const rk = right.key;
  if (lk.kind === 'utf8' || rk.kind === 'utf8') {
    if (lk.kind !== 'utf8' || rk.kind !== 'utf8') throw new TypeError('asofMatch: string keys on one side only');
    k.mode = MODE_EXACT;
    k.lv = new Float64Array(nL);
    k.rv = new Float64Array(rN);
    stringRanks(lk, rk, rMap, lStarts, rStarts, G, k.lv, k.rv);
  } else if (lk.kind === 'f64' && rk.kind === 'f64') {
    if (lk.exact !== rk.exact) throw new TypeError('asofMatch: float keys against integer keys');
    k.mode = lk.exact ? MODE_EXACT : MODE_FLOAT;
    k.lv = lk.values;
    k.rv = gatherF(rk.values, rMap);
  } else {
    k.mode = MODE_WIDE;
    const lw = widenAsofKey(lk);
    const rw = widenAsofKey(rk);
    k.lh = lw.h;
    k.lm = lw.m;
    k.ll = lw.l;
    k.rh = gatherF(rw.h, rMap);
    k.rm = gatherU(rw.m, rMap);
    k.rl = gatherU(rw.l, rMap);
  }

  const back = direction !== 'forward';
  const fwd = direction !== 'backward';
  const checkPairs = input.checkPairs;
  // per left row cursors: P candidate (or -1) and S candidate (or -1), compacted right indices
  const pc = checkPairs ? new Int32Array(nL).fill(-1) : null;
  const sc = checkPairs ? new Int32Array(nL).fill(-1) : null;

  // ---- 2. merge-like cursors per group
  if (k.mode !== MODE_WIDE) {
    scanF64(k, lValid, lStarts, rStarts, G, back, fwd, allowExactMatches, res, rMap, pc, sc);
  } else for (let g = 0; g < G; g++) {
    const ls = lStarts[g]!;
    const le = lStarts[g + 1]!;
    const rs = rStarts[g]!;
    const re = rStarts[g + 1]!;
    if (ls >= le || rs >= re) continue;
    let jb = rs; // first with key > x (>= x when exact excluded)
    let jf = rs; // first with key >= x (> x when exact excluded)
    for (let i = ls; i < le; i++) {
      if (lValid !== null && lValid[i] === 0) continue;
      let P = -1;
      let S = -1;
      if (back) {
        if (allowExactMatches) while (jb < re && k.cmp(jb, i) <= 0) jb++;
        else while (jb < re && k.cmp(jb, i) < 0) jb++;
        if (jb > rs && k.within(i, jb - 1)) P = jb - 1;
      }
      if (fwd) {
        if (allowExactMatches) while (jf < re && k.cmp(jf, i) < 0) jf++;
        else while (jf < re && k.cmp(jf, i) <= 0) jf++;
        if (jf < re && k.within(i, jf)) S = jf;
      }
      if (pc !== null) {
        pc[i] = P;
        sc![i] = S;
        continue;
      }
      let best = P;
      if (S >= 0 && (P < 0 || k.gapSign(i, P, S) < 0)) best = S;
      if (best >= 0) res[i] = rMap === null ? best : rMap[best]!;
    }
  }
  if (checkPairs === undefined || pc === null || sc === null) return res;

  // ---- 3. condition rounds
  const lo = new Int32Array(nL); // group bounds (compacted right) per left row
  const hi = new Int32Array(nL);
  let active = new Int32Array(nL);
  let nActive = 0;
  for (let g = 0; g < G; g++) {
    for (let i = lStarts[g]!; i < lStarts[g + 1]!; i++) {
      lo[i] = rStarts[g]!;
      hi[i] = rStarts[g + 1]!;
      if (pc[i]! >= 0 || sc[i]! >= 0) active[nActive++] = i;
    }
  }
  const pRes = new Int32Array(nL).fill(-1);
  const sRes = new Int32Array(nL).fill(-1);
  const pairL = new Int32Array(2 * nActive);
  const pairR = new Int32Array(2 * nActive);
  const pairS = new Uint8Array(2 * nActive); // 0 = P walk, 1 = S walk
  const pairC = new Int32Array(2 * nActive); // compacted candidate
  let next = new Int32Array(nActive);
  while (nActive > 0) {
    let cnt = 0;
    for (let a = 0; a < nActive; a++) {
      const i = active[a]!;
      const p = pc[i]!;
      if (p >= 0) {
        pairL[cnt] = i;
        pairC[cnt] = p;
        pairR[cnt] = rMap === null ? p : rMap[p]!;
        pairS[cnt++] = 0;
      }
      const s = sc[i]!;
      if (s >= 0) {
        pairL[cnt] = i;
        pairC[cnt] = s;
        pairR[cnt] = rMap === null ? s : rMap[s]!;
        pairS[cnt++] = 1;
      }
    }
    const ok = checkPairs(pairL, pairR, cnt);
    for (let t = 0; t < cnt; t++) {
      const i = pairL[t]!;
      const c = pairC[t]!;
      if (pairS[t] === 0) {
        if (ok[t] === 1) {
          pRes[i] = c;
          pc[i] = -1;
        } else pc[i] = c - 1 >= lo[i]! && k.within(i, c - 1) ? c - 1 : -1;
      } else if (ok[t] === 1) {
        sRes[i] = c;
        sc[i] = -1;
      } else sc[i] = c + 1 < hi[i]! && k.within(i, c + 1) ? c + 1 : -1;
    }
    let nNext = 0;
    for (let a = 0; a < nActive; a++) {
      const i = active[a]!;
      // nearest: stop a walk that can no longer beat the other side's find
      if (pc[i]! >= 0 && sRes[i]! >= 0 && k.gapSign(i, pc[i]!, sRes[i]!) < 0) pc[i] = -1;
      if (sc[i]! >= 0 && pRes[i]! >= 0 && k.gapSign(i, pRes[i]!, sc[i]!) >= 0) sc[i] = -1;
      if (pc[i]! >= 0 || sc[i]! >= 0) next[nNext++] = i;
      else {
        const P = pRes[i]!;
        const S = sRes[i]!;
        let best = P;
        if (S >= 0 && (P < 0 || k.gapSign(i, P, S) < 0)) best = S;
        if (best >= 0) res[i] = rMap === null ? best : rMap[best]!;
      }
    }
    const t = active;
    active = next;
    next = t;
    nActive = nNext;
  }
  return res;
}

/** Step 2 specialized for doubles (exact integers, ranks or floats): plain array reads. */
function scanF64(
  k: Keys,
  lValid: Uint8Array | null,
  lStarts: Int32Array,
  rStarts: Int32Array,
  G: number,
  back: boolean,
  fwd: boolean,
  allowExact: boolean,
  res: Int32Array,
  rMap: Int32Array | null,
  pc: Int32Array | null,
  sc: Int32Array | null,
): void {
  const lv = k.lv;
  const rv = k.rv;
  const tol = k.tol;
  const exact = k.mode === MODE_EXACT;
  // exact integers: |x - k| is exact, so `<= tol.lo` decides; floats go through withinF
  const tolLo = tol === null || tol.unbounded ? Infinity : tol.lo;
  const floatTol = !exact && tol !== null && !tol.unbounded;
  // nearest without a condition: the forward candidate follows from the backward cursor, so one
  // cursor walks the right keys (a second one doubled the merge's unpredictable branches)
  const oneCursor = back && fwd && pc === null;
  for (let g = 0; g < G; g++) {
    const ls = lStarts[g]!;
    const le = lStarts[g + 1]!;
    const rs = rStarts[g]!;
    const re = rStarts[g + 1]!;
    if (ls >= le || rs >= re) continue;
    let jb = rs;
    let jf = rs;
    for (let i = ls; i < le; i++) {
      if (lValid !== null && lValid[i] === 0) continue;
      const x = lv[i]!;
      let P = -1;
      let S = -1;
      if (back) {
        if (allowExact) while (jb < re && rv[jb]! <= x) jb++;
        else while (jb < re && rv[jb]! < x) jb++;
        if (jb > rs) {
          const y = rv[jb - 1]!;
          if (floatTol ? withinF(x, y, tol!) : x - y <= tolLo || x === y) P = jb - 1;
        }
      }
      if (fwd) {
        if (oneCursor) {
          // jb is the first key past x (allowExact) or at or past it: the successor is jb, past
          // keys equal to x when those are not eligible; with an eligible key equal to x, P (gap
          // 0) wins every tie, so no successor is needed
          jf = jb;
          if (!allowExact) while (jf < re && rv[jf]! === x) jf++;
          else if (P >= 0 && rv[P]! === x) jf = re;
        } else if (allowExact) while (jf < re && rv[jf]! < x) jf++;
        else while (jf < re && rv[jf]! <= x) jf++;
        if (jf < re) {
          const y = rv[jf]!;
          if (floatTol ? withinF(x, y, tol!) : y - x <= tolLo || x === y) S = jf;
        }
      }
      if (pc !== null) {
        pc[i] = P;
        sc![i] = S;
        continue;
      }
      let best = P;
      if (S >= 0) {
        if (P < 0) best = S;
        else if (exact) {
          if (rv[S]! - x < x - rv[P]!) best = S;
        } else {
          const ds = rv[S]! - x;
          const dp = x - rv[P]!;
          if (ds < dp || (ds === dp && gapSignF(x, rv[P]!, rv[S]!) < 0)) best = S;
          else if (ds !== ds || dp !== dp) {
            if (gapSignF(x, rv[P]!, rv[S]!) < 0) best = S; // an infinity on both sides
          }
        }
      }
      if (best >= 0) res[i] = rMap === null ? best : rMap[best]!;
    }
  }
}

function gatherF(src: Float64Array, map: Int32Array | null): Float64Array {
  if (map === null) return src;
  const out = new Float64Array(map.length);
  for (let c = 0; c < map.length; c++) out[c] = src[map[c]!]!;
  return out;
}

function gatherU(src: Uint32Array, map: Int32Array | null): Uint32Array {
  if (map === null) return src;
  const out = new Uint32Array(map.length);
  for (let c = 0; c < map.length; c++) out[c] = src[map[c]!]!;
  return out;
}

/**
 * Dense ranks of the string keys of each group, by merging the two sorted runs: equal strings
 * get equal ranks, so rank order is byte order within a group (groups never meet).
 */
function stringRanks(
  lk: Extract<NormalizedKey, { kind: 'utf8' }>,
  rk: Extract<NormalizedKey, { kind: 'utf8' }>,
  rMap: Int32Array | null,
  lStarts: Int32Array,
  rStarts: Int32Array,
  G: number,
  lOut: Float64Array,
  rOut: Float64Array,
): void {
  const lValid = lk.valid;
  for (let g = 0; g < G; g++) {
    let a = lStarts[g]!;
    const ae = lStarts[g + 1]!;
    let b = rStarts[g]!;
    const be = rStarts[g + 1]!;
    let rank = 0;
    // previous value: side (0 left, 1 right) and row
    let prevSide = -1;
    let prevRow = 0;
    for (;;) {
      while (a < ae && lValid !== null && lValid[a] === 0) a++;
      if (a >= ae && b >= be) break;
      let side: number;
      let row: number;
      if (a >= ae) side = 1;
      else if (b >= be) side = 0;
      else side = compareUtf8(lk.bytes, lk.offsets, a, rk.bytes, rk.offsets, rMap === null ? b : rMap[b]!) <= 0 ? 0 : 1;
      row = side === 0 ? a : rMap === null ? b : rMap[b]!;
      if (prevSide < 0) rank = 1;
      else {
        const pb = prevSide === 0 ? lk.bytes : rk.bytes;
        const po = prevSide === 0 ? lk.offsets : rk.offsets;
        const cb = side === 0 ? lk.bytes : rk.bytes;
        const co = side === 0 ? lk.offsets : rk.offsets;
        if (compareUtf8(pb, po, prevRow, cb, co, row) !== 0) rank++;
      }
      prevSide = side;
      prevRow = row;
      if (side === 0) lOut[a++] = rank;
      else rOut[b++] = rank;
    }
  }
}
