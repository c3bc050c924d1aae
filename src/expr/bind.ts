/**
 * Binding: resolve column names against a schema, check and compute types, insert implicit
 * casts, and name every expression. The result (`BoundExpr`) is plain data (JSON and
 * structured-clone safe) that evaluate.ts runs without further checks.
 *
 * Type rules (documented for the README):
 * - Numeric promotion: two ints of the same signedness → the wider; a signed/unsigned mix →
 *   int64; int with float → float64; float32 with float32 → float32, else float64.
 *   Integer literals are "dynamic" (Polars): next to an int column they take its type when the
 *   value fits, next to a float column that float type; alone they are int64. Float literals
 *   next to a float32 column are float32, else float64.
 * - Integer `+ - *` and unary `-` wrap in two's complement at the result width (int64 wraps at
 *   64 bits), like Polars and Arrow's unchecked kernels; `-` of an unsigned int is computed in
 *   int64.
 * - `/` always divides as floating point: ints are converted to float64 (Spark/DuckDB `/`), and
 *   an integer division by zero gives NULL (DuckDB); float division follows IEEE (±Inf, NaN).
 * - `%` of ints truncates (the result has the dividend's sign, like C, Java, DuckDB, Spark);
 *   modulo by zero gives NULL. `%` of floats is IEEE fmod (JS `%`).
 * - Comparisons: numeric with numeric (ints exactly, also int64 against uint64; int with float
 *   in float64), string with string (UTF-8 byte order), bool with bool, date with date, timestamp
 *   with timestamp (units unified to the finer one; zoned vs zone-less is an error), and a date or
 *   timestamp with a string literal (the literal is cast). Floats order like DuckDB and Spark:
 *   NaN equals NaN and is greater than every other value; -0 equals 0.
 * - `and or not` take bools with SQL three-valued logic (FALSE AND NULL = FALSE, TRUE OR NULL =
 *   TRUE). NULL literals adopt the type the context needs.
 * - Functions: array(...) → list of the common element type (never NULL itself);
 *   split(str, sep) → list<utf8> (NULL if either is NULL); slice(list, start, len) → the list
 *   type (1-based start like Spark/DuckDB, negative start counts from the end, 0 acts as 1);
 *   cardinality(list|map) → int32 (NULL list → NULL); sequence(start, stop) of ints →
 *   list<int64>, inclusive, step +1 or -1.
 * - Names: alias; else a column's name; else a struct field's name; else the SQL text.
 * - `expandSelect` turns `flatten()` of a struct into one column per field, named by the
 *   fields (Polars `unnest`), and rejects duplicate output names.
 */
import { PlanError } from '../errors.js';
import type { FieldDesc, TimeUnit, TypeDesc } from '../types/column.js';
import { isNumeric, isString, isListLike, typesEqual, typeToString } from '../types/column.js';
import type { BinaryOp, CompareOp, ExprNode, FunctionName, LiteralNode, UnaryOp } from './ast.js';
import { COMPARE_OPS } from './ast.js';
import { sqlText } from './sql-text.js';

/** A literal value: ints and floats as decimal strings (JSON safe), per `type`. */
export type BoundLiteral = null | boolean | string;

interface Base {
  type: TypeDesc;
  nullable: boolean;
  name: string;
}
export type BoundExpr = Base &
  (
    | { kind: 'col'; index: number }
    | { kind: 'lit'; value: BoundLiteral }
    | { kind: 'unary'; op: UnaryOp; arg: BoundExpr }
    /** Operands already have the operation's type (comparisons: the comparison type). */
    | { kind: 'binary'; op: BinaryOp; left: BoundExpr; right: BoundExpr; nullOnZero?: boolean }
    | { kind: 'cast'; arg: BoundExpr }
    | { kind: 'field'; arg: BoundExpr; index: number }
    | { kind: 'call'; fn: FunctionName; args: BoundExpr[] }
  );

const INT64: TypeDesc = { kind: 'int', bits: 64, signed: true };
const FLOAT64: TypeDesc = { kind: 'float', bits: 64 };
const BOOL: TypeDesc = { kind: 'bool' };
const UTF8: TypeDesc = { kind: 'utf8' };
const INT32: TypeDesc = { kind: 'int', bits: 32, signed: true };

export function bindExpr(node: ExprNode, schema: FieldDesc[]): BoundExpr {
  return new Binder(schema).bind(node);
}

/** Binds a filter / join condition: must be BOOL (or NULL). */
export function bindPredicate(node: ExprNode, schema: FieldDesc[]): BoundExpr {
  const b = bindExpr(node, schema);
  if (b.type.kind === 'null') return castTo(b, BOOL);
  if (b.type.kind !== 'bool') {
    throw new PlanError('NOT_BOOLEAN', `A condition must be boolean, but ${b.name} is ${typeToString(b.type)}`, { column: b.name });
  }
  return b;
}

export interface SelectItem {
  name: string;
  expr: BoundExpr;
}

export function expandSelect(items: ExprNode[], schema: FieldDesc[]): SelectItem[] {
  const binder = new Binder(schema);
  const out: SelectItem[] = [];
  for (const item of items) {
    if (item.kind === 'flatten') {
      const s = binder.bind(item.arg);
      if (s.type.kind !== 'struct') {
        throw new PlanError('INVALID_FLATTEN', `flatten() needs a struct, but ${s.name} is ${typeToString(s.type)}`, { column: s.name });
      }
      s.type.children.forEach((f, index) => {
        out.push({ name: f.name, expr: { kind: 'field', arg: s, index, type: f.type, nullable: s.nullable || f.nullable, name: f.name } });
      });
    } else {
      const e = binder.bind(item);
      out.push({ name: e.name, expr: e });
    }
  }
  const seen = new Set<string>();
  for (const { name } of out) {
    if (seen.has(name)) {
      throw new PlanError('DUPLICATE_COLUMN', `Duplicate output column name ${JSON.stringify(name)} in select; rename one (alias() in the API, AS name in a job file)`, { column: name });
    }
    seen.add(name);
  }
  return out;
}

class Binder {
  constructor(private readonly schema: FieldDesc[]) {}

  bind(node: ExprNode): BoundExpr {
    switch (node.kind) {
      case 'col': {
        const index = this.schema.findIndex((f) => f.name === node.name);
        if (index < 0) {
          const avail = this.schema.map((f) => JSON.stringify(f.name)).join(', ');
          throw new PlanError('UNKNOWN_COLUMN', `Unknown column ${JSON.stringify(node.name)}; available columns: ${avail || '(none)'}`, { column: node.name });
        }
        const f = this.schema[index];
        return { kind: 'col', index, type: f.type, nullable: f.nullable, name: f.name };
      }
      case 'lit':
        return bindLiteral(node);
      case 'alias':
        return { ...this.bind(node.arg), name: node.name };
      case 'flatten':
        throw new PlanError('INVALID_FLATTEN', `flatten() is only allowed as a top-level item of select: ${sqlText(node.arg)}`);
      case 'field': {
        const a = this.bind(node.arg);
        if (a.type.kind !== 'struct') {
          throw new PlanError('TYPE_MISMATCH', `field(${JSON.stringify(node.name)}) needs a struct, but ${a.name} is ${typeToString(a.type)}`, { column: a.name });
        }
        const index = a.type.children.findIndex((c) => c.name === node.name);
        if (index < 0) {
          const avail = a.type.children.map((c) => JSON.stringify(c.name)).join(', ');
          throw new PlanError('UNKNOWN_FIELD', `Struct ${a.name} has no field ${JSON.stringify(node.name)}; fields: ${avail}`, { column: a.name });
        }
        const f = a.type.children[index];
        return { kind: 'field', arg: a, index, type: f.type, nullable: a.nullable || f.nullable, name: node.name };
      }
      case 'cast': {
        const a = this.bind(node.arg);
        checkCast(a, node.to);
        return { ...castTo(a, node.to), name: sqlText(node) };
      }
      case 'unary':
        return this.bindUnary(node, node.op, this.bind(node.arg));
      case 'binary':
        return this.bindBinary(node, node.op, node.left, node.right);
      case 'call':
        return this.bindCall(node, node.fn, node.args.map((a) => this.bind(a)));
    }
  }

  private bindUnary(node: ExprNode, op: UnaryOp, a: BoundExpr): BoundExpr {
    const name = sqlText(node);
    switch (op) {
      case 'isNull':
      case 'isNotNull':
        return { kind: 'unary', op, arg: a, type: BOOL, nullable: false, name };
      case 'not': {
        const arg = a.type.kind === 'null' ? castTo(a, BOOL) : a;
        if (arg.type.kind !== 'bool') throw mismatch(`NOT needs a boolean, but ${a.name} is ${typeToString(a.type)}`, a);
        return { kind: 'unary', op, arg, type: BOOL, nullable: arg.nullable, name };
      }
      case 'neg': {
        if (a.kind === 'lit' && (a.type.kind === 'int' || a.type.kind === 'float') && typeof a.value === 'string') {
          const lit = negateLiteral(a);
          return { ...lit, name };
        }
        let arg = a.type.kind === 'null' ? castTo(a, INT64) : a;
        if (!isNumeric(arg.type)) throw mismatch(`Negation needs a number, but ${a.name} is ${typeToString(a.type)}`, a);
        if (arg.type.kind === 'int' && !arg.type.signed) arg = castTo(arg, INT64);
        return { kind: 'unary', op, arg, type: arg.type, nullable: arg.nullable, name };
      }
    }
  }

  private bindBinary(node: ExprNode, op: BinaryOp, ln: ExprNode, rn: ExprNode): BoundExpr {
    const name = sqlText(node);
    let l = this.bind(ln);
    let r = this.bind(rn);
    if (op === 'and' || op === 'or') {
      if (l.type.kind === 'null') l = castTo(l, BOOL);
      if (r.type.kind === 'null') r = castTo(r, BOOL);
      for (const x of [l, r]) {
        if (x.type.kind !== 'bool') throw mismatch(`${op.toUpperCase()} needs booleans, but ${x.name} is ${typeToString(x.type)}`, x);
      }
      return { kind: 'binary', op, left: l, right: r, type: BOOL, nullable: l.nullable || r.nullable, name };
    }
    if ((COMPARE_OPS as readonly string[]).includes(op)) {
      const [cl, cr] = comparisonOperands(l, r, op as CompareOp);
      return { kind: 'binary', op, left: cl, right: cr, type: BOOL, nullable: cl.nullable || cr.nullable, name };
    }
    // arithmetic
    [l, r] = adoptNullAndLiterals(l, r);
    for (const x of [l, r]) {
      if (!isNumeric(x.type)) throw mismatch(`Operator ${op} needs numbers, but ${x.name} is ${typeToString(x.type)}`, x);
    }
    let t = promoteNumeric(l.type, r.type);
    let nullOnZero = false;
    if (op === 'div' && t.kind === 'int') {
      t = FLOAT64;
      nullOnZero = true;
    }
    const left = castTo(l, t);
    const right = castTo(r, t);
    const nullable = left.nullable || right.nullable || nullOnZero || (op === 'mod' && t.kind === 'int');
    return { kind: 'binary', op, left, right, type: t, nullable, name, ...(nullOnZero ? { nullOnZero } : {}) };
  }

  private bindCall(node: ExprNode, fn: FunctionName, args: BoundExpr[]): BoundExpr {
    const name = sqlText(node);
    switch (fn) {
      case 'array': {
        const unified = unify(args, 'array() items');
        const t = unified.type.kind === 'null' ? INT64 : unified.type;
        const items = unified.values.map((a) => castTo(a, t));
        const child: FieldDesc = { name: 'item', type: t, nullable: items.some((a) => a.nullable) };
        return { kind: 'call', fn, args: items, type: { kind: 'list', child }, nullable: false, name };
      }
      case 'split': {
        const [s, sep] = args.map((a) => (a.type.kind === 'null' ? castTo(a, UTF8) : a));
        for (const x of [s, sep]) if (!isString(x.type)) throw mismatch(`split() needs strings, but ${x.name} is ${typeToString(x.type)}`, x);
        const child: FieldDesc = { name: 'item', type: UTF8, nullable: false };
        return { kind: 'call', fn, args: [s, sep], type: { kind: 'list', child }, nullable: s.nullable || sep.nullable, name };
      }
      case 'slice': {
        const [l, st, len] = args;
        if (!isListLike(l.type)) throw mismatch(`slice() needs a list, but ${l.name} is ${typeToString(l.type)}`, l);
        const ints = [st, len].map((x) => {
          const y = x.type.kind === 'null' ? castTo(x, INT64) : x;
          if (y.type.kind !== 'int') throw mismatch(`slice() start and length must be integers, but ${x.name} is ${typeToString(x.type)}`, x);
          return castTo(y, INT64);
        });
        const type: TypeDesc = { kind: 'list', child: l.type.child };
        return { kind: 'call', fn, args: [l, ...ints], type, nullable: l.nullable || ints[0].nullable || ints[1].nullable, name };
      }
      case 'coalesce': {
        const { type: t, values: unified } = unify(args, 'coalesce() arguments');
        const values = unified.map((a) => castTo(a, t));
        return { kind: 'call', fn, args: values, type: t, nullable: values.every((a) => a.nullable), name };
      }
      case 'case': {
        const pairs = args.length >> 1;
        const conds = Array.from({ length: pairs }, (_, k) => {
          const c = args[2 * k]!.type.kind === 'null' ? castTo(args[2 * k]!, BOOL) : args[2 * k]!;
          if (c.type.kind !== 'bool') throw mismatch(`CASE WHEN needs a boolean condition, but ${c.name} is ${typeToString(c.type)}`, c);
          return c;
        });
        const results = args.filter((_, i) => i % 2 === 1 || (i === args.length - 1 && args.length % 2 === 1));
        const { type: t, values: unified } = unify(results, 'CASE results');
        const values = unified.map((a) => castTo(a, t));
        const bound: BoundExpr[] = [];
        for (let k = 0; k < pairs; k++) bound.push(conds[k]!, values[k]!);
        if (args.length % 2 === 1) bound.push(values[pairs]!);
        const nullable = args.length % 2 === 0 || values.some((a) => a.nullable);
        return { kind: 'call', fn, args: bound, type: t, nullable, name };
      }
      case 'like': {
        const [str, pattern] = args.map((a) => (a.type.kind === 'null' ? castTo(a, UTF8) : a));
        for (const x of [str, pattern]) if (!isString(x.type)) throw mismatch(`LIKE needs strings, but ${x.name} is ${typeToString(x.type)}`, x);
        return { kind: 'call', fn, args: [str, pattern], type: BOOL, nullable: str.nullable || pattern.nullable, name };
      }
      case 'cardinality': {
        const [l] = args;
        if (!isListLike(l.type) && l.type.kind !== 'map') throw mismatch(`cardinality() needs a list or map, but ${l.name} is ${typeToString(l.type)}`, l);
        return { kind: 'call', fn, args: [l], type: INT32, nullable: l.nullable, name };
      }
      case 'sequence': {
        const ints = args.map((x) => {
          const y = x.type.kind === 'null' ? castTo(x, INT64) : x;
          if (y.type.kind !== 'int') throw mismatch(`sequence() needs integers, but ${x.name} is ${typeToString(x.type)}`, x);
          return castTo(y, INT64);
        });
        const child: FieldDesc = { name: 'item', type: INT64, nullable: false };
        return { kind: 'call', fn, args: ints, type: { kind: 'list', child }, nullable: ints[0].nullable || ints[1].nullable, name };
      }
    }
  }
}

function mismatch(message: string, x: BoundExpr): PlanError {
  return new PlanError('TYPE_MISMATCH', message, { column: x.name });
}

function bindLiteral(n: LiteralNode): BoundExpr {
  const name = sqlText(n);
  switch (n.type) {
    case 'null':
      return { kind: 'lit', value: null, type: { kind: 'null' }, nullable: true, name };
    case 'bool':
      return { kind: 'lit', value: n.value, type: BOOL, nullable: false, name };
    case 'string':
      return { kind: 'lit', value: n.value, type: UTF8, nullable: false, name };
    case 'float':
      return { kind: 'lit', value: n.value, type: FLOAT64, nullable: false, name };
    case 'int': {
      const v = BigInt(n.value);
      let type: TypeDesc = INT64;
      if (v > INT_MAX[64]) {
        if (v > UINT_MAX[64]) return { kind: 'lit', value: String(Number(v)), type: FLOAT64, nullable: false, name };
        type = { kind: 'int', bits: 64, signed: false };
      } else if (v < INT_MIN[64]) {
        return { kind: 'lit', value: String(Number(v)), type: FLOAT64, nullable: false, name };
      }
      return { kind: 'lit', value: v.toString(), type, nullable: false, name };
    }
  }
}

function negateLiteral(a: BoundExpr & { kind: 'lit' }): BoundExpr {
  const s = a.value as string;
  if (a.type.kind === 'float') {
    const v = -Number(s);
    return { ...a, value: Object.is(v, -0) ? '-0' : String(v) };
  }
  return bindLiteral({ kind: 'lit', type: 'int', value: (-BigInt(s)).toString() });
}

const INT_MAX: Record<number, bigint> = { 8: 127n, 16: 32767n, 32: 2147483647n, 64: 9223372036854775807n };
const INT_MIN: Record<number, bigint> = { 8: -128n, 16: -32768n, 32: -2147483648n, 64: -9223372036854775808n };
const UINT_MAX: Record<number, bigint> = { 8: 255n, 16: 65535n, 32: 4294967295n, 64: 18446744073709551615n };

function fitsInt(v: bigint, t: Extract<TypeDesc, { kind: 'int' }>): boolean {
  return t.signed ? v >= INT_MIN[t.bits] && v <= INT_MAX[t.bits] : v >= 0n && v <= UINT_MAX[t.bits];
}

function isDynamicLiteral(x: BoundExpr): x is BoundExpr & { kind: 'lit'; value: string } {
  return x.kind === 'lit' && (x.type.kind === 'int' || x.type.kind === 'float') && typeof x.value === 'string';
}

/** A literal next to `other` adopts its type when that is lossless enough (see header). */
function adoptLiteral(x: BoundExpr, other: TypeDesc): BoundExpr {
  if (!isDynamicLiteral(x)) return x;
  if (x.type.kind === 'int' && other.kind === 'int') {
    return fitsInt(BigInt(x.value), other) ? { ...x, type: other } : x;
  }
  if (x.type.kind === 'int' && other.kind === 'float') {
    return { ...x, type: other, value: String(Number(BigInt(x.value))) };
  }
  if (x.type.kind === 'float' && other.kind === 'float' && other.bits === 32) {
    return { ...x, type: other, value: String(Math.fround(Number(x.value))) };
  }
  return x;
}

function adoptNullAndLiterals(l: BoundExpr, r: BoundExpr): [BoundExpr, BoundExpr] {
  if (l.type.kind === 'null' && r.type.kind !== 'null') l = castTo(l, r.type);
  else if (r.type.kind === 'null' && l.type.kind !== 'null') r = castTo(r, l.type);
  else if (l.type.kind === 'null' && r.type.kind === 'null') {
    l = castTo(l, INT64);
    r = castTo(r, INT64);
  }
  if (isDynamicLiteral(l) && !isDynamicLiteral(r)) l = adoptLiteral(l, r.type);
  else if (isDynamicLiteral(r) && !isDynamicLiteral(l)) r = adoptLiteral(r, l.type);
  return [l, r];
}

export function promoteNumeric(a: TypeDesc, b: TypeDesc): TypeDesc {
  if (a.kind === 'int' && b.kind === 'int') {
    if (a.signed === b.signed) return a.bits >= b.bits ? a : b;
    return INT64;
  }
  if (a.kind === 'float' && b.kind === 'float' && a.bits === 32 && b.bits === 32) return a;
  return FLOAT64;
}

const UNIT_RANK: Record<TimeUnit, number> = { s: 0, ms: 1, us: 2, ns: 3 };

/** Common type for array() items and similar: numeric promotion, else equal kinds. */
function commonType(acc: TypeDesc, t: TypeDesc, x: BoundExpr, what: string): TypeDesc {
  if (acc.kind === 'null') return t;
  if (t.kind === 'null') return acc;
  if (isNumeric(acc) && isNumeric(t)) return promoteNumeric(acc, t);
  if (isString(acc) && isString(t)) return UTF8;
  if (typesEqual(acc, t)) return acc;
  throw mismatch(`${what} must share a type: ${x.name} is ${typeToString(t)}, expected ${typeToString(acc)}`, x);
}

const PRIMITIVE_KINDS: ReadonlySet<TypeDesc['kind']> = new Set(['null', 'bool', 'int', 'float', 'utf8', 'binary', 'date', 'timestamp', 'duration']);

/**
 * The one type of several values (array() items, coalesce() arguments, CASE results): the
 * non-literal values decide it, integer and float literals adopt it when they fit; primitive
 * types only. `what` names the values in errors.
 */
function unify(values: BoundExpr[], what: string): { type: TypeDesc; values: BoundExpr[] } {
  let t: TypeDesc = { kind: 'null' };
  for (const a of values) if (!isDynamicLiteral(a)) t = commonType(t, a.type, a, what);
  const adopted = t.kind === 'null' ? values : values.map((a) => adoptLiteral(a, t));
  for (const a of adopted) t = commonType(t, a.type, a, what);
  if (!PRIMITIVE_KINDS.has(t.kind)) throw new PlanError('UNSUPPORTED', `${what} of type ${typeToString(t)} are not supported (primitive types only)`);
  return { type: t, values: adopted };
}

function comparisonOperands(l0: BoundExpr, r0: BoundExpr, op: CompareOp): [BoundExpr, BoundExpr] {
  const [l, r] = adoptNullAndLiterals(l0, r0);
  const a = l.type;
  const b = r.type;
  const fail = (): never => {
    throw new PlanError(
      'TYPE_MISMATCH',
      `Cannot compare ${l0.name} (${typeToString(a)}) ${op} ${r0.name} (${typeToString(b)})`,
      { column: l0.name },
    );
  };
  if (a.kind === 'int' && b.kind === 'int') {
    if (a.signed === b.signed) {
      const t = a.bits >= b.bits ? a : b;
      return [castTo(l, t), castTo(r, t)];
    }
    // mixed signedness: uint64 stays uint64 (compared exactly against int64), else int64
    const ta: TypeDesc = a.bits === 64 && !a.signed ? a : INT64;
    const tb: TypeDesc = b.bits === 64 && !b.signed ? b : INT64;
    return [castTo(l, ta), castTo(r, tb)];
  }
  if (isNumeric(a) && isNumeric(b)) {
    const t = promoteNumeric(a, b);
    return [castTo(l, t), castTo(r, t)];
  }
  if (isString(a) && isString(b)) return [l, r];
  if (a.kind === 'bool' && b.kind === 'bool') return [l, r];
  // a temporal against a string literal: cast the literal
  if ((a.kind === 'date' || a.kind === 'timestamp') && r.kind === 'lit' && isString(b)) return [l, castTo(r, a)];
  if ((b.kind === 'date' || b.kind === 'timestamp') && l.kind === 'lit' && isString(a)) return [castTo(l, b), r];
  if (a.kind === 'date' && b.kind === 'date') {
    if (a.unit === b.unit) return [l, r];
    const t: TypeDesc = { kind: 'date', unit: 'ms' };
    return [castTo(l, t), castTo(r, t)];
  }
  if (a.kind === 'timestamp' && b.kind === 'timestamp') {
    if ((a.timezone === null) !== (b.timezone === null)) fail();
    const unit = UNIT_RANK[a.unit] >= UNIT_RANK[b.unit] ? a.unit : b.unit;
    return [castTo(l, { ...a, unit }), castTo(r, { ...b, unit })];
  }
  if (a.kind === 'duration' && b.kind === 'duration' && a.unit === b.unit) return [l, r];
  return fail();
}

/** Wraps `x` in a cast to `t` (no-op if already `t`). */
export function castTo(x: BoundExpr, t: TypeDesc): BoundExpr {
  if (typesEqual(x.type, t)) return x;
  if (x.kind === 'lit' && x.value === null) return { ...x, type: t };
  return { kind: 'cast', arg: x, type: t, nullable: x.nullable || castCanFail(x.type, t), name: x.name };
}

function isTemporal(t: TypeDesc): boolean {
  return t.kind === 'date' || t.kind === 'timestamp';
}

/** Casts evaluate.ts supports; anything else is a PlanError. */
export function castSupported(from: TypeDesc, to: TypeDesc): boolean {
  if (typesEqual(from, to) || from.kind === 'null') return true;
  const scalar = (t: TypeDesc) => isNumeric(t) || t.kind === 'bool';
  if (scalar(from) && scalar(to)) return from.kind !== 'float' || (from.bits !== 16 && (to.kind !== 'float' || to.bits !== 16));
  if (isString(to)) return scalar(from) || isString(from) || isTemporal(from);
  if (isString(from)) return scalar(to) || isTemporal(to);
  if (isTemporal(from) && isTemporal(to)) return true;
  if (isTemporal(from) && to.kind === 'int') return true;
  if (from.kind === 'int' && isTemporal(to)) return true;
  return false;
}

function checkCast(a: BoundExpr, to: TypeDesc): void {
  if (!castSupported(a.type, to)) {
    throw new PlanError('INVALID_CAST', `Cannot cast ${a.name} from ${typeToString(a.type)} to ${typeToString(to)}`, { column: a.name });
  }
}

/** Whether a cast may turn a valid value into NULL (parse failure, overflow, NaN). */
function castCanFail(from: TypeDesc, to: TypeDesc): boolean {
  if (isString(to)) return false;
  if (isString(from)) return true;
  if (to.kind === 'bool' || to.kind === 'float') return false;
  if (from.kind === 'bool') return false;
  if (from.kind === 'int' && to.kind === 'int') {
    if (from.signed === to.signed) return to.bits < from.bits;
    return from.signed || to.bits <= from.bits;
  }
  if (from.kind === 'date' && to.kind === 'date') return to.unit === 'day';
  return true;
}
