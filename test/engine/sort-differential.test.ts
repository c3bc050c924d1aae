/**
 * sort through the whole engine against the naive reference (test/support/relational-reference):
 * random tables with every key type class, NULLs and duplicates, one to three keys with random
 * directions and NULL placement (a column may come twice); the output must be the reference's stable order exactly, and
 * identical across thread counts, partition counts, batch sizes and budgets, and whether the
 * input is a table in memory (sampled before it is partitioned: routed by range in one pass) or
 * a one-shot async iterable (ingested whole, sampled on the way, then routed by range).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BATCH_SIZES, enginePool, SETTINGS } from '../support/engines.js';
import { KEY_COLUMNS, rowArb, rowsOfTable, tableOf } from '../support/relational-data.js';
import { refSort, type RefSortKey } from '../support/relational-reference.js';

const engineFor = enginePool();

const sortKey: fc.Arbitrary<RefSortKey> = fc.record(
  { column: fc.constantFrom(...KEY_COLUMNS), descending: fc.boolean(), nulls: fc.constantFrom<'first' | 'last'>('first', 'last') },
  { requiredKeys: ['column'] },
);

describe('sort through the engine vs the naive reference', () => {
  it('gives the reference order, identical across settings', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(rowArb, { maxLength: 80 }),
        // keys may repeat a column (DuckDB and Polars take that; the repeat never changes the order)
        fc.array(sortKey, { minLength: 1, maxLength: 4 }),
        fc.constantFrom(...SETTINGS),
        fc.constantFrom(...SETTINGS),
        fc.constantFrom(...BATCH_SIZES),
        fc.constantFrom(...BATCH_SIZES),
        fc.boolean(),
        async (rows, keys, s1, s2, b1, b2, oneShot) => {
          const input = (b: number, once: boolean) => {
            const t = tableOf(rows, b);
            if (!once || t.batches.length === 0) return t;
            return (async function* () {
              yield* t.batches;
            })();
          };
          const run = async (s: (typeof SETTINGS)[number], b: number, once: boolean) => rowsOfTable(await engineFor(s).fromArrow(input(b, once)).sort(...keys).collect());
          const got = await run(s1, b1, false);
          expect(got).toEqual(refSort(rows, keys).map((i) => rows[i]));
          expect(await run(s2, b2, oneShot)).toEqual(got);
        },
      ),
      { numRuns: 80 },
    );
  });

  it('sorts many rows with one hot key by (key, input order) across many ranges', async () => {
    const rows = Array.from({ length: 5000 }, (_, i) => ({ i8: i % 7 === 0 ? 1 : (i * 31) % 5, u32: i, i64: null, f64: null, f32: null, s: null, d: null, ts: null, b: null }));
    for (const s of [{ threads: 2, partitions: 64 }, { threads: 0, partitions: 7 }]) {
      const out = rowsOfTable(await engineFor(s).fromArrow(tableOf(rows, 333)).sort({ column: 'i8', descending: true }).collect());
      expect(out).toEqual(refSort(rows, [{ column: 'i8', descending: true }]).map((i) => rows[i]));
    }
  });
});
