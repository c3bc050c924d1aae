/**
 * Skew (issue 8): a window partition larger than the memory budget (one hot PARTITION BY key,
 * or no partitionBy at all) runs in sort ranges, in order, each task seeing its neighbour
 * ranges and the carry of the ranges before (src/coordinator/window-ranges.ts). Results are
 * bit-identical to an unbounded run and match the naive reference; the small runs spill, their
 * tracked peak stays within the budget, no task outgrows its loan, every reservation is back to
 * zero. count / sum / avg over unbounded frame sides (running, to UNBOUNDED FOLLOWING, whole
 * partition; integer and float measures) come from the states of the rows outside the loaded
 * ones, carried forward or from the suffix pass, as do percentRank / cumeDist / ntile. What the
 * neighbours and those states cannot answer (unbounded sides of other functions, frames wider
 * than a range) is PARTITION_TOO_LARGE, never a wrong result. Float measures have full
 * mantissas, so a sum folded in another order shows in the bits.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Engine } from '../../src/index.js';
import type { FieldDesc } from '../../src/types/column.js';
import { engineOptions, refOptions, W, type Both } from '../support/window-fns.js';
import { budgetEngines } from '../support/engines.js';
import { rng } from '../support/random.js';
import { columnValues, makeTable, streamed, valuesDigest, type JsValue } from '../support/tables.js';
import { compareWindowResults, type RefOut, type RefRow } from '../support/window-reference.js';

const engine = budgetEngines();

const SCHEMA: FieldDesc[] = [
  { name: 'k', type: { kind: 'int', bits: 32, signed: true }, nullable: true },
  { name: 't', type: { kind: 'int', bits: 64, signed: true }, nullable: true },
  { name: 'v', type: { kind: 'int', bits: 64, signed: true }, nullable: true },
  { name: 'f', type: { kind: 'float', bits: 64 }, nullable: true },
];

/** n rows, `hot` of them under key 3 (the rest over a few keys and NULL); order keys with ties (and NULLs off the hot key); measures with NULLs. */
function table(n: number, hot: number, seed: number): Record<string, JsValue[]> {
  const r = rng(seed);
  const cols: Record<string, JsValue[]> = { k: [], t: [], v: [], f: [] };
  for (let i = 0; i < n; i++) {
    const isHot = r() < hot;
    cols.k!.push(isHot ? 3 : r() < 0.1 ? null : Math.floor(r() * 5));
    // NULL order keys outside the hot key only: they are one peer group, which RANGE and
    // GROUPS frames span whole (a peer group wider than a range is PARTITION_TOO_LARGE).
    cols.t!.push(!isHot && r() < 0.05 ? null : BigInt(Math.floor(r() * n * (r() < 0.3 ? 0.2 : 2))));
    cols.v!.push(r() < 0.05 ? null : BigInt(Math.floor(r() * 2000) - 1000));
    // full mantissas and mixed magnitudes: float sums round, so their order shows in the bits
    cols.f!.push(r() < 0.05 ? null : (r() - 0.3) * 10 ** (r() * 6));
  }
  return cols;
}

/** Window columns whose needs a range's neighbours cover. */
const SUPPORTED: Record<string, Both> = {
  s3: W.sum('v').rows(3),
  a: W.avg('v').rows(10, 2),
  fs: W.sum('f').rows(4, 4),
  sd: W.stddev('f').rows(6),
  mn: W.min('f').rows(5, 1),
  mx: W.max('v').rows(2, 7).minPeriods(3),
  c: W.count('v').rows(2, 2),
  cr: W.count().rows(0, 3),
  cd: W.countDistinct('v').rows(8),
  fv: W.first('f').rows(4).ignoreNulls(),
  lv: W.last('v').rows(3, 3),
  nv: W.nthValue('f', 2).rows(5),
  rg: W.sum('v').range(3, 1),
  gr: W.count('v').groups(1, 1),
  rs: W.sum('v').rows('unbounded', 0),
  rs2: W.sum('v').rows('unbounded', 2).minPeriods(40),
  rc: W.count('v'),
  rcp: W.count('v').rows('unbounded', -2),
  rcr: W.count().range('unbounded', 0),
  rn: W.rowNumber(),
  rk: W.rank(),
  dr: W.denseRank(),
  lg: W.lag('v', 2),
  ld: W.lead('f', 1, 0.5),
  li: W.lag('v').ignoreNulls(),
  // Unbounded sides of count / sum / avg, from the states of the rows outside (window-outside).
  rf: W.sum('f').rows('unbounded', 0),
  ra: W.avg('v'),
  raf: W.avg('f').rows('unbounded', 1),
  uf: W.sum('v').rows(0, 'unbounded'),
  ufc: W.count().rows(2, 'unbounded'),
  ufa: W.avg('f').rows(1, 'unbounded'),
  ufs: W.sum('f').rows(-1, 'unbounded').minPeriods(3),
  ru: W.sum('v').range(2, 'unbounded'),
  wh: W.sum('f').rows('unbounded', 'unbounded'),
  wc: W.count('v').rows('unbounded', 'unbounded'),
  wa: W.avg('v').rows('unbounded', 'unbounded'),
  pr: W.percentRank(),
  cu: W.cumeDist(),
  nt: W.ntile(4),
};

function run(e: Engine, cols: Record<string, JsValue[]>, columns: Record<string, Both>, partitionBy: boolean) {
  const opts = engineOptions({ ...(partitionBy ? { partitionBy: 'k' } : {}), orderBy: 't', columns });
  return e.fromArrow(makeTable(SCHEMA, cols, 4096)).window(opts).execute();
}

function rowsOf(cols: Record<string, JsValue[]>): RefRow[] {
  return cols.k!.map((_, i) => ({ k: cols.k![i]!, t: cols.t![i]!, v: cols.v![i]!, f: cols.f![i]! }));
}

describe('window over a partition larger than the budget', () => {
  it.each([
    ['one hot partitionBy key', true, 2],
    ['no partitionBy', false, 1],
  ])('%s holding over 10x the budget: bit-identical to an unbounded run, within budget, spilled', async (_name, partitionBy, threads) => {
    const cols = table(20_000, 0.9, 1);
    const base = await run(engine(1, '1GiB'), cols, SUPPORTED, partitionBy);
    // 2 MiB: over 10x less than the unbounded run takes for the hot partition (asserted below).
    const small = engine(threads, '2MiB');
    const { table: out, stats } = await run(small, cols, SUPPORTED, partitionBy);
    expect(valuesDigest(out)).toBe(valuesDigest(base.table));
    // The unbounded run held the hot partition in one task: over 10x the small budget.
    expect(base.stats.peakTrackedBytes).toBeGreaterThan(10 * small.budget.limit);
    expect(stats.spilledBytes).toBeGreaterThan(0);
    expect(stats.peakTrackedBytes).toBeLessThanOrEqual(small.budget.limit);
    expect(stats.overflowBytes).toBe(0);
    expect(small.budget.used).toBe(0);
    expect(small.budget.reservations()).toEqual([]);
  });

  it.each([
    ['one hot partitionBy key', true, 2],
    ['no partitionBy', false, 1],
  ])('%s with preserveOrder: false: the same rows as an unbounded ordered run, range after range, in the same order every run, within budget', async (_name, partitionBy, threads) => {
    const cols = { ...table(20_000, 0.9, 4), rid: Array.from({ length: 20_000 }, (_, i) => i) };
    const schema: FieldDesc[] = [...SCHEMA, { name: 'rid', type: { kind: 'int', bits: 32, signed: true }, nullable: false }];
    const columns = { s3: SUPPORTED.s3!, rs: SUPPORTED.rs!, rk: SUPPORTED.rk!, lg: SUPPORTED.lg!, fv: SUPPORTED.fv! };
    const go = (e: Engine, preserveOrder: boolean) =>
      e.fromArrow(makeTable(schema, cols, 4096)).window({ ...engineOptions({ ...(partitionBy ? { partitionBy: 'k' } : {}), orderBy: 't', columns }), preserveOrder }).execute();
    const base = (await go(engine(1, '1GiB'), true)).table;
    const small = engine(threads, '2MiB');
    const { table: out, stats } = await go(small, false);
    const ids = columnValues(out, 'rid') as number[];
    // The rows left range by range, not in input order; put back in it, they are the ordered run's.
    expect(ids.some((r, k) => r !== k)).toBe(true);
    const byId = ids.map((_, k) => k).sort((a, b) => ids[a]! - ids[b]!);
    expect(valuesDigest(out, byId)).toBe(valuesDigest(base));
    expect(stats.cpuMs.route ?? 0).toBeGreaterThan(0);
    expect(stats.spilledBytes).toBeGreaterThan(0);
    expect(stats.peakTrackedBytes).toBeLessThanOrEqual(small.budget.limit);
    expect(stats.overflowBytes).toBe(0);
    expect(small.budget.used).toBe(0);
    expect(small.budget.reservations()).toEqual([]);
    expect(columnValues((await go(small, false)).table, 'rid')).toStrictEqual(ids);
  });

  it('no partitionBy and no orderBy (input order; ranges cut by row id only): as an unbounded run', async () => {
    const cols = table(20_000, 0.5, 5);
    const columns = { rn: W.rowNumber(), lg: W.lag('v'), c: W.count().rows('unbounded', 'unbounded') };
    const go = (e: Engine) => e.fromArrow(makeTable(SCHEMA, cols, 4096)).window(engineOptions({ columns }));
    const base = (await go(engine(1, '1GiB')).execute()).table;
    const small = engine(1, '2MiB');
    // Streamed: the outputs take the bounded path (execute() writes them into its result).
    const { table: out, stats } = await streamed(go(small));
    expect(valuesDigest(out)).toBe(valuesDigest(base));
    expect(columnValues(out, 'rn')).toEqual(Array.from({ length: 20_000 }, (_, i) => BigInt(i + 1)));
    expect(stats.spilledBytes).toBeGreaterThan(0);
    expect(stats.peakTrackedBytes).toBeLessThanOrEqual(small.budget.limit);
    expect(small.budget.used).toBe(0);
  });

  it('matches the naive reference and the unbounded run over sizes, budgets and threads', async () => {
    const names = Object.keys(SUPPORTED);
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1500, max: 6000 }),
        fc.constantFrom(0.6, 0.95, 1),
        fc.constantFrom('512KiB', '1MiB'),
        fc.constantFrom(0, 1, 2),
        fc.subarray(names, { minLength: 1, maxLength: 5 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 1000 }),
        async (n, hot, budget, threads, picked, partitionBy, seed) => {
          const cols = table(n, hot, seed);
          const columns = Object.fromEntries(picked.map((c) => [c, SUPPORTED[c]!]));
          const small = engine(threads, budget);
          const { table: out } = await run(small, cols, columns, partitionBy);
          const actual = Object.fromEntries(picked.map((c) => [c, columnValues(out, c) as RefOut[]]));
          const o = refOptions({ ...(partitionBy ? { partitionBy: 'k' } : {}), orderBy: 't', columns });
          expect(compareWindowResults(actual, rowsOf(cols), SCHEMA, o)).toEqual([]);
          expect(valuesDigest(out)).toBe(valuesDigest((await run(engine(1, '1GiB'), cols, columns, partitionBy)).table));
          expect(small.budget.used).toBe(0);
        },
      ),
      { numRuns: 4 },
    );
  });

  it.each<[string, Both]>([
    ['a whole-partition max', W.max('f').rows('unbounded', 'unbounded')],
    ['a running min (UNBOUNDED PRECEDING)', W.min('v').rows('unbounded', 0)],
    ['a last value to UNBOUNDED FOLLOWING', W.last('v').rows(0, 'unbounded')],
    ['a running float stddev', W.stddev('f').rows('unbounded', 0)],
    ['a ROWS frame wider than a range', W.sum('v').rows(5000)],
    ['a frame to UNBOUNDED FOLLOWING starting past a range', W.sum('v').rows(-5000, 'unbounded')],
  ])('%s on such a partition is PARTITION_TOO_LARGE naming the column, and the engine stays usable', async (_name, fn) => {
    const cols = table(20_000, 1, 2);
    const small = engine(1, '1MiB');
    const job = run(small, cols, { x: fn }, true);
    await expect(job).rejects.toMatchObject({ name: 'ExecutionError', code: 'PARTITION_TOO_LARGE', details: { column: 'x', budget: small.budget.limit } });
    await expect(job).rejects.toThrow(/raise memoryBudget/);
    expect(small.budget.used).toBe(0);
    expect(small.budget.reservations()).toEqual([]);
    const ok = await run(small, table(300, 1, 3), { x: fn }, true);
    expect(ok.table.numRows).toBe(300);
  });
});
