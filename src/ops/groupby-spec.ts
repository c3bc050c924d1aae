/**
 * `df.groupBy(...keys).agg({ name: fn })`, `df.agg({...})` and `df.distinct(...names)` resolved
 * against the schema (API.md "Relational verbs"): PlanErrors before any row is read.
 *
 * Aggregates are the window builders' objects (src/expr/aggregates) without a frame: `sum count
 * avg min max first last countDistinct`; any other function (rank(), lag(), nthValue(), …), a
 * frame, or `.minPeriods()` is a PlanError. `.ignoreNulls()` is accepted on first/last.
 * Output types: sum of integers int64 (uint64 for uint64, wrapping), of floats float64; avg
 * float64; count and countDistinct int64 (never NULL); min/max/first/last the input type.
 * Output columns: the keys, then the aggregates in the object's order; names must be unique.
 * distinct is a group-by whose outputs are every input column taken at the group's first row,
 * in input order.
 */
import type { WindowFn } from '../expr/aggregates.js';
import { PlanError, show } from '../errors.js';
import { isNumeric, typeToString, type FieldDesc, type TypeDesc } from '../types/column.js';
import { findColumn, findKey, isKeyType, type KeyRef } from './key-types.js';

export type GroupFnName = 'sum' | 'count' | 'avg' | 'min' | 'max' | 'first' | 'last' | 'countDistinct';
const GROUP_FNS: readonly GroupFnName[] = ['sum', 'count', 'avg', 'min', 'max', 'first', 'last', 'countDistinct'];

/** One output column of a group-by: a function of the group's rows. */
export interface GroupOutput {
  name: string;
  /** `first` also serves the keys and distinct's columns (the group's first row). */
  fn: GroupFnName;
  /** Input column index; -1 for count() of rows. */
  column: number;
  ignoreNulls: boolean;
  type: TypeDesc;
  nullable: boolean;
  /** For explain(): `sum(tokens)`. */
  text: string;
}

export interface ResolvedGroupBy {
  keys: KeyRef[];
  outputs: GroupOutput[];
  output: FieldDesc[];
  distinct: boolean;
}

const INT64: TypeDesc = { kind: 'int', bits: 64, signed: true };
const UINT64: TypeDesc = { kind: 'int', bits: 64, signed: false };
const FLOAT64: TypeDesc = { kind: 'float', bits: 64 };

function isMinMaxType(t: TypeDesc): boolean {
  return isKeyType(t) && t.kind !== 'null';
}

function fail(code: string, message: string, details: Record<string, unknown> = {}): never {
  throw new PlanError(code, message, details);
}

interface FnShape {
  fn?: unknown;
  column?: unknown;
  frame?: unknown;
  ignoreNulls?: unknown;
  minPeriods?: unknown;
  n?: unknown;
  default?: unknown;
}

/** The plain spec of an aggregate (a WindowFn's `.spec`, or the spec itself). */
function specOf(raw: unknown): FnShape | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const inner = (raw as { spec?: unknown }).spec;
  const s = typeof inner === 'object' && inner !== null ? inner : raw;
  return typeof (s as FnShape).fn === 'string' ? (s as FnShape) : null;
}

function resolveOne(name: string, raw: unknown, schema: FieldDesc[]): GroupOutput {
  const what = `agg() column ${show(name)}`;
  const s = specOf(raw);
  if (!s) fail('INVALID_AGGREGATE', `${what}: expected an aggregate such as sum('x'), count(), first('x') or countDistinct('x'), got ${describe(raw)}`);
  const fn = s.fn as string;
  if (!GROUP_FNS.includes(fn as GroupFnName)) {
    fail('INVALID_AGGREGATE', `${what}: ${fn}() is not a group-by aggregate; expected one of ${GROUP_FNS.join(', ')} (ranking and offset functions belong in window())`, { fn });
  }
  const f = fn as GroupFnName;
  if (s.frame !== null && s.frame !== undefined) fail('INVALID_AGGREGATE', `${what}: a group-by aggregate takes no frame; remove .rows()/.range() (the group is the frame)`, { fn });
  if (s.minPeriods !== undefined && s.minPeriods !== null) fail('INVALID_AGGREGATE', `${what}: .minPeriods() is for window frames, not group-by aggregates`, { fn });
  if (s.n !== undefined || s.default !== undefined) fail('INVALID_AGGREGATE', `${what}: ${fn}() takes no n or default here`, { fn });
  const ignoreNulls = s.ignoreNulls === true;
  if (ignoreNulls && f !== 'first' && f !== 'last') fail('INVALID_AGGREGATE', `${what}: .ignoreNulls() is for first/last (the other aggregates already skip NULLs)`, { fn });
  if (s.column === null || s.column === undefined) {
    if (f !== 'count') fail('INVALID_AGGREGATE', `${what}: ${fn}() needs a column (only count() may omit it)`, { fn });
    return { name, fn: f, column: -1, ignoreNulls, type: INT64, nullable: false, text: 'count(*)' };
  }
  const ref = findColumn(schema, s.column, `${what}: ${fn}()`);
  const text = `${fn}(${ref.name})${ignoreNulls ? ' ignoring NULLs' : ''}`;
  const bad = (expected: string): never =>
    fail('MEASURE_TYPE', `${what}: ${fn}(${show(ref.name)}) needs ${expected}, but ${show(ref.name)} is ${typeToString(ref.type)}`, { column: ref.name, fn });
  switch (f) {
    case 'count':
      return { name, fn: f, column: ref.index, ignoreNulls, type: INT64, nullable: false, text };
    case 'countDistinct':
      if (!isKeyType(ref.type)) bad('a column of a key type (integer, float, decimal, bool, string, binary, date, timestamp, duration)');
      return { name, fn: f, column: ref.index, ignoreNulls, type: INT64, nullable: false, text };
    case 'sum':
    case 'avg': {
      const t = ref.type;
      if (t.kind === 'decimal') {
        // exact: a sum of more than 38 digits is NULL (as window's); avg the correctly rounded mean
        const type: TypeDesc = f === 'avg' ? FLOAT64 : { kind: 'decimal', precision: 38, scale: t.scale };
        return { name, fn: f, column: ref.index, ignoreNulls, type, nullable: true, text };
      }
      if (!isNumeric(t) || (t.kind === 'float' && t.bits === 16)) bad('an integer, decimal, float32 or float64 column');
      const type = f === 'avg' || t.kind === 'float' ? FLOAT64 : t.kind === 'int' && t.bits === 64 && !t.signed ? UINT64 : INT64;
      return { name, fn: f, column: ref.index, ignoreNulls, type, nullable: true, text };
    }
    case 'min':
    case 'max':
      if (!isMinMaxType(ref.type)) bad('a numeric (not float16), decimal, bool, string, binary, date, timestamp or duration column');
      return { name, fn: f, column: ref.index, ignoreNulls, type: ref.type, nullable: true, text };
    case 'first':
    case 'last':
      return { name, fn: f, column: ref.index, ignoreNulls, type: ref.type, nullable: true, text };
  }
}

function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

/** An aggregate as agg() takes it: a builder's WindowFn (sum('x')), or its spec as a plain object. */
export type AggregateInput = WindowFn | { fn: string };

export function resolveGroupBy(keyNames: string[], aggs: Array<[string, AggregateInput]>, schema: FieldDesc[]): ResolvedGroupBy {
  const where = keyNames.length > 0 ? 'groupBy()' : 'agg()';
  const keys = keyNames.map((k) => findKey(schema, k, where));
  if (keys.length === 0 && aggs.length === 0) fail('NO_AGGREGATES', 'agg(): expected at least one aggregate, e.g. agg({ n: count() })');
  const outputs: GroupOutput[] = keys.map((k) => ({ name: k.name, fn: 'first', column: k.index, ignoreNulls: false, type: k.type, nullable: k.nullable, text: `key ${k.name}` }));
  const taken = new Set(keys.map((k) => k.name));
  for (const [name, raw] of aggs) {
    if (typeof name !== 'string' || name === '') fail('BAD_COLUMN_NAME', `agg(): output names must be non-empty strings, got ${show(name)}`);
    if (taken.has(name)) {
      fail('NAME_CLASH', `agg() column ${show(name)}: the name is already ${keys.some((k) => k.name === name) ? 'a group key' : 'another aggregate'}; choose another output name`, { column: name });
    }
    taken.add(name);
    outputs.push(resolveOne(name, raw, schema));
  }
  return { keys, outputs, output: outputs.map((o) => ({ name: o.name, type: o.type, nullable: o.nullable })), distinct: false };
}

/** distinct(...names): the whole first row of each distinct tuple of the named (default: all) columns. */
export function resolveDistinct(names: string[], schema: FieldDesc[]): ResolvedGroupBy {
  const keyNames = names.length > 0 ? names : schema.map((f) => f.name);
  const keys = keyNames.map((k) => findKey(schema, k, 'distinct()'));
  const outputs: GroupOutput[] = schema.map((f, i) => ({ name: f.name, fn: 'first', column: i, ignoreNulls: false, type: f.type, nullable: f.nullable, text: f.name }));
  return { keys, outputs, output: schema.map((f) => ({ ...f })), distinct: true };
}
