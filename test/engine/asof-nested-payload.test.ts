/**
 * ASOF join payload columns of nested types (lists, structs) on either side: only the `by` and
 * `on` columns are keys; the rest ride along whatever their type, with and without `by`, with
 * the order restored or not, inline and on threads.
 */
import * as A from 'apache-arrow';
import { afterAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src/index.js';

const engines = [new Engine({ threads: 0 }), new Engine({ threads: 2, partitions: 3 })];
afterAll(() => Promise.all(engines.map((e) => e.close())));

const list = new A.List(new A.Field('item', new A.Int32(), true));
const struct = new A.Struct([new A.Field('u', new A.Int32(), true)]);

const left = new A.Table({
  sym: A.vectorFromArray(['a', 'b', 'a', 'b'], new A.Utf8()),
  t: A.vectorFromArray([10, 10, 20, 30], new A.Int32()),
  tags: A.vectorFromArray([[1], null, [], [2, 3]], list),
});
const right = new A.Table({
  sym: A.vectorFromArray(['a', 'b', 'a'], new A.Utf8()),
  t: A.vectorFromArray([5, 9, 15], new A.Int32()),
  xs: A.vectorFromArray([[7, 8], null, [9]], list),
  st: A.vectorFromArray([{ u: 1 }, null, { u: 3 }], struct),
});

const rowsOf = (t: A.Table): unknown[] => t.toArray().map((r) => JSON.parse(JSON.stringify(r.toJSON(), (_k, v) => (v instanceof A.Vector ? [...v] : v))));

describe.each(engines.map((e, i) => [i === 0 ? 'inline' : '2 threads', e] as const))('asofJoin with list and struct payloads (%s)', (_label, engine) => {
  it.each([true, false])('by sym, backward (preserveOrder %s)', async (preserveOrder) => {
    const out = await engine.fromArrow(left).asofJoin(engine.fromArrow(right), { on: 't', by: 'sym', preserveOrder }).collect();
    const got = rowsOf(out);
    const want = [
      { sym: 'a', t: 10, tags: [1], t_right: 5, xs: [7, 8], st: { u: 1 } },
      { sym: 'b', t: 10, tags: null, t_right: 9, xs: null, st: null },
      { sym: 'a', t: 20, tags: [], t_right: 15, xs: [9], st: { u: 3 } },
      { sym: 'b', t: 30, tags: [2, 3], t_right: 9, xs: null, st: null },
    ];
    // preserveOrder: false streams partition by partition: compare as sets of rows
    const key = (r: unknown): string => JSON.stringify(r);
    expect(preserveOrder ? got : [...got].sort((a, b) => key(a).localeCompare(key(b)))).toEqual(preserveOrder ? want : [...want].sort((a, b) => key(a).localeCompare(key(b))));
  });

  it('no by (the key-range path), nearest', async () => {
    const out = await engine.fromArrow(left).asofJoin(engine.fromArrow(right), { on: 't', direction: 'nearest' }).collect();
    // t 10 and 10 are nearest to 9 (xs NULL), 20 and 30 to 15
    expect(rowsOf(out).map((r) => (r as { xs: unknown }).xs)).toEqual([null, null, [9], [9]]);
  });
});
