/**
 * The interleave task (second pass of staged direct outputs): dst[r] = src[pos[r]] for its rows
 * only, at every width a direct output has (1, 2, 4, 8 bytes), every bit of 8-byte values kept
 * (NaN payloads: moved as float64 words), against a plain loop over a random permutation.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bufRefOf } from '../../src/columns/shared.js';
import { runInterleaveTask } from '../../src/worker/interleave-task.js';

const shared = (bytes: number): Uint8Array => new Uint8Array(new SharedArrayBuffer(bytes));

describe('interleave task', () => {
  it('puts each row its value from pos, within [start, end) only, at every width', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 300 }), fc.constantFrom(1, 2, 4, 8), fc.integer(), fc.nat(), fc.nat(), (rows, width, seed, a, b) => {
        // A random permutation of the rows as positions, random bytes as values.
        const pos = new Uint32Array(new SharedArrayBuffer(4 * rows));
        for (let r = 0; r < rows; r++) pos[r] = r;
        let x = seed >>> 0;
        const next = () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0);
        for (let r = rows - 1; r > 0; r--) {
          const k = next() % (r + 1);
          [pos[r], pos[k]] = [pos[k]!, pos[r]!];
        }
        const src = shared(width * rows);
        for (let i = 0; i < src.length; i++) src[i] = next() & 255;
        const dst = shared(width * rows);
        dst.fill(0xee);
        const start = a % (rows + 1);
        const end = start + (b % (rows - start + 1));
        expect(runInterleaveTask({ kind: 'interleave', pos: bufRefOf(pos), src: bufRefOf(src), dst: bufRefOf(dst), width, start, end })).toBeNull();
        for (let r = 0; r < rows; r++) {
          const want = r >= start && r < end ? [...src.subarray(pos[r]! * width, (pos[r]! + 1) * width)] : new Array(width).fill(0xee);
          expect([...dst.subarray(r * width, (r + 1) * width)]).toEqual(want);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('keeps NaN payloads of 8-byte values bit for bit', () => {
    const src = new BigInt64Array(new SharedArrayBuffer(8 * 3));
    src.set([0x7ff0000000000001n, -0x0008000000000001n, 0x7ff8dead0000beefn]);
    const pos = new Uint32Array(new SharedArrayBuffer(12));
    pos.set([2, 0, 1]);
    const dst = new BigInt64Array(new SharedArrayBuffer(8 * 3));
    runInterleaveTask({ kind: 'interleave', pos: bufRefOf(pos), src: bufRefOf(src), dst: bufRefOf(dst), width: 8, start: 0, end: 3 });
    expect([...dst]).toEqual([src[2], src[0], src[1]]);
  });
});
