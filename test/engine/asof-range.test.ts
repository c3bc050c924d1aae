/**
 * asofJoin without `by` keys is range-partitioned on the key (every thread gets work); each
 * range must still find matches in other ranges (the nearest rows below and above it).
 * Checked against the naive reference on tables big enough for many ranges, with clustered
 * keys, long gaps (empty ranges), duplicates, NULLs, tolerance and excluded exact matches.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FieldDesc } from '../../src/types/column.js';
import { referenceAsof } from '../support/asof-reference.js';
import { enginePool, SETTINGS } from '../support/engines.js';
import { columnValues, makeTable, rowsOf, type JsValue } from '../support/tables.js';

const engineFor = enginePool(64);
const left: FieldDesc[] = [
  { name: 'ts', type: { kind: 'timestamp', unit: 'ns', timezone: null }, nullable: true },
  { name: 'id', type: { kind: 'int', bits: 32, signed: true }, nullable: false },
];
const right: FieldDesc[] = [
  { name: 't', type: { kind: 'timestamp', unit: 'ns', timezone: null }, nullable: true },
  { name: 'v', type: { kind: 'int', bits: 32, signed: true }, nullable: false },
];
const BASE = 1_704_205_800_000_000_000n;

describe('asofJoin without by keys (range partitioning)', () => {
  it('explain() shows range partitioning', async () => {
    const e = engineFor(SETTINGS[2]!);
    const l = makeTable(left, { ts: [BASE], id: [1] });
    const r = makeTable(right, { t: [BASE], v: [1] });
    expect(await e.fromArrow(l).asofJoin(e.fromArrow(r), { on: ['ts', 't'] }).explain()).toMatch(/range-partitioned/);
    expect(await e.fromArrow(l).asofJoin(e.fromArrow(r), { on: ['ts', 't'], condition: 'v > 0' }).explain()).toMatch(/single task/);
  });

  it('matches the reference across ranges', async () => {
    const key = fc.oneof(
      { weight: 8, arbitrary: fc.bigInt({ min: 0n, max: 400n }).map((k) => BASE + k * 1000n) },
      { weight: 1, arbitrary: fc.bigInt({ min: 5000n, max: 5010n }).map((k) => BASE + k * 1000n) },
      { weight: 1, arbitrary: fc.constant<bigint | null>(null) },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(key, { minLength: 50, maxLength: 400 }),
        fc.array(key, { minLength: 0, maxLength: 300 }),
        fc.constantFrom('backward', 'forward', 'nearest') as fc.Arbitrary<'backward' | 'forward' | 'nearest'>,
        fc.constantFrom<undefined | string>(undefined, '0ns', '3us', '40us'),
        fc.boolean(),
        fc.constantFrom(...SETTINGS),
        async (lk, rk, direction, tolerance, allowExactMatches, s) => {
          const lcols = { ts: lk as JsValue[], id: lk.map((_, i) => i) };
          const rcols = { t: rk as JsValue[], v: rk.map((_, i) => i) };
          const opts = { on: ['ts', 't'] as [string, string], direction, tolerance, allowExactMatches };
          const e = engineFor(s);
          const out = await e.fromArrow(makeTable(left, lcols, 37)).asofJoin(e.fromArrow(makeTable(right, rcols, 23)), opts).collect();
          const match = referenceAsof(rowsOf(left, lcols), rowsOf(right, rcols), left, right, opts);
          expect(columnValues(out, 'id')).toEqual(lcols.id);
          expect(columnValues(out, 'v')).toEqual(match.map((m) => (m === null ? null : rcols.v[m]!)));
        },
      ),
      { numRuns: 60 },
    );
  });
});
