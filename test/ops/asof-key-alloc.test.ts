/**
 * normalizeAsofKey and permuteAsofKey take their arrays from a task's scratch: with an allocator
 * whose 'overwritten' memory holds garbage (as reused scratch does), every key form gives what
 * it gives in new memory, and rows that are NULL read as 0 where the form promises zeros.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { asofKeyRanges, normalizeAsofKey, permuteAsofKey, type AsofKeyPlan, type NormalizedKey } from '../../src/ops/asof-keys.js';
import type { TypeDesc } from '../../src/types/column.js';
import type { Allocator } from '../../src/types/keys.js';
import { keyColumn } from './asof-harness.js';

/**
 * Views at an offset into one buffer, as a task's scratch gives them, filled with 0xa5 bytes
 * unless zeroes are asked for; counts the bytes it lends.
 */
function dirtyAlloc(): { alloc: Allocator; lent: () => number } {
  const buffer = new ArrayBuffer(1 << 20);
  let used = 8;
  const alloc: Allocator = (ctor, length, fill = 'zeroed') => {
    const bytes = Math.ceil((length * ctor.BYTES_PER_ELEMENT) / 8) * 8;
    new Uint8Array(buffer, used, bytes).fill(fill === 'zeroed' ? 0 : 0xa5);
    const out = new ctor(buffer, used, length);
    used += bytes;
    return out;
  };
  return { alloc, lent: () => used - 8 };
}

const arrays = (v: unknown): unknown => (v instanceof Float64Array || v instanceof Uint8Array || v instanceof Uint32Array ? Array.from(v) : v);
const plain = (k: NormalizedKey): string => JSON.stringify(k, (_, v: unknown) => arrays(v));

const I64: TypeDesc = { kind: 'int', bits: 64, signed: true };
const F64: TypeDesc = { kind: 'float', bits: 64 };
const TS_NS: TypeDesc = { kind: 'timestamp', unit: 'ns', timezone: null };
const D32: TypeDesc = { kind: 'date', unit: 'day' };
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
        fc.array(fc.option(fc.integer({ min: 19_000, max: 19_050 })), { minLength: 1, maxLength: 30 }),
        (ints, doubles, t0, days) => {
          const shifted = ints.map((v) => (v === null ? null : t0 + v));
          const cases: Array<[NormalizedKey, (alloc: Allocator) => NormalizedKey]> = [];
          const intCol = keyColumn(I64, ints);
          cases.push([normalizeAsofKey(intCol, INT), (a) => normalizeAsofKey(intCol, INT, undefined, a)]);
          const tsCol = keyColumn(TS_NS, shifted);
          const base = asofKeyRanges([tsCol], NS).base;
          cases.push([normalizeAsofKey(tsCol, NS, base), (a) => normalizeAsofKey(tsCol, NS, base, a)]);
          const dblCol = keyColumn(F64, doubles);
          cases.push([normalizeAsofKey(dblCol, FLOAT), (a) => normalizeAsofKey(dblCol, FLOAT, undefined, a)]);
          // DATEs against a ns plan: day starts past 2^52 ns within a 2^52 span, rebased from 32-bit values
          const dateCol = keyColumn(D32, days);
          const dateBase = asofKeyRanges([dateCol], NS).base;
          cases.push([normalizeAsofKey(dateCol, NS, dateBase), (a) => normalizeAsofKey(dateCol, NS, dateBase, a)]);
          for (const [fresh, make] of cases) {
            const { alloc, lent } = dirtyAlloc();
            const got = make(alloc);
            expect(plain(got)).toBe(plain(fresh));
            expect(fresh.kind).toBe('f64');
            const rows = fresh.kind === 'f64' ? fresh.values.length : 0;
            expect(lent()).toBeGreaterThanOrEqual(8 * rows); // the values came from the allocator
            const order = Array.from({ length: rows }, (_, i) => i).reverse();
            expect(plain(permuteAsofKey(got, order, alloc))).toBe(plain(permuteAsofKey(fresh, order)));
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
