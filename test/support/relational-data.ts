/**
 * Random tables for the relational differential tests: one column of every key type class
 * (integers of mixed widths and signedness, floats with NaN / -0 / ±Inf, strings with
 * non-ASCII text, dates, timestamps, bool), few distinct values so keys repeat, NULLs in every
 * column; and the way results are read back (rows of plain JS values).
 */
import type * as A from 'apache-arrow';
import fc from 'fast-check';
import type { FieldDesc } from '../../src/types/column.js';
import { columnValues, makeTable, rowsOf, type JsValue } from './tables.js';
import type { Row } from './relational-reference.js';

export const SCHEMA: FieldDesc[] = [
  { name: 'i8', type: { kind: 'int', bits: 8, signed: true }, nullable: true },
  { name: 'u32', type: { kind: 'int', bits: 32, signed: false }, nullable: true },
  { name: 'i64', type: { kind: 'int', bits: 64, signed: true }, nullable: true },
  { name: 'f64', type: { kind: 'float', bits: 64 }, nullable: true },
  { name: 'f32', type: { kind: 'float', bits: 32 }, nullable: true },
  { name: 's', type: { kind: 'utf8' }, nullable: true },
  { name: 'd', type: { kind: 'date', unit: 'day' }, nullable: true },
  { name: 'ts', type: { kind: 'timestamp', unit: 'ms', timezone: null }, nullable: true },
  { name: 'b', type: { kind: 'bool' }, nullable: true },
];

export const KEY_COLUMNS = SCHEMA.map((f) => f.name);

const nul = <T>(a: fc.Arbitrary<T>): fc.Arbitrary<T | null> => fc.oneof({ weight: 5, arbitrary: a }, { weight: 1, arbitrary: fc.constant(null) });

export const rowArb: fc.Arbitrary<Row> = fc.record({
  i8: nul(fc.integer({ min: -3, max: 3 })),
  u32: nul(fc.constantFrom(0, 1, 2, 4294967295)),
  i64: nul(fc.oneof(fc.bigInt({ min: -3n, max: 3n }), fc.constantFrom(-(1n << 63n), (1n << 63n) - 1n))),
  f64: nul(fc.oneof(fc.constantFrom(NaN, 0, -0, 1.5, -1.5, Infinity, -Infinity, 1e300), fc.integer({ min: -3, max: 3 }))),
  f32: nul(fc.constantFrom(0, -0, 0.5, 2, NaN)),
  // 12 bytes and longer ones sharing those: the join table's str layout keeps 12 in its slot
  s: nul(fc.constantFrom('', 'a', 'b', 'ab', 'é', 'Z', '\u{1F600}', 'abcdefghijkl', 'abcdefghijkl-x', 'abcdefghijkl-y')),
  d: nul(fc.integer({ min: -2, max: 2 })),
  ts: nul(fc.bigInt({ min: -2n, max: 2n })),
  b: nul(fc.boolean()),
}) as fc.Arbitrary<Row>;

export function columnsOf(rows: Row[], schema: FieldDesc[] = SCHEMA): Record<string, JsValue[]> {
  return Object.fromEntries(schema.map((f) => [f.name, rows.map((r) => r[f.name] ?? null)]));
}

export function tableOf(rows: Row[], batchSize: number, schema: FieldDesc[] = SCHEMA): A.Table {
  return makeTable(schema, columnsOf(rows, schema), batchSize);
}

/** A result table as rows of plain values (column names as in the table). */
export function rowsOfTable(t: A.Table): Row[] {
  const names = t.schema.fields.map((f) => f.name);
  const cols = Object.fromEntries(names.map((n) => [n, columnValues(t, n)]));
  const n = t.numRows;
  const out: Row[] = [];
  for (let i = 0; i < n; i++) out.push(Object.fromEntries(names.map((c) => [c, cols[c]![i]!])));
  return out;
}

export { rowsOf };
