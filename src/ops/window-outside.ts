/**
 * Aggregate state of a partition group's rows that a range task did not load (pure).
 *
 * A window partition too big for one task runs in sort ranges (src/ops/window-halo.ts); a
 * frame with an unbounded side can reach rows of its group outside the task's rows. For
 * count, sum and avg such rows are summarized exactly by an OutsideAgg, and a result is the
 * loaded part of the frame folded into that state:
 * - count: non-NULL values (rows, for count());
 * - integer and duration sums: the exact sum in 96-bit two's complement limbs (h signed; the
 *   low 64 bits are the wrapping int64/uint64 sum, the whole the exact sum avg divides);
 * - float sums: the pairwise node sums of the canonical order (window-sum.ts), anchored at the
 *   group's edge the rows touch: a frame from UNBOUNDED PRECEDING sums the binary decomposition
 *   of its length largest block first from the group's start, a frame to UNBOUNDED FOLLOWING
 *   smallest block first up to the group's end. Both are binary counters: a node merges with
 *   the one of equal size next to it, so the state is at most 32 nodes however many rows it
 *   covers, and the sum of any such frame is its nodes folded in order, bit-identical to one
 *   pass over the whole group. NULLs count as -0, the identity of IEEE addition, and keep
 *   their place in the tree.
 */
import type { KeyColumn } from '../types/keys.js';
import { addLimbs, highWords, limbScratch, limbsOfWords, TWO32, words64 } from './int64-words.js';

export interface OutsideAgg {
  /** Non-NULL values of the measure (rows for count() of rows). */
  count: number;
  /** Integer measures: the exact sum h*2^64 + m*2^32 + l. */
  h: number;
  m: number;
  l: number;
  /** Float measures: node sizes and sums, the node farthest from the anchored edge last. */
  sizes: number[];
  sums: number[];
}

export function emptyAgg(): OutsideAgg {
  return { count: 0, h: 0, m: 0, l: 0, sizes: [], sums: [] };
}

export function copyAgg(a: OutsideAgg): OutsideAgg {
  return { count: a.count, h: a.h, m: a.m, l: a.l, sizes: a.sizes.slice(), sums: a.sums.slice() };
}

/**
 * Reads sorted positions of one measure (null: count() of rows) into an OutsideAgg, from the
 * group's start rightwards (`start`-anchored) or from its end leftwards (`end`-anchored).
 */
export class AggFolder {
  private readonly valid: Uint8Array | null;
  private readonly float: Float64Array | Float32Array | null;
  /** Integer measures: hi words (signed as the array) and lo words, or narrow values. */
  private readonly hiWords: Int32Array | Uint32Array | null;
  private readonly loWords: Uint32Array | null;
  private readonly narrow: ArrayLike<number> | null;

  constructor(
    col: KeyColumn | null,
    private readonly anchor: 'start' | 'end',
  ) {
    this.valid = col?.valid ?? null;
    const v = col?.values;
    this.float = v instanceof Float64Array || v instanceof Float32Array ? v : null;
    const wide = v instanceof BigInt64Array || v instanceof BigUint64Array ? v : null;
    this.hiWords = wide ? highWords(wide) : null;
    this.loWords = wide ? words64(wide) : null;
    this.narrow = col && !this.float && !wide ? (v as unknown as ArrayLike<number>) : null;
  }

  /** Adds sorted position j (the next row away from the anchored edge). */
  add(s: OutsideAgg, j: number): void {
    const isValid = this.valid === null || this.valid[j] === 1;
    if (isValid) s.count++;
    if (this.float) return this.push(s, isValid ? this.float[j]! : -0);
    if (!isValid) return;
    if (this.hiWords) limbsOfWords(this.hiWords[2 * j + 1]!, this.loWords![2 * j]!, 1);
    else if (this.narrow) {
      const x = this.narrow[j]!;
      limbsOfWords(x < 0 ? -1 : 0, x < 0 ? x + TWO32 : x, 1);
    } else return;
    addLimbs(s.h, s.m, s.l, limbScratch[0]!, limbScratch[1]!, limbScratch[2]!);
    s.h = limbScratch[0]!;
    s.m = limbScratch[1]!;
    s.l = limbScratch[2]!;
  }

  /** A leaf node, merged with its equal-sized neighbours (the tree's left half first). */
  private push(s: OutsideAgg, x: number): void {
    const { sizes, sums } = s;
    let size = 1;
    let sum = x;
    while (sizes.length > 0 && sizes[sizes.length - 1] === size) {
      const other = sums.pop()!;
      sizes.pop();
      sum = this.anchor === 'start' ? other + sum : sum + other;
      size *= 2;
    }
    sizes.push(size);
    sums.push(sum);
  }
}

/**
 * The canonical float sum of the rows an OutsideAgg covers: a start-anchored one largest node
 * first, an end-anchored one smallest first (both: left to right); 0 for none.
 */
export function aggFloatSum(s: OutsideAgg, anchor: 'start' | 'end'): number {
  const { sums } = s;
  const k = sums.length;
  if (k === 0) return 0;
  if (anchor === 'start') {
    let acc = sums[0]!;
    for (let i = 1; i < k; i++) acc = acc + sums[i]!;
    return acc;
  }
  let acc = sums[k - 1]!;
  for (let i = k - 2; i >= 0; i--) acc = acc + sums[i]!;
  return acc;
}

/** Two states of disjoint rows of integer or count columns, added (floats cannot be merged so). */
export function addAggCounts(a: OutsideAgg, b: OutsideAgg): OutsideAgg {
  addLimbs(a.h, a.m, a.l, b.h, b.m, b.l);
  return { count: a.count + b.count, h: limbScratch[0]!, m: limbScratch[1]!, l: limbScratch[2]!, sizes: [], sums: [] };
}
