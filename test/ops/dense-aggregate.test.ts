/**
 * The dense aggregation kernel (src/ops/dense-aggregate) on its own: slots and range checks,
 * sums that wrap past 2^64 over more values than one carry interval, merges of two tables, and
 * groups in first-row order. Expected values computed here with BigInt, row by row.
 */
import { describe, expect, it } from 'vitest';
import { accumulateDense, denseLayout, denseOutputColumn, mergeDense, presentSlots, slotsOf, type DenseGroups, type DenseOutput } from '../../src/ops/dense-aggregate.js';
import { localAlloc } from '../../src/columns/arena.js';
import { permuteValues } from '../../src/worker/permute.js';
import { argsortWords } from '../../src/worker/sort.js';
import type { KeyColumn } from '../../src/types/keys.js';

/** A table's groups in first-row order, as the coordinator puts them (exec-groupby-dense outputBatch). */
function denseGroups(t: Int32Array, stride: number, slots: number): DenseGroups {
  const { firsts, ids } = presentSlots(t, stride, slots);
  return { order: permuteValues(ids, argsortWords([firsts], ids.length), localAlloc), table: t };
}

const I64 = { kind: 'int', bits: 64, signed: true } as const;
const I32 = { kind: 'int', bits: 32, signed: true } as const;
const col64 = (v: bigint[], valid: Uint8Array | null = null): KeyColumn => ({ type: I64, length: v.length, values: BigInt64Array.from(v), offsets: null, valid });
const col32 = (v: number[], valid: Uint8Array | null = null): KeyColumn => ({ type: I32, length: v.length, values: Int32Array.from(v), offsets: null, valid });

describe('dense aggregation kernel', () => {
  it('finds every row slot and refuses keys outside the range, exactly at its ends and far away', () => {
    const slots = new Int32Array(4);
    expect(slotsOf(col64([10n, 13n, 11n, 10n]), 4, 10, 4, slots)).toBe(true);
    expect([...slots]).toEqual([0, 3, 1, 0]);
    expect(slotsOf(col64([10n, 14n]), 2, 10, 4, slots)).toBe(false);
    expect(slotsOf(col64([9n, 10n]), 2, 10, 4, slots)).toBe(false);
    // 2^62 + 10 rounds as a double but stays far out; -2^63 likewise
    expect(slotsOf(col64([(1n << 62n) + 10n]), 1, 10, 4, slots)).toBe(false);
    expect(slotsOf(col64([-(1n << 63n)]), 1, 10, 4, slots)).toBe(false);
    // NULL keys take slot `span`, whatever their value bits
    expect(slotsOf(col32([99, -5, 2], new Uint8Array([0, 0, 1])), 3, 0, 4, slots)).toBe(true);
    expect([...slots.subarray(0, 3)]).toEqual([4, 4, 2]);
  });

  it('finds slots of 64-bit keys with a high word (negative, past 2^31, unsigned past 2^63) and bases either side of 0, as BigInt does', () => {
    const U64 = { kind: 'int', bits: 64, signed: false } as const;
    const colU64 = (v: bigint[]): KeyColumn => ({ type: U64, length: v.length, values: BigUint64Array.from(v), offsets: null, valid: null });
    const slots = new Int32Array(8);
    // negative keys: high word -1, the low word's int32 reading negative
    expect(slotsOf(col64([-3n, -1n, 0n, 2n]), 4, -3, 6, slots)).toBe(true);
    expect([...slots.subarray(0, 4)]).toEqual([0, 2, 3, 5]);
    // keys past 2^31 (the low word's int32 reading negative, high word 0) and past 2^32
    const big = 2n ** 31n;
    expect(slotsOf(col64([big - 1n, big, big + 1n, 2n ** 32n + 5n]), 4, 2 ** 31 - 1, 2 ** 32, slots)).toBe(true);
    expect([...slots.subarray(0, 3)]).toEqual([0, 1, 2]);
    // a key near 2^31 with a negative base: lo - base passes 2^31, outside (not wrapped in)
    expect(slotsOf(col64([0n, 2n ** 31n - 1n]), 2, -100, 200, slots)).toBe(false);
    expect(slotsOf(col64([2n ** 31n - 1n]), 1, -(2 ** 31), 2 ** 21, slots)).toBe(false);
    // a key past 2^31 whose distance from a very negative base passes 2^32: outside, not (2^32 - wrapped) inside
    expect(slotsOf(col64([2n ** 31n + 3n]), 1, -(2 ** 31), 8, slots)).toBe(false);
    // unsigned 64-bit past 2^63 is far out, not negative
    expect(slotsOf(colU64([2n ** 64n - 1n]), 1, -4, 8, slots)).toBe(false);
    expect(slotsOf(colU64([3n, 2n ** 32n]), 2, 3, 2 ** 32, slots)).toBe(true);
    expect(slots[0]).toBe(0);
    // a span past 2^31 (no table has one: DENSE_MAX_SLOTS) is still exact: key 0 lies below base 1
    expect(slotsOf(col64([0n]), 1, 1, 2 ** 32, slots)).toBe(false);
    // random keys around a random base, against BigInt row by row
    let seed = 7;
    const rand = (): number => ((seed = (Math.imul(seed, 1103515245) + 12345) | 0) >>> 0) / 2 ** 32;
    for (let round = 0; round < 200; round++) {
      const base = Math.floor((rand() - 0.5) * 2 ** (1 + Math.floor(rand() * 40)));
      const span = 1 + Math.floor(rand() * 64);
      const keys = Array.from({ length: 16 }, () => BigInt(base) + BigInt(Math.floor((rand() - 0.2) * span * 1.3)) + (rand() < 0.05 ? 1n << BigInt(20 + Math.floor(rand() * 43)) : 0n));
      const valid = Uint8Array.from(keys, () => (rand() < 0.1 ? 0 : 1));
      const out = new Int32Array(16);
      const inRange = slotsOf(col64(keys, valid), 16, base, span, out);
      const expected = keys.map((k, i) => (valid[i] === 0 ? span : Number(k - BigInt(base))));
      expect(inRange).toBe(keys.every((k, i) => valid[i] === 0 || (k >= BigInt(base) && k < BigInt(base) + BigInt(span))));
      if (inRange) expect([...out]).toEqual(expected);
    }
  });

  it('wraps an int64 sum like a row-by-row fold over more values than one carry interval', () => {
    const n = 4_500_000;
    const outputs: DenseOutput[] = [{ fn: 'key', column: -1 }, { fn: 'sum', column: 1 }, { fn: 'rows', column: -1 }, { fn: 'max', column: 1 }, { fn: 'min', column: 1 }];
    const layout = denseLayout(outputs);
    const keys = new BigInt64Array(n); // every row in group 0, or 1 for odd rows past the middle
    const vals = new BigInt64Array(n);
    const want = [0n, 0n];
    const counts = [0n, 0n];
    const top = [-(1n << 63n), -(1n << 63n)];
    const least = [1n << 63n, 1n << 63n];
    for (let i = 0; i < n; i++) {
      const g = i > n / 2 && i % 2 === 1 ? 1 : 0;
      keys[i] = BigInt(g);
      // low words near 2^32: without carries the word sums would pass 2^53
      const v = i % 3 === 0 ? (1n << 63n) - 1n - BigInt(i) : -1n - BigInt(i);
      vals[i] = v;
      want[g] = BigInt.asIntN(64, want[g]! + v);
      counts[g]!++;
      if (v > top[g]!) top[g] = v;
      if (v < least[g]!) least[g] = v;
    }
    const key: KeyColumn = { type: I64, length: n, values: keys, offsets: null, valid: null };
    const val: KeyColumn = { type: I64, length: n, values: vals, offsets: null, valid: null };
    const slots = new Int32Array(n);
    expect(slotsOf(key, n, 0, 2, slots)).toBe(true);
    // Two tables, the rows split between them at an odd place, merged: as one table.
    const a = new Int32Array(3 * layout.stride);
    const b = new Int32Array(3 * layout.stride);
    const cut = n - 1_234; // over 2^21 values of one group in one table
    accumulateDense(a, layout, slots, cut, 0, [key, val]);
    accumulateDense(b, layout, slots.subarray(cut), n - cut, cut, [key, { ...val, values: vals.subarray(cut) }]);
    mergeDense(a, b, layout, 3);
    const groups = denseGroups(a, layout.stride, 3);
    const order = groups.order;
    expect([...order]).toEqual([0, 1]);
    const sums = denseOutputColumn(groups, layout, outputs, 1, 0, 2, new BigInt64Array(2));
    expect([...(sums.values as BigInt64Array)]).toEqual(want);
    const rows = denseOutputColumn(groups, layout, outputs, 2, 0, 2, new BigInt64Array(2));
    expect([...(rows.values as BigInt64Array)]).toEqual(counts);
    const maxes = denseOutputColumn(groups, layout, outputs, 3, 0, 2, new BigInt64Array(2)).values as BigInt64Array;
    const mins = denseOutputColumn(groups, layout, outputs, 4, 0, 2, new BigInt64Array(2)).values as BigInt64Array;
    expect([...maxes]).toEqual(top);
    expect([...mins]).toEqual(least);
  });

  it('orders groups by first row, gives NULL where a group has no value, and the NULL key last when it came last', () => {
    const outputs: DenseOutput[] = [{ fn: 'key', column: -1 }, { fn: 'sum', column: 1 }, { fn: 'count', column: 1 }, { fn: 'min', column: 1 }];
    const layout = denseLayout(outputs);
    const key = col32([5, 3, 5, 0, 4], new Uint8Array([1, 1, 1, 0, 1]));
    const val = col32([-7, 1, 2, 9, 0], new Uint8Array([1, 0, 1, 1, 0]));
    const slots = new Int32Array(5);
    expect(slotsOf(key, 5, 3, 3, slots)).toBe(true);
    const t = new Int32Array(4 * layout.stride);
    accumulateDense(t, layout, slots, 5, 100, [key, val]);
    const groups = denseGroups(t, layout.stride, 4);
    const order = groups.order;
    expect([...order]).toEqual([2, 0, 3, 1]);
    const keys = denseOutputColumn(groups, layout, outputs, 0, 3, 3, new Int32Array(4));
    expect([...keys.values]).toEqual([5, 3, 0, 4]);
    expect([...keys.valid!]).toEqual([1, 1, 0, 1]);
    const sums = denseOutputColumn(groups, layout, outputs, 1, 3, 3, new BigInt64Array(4));
    expect([...(sums.values as BigInt64Array)].filter((_, i) => sums.valid![i])).toEqual([-5n, 9n]);
    expect([...sums.valid!]).toEqual([1, 0, 1, 0]);
    const counts = denseOutputColumn(groups, layout, outputs, 2, 3, 3, new BigInt64Array(4));
    expect([...(counts.values as BigInt64Array)]).toEqual([2n, 0n, 1n, 0n]);
    const mins = denseOutputColumn(groups, layout, outputs, 3, 3, 3, new Int32Array(4));
    expect(mins.values[0]).toBe(-7);
    expect([...mins.valid!]).toEqual([1, 0, 1, 0]);
  });

  it('sums int32 values past 2^53 of low-word sums exactly (negative values, more than a carry interval of them)', () => {
    const n = 5_000_000; // ~-2^31 each: the low sum would pass -2^53 uncarried
    const outputs: DenseOutput[] = [{ fn: 'sum', column: 1 }];
    const layout = denseLayout(outputs);
    const keys = new Int32Array(n);
    const vals = new Int32Array(n);
    let want = 0n;
    for (let i = 0; i < n; i++) {
      vals[i] = i % 50 === 0 ? 2 ** 31 - 1 : -(2 ** 31) + (i % 7);
      want += BigInt(vals[i]!);
    }
    const key: KeyColumn = { type: I32, length: n, values: keys, offsets: null, valid: null };
    const val: KeyColumn = { type: I32, length: n, values: vals, offsets: null, valid: null };
    const slots = new Int32Array(n);
    expect(slotsOf(key, n, 0, 1, slots)).toBe(true);
    const t = new Int32Array(2 * layout.stride);
    accumulateDense(t, layout, slots, n, 0, [key, val]);
    const sums = denseOutputColumn(denseGroups(t, layout.stride, 2), layout, outputs, 0, 0, 1, new BigInt64Array(1));
    expect((sums.values as BigInt64Array)[0]).toBe(BigInt.asIntN(64, want));
  });

  it('merges tables whatever holds the earlier first row, and a min/max seen on one side only', () => {
    const outputs: DenseOutput[] = [{ fn: 'key', column: -1 }, { fn: 'max', column: 1 }, { fn: 'min', column: 1 }];
    const layout = denseLayout(outputs);
    const add = (t: Int32Array, keys: number[], vals: Array<number | null>, rowBase: number): void => {
      const key = col32(keys);
      const val = col32(vals.map((v) => v ?? 0), Uint8Array.from(vals, (v) => (v === null ? 0 : 1)));
      const slots = new Int32Array(keys.length);
      expect(slotsOf(key, keys.length, 0, 3, slots)).toBe(true);
      accumulateDense(t, layout, slots, keys.length, rowBase, [key, val]);
    };
    // rows 0-2 went to `b`, rows 3-5 to `a`: a's groups come first only where b has none
    const a = new Int32Array(4 * layout.stride);
    const b = new Int32Array(4 * layout.stride);
    add(b, [2, 0, 2], [null, 5, null], 0);
    add(a, [1, 2, 0], [-3, 7, 9], 3);
    mergeDense(a, b, layout, 4);
    const groups = denseGroups(a, layout.stride, 4);
    const order = groups.order;
    expect([...order]).toEqual([2, 0, 1]);
    const maxes = denseOutputColumn(groups, layout, outputs, 1, 0, 3, new Int32Array(3));
    const mins = denseOutputColumn(groups, layout, outputs, 2, 0, 3, new Int32Array(3));
    expect([...maxes.values]).toEqual([7, 9, -3]);
    expect([...mins.values]).toEqual([7, 5, -3]);
    expect(maxes.valid).toBeNull();
  });

  it('orders unsigned 64-bit values past 2^63 and keeps two measure columns apart, in one table and merged', () => {
    const U64 = { kind: 'int', bits: 64, signed: false } as const;
    const I16 = { kind: 'int', bits: 16, signed: true } as const;
    const outputs: DenseOutput[] = [
      { fn: 'key', column: -1 }, { fn: 'rows', column: -1 }, { fn: 'count', column: 1 }, { fn: 'min', column: 1 }, { fn: 'max', column: 1 },
      { fn: 'sum', column: 2 }, { fn: 'max', column: 2 }, { fn: 'count', column: 2 },
    ];
    const layout = denseLayout(outputs);
    const top = (1n << 64n) - 1n;
    const half = 1n << 63n;
    const keys = [0, 1, 0, 1, 0, 1];
    const u: Array<bigint | null> = [top, 5n, half, null, half - 1n, 7n];
    const v: Array<number | null> = [-3, null, 32767, null, -32768, null];
    const colOf = (from: number, to: number): KeyColumn[] => [
      col32(keys.slice(from, to)),
      { type: U64, length: to - from, values: BigUint64Array.from(u.slice(from, to), (x) => x ?? 0n), offsets: null, valid: Uint8Array.from(u.slice(from, to), (x) => (x === null ? 0 : 1)) },
      { type: I16, length: to - from, values: Int16Array.from(v.slice(from, to), (x) => x ?? 0), offsets: null, valid: Uint8Array.from(v.slice(from, to), (x) => (x === null ? 0 : 1)) },
    ];
    const run = (t: Int32Array, from: number, to: number): void => {
      const cols = colOf(from, to);
      const slots = new Int32Array(to - from);
      expect(slotsOf(cols[0]!, to - from, 0, 2, slots)).toBe(true);
      accumulateDense(t, layout, slots, to - from, from, cols);
    };
    const whole = new Int32Array(3 * layout.stride);
    run(whole, 0, 6);
    const a = new Int32Array(3 * layout.stride);
    const b = new Int32Array(3 * layout.stride);
    run(b, 0, 3);
    run(a, 3, 6);
    mergeDense(a, b, layout, 3);
    for (const t of [whole, a]) {
      const groups = denseGroups(t, layout.stride, 3);
      expect([...groups.order]).toEqual([0, 1]);
      const out = (i: number, values: BigInt64Array | BigUint64Array | Int16Array) => denseOutputColumn(groups, layout, outputs, i, 0, 2, values);
      expect([...out(1, new BigInt64Array(2)).values]).toEqual([3n, 3n]);
      expect([...out(2, new BigInt64Array(2)).values]).toEqual([3n, 2n]);
      expect([...out(3, new BigUint64Array(2)).values]).toEqual([half - 1n, 5n]);
      expect([...out(4, new BigUint64Array(2)).values]).toEqual([top, 7n]);
      const sums = out(5, new BigInt64Array(2));
      expect([...sums.values][0]).toBe(-4n); // -3 + 32767 - 32768
      expect([...(sums.valid ?? [])]).toEqual([1, 0]);
      const maxes = out(6, new Int16Array(2));
      expect(maxes.values[0]).toBe(32767);
      expect([...(maxes.valid ?? [])]).toEqual([1, 0]);
      expect([...out(7, new BigInt64Array(2)).values]).toEqual([3n, 0n]);
    }
  });
});
