/**
 * gatherInlined (src/columns/gather) against a row-by-row reference: the values of a utf8 or
 * binary column picked through its inline records (src/columns/inline-words inlineRecords) are
 * the picked rows' own values, NULL where the pick is -1 or the row is NULL, for values of every
 * length class (empty, within the record's 12 bytes, past them, past the 255 of a length byte),
 * whether the output lies in a fixed-length buffer, plain or shared (written as words through a
 * DataView) or in a growable one (copied from the column's bytes), and for picks that end
 * within 12 bytes of the output's end.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import * as A from 'apache-arrow';
import { gatherInlined, offsetsOf } from '../../src/columns/gather.js';
import { inlineRecords, INLINE_RECORD_WORDS } from '../../src/columns/inline-words.js';
import { sharedAlloc, TransferArena } from '../../src/columns/arena.js';
import type { Allocator } from '../../src/columns/gather.js';
import { toSharedData } from '../../src/columns/shared.js';

const value = fc.oneof(
  fc.constant(null),
  fc.string({ maxLength: 3 }),
  fc.string({ minLength: 5, maxLength: 12 }),
  fc.string({ minLength: 13, maxLength: 40 }),
  fc.string({ minLength: 250, maxLength: 300 }),
);

function column(values: Array<string | null>, binary: boolean): A.Data {
  const enc = new TextEncoder();
  const vector = binary
    ? A.vectorFromArray(values.map((v) => (v === null ? null : enc.encode(v))), new A.Binary())
    : A.vectorFromArray(values, new A.Utf8());
  return toSharedData(vector.data[0]!, sharedAlloc);
}

function readAll(d: A.Data): Array<string | null> {
  const dec = new TextDecoder();
  const v = A.makeVector(d);
  return Array.from({ length: d.length }, (_, i) => {
    const x = v.get(i) as string | Uint8Array | null;
    return x === null ? null : typeof x === 'string' ? x : dec.decode(x);
  });
}

/** Outputs in fixed-length shared memory, and in growable shared memory (as large mapped buffers are). */
const fixedShared: Allocator = (ctor, length) => new ctor(new SharedArrayBuffer(Math.max(8, length * ctor.BYTES_PER_ELEMENT)), 0, length);
const growableShared: Allocator = (ctor, length) => {
  const bytes = Math.max(8, length * ctor.BYTES_PER_ELEMENT);
  return new ctor(new SharedArrayBuffer(bytes, { maxByteLength: bytes }), 0, length);
};

describe('gatherInlined', () => {
  it('picks the same values as the rows themselves, every length class, plain, shared or growable output', () => {
    fc.assert(
      fc.property(
        fc.array(value, { minLength: 1, maxLength: 60 }),
        fc.array(fc.integer({ min: -1, max: 1_000 }), { maxLength: 80 }),
        fc.boolean(),
        fc.constantFrom('plain', 'shared', 'growable'),
        (values, picks, binary, memory) => {
          const data = column(values, binary);
          const rows = data.length;
          const records = new Int32Array(INLINE_RECORD_WORDS * rows);
          const lengths = new Uint8Array(rows);
          inlineRecords(data.values as Uint8Array, offsetsOf(data), rows, records, lengths);
          const idx = Int32Array.from(picks, (p) => (p < 0 ? -1 : p % rows));
          const negatives = idx.filter((r) => r < 0).length;
          const alloc = memory === 'plain' ? new TransferArena().alloc : memory === 'shared' ? fixedShared : growableShared;
          const out = gatherInlined(data, records, lengths, idx, idx.length, alloc, negatives);
          expect(out.length).toBe(idx.length);
          expect(readAll(out)).toEqual(Array.from(idx, (r) => (r < 0 ? null : values[r]!)));
        },
      ),
      { numRuns: 300 },
    );
  });
});
