/**
 * execute() keeps every batch of its result, so a window's or an ASOF join's fixed-width
 * outputs are written straight into the result's columns (src/coordinator/partitioned.ts
 * OutputRanges, `collected`): at a budget their output exchange would have spilled, execute()
 * spills nothing, and gives the same rows as stream() (whose outputs take the bounded, routed
 * path and spill) and as an unbounded run; the budget's promises hold for both.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import * as A from 'apache-arrow';
import { OutputRanges } from '../../src/coordinator/partitioned.js';
import { Engine, lag, max, min, rowNumber, sum, type DataFrame } from '../../src/index.js';
import { quotesAndTrades, servingLog } from '../support/budget-data.js';
import { streamed, valuesDigest } from '../support/tables.js';

const dir = mkdtempSync(join(tmpdir(), 'sluice-collected-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const log = servingLog(20_000, ['user_id', 'create_ts', 'tokens', 'spend']);
const { trades, quotes } = quotesAndTrades(20_000, { rowIds: false });

// Outputs several times the routed input: ten fixed-width columns a row.
const jobs: Record<string, (e: Engine) => DataFrame> = {
  window: (e) =>
    e.fromArrow(log).window({
      partitionBy: 'user_id',
      orderBy: 'create_ts',
      columns: {
        a: sum('tokens').rows(1), b: sum('tokens').rows(3), c: sum('tokens').rows(7), d: sum('spend').rows(2), e: sum('spend').rows(5),
        f: max('spend').rows(3), g: min('tokens').rows(4), h: lag('spend'), i: rowNumber(), j: sum('tokens').rows(15),
      },
    }),
  asof: (e) => e.fromArrow(trades).asofJoin(e.fromArrow(quotes), { on: 'ts', by: 'sym', tolerance: '1s' }),
};

describe.each(Object.keys(jobs))('%s', (name) => {
  it.each([1, 2])('threads %i: execute() writes the outputs into its result (no spill) where stream() spills them; same rows', async (threads) => {
    const unbounded = new Engine({ threads });
    const spillDir = mkdtempSync(join(dir, 'spill-'));
    // The window's: room for its routed input (~640 KB), not for its outputs (~1.8 MB) next to it.
    const small = new Engine({ threads, memoryBudget: name === 'window' ? '2MiB' : '1MiB', spillDir });
    try {
      const want = valuesDigest((await jobs[name]!(unbounded).execute()).table);
      const executed = await jobs[name]!(small).execute();
      const viaStream = await streamed(jobs[name]!(small));
      expect(valuesDigest(executed.table)).toBe(want);
      expect(valuesDigest(viaStream.table)).toBe(want);
      if (name === 'window') {
        expect(viaStream.stats.spilledBytes).toBeGreaterThan(0);
        expect(executed.stats.spilledBytes).toBe(0);
      } else {
        // ASOF routes both inputs: they may spill, its outputs no longer add to it.
        expect(executed.stats.spilledBytes).toBeLessThan(viaStream.stats.spilledBytes);
      }
      for (const stats of [executed.stats, viaStream.stats]) {
        expect(stats.peakTrackedBytes).toBeLessThanOrEqual(small.budget.limit);
        expect(stats.overflowBytes).toBe(0);
      }
      expect(small.budget.used).toBe(0);
      expect(small.budget.reservations()).toEqual([]);
      expect(readdirSync(spillDir)).toEqual([]);
    } finally {
      await unbounded.close();
      await small.close();
      rmSync(spillDir, { recursive: true, force: true });
    }
  });
});

describe('only a result kept whole is written in place', () => {
  // At the budget where the window's outputs spill when routed (above): a step after the
  // window that does not keep its outputs whole (a limit, a drop of one of them, a sort, an
  // inner ASOF join's dropped rows) leaves them on the bounded path, so they spill; a rename
  // keeps every column and is still the result.
  const window = jobs.window!;
  const cases: Array<[string, (e: Engine) => DataFrame, boolean]> = [
    ['rename', (e) => window(e).rename({ a: 'a2' }), false],
    ['limit', (e) => window(e).limit(100), true],
    ['drop of an output', (e) => window(e).drop('j'), true],
    ['sort', (e) => window(e).sort('create_ts'), true],
  ];
  it.each(cases)('%s', async (_name, job, spills) => {
    const unbounded = new Engine({ threads: 2 });
    const spillDir = mkdtempSync(join(dir, 'spill-'));
    const small = new Engine({ threads: 2, memoryBudget: '2MiB', spillDir });
    try {
      const want = valuesDigest((await job(unbounded).execute()).table);
      const { table, stats } = await job(small).execute();
      expect(valuesDigest(table)).toBe(want);
      if (spills) expect(stats.spilledBytes).toBeGreaterThan(0);
      else expect(stats.spilledBytes).toBe(0);
      expect(stats.peakTrackedBytes).toBeLessThanOrEqual(small.budget.limit);
      expect(small.budget.used).toBe(0);
    } finally {
      await unbounded.close();
      await small.close();
      rmSync(spillDir, { recursive: true, force: true });
    }
  });

  it('an inner ASOF join (its result drops rows, copied out of the outputs) gives the same rows within the budget', async () => {
    const inner = (e: Engine) => e.fromArrow(trades).asofJoin(e.fromArrow(quotes), { on: 'ts', by: 'sym', tolerance: '1ms', how: 'inner' });
    const unbounded = new Engine({ threads: 2 });
    const spillDir = mkdtempSync(join(dir, 'spill-'));
    const small = new Engine({ threads: 2, memoryBudget: '1MiB', spillDir });
    try {
      const want = valuesDigest((await inner(unbounded).execute()).table);
      const executed = await inner(small).execute();
      const viaStream = await streamed(inner(small));
      expect(valuesDigest(executed.table)).toBe(want);
      expect(valuesDigest(viaStream.table)).toBe(want);
      for (const stats of [executed.stats, viaStream.stats]) {
        expect(stats.peakTrackedBytes).toBeLessThanOrEqual(small.budget.limit);
        expect(stats.overflowBytes).toBe(0);
      }
      expect(small.budget.used).toBe(0);
    } finally {
      await unbounded.close();
      await small.close();
      rmSync(spillDir, { recursive: true, force: true });
    }
  });
});

describe('the workers asked to collect after each run', () => {
  it('never hold up the next run: back-to-back small runs at 2 threads all succeed', async () => {
    // Each run's end asks every worker to collect (a task each); runs that end faster than
    // those finish once piled them up past piscina's queue ("Task queue is at limit").
    const engine = new Engine({ threads: 2, partitions: 7 });
    try {
      const t = new A.Table({ k: A.makeVector(Int32Array.from({ length: 50 }, (_, i) => i % 3)), v: A.makeVector(Float64Array.from({ length: 50 }, (_, i) => i)) });
      for (let run = 0; run < 60; run++) {
        const out = await engine.fromArrow(t).window({ partitionBy: 'k', orderBy: 'v', columns: { s: sum('v').rows(2) } }).collect();
        expect(out.numRows).toBe(50);
      }
    } finally {
      await engine.close();
    }
  });
});

describe('collected output columns the system refuses to allocate', () => {
  it('are an ExecutionError MEMORY_EXHAUSTED, and the stage gives back every reservation it took', async () => {
    // Not bounded by the budget, collected outputs can be more than the machine maps: 2^33
    // rows of int64 ask for a 64 GiB shared buffer, which V8 refuses.
    const engine = new Engine({ threads: 1 });
    const ctx = engine.runContext(undefined);
    try {
      let err: unknown = null;
      try {
        new OutputRanges(ctx, 'window', [{ name: 's', type: { kind: 'int', bits: 64, signed: true }, nullable: true }], 2 ** 33, false, 0, true);
      } catch (e) {
        err = e;
      }
      expect(err).toMatchObject({ name: 'ExecutionError', code: 'MEMORY_EXHAUSTED' });
      expect(String((err as Error).message)).toMatch(/window: its output columns \(.*\) could not be allocated/);
      expect(engine.budget.used).toBe(0);
      expect(engine.budget.reservations()).toEqual([]);
    } finally {
      await ctx.close();
      await engine.close();
    }
  });
});
