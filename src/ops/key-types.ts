/**
 * Which column types the relational verbs (sort, groupBy, distinct, join) take as keys, and how
 * key columns are looked up by name, with the PlanErrors they raise before any row is read.
 *
 * Keys are hashed, grouped and sorted as typed arrays in the workers: integers of any width,
 * float32/float64, decimal128 (by its 128-bit words: one column has one scale), bool,
 * utf8/binary (large ones too), date, timestamp, duration, and the all-NULL `null` type. Nested types (lists, structs, maps) and float16 are not keys.
 */
import { PlanError, show } from '../errors.js';
import { typeToString, type FieldDesc, type TypeDesc } from '../types/column.js';

export interface KeyRef {
  /** Index in the input schema. */
  index: number;
  name: string;
  type: TypeDesc;
  nullable: boolean;
}

export function isKeyType(t: TypeDesc): boolean {
  switch (t.kind) {
    case 'int':
    case 'bool':
    case 'utf8':
    case 'largeUtf8':
    case 'binary':
    case 'largeBinary':
    case 'date':
    case 'timestamp':
    case 'duration':
    case 'decimal':
    case 'null':
      return true;
    case 'float':
      return t.bits !== 16;
    default:
      return false;
  }
}

/** The column `name` of `schema`, or PlanError UNKNOWN_COLUMN listing the columns there are. */
export function findColumn(schema: FieldDesc[], name: unknown, what: string): KeyRef {
  if (typeof name !== 'string' || name === '') {
    throw new PlanError('BAD_OPTION', `${what}: Expected a column name (non-empty string), got ${show(name)}`, {});
  }
  const index = schema.findIndex((f) => f.name === name);
  if (index < 0) {
    throw new PlanError('UNKNOWN_COLUMN', `${what}: unknown column ${show(name)}; available columns: ${schema.map((f) => show(f.name)).join(', ') || '(none)'}`, {
      column: name,
    });
  }
  const f = schema[index]!;
  return { index, name, type: f.type, nullable: f.nullable };
}

/** findColumn, and the column must be a key type. */
export function findKey(schema: FieldDesc[], name: unknown, what: string): KeyRef {
  const ref = findColumn(schema, name, what);
  if (!isKeyType(ref.type)) {
    throw new PlanError(
      'UNSUPPORTED_KEY_TYPE',
      `${what}: column ${show(ref.name)} has type ${typeToString(ref.type)}, which cannot be a key; expected an integer, float32/float64, decimal, bool, string, binary, date, timestamp or duration column`,
      { column: ref.name, type: typeToString(ref.type) },
    );
  }
  return ref;
}

/** Names given as varargs, arrays flattened; every one a string, none twice. */
export function nameList(names: unknown[], what: string): string[] {
  const out: string[] = [];
  for (const n of names.flat()) {
    if (typeof n !== 'string' || n === '') throw new PlanError('BAD_OPTION', `${what}: Expected column names (non-empty strings), got ${show(n)}`, {});
    if (out.includes(n)) throw new PlanError('DUPLICATE_COLUMN', `${what}: column ${show(n)} is given twice`, { column: n });
    out.push(n);
  }
  return out;
}
