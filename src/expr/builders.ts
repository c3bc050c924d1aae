/**
 * The public expression API: `class Expr` and the functions `col lit expr array split slice
 * cardinality sequence`. Builders only assemble plain `ExprNode` trees (ast.ts); names are
 * resolved and types checked later by bind.ts, against the schema of the input.
 *
 * Argument rule:
 * - Method arguments (`col('a').add(x)`, `.eq(x)` …) take an `Expr` or a plain JS value, which
 *   becomes a literal: strings are string literals (`col('venue').eq('XNAS')`), like Polars.
 * - Function arguments that are expressions (`array(...)` items, `split`'s string, `slice`'s
 *   list, start and length, `cardinality`'s list, `sequence`'s bounds) take an `Expr`, a number,
 *   bigint, boolean or null (literals), or a string, which names a column:
 *   `array('a', 'b')`, `slice('items', 1, 2)`, `cardinality('items')`.
 *   The one exception is `split(str, sep)`'s separator, which is naturally a constant: a string
 *   there is a literal (`split('tags', ',')`); pass `col(name)` to split by a column.
 * - Numbers: an integral JS number is an integer literal, any other number a float64 literal;
 *   bigints are integer literals. An integer literal takes the type of the other operand when
 *   it fits (Polars' dynamic literals), int64 otherwise.
 */
import type { TypeDesc } from '../types/column.js';
import { PlanError, show } from '../errors.js';
import type { BinaryOp, ExprNode, FunctionName, LiteralNode, UnaryOp } from './ast.js';
import { anyOf, floatLit, intLit } from './ast.js';
import { toTypeDesc } from './arrow-types.js';
import { parseExpr } from './parse.js';
import { sqlText } from './sql-text.js';

export type LiteralInput = null | undefined | boolean | number | bigint | string | Date;
export type ExprInput = Expr | LiteralInput;
/** A function argument: a string names a column, other plain values are literals. */
export type ColumnInput = Expr | string | null | boolean | number | bigint;

export class Expr {
  constructor(readonly node: ExprNode) {}

  add(other: ExprInput): Expr { return this.bin('add', other); }
  sub(other: ExprInput): Expr { return this.bin('sub', other); }
  mul(other: ExprInput): Expr { return this.bin('mul', other); }
  div(other: ExprInput): Expr { return this.bin('div', other); }
  mod(other: ExprInput): Expr { return this.bin('mod', other); }
  eq(other: ExprInput): Expr { return this.bin('eq', other); }
  ne(other: ExprInput): Expr { return this.bin('ne', other); }
  lt(other: ExprInput): Expr { return this.bin('lt', other); }
  le(other: ExprInput): Expr { return this.bin('le', other); }
  gt(other: ExprInput): Expr { return this.bin('gt', other); }
  ge(other: ExprInput): Expr { return this.bin('ge', other); }
  and(other: ExprInput): Expr { return this.bin('and', other); }
  or(other: ExprInput): Expr { return this.bin('or', other); }
  neg(): Expr { return this.un('neg'); }
  not(): Expr { return this.un('not'); }
  isNull(): Expr { return this.un('isNull'); }
  isNotNull(): Expr { return this.un('isNotNull'); }
  /** SQL `IN`: equal to one of `values` (an OR of equalities, with SQL's NULL semantics). */
  isIn(...values: ExprInput[]): Expr {
    if (values.length === 0) throw new PlanError('BAD_OPTION', 'Expected at least one value for isIn, got none');
    return new Expr(anyOf(values.map((v) => this.eq(v).node)));
  }
  /** SQL `LIKE`: `%` matches any characters, `_` one; case-sensitive, no escape character. */
  like(pattern: ExprInput): Expr { return new Expr({ kind: 'call', fn: 'like', args: [this.node, valueNode(pattern)] }); }
  /** SQL `BETWEEN`: lo <= this <= hi, both bounds included. */
  between(lo: ExprInput, hi: ExprInput): Expr { return this.ge(lo).and(this.le(hi)); }

  /** Cast to a type name ('int32', 'utf8', 'timestamp[ms, UTC]' …) or a TypeDesc. */
  cast(type: TypeDesc | string): Expr {
    return new Expr({ kind: 'cast', arg: this.node, to: toTypeDesc(type) });
  }
  alias(name: string): Expr {
    if (typeof name !== 'string' || name === '') throw new PlanError('INVALID_ALIAS', `alias expects a non-empty string, got ${show(name)}`);
    return new Expr({ kind: 'alias', arg: this.node, name });
  }
  as(name: string): Expr { return this.alias(name); }
  /** The field `name` of a struct expression. */
  field(name: string): Expr {
    if (typeof name !== 'string') throw new PlanError('INVALID_FIELD', `field expects a string, got ${show(name)}`);
    return new Expr({ kind: 'field', arg: this.node, name });
  }
  /** In `select` only: one output column per field of this struct, named by the fields. */
  flatten(): Expr { return new Expr({ kind: 'flatten', arg: this.node }); }

  /** The canonical SQL text (also the default output name). */
  toString(): string { return sqlText(this.node); }
  toJSON(): ExprNode { return this.node; }

  private bin(op: BinaryOp, other: ExprInput): Expr {
    return new Expr({ kind: 'binary', op, left: this.node, right: valueNode(other) });
  }
  private un(op: UnaryOp): Expr {
    return new Expr({ kind: 'unary', op, arg: this.node });
  }
}

export function col(name: string): Expr {
  if (typeof name !== 'string') throw new PlanError('INVALID_COLUMN', `col expects a column name string, got ${show(name)}`);
  return new Expr({ kind: 'col', name });
}

export function lit(value: ExprInput): Expr {
  if (value instanceof Expr) return value;
  return new Expr(literalNode(value));
}

/** Parses a SQL expression: `expr('price * qty > 10 AND venue = venue_right')`. */
export function expr(sql: string): Expr {
  return new Expr(parseExpr(sql));
}

export function array(...items: ColumnInput[]): Expr {
  return call('array', items.map(argNode));
}
export function split(str: ColumnInput, sep: ExprInput): Expr {
  return call('split', [argNode(str), valueNode(sep)]);
}
/** 1-based `start` (negative counts from the end), `len` elements at most. */
export function slice(arr: ColumnInput, start: ColumnInput, len: ColumnInput): Expr {
  return call('slice', [argNode(arr), argNode(start), argNode(len)]);
}
export function cardinality(arr: ColumnInput): Expr {
  return call('cardinality', [argNode(arr)]);
}
/** The first argument that is not NULL, per row (NULL when all are); a string names a column. */
export function coalesce(...args: ColumnInput[]): Expr {
  if (args.length === 0) throw new PlanError('INVALID_ARGUMENTS', 'coalesce() needs at least one argument');
  return call('coalesce', args.map(argNode));
}
/**
 * SQL `CASE WHEN`: per row, the value of the first branch whose condition is TRUE (a string
 * condition is SQL text, as in filter), else `otherwise` (NULL when omitted).
 */
export function caseWhen(branches: Array<[condition: Expr | string, value: ExprInput]>, otherwise?: ExprInput): Expr {
  if (!Array.isArray(branches) || branches.length === 0) throw new PlanError('INVALID_ARGUMENTS', 'caseWhen() needs at least one [condition, value] branch');
  const args: ExprNode[] = [];
  for (const branch of branches) {
    if (!Array.isArray(branch) || branch.length !== 2) throw new PlanError('INVALID_ARGUMENTS', `caseWhen() branches are [condition, value] pairs, got ${show(branch)}`);
    args.push(toPredicateNode(branch[0]), valueNode(branch[1]));
  }
  if (otherwise !== undefined) args.push(valueNode(otherwise));
  return call('case', args);
}
/** Integers from start to stop inclusive, step +1 or -1. */
export function sequence(start: ColumnInput, stop: ColumnInput): Expr {
  return call('sequence', [argNode(start), argNode(stop)]);
}

function call(fn: FunctionName, args: ExprNode[]): Expr {
  if (fn === 'array' && args.length === 0) throw new PlanError('INVALID_ARGUMENTS', 'array() needs at least one argument');
  return new Expr({ kind: 'call', fn, args });
}

function literalNode(value: LiteralInput): LiteralNode | ExprNode {
  if (value === null || value === undefined) return { kind: 'lit', type: 'null' };
  switch (typeof value) {
    case 'boolean':
      return { kind: 'lit', type: 'bool', value };
    case 'number':
      return Number.isInteger(value) && !Object.is(value, -0) && Number.isSafeInteger(value) ? intLit(value) : floatLit(value);
    case 'bigint':
      return intLit(value);
    case 'string':
      return { kind: 'lit', type: 'string', value };
    default:
      if (value instanceof Date) {
        const ms = value.getTime();
        if (Number.isNaN(ms)) return { kind: 'cast', arg: { kind: 'lit', type: 'null' }, to: { kind: 'timestamp', unit: 'ms', timezone: null } };
        return { kind: 'cast', arg: intLit(ms), to: { kind: 'timestamp', unit: 'ms', timezone: null } };
      }
      throw new PlanError('INVALID_LITERAL', `Cannot use ${show(value)} (${typeof value}) as a literal`);
  }
}

/** Method-argument rule: Expr stays, plain values (strings included) become literals. */
function valueNode(x: ExprInput): ExprNode {
  return x instanceof Expr ? x.node : literalNode(x);
}

/** Function-argument rule: strings name columns, other plain values become literals. */
function argNode(x: ColumnInput): ExprNode {
  if (typeof x === 'string') return { kind: 'col', name: x };
  return valueNode(x);
}

/**
 * For the engine: an Expr, a column name (string), or an already-built ExprNode → ExprNode.
 * (`select('a', col('b'))`, explode inputs.)
 */
export function toExprNode(x: Expr | string | ExprNode): ExprNode {
  if (x instanceof Expr) return x.node;
  if (typeof x === 'string') return { kind: 'col', name: x };
  if (x && typeof x === 'object' && typeof (x as ExprNode).kind === 'string') return x;
  throw new PlanError('INVALID_EXPRESSION', `Expected an expression or a column name, got ${show(x)}`);
}

/** For conditions (filter, asofJoin `condition`): a string is SQL text, not a column name. */
export function toPredicateNode(x: Expr | string | ExprNode): ExprNode {
  return typeof x === 'string' ? parseExpr(x) : toExprNode(x);
}
