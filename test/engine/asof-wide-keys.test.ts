/**
 * asofJoin through the whole engine against the naive reference with int64 keys spread far
 * apart: the worker packs each side's group id with its range-reduced key into the radix sort's
 * words (src/worker/sort-keys packGroupAndExact), in one word up to 32 bits, two words up to 53
 * (cut at 22 or 32 bits), and keeps them apart beyond. Keys are k * spread + j, so ties, gaps
 * and tolerances still happen, with spans of about 2^20, 2^40 and 2^52 (a by key's groups then
 * take the total past 53 bits).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FieldDesc } from '../../src/types/column.js';
import { referenceAsof } from '../support/asof-reference.js';
import { batchSizeArb, enginePool, settingArb, SETTINGS } from '../support/engines.js';
import { columnValues, makeTable, rowsOf, type JsValue } from '../support/tables.js';

const engineFor = enginePool();
const I64 = { kind: 'int', bits: 64, signed: true } as const;
const leftSchema: FieldDesc[] = [
  { name: 'sym', type: { kind: 'utf8' }, nullable: true },
  { name: 'ts', type: I64, nullable: true },
  { name: 'lv', type: { kind: 'int', bits: 32, signed: true }, nullable: false },
];
const rightSchema: FieldDesc[] = [
  { name: 'sym', type: { kind: 'utf8' }, nullable: true },
  { name: 'ts', type: I64, nullable: true },
  { name: 'rv', type: { kind: 'int', bits: 32, signed: true }, nullable: false },
];

const SPREADS = [2n ** 15n, 2n ** 35n, 2n ** 47n];
const sym = fc.constantFrom<JsValue>('A', 'B', 'C', 'D', 'E', null);

/** `nullTs`: some keys NULL; without, a side's key takes the worker's scaled-words form (src/ops/asof-normalize ScaledWordsKey) where it fits. */
function rowArb(spread: bigint, payload: string, nullTs: boolean) {
  const value = fc.tuple(fc.integer({ min: -15, max: 30 }), fc.integer({ min: 0, max: 3 })).map(([k, j]) => BigInt(k) * spread + BigInt(j));
  const ts = nullTs ? fc.oneof({ weight: 9, arbitrary: value }, { weight: 1, arbitrary: fc.constant<bigint | null>(null) }) : value;
  return fc.record({ sym, ts, [payload]: fc.integer({ min: -9, max: 9 }) });
}

const options = fc.record({
  by: fc.constantFrom<undefined | string>(undefined, 'sym'),
  direction: fc.constantFrom('backward', 'forward', 'nearest') as fc.Arbitrary<'backward' | 'forward' | 'nearest'>,
  tolerance: fc.constantFrom<undefined | bigint>(undefined, 0n, 2n),
  allowExactMatches: fc.boolean(),
});

const columnsOf = (schema: FieldDesc[], rows: Array<Record<string, JsValue>>): Record<string, JsValue[]> =>
  Object.fromEntries(schema.map((f) => [f.name, rows.map((r) => r[f.name]!)]));

const INLINE_ONE_PARTITION = SETTINGS[0]!;

describe('asofJoin with widely spread int64 keys vs the naive reference', () => {
  // Small sides sort by insertion (below 64 rows); a few hundred rows in one partition take the radix sort.
  // Keys without NULLs: spans of 2^20 and 2^40 take the scaled-words form, 2^52's does not (past
  // 53 bits with the group id), both sides crossing zero.
  const cases = SPREADS.flatMap((spread) => [
    { spread, rows: 60, setting: settingArb, runs: 60, nullTs: true },
    { spread, rows: 400, setting: fc.constant(INLINE_ONE_PARTITION), runs: 8, nullTs: true },
    { spread, rows: 60, setting: settingArb, runs: 30, nullTs: false },
    { spread, rows: 400, setting: fc.constant(INLINE_ONE_PARTITION), runs: 8, nullTs: false },
  ]);
  for (const { spread, rows, setting: settingOf, runs, nullTs } of cases) {
    it(`keys k * 2^${spread.toString(2).length - 1} + j${nullTs ? ' or NULL' : ''}, up to ${rows} rows a side`, async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(rowArb(spread, 'lv', nullTs), { maxLength: rows, minLength: rows > 64 ? rows / 2 : 0 }),
          fc.array(rowArb(spread, 'rv', nullTs), { maxLength: rows, minLength: rows > 64 ? rows / 2 : 0 }),
          options,
          settingOf,
          batchSizeArb,
          async (left, right, opt, setting, batch) => {
            const joinOpts = { on: 'ts', by: opt.by, direction: opt.direction, tolerance: opt.tolerance, allowExactMatches: opt.allowExactMatches };
            const lcols = columnsOf(leftSchema, left);
            const rcols = columnsOf(rightSchema, right);
            const e = engineFor(setting);
            const out = await e.fromArrow(makeTable(leftSchema, lcols, batch)).asofJoin(e.fromArrow(makeTable(rightSchema, rcols, batch)), joinOpts).collect();
            const lrows = rowsOf(leftSchema, lcols);
            const rrows = rowsOf(rightSchema, rcols);
            const match = referenceAsof(lrows, rrows, leftSchema, rightSchema, joinOpts);
            expect(columnValues(out, 'lv')).toEqual(lrows.map((r) => r.lv));
            expect(columnValues(out, 'rv')).toEqual(match.map((m) => (m === null ? null : rrows[m]!.rv)));
          },
        ),
        { numRuns: runs },
      );
    });
  }
});
