// Gather, scatter, permute and the direct-output writers move 8-byte words as float64 (src/columns/gather rowWords): every bit must
// survive, including int64 values whose bits are NaN patterns (quiet, signalling, with payloads,
// negative). Run many times, so that the loops run in every tier V8 compiles them to.
import { describe, expect, it } from 'vitest';
import * as A from 'apache-arrow';
import { gatherData } from '../../src/columns/gather.js';
import { scatterData } from '../../src/columns/scatter.js';
import { dirtyWhenOverwritten } from '../support/dirty-allocator.js';
import { bufRefOf } from '../../src/columns/shared.js';
import { permuteValues, scatterValues } from '../../src/worker/permute.js';
import { takeDirect } from '../../src/worker/direct-output.js';

const NAN_PATTERNS = [
  0xffffffffffffffffn, // -1
  0x7ff0000000000001n, // signalling NaN, smallest payload
  0x7ff4000000000000n, // signalling NaN
  0xfff0000000000001n, // negative signalling NaN
  0x7ff8000000000000n, // the canonical quiet NaN
  0xfff8000000000000n,
  0x7fffffffffffffffn,
  0x7ff0deadbeef0001n,
  0xfff7ffffffffffffn,
  0x7ff0000000000000n, // +Infinity
  0x8000000000000000n, // -0.0
];

function column(n: number): BigInt64Array {
  return BigInt64Array.from({ length: n }, (_, i) => BigInt.asIntN(64, NAN_PATTERNS[i % NAN_PATTERNS.length]! ^ BigInt(i >> 4)));
}

describe('moving 8-byte words keeps every bit', () => {
  const n = 2048;
  const values = column(n);
  const data = A.makeData({ type: new A.Int64(), length: n, data: values });
  const perm = Uint32Array.from({ length: n }, (_, i) => (i * 1021) % n);

  it('gather (with a -1 index: a zero word)', () => {
    const idx = Int32Array.from(perm, (p, j) => (j === 7 ? -1 : p));
    for (let rep = 0; rep < 300; rep++) {
      const out = gatherData(data, idx, n, dirtyWhenOverwritten).values as BigInt64Array;
      for (let j = 0; j < n; j++) {
        const want = idx[j]! < 0 ? 0n : values[idx[j]!]!;
        if (out[j] !== want) expect.fail(`rep ${rep} row ${j}: ${out[j]!.toString(16)} for ${want.toString(16)}`);
      }
    }
  });

  it('scatter', () => {
    for (let rep = 0; rep < 300; rep++) {
      const out = scatterData(data, perm, dirtyWhenOverwritten)!.values as BigInt64Array;
      for (let i = 0; i < n; i++) if (out[perm[i]!] !== values[i]) expect.fail(`rep ${rep} row ${i}`);
    }
  });

  it('permute, scatter into place (with and without a read order) and take into direct outputs', () => {
    const dirty = (): BigInt64Array => {
      const sab = new SharedArrayBuffer(8 * n);
      new Uint8Array(sab).fill(0xa5);
      return new BigInt64Array(sab);
    };
    for (let rep = 0; rep < 200; rep++) {
      const permuted = permuteValues(values, perm, dirtyWhenOverwritten);
      for (let i = 0; i < n; i++) if (permuted[i] !== values[perm[i]!]) expect.fail(`permute rep ${rep} row ${i}`);
      const placed = dirty();
      scatterValues(values, perm, placed);
      for (let i = 0; i < n; i++) if (placed[perm[i]!] !== values[i]) expect.fail(`scatter rep ${rep} row ${i}`);
      const from = Uint32Array.from(perm).reverse();
      const read = dirty();
      scatterValues(values, perm, read, from);
      for (let i = 0; i < n; i++) if (read[perm[i]!] !== values[from[i]!]) expect.fail(`scatter from rep ${rep} row ${i}`);
      const taken = dirty();
      // The validity bitmap as words, every row valid at first: takeDirect clears the NULLs' bits.
      const valid = new Int32Array(new SharedArrayBuffer(4 * Math.ceil(n / 32))).fill(-1);
      const pick = Int32Array.from(perm, (p, i) => (i % 97 === 0 ? -1 : p));
      takeDirect(data, pick, Uint32Array.from({ length: n }, (_, i) => i), { values: bufRefOf(taken), valid: bufRefOf(valid) });
      for (let i = 0; i < n; i++) {
        const isValid = (valid[i >>> 5]! >>> (i & 31)) & 1;
        if (pick[i]! < 0) {
          if (isValid !== 0) expect.fail(`take rep ${rep} row ${i}: not NULL`);
        } else if (isValid !== 1 || taken[i] !== values[pick[i]!]) expect.fail(`take rep ${rep} row ${i}`);
      }
    }
  });

  it('16-byte rows (decimal128) at an 8-byte offset', () => {
    const words = new BigInt64Array(2 * n + 1);
    words.set(column(2 * n), 1); // values start one word in: offset 8, not 16
    const dec = A.makeData({ type: new A.Decimal(2, 38, 128), length: n, data: new Uint32Array(words.buffer, 8, 4 * n) });
    const idx = Int32Array.from(perm);
    for (let rep = 0; rep < 100; rep++) {
      const out = new BigInt64Array((gatherData(dec, idx, n, dirtyWhenOverwritten).values as Uint32Array).slice().buffer);
      for (let j = 0; j < n; j++) {
        if (out[2 * j] !== words[1 + 2 * idx[j]!] || out[2 * j + 1] !== words[2 + 2 * idx[j]!]) expect.fail(`rep ${rep} row ${j}`);
      }
    }
  });
});
