import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import * as A from 'apache-arrow';
import { concatData, gatherData, gatherRanges } from '../../src/columns/gather.js';
import type { Allocator } from '../../src/columns/gather.js';
import { describeData, descSlicer, flatViewOf, rebuildData, rebuildWithType, toSharedData } from '../../src/columns/shared.js';
import { allCases, columnWithSlice, structType } from '../support/explode-arbitraries.js';
import { dirtyWhenOverwritten } from '../support/dirty-allocator.js';
import { checkLayout, makeColumn, normalize, readData } from '../support/explode-arrow.js';

const RUNS = 60;

describe('gatherData: every type, sliced inputs, -1 gives NULL', () => {
  for (const c of allCases) {
    it(c.label, () => {
      fc.assert(
        fc.property(
          columnWithSlice(c).chain((col) =>
            fc.record({ col: fc.constant(col), idx: fc.array(fc.integer({ min: -1, max: col.len - 1 }), { maxLength: 40 }) }),
          ),
          ({ col, idx }) => {
            const data = makeColumn(col.values, c.type).slice(col.off, col.len);
            const expected = idx.map((i) => (i < 0 ? null : normalize(col.values[col.off + i], c.type)));
            const out = gatherData(data, Int32Array.from(idx));
            expect(out.length).toBe(idx.length);
            expect(checkLayout(out)).toEqual([]);
            expect(readData(out)).toEqual(expected);
          },
        ),
        { numRuns: RUNS },
      );
    });
  }
});

describe('concatData: sliced chunks of every type', () => {
  for (const c of allCases) {
    it(c.label, () => {
      fc.assert(
        fc.property(fc.array(columnWithSlice(c, 12), { minLength: 1, maxLength: 4 }), (cols) => {
          const chunks = cols.map((col) => makeColumn(col.values, c.type).slice(col.off, col.len));
          const expected = cols.flatMap((col) => col.values.slice(col.off, col.off + col.len).map((v) => normalize(v, c.type)));
          const out = concatData(chunks);
          expect(out.length).toBe(expected.length);
          expect(checkLayout(out)).toEqual([]);
          expect(readData(out)).toEqual(expected);
        }),
        { numRuns: RUNS },
      );
    });
  }
});

describe('toSharedData of sliced chunks of every type, then concatData (a partition task\'s slabs)', () => {
  // A list's NULL or empty rows slice its child to no rows at a start past 0: the copy's one
  // offset must be 0 (it kept the start, and a list of lists concatenated out of bounds).
  for (const c of allCases) {
    it(c.label, () => {
      fc.assert(
        fc.property(fc.array(columnWithSlice(c, 12), { minLength: 1, maxLength: 4 }), (cols) => {
          const chunks = cols.map((col) => toSharedData(makeColumn(col.values, c.type).slice(col.off, col.len)));
          for (const chunk of chunks) expect(checkLayout(chunk)).toEqual([]);
          const expected = cols.flatMap((col) => col.values.slice(col.off, col.off + col.len).map((v) => normalize(v, c.type)));
          const out = concatData(chunks);
          expect(checkLayout(out)).toEqual([]);
          expect(readData(out)).toEqual(expected);
        }),
        { numRuns: RUNS },
      );
    });
  }
});

describe('gatherData and concatData into reused memory (overwritten buffers handed out dirty)', () => {
  for (const c of allCases) {
    it(c.label, () => {
      fc.assert(
        fc.property(
          fc.array(columnWithSlice(c, 12), { minLength: 1, maxLength: 3 }),
          fc.array(fc.integer({ min: -1, max: 40 }), { maxLength: 40 }),
          (cols, rawIdx) => {
            const chunks = cols.map((col) => makeColumn(col.values, c.type).slice(col.off, col.len));
            const values = cols.flatMap((col) => col.values.slice(col.off, col.off + col.len).map((v) => normalize(v, c.type)));
            const joined = concatData(chunks, dirtyWhenOverwritten);
            expect(checkLayout(joined)).toEqual([]);
            expect(readData(joined)).toEqual(values);
            const idx = rawIdx.map((i) => (values.length === 0 ? -1 : i < 0 ? -1 : i % values.length));
            const out = gatherData(joined, Int32Array.from(idx), idx.length, dirtyWhenOverwritten);
            expect(checkLayout(out)).toEqual([]);
            expect(readData(out)).toEqual(idx.map((i) => (i < 0 ? null : values[i])));
          },
        ),
        { numRuns: 40 },
      );
    });
  }
});

describe('concatData over flat views of shared descriptors (the exchange merge) = over Arrow Data', () => {
  for (const c of allCases) {
    it(c.label, () => {
      fc.assert(
        fc.property(fc.array(columnWithSlice(c, 12), { minLength: 1, maxLength: 4 }), (cols) => {
          // Shared, then sliced: the descriptors keep bit offsets into validity and bool values.
          const shared = cols.map((col) => toSharedData(makeColumn(col.values, c.type)).slice(col.off, col.len));
          const type = shared[0]!.type;
          const views = shared.map((d) => describeData(d)).map((d) => flatViewOf(d, type) ?? rebuildWithType(d, type));
          const expected = cols.flatMap((col) => col.values.slice(col.off, col.off + col.len).map((v) => normalize(v, c.type)));
          const out = concatData(views);
          expect(checkLayout(out)).toEqual([]);
          expect(readData(out)).toEqual(expected);
        }),
        { numRuns: RUNS },
      );
    });
  }
});

describe('gather specifics', () => {
  it('fixed-size binary at an odd byte offset gathers whole rows into reused (dirty) memory', () => {
    const raw = new Uint8Array(1 + 4 * 3);
    raw.set([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], 1);
    const data = A.makeData({ type: new A.FixedSizeBinary(4), length: 3, data: raw.subarray(1) });
    // An allocator handing out memory full of old bytes, as a reused pool buffer would.
    const dirty: Allocator = ((ctor: new (b: ArrayBuffer, o: number, l: number) => unknown, length: number) => {
      const bytesPer = (ctor as unknown as { BYTES_PER_ELEMENT: number }).BYTES_PER_ELEMENT;
      const b = new ArrayBuffer(Math.ceil((length * bytesPer) / 8) * 8);
      new Uint8Array(b).fill(0xee);
      return new ctor(b, 0, length);
    }) as Allocator;
    const out = gatherData(data, Int32Array.from([2, -1, 0]), 3, dirty);
    expect(Array.from(out.values as Uint8Array)).toEqual([9, 10, 11, 12, 0, 0, 0, 0, 1, 2, 3, 4]);
    expect(out.nullCount).toBe(1);
  });

  it('a NULL struct stays NULL, distinct from a struct whose fields are all NULL', () => {
    const data = makeColumn([{ a: null, s: null }, null, { a: 1, s: 'x' }], structType);
    const out = gatherData(data, Int32Array.from([1, 0, -1, 2]));
    expect(readData(out)).toEqual([null, { a: null, s: null }, null, { a: 1, s: 'x' }]);
    expect(out.nullCount).toBe(2);
    expect(out.getValid(1)).toBe(true);
  });

  it('list offsets not starting at 0 are rebased, and the child holds only the used elements', () => {
    const t = { kind: 'list', child: { name: 'item', type: { kind: 'utf8' }, nullable: true } } as const;
    const data = makeColumn([['a', 'b'], ['c'], null, ['d', 'e', 'f']], t).slice(1, 3);
    expect((data.valueOffsets as Int32Array)[0]).toBe(2);
    const out = gatherData(data, Int32Array.from([2, 0, 1]));
    expect(Array.from(out.valueOffsets as Int32Array)).toEqual([0, 3, 4, 4]);
    expect(out.children[0].length).toBe(4);
    expect(readData(out)).toEqual([['d', 'e', 'f'], ['c'], null]);
  });

  it('bool and validity bitmaps read at a bit offset', () => {
    const data = makeColumn([true, null, false, true, true, null, false, true, false, true], { kind: 'bool' }).slice(3, 7);
    expect(data.offset).toBe(3);
    const out = gatherData(data, Int32Array.from([0, 1, 2, 3, 4, 5, 6, -1]));
    expect(readData(out)).toEqual([true, true, null, false, true, false, true, null]);
  });

  it('no NULLs: no bitmap and nullCount 0', () => {
    const data = makeColumn([1, 2, 3], { kind: 'int', bits: 32, signed: true });
    const out = gatherData(data, Int32Array.from([2, 2, 0]));
    expect(out.nullCount).toBe(0);
    expect((out.nullBitmap as Uint8Array | undefined)?.length ?? 0).toBe(0);
  });

  it('int64 extremes and NaN bit patterns are copied exactly', () => {
    const big = makeColumn([-(2n ** 63n), 2n ** 63n - 1n], { kind: 'int', bits: 64, signed: true });
    expect(readData(gatherData(big, Int32Array.from([1, 0])))).toEqual([2n ** 63n - 1n, -(2n ** 63n)]);
    const f = new Float64Array(1);
    new Uint32Array(f.buffer).set([0x00000001, 0x7ff80000]); // a NaN with a payload
    const d = A.makeData({ type: new A.Float64(), length: 1, data: f });
    const out = gatherData(d, Int32Array.from([0]));
    expect(Array.from(new Uint32Array((out.values as Float64Array).buffer))).toEqual([1, 0x7ff80000]);
  });

  it('dictionary columns keep their dictionary and gather their indices', () => {
    const v = A.vectorFromArray(['x', 'y', null, 'x']);
    const data = v.data[0].slice(1, 3);
    expect(data.type.typeId).toBe(A.Type.Dictionary);
    const out = gatherData(data, Int32Array.from([1, 0, -1]));
    expect(readData(out)).toEqual([null, 'y', null]);
    expect(out.dictionary).toBe(data.dictionary);
  });

  it('gatherRanges concatenates element ranges', () => {
    const data = makeColumn([10, null, 30, 40, 50], { kind: 'int', bits: 32, signed: true });
    const out = gatherRanges(data, Int32Array.from([3, 0, 2]), Int32Array.from([5, 2, 2]));
    expect(readData(out)).toEqual([40, 50, 10, null]);
  });

  it('uses the given allocator for every buffer', () => {
    let calls = 0;
    const alloc: Allocator = (ctor, n) => {
      calls++;
      return new ctor(new SharedArrayBuffer(n * ctor.BYTES_PER_ELEMENT));
    };
    const t = { kind: 'list', child: { name: 'item', type: { kind: 'utf8' }, nullable: true } } as const;
    gatherData(makeColumn([['a'], null], t), Int32Array.from([0, 1]), 2, alloc);
    // list validity + list offsets + utf8 offsets + utf8 bytes
    expect(calls).toBe(4);
  });
});

describe('descSlicer: a column descriptor cut into row ranges = describeData of the Data slice', () => {
  for (const c of allCases) {
    it(c.label, () => {
      fc.assert(
        fc.property(
          columnWithSlice(c, 16).chain((col) =>
            fc.record({ col: fc.constant(col), cuts: fc.array(fc.tuple(fc.nat(col.len), fc.nat(col.len)), { maxLength: 5 }) }),
          ),
          ({ col, cuts }) => {
            const data = toSharedData(makeColumn(col.values, c.type)).slice(col.off, col.len);
            const cut = descSlicer(describeData(data));
            for (const [a, b] of cuts) {
              const start = Math.min(a, b);
              const length = Math.max(a, b) - start;
              const got = cut(start, length);
              const want = describeData(data.slice(start, length));
              expect(got.nullCount).toBe(want.nullCount);
              expect(got.offset).toBe(want.offset);
              expect(readData(rebuildData(got))).toEqual(readData(rebuildData(want)));
            }
          },
        ),
        { numRuns: RUNS },
      );
    });
  }
});
