/**
 * One-pass aggregates by group id (src/ops/group-accumulate) against per-group folds written
 * from the contract: count of rows / non-NULL values, integer sums wrapping to 64 bits as a
 * row-by-row BigInt fold (also past the carry interval, with values near ±2^63), min/max first
 * among equals (int32, int64 and uint64: two words, the high one with the array's sign), first/last optionally skipping NULLs.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countById, firstLastById, intSumById, minMaxById } from '../../src/ops/group-accumulate.js';
import type { KeyColumn, TypedArray } from '../../src/types/keys.js';
import type { TypeDesc } from '../../src/types/column.js';

const heap = <T extends TypedArray>(ctor: { new (n: number): T }, n: number): T => new ctor(n);

function column(type: TypeDesc, values: TypedArray, valid: Uint8Array | null): KeyColumn {
  return { type, length: values.length, values, offsets: null, valid };
}

/** Naive per-group folds over rows in order. */
function reference(ids: number[], groups: number, vals: bigint[], valid: boolean[], wrap = (x: bigint) => BigInt.asIntN(64, x)) {
  const sums = new Array<bigint | null>(groups).fill(null);
  const counts = new Array<number>(groups).fill(0);
  const rows = new Array<number>(groups).fill(0);
  const min = new Array<number>(groups).fill(-1);
  const max = new Array<number>(groups).fill(-1);
  const first = new Array<number>(groups).fill(-1);
  const last = new Array<number>(groups).fill(-1);
  const firstNN = new Array<number>(groups).fill(-1);
  const lastNN = new Array<number>(groups).fill(-1);
  ids.forEach((g, i) => {
    rows[g]!++;
    if (first[g] === -1) first[g] = i;
    last[g] = i;
    if (!valid[i]) return;
    counts[g]!++;
    sums[g] = wrap((sums[g] ?? 0n) + vals[i]!);
    if (min[g] === -1 || vals[i]! < vals[min[g]!]!) min[g] = i;
    if (max[g] === -1 || vals[i]! > vals[max[g]!]!) max[g] = i;
    if (firstNN[g] === -1) firstNN[g] = i;
    lastNN[g] = i;
  });
  return { sums, counts, rows, min, max, first, last, firstNN, lastNN };
}

const INT64: TypeDesc = { kind: 'int', bits: 64, signed: true };
const INT32: TypeDesc = { kind: 'int', bits: 32, signed: true };
const UINT64: TypeDesc = { kind: 'int', bits: 64, signed: false };
const EDGE = [0n, 1n, -1n, (1n << 63n) - 1n, -(1n << 63n), 1n << 40n];

describe('aggregates by group id', () => {
  it('match per-group folds for int64 and int32 measures with NULLs', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        fc.array(fc.record({ g: fc.nat(5), v: fc.oneof(fc.bigInt({ min: -(1n << 63n), max: (1n << 63n) - 1n }), fc.constantFrom(...EDGE)), ok: fc.boolean() }), { maxLength: 200 }),
        fc.constantFrom('i32', 'i64', 'u64'),
        (groups, rowsIn, kind) => {
          const wide = kind !== 'i32';
          const asValue = (v: bigint) => (kind === 'i32' ? BigInt.asIntN(32, v) : kind === 'u64' ? BigInt.asUintN(64, v) : v);
          const wrap = kind === 'u64' ? (x: bigint) => BigInt.asUintN(64, x) : (x: bigint) => BigInt.asIntN(64, x);
          const rows = rowsIn.map((r) => ({ ...r, g: r.g % groups, v: asValue(r.v) }));
          const ids = Uint32Array.from(rows.map((r) => r.g));
          const validBytes = Uint8Array.from(rows.map((r) => (r.ok ? 1 : 0)));
          const values = kind === 'u64' ? BigUint64Array.from(rows.map((r) => r.v)) : wide ? BigInt64Array.from(rows.map((r) => r.v)) : Int32Array.from(rows.map((r) => Number(r.v)));
          const col = column(kind === 'u64' ? UINT64 : wide ? INT64 : INT32, values, validBytes);
          const ref = reference([...ids], groups, rows.map((r) => r.v), rows.map((r) => r.ok), wrap);
          const sum = intSumById(ids, groups, col, heap);
          expect([...sum.values].map((s, g) => (sum.valid && sum.valid[g] === 0 ? null : wrap(BigInt(s))))).toEqual(ref.sums);
          // No NULLs (the path without carries for narrow values): as if every row were valid.
          const all = reference([...ids], groups, rows.map((r) => r.v), rows.map(() => true), wrap);
          const dense = intSumById(ids, groups, column(col.type, values, null), heap);
          expect([...dense.values].map((s, g) => (dense.valid && dense.valid[g] === 0 ? null : wrap(BigInt(s))))).toEqual(all.sums);
          expect([...countById(ids, groups, validBytes, heap)].map(Number)).toEqual(ref.counts);
          expect([...countById(ids, groups, null, heap)].map(Number)).toEqual(ref.rows);
          expect([...minMaxById(ids, groups, col, false, heap)]).toEqual(ref.min);
          expect([...minMaxById(ids, groups, col, true, heap)]).toEqual(ref.max);
          expect([...firstLastById(ids, groups, null, false, heap)]).toEqual(ref.first);
          expect([...firstLastById(ids, groups, null, true, heap)]).toEqual(ref.last);
          expect([...firstLastById(ids, groups, validBytes, false, heap)]).toEqual(ref.firstNN);
          expect([...firstLastById(ids, groups, validBytes, true, heap)]).toEqual(ref.lastNN);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('sums exactly past the carry interval (3M int64 values near 2^63, 3M int32 near 2^31)', () => {
    const n = 3_000_000;
    const ids = new Uint32Array(n);
    for (let i = 0; i < n; i++) ids[i] = i % 3 === 0 ? 1 : 0;
    const big = new BigInt64Array(n);
    const small = new Int32Array(n);
    let want0 = 0n, want1 = 0n, small0 = 0n;
    for (let i = 0; i < n; i++) {
      big[i] = i % 2 === 0 ? (1n << 63n) - 1n - BigInt(i) : -(1n << 62n) + BigInt(i);
      small[i] = 2 ** 31 - 1 - (i % 7);
      if (ids[i] === 0) {
        want0 += big[i]!;
        small0 += BigInt(small[i]!);
      } else want1 += big[i]!;
    }
    const s = intSumById(ids, 2, column(INT64, big, null), heap);
    expect([...s.values]).toEqual([BigInt.asIntN(64, want0), BigInt.asIntN(64, want1)]);
    const t = intSumById(ids, 2, column(INT32, small, null), heap);
    expect(t.values[0]).toBe(BigInt.asIntN(64, small0));
  });
});
