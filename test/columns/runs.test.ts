import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { sharedAlloc } from '../../src/columns/arena.js';
import { toSharedData } from '../../src/columns/shared.js';
import { copyRanges, repeatRows, type RowRuns } from '../../src/columns/runs.js';
import { allCases, columnWithSlice, leafCases, type TypeCase } from '../support/explode-arbitraries.js';
import { checkLayout, makeColumn, normalize, readData } from '../support/explode-arrow.js';

const RUNS = 50;

function runsOf(counts: number[], lens: number[]): RowRuns {
  const n = counts.length;
  const outStart = new Int32Array(n + 1);
  for (let r = 0; r < n; r++) outStart[r + 1] = outStart[r] + counts[r];
  return { n, length: outStart[n], outStart, len: Int32Array.from(lens), elements: lens.reduce((a, b) => a + b, 0) };
}

/** Per output row of a range plan: a row of the column, or NULL. */
type RangeRow = { kind: 'range'; start: number; len: number } | { kind: 'null' } | { kind: 'none' };

/**
 * Rows of a range plan over a column of `rows` rows: ranges that mostly follow each other (so
 * runs form) and sometimes jump, NULL rows and rows with no output between them.
 */
function rangeRows(rows: number) {
  return fc.array(
    fc.record({ kind: fc.constantFrom('next', 'next', 'next', 'jump', 'null', 'none'), start: fc.nat(), len: fc.nat({ max: 40 }) }),
    { maxLength: 25 },
  ).map((specs) => {
    const out: RangeRow[] = [];
    let cursor = 0;
    for (const s of specs) {
      if (s.kind === 'null' || s.kind === 'none') {
        out.push({ kind: s.kind });
        continue;
      }
      const start = s.kind === 'jump' || cursor >= rows ? (rows === 0 ? 0 : s.start % rows) : cursor;
      const len = Math.min(s.len, rows - start);
      if (len === 0) {
        out.push({ kind: 'none' });
        continue;
      }
      out.push({ kind: 'range', start, len });
      cursor = start + len;
    }
    return out;
  });
}

function checkRepeat(c: TypeCase, maxRows: number) {
  fc.assert(
    fc.property(
      columnWithSlice(c, maxRows).chain((col) =>
        fc.record({ col: fc.constant(col), counts: fc.array(fc.oneof(fc.nat({ max: 3 }), fc.nat({ max: 150 })), { minLength: col.len, maxLength: col.len }) }),
      ),
      ({ col, counts }) => {
        const data = makeColumn(col.values, c.type).slice(col.off, col.len);
        const expected = counts.flatMap((k, r) => Array.from({ length: k }, () => normalize(col.values[col.off + r], c.type)));
        const out = repeatRows(data, runsOf(counts, counts), sharedAlloc);
        expect(out.length).toBe(expected.length);
        expect(checkLayout(out)).toEqual([]);
        expect(readData(out)).toEqual(expected);
      },
    ),
    { numRuns: RUNS },
  );
}

function checkRanges(c: TypeCase, maxRows: number) {
  fc.assert(
    fc.property(
      columnWithSlice(c, maxRows).chain((col) => fc.record({ col: fc.constant(col), rows: rangeRows(col.len), large: fc.boolean() })),
      ({ col, rows, large }) => {
        // shared input: string bytes read end to end are shared with the output, not copied
        const data = toSharedData(makeColumn(col.values, c.type)).slice(col.off, col.len);
        const counts = rows.map((r) => (r.kind === 'range' ? r.len : r.kind === 'null' ? 1 : 0));
        const lens = rows.map((r) => (r.kind === 'range' ? r.len : 0));
        // starts of rows without elements are arbitrary: the builders must not read them
        const startList = rows.map((r, i) => (r.kind === 'range' ? r.start : (i * 7) % 3));
        const starts = large ? Float64Array.from([...startList, 0]) : Int32Array.from([...startList, 0]);
        const expected = rows.flatMap((r) =>
          r.kind === 'range' ? Array.from({ length: r.len }, (_, e) => normalize(col.values[col.off + r.start + e], c.type)) : r.kind === 'null' ? [null] : [],
        );
        const out = copyRanges(data, runsOf(counts, lens), starts, sharedAlloc);
        expect(out.length).toBe(expected.length);
        expect(checkLayout(out)).toEqual([]);
        expect(readData(out)).toEqual(expected);
      },
    ),
    { numRuns: RUNS },
  );
}

describe('repeatRows: every type, sliced inputs', () => {
  for (const c of allCases) it(c.label, () => checkRepeat(c, 30));
});

describe('copyRanges: every type, sliced inputs, runs, NULL rows and rows without output', () => {
  for (const c of allCases) it(c.label, () => checkRanges(c, 30));
});

describe('long runs (block copies, whole bitmap bytes at any bit alignment)', () => {
  const long = leafCases.filter((c) => ['int32', 'int64', 'int16', 'bool', 'utf8', 'largeBinary'].includes(c.label));
  for (const c of long) {
    it(`repeat ${c.label}`, () => checkRepeat(c, 300));
    it(`ranges ${c.label}`, () => checkRanges(c, 400));
  }
});

describe('edge cases', () => {
  const int32 = leafCases.find((c) => c.label === 'int32')!;
  it('no output rows, and only NULL rows', () => {
    const data = makeColumn([1, 2, 3], int32.type);
    expect(copyRanges(data, runsOf([0, 0, 0], [0, 0, 0]), new Int32Array(4), sharedAlloc).length).toBe(0);
    const nulls = copyRanges(data, runsOf([1, 0, 1], [0, 0, 0]), new Int32Array(4), sharedAlloc);
    expect(readData(nulls)).toEqual([null, null]);
    expect(nulls.nullCount).toBe(2);
    expect(repeatRows(data, runsOf([0, 0, 0], [0, 0, 0]), sharedAlloc).length).toBe(0);
  });

  it('repeated strings past the 64 KiB staging buffer: short, long, longer than the stage, the last bytes', () => {
    const utf8 = leafCases.find((c) => c.label === 'utf8')!;
    const big = 'x'.repeat(70_000) + 'y';
    const mid = 'm'.repeat(40_000) + 'n';
    // the short value at the end of the data buffer takes the byte path (no 16 bytes to read past it)
    const values = ['abcde', 'seventeen bytes!!', big, '', mid, null, 'é', 'tail'];
    const counts = [20_000, 3, 2, 4, 3, 2, 9_000, 7];
    const data = makeColumn(values, utf8.type);
    const out = repeatRows(data, runsOf(counts, counts), sharedAlloc);
    const expected = counts.flatMap((k, r) => Array.from({ length: k }, () => values[r]));
    expect(checkLayout(out)).toEqual([]);
    expect(readData(out)).toEqual(expected);
  });

  it('a run across rows whose ranges touch, then a jump back', () => {
    const data = makeColumn([10, 11, 12, 13, 14, 15], int32.type).slice(1, 5);
    const out = copyRanges(data, runsOf([2, 2, 1, 2], [2, 2, 0, 2]), Int32Array.from([0, 2, 9, 0, 0]), sharedAlloc);
    expect(readData(out)).toEqual([11, 12, 13, 14, null, 11, 12]);
  });
});

describe('copyRanges shares string bytes read end to end', () => {
  const utf8 = { kind: 'utf8' } as const;
  it('contiguous ranges (NULL rows between them): the output bytes are a view of the input', () => {
    const data = toSharedData(makeColumn(['ab', 'c', 'def', 'g'], utf8));
    const out = copyRanges(data, runsOf([2, 1, 2], [2, 0, 2]), Int32Array.from([0, 9, 2, 0]), sharedAlloc);
    expect(readData(out)).toEqual(['ab', 'c', null, 'def', 'g']);
    expect((out.values as Uint8Array).buffer).toBe((data.values as Uint8Array).buffer);
    expect(Array.from(out.valueOffsets as Int32Array)).toEqual([0, 2, 3, 3, 6, 7]);
  });
  it('a gap or a repeat in the ranges: the bytes are copied', () => {
    const data = toSharedData(makeColumn(['ab', 'c', 'def', 'g'], utf8));
    const gap = copyRanges(data, runsOf([1, 2], [1, 2]), Int32Array.from([0, 2, 0]), sharedAlloc);
    expect(readData(gap)).toEqual(['ab', 'def', 'g']);
    expect((gap.values as Uint8Array).buffer).not.toBe((data.values as Uint8Array).buffer);
    const repeat = copyRanges(data, runsOf([1, 1], [1, 1]), Int32Array.from([1, 1, 0]), sharedAlloc);
    expect(readData(repeat)).toEqual(['c', 'c']);
    expect((repeat.values as Uint8Array).buffer).not.toBe((data.values as Uint8Array).buffer);
  });
});
