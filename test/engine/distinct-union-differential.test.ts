/**
 * distinct, rename, drop and union through the whole engine against naive references: distinct
 * keeps the whole first row of each distinct tuple (NULL one value, NaN = NaN, -0 = 0) in input
 * order; rename/drop change the schema only; union gives this DataFrame's rows, then each
 * other's, in order. Identical across thread counts, partition counts, batch sizes and budgets.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BATCH_SIZES, enginePool, SETTINGS } from '../support/engines.js';
import { KEY_COLUMNS, rowArb, rowsOfTable, SCHEMA, tableOf } from '../support/relational-data.js';
import { refDistinct, type Row } from '../support/relational-reference.js';

const engineFor = enginePool();

describe('distinct through the engine vs the naive reference', () => {
  it('keeps the first row of each distinct tuple, in input order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(rowArb, { maxLength: 80 }),
        fc.uniqueArray(fc.constantFrom(...KEY_COLUMNS), { maxLength: 3 }),
        fc.constantFrom(...SETTINGS),
        fc.constantFrom(...SETTINGS),
        fc.constantFrom(...BATCH_SIZES),
        fc.constantFrom(...BATCH_SIZES),
        async (rows, names, s1, s2, b1, b2) => {
          const run = async (s: (typeof SETTINGS)[number], b: number) => rowsOfTable(await engineFor(s).fromArrow(tableOf(rows, b)).distinct(...names).collect());
          const got = await run(s1, b1);
          const cols = names.length > 0 ? names : KEY_COLUMNS;
          expect(got).toEqual(refDistinct(rows, cols, SCHEMA).map((i) => rows[i]));
          expect(await run(s2, b2)).toEqual(got);
        },
      ),
      { numRuns: 80 },
    );
  });
});

describe('rename, drop and union', () => {
  it('renames and drops columns without touching rows, and unions inputs in order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(rowArb, { maxLength: 20 }), { minLength: 1, maxLength: 4 }),
        fc.constantFrom(...SETTINGS),
        fc.constantFrom(...BATCH_SIZES),
        async (inputs, s, b) => {
          const e = engineFor(s);
          const frame = (rows: Row[]) => e.fromArrow(tableOf(rows, b)).rename({ s: 'str', i8: 'small' }).drop('f32', 'ts');
          const [head, ...rest] = inputs.map(frame);
          const got = rowsOfTable(await head!.union(...rest).collect());
          const want = inputs.flat().map((r) => {
            const { s: str, i8: small, f32: _f, ts: _t, ...others } = r;
            return { small, ...others, str };
          });
          expect(got.map((r) => Object.keys(r))).toEqual(want.map(() => ['small', 'u32', 'i64', 'f64', 'str', 'd', 'b']));
          expect(got).toEqual(want);
        },
      ),
      { numRuns: 40 },
    );
  });
});
