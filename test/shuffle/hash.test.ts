// Seeded row hash: deterministic, equal across representations of equal values, distinct
// across values and classes; partition ids in range; counting scatter grouped and stable.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { TypeDesc } from '../../src/types/column.js';
import type { KeyColumn, TypedArray } from '../../src/types/keys.js';
import { countingPositions, countingScatter, hashColumns, partitionOf } from '../../src/shuffle/hash.js';

function col(type: TypeDesc, values: TypedArray, valid: Uint8Array | null = null, offsets: Int32Array | null = null): KeyColumn {
  return { type, length: offsets ? offsets.length - 1 : values.length, values, offsets, valid };
}
const I = (bits: 8 | 16 | 32 | 64, signed: boolean): TypeDesc => ({ kind: 'int', bits, signed });
function utf8(strs: string[], valid: Uint8Array | null = null): KeyColumn {
  const parts = strs.map((s) => Buffer.from(s));
  const offsets = new Int32Array(strs.length + 1);
  parts.forEach((p, i) => (offsets[i + 1] = offsets[i]! + p.length));
  return col({ kind: 'utf8' }, new Uint8Array(Buffer.concat(parts)), valid, offsets);
}
const h1 = (c: KeyColumn, seed = 7) => Array.from(hashColumns([c], c.length, seed));

describe('hashColumns', () => {
  it('is deterministic and seed-dependent', () => {
    fc.assert(
      fc.property(fc.array(fc.integer(), { minLength: 1, maxLength: 50 }), fc.integer(), (xs, seed) => {
        const c = col(I(32, true), Int32Array.from(xs));
        expect(h1(c, seed)).toEqual(h1(c, seed));
        expect(h1(c, seed)).not.toEqual(h1(c, seed + 1));
        const out = new Uint32Array(xs.length);
        expect(hashColumns([c], xs.length, seed, out)).toBe(out);
      }),
      { numRuns: 100 },
    );
  });

  it('hashes integers by value across widths and signedness', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 127 }), { minLength: 1, maxLength: 30 }), fc.integer(), (xs, seed) => {
        const want = h1(col(I(64, true), BigInt64Array.from(xs, BigInt)), seed);
        for (const [t, C] of [
          [I(8, true), Int8Array],
          [I(8, false), Uint8Array],
          [I(16, true), Int16Array],
          [I(16, false), Uint16Array],
          [I(32, true), Int32Array],
          [I(32, false), Uint32Array],
        ] as const) {
          expect(h1(col(t, C.from(xs)), seed)).toEqual(want);
        }
        expect(h1(col(I(64, false), BigUint64Array.from(xs, BigInt)), seed)).toEqual(want);
      }),
      { numRuns: 100 },
    );
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), { minLength: 1, maxLength: 30 }), (xs) => {
        expect(h1(col(I(32, true), Int32Array.from(xs)))).toEqual(h1(col(I(64, true), BigInt64Array.from(xs, BigInt))));
      }),
      { numRuns: 100 },
    );
    // uint32 values above 2^31 equal the same int64 values, not the negative int32 with the same bits
    expect(h1(col(I(32, false), Uint32Array.of(0xffffffff)))).toEqual(h1(col(I(64, true), BigInt64Array.of(0xffffffffn))));
    expect(h1(col(I(32, false), Uint32Array.of(0xffffffff)))).not.toEqual(h1(col(I(32, true), Int32Array.of(-1))));
    // uint64 >= 2^63 differs from the negative int64 with the same bits
    for (const v of [2n ** 64n - 1n, 2n ** 63n, 2n ** 63n + 12345n]) {
      expect(h1(col(I(64, false), BigUint64Array.of(v)))).not.toEqual(h1(col(I(64, true), BigInt64Array.of(BigInt.asIntN(64, v)))));
    }
    expect(h1(col(I(64, false), BigUint64Array.of(2n ** 63n - 1n)))).toEqual(h1(col(I(64, true), BigInt64Array.of(2n ** 63n - 1n))));
  });

  it('hashes NULLs of a 64-bit column as narrower integer columns do', () => {
    fc.assert(
      fc.property(fc.array(fc.option(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), { freq: 3 }), { minLength: 1, maxLength: 40 }), fc.integer(), (xs, seed) => {
        const valid = Uint8Array.from(xs, (x) => (x === null ? 0 : 1));
        const wide = col(I(64, true), BigInt64Array.from(xs, (x) => BigInt(x ?? 99)), valid);
        const narrow = col(I(32, true), Int32Array.from(xs, (x) => x ?? -5), valid);
        expect(h1(wide, seed)).toEqual(h1(narrow, seed));
      }),
      { numRuns: 100 },
    );
  });

  it('hashes floats canonically: -0 == +0, all NaNs equal, float32 == float64 for equal values', () => {
    const f64 = new Float64Array([0, -0, NaN, NaN, NaN, 1.5, Infinity, -Infinity]);
    const w = new Uint32Array(f64.buffer);
    w[2 * 3 + 1] = 0xfff80000; // negative quiet NaN
    w[2 * 4] = 1; // signalling-ish payload
    w[2 * 4 + 1] = 0x7ff00000;
    const h = h1(col({ kind: 'float', bits: 64 }, f64));
    expect(h[0]).toBe(h[1]);
    expect(h[2]).toBe(h[3]);
    expect(h[2]).toBe(h[4]);
    expect(new Set(h).size).toBe(5);
    const f32 = new Float32Array([0, -0, NaN, NaN, NaN, 1.5, Infinity, -Infinity]);
    new Uint32Array(f32.buffer)[3] = 0xffc00001;
    expect(h1(col({ kind: 'float', bits: 32 }, f32))).toEqual(h);
    // float 1 is not integer 1 (different classes)
    expect(h1(col({ kind: 'float', bits: 64 }, Float64Array.of(1)))).not.toEqual(h1(col(I(32, true), Int32Array.of(1))));
  });

  it('keeps type classes apart and NULL distinct from every value', () => {
    const raw = 19000;
    const hashes = [
      h1(col(I(32, true), Int32Array.of(raw)))[0],
      h1(col({ kind: 'date', unit: 'day' }, Int32Array.of(raw)))[0],
      h1(col({ kind: 'date', unit: 'ms' }, BigInt64Array.of(BigInt(raw))))[0],
      h1(col({ kind: 'timestamp', unit: 'ms', timezone: null }, BigInt64Array.of(BigInt(raw))))[0],
      h1(col({ kind: 'timestamp', unit: 'us', timezone: null }, BigInt64Array.of(BigInt(raw))))[0],
      h1(col({ kind: 'duration', unit: 'ms' }, BigInt64Array.of(BigInt(raw))))[0],
    ];
    expect(new Set(hashes).size).toBe(hashes.length);
    // zone strings do not matter: zoned timestamps are instants
    expect(h1(col({ kind: 'timestamp', unit: 'ms', timezone: 'UTC' }, BigInt64Array.of(5n)))).toEqual(
      h1(col({ kind: 'timestamp', unit: 'ms', timezone: 'Europe/Paris' }, BigInt64Array.of(5n))),
    );
    // NULLs of any type hash alike, whatever the junk value underneath, and unlike 0 / ''
    const nI = h1(col(I(32, true), Int32Array.of(0, 123, 0), Uint8Array.of(0, 0, 1)));
    const nS = h1(utf8(['x', 'yy', ''], Uint8Array.of(0, 0, 1)));
    const nF = h1(col({ kind: 'float', bits: 64 }, Float64Array.of(0, 2, 0), Uint8Array.of(0, 0, 1)));
    expect(nI[0]).toBe(nI[1]);
    expect(nI[0]).toBe(nS[0]);
    expect(nI[0]).toBe(nF[1]);
    expect(new Set([nI[0], nI[2], nS[2], nF[2]]).size).toBe(4);
    const bool = h1(col({ kind: 'bool' }, Uint8Array.of(0, 1)));
    expect(bool[0]).not.toBe(bool[1]);
  });

  it('hashes strings by UTF-8 bytes and combines columns in order', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'binary', maxLength: 12 }), { minLength: 1, maxLength: 30 }), (strs) => {
        const a = h1(utf8(strs));
        const byValue = new Map<string, number>();
        strs.forEach((s, i) => {
          const prev = byValue.get(s);
          if (prev !== undefined) expect(a[i]).toBe(prev);
          byValue.set(s, a[i]!);
        });
        if (byValue.size > 1) expect(new Set(a).size).toBeGreaterThan(1);
      }),
      { numRuns: 50 },
    );
    const x = col(I(32, true), Int32Array.of(1, 2));
    const y = col(I(32, true), Int32Array.of(2, 1));
    const xy = Array.from(hashColumns([x, y], 2, 1));
    expect(xy[0]).not.toBe(xy[1]);
    expect(Array.from(hashColumns([utf8(['ab', 'a']), utf8(['c', 'bc'])], 2, 1))).toSatisfy((h: number[]) => h[0] !== h[1]);
  });

  it('spreads distinct integers over partitions', () => {
    const n = 100000;
    const c = col(I(64, true), BigInt64Array.from({ length: n }, (_, i) => BigInt(i) * 1000n));
    const h = hashColumns([c], n, 42);
    expect(new Set(h).size).toBeGreaterThan(n * 0.99);
    const p = partitionOf(h, 64);
    const counts = new Array(64).fill(0);
    for (const x of p) counts[x]++;
    for (const k of counts) {
      expect(k).toBeGreaterThan((n / 64) * 0.85);
      expect(k).toBeLessThan((n / 64) * 1.15);
    }
  });
});

describe('partitionOf / countingScatter', () => {
  it('gives ids in range and a stable grouping', () => {
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 0xffffffff }), { maxLength: 200 }), fc.integer({ min: 1, max: 300 }), (hs, parts) => {
        const h = Uint32Array.from(hs);
        const p = partitionOf(h, parts);
        for (let i = 0; i < h.length; i++) {
          expect(p[i]).toBeLessThan(parts);
          expect(p[i]).toBe(Math.floor((h[i]! * parts) / 2 ** 32));
        }
        const { offsets, order } = countingScatter(p, parts);
        expect(offsets.length).toBe(parts + 1);
        expect(offsets[parts]).toBe(h.length);
        const want: number[] = [];
        for (let q = 0; q < parts; q++) for (let i = 0; i < h.length; i++) if (p[i] === q) want.push(i);
        expect(Array.from(order)).toEqual(want);
        for (let q = 0; q < parts; q++) for (let k = offsets[q]!; k < offsets[q + 1]!; k++) expect(p[order[k]!]).toBe(q);
        // countingPositions: the same grouping told as each row's place
        const positions = new Uint32Array(h.length).fill(0xeeeeeeee);
        expect(Array.from(countingPositions(p, parts, positions))).toEqual(Array.from(offsets));
        for (let k = 0; k < h.length; k++) expect(positions[order[k]!]).toBe(k);
      }),
      { numRuns: 100 },
    );
    expect(() => partitionOf(new Uint32Array(1), 0)).toThrow(RangeError);
  });
});
