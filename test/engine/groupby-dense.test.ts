/**
 * A group-by on one integer key of the caller's tables whose values span a small range runs
 * without an exchange: straight into tables indexed by key value (src/coordinator/exec-groupby-dense).
 * Checked against the naive reference (test/support/relational-reference) on tables big
 * enough for that path (keys of every integer-like type, at offsets near ±2^40, NULL keys,
 * measures with NULLs and the int64 / uint64 extremes whose sums wrap), identical across thread
 * counts, slab and batch sizes and budgets; a key outside the sampled range hands the run
 * over to the hash group-by with the same result.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { avg, count, Engine, first, last, max, min, sum, type Progress, type WindowFn } from '../../src/index.js';
import type { FieldDesc, TypeDesc } from '../../src/types/column.js';
import { rng } from '../support/random.js';
import { rowsOfTable, tableOf } from '../support/relational-data.js';
import { checkGroupBy, type RefAgg, type Row } from '../support/relational-reference.js';

const int = (bits: 8 | 16 | 32 | 64, signed = true): TypeDesc => ({ kind: 'int', bits, signed });
const KEYS: Record<string, TypeDesc> = {
  k64: int(64),
  ku64: int(64, false),
  k32: int(32),
  ku32: int(32, false),
  k16: int(16),
  k8: int(8),
  ku16: int(16, false),
  kd: { kind: 'date', unit: 'day' },
  kts: { kind: 'timestamp', unit: 'us', timezone: null },
  kdur: { kind: 'duration', unit: 'ms' },
};
const MEASURES: Record<string, TypeDesc> = {
  m64: int(64),
  mu64: int(64, false),
  m32: int(32),
  mu32: int(32, false),
  m16: int(16),
  mu16: int(16, false),
  m8: int(8),
  mu8: int(8, false),
  md: { kind: 'date', unit: 'day' },
  mts: { kind: 'timestamp', unit: 'ms', timezone: 'UTC' },
  f: { kind: 'float', bits: 64 },
  s: { kind: 'utf8' },
  b: { kind: 'bool' },
};
const INTEGER_MEASURES = ['m64', 'mu64', 'm32', 'mu32', 'm16', 'mu16', 'm8', 'mu8'];
const SCHEMA: FieldDesc[] = [...Object.entries(KEYS), ...Object.entries(MEASURES)].map(([name, type]) => ({ name, type, nullable: true }));

const engines = new Map<string, Engine>();
const engineFor = (threads: number, memoryBudget: string, slabRows: number): Engine => {
  const key = `${threads}/${memoryBudget}/${slabRows}`;
  let e = engines.get(key);
  if (!e) engines.set(key, (e = new Engine({ threads, memoryBudget, slabRows })));
  return e;
};
afterAll(async () => {
  await Promise.all([...engines.values()].map((e) => e.close()));
});

const I64_MAX = (1n << 63n) - 1n;
const U64_MAX = (1n << 64n) - 1n;

/** A key type's least and greatest value used here (64-bit ones within ±2^52, as the dense path allows). */
function keyRange(t: TypeDesc): [number, number] {
  if (t.kind === 'int' && t.bits < 64) return t.signed ? [-(2 ** (t.bits - 1)), 2 ** (t.bits - 1) - 1] : [0, 2 ** t.bits - 1];
  if (t.kind === 'date') return [-(2 ** 31), 2 ** 31 - 1];
  return t.kind === 'int' && !t.signed ? [0, 2 ** 52] : [-(2 ** 52), 2 ** 52];
}

/** Rows from a seed: keys in [offset, offset + spread) (clamped to the key's type), one in `nullEvery` NULL. */
function rowsFrom(seed: number, n: number, key: string, offset: number, spread: number, nullEvery: number): Row[] {
  const r = rng(seed);
  const pick = (k: number): number => Math.floor(r() * k);
  const t = KEYS[key]!;
  const [tmin, tmax] = keyRange(t);
  const base = Math.max(tmin, Math.min(offset, tmax - spread + 1));
  const wide = t.kind === 'timestamp' || t.kind === 'duration' || (t.kind === 'int' && t.bits === 64);
  const rows: Row[] = [];
  for (let i = 0; i < n; i++) {
    const nul = (): boolean => pick(nullEvery) === 0;
    const kv = base + pick(spread);
    const row: Row = {};
    for (const name of Object.keys(KEYS)) row[name] = null;
    row[key] = nul() ? null : wide ? BigInt(kv) : kv;
    row.m64 = nul() ? null : pick(4) === 0 ? (pick(2) === 0 ? I64_MAX : -I64_MAX - 1n) : BigInt(pick(2001) - 1000);
    row.mu64 = nul() ? null : pick(4) === 0 ? U64_MAX - BigInt(pick(3)) : BigInt(pick(1000));
    row.m32 = nul() ? null : pick(2) === 0 ? 2 ** 31 - 1 - pick(3) : pick(2001) - 1000;
    row.mu32 = nul() ? null : pick(2) === 0 ? 2 ** 32 - 1 - pick(3) : pick(1000);
    row.m16 = nul() ? null : pick(65_536) - 32_768;
    row.mu16 = nul() ? null : pick(65_536);
    row.m8 = nul() ? null : pick(256) - 128;
    row.mu8 = nul() ? null : pick(256);
    row.md = nul() ? null : pick(40_000) - 20_000;
    row.mts = nul() ? null : BigInt(pick(2 ** 30)) * 1000n - 2n ** 40n;
    row.f = nul() ? null : pick(100) / 4;
    row.s = nul() ? null : ['', 'a', 'é', 'abcdefghijkl-x'][pick(4)]!;
    row.b = nul() ? null : pick(2) === 0;
    rows.push(row);
  }
  return rows;
}

/** A reference aggregate; first/last of the key may ignore NULLs (the same values: a group's keys are all NULL or none). */
type DenseAgg = RefAgg & { ignoreNulls?: boolean };

function build(a: DenseAgg): WindowFn {
  const c = a.column;
  switch (a.fn) {
    case 'sum':
      return sum(c!);
    case 'avg':
      return avg(c!);
    case 'min':
      return min(c!);
    case 'max':
      return max(c!);
    case 'first':
      return a.ignoreNulls ? first(c!).ignoreNulls() : first(c!);
    case 'last':
      return a.ignoreNulls ? last(c!).ignoreNulls() : last(c!);
    default:
      return c === null ? count() : count(c);
  }
}

const aggArb = (key: string): fc.Arbitrary<Omit<DenseAgg, 'name'>> =>
  fc.oneof(
    fc.record({ fn: fc.constant<RefAgg['fn']>('sum'), column: fc.constantFrom(...INTEGER_MEASURES) }),
    fc.record({ fn: fc.constantFrom<RefAgg['fn']>('min', 'max'), column: fc.constantFrom(...INTEGER_MEASURES, 'md', 'mts', key) }),
    fc.record({ fn: fc.constantFrom<RefAgg['fn']>('count'), column: fc.constantFrom(null, null, 'm64', 'f', 's', 'b', key) }),
    fc.record({ fn: fc.constantFrom<RefAgg['fn']>('first', 'last'), column: fc.constant(key), ignoreNulls: fc.boolean() }),
    // not for the dense path: the hash group-by runs instead
    { weight: 1, arbitrary: fc.record({ fn: fc.constantFrom<RefAgg['fn']>('avg', 'sum'), column: fc.constant('f') }) },
  );

async function run(e: Engine, rows: Row[], key: string, aggs: DenseAgg[], batch: number): Promise<{ rows: Row[]; dense: boolean; hashed: boolean }> {
  const { table, stats } = await e.fromArrow(tableOf(rows, batch, SCHEMA)).groupBy(key).agg(Object.fromEntries(aggs.map((a) => [a.name, build(a)]))).execute();
  return { rows: rowsOfTable(table), dense: (stats.cpuMs.denseAgg ?? -1) >= 0, hashed: (stats.cpuMs.groupBy ?? -1) >= 0 };
}

describe('dense group-by (tables indexed by key value)', () => {
  it('matches the reference and is identical across threads, slabs, batches and budgets', async () => {
    let dense = 0;
    let cases = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.integer(),
        fc.integer({ min: 0, max: 6000 }),
        fc.constantFrom(...Object.keys(KEYS)),
        fc.constantFrom(0, -5, 3_000_000_000, -(2 ** 40), 2 ** 40, 2 ** 52, -(2 ** 52)),
        fc.integer({ min: 1, max: 50 }),
        fc.constantFrom(3, 20, 1000),
        fc.constantFrom(0, 1, 2),
        fc.constantFrom(7, 1000, 4096),
        fc.constantFrom('4MiB', '256MiB'),
        async (seed, n, key, offset, spread, nullEvery, threads, slabRows, budget) => {
          const specs = fc.sample(fc.array(aggArb(key), { minLength: 1, maxLength: 4 }), { seed, numRuns: 1 })[0]!;
          const aggs: DenseAgg[] = specs.map((a, k) => ({ ...a, name: `a${k}` }));
          const rows = rowsFrom(seed, n, key, offset, spread, nullEvery);
          const got = await run(engineFor(threads, budget, slabRows), rows, key, aggs, 1 + (seed & 2047));
          expect(checkGroupBy(got.rows, rows, [key], aggs, SCHEMA)).toEqual([]);
          const again = await run(engineFor(2 - threads, '256MiB', 1 << 20), rows, key, aggs, 1 << 20);
          expect(again.rows).toEqual(got.rows);
          cases++;
          if (got.dense) dense++;
        },
      ),
      { numRuns: 60 },
    );
    // The property exercised the dense path, not only the hash group-by.
    expect(dense).toBeGreaterThan(cases / 10);
  });

  it('takes the dense path for 20,000 keys over 400k rows (a table past the second-level cache), and agrees with one thread', async () => {
    const rows = rowsFrom(7, 400_000, 'k64', 2 ** 40, 20_000, 50);
    const aggs: RefAgg[] = [
      { name: 's', fn: 'sum', column: 'm64' },
      { name: 'n', fn: 'count', column: null },
      { name: 'x', fn: 'max', column: 'mu64' },
      { name: 'y', fn: 'min', column: 'm32' },
    ];
    const two = await run(engineFor(2, '256MiB', 1 << 20), rows, 'k64', aggs, 30_000);
    expect(two.dense).toBe(true);
    expect(two.hashed).toBe(false);
    expect(checkGroupBy(two.rows, rows, ['k64'], aggs, SCHEMA)).toEqual([]);
    expect((await run(engineFor(0, '256MiB', 1000), rows, 'k64', aggs, 7_777)).rows).toEqual(two.rows);
  });

  it('hands over to the hash group-by when a key outside the sampled range turns up', async () => {
    const rows = rowsFrom(11, 50_000, 'k32', 0, 100, 30);
    // Row 40,001 is not among the sampled rows (every 128th): only its slab's task sees it.
    rows[40_001]!.k32 = 1_000_000_000;
    const aggs: RefAgg[] = [
      { name: 's', fn: 'sum', column: 'm32' },
      { name: 'n', fn: 'count', column: 'm64' },
      { name: 'k', fn: 'first', column: 'k32' },
    ];
    for (const threads of [0, 2]) {
      const got = await run(engineFor(threads, '256MiB', 4096), rows, 'k32', aggs, 3_000);
      expect(got.dense).toBe(true);
      expect(got.hashed).toBe(true);
      expect(checkGroupBy(got.rows, rows, ['k32'], aggs, SCHEMA)).toEqual([]);
    }
  });

  it('gives every output its value when two outputs compute the same thing', async () => {
    const rows = rowsFrom(3, 20_000, 'k32', -40, 200, 25);
    const aggs: DenseAgg[] = [
      { name: 'a', fn: 'count', column: null },
      { name: 'b', fn: 'count', column: null },
      { name: 'c', fn: 'sum', column: 'm64' },
      { name: 'd', fn: 'sum', column: 'm64' },
      { name: 'e', fn: 'max', column: 'm8' },
      { name: 'f', fn: 'max', column: 'm8' },
      { name: 'g', fn: 'count', column: 'm8' },
      { name: 'h', fn: 'first', column: 'k32' },
      { name: 'i', fn: 'last', column: 'k32', ignoreNulls: true },
    ];
    for (const threads of [0, 2]) {
      const got = await run(engineFor(threads, '256MiB', 1000), rows, 'k32', aggs, 1500);
      expect(got.dense).toBe(true);
      expect(checkGroupBy(got.rows, rows, ['k32'], aggs, SCHEMA)).toEqual([]);
    }
  });

  it('finishes within a small budget when a few rows are far bigger than the average (long strings counted)', async () => {
    const n = 4000;
    const rows = rowsFrom(5, n, 'k8', 0, 10, 1_000_000);
    const big = 'x'.repeat(10_000);
    rows.forEach((r, i) => (r.s = i >= n - 400 ? big : 'a'));
    const aggs: DenseAgg[] = [
      { name: 'n', fn: 'count', column: 's' },
      { name: 't', fn: 'sum', column: 'm32' },
    ];
    const got = await run(engineFor(2, '8MiB', 1 << 20), rows, 'k8', aggs, 4000);
    expect(got.dense).toBe(true);
    expect(checkGroupBy(got.rows, rows, ['k8'], aggs, SCHEMA)).toEqual([]);
  });

  it('hands over in the middle of a cut batch with a 64-bit key: the same groups, every row read once, progress that keeps its promises', async () => {
    const rows = rowsFrom(13, 30_000, 'k64', 2 ** 45, 60, 40);
    rows[25_003]!.k64 = -(2n ** 50n);
    const aggs: DenseAgg[] = [
      { name: 'n', fn: 'count', column: null },
      { name: 's', fn: 'sum', column: 'mu64' },
      { name: 'm', fn: 'min', column: 'mts' },
    ];
    const events: Progress[] = [];
    const e = new Engine({ threads: 2, memoryBudget: '1MiB', onProgress: (p) => events.push(p) });
    try {
      const { table, stats } = await e.fromArrow(tableOf(rows, 7_000, SCHEMA)).groupBy('k64').agg({ n: count(), s: sum('mu64'), m: min('mts') }).execute();
      expect(stats.cpuMs.denseAgg).toBeDefined();
      expect(stats.cpuMs.groupBy).toBeDefined();
      expect(stats.rowsIn).toBe(rows.length);
      expect(checkGroupBy(rowsOfTable(table), rows, ['k64'], aggs, SCHEMA)).toEqual([]);
      for (const phase of ['partition', 'kernel'] as const) {
        const mine = events.filter((p) => p.phase === phase);
        expect(mine.length).toBeGreaterThan(0);
        for (let k = 1; k < mine.length; k++) {
          expect(mine[k]!.done).toBeGreaterThanOrEqual(mine[k - 1]!.done);
          expect(mine[k]!.total).toBe(rows.length);
        }
        expect(mine.at(-1)!.done).toBe(rows.length);
      }
    } finally {
      await e.close();
    }
  });

  it('takes distinct() of one integer column too (its one output is the key), first appearances in order', async () => {
    const rows = rowsFrom(17, 30_000, 'k16', -300, 700, 20);
    const table = tableOf(rows, 4_000, SCHEMA.filter((f) => f.name === 'k16'));
    for (const threads of [0, 2]) {
      const { table: got, stats } = await engineFor(threads, '256MiB', 1 << 20).fromArrow(table).distinct().execute();
      expect(stats.cpuMs.denseAgg).toBeDefined();
      const seen = new Set<unknown>();
      const want: unknown[] = [];
      for (const r of rows) if (!seen.has(r.k16)) seen.add(r.k16), want.push(r.k16);
      expect(rowsOfTable(got).map((r) => r.k16)).toEqual(want);
    }
  });

  it('an abort in the middle ends the run with an AbortError and gives every table and loan back (the engine runs on)', async () => {
    const rows = rowsFrom(19, 40_000, 'k32', 0, 100, 30);
    const table = tableOf(rows, 2_000, SCHEMA);
    for (const threads of [0, 2]) {
      const controller = new AbortController();
      const e = new Engine({ threads, memoryBudget: '8MiB', slabRows: 2_000, onProgress: (p) => p.phase === 'kernel' && p.done > 0 && controller.abort() });
      try {
        const run = e.fromArrow(table).groupBy('k32').agg({ n: count(), s: sum('m64') }).execute({ signal: controller.signal });
        await expect(run).rejects.toMatchObject({ name: 'AbortError', code: 'ABORTED' });
        expect(e.budget.used).toBe(0);
        // Every reservation given back (nothing of the budget used between runs), and the same
        // run again is right.
        for (let k = 0; k < 3; k++) {
          const { table: got, stats } = await e.fromArrow(table).groupBy('k32').agg({ n: count(), s: sum('m64') }).execute();
          expect(stats.cpuMs.denseAgg).toBeDefined();
          expect(checkGroupBy(rowsOfTable(got), rows, ['k32'], [{ name: 'n', fn: 'count', column: null }, { name: 's', fn: 'sum', column: 'm64' }], SCHEMA)).toEqual([]);
          expect(e.budget.used).toBe(0);
        }
      } finally {
        await e.close();
      }
    }
  });
});
