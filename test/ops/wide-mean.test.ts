// The mean of an exact 96-bit integer sum (src/ops/window-sum wideMean) is the float64 nearest the
// exact quotient, ties to even; checked against a BigInt reference that compares the candidate
// doubles around the quotient exactly. Dividing the sum after rounding it to float64 (the old
// way) is off by an ulp for means above 2^51 (a case found against DuckDB).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { meanOfWide, wideMean } from '../../src/ops/window-sum.js';

const F = new Float64Array(1);
const W = new BigUint64Array(F.buffer);

/** A finite double as num * 2^shift exactly (BigInt), and whether its significand is even. */
function exact(x: number): { num: bigint; shift: number; even: boolean } {
  F[0] = x;
  const bits = W[0]!;
  const neg = bits >> 63n === 1n;
  const e = Number((bits >> 52n) & 0x7ffn);
  const frac = bits & ((1n << 52n) - 1n);
  const mant = e === 0 ? frac : frac | (1n << 52n);
  const shift = (e === 0 ? 1 : e) - 1075;
  return { num: neg ? -mant : mant, shift, even: (mant & 1n) === 0n };
}

function nextAfter(x: number, up: boolean): number {
  if (x === 0) return up ? Number.MIN_VALUE : -Number.MIN_VALUE;
  F[0] = x;
  W[0] = W[0]! + ((x > 0) === up ? 1n : -1n);
  return F[0]!;
}

/** The float64 nearest n / m (m > 0), ties to the even significand. */
function reference(n: bigint, m: bigint): number {
  const guess = Number(n) / Number(m);
  const candidates = [nextAfter(nextAfter(guess, false), false), nextAfter(guess, false), guess, nextAfter(guess, true), nextAfter(nextAfter(guess, true), true)];
  let best = candidates[0]!;
  let bestDist: bigint | null = null;
  let bestScale = 0;
  for (const c of candidates) {
    const { num, shift, even } = exact(c);
    // |n/m - num·2^shift| scaled by m·2^S (S >= -shift) to integers
    const S = Math.max(0, -shift);
    const dist = n * (1n << BigInt(S)) - num * m * (1n << BigInt(shift + S));
    const d = dist < 0n ? -dist : dist;
    // compare d / 2^S across candidates with their own S
    if (bestDist === null) {
      best = c;
      bestDist = d;
      bestScale = S;
      continue;
    }
    const lhs = d << BigInt(bestScale);
    const rhs = bestDist << BigInt(S);
    if (lhs < rhs || (lhs === rhs && even)) {
      best = c;
      bestDist = d;
      bestScale = S;
    }
  }
  return best;
}

/** The 96-bit two's-complement words (h signed, mm and l unsigned 32-bit) of v. */
function words(v: bigint): [number, number, number] {
  const u = BigInt.asUintN(96, v);
  return [Number(BigInt.asIntN(32, u >> 64n)), Number((u >> 32n) & 0xffffffffn), Number(u & 0xffffffffn)];
}

const int64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });

describe('wideMean: the correctly rounded mean of an exact integer sum', () => {
  it('the case found against DuckDB: 9 int64 values summing to 27021597764222966', () => {
    const sum = 27021597764222966n;
    expect(wideMean(...words(sum), 9)).toBe(3002399751580329.5);
    expect(wideMean(...words(-sum), 9)).toBe(-3002399751580329.5);
  });

  it('equals the BigInt reference for sums of int64 values (any count, any sign, near every binade)', () => {
    fc.assert(
      fc.property(
        fc.array(int64, { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 0, max: 2 ** 32 - 1 - 40 }),
        fc.bigInt({ min: -(2n ** 20n), max: 2n ** 20n }),
        (xs, extraCount, nudge) => {
          // m values averaging near mean(xs) ± small: the sum of m int64 values, m up to 2^32 - 1
          const m = xs.length + extraCount;
          const mean = xs.reduce((a, b) => a + b, 0n) / BigInt(xs.length);
          const sum = mean * BigInt(m) + nudge;
          const cap = BigInt(m) * 2n ** 63n;
          if (sum >= cap || sum < -cap) return;
          expect(wideMean(...words(sum), m)).toBe(reference(sum, BigInt(m)));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('equals the reference for means near every power of two, halves included', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 62 }), fc.bigInt({ min: -64n, max: 64n }), fc.integer({ min: 1, max: 8 }), fc.boolean(), (p, off, m, neg) => {
        const mean2 = (2n ** BigInt(p) * 2n + off) * BigInt(m); // twice the mean, times m: halves when odd
        const sum = (neg ? -mean2 : mean2) / 2n;
        if (sum >= BigInt(m) * 2n ** 63n || sum < -BigInt(m) * 2n ** 63n) return;
        expect(wideMean(...words(sum), m)).toBe(reference(sum, BigInt(m)));
      }),
      { numRuns: 3000 },
    );
  });

  it('ties round to even, at and below 2^53', () => {
    for (const [sum, m] of [
      [5n, 2n], // 2.5 -> 2.5 (exact)
      [2n ** 54n + 2n, 1n], // exact, 2^54 + 2
      [2n ** 54n + 1n, 1n], // tie between 2^54 and 2^54 + 2 -> 2^54 (even)
      [2n ** 54n + 3n, 1n], // tie -> 2^54 + 4 (even)
      [2n * (2n ** 54n + 1n) + 1n, 2n], // just above the tie -> up
      [2n ** 53n + 1n, 2n], // 2^52 + 0.5, exact
      [-(2n ** 54n + 1n), 1n],
      // quotients in [2^52, 2^53): ulp 1, a tie goes to the even integer (found in review)
      [2n ** 53n + 3n, 2n], // 2^52 + 1.5 -> 2^52 + 2
      [2n ** 53n + 1n, 2n], // 2^52 + 0.5 -> 2^52
      [-(2n ** 53n + 3n), 2n],
      [3n * (2n ** 52n + 7n) + 1n, 3n], // not a tie
    ] as const) {
      expect(wideMean(...words(sum), Number(m))).toBe(reference(sum, m));
    }
  });

  it('meanOfWide (integer means) still rounds half to even', () => {
    const out = new Uint32Array(2);
    for (const [sum, m, want] of [
      [5n, 2n, 2n],
      [7n, 2n, 4n],
      [-5n, 2n, -2n],
      [-7n, 2n, -4n],
      [2n ** 64n + 1n, 3n, 6148914691236517206n], // .67 rounds up
    ] as const) {
      meanOfWide(...words(sum), Number(m), out, 0);
      expect(BigInt.asIntN(64, (BigInt(out[1]!) << 32n) | BigInt(out[0]!))).toBe(want);
    }
  });
});
