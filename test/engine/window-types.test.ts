/**
 * Window results of every type through the engine: takes (lag/lead/first/last/min/max) of
 * strings, binary, decimals, lists and structs, decimal sums, across thread counts, partition
 * counts, batch sizes and budgets (direct and routed outputs), all identical.
 */
import * as A from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { first, lag, last, lead, max, min, rank, sum } from '../../src/index.js';
import { enginePool, SETTINGS } from '../support/engines.js';

const engineFor = enginePool();

function table(batch: number): A.Table {
  const n = 9;
  const t = A.vectorFromArray([5, 3, 8, 1, 9, 2, 7, 4, 6], new A.Int32());
  const p = A.vectorFromArray(['a', 'b', 'a', 'b', 'a', 'b', 'a', 'b', 'a'], new A.Utf8());
  const s = A.vectorFromArray(['e', null, 'é', 'b', '', 'zz', null, 'a', 'é'], new A.Utf8());
  const l = A.vectorFromArray([[1], [], null, [2, 3], [4], null, [5, 6, 7], [8], []], new A.List(new A.Field('item', new A.Int32(), true)));
  const st = A.vectorFromArray(
    [{ x: 1, y: 'u' }, null, { x: 3, y: null }, { x: 4, y: 'v' }, { x: 5, y: 'w' }, { x: 6, y: 'x' }, null, { x: 8, y: 'y' }, { x: 9, y: 'z' }],
    new A.Struct([new A.Field('x', new A.Int32(), true), new A.Field('y', new A.Utf8(), true)]),
  );
  const words = new Uint32Array(4 * n);
  [125n, -50n, 10n ** 30n, 0n, 1n, -(10n ** 30n), 99999n, 7n, -7n].forEach((v, i) => {
    const u = BigInt.asUintN(128, v);
    for (let k = 0; k < 4; k++) words[4 * i + k] = Number((u >> BigInt(32 * k)) & 0xffffffffn);
  });
  const d = new A.Vector([A.makeData({ type: new A.Decimal(2, 38, 128), length: n, nullCount: 0, data: words })]);
  const whole = new A.Table({ t, p, s, l, st, d });
  const batches: A.RecordBatch[] = [];
  for (let i = 0; i < n; i += batch) batches.push(...whole.slice(i, Math.min(n, i + batch)).batches);
  return new A.Table(whole.schema, batches);
}

const plain = (v: unknown): unknown => {
  if (v === null || v === undefined) return null;
  if (v instanceof A.Vector) return [...v].map(plain);
  if (typeof v === 'object') return JSON.parse(JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x)));
  return v;
};

describe('window results of every type', () => {
  it('are right and identical across settings', async () => {
    const columns = {
      ls: lag('s', 1, '-'),
      ll: lag('l'),
      fs: first('st').rows(1, 0),
      lst: last('st').rows(0, 1).ignoreNulls(),
      mn: min('s').rows('unbounded', 0),
      mx: max('d').rows(1, 1),
      nd: lead('d', 1, '0.5'),
      sd: sum('d').rows(1),
      r: rank(),
    };
    const results: unknown[] = [];
    for (const s of SETTINGS) {
      for (const b of [1, 4, 9]) {
        const out = await engineFor(s).fromArrow(table(b)).window({ partitionBy: 'p', orderBy: 't', columns }).collect();
        results.push(Object.fromEntries(Object.keys(columns).map((k) => [k, [...out.getChild(k)!].map(plain)])));
      }
    }
    for (const r of results) expect(r).toEqual(results[0]);
    const r = results[0] as Record<string, unknown[]>;
    // partition a in t order: input rows 0, 8, 6, 2, 4; partition b: input rows 3, 5, 1, 7
    expect(r.ls).toEqual(['-', 'zz', null, '-', 'é', 'b', 'é', null, 'e']);
    expect(r.ll).toEqual([null, null, [5, 6, 7], null, null, [2, 3], [], [], [1]]);
    expect(r.mn).toEqual(['e', 'b', 'e', 'b', '', 'b', 'e', 'a', 'e']);
    expect(r.fs).toEqual([{ x: 1, y: 'u' }, { x: 6, y: 'x' }, null, { x: 4, y: 'v' }, { x: 3, y: null }, { x: 4, y: 'v' }, { x: 9, y: 'z' }, null, { x: 1, y: 'u' }]);
    expect(r.lst).toEqual([{ x: 9, y: 'z' }, { x: 8, y: 'y' }, { x: 5, y: 'w' }, { x: 6, y: 'x' }, { x: 5, y: 'w' }, { x: 6, y: 'x' }, { x: 3, y: null }, { x: 8, y: 'y' }, { x: 9, y: 'z' }]);
    expect(r.r).toEqual([1n, 3n, 4n, 1n, 5n, 2n, 3n, 4n, 2n]);
    expect(String((await engineFor(SETTINGS[0]!).fromArrow(table(9)).window({ orderBy: 't', columns: { sd: sum('d') } }).schema()).fields[6]!.type)).toBe('Decimal[38e+2]');
  });
});
