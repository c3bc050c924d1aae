/**
 * windowOutputData: kernel outputs → arrow Data in sorted order, for measures of any type
 * (strings, binary, decimals, lists, structs), takes composed with the sort permutation,
 * lag/lead defaults; and takeFixedValues for the fixed-width shared-array path.
 */
import * as A from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { typeFromArrow } from '../../src/columns/arrow-types.js';
import { toKeyColumn } from '../../src/columns/shared.js';
import { lag, min, rank, sum } from '../../src/expr/aggregates.js';
import { computeWindow, TAKE_DEFAULT, type WindowColumnOut } from '../../src/ops/window.js';
import { resolveWindow, type ResolvedWindowColumn } from '../../src/ops/window-spec.js';
import type { FieldDesc } from '../../src/types/column.js';
import { literalData, takeFixedValues, windowOutputData } from '../../src/worker/window-output.js';

const vec = (d: A.Data) => new A.Vector([d]);
/** Values with NULLs (toArray() of primitive vectors ignores validity). */
const vals = (d: A.Data): unknown[] => [...vec(d)];

function columnFor(fn: ReturnType<typeof lag>, field: FieldDesc): ResolvedWindowColumn {
  return resolveWindow({ orderBy: 't', columns: { out: fn } }, [field, { name: 't', type: { kind: 'int', bits: 32, signed: true }, nullable: false }]).columns[0]!;
}

const take = (index: number[], col: ResolvedWindowColumn): WindowColumnOut => ({ kind: 'take', type: col.type, measure: 0, index: Int32Array.from(index) });

describe('windowOutputData', () => {
  it('gathers strings in sorted order through the permutation, with NULLs and the default', () => {
    const data = A.vectorFromArray(['a', 'bb', null, 'é'], new A.Utf8()).data[0]!;
    const col = columnFor(lag('s', 1, 'dflt'), { name: 's', type: { kind: 'utf8' }, nullable: true });
    // sorted position j holds load row perm[j]
    const perm = Uint32Array.of(3, 1, 0, 2);
    const out = windowOutputData(take([TAKE_DEFAULT, 0, 1, -1, 2, 3], col), col, data, perm);
    expect(vals(out)).toEqual(['dflt', 'é', 'bb', null, 'a', null]);
    expect(out.nullCount).toBe(2);
  });

  it('gathers structs, lists, binary and decimals (any measure type)', () => {
    const st = A.vectorFromArray([{ a: 1, b: 'x' }, null, { a: 3, b: null }], new A.Struct([new A.Field('a', new A.Int32()), new A.Field('b', new A.Utf8())])).data[0]!;
    const stCol = columnFor(lag('st'), { name: 'st', type: typeFromArrow(st.type), nullable: true });
    const s = windowOutputData(take([2, -1, 0, 1], stCol), stCol, st, null);
    expect(vals(s).map((r) => (r ? (r as { toJSON(): unknown }).toJSON() : r))).toEqual([{ a: 3, b: null }, null, { a: 1, b: 'x' }, null]);

    const li = A.vectorFromArray([[1, 2], [], null, [3]], new A.List(new A.Field('item', new A.Int32()))).data[0]!;
    const liCol = columnFor(lag('l'), { name: 'l', type: typeFromArrow(li.type), nullable: true });
    const l = windowOutputData(take([3, 0, 1, 2], liCol), liCol, li, null);
    expect(vals(l).map((r) => (r ? [...(r as Iterable<number>)] : r))).toEqual([[3], [1, 2], [], null]);

    const bin = A.vectorFromArray([Uint8Array.of(1, 2), Uint8Array.of()], new A.Binary()).data[0]!;
    const binCol = columnFor(lag('b', 1, Uint8Array.of(9)), { name: 'b', type: { kind: 'binary' }, nullable: true });
    const b = windowOutputData(take([1, TAKE_DEFAULT, 0], binCol), binCol, bin, null);
    expect(vals(b).map((x) => [...(x as Uint8Array)])).toEqual([[], [9], [1, 2]]);

    const dec = A.makeData({ type: new A.Decimal(2, 10, 128), length: 2, nullCount: 0, data: Uint32Array.of(150, 0, 0, 0, 0xffffff9c, 0xffffffff, 0xffffffff, 0xffffffff) });
    const decCol = columnFor(lag('d', 1, '-0.5'), { name: 'd', type: typeFromArrow(dec.type), nullable: true });
    const d = windowOutputData(take([1, 0, TAKE_DEFAULT], decCol), decCol, dec, null);
    const words = d.values as Uint32Array;
    expect([...words.subarray(0, 12)]).toEqual([0xffffff9c, 0xffffffff, 0xffffffff, 0xffffffff, 150, 0, 0, 0, 0xffffffce, 0xffffffff, 0xffffffff, 0xffffffff]);
  });

  it('wraps computed values with their validity', () => {
    const schema: FieldDesc[] = [
      { name: 't', type: { kind: 'int', bits: 32, signed: true }, nullable: false },
      { name: 'v', type: { kind: 'int', bits: 32, signed: true }, nullable: true },
    ];
    const w = resolveWindow({ orderBy: 't', columns: { s: sum('v').rows(1, -1), r: rank() } }, schema);
    const outs = computeWindow({
      n: 3,
      groupStarts: Uint32Array.of(0, 3),
      order: [toKeyColumn(A.vectorFromArray([0, 1, 2], new A.Int32()).data[0]!)],
      measures: [toKeyColumn(A.vectorFromArray([5, null, 7], new A.Int32()).data[0]!)],
      window: w,
    });
    const s = windowOutputData(outs[0]!, w.columns[0]!, null, null);
    expect(vals(s)).toEqual([null, 5n, null]);
    expect(String(s.type)).toBe('Int64');
    const r = windowOutputData(outs[1]!, w.columns[1]!, null, null);
    expect(vals(r)).toEqual([1n, 2n, 3n]);
    expect(r.nullCount).toBe(0);
  });

  it('literalData builds one-row defaults of every primitive type', () => {
    expect(vec(literalData({ kind: 'utf8' }, { kind: 'string', value: 'é' })).get(0)).toBe('é');
    expect(vec(literalData({ kind: 'bool' }, { kind: 'bool', value: true })).get(0)).toBe(true);
    expect(vec(literalData({ kind: 'int', bits: 64, signed: true }, { kind: 'int', value: '-9223372036854775808' })).get(0)).toBe(-(2n ** 63n));
    expect(vec(literalData({ kind: 'float', bits: 32 }, { kind: 'float', value: 0.5 })).get(0)).toBe(0.5);
    expect(vec(literalData({ kind: 'largeUtf8' }, { kind: 'string', value: 'x' })).get(0)).toBe('x');
  });
});

describe('takeFixedValues', () => {
  it('copies bits exactly (NaN payloads, -0, 64-bit, decimal words) and writes the default', () => {
    const f = new Float64Array([NaN, -0, 1.5]);
    new Uint32Array(f.buffer)[0] = 0xdeadbeef; // a NaN payload
    const key = { type: { kind: 'float', bits: 64 } as const, length: 3, values: f, offsets: null, valid: null };
    const alloc = <T,>(C: { new (n: number): T }, n: number) => new C(n);
    const { values, valid } = takeFixedValues(Int32Array.of(0, 1, -1, TAKE_DEFAULT), key, { kind: 'float', value: 7 }, alloc as never);
    const w = new Uint32Array((values as Float64Array).buffer);
    expect(w[0]).toBe(0xdeadbeef);
    expect(Object.is((values as Float64Array)[1], -0)).toBe(true);
    expect((values as Float64Array)[3]).toBe(7);
    expect([...valid!]).toEqual([1, 1, 0, 1]);
    const m = toKeyColumn(min('x') && A.vectorFromArray([true, false, null], new A.Bool()).data[0]!);
    const b = takeFixedValues(Int32Array.of(2, 1, 0, TAKE_DEFAULT), m, { kind: 'bool', value: true }, alloc as never);
    expect([...(b.values as Uint8Array)]).toEqual([0, 0, 1, 1]);
    expect([...b.valid!]).toEqual([0, 1, 1, 1]);
  });
});
