import { describe, expect, it } from 'vitest';
import { col, lit, expr } from '../../src/expr/builders.js';
import { T, table, run, pred, runData } from './helpers.js';
import { bindExpr } from '../../src/expr/bind.js';
import { evaluate } from '../../src/expr/evaluate.js';

describe('evaluate: basics', () => {
  const t = table({
    a: [T.i32, [1, 2, null, 4]],
    b: [T.i32, [10, 0, 3, null]],
    s: [T.utf8, ['x', 'é', null, 'abc']],
    f: [T.f64, [1.5, NaN, 2, -0]],
    p: [T.bool, [true, false, null, true]],
    q: [T.bool, [null, null, null, false]],
  });
  it('arithmetic with NULL propagation and literal broadcast', () => {
    expect(run(t, col('a').add(col('b')))).toEqual([11, 2, null, null]);
    expect(run(t, col('a').mul(2))).toEqual([2, 4, null, 8]);
    expect(run(t, lit(100).sub(col('a')))).toEqual([99, 98, null, 96]);
  });
  it('integer / gives float64 and NULL on zero; % follows the dividend', () => {
    expect(run(t, col('a').div(col('b')))).toEqual([0.1, null, null, null]);
    expect(run(t, lit(-7).mod(col('a')))).toEqual([-0, -1, null, -3].map((x) => (x === 0 ? 0 : x)));
    expect(run(t, col('a').mod(0))).toEqual([null, null, null, null]);
  });
  it('comparisons, strings and NaN ordering', () => {
    expect(run(t, col('a').gt(1))).toEqual([false, true, null, true]);
    expect(run(t, col('s').eq('é'))).toEqual([false, true, null, false]);
    expect(run(t, col('s').lt('b'))).toEqual([false, false, null, true]);
    expect(run(t, col('f').gt(1e300))).toEqual([false, true, false, false]);
    expect(run(t, col('f').eq(0))).toEqual([false, false, false, true]);
  });
  it('three-valued logic', () => {
    expect(run(t, col('p').and(col('q')))).toEqual([null, false, null, false]);
    expect(run(t, col('p').or(col('q')))).toEqual([true, null, null, true]);
    expect(run(t, col('p').not())).toEqual([false, true, null, false]);
    expect(pred(t, col('p').or(col('q')))).toEqual([1, 0, 0, 1]);
  });
  it('expr() SQL text end to end', () => {
    expect(run(t, expr('a * 2 + 1 > 4 AND s IS NOT NULL'))).toEqual([false, true, false, true]);
    expect(run(t, expr("CAST(a AS utf8)"))).toEqual(['1', '2', null, '4']);
  });
  it('constant folding returns a broadcast column', () => {
    const d = runData(t, lit(1).add(2));
    expect(d.length).toBe(4);
    expect(run(t, lit(1).add(2))).toEqual([3n, 3n, 3n, 3n]);
  });
});

describe('evaluate: buffers', () => {
  const t = table({ a: [T.i32, [1, 2, 3]], s: [T.utf8, ['a', 'b', null]] });
  it('results live on SharedArrayBuffers by default, or come from the given allocator', () => {
    const d = runData(t, col('a').add(1));
    expect(d.values.buffer).toBeInstanceOf(SharedArrayBuffer);
    const s = runData(t, col('s').cast('utf8').eq('a'));
    expect((s.values as Uint8Array).buffer).toBeInstanceOf(SharedArrayBuffer);
    let calls = 0;
    const b = bindExpr(col('a').mul(3).node, t.schema);
    const out = evaluate(b, t.columns, 3, (ctor, n) => {
      calls++;
      return new ctor(n);
    });
    expect(calls).toBeGreaterThan(0);
    expect(out.values.buffer).toBeInstanceOf(ArrayBuffer);
  });
  it('expression trees from the builders survive JSON and structuredClone', () => {
    const e = col('a').add(lit(2n ** 64n)).mul(lit(NaN)).or(lit(-0).eq(col('b'))).alias('z');
    expect(structuredClone(e.node)).toEqual(e.node);
    expect(JSON.parse(JSON.stringify(e.node))).toEqual(e.node);
  });
});
