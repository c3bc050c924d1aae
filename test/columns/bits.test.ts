// Bit moves at any alignment, checked bit by bit against the bitmaps read one bit at a time:
// bitmapToBytes (a validity bitmap as one byte a row, into outputs at any byte offset) and
// concatData's validity and boolean bitmaps over long chunks that start at any bit (a
// partition's chunks: their whole-byte paths, shifted or not, then their last bits).
import fc from 'fast-check';
import * as A from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { bitmapToBytes } from '../../src/columns/bits.js';
import { concatData } from '../../src/columns/gather.js';

const bitAt = (bm: Uint8Array, i: number): number => (bm[i >> 3]! >> (i & 7)) & 1;

// size 'max': fast-check's default size caps an array at about 10 elements whatever maxLength says.
const bitsArb = fc.array(fc.boolean(), { minLength: 0, maxLength: 300, size: 'max' });

describe('bitmapToBytes', () => {
  it('gives bit offset + i of the bitmap as byte i, at any offset and output position', () => {
    fc.assert(
      fc.property(bitsArb, fc.nat(40), fc.nat(300), fc.nat(7), (bits, offset, lengthSeed, outAt) => {
        const bm = new Uint8Array(Math.ceil((bits.length + 48) / 8));
        bits.forEach((b, i) => b && (bm[(i + offset) >> 3]! |= 1 << ((i + offset) & 7)));
        const length = Math.min(bits.length, lengthSeed);
        const backing = new Uint8Array(length + 16).fill(7);
        const out = backing.subarray(outAt, outAt + length);
        bitmapToBytes(bm, offset, length, out);
        expect(Array.from(out)).toEqual(bits.slice(0, length).map((b) => (b ? 1 : 0)));
        expect(backing[outAt + length]).toBe(7); // nothing written past the rows
      }),
      { numRuns: 300 },
    );
  });
});

describe('concatData of long chunks starting at any bit', () => {
  const chunkArb = fc.record({ bits: fc.array(fc.boolean(), { minLength: 0, maxLength: 200, size: 'max' }), nulls: fc.array(fc.boolean(), { minLength: 200, maxLength: 200 }), off: fc.nat(19) });

  it('keeps every validity bit (nullable int32) and every boolean value', () => {
    fc.assert(
      fc.property(fc.array(chunkArb, { minLength: 1, maxLength: 5 }), fc.boolean(), (chunks, someWithout) => {
        const ints: A.Data[] = [];
        const bools: A.Data[] = [];
        const expectValid: number[] = [];
        const expectBool: number[] = [];
        chunks.forEach(({ bits, nulls, off }, k) => {
          const n = bits.length + off;
          // Chunk k's rows: `off` leading rows, then the drawn ones; the slice keeps the drawn ones.
          const allValid = someWithout && k % 2 === 1;
          const valid = Array.from({ length: n }, (_, i) => (allValid ? true : nulls[i % 200]!));
          const bm = new Uint8Array(Math.ceil(n / 8) + 1);
          const vb = new Uint8Array(Math.ceil(n / 8) + 1);
          for (let i = 0; i < n; i++) {
            if (valid[i]) bm[i >> 3]! |= 1 << (i & 7);
            if (i >= off && bits[i - off]) vb[i >> 3]! |= 1 << (i & 7);
          }
          const nullCount = allValid ? 0 : valid.filter((v) => !v).length;
          ints.push(A.makeData({ type: new A.Int32(), length: n, nullCount, nullBitmap: allValid ? null : bm, data: new Int32Array(n) }).slice(off, bits.length));
          bools.push(A.makeData({ type: new A.Bool(), length: n, nullCount: 0, data: vb }).slice(off, bits.length));
          for (let i = off; i < n; i++) expectValid.push(valid[i] ? 1 : 0);
          for (const b of bits) expectBool.push(b ? 1 : 0);
        });
        const ci = concatData(ints);
        const total = expectValid.length;
        const gotValid = ci.nullBitmap && ci.nullBitmap.length > 0 ? Array.from({ length: total }, (_, i) => bitAt(ci.nullBitmap!, ci.offset + i)) : new Array<number>(total).fill(1);
        expect(gotValid).toEqual(expectValid);
        expect(ci.nullCount).toBe(expectValid.filter((v) => v === 0).length);
        const cb = concatData(bools);
        expect(Array.from({ length: total }, (_, i) => bitAt(cb.values as Uint8Array, cb.offset + i))).toEqual(expectBool);
      }),
      { numRuns: 300 },
    );
  });
});
