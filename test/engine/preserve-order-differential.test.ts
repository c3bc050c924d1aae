/**
 * preserveOrder: false (API.md: "the rows are the same, their order is not promised") on window
 * and asofJoin, against the naive references (test/support/window-reference, asof-reference):
 * every input row carries a unique id, the results are put back in id order and must then
 * equal the reference and the preserveOrder: true run exactly; across thread counts, partition
 * counts, batch sizes and budgets (the 64KiB setting spills everything). The same setting run
 * twice gives the same order (README: what is deterministic).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FieldDesc } from '../../src/types/column.js';
import type { WindowOptions } from '../../src/ops/window-spec.js';
import { ASOF_LEFT_KEYS, ASOF_RIGHT_SCHEMA, asofLeftKeyArbs, asofRightRow } from '../support/asof-arbitraries.js';
import { referenceAsof } from '../support/asof-reference.js';
import { batchSizeArb, enginePool, settingArb, type EngineSetting } from '../support/engines.js';
import { columnValues, makeTable, rowsOf, type JsValue } from '../support/tables.js';
import { refCall, SCHEMA, show } from '../support/window-arbitraries.js';
import { windowEngineProperty } from '../support/window-engine-property.js';
import { compareWindowResults, type RefOut, type RefRow } from '../support/window-reference.js';
import type * as A from 'apache-arrow';

const engineFor = enginePool();
const ID: FieldDesc = { name: 'rid', type: { kind: 'int', bits: 32, signed: true }, nullable: false };

/** Every column of `out` put in `id` order; checks each id 0..n-1 appears exactly once. */
function byId(out: A.Table, id: string, n: number): { columns: Record<string, JsValue[]>; ids: number[] } {
  const ids = columnValues(out, id) as number[];
  const at = new Array<number>(n).fill(-1);
  ids.forEach((r, k) => {
    expect(at[r], `row id ${r} twice`).toBe(-1);
    at[r] = k;
  });
  const present = at.filter((k) => k >= 0);
  const columns = Object.fromEntries(out.schema.fields.map((f) => {
    const v = columnValues(out, f.name);
    return [f.name, present.map((k) => v[k]!)];
  }));
  return { columns, ids };
}

describe('window with preserveOrder: false vs the naive reference', () => {
  it('gives the same rows as the reference and as preserveOrder: true, in a repeatable order', async () => {
    let checked = 0;
    await fc.assert(
      windowEngineProperty(async ({ rows, call, opts, s1, s2, b1, b2 }) => {
        const schema = [...SCHEMA, ID];
        const data = { ...Object.fromEntries(SCHEMA.map((f) => [f.name, rows.map((r) => (r[f.name] ?? null) as JsValue)])), rid: rows.map((_, i) => i) };
        const run = (s: EngineSetting, b: number, o: WindowOptions) => engineFor(s).fromArrow(makeTable(schema, data, b)).window(o).collect();
        const unordered = await run(s1, b1, { ...opts, preserveOrder: false });
        expect(unordered.numRows).toBe(rows.length);
        const got = byId(unordered, 'rid', rows.length);
        checked++;
        const outputs = Object.fromEntries(Object.keys(opts.columns).map((name) => [name, got.columns[name] as RefOut[]]));
        expect(compareWindowResults(outputs, rows as RefRow[], SCHEMA, refCall(call)), show(refCall(call))).toEqual([]);
        // Same rows, bit for bit, as the ordered run, in any other setting.
        const ordered = await run(s2, b2, opts);
        expect(got.columns).toStrictEqual(Object.fromEntries(ordered.schema.fields.map((f) => [f.name, columnValues(ordered, f.name)])));
        expect(byId(await run(s2, b2, { ...opts, preserveOrder: false }), 'rid', rows.length).columns).toStrictEqual(got.columns);
        // The same setting again: the same order.
        expect(columnValues(await run(s1, b1, { ...opts, preserveOrder: false }), 'rid')).toStrictEqual(got.ids);
      }),
      { numRuns: 120 },
    );
    expect(checked).toBeGreaterThan(40);
  });
});

const leftSchema: FieldDesc[] = [...ASOF_LEFT_KEYS, { name: 'lid', type: { kind: 'int', bits: 32, signed: true }, nullable: false }];
const rightSchema = ASOF_RIGHT_SCHEMA;
const leftRow = fc.record(asofLeftKeyArbs);
const rightRow = asofRightRow;
const asofOptions = fc.record({
  by: fc.constantFrom<undefined | string | string[]>(undefined, 'sym', ['sym', 'venue']),
  direction: fc.constantFrom('backward', 'forward', 'nearest') as fc.Arbitrary<'backward' | 'forward' | 'nearest'>,
  tolerance: fc.constantFrom<undefined | number>(undefined, 0, 3),
  allowExactMatches: fc.boolean(),
  how: fc.constantFrom('left', 'inner') as fc.Arbitrary<'left' | 'inner'>,
  nullsEqual: fc.boolean(),
  condition: fc.constantFrom<string | undefined>(undefined, 'rv > 0'),
});

describe('asofJoin with preserveOrder: false vs the naive reference', () => {
  it('gives the left rows with their matches (inner: the matched ones), in a repeatable order', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(leftRow, { maxLength: 40 }), fc.array(rightRow, { maxLength: 40 }), asofOptions, settingArb, batchSizeArb, async (left, right, opt, s, b) => {
        const joinOpts = { on: 'ts', ...opt, ...(opt.condition ? {} : { condition: undefined }) };
        const lcols: Record<string, JsValue[]> = { ...Object.fromEntries(['sym', 'ts', 'venue'].map((k) => [k, left.map((r) => r[k as keyof typeof r])])), lid: left.map((_, i) => i) };
        const rcols: Record<string, JsValue[]> = Object.fromEntries(rightSchema.map((f) => [f.name, right.map((r) => r[f.name as keyof typeof r])]));
        const run = async () => {
          const e = engineFor(s);
          return e.fromArrow(makeTable(leftSchema, lcols, b)).asofJoin(e.fromArrow(makeTable(rightSchema, rcols, b)), { ...joinOpts, preserveOrder: false }).collect();
        };
        const out = await run();
        const got = byId(out, 'lid', left.length);

        const lrows = rowsOf(leftSchema, lcols);
        const rrows = rowsOf(rightSchema, rcols);
        const cond = opt.condition ? (r: Record<string, unknown>) => (r.rv === null ? null : (r.rv as bigint) > 0n) : undefined;
        const match = referenceAsof(lrows, rrows, leftSchema, rightSchema, joinOpts, cond);
        const byNames = new Set(opt.by === undefined ? [] : typeof opt.by === 'string' ? [opt.by] : opt.by);
        const rightOut = rightSchema.filter((f) => !byNames.has(f.name));
        const outName = (n: string) => (leftSchema.some((f) => f.name === n) ? `${n}_right` : n);
        const expected: Record<string, JsValue[]> = Object.fromEntries([...leftSchema.map((f) => f.name), ...rightOut.map((f) => outName(f.name))].map((n) => [n, []]));
        lrows.forEach((l, i) => {
          const m = match[i]!;
          if (m === null && opt.how === 'inner') return;
          for (const f of leftSchema) expected[f.name]!.push(l[f.name]!);
          for (const f of rightOut) expected[outName(f.name)]!.push(m === null ? null : rrows[m]![f.name]!);
        });
        expect(got.columns).toStrictEqual(expected);
        expect(columnValues(await run(), 'lid')).toStrictEqual(got.ids);
      }),
      { numRuns: 120 },
    );
  });
});
