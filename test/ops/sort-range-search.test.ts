// rangesOfRows (a global sort's range routing) against a naive count of the splitters at or
// before each row, in the sort order API.md gives: keys in order, each by value (DESC reversed),
// NULLs first or last as asked, ties by row id. Integer-like first keys take the word search.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { TypeDesc } from '../../src/types/column.js';
import type { KeyColumn } from '../../src/types/keys.js';
import { rangesOfRows } from '../../src/ops/sort-range-search.js';

type Kind = 'int32' | 'int64' | 'uint64' | 'date32' | 'timestamp' | 'int8' | 'float64';
const TYPES: Record<Kind, TypeDesc> = {
  int32: { kind: 'int', bits: 32, signed: true },
  int64: { kind: 'int', bits: 64, signed: true },
  uint64: { kind: 'int', bits: 64, signed: false },
  date32: { kind: 'date', unit: 'day' },
  timestamp: { kind: 'timestamp', unit: 'ns', timezone: null },
  int8: { kind: 'int', bits: 8, signed: true },
  float64: { kind: 'float', bits: 64 },
};

/** A few values per type, close together and at the extremes, so first keys tie often. */
function valueArb(kind: Kind): fc.Arbitrary<bigint> {
  switch (kind) {
    case 'int32':
    case 'date32':
      return fc.constantFrom(-(2n ** 31n), -5n, -1n, 0n, 1n, 7n, 2n ** 31n - 1n);
    case 'int8':
      return fc.constantFrom(-128n, -1n, 0n, 3n, 127n);
    case 'uint64':
      return fc.constantFrom(0n, 1n, 2n ** 32n - 1n, 2n ** 32n, 2n ** 63n, 2n ** 64n - 1n);
    case 'float64':
      return fc.constantFrom(-3n, 0n, 2n, 9n);
    default:
      return fc.constantFrom(-(2n ** 63n), -(2n ** 32n), -1n, 0n, 1n, 2n ** 32n + 5n, 2n ** 62n, 2n ** 63n - 1n);
  }
}

function column(kind: Kind, vals: Array<bigint | null>): KeyColumn {
  const n = vals.length;
  const valid = vals.some((v) => v === null) ? Uint8Array.from(vals, (v) => (v === null ? 0 : 1)) : null;
  const v0 = (v: bigint | null) => v ?? 0n;
  let values: KeyColumn['values'];
  if (kind === 'int64' || kind === 'timestamp') values = BigInt64Array.from(vals, v0);
  else if (kind === 'uint64') values = BigUint64Array.from(vals, v0);
  else if (kind === 'int8') values = Int8Array.from(vals, (v) => Number(v0(v)));
  else if (kind === 'float64') values = Float64Array.from(vals, (v) => Number(v0(v)));
  else values = Int32Array.from(vals, (v) => Number(v0(v)));
  return { type: TYPES[kind], length: n, values, offsets: null, valid };
}

interface Order {
  descending: boolean;
  nullsFirst: boolean;
}

/** Tuples (values per key, id) in sort order: the contract's comparison, on BigInts. */
function cmpTuple(a: Array<bigint | null>, ida: number, b: Array<bigint | null>, idb: number, orders: Order[]): number {
  for (let k = 0; k < orders.length; k++) {
    const x = a[k]!;
    const y = b[k]!;
    const o = orders[k]!;
    if (x === null || y === null) {
      if (x === null && y === null) continue;
      return (x === null) === o.nullsFirst ? -1 : 1;
    }
    if (x !== y) return (x < y ? -1 : 1) * (o.descending ? -1 : 1);
  }
  return ida - idb;
}

describe('rangesOfRows', () => {
  it('gives each row the number of splitters at or before it, as the naive comparison does', () => {
    const kinds: Kind[] = ['int32', 'int64', 'uint64', 'date32', 'timestamp', 'int8', 'float64'];
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...kinds), { minLength: 0, maxLength: 2 }).chain((ks) =>
          fc.tuple(
            fc.constant(ks),
            fc.array(fc.record({ descending: fc.boolean(), nullsFirst: fc.boolean() }), { minLength: ks.length, maxLength: ks.length }),
            // rows and splitters: values per key (NULL about one in six)
            fc.array(fc.tuple(...ks.map((k) => fc.option(valueArb(k), { freq: 5 }))), { maxLength: 80 }),
            fc.array(fc.tuple(...ks.map((k) => fc.option(valueArb(k), { freq: 5 }))), { maxLength: 20 }),
          ),
        ),
        ([ks, orders, rows, splits]) => {
          const rowIds = rows.map((_, i) => 2 * i + 1);
          // Splitters: sorted, with ids between the rows' ids so that ties by id matter.
          const sp = splits.map((vals, s) => ({ vals, id: 2 * ((s * 7) % Math.max(1, rows.length)) })).sort((x, y) => cmpTuple(x.vals, x.id, y.vals, y.id, orders));
          const keys = ks.map((k, c) => column(k, rows.map((r) => r[c]!)));
          const split = ks.map((k, c) => column(k, sp.map((s) => s.vals[c]!)));
          const dest = rangesOfRows(split, Uint32Array.from(sp, (s) => s.id), keys, Uint32Array.from(rowIds), orders, rows.length, new Uint32Array(rows.length));
          const want = rows.map((r, i) => sp.filter((s) => cmpTuple(s.vals, s.id, r, rowIds[i]!, orders) <= 0).length);
          expect(Array.from(dest)).toEqual(want);
        },
      ),
      { numRuns: 400 },
    );
  });
});
