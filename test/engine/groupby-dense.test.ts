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
import { count, Engine, first, last, max, min, sum, avg, type WindowFn } from '../../src/index.js';
import type { FieldDesc, TypeDesc } from '../../src/types/column.js';
import { rng } from '../support/random.js';
import { rowsOfTable, tableOf } from '../support/relational-data.js';
import { checkGroupBy, type RefAgg, type Row } from '../support/relational-reference.js';

const int = (bits: 8 | 16 | 32 | 64, signed = true): TypeDesc => ({ kind: 'int', bits, signed });
const KEYS: Record<string, TypeDesc> = {
  k64: int(64),
  k32: int(32),
  k8: int(8),
  ku16: int(16, false),
  kd: { kind: 'date', unit: 'day' },
  kts: { kind: 'timestamp', unit: 'us', timezone: null },
};
const MEASURES: Record<string, TypeDesc> = {
  m64: int(64),
  mu64: int(64, false),
  m32: int(32),
  m8: int(8),
  md: { kind: 'date', unit: 'day' },
  f: { kind: 'float', bits: 64 },
};
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

/** Rows from a seed: keys in [offset, offset + spread) (clamped to the key's type), one in `nullEvery` NULL. */
function rowsFrom(seed: number, n: number, key: string, offset: number, spread: number, nullEvery: number): Row[] {
  const r = rng(seed);
  const pick = (k: number): number => Math.floor(r() * k);
  const t = KEYS[key]!;
  // The key type's range: offsets outside it are clamped.
  const [tmin, tmax] = t.kind === 'int' && t.bits === 8 ? [-128, 127] : t.kind === 'int' && t.bits === 16 ? [0, 65_535] : t.kind === 'int' && t.bits === 32 || t.kind === 'date' ? [-(2 ** 31), 2 ** 31 - 1] : [-(2 ** 52), 2 ** 52];
  const base = Math.max(tmin, Math.min(offset, tmax - spread + 1));
  const rows: Row[] = [];
  for (let i = 0; i < n; i++) {
    const nul = (): boolean => pick(nullEvery) === 0;
    const kv = base + pick(spread);
    const row: Row = {};
    for (const name of Object.keys(KEYS)) row[name] = null;
    row[key] = nul() ? null : t.kind === 'timestamp' || (t.kind === 'int' && t.bits === 64) ? BigInt(kv) : kv;
    row.m64 = nul() ? null : pick(4) === 0 ? (pick(2) === 0 ? I64_MAX : -I64_MAX - 1n) : BigInt(pick(2001) - 1000);
    row.mu64 = nul() ? null : pick(4) === 0 ? U64_MAX - BigInt(pick(3)) : BigInt(pick(1000));
    row.m32 = nul() ? null : pick(2) === 0 ? 2 ** 31 - 1 - pick(3) : pick(2001) - 1000;
    row.m8 = nul() ? null : pick(256) - 128;
    row.md = nul() ? null : pick(40_000) - 20_000;
    row.f = nul() ? null : pick(100) / 4;
    rows.push(row);
  }
  return rows;
}

function build(a: RefAgg): WindowFn {
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
      return first(c!);
    case 'last':
      return last(c!);
    default:
      return c === null ? count() : count(c);
  }
}

const aggArb = (key: string): fc.Arbitrary<Omit<RefAgg, 'name'>> =>
  fc.oneof(
    fc.record({ fn: fc.constant<RefAgg['fn']>('sum'), column: fc.constantFrom('m64', 'mu64', 'm32', 'm8') }),
    fc.record({ fn: fc.constantFrom<RefAgg['fn']>('min', 'max'), column: fc.constantFrom('m64', 'mu64', 'm32', 'm8', 'md', key) }),
    fc.record({ fn: fc.constantFrom<RefAgg['fn']>('count'), column: fc.constantFrom(null, 'm64', 'f', key) }),
    fc.record({ fn: fc.constantFrom<RefAgg['fn']>('first', 'last'), column: fc.constant(key) }),
    // not for the dense path: the hash group-by runs instead
    { weight: 1, arbitrary: fc.record({ fn: fc.constantFrom<RefAgg['fn']>('avg', 'sum'), column: fc.constant('f') }) },
  );

async function run(e: Engine, rows: Row[], key: string, aggs: RefAgg[], batch: number): Promise<{ rows: Row[]; dense: boolean; hashed: boolean }> {
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
        fc.constantFrom(0, -5, 3_000_000_000, -(2 ** 40), 2 ** 40),
        fc.integer({ min: 1, max: 50 }),
        fc.constantFrom(3, 20, 1000),
        fc.constantFrom(0, 1, 2),
        fc.constantFrom(7, 1000, 4096),
        fc.constantFrom('4MiB', '256MiB'),
        async (seed, n, key, offset, spread, nullEvery, threads, slabRows, budget) => {
          const specs = fc.sample(fc.array(aggArb(key), { minLength: 1, maxLength: 4 }), { seed, numRuns: 1 })[0]!;
          const aggs: RefAgg[] = specs.map((a, k) => ({ ...a, name: `a${k}` }));
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

  it('takes the dense path for 5,000 keys over 200k rows, and agrees with one thread', async () => {
    const rows = rowsFrom(7, 200_000, 'k64', 2 ** 40, 5_000, 50);
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
});
