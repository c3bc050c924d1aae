/**
 * Column types beyond the differential tests' key classes: large strings as keys (hashed,
 * grouped, sorted through narrowed offsets) and nested payload columns (lists, structs, NULL
 * structs) carried through group-by first/last, joins and sorts, with and without spilling.
 */
import * as A from 'apache-arrow';
import { afterAll, describe, expect, it } from 'vitest';
import { count, Engine, first, last } from '../../src/index.js';

const engines = [new Engine({ threads: 2, partitions: 3, slabRows: 2 }), new Engine({ threads: 0, partitions: 5, slabRows: 1, memoryBudget: '64KiB' })];
afterAll(() => Promise.all(engines.map((e) => e.close())));

const item = new A.Field('item', new A.Int32(), true);
const t = new A.Table({
  k: A.vectorFromArray([1, 2, 1, null, 2], new A.Int32()),
  l: A.vectorFromArray([[1, 2], [], null, [3], [4, 5, 6]], new A.List(item)),
  st: A.vectorFromArray([{ a: 1, b: 'x' }, { a: 2, b: 'y' }, null, { a: 4, b: null }, { a: 5, b: 'z' }], new A.Struct([new A.Field('a', new A.Int32(), true), new A.Field('b', new A.Utf8(), true)])),
  s: A.vectorFromArray(['p', 'q', 'p', 'é', 'q'], new A.LargeUtf8()),
});
const r = new A.Table({ s: A.vectorFromArray(['q', 'p', 'zz'], new A.LargeUtf8()), rl: A.vectorFromArray([[7], null, [8, 9]], new A.List(item)) });
const json = (tab: A.Table) => JSON.parse(JSON.stringify(tab.toArray().map((x) => x.toJSON()), (_k, v) => (typeof v === 'bigint' ? Number(v) : v))) as unknown[];

describe.each(engines.map((e, i) => [i, e] as const))('engine %i', (_i, e) => {
  it('groups by a large string key, taking nested values', async () => {
    const out = await e.fromArrow(t).groupBy('s').agg({ n: count(), fl: first('l'), ls: last('st') }).collect();
    expect(json(out)).toEqual([
      { s: 'p', n: 2, fl: [1, 2], ls: null },
      { s: 'q', n: 2, fl: [], ls: { a: 5, b: 'z' } },
      { s: 'é', n: 1, fl: [3], ls: { a: 4, b: null } },
    ]);
  });

  it('joins on a large string key with list payloads on both sides', async () => {
    const out = await e.fromArrow(t).join(e.fromArrow(r), { on: 's', how: 'full' }).select('k', 'l', 's', 'rl').collect();
    expect(json(out)).toEqual([
      { k: 1, l: [1, 2], s: 'p', rl: null },
      { k: 2, l: [], s: 'q', rl: [7] },
      { k: 1, l: null, s: 'p', rl: null },
      { k: null, l: [3], s: 'é', rl: null },
      { k: 2, l: [4, 5, 6], s: 'q', rl: [7] },
      { k: null, l: null, s: 'zz', rl: [8, 9] },
    ]);
  });

  it('sorts by a large string key, descending, stable', async () => {
    const out = await e.fromArrow(t).sort({ column: 's', descending: true }).select('s', 'k').collect();
    expect(json(out)).toEqual([
      { s: 'é', k: null },
      { s: 'q', k: 2 },
      { s: 'q', k: 2 },
      { s: 'p', k: 1 },
      { s: 'p', k: 1 },
    ]);
  });
});
