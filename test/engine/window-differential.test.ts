/**
 * Window through the whole engine against the naive reference (test/support/window-reference,
 * written from API.md), on random tables and random calls of every window function
 * (test/support/window-arbitraries), across thread counts, partition counts, batch sizes and
 * memory budgets; and results bit-identical between any two settings.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directStaging } from '../../src/coordinator/partitioned.js';
import { PlanError } from '../../src/index.js';
import { refCall, SCHEMA, show } from '../support/window-arbitraries.js';
import { enginePool, type EngineSetting } from '../support/engines.js';
import { windowEngineProperty } from '../support/window-engine-property.js';
import { columnValues, makeTable, type JsValue } from '../support/tables.js';
import { compareWindowResults, type RefOut, type RefRow } from '../support/window-reference.js';
import type { WindowOptions } from '../../src/ops/window-spec.js';

const engineFor = enginePool();

async function runEngine(rows: RefRow[], opts: WindowOptions, s: EngineSetting, batch: number): Promise<Record<string, RefOut[]> | { error: string }> {
  const data = Object.fromEntries(SCHEMA.map((f) => [f.name, rows.map((r) => (r[f.name] ?? null) as JsValue)]));
  const table = makeTable(SCHEMA, data, batch);
  try {
    const out = await engineFor(s).fromArrow(table).window(opts).collect();
    return Object.fromEntries(Object.keys(opts.columns).map((name) => [name, columnValues(out, name) as RefOut[]]));
  } catch (e) {
    if (e instanceof PlanError) return { error: e.code };
    throw e;
  }
}

const property = (numRuns: number, least: number) => async () => {
  let checked = 0;
  await fc.assert(
    windowEngineProperty(async ({ rows, call, opts, s1, s2, b1, b2 }) => {
      const a = await runEngine(rows, opts, s1, b1);
      if ('error' in a) throw new Error(`unexpected PlanError ${a.error} for ${show(refCall(call))}`);
      checked++;
      expect(compareWindowResults(a, rows, SCHEMA, refCall(call)), show(refCall(call))).toEqual([]);
      const b = await runEngine(rows, opts, s2, b2);
      expect(b).toStrictEqual(a);
    }),
    { numRuns },
  );
  expect(checked).toBeGreaterThan(least);
};

describe('window through the engine vs the naive reference', () => {
  it('matches the reference and is identical across settings', property(200, 60));
});

// Direct outputs staged at every size (written task by task, then interleaved into row order):
// at the default threshold only inputs of 2^17 rows and more are.
describe('window with staged direct outputs vs the naive reference', () => {
  const minRows = directStaging.minRows;
  beforeAll(() => void (directStaging.minRows = 0));
  afterAll(() => void (directStaging.minRows = minRows));
  it('matches the reference and is identical across settings', property(120, 30));
});
