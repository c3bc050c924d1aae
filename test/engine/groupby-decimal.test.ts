/**
 * DECIMAL128 in groupBy, distinct, sort and join: as keys (grouped by value at the column's scale, NULL one
 * group) and as measures (sum exact to decimal(38, s), NULL past 38 digits as window's; avg the
 * correctly rounded exact mean; min/max/count/countDistinct/first), against a BigInt reference
 * written here from API.md, across threads, partitions and a budget small enough to spill.
 */
import * as A from 'apache-arrow';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { avg, count, countDistinct, Engine, first, max, min, sum } from '../../src/index.js';
import { nearestDouble } from '../support/window-reference.js';

function decimalData(vals: Array<bigint | null>, precision: number, scale: number): A.Data {
  const n = vals.length;
  const w = new Uint32Array(4 * n);
  const bitmap = new Uint8Array(Math.ceil(n / 8));
  vals.forEach((v, i) => {
    if (v === null) return;
    bitmap[i >> 3]! |= 1 << (i & 7);
    let x = BigInt.asUintN(128, v);
    for (let k = 0; k < 4; k++, x >>= 32n) w[4 * i + k] = Number(x & 0xffffffffn);
  });
  const nulls = vals.filter((v) => v === null).length;
  return A.makeData({ type: new A.Decimal(scale, precision, 128), length: n, data: w, nullCount: nulls, nullBitmap: nulls > 0 ? bitmap : null });
}

/** A decimal cell of a result as its unscaled BigInt (or null). */
function unscaled(v: unknown): bigint | null {
  if (v === null || v === undefined) return null;
  const w = v as Uint32Array;
  let x = 0n;
  for (let k = 3; k >= 0; k--) x = (x << 32n) | BigInt(w[k]!);
  return BigInt.asIntN(128, x);
}

const LIMIT = 10n ** 38n;
const engines = [new Engine({ threads: 0 }), new Engine({ threads: 2, partitions: 7 }), new Engine({ threads: 2, partitions: 1, memoryBudget: '2MiB', slabRows: 64 })];
afterAll(async () => {
  for (const e of engines) await e.close();
});

const value = fc.oneof(
  fc.bigInt({ min: -(10n ** 6n), max: 10n ** 6n }),
  fc.bigInt({ min: -(10n ** 37n), max: 10n ** 37n }),
  fc.constantFrom(LIMIT - 1n, -(LIMIT - 1n)),
);

describe('decimal keys and measures in groupBy and distinct', () => {
  it('equal the BigInt reference at any thread count, partition count and budget', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.option(fc.integer({ min: -3, max: 3 }), { freq: 6 }), fc.option(value, { freq: 5 })), { minLength: 0, maxLength: 300 }),
        fc.integer({ min: 0, max: engines.length - 1 }),
        async (rows, which) => {
          const keys = rows.map(([k]) => (k === null ? null : BigInt(k) * 100n + 5n)); // decimal(10, 2): k.05
          const vals = rows.map(([, v]) => v);
          const table = new A.Table({ k: A.makeVector(decimalData(keys, 10, 2)), d: A.makeVector(decimalData(vals, 38, 3)) });
          const e = engines[which]!;
          const got = await e
            .fromArrow(table)
            .groupBy('k')
            .agg({ s: sum('d'), a: avg('d'), lo: min('d'), hi: max('d'), n: count('d'), rows: count(), cd: countDistinct('d'), f: first('d') })
            .collect();
          // reference: groups in order of first appearance, NULL keys one group
          const order: Array<bigint | null> = [];
          const groups = new Map<string, { vals: Array<bigint | null> }>();
          keys.forEach((k, i) => {
            const id = String(k);
            if (!groups.has(id)) {
              groups.set(id, { vals: [] });
              order.push(k);
            }
            groups.get(id)!.vals.push(vals[i]!);
          });
          expect(got.numRows).toBe(order.length);
          order.forEach((k, g) => {
            const vs = groups.get(String(k))!.vals;
            const nn = vs.filter((v): v is bigint => v !== null);
            const s = nn.reduce((a, b) => a + b, 0n);
            const row = got.get(g)!.toJSON() as Record<string, unknown>;
            expect(unscaled(row.k)).toBe(k);
            expect(unscaled(row.s)).toBe(nn.length === 0 || s >= LIMIT || s <= -LIMIT ? null : s);
            expect(row.a).toBe(nn.length === 0 ? null : nearestDouble(s, BigInt(nn.length) * 1000n));
            expect(unscaled(row.lo)).toBe(nn.length === 0 ? null : nn.reduce((a, b) => (b < a ? b : a)));
            expect(unscaled(row.hi)).toBe(nn.length === 0 ? null : nn.reduce((a, b) => (b > a ? b : a)));
            expect(Number(row.n)).toBe(nn.length);
            expect(Number(row.rows)).toBe(vs.length);
            expect(Number(row.cd)).toBe(new Set(nn.map(String)).size);
            expect(unscaled(row.f)).toBe(vs[0]);
          });
          const all = vals.filter((v): v is bigint => v !== null);
          const total = all.reduce((a, b) => a + b, 0n);
          const whole = (await e.fromArrow(table).agg({ s: sum('d'), a: avg('d') }).collect()).get(0)!.toJSON() as Record<string, unknown>;
          expect(unscaled(whole.s)).toBe(all.length === 0 || total >= LIMIT || total <= -LIMIT ? null : total);
          expect(whole.a).toBe(all.length === 0 ? null : nearestDouble(total, BigInt(all.length) * 1000n));
          const d = await e.fromArrow(table).distinct('k').collect();
          expect(d.numRows).toBe(order.length);
          expect(Array.from({ length: d.numRows }, (_, i) => unscaled(d.get(i)!.toJSON().k))).toEqual(order);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('agg() without keys of a decimal sum and avg over an input bigger than one task: merged piece by piece, as one task gives them', async () => {
    const e = new Engine({ threads: 2, memoryBudget: '2MiB', slabRows: 4096 });
    try {
      // 60k rows: small values (the float64 prefix), big ones (limbs), a sum past 38 digits, NULLs
      const cases: Array<(i: number) => bigint | null> = [
        (i) => (i % 7 === 0 ? null : BigInt((i * 7919) % 20001) - 10000n),
        (i) => (i % 5 === 0 ? null : (i % 2 === 0 ? 1n : -1n) * (10n ** 36n + BigInt(i))),
        (i) => (i === 9 ? null : 10n ** 37n + BigInt(i)),
      ];
      for (const make of cases) {
        const vals = Array.from({ length: 60_000 }, (_, i) => make(i));
        const table = new A.Table({ d: A.makeVector(decimalData(vals, 38, 4)) });
        const { table: got, stats } = await e.fromArrow(table).agg({ s: sum('d'), a: avg('d'), n: count('d') }).execute();
        expect(stats.cpuMs.aggPartial).toBeGreaterThan(0); // piece by piece
        expect(stats.peakTrackedBytes).toBeLessThanOrEqual(2 * 1024 * 1024);
        const all = vals.filter((v): v is bigint => v !== null);
        const total = all.reduce((a, b) => a + b, 0n);
        const row = got.get(0)!.toJSON() as Record<string, unknown>;
        expect(unscaled(row.s)).toBe(total >= LIMIT || total <= -LIMIT ? null : total);
        expect(row.a).toBe(nearestDouble(total, BigInt(all.length) * 10000n));
        expect(Number(row.n)).toBe(all.length);
      }
    } finally {
      await e.close();
    }
  });

  it('sort by a decimal key (ASC NULLS FIRST, DESC NULLS LAST, stable) and join on decimal keys of one scale equal the reference', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.option(value, { freq: 5 }), { minLength: 0, maxLength: 200 }),
        fc.array(fc.option(fc.bigInt({ min: -5n, max: 5n }), { freq: 5 }), { minLength: 0, maxLength: 30 }),
        fc.integer({ min: 0, max: engines.length - 1 }),
        async (vals, rightKeys, which) => {
          const e = engines[which]!;
          const table = new A.Table({ d: A.makeVector(decimalData(vals, 38, 3)), i: A.makeVector(Int32Array.from(vals, (_, i) => i)) });
          const cmp = (x: bigint | null, y: bigint | null, desc: boolean): number =>
            x === null || y === null ? (x === null ? (y === null ? 0 : desc ? 1 : -1) : desc ? -1 : 1) : x === y ? 0 : (x < y) !== desc ? -1 : 1;
          for (const desc of [false, true]) {
            const got = await e.fromArrow(table).sort({ column: 'd', descending: desc }).collect();
            const want = vals.map((v, i) => ({ v, i })).sort((p, q) => cmp(p.v, q.v, desc) || p.i - q.i);
            expect(Array.from(got.getChild('i')!.toArray() as Int32Array)).toEqual(want.map((w) => w.i));
          }
          // join: left keys in [-5, 5] at scale 3, right keys of decimal(12, 3); NULL keys never match
          const left = new A.Table({ k: A.makeVector(decimalData(vals.map((v) => (v === null ? null : v % 6n)), 38, 3)), i: A.makeVector(Int32Array.from(vals, (_, i) => i)) });
          const right = new A.Table({ k: A.makeVector(decimalData(rightKeys, 12, 3)), j: A.makeVector(Int32Array.from(rightKeys, (_, j) => j)) });
          const joined = await e.fromArrow(left).join(e.fromArrow(right), { on: 'k' }).collect();
          const pairs: string[] = [];
          vals.forEach((v, i) => {
            if (v === null) return;
            rightKeys.forEach((r, j) => {
              if (r !== null && r === v % 6n) pairs.push(`${i}:${j}`);
            });
          });
          const gotPairs = Array.from({ length: joined.numRows }, (_, r) => `${joined.getChild('i')!.get(r)}:${joined.getChild('j')!.get(r)}`);
          expect(gotPairs).toEqual(pairs);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('a sort by decimals cut into ranges and spilled, and a full join whose USING key takes the wider precision', async () => {
    const N = 60_000;
    const vals = Array.from({ length: N }, (_, i) => (i % 97 === 0 ? null : BigInt(((i * 7919) % 100_003) - 50_000) * 10n ** BigInt(i % 30)));
    const t = new A.Table({ d: A.makeVector(decimalData(vals, 38, 2)), i: A.makeVector(Int32Array.from(vals, (_, i) => i)) });
    const e = new Engine({ threads: 2, memoryBudget: '1MiB' });
    try {
      const { table, stats } = await e.fromArrow(t).sort('d').execute();
      expect(stats.spilledBytes).toBeGreaterThan(0);
      const want = vals
        .map((v, i) => ({ v, i }))
        .sort((p, q) => (p.v === null || q.v === null ? (p.v === null ? (q.v === null ? 0 : -1) : 1) : p.v < q.v ? -1 : p.v > q.v ? 1 : 0) || p.i - q.i);
      expect(Array.from(table.getChild('i')!.toArray() as Int32Array)).toEqual(want.map((w) => w.i));
      const l = new A.Table({ k: A.makeVector(decimalData([1n, 2n, null, 5n], 10, 2)), a: A.makeVector(Int32Array.of(0, 1, 2, 3)) });
      const r = new A.Table({ k: A.makeVector(decimalData([2n, 7n], 20, 2)), b: A.makeVector(Int32Array.of(10, 11)) });
      const j = await e.fromArrow(l).join(e.fromArrow(r), { on: 'k', how: 'full' }).collect();
      expect(String(j.schema.fields[0]!.type)).toBe(String(new A.Decimal(2, 20, 128)));
      expect(Array.from({ length: j.numRows }, (_, i) => unscaled(j.get(i)!.toJSON().k))).toEqual([1n, 2n, null, 5n, 7n]);
    } finally {
      await e.close();
    }
  });

  it('joining decimals of different scales is KEY_TYPE_MISMATCH (cast one side)', async () => {
    const e = engines[0]!;
    const l = new A.Table({ k: A.makeVector(decimalData([1n], 10, 2)) });
    const r = new A.Table({ k: A.makeVector(decimalData([10n], 10, 3)) });
    await expect(e.fromArrow(l).join(e.fromArrow(r), { on: 'k' }).collect()).rejects.toMatchObject({ code: 'KEY_TYPE_MISMATCH' });
  });
});
