/**
 * PlanErrors of the relational verbs, raised by the method or before any row is read, with
 * stable codes and messages that name the column, the value and what was expected; options
 * objects get UNKNOWN_OPTION with "did you mean".
 */
import * as A from 'apache-arrow';
import { afterAll, describe, expect, it } from 'vitest';
import { count, Engine, PlanError, sum, WindowFn } from '../../src/index.js';
import { max } from '../../src/index.js';

const engine = new Engine({ threads: 0 });
afterAll(() => engine.close());

const t = A.tableFromArrays({ id: Int32Array.from([1, 2]), u: BigUint64Array.from([1n, 2n]), s: ['a', 'b'], f: Float64Array.from([1, 2]) });
const df = engine.fromArrow(t);
const other = engine.fromArrow(A.tableFromArrays({ id: BigInt64Array.from([1n]), s: ['x'], v: Float64Array.from([1]) }));

async function planError(make: () => { schema(): Promise<unknown> }): Promise<PlanError> {
  try {
    await make().schema();
  } catch (err) {
    expect(err).toBeInstanceOf(PlanError);
    return err as PlanError;
  }
  throw new Error('expected a PlanError');
}

describe('relational PlanErrors', () => {
  it.each([
    ['sort unknown column', () => df.sort('nope'), 'UNKNOWN_COLUMN', /sort\(\): unknown column "nope"; available columns: "id", "u", "s", "f"/],
    ['sort without keys', () => df.sort(), 'NO_SORT_KEYS', /at least one sort key/],
    ['sort bad nulls', () => df.sort({ column: 'id', nulls: 'middle' as 'first' }), 'BAD_OPTION', /Expected one of "first", "last", got "middle"/],
    ['sort option typo', () => df.sort({ column: 'id', desc: true } as never), 'UNKNOWN_OPTION', /did you mean `descending`/],
    ['groupBy unknown key', () => df.groupBy('idd').agg({ n: count() }), 'UNKNOWN_COLUMN', /groupBy\(\): unknown column "idd"/],
    ['groupBy duplicate key', () => df.groupBy('id', 'id').agg({ n: count() }), 'DUPLICATE_COLUMN', /"id" is given twice/],
    ['agg name clash', () => df.groupBy('id').agg({ id: count() }), 'NAME_CLASH', /already a group key/],
    ['agg sum of strings', () => df.groupBy('id').agg({ x: sum('s') }), 'MEASURE_TYPE', /sum\("s"\) needs an integer, decimal, float32 or float64 column, but "s" is utf8/],
    ['agg with a frame', () => df.groupBy('id').agg({ x: sum('f').rows(3) }), 'INVALID_AGGREGATE', /takes no frame/],
    ['agg of a non-aggregate', () => df.groupBy('id').agg({ x: new WindowFn({ fn: 'rank' as never, column: null, frame: null }) }), 'INVALID_AGGREGATE', /rank\(\) is not a group-by aggregate/],
    ['agg without aggregates', () => df.agg({}), 'NO_AGGREGATES', /at least one aggregate/],
    ['agg of a plain value', () => df.groupBy('id').agg({ x: 5 as never }), 'BAD_OPTION', /Expected an aggregate such as sum\('tokens'\)/],
    ['distinct unknown column', () => df.distinct('zz'), 'UNKNOWN_COLUMN', /distinct\(\): unknown column "zz"/],
    ['join unknown key', () => df.join(other, { on: 'idx' }), 'UNKNOWN_COLUMN', /join\(\) `on` \(left side\): unknown column "idx"/],
    ['join key types', () => df.join(other, { on: [['s', 'id']] }), 'KEY_TYPE_MISMATCH', /keys "s" \(utf8, string\) and "id" \(int64, integer\) cannot be compared/],
    ['join how', () => df.join(other, { on: 'id', how: 'outer' as 'full' }), 'BAD_OPTION', /Expected one of "inner", "left", "right", "full", "semi", "anti", got "outer"/],
    ['join option typo', () => df.join(other, { on: 'id', sufix: '_r' } as never), 'UNKNOWN_OPTION', /did you mean `suffix`/],
    ['join USING uint64 with int64', () => engine.fromArrow(A.tableFromArrays({ id: BigUint64Array.from([1n]) })).join(other, { on: 'id', how: 'full' }), 'USING_KEY_TYPE', /no one type holds uint64 and int64/],
    ['join right not a DataFrame', () => df.join(t as never, { on: 'id' }), 'BAD_OPTION', /`right`: Expected a DataFrame/],
    ['rename unknown column', () => df.rename({ idd: 'x' }), 'UNKNOWN_COLUMN', /rename\(\): unknown column "idd"/],
    ['rename to a taken name', () => df.rename({ id: 's' }), 'DUPLICATE_COLUMN', /two columns named "s"/],
    ['drop unknown column', () => df.drop('nope'), 'UNKNOWN_COLUMN', /drop\(\): unknown column "nope"/],
    ['drop everything', () => df.drop('id', 'u', 's', 'f'), 'EMPTY_SELECT', /would leave no column/],
    ['union other columns', () => df.union(other), 'UNION_SCHEMA', /input 1 \(0 is this DataFrame\) has 3 columns/],
    ['union other types', () => df.select('id').union(other.select('id')), 'UNION_SCHEMA', /column "id" is int64 where this DataFrame has int32; cast one side/],
  ])('%s', async (_name, make, code, message) => {
    let err: PlanError;
    try {
      err = await planError(make as () => { schema(): Promise<unknown> });
    } catch (e) {
      // raised by the method itself
      err = e as PlanError;
    }
    expect(err).toBeInstanceOf(PlanError);
    expect(err.code).toBe(code);
    expect(err.message).toMatch(message);
  });

  it('an action raises the same PlanError before running', async () => {
    await expect(df.groupBy('nope').agg({ m: max('f') }).collect()).rejects.toMatchObject({ name: 'PlanError', code: 'UNKNOWN_COLUMN' });
    await expect(df.join(other, { on: [['s', 'id']] }).execute()).rejects.toMatchObject({ name: 'PlanError', code: 'KEY_TYPE_MISMATCH' });
  });
});
