import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SpillIndex } from '../../src/shuffle/spill-index.js';

const file = () => ({ path: '/spill/x', schemaBytes: 100 });

describe('SpillIndex', () => {
  it('gives each destination its batches in file order, contiguous ones merged while they fit', () => {
    const ix = new SpillIndex(3, file);
    // Two spills: each writes destinations 0..2; destination 1 gets two adjacent batches in the first.
    ix.add(0, 100, 150, 5);
    ix.add(1, 150, 170, 2);
    ix.add(1, 170, 200, 3);
    ix.add(2, 200, 260, 6);
    ix.add(0, 260, 300, 4);
    ix.add(1, 300, 330, 3);
    expect(ix.bytesOf(1)).toBe(80);
    expect(ix.bytesOf(2)).toBe(60);
    expect(ix.piecesOf(1)).toEqual([
      { path: '/spill/x', schemaBytes: 100, start: 150, end: 200, rows: 5 },
      { path: '/spill/x', schemaBytes: 100, start: 300, end: 330, rows: 3 },
    ]);
    expect(ix.piecesOf(1, (bytes) => bytes <= 40).map((p) => [p.start, p.end])).toEqual([
      [150, 170],
      [170, 200],
      [300, 330],
    ]);
    expect(ix.piecesOf(0).map((p) => [p.start, p.end, p.rows])).toEqual([
      [100, 150, 5],
      [260, 300, 4],
    ]);
  });

  it('answers nothing for a destination without batches, before and after the first spill', () => {
    const ix = new SpillIndex(2, file);
    expect(ix.piecesOf(0)).toEqual([]);
    expect(ix.bytesOf(0)).toBe(0);
    ix.add(1, 100, 110, 1);
    expect(ix.piecesOf(0)).toEqual([]);
  });

  it('keeps every batch across block boundaries (a list of (destination, size, rows) against a plain reference)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(6), fc.integer({ min: 1, max: 50 }), fc.nat(9)), { maxLength: 3000 }), (batches) => {
        const ix = new SpillIndex(7, file);
        const ref: Array<Array<[number, number, number]>> = Array.from({ length: 7 }, () => []);
        let at = 100;
        for (const [d, size, rows] of batches) {
          ix.add(d, at, at + size, rows);
          ref[d]!.push([at, at + size, rows]);
          at += size;
        }
        for (let d = 0; d < 7; d++) {
          // fits never: every batch a piece of its own, in order
          expect(ix.piecesOf(d, () => false).map((p) => [p.start, p.end, p.rows])).toEqual(ref[d]);
          expect(ix.bytesOf(d)).toBe(ref[d]!.reduce((t, [s, e]) => t + e - s, 0));
        }
      }),
      { numRuns: 30 },
    );
  });
});
