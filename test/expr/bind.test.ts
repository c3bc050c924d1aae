import { describe, expect, it } from 'vitest';
import * as arrow from 'apache-arrow';
import type { Data } from 'apache-arrow';
import { bindExpr, bindPredicate, expandSelect } from '../../src/expr/bind.js';
import { evaluate } from '../../src/expr/evaluate.js';
import { col, lit, expr, cardinality } from '../../src/expr/builders.js';
import { PlanError } from '../../src/errors.js';
import type { FieldDesc, TypeDesc } from '../../src/types/column.js';
import { typeToString } from '../../src/types/column.js';
import { T, values } from './helpers.js';

const structT: TypeDesc = { kind: 'struct', children: [{ name: 'x', type: T.i32, nullable: true }, { name: 'y', type: T.utf8, nullable: true }] };
const schema: FieldDesc[] = [
  { name: 'a', type: T.i32, nullable: false },
  { name: 'b', type: T.i64, nullable: true },
  { name: 'u', type: T.u32, nullable: false },
  { name: 'f', type: T.f32, nullable: false },
  { name: 's', type: T.utf8, nullable: true },
  { name: 'p', type: T.bool, nullable: true },
  { name: 'st', type: structT, nullable: true },
  { name: 'ts', type: T.tsms, nullable: true },
  { name: 'tz', type: { kind: 'timestamp', unit: 'us', timezone: 'UTC' }, nullable: true },
  { name: 'x', type: T.i8, nullable: true },
];

function planError(f: () => unknown, code: string, ...fragments: string[]): void {
  let err: unknown;
  try {
    f();
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(PlanError);
  expect((err as PlanError).code).toBe(code);
  for (const frag of fragments) expect((err as PlanError).message).toContain(frag);
}

const typeOf = (e: ReturnType<typeof col>) => typeToString(bindExpr(e.node, schema).type);

describe('bindExpr: types', () => {
  it('promotes numerics', () => {
    expect(typeOf(col('a').add(col('b')))).toBe('int64');
    expect(typeOf(col('a').add(col('u')))).toBe('int64');
    expect(typeOf(col('a').add(col('f')))).toBe('float64');
    expect(typeOf(col('f').mul(2.5))).toBe('float32');
    expect(typeOf(col('x').add(1))).toBe('int8');
    expect(typeOf(col('x').add(1000))).toBe('int64');
    expect(typeOf(col('a').div(2))).toBe('float64');
    expect(typeOf(col('u').neg())).toBe('int64');
  });
  it('nullability and names', () => {
    const e = bindExpr(col('a').add(col('u')).node, schema);
    expect(e.nullable).toBe(false);
    expect(e.name).toBe('(a + u)');
    expect(bindExpr(col('a').div(col('u')).node, schema).nullable).toBe(true);
    expect(bindExpr(col('a').alias('z').node, schema).name).toBe('z');
    expect(bindExpr(col('st').field('y').node, schema).name).toBe('y');
    expect(bindExpr(col('a').isNull().node, schema).nullable).toBe(false);
  });
  it('bound trees are JSON and structured-clone safe', () => {
    const e = bindExpr(expr("b > 9223372036854775807 - 1 OR ts > '2024-01-01' OR f = 0.1").node, schema);
    expect(JSON.parse(JSON.stringify(e))).toEqual(e);
    expect(structuredClone(e)).toEqual(e);
  });
});

describe('bindExpr: errors', () => {
  it('unknown columns list the available ones', () => {
    planError(() => bindExpr(col('nope').node, schema), 'UNKNOWN_COLUMN', '"nope"', '"a"', '"st"');
  });
  it('type mismatches', () => {
    planError(() => bindExpr(col('s').add(1).node, schema), 'TYPE_MISMATCH', 's');
    planError(() => bindExpr(col('a').eq('x').node, schema), 'TYPE_MISMATCH');
    planError(() => bindExpr(col('a').and(col('p')).node, schema), 'TYPE_MISMATCH');
    planError(() => bindExpr(col('ts').lt(col('tz')).node, schema), 'TYPE_MISMATCH');
    planError(() => bindExpr(col('a').field('x').node, schema), 'TYPE_MISMATCH');
    planError(() => bindExpr(col('st').field('zz').node, schema), 'UNKNOWN_FIELD', 'zz', '"x"');
    planError(() => bindExpr(col('st').cast('int32').node, schema), 'INVALID_CAST');
    planError(() => bindExpr(col('st').flatten().node, schema), 'INVALID_FLATTEN');
    planError(() => bindPredicate(col('a').node, schema), 'NOT_BOOLEAN');
    planError(() => col('a').cast('decimal'), 'UNKNOWN_TYPE');
    planError(() => bindExpr(cardinality('s').node, schema), 'TYPE_MISMATCH', 'cardinality');
  });
});

describe('expandSelect and flatten', () => {
  it('flatten gives one column per field, named by the fields', () => {
    const items = expandSelect([col('a').node, col('st').flatten().node, col('a').mul(2).node], schema);
    expect(items.map((i) => i.name)).toEqual(['a', 'x', 'y', '(a * 2)']);
    const sd = arrow.vectorFromArray([{ x: 1, y: 'p' }, null, { x: null, y: 'r' }], arrow.makeVector(arrow.makeData({ type: new arrow.Struct([new arrow.Field('x', new arrow.Int32()), new arrow.Field('y', new arrow.Utf8())]), length: 0, children: [arrow.makeData({ type: new arrow.Int32() }), arrow.makeData({ type: new arrow.Utf8(), valueOffsets: new Int32Array(1) })] })).type).data[0] as Data;
    const cols: Data[] = schema.map(() => sd);
    cols[0] = arrow.vectorFromArray([1, 2, 3], new arrow.Int32()).data[0] as Data;
    cols[6] = sd;
    const out = items.map((i) => values(evaluate(i.expr, cols, 3)));
    expect(out).toEqual([[1, 2, 3], [1, null, null], ['p', null, 'r'], [2, 4, 6]]);
    // sliced struct input
    const sl = sd.slice(1, 2);
    cols[0] = cols[0].slice(1, 2);
    cols[6] = sl;
    expect(values(evaluate(items[2].expr, cols, 2))).toEqual([null, 'r']);
  });
  it('rejects duplicate output names', () => {
    planError(() => expandSelect([col('x').node, col('st').flatten().node], schema), 'DUPLICATE_COLUMN', '"x"');
    planError(() => expandSelect([col('a').node, lit(1).alias('a').node], schema), 'DUPLICATE_COLUMN');
  });
});
