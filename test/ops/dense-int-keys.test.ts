// The value-indexed tables of src/ops/dense-int-keys against a Map of the values themselves:
// build rows numbered by first appearance, probe rows their value's build group or -1, for
// 64-bit keys (signed and unsigned) whose probe side holds values far outside the build's
// span (past 2^52 and 2^53, the extremes of both types), with and without NULLs.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { denseGroupIds, denseKeySpan, denseMatchIds } from '../../src/ops/dense-int-keys.js';
import type { Allocator, KeyColumn } from '../../src/types/keys.js';

const alloc: Allocator = (ctor, length) => new ctor(length);

function column(values: Array<bigint | null>, signed: boolean): KeyColumn {
  const v = signed ? new BigInt64Array(values.length) : new BigUint64Array(values.length);
  const valid = values.some((x) => x === null) ? Uint8Array.from(values, (x) => (x === null ? 0 : 1)) : null;
  values.forEach((x, i) => (v[i] = x ?? 0n));
  return { type: { kind: 'int', bits: 64, signed }, length: values.length, values: v, offsets: null, valid };
}

const FAR_SIGNED = [2n ** 52n + 2n ** 32n, 2n ** 52n + 2n ** 33n + 5n, 2n ** 53n + 1n, 2n ** 60n, 2n ** 63n - 1n, -(2n ** 52n) - 2n ** 32n - 1n, -(2n ** 60n), -(2n ** 63n)];
const FAR_UNSIGNED = [2n ** 52n + 2n ** 32n, 2n ** 53n + 1n, 2n ** 63n, 2n ** 64n - 1n];

describe('dense integer keys', () => {
  for (const signed of [true, false]) {
    it(`numbers build rows by first appearance and finds probe rows (${signed ? 'int64' : 'uint64'})`, () => {
      // Build values near the exact limit (a high word of +-2^20) too, where the argument is tightest.
      const top = 2n ** 52n + 2n ** 32n - 70n;
      const bases = signed ? [-(2n ** 51n), -(2n ** 52n) + 10n, top - 60n, 0n] : [2n ** 51n, top - 60n, 0n];
      const far = signed ? FAR_SIGNED : FAR_UNSIGNED;
      fc.assert(
        fc.property(
          fc.array(fc.option(fc.integer({ min: 0, max: 60 }), { freq: 8 }), { minLength: 1, maxLength: 200, size: 'max' }),
          fc.array(fc.oneof(fc.option(fc.integer({ min: -5, max: 65 }), { freq: 8 }), fc.constantFrom(...far.map((_, k) => 1000 + k))), { maxLength: 200, size: 'max' }),
          fc.boolean(),
          fc.constantFrom(...bases),
          (build, probe, nullsEqual, base) => {
            const b = build.map((x) => (x === null ? null : base + BigInt(x)));
            const p = probe.map((x) => (x === null ? null : x >= 1000 ? far[x - 1000]! : BigInt.asUintN(64, base + BigInt(x))));
            const pv = p.map((x) => (x === null ? null : signed ? BigInt.asIntN(64, x) : x));
            const bc = column(b, signed);
            const pc = column(pv, signed);
            const span = denseKeySpan(bc, b.length, 1 << 20);
            if (span === null) {
              expect(b.every((x) => x === null)).toBe(true);
              return;
            }
            // Reference: groups of the build values in order of first appearance.
            const ref = new Map<bigint | null, number>();
            const want: number[] = [];
            for (const x of b) {
              if (x === null && !nullsEqual) {
                want.push(-1);
                continue;
              }
              if (!ref.has(x)) ref.set(x, ref.size);
              want.push(ref.get(x)!);
            }
            const buildIds = new Int32Array(b.length);
            const probeIds = new Int32Array(p.length);
            const groups = denseMatchIds(bc, pc, b.length, p.length, nullsEqual, buildIds, probeIds, span, alloc);
            expect(groups).toBe(ref.size);
            expect(Array.from(buildIds)).toEqual(want);
            expect(Array.from(probeIds)).toEqual(pv.map((x) => (x === null ? (nullsEqual && ref.has(null) ? ref.get(null)! : -1) : (ref.get(x) ?? -1))));
            const ids = new Uint32Array(b.length);
            const g2 = denseGroupIds(bc, b.length, true, ids, span, alloc);
            const firsts = new Map<bigint | null, number>();
            expect(Array.from(ids)).toEqual(b.map((x) => (firsts.has(x) ? firsts.get(x)! : (firsts.set(x, firsts.size), firsts.size - 1))));
            expect(g2).toBe(firsts.size);
          },
        ),
        { numRuns: 300 },
      );
    });
  }
});
