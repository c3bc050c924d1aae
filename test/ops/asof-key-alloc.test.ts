/**
 * normalizeAsofKey and permuteAsofKey take their arrays from a task's scratch: with an allocator
 * whose 'overwritten' memory holds garbage (as reused scratch does), every key form gives what
 * it gives in new memory, and rows that are NULL read as 0 where the form promises zeros.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { asofKeyBase, normalizeAsofKey, permuteAsofKey, type AsofKeyPlan, type NormalizedKey } from '../../src/ops/asof-keys.js';
import type { TypeDesc } from '../../src/types/column.js';
import type { Allocator } from '../../src/types/keys.js';
import { keyColumn } from './asof-harness.js';

/** New memory, filled with 0xa5 bytes unless zeroes are asked for; counts its calls. */
function dirtyAlloc(): { alloc: Allocator; calls: () => number } {
  let calls = 0;
  const alloc: Allocator = (ctor, length, fill = 'zeroed') => {
    calls++;
    const out = new ctor(length);
    if (fill === 'overwritten') new Uint8Array(out.buffer, out.byteOffset, out.byteLength).fill(0xa5);
    return out;
  };
  return { alloc, calls: () => calls };
}

const plain = (k: NormalizedKey) => JSON.stringify(k, (_, v) => (ArrayBuffer.isView(v) ? Array.from(v as unknown as ArrayLike<number>) : v));

const I64: TypeDesc = { kind: 'int', bits: 64, signed: true };
const F64: TypeDesc = { kind: 'float', bits: 64 };
const TS_NS: TypeDesc = { kind: 'timestamp', unit: 'ns', timezone: null };
const INT: AsofKeyPlan = { cls: 'integer', unit: null, dateZone: null };
const FLOAT: AsofKeyPlan = { cls: 'float', unit: null, dateZone: null };
const NS: AsofKeyPlan = { cls: 'temporal', unit: 'ns', dateZone: null };

describe('ASOF keys from an allocator', () => {
  it('exact, rebased and float keys and their permutations equal the ones in new memory', () => {
    fc.assert(
      fc.property(
        fc.array(fc.option(fc.bigInt({ min: -(2n ** 40n), max: 2n ** 40n })), { minLength: 1, maxLength: 30 }),
        fc.array(fc.option(fc.double({ noNaN: false })), { minLength: 1, maxLength: 30 }),
        fc.bigInt({ min: 1_600_000_000_000_000_000n, max: 1_700_000_000_000_000_000n }),
        (ints, doubles, t0) => {
          const shifted = ints.map((v) => (v === null ? null : t0 + v));
          const cases: Array<[NormalizedKey, (alloc: Allocator) => NormalizedKey]> = [];
          const intCol = keyColumn(I64, ints);
          cases.push([normalizeAsofKey(intCol, INT), (a) => normalizeAsofKey(intCol, INT, undefined, a)]);
          const tsCol = keyColumn(TS_NS, shifted);
          const base = asofKeyBase([tsCol], NS);
          cases.push([normalizeAsofKey(tsCol, NS, base), (a) => normalizeAsofKey(tsCol, NS, base, a)]);
          const dblCol = keyColumn(F64, doubles);
          cases.push([normalizeAsofKey(dblCol, FLOAT), (a) => normalizeAsofKey(dblCol, FLOAT, undefined, a)]);
          for (const [fresh, make] of cases) {
            const { alloc, calls } = dirtyAlloc();
            const got = make(alloc);
            expect(plain(got)).toBe(plain(fresh));
            expect(calls()).toBeGreaterThan(0);
            const order = Array.from({ length: (fresh as { values: Float64Array }).values.length }, (_, i) => i).reverse();
            expect(plain(permuteAsofKey(got, order, alloc))).toBe(plain(permuteAsofKey(fresh, order)));
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
