/** Test helpers: build arrow Data from JS values, read results back, bind+evaluate shortcuts. */
import * as arrow from 'apache-arrow';
import type { Data } from 'apache-arrow';
import type { FieldDesc, TypeDesc } from '../../src/types/column.js';
import { typeToArrow } from '../../src/expr/arrow-types.js';
import { bindExpr, bindPredicate } from '../../src/expr/bind.js';
import { evaluate, evaluatePredicate } from '../../src/expr/evaluate.js';
import type { Expr } from '../../src/expr/builders.js';
import { toExprNode } from '../../src/expr/builders.js';

export const T = {
  i8: { kind: 'int', bits: 8, signed: true },
  i16: { kind: 'int', bits: 16, signed: true },
  i32: { kind: 'int', bits: 32, signed: true },
  i64: { kind: 'int', bits: 64, signed: true },
  u8: { kind: 'int', bits: 8, signed: false },
  u32: { kind: 'int', bits: 32, signed: false },
  u64: { kind: 'int', bits: 64, signed: false },
  f32: { kind: 'float', bits: 32 },
  f64: { kind: 'float', bits: 64 },
  bool: { kind: 'bool' },
  utf8: { kind: 'utf8' },
  date32: { kind: 'date', unit: 'day' },
  tsms: { kind: 'timestamp', unit: 'ms', timezone: null },
} satisfies Record<string, TypeDesc>;

export function column(type: TypeDesc, values: unknown[]): Data {
  if (type.kind === 'date' || type.kind === 'timestamp') {
    // raw stored counts (days, or units since the epoch), bypassing arrow's Date conversions
    const n = values.length;
    const data = type.kind === 'date' && type.unit === 'day' ? new Int32Array(n) : new BigInt64Array(n);
    const bits = new Uint8Array((n + 7) >> 3);
    values.forEach((v, i) => {
      if (v === null) return;
      bits[i >> 3] |= 1 << (i & 7);
      (data as Int32Array)[i] = (data instanceof BigInt64Array ? BigInt(v as bigint) : Number(v)) as number;
    });
    return arrow.makeData({ type: typeToArrow(type), length: n, nullBitmap: bits, data } as never) as Data;
  }
  return arrow.vectorFromArray(values as never[], typeToArrow(type) as never).data[0] as Data;
}

/** Values of a Data as JS (bigints for 64-bit, arrays for lists, objects for structs). */
export function values(d: Data): unknown[] {
  if (arrow.DataType.isDate(d.type) || arrow.DataType.isTimestamp(d.type)) {
    // raw stored counts (vector.get() returns lossy milliseconds)
    return Array.from({ length: d.length }, (_, i) => (d.getValid(i) ? (d.values as ArrayLike<unknown>)[i] : null));
  }
  const v = arrow.makeVector(d);
  const out: unknown[] = [];
  for (let i = 0; i < v.length; i++) out.push(plain(v.get(i)));
  return out;
}

function plain(x: unknown): unknown {
  if (x === null || x === undefined) return null;
  if (x instanceof arrow.Vector) return [...x].map(plain);
  if (typeof x === 'object' && x !== null && 'toJSON' in x) return (x as { toJSON(): unknown }).toJSON();
  return x;
}

export interface Table {
  schema: FieldDesc[];
  columns: Data[];
  length: number;
}

export function table(cols: Record<string, [TypeDesc, unknown[]]>): Table {
  const schema: FieldDesc[] = [];
  const columns: Data[] = [];
  let length = 0;
  for (const [name, [type, vals]] of Object.entries(cols)) {
    schema.push({ name, type, nullable: true });
    columns.push(column(type, vals));
    length = vals.length;
  }
  return { schema, columns, length };
}

export function run(t: Table, e: Expr | string): unknown[] {
  const b = bindExpr(toExprNode(e), t.schema);
  return values(evaluate(b, t.columns, t.length));
}

export function runData(t: Table, e: Expr | string): Data {
  return evaluate(bindExpr(toExprNode(e), t.schema), t.columns, t.length);
}

export function pred(t: Table, e: Expr): number[] {
  return [...evaluatePredicate(bindPredicate(toExprNode(e), t.schema), t.columns, t.length)];
}
