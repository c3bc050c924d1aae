// inlineWord: a string's little-endian word, zero past its end, read whole or byte by byte near
// the buffer's end; checked against a naive byte loop written from its contract.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { inlinePair, inlineWord } from '../../src/columns/inline-words.js';

function naiveWord(bytes: Uint8Array, at: number, end: number): number {
  let w = 0;
  for (let b = 0; b < 4; b++) {
    const q = at + b;
    const byte = q < end && q < bytes.length ? bytes[q]! : 0;
    w += byte * 2 ** (8 * b);
  }
  return w | 0;
}

describe('inlineWord', () => {
  it('equals the naive little-endian word for every start and end, up to the buffer end', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 24 }), fc.nat(30), fc.nat(30), (bytes, at, len) => {
        const end = Math.min(bytes.length, at + len);
        expect(inlineWord(bytes, at, end) | 0).toBe(naiveWord(bytes, at, end));
      }),
      { numRuns: 2000 },
    );
  });

  it('masks the bytes past the value even when the buffer goes on', () => {
    const bytes = Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(inlineWord(bytes, 0, 3)).toBe(0x030201);
    expect(inlineWord(bytes, 4, 9) | 0).toBe(0x08070605);
    expect(inlineWord(bytes, 8, 9)).toBe(9);
    expect(inlineWord(bytes, 3, 3)).toBe(0);
  });
});

describe('inlinePair', () => {
  it('gives the naive words at at and at + 4, for every start and length, near the buffer end too', () => {
    const out = new Int32Array(2);
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 24 }), fc.nat(30), fc.nat(30), (bytes, at, len) => {
        const end = Math.min(bytes.length, at + len);
        inlinePair(bytes, at, end, out);
        expect([out[0], out[1]]).toEqual([naiveWord(bytes, at, end), naiveWord(bytes, at + 4, end)]);
      }),
      { numRuns: 3000 },
    );
  });
});
