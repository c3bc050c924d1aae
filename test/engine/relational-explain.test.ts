/**
 * explain() of the relational verbs names the partitioning, the sort keys and the algorithms
 * each stage uses (API.md "DataFrame": explain).
 */
import * as A from 'apache-arrow';
import { afterAll, describe, expect, it } from 'vitest';
import { count, countDistinct, Engine, sum } from '../../src/index.js';

const engine = new Engine({ threads: 2, partitions: 5 });
afterAll(() => engine.close());
const t = A.tableFromArrays({ id: Int32Array.from([1, 2]), ts: BigInt64Array.from([1n, 2n]), s: ['a', 'b'] });
const df = engine.fromArrow(t);

describe('explain() of the relational verbs', () => {
  it('sort', async () => {
    const text = await df.sort('s', { column: 'ts', descending: true }).explain();
    expect(text).toContain('Sort (s ASC NULLS FIRST, ts DESC NULLS LAST), stable');
    expect(text).toContain('range-partitioned on sampled quantiles of (s, ts, row id) into 5 ranges or more');
    expect(text).toContain('LSD radix argsort');
  });

  it('groupBy, agg, distinct', async () => {
    const g = await df.groupBy('s').agg({ n: count(), total: sum('ts'), k: countDistinct('id') }).explain();
    expect(g).toContain('GroupBy (s)');
    expect(g).toContain('partitioning: hash(s) into 5 partitions');
    expect(g).toContain('total = sum(ts): differences of one running prefix (exact, 64-bit wrapping)');
    expect(g).toContain('k = countDistinct(id): distinct (group, value) pairs by hash, NULL ignored');
    expect(g).toContain('groups in order of first appearance');
    expect(await df.agg({ n: count() }).explain()).toContain('none (no keys): 1 partition');
    expect(await df.distinct('s').explain()).toContain('Distinct on (s): the whole first row of each distinct tuple');
  });

  it('join, with mixed-unit keys', async () => {
    const right = engine.fromArrow(A.tableFromArrays({ id: BigInt64Array.from([1n]), v: Float64Array.from([1]) }));
    const text = await df.join(right, { on: 'id', how: 'full' }).explain();
    expect(text).toContain('HashJoin full on id');
    expect(text).toContain('hash(id) on both sides into 5 partitions, same seed');
    expect(text).toContain('hash table on the smaller side');
    expect(text).toContain('then unmatched right rows in right input order');
    expect(await df.join(right, { on: 'id', how: 'anti' }).explain()).toContain('each non-matching left row once, left columns only');
  });

  it('rename, drop, union', async () => {
    const text = await df.rename({ s: 'name' }).drop('ts').union(df.rename({ s: 'name' }).drop('ts')).explain();
    expect(text).toContain('Union (2 inputs, one after the other, streaming)');
    expect(text).toContain('Project (drop ts; no copy) [id: int32, name: utf8]');
    expect(text).toContain('Project (rename s -> name; no copy)');
  });
});
