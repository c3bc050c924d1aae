/**
 * Serializable expression trees.
 *
 * Every node is a plain object (no classes, no functions, no bigint, no NaN): it survives
 * `structuredClone`, `postMessage` and `JSON.stringify`/`JSON.parse` unchanged. Numbers are
 * therefore stored as decimal strings with a type tag: `{ kind: 'lit', type: 'int', value:
 * '-9223372036854775808' }` for integers (any size, bigint-capable) and `{ type: 'float',
 * value: 'NaN' | '-0' | '1.5' | … }` for doubles (`String(x)` round-trips every double).
 *
 * `flatten` is a marker that only `select` understands (expandSelect in bind.ts).
 */
import type { TypeDesc } from '../types/column.js';

export type ArithOp = 'add' | 'sub' | 'mul' | 'div' | 'mod';
export type CompareOp = 'eq' | 'ne' | 'lt' | 'le' | 'gt' | 'ge';
export type LogicOp = 'and' | 'or';
export type BinaryOp = ArithOp | CompareOp | LogicOp;
export type UnaryOp = 'neg' | 'not' | 'isNull' | 'isNotNull';
/**
 * `like` is written `s LIKE pattern` and `case` as `CASE WHEN c THEN v ... [ELSE e] END` (args:
 * conditions and values in turn, then the ELSE value when their count is odd); the others as calls.
 */
export type FunctionName = 'array' | 'split' | 'slice' | 'cardinality' | 'sequence' | 'like' | 'coalesce' | 'case';

export type LiteralNode =
  | { kind: 'lit'; type: 'null' }
  | { kind: 'lit'; type: 'bool'; value: boolean }
  /** An integer of any size, as a canonical decimal string. */
  | { kind: 'lit'; type: 'int'; value: string }
  /** A double, as `String(x)` ('NaN', 'Infinity', '-0' included). */
  | { kind: 'lit'; type: 'float'; value: string }
  | { kind: 'lit'; type: 'string'; value: string };

export type ExprNode =
  | { kind: 'col'; name: string }
  | LiteralNode
  | { kind: 'unary'; op: UnaryOp; arg: ExprNode }
  | { kind: 'binary'; op: BinaryOp; left: ExprNode; right: ExprNode }
  | { kind: 'cast'; arg: ExprNode; to: TypeDesc }
  | { kind: 'alias'; arg: ExprNode; name: string }
  | { kind: 'field'; arg: ExprNode; name: string }
  | { kind: 'flatten'; arg: ExprNode }
  | { kind: 'call'; fn: FunctionName; args: ExprNode[] };

export const ARITH_OPS: readonly ArithOp[] = ['add', 'sub', 'mul', 'div', 'mod'];
export const COMPARE_OPS: readonly CompareOp[] = ['eq', 'ne', 'lt', 'le', 'gt', 'ge'];
export const FUNCTION_ARITY: Readonly<Record<FunctionName, [min: number, max: number]>> = {
  array: [1, Infinity],
  split: [2, 2],
  slice: [3, 3],
  cardinality: [1, 1],
  sequence: [2, 2],
  like: [2, 2],
  coalesce: [1, Infinity],
  case: [2, Infinity],
};

/**
 * The OR of `tests` (at least one) as a balanced tree: an IN list of thousands of values stays a
 * few dozen levels deep for the binder's and renderer's recursion.
 */
export function anyOf(tests: readonly ExprNode[]): ExprNode {
  if (tests.length === 1) return tests[0]!;
  const mid = tests.length >> 1;
  return { kind: 'binary', op: 'or', left: anyOf(tests.slice(0, mid)), right: anyOf(tests.slice(mid)) };
}

/** A float literal node; keeps -0, NaN and the infinities. */
export function floatLit(x: number): LiteralNode {
  return { kind: 'lit', type: 'float', value: Object.is(x, -0) ? '-0' : String(x) };
}

export function intLit(x: bigint | number): LiteralNode {
  return { kind: 'lit', type: 'int', value: BigInt(x).toString() };
}

/** The JS value of a literal: null, boolean, number (floats), bigint (ints) or string. */
export function literalValue(n: LiteralNode): null | boolean | number | bigint | string {
  switch (n.type) {
    case 'null':
      return null;
    case 'int':
      return BigInt(n.value);
    case 'float':
      return Number(n.value);
    default:
      return n.value;
  }
}
