/**
 * asofJoin on DURATION keys (API.md: "DURATION keys compare as elapsed time"): `on` keys of
 * different units compared exactly (int64 extremes included), duration tolerances, `by`
 * duration keys; against the naive reference, across settings. Plus the PlanErrors: a duration
 * pairs only with a duration, and `by` durations need one unit.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PlanError } from '../../src/index.js';
import type { FieldDesc } from '../../src/types/column.js';
import { referenceAsof } from '../support/asof-reference.js';
import { BATCH_SIZES, enginePool, SETTINGS } from '../support/engines.js';
import { columnValues, makeTable, rowsOf, type JsValue } from '../support/tables.js';

const engineFor = enginePool();
const MAX = (1n << 63n) - 1n;
const MIN = -(1n << 63n);

const leftSchema: FieldDesc[] = [
  { name: 'k', type: { kind: 'duration', unit: 's' }, nullable: true },
  { name: 'g', type: { kind: 'duration', unit: 'ms' }, nullable: true },
  { name: 'lv', type: { kind: 'int', bits: 32, signed: true }, nullable: true },
];
const rightSchema: FieldDesc[] = [
  { name: 'k', type: { kind: 'duration', unit: 'ms' }, nullable: true },
  { name: 'g', type: { kind: 'duration', unit: 'ms' }, nullable: true },
  { name: 'rv', type: { kind: 'int', bits: 32, signed: true }, nullable: true },
];

const g = fc.constantFrom<JsValue>(0n, 1000n, null);
const leftRow = fc.record({
  k: fc.oneof(fc.bigInt({ min: -3n, max: 12n }), fc.constantFrom<JsValue>(null, MAX / 1000n, MIN / 1000n)),
  g,
  lv: fc.integer({ min: 0, max: 99 }),
});
const rightRow = fc.record({
  k: fc.oneof(fc.bigInt({ min: -3000n, max: 12000n }), fc.bigInt({ min: -3n, max: 12n }).map((s) => s * 1000n), fc.constantFrom<JsValue>(null, MAX, MIN)),
  g,
  rv: fc.integer({ min: 0, max: 99 }),
});

const options = fc.record({
  by: fc.constantFrom<undefined | string>(undefined, 'g'),
  direction: fc.constantFrom('backward', 'forward', 'nearest') as fc.Arbitrary<'backward' | 'forward' | 'nearest'>,
  tolerance: fc.constantFrom<undefined | string>(undefined, '0s', '1500ms', '2s', '1m'),
  allowExactMatches: fc.boolean(),
});

const columnsOf = (schema: FieldDesc[], rows: Array<Record<string, JsValue>>) => Object.fromEntries(schema.map((f) => [f.name, rows.map((r) => r[f.name]!)]));

describe('asofJoin on duration keys', () => {
  it('matches the reference (elapsed time, exact across units) and is identical across settings', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(leftRow, { maxLength: 30 }),
        fc.array(rightRow, { maxLength: 30 }),
        options,
        fc.constantFrom(...SETTINGS),
        fc.constantFrom(...BATCH_SIZES),
        async (left, right, opt, s, b) => {
          const joinOpts = { on: 'k', ...(opt.by ? { by: opt.by } : {}), direction: opt.direction, ...(opt.tolerance ? { tolerance: opt.tolerance } : {}), allowExactMatches: opt.allowExactMatches };
          const lcols = columnsOf(leftSchema, left as never);
          const rcols = columnsOf(rightSchema, right as never);
          const e = engineFor(s);
          const out = await e.fromArrow(makeTable(leftSchema, lcols, b)).asofJoin(e.fromArrow(makeTable(rightSchema, rcols, b)), joinOpts).collect();
          const lrows = rowsOf(leftSchema, lcols);
          const rrows = rowsOf(rightSchema, rcols);
          const match = referenceAsof(lrows, rrows, leftSchema, rightSchema, joinOpts);
          const rv = columnValues(out, 'rv');
          expect(rv).toEqual(match.map((m) => (m === null ? null : rrows[m]!.rv)));
          expect(columnValues(out, 'k_right')).toEqual(match.map((m) => (m === null ? null : rrows[m]!.k)));
        },
      ),
      { numRuns: 40 },
    );
  });

  it('a duration pairs only with a duration; by durations need one unit', async () => {
    const e = engineFor(SETTINGS[0]!);
    const ts: FieldDesc[] = [{ name: 'k', type: { kind: 'timestamp', unit: 'ms', timezone: null }, nullable: true }];
    const dur: FieldDesc[] = [{ name: 'k', type: { kind: 'duration', unit: 'ms' }, nullable: true }, { name: 'g', type: { kind: 'duration', unit: 's' }, nullable: true }];
    const t = (schema: FieldDesc[]) => e.fromArrow(makeTable(schema, Object.fromEntries(schema.map((f) => [f.name, [1n]]))));
    const err = async (p: Promise<unknown>) => {
      try {
        await p;
      } catch (x) {
        return x;
      }
      return null;
    };
    const e1 = await err(t(ts).asofJoin(t(dur), { on: 'k' }).collect());
    expect(e1).toBeInstanceOf(PlanError);
    expect((e1 as PlanError).code).toBe('KEY_TYPE_MISMATCH');
    const e2 = await err(t([...dur.slice(0, 1), { name: 'g', type: { kind: 'duration', unit: 'ms' }, nullable: true }]).asofJoin(t(dur), { on: 'k', by: 'g' }).collect());
    expect((e2 as PlanError).code).toBe('BY_TYPE_MISMATCH');
    // tolerance as a duration works on duration keys; a calendar unit does not
    const e3 = await err(t(dur).asofJoin(t(dur), { on: 'k', tolerance: '1mo' }).collect());
    expect((e3 as PlanError).code).toBe('CALENDAR_TOLERANCE');
    const ok = await t(dur).asofJoin(t(dur), { on: 'k', tolerance: '1s', by: 'g' }).collect();
    expect(ok.numRows).toBe(1);
  });
});
