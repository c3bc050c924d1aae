/**
 * Exact word arithmetic (src/ops/int64-words) against BigInt: products of 64-bit values by unit
 * factors into limbs, floor division by a day in ms, word splits and word-vector add, subtract,
 * negate and compare, at the int64/uint64 extremes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addLimbs,
  addWordsInto,
  cmpWordsAt,
  divScratch,
  divWords,
  limbScratch,
  limbsOfWords,
  negateWordsAt,
  splitWords,
  subWordsInto,
} from '../../src/ops/int64-words.js';

const I64_MIN = -(2n ** 63n);
const U64_MAX = 2n ** 64n - 1n;
const edge = fc.constantFrom(I64_MIN, I64_MIN + 1n, -1n, 0n, 1n, 2n ** 32n - 1n, 2n ** 32n, -(2n ** 32n), 2n ** 63n - 1n, 2n ** 63n, U64_MAX);
const any64 = fc.oneof(edge, fc.bigInt({ min: I64_MIN, max: U64_MAX }));

/** (hi, lo) words of v: hi signed below 2^63, unsigned above (as int64 / uint64 columns read them). */
function wordsOf(v: bigint): [number, number] {
  return [Number(v >> 32n), Number(v & 0xffffffffn)];
}
const limbs = (): bigint => (BigInt(limbScratch[0]!) << 64n) + (BigInt(limbScratch[1]!) << 32n) + BigInt(limbScratch[2]!);

function vecValue(w: ArrayLike<number>, at: number, k: number): bigint {
  let v = BigInt(w[at]!);
  for (let i = 1; i < k; i++) v = (v << 32n) + BigInt(w[at + i]!);
  return v;
}

describe('int64 words', () => {
  it('limbsOfWords is v * f exactly (f < 2^48), limbs in range', () => {
    const factor = fc.oneof(fc.constantFrom(1, 1000, 1e6, 1e9, 86_400e9, 2 ** 48 - 1), fc.integer({ min: 1, max: 2 ** 31 }), fc.double({ min: 1, max: 2 ** 48 - 1, noNaN: true }).map(Math.floor));
    fc.assert(
      fc.property(any64, factor, (v, f) => {
        const [hi, lo] = wordsOf(v);
        limbsOfWords(hi, lo, f);
        expect(limbs()).toBe(v * BigInt(f));
        expect(limbScratch[1]! >= 0 && limbScratch[1]! < 2 ** 32 && limbScratch[2]! >= 0 && limbScratch[2]! < 2 ** 32).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it('addLimbs adds', () => {
    fc.assert(
      fc.property(any64, any64, fc.integer({ min: 1, max: 2 ** 40 }), (a, b, f) => {
        limbsOfWords(...wordsOf(a), f);
        const [h, m, l] = [limbScratch[0]!, limbScratch[1]!, limbScratch[2]!];
        limbsOfWords(...wordsOf(b), 1);
        addLimbs(h, m, l, limbScratch[0]!, limbScratch[1]!, limbScratch[2]!);
        expect(limbs()).toBe(a * BigInt(f) + b);
      }),
      { numRuns: 1000 },
    );
  });

  it('divWords is floor division with a non-negative remainder', () => {
    fc.assert(
      fc.property(any64, fc.constantFrom(86_400_000, 2048, 2 ** 36, 999_999_937), (v, d) => {
        divWords(...wordsOf(v), d);
        const D = BigInt(d);
        const r = ((v % D) + D) % D;
        expect(BigInt(divScratch[0]!)).toBe((v - r) / D);
        expect(BigInt(divScratch[1]!)).toBe(r);
      }),
      { numRuns: 2000 },
    );
  });

  it('word vectors: split, add, subtract, negate and compare without wrapping', () => {
    for (const k of [2, 4]) {
      const lim = 1n << BigInt(32 * k - 1);
      const val = fc.oneof(fc.bigInt({ min: -lim, max: lim - 1n }), fc.constantFrom(-lim, lim - 1n, 0n, -1n));
      fc.assert(
        fc.property(val, val, fc.bigInt({ min: 0n, max: 2n ** 63n - 1n }), (a, b, o) => {
          const w = new Float64Array(2 * k);
          w.set(splitWords(a, k), 0);
          w.set(splitWords(b, k), k);
          expect(vecValue(w, 0, k)).toBe(a);
          const t = new Float64Array(k);
          const ow = splitWords(o, k);
          subWordsInto(w, 0, ow, k, t);
          expect(vecValue(t, 0, k)).toBe(a - o);
          expect(Math.sign(cmpWordsAt(w, k, t, k))).toBe(b < a - o ? -1 : b > a - o ? 1 : 0);
          addWordsInto(w, 0, ow, k, t);
          expect(vecValue(t, 0, k)).toBe(a + o);
          negateWordsAt(w, 0, k);
          expect(vecValue(w, 0, k)).toBe(-a);
        }),
        { numRuns: 1000 },
      );
    }
  });
});
