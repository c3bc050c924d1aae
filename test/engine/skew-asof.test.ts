/**
 * Skew (issue 8): an ASOF `by` group larger than the memory budget still runs. The hot
 * partition is cut into ranges of (by, on) tuples, each range borrowing the nearest right rows
 * of its neighbours (src/coordinator/asof-range.ts); results are bit-identical to an unbounded
 * run and to the naive reference, the small runs spill, their tracked peak stays within the
 * budget and every reservation is back to zero. A condition (which could reject the borrowed
 * rows) keeps a partition whole: an oversized one is PARTITION_TOO_LARGE, never a wrong result.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Engine } from '../../src/index.js';
import type { FieldDesc } from '../../src/types/column.js';
import { referenceAsof } from '../support/asof-reference.js';
import { budgetEngines } from '../support/engines.js';
import { rng } from '../support/random.js';
import { columnValues, makeTable, rowsOf, valuesDigest, type JsValue } from '../support/tables.js';

const engine = budgetEngines();

const left: FieldDesc[] = [
  { name: 'sym', type: { kind: 'int', bits: 32, signed: true }, nullable: true },
  { name: 'ts', type: { kind: 'timestamp', unit: 'us', timezone: null }, nullable: true },
  { name: 'id', type: { kind: 'int', bits: 32, signed: true }, nullable: false },
];
const right: FieldDesc[] = [
  { name: 'sym', type: { kind: 'int', bits: 64, signed: true }, nullable: true },
  { name: 'ts', type: { kind: 'timestamp', unit: 'us', timezone: null }, nullable: true },
  { name: 'v', type: { kind: 'int', bits: 32, signed: true }, nullable: false },
];

/** n rows: `hot` of them in by group 7, the rest over a few other groups (some NULL); clustered, duplicated keys, some NULL. */
function side(n: number, hot: number, seed: number, wide: boolean): Record<string, JsValue[]> {
  const r = rng(seed);
  const sym: JsValue[] = [];
  const ts: JsValue[] = [];
  for (let i = 0; i < n; i++) {
    const s = r() < hot ? 7 : r() < 0.05 ? null : 1 + Math.floor(r() * 6);
    sym.push(s === null ? null : wide ? BigInt(s) : s);
    const k = r();
    ts.push(k < 0.02 ? null : BigInt(k < 0.3 ? Math.floor(r() * 50) * 1000 : Math.floor(r() * 2_000_000)));
  }
  return { sym, ts, [wide ? 'v' : 'id']: Array.from({ length: n }, (_, i) => i) };
}

describe('asofJoin with a `by` group larger than the budget', () => {
  it('one hot by key holding over 10x the budget: bit-identical to an unbounded run, within budget, spilled', async () => {
    const lcols = side(16_000, 0.9, 1, false);
    const rcols = side(16_000, 0.9, 2, true);
    const budget = '256KiB';
    // (forward and every other option: the property below)
    for (const direction of ['backward', 'nearest'] as const) {
      const opts = { on: 'ts', by: 'sym', direction, tolerance: direction === 'nearest' ? '1s' : undefined };
      const run = (e: Engine) => e.fromArrow(makeTable(left, lcols, 4096)).asofJoin(e.fromArrow(makeTable(right, rcols, 4096)), opts).execute();
      const base = await run(engine(1, '1GiB'));
      const small = engine(2, budget);
      const { table, stats } = await run(small);
      expect(valuesDigest(table)).toBe(valuesDigest(base.table));
      // The unbounded run held the hot group in one task: over 10x the small budget.
      expect(base.stats.peakTrackedBytes).toBeGreaterThan(10 * small.budget.limit);
      expect(stats.spilledBytes).toBeGreaterThan(0);
      expect(stats.peakTrackedBytes).toBeLessThanOrEqual(small.budget.limit);
      expect(stats.overflowBytes).toBe(0);
      expect(small.budget.used).toBe(0);
      expect(small.budget.reservations()).toEqual([]);
    }
  });

  it('preserveOrder: false, one hot by key over 5x the budget: the same rows as an unbounded ordered run, range after range, in the same order every run, within budget', async () => {
    const lcols = side(16_000, 0.9, 9, false);
    const rcols = side(16_000, 0.9, 10, true);
    for (const how of ['left', 'inner'] as const) {
      const go = (e: Engine, preserveOrder: boolean) =>
        e.fromArrow(makeTable(left, lcols, 4096)).asofJoin(e.fromArrow(makeTable(right, rcols, 4096)), { on: 'ts', by: 'sym', tolerance: '1s', how, preserveOrder }).execute();
      const unbounded = await go(engine(1, '1GiB'), true);
      const base = unbounded.table;
      // Rows outputs hold every left column in the region: a larger budget than above, still
      // far below what the hot group takes in one task.
      const small = engine(2, '512KiB');
      expect(unbounded.stats.peakTrackedBytes).toBeGreaterThan(5 * small.budget.limit);
      const { table, stats } = await go(small, false);
      const ids = columnValues(table, 'id') as number[];
      expect(ids.some((r, k) => r !== (columnValues(base, 'id')[k] as number))).toBe(true);
      const byId = ids.map((_, k) => k).sort((a, b) => ids[a]! - ids[b]!);
      expect(valuesDigest(table, byId)).toBe(valuesDigest(base));
      expect(stats.cpuMs.route ?? 0).toBeGreaterThan(0);
      expect(stats.spilledBytes).toBeGreaterThan(0);
      expect(stats.peakTrackedBytes).toBeLessThanOrEqual(small.budget.limit);
      expect(stats.overflowBytes).toBe(0);
      expect(small.budget.used).toBe(0);
      expect(small.budget.reservations()).toEqual([]);
      expect(columnValues((await go(small, false)).table, 'id')).toStrictEqual(ids);
    }
  });

  it('matches the naive reference and the unbounded run over sizes, budgets and threads', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 200, max: 3000 }),
        fc.integer({ min: 0, max: 2000 }),
        fc.constantFrom('128KiB', '256KiB'),
        fc.constantFrom(0, 1, 2),
        fc.constantFrom('backward', 'forward', 'nearest') as fc.Arbitrary<'backward' | 'forward' | 'nearest'>,
        fc.constantFrom<undefined | string>(undefined, '0us', '20ms'),
        fc.boolean(),
        fc.boolean(),
        fc.integer({ min: 1, max: 1000 }),
        async (nL, nR, budget, threads, direction, tolerance, allowExactMatches, nullsEqual, seed) => {
          const lcols = side(nL, 0.85, seed, false);
          const rcols = side(nR, 0.85, seed + 1, true);
          const opts = { on: 'ts', by: 'sym', direction, tolerance, allowExactMatches, nullsEqual };
          const run = (e: Engine) => e.fromArrow(makeTable(left, lcols, 997)).asofJoin(e.fromArrow(makeTable(right, rcols, 1009)), opts).collect();
          const small = engine(threads, budget);
          const out = await run(small);
          const match = referenceAsof(rowsOf(left, lcols), rowsOf(right, rcols), left, right, opts);
          expect(columnValues(out, 'id')).toEqual(lcols.id);
          expect(columnValues(out, 'v')).toEqual(match.map((m) => (m === null ? null : rcols.v![m]!)));
          expect(valuesDigest(out)).toBe(valuesDigest(await run(engine(1, '1GiB'))));
          expect(small.budget.used).toBe(0);
        },
      ),
      { numRuns: 4 },
    );
  });

  it('without by keys, a join whose one group is over 10x the budget runs by key range', async () => {
    const lcols = side(15_000, 0, 3, false);
    const rcols = side(15_000, 0, 4, true);
    const opts = { on: 'ts', direction: 'forward' as const };
    const run = (e: Engine) => e.fromArrow(makeTable(left, lcols, 4096)).asofJoin(e.fromArrow(makeTable(right, rcols, 4096)), opts).execute();
    const base = await run(engine(1, '1GiB'));
    const small = engine(1, '256KiB');
    const { table, stats } = await run(small);
    expect(valuesDigest(table)).toBe(valuesDigest(base.table));
    expect(stats.spilledBytes).toBeGreaterThan(0);
    expect(stats.peakTrackedBytes).toBeLessThanOrEqual(small.budget.limit);
    expect(small.budget.used).toBe(0);
  });

  it('a condition keeps the group whole: over the budget it is PARTITION_TOO_LARGE, and the engine stays usable', async () => {
    const lcols = side(20_000, 1, 5, false);
    const rcols = side(20_000, 1, 6, true);
    const small = engine(1, '256KiB');
    const run = small
      .fromArrow(makeTable(left, lcols, 4096))
      .asofJoin(small.fromArrow(makeTable(right, rcols, 4096)), { on: 'ts', by: 'sym', condition: 'v >= 0' })
      .collect();
    await expect(run).rejects.toMatchObject({ name: 'ExecutionError', code: 'PARTITION_TOO_LARGE' });
    await expect(run).rejects.toThrow(/condition/);
    expect(small.budget.used).toBe(0);
    const ok = await small.fromArrow(makeTable(left, side(50, 1, 7, false))).asofJoin(small.fromArrow(makeTable(right, side(50, 1, 8, true))), { on: 'ts', by: 'sym', condition: 'v >= 0' }).collect();
    expect(ok.numRows).toBe(50);
  });
});
