/**
 * Vectorized evaluation of a bound expression over one batch.
 *
 * `evaluate(expr, columns, length, alloc?)` walks the tree once, column-at-a-time: every node
 * produces a whole column (arrow `Data`) or a constant (`Const`, never materialized per row
 * unless a kernel needs it). A node whose inputs are all constants is folded by running its
 * kernel on one row. Results are built with makeData on buffers from `alloc` (default: a new
 * SharedArrayBuffer per buffer, so results cross threads without copying); a bare column
 * reference returns the input Data itself. Inputs may be sliced Data (nonzero offset).
 * NULLs propagate through validity bitmaps (AND of the inputs); see the evaluate-* kernels
 * for each operation's semantics.
 *
 * `evaluatePredicate(expr, columns, length)` gives one byte per row: 1 only where the
 * condition is TRUE (FALSE and NULL → 0), for filter and the asof-join condition.
 */
import type { Data } from 'apache-arrow';
import type { TypeDesc } from '../types/column.js';
import type { ArithOp, CompareOp } from './ast.js';
import type { BoundExpr } from './bind.js';
import { arith, negate } from './evaluate-arith.js';
import { cast } from './evaluate-cast.js';
import { compare } from './evaluate-compare.js';
import type { Alloc } from './evaluate-data.js';
import { allocBits, boolBitsOf, getBit, makeResult, plainAlloc, sharedAlloc, validityOf } from './evaluate-data.js';
import { andOr, isNull, not } from './evaluate-logic.js';
import { cardinality, makeArray, sequence, slice, split } from './evaluate-list.js';
import { caseWhen, coalesce } from './evaluate-choose.js';
import { like } from './evaluate-like.js';
import type { Val } from './evaluate-value.js';
import { Const, isConst, isPrimitive, literalScalar, materialize, scalarAt, toData } from './evaluate-value.js';

export type { Alloc } from './evaluate-data.js';
export { sharedAlloc, plainAlloc } from './evaluate-data.js';

export function evaluate(expr: BoundExpr, columns: Data[], length: number, alloc: Alloc = sharedAlloc): Data {
  const v = evalNode(expr, columns, length, alloc);
  return isConst(v) ? materialize(v.value, expr.type, length, alloc) : v;
}

export function evaluatePredicate(expr: BoundExpr, columns: Data[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  const v = evalNode(expr, columns, length, plainAlloc);
  if (isConst(v)) {
    if (v.value === true) out.fill(1);
    return out;
  }
  if (expr.type.kind !== 'bool') throw new Error(`evaluatePredicate: expression is ${expr.type.kind}, not bool`);
  const bits = boolBitsOf(v);
  const valid = validityOf(v);
  for (let i = 0; i < length; i++) out[i] = (bits[i >> 3] >> (i & 7)) & 1;
  if (valid) for (let i = 0; i < length; i++) out[i] &= (valid[i >> 3] >> (i & 7)) & 1;
  return out;
}

function children(e: BoundExpr): BoundExpr[] {
  switch (e.kind) {
    case 'unary':
    case 'cast':
    case 'field':
      return [e.arg];
    case 'binary':
      return [e.left, e.right];
    case 'call':
      return e.args;
    default:
      return [];
  }
}

function evalNode(e: BoundExpr, columns: Data[], n: number, alloc: Alloc): Val {
  if (e.kind === 'col') {
    const d = columns[e.index];
    if (!d) throw new Error(`evaluate: no input column at index ${e.index} (${e.name})`);
    if (d.length !== n) throw new Error(`evaluate: column ${e.name} has ${d.length} rows, expected ${n}`);
    return d;
  }
  if (e.kind === 'lit') return new Const(literalScalar(e.value, e.type));
  const args = children(e).map((c) => evalNode(c, columns, n, alloc));
  if (args.every(isConst) && isPrimitive(e.type)) {
    // constant folding: run the kernel on one row
    const one = apply(e, args, 1, plainAlloc);
    return new Const(isConst(one) ? one.value : scalarAt(one, e.type, 0));
  }
  return apply(e, args, n, alloc);
}

function apply(e: BoundExpr, args: Val[], n: number, alloc: Alloc): Val {
  const data = (i: number, t: TypeDesc) => toData(args[i], t, n, alloc);
  switch (e.kind) {
    case 'cast':
      return cast(e.arg.type, e.type, data(0, e.arg.type), n, alloc);
    case 'field':
      return structField(data(0, e.arg.type), e.index, e.type, n, alloc);
    case 'unary':
      switch (e.op) {
        case 'neg':
          return negate(e.type, data(0, e.arg.type), n, alloc);
        case 'not':
          return not(data(0, e.arg.type), n, alloc);
        case 'isNull':
          return isNull(args[0], false, n, alloc);
        case 'isNotNull':
          return isNull(args[0], true, n, alloc);
      }
      break;
    case 'binary':
      switch (e.op) {
        case 'and':
        case 'or':
          return andOr(e.op, args[0], args[1], n, alloc);
        case 'add':
        case 'sub':
        case 'mul':
        case 'div':
        case 'mod':
          return arith(e.op as ArithOp, e.type, args[0], args[1], n, alloc, e.nullOnZero === true);
        default:
          return compare(e.op as CompareOp, e.left.type, e.right.type, args[0], args[1], n, alloc);
      }
    case 'call':
      switch (e.fn) {
        case 'array':
          return makeArray(e.type, args, n, alloc);
        case 'split':
          return split(e.type, args[0], args[1], n, alloc);
        case 'slice':
          return slice(e.type, e.args[0].type, data(0, e.args[0].type), args[1], args[2], n, alloc);
        case 'like':
          return like(args[0], args[1], n, alloc);
        case 'coalesce':
          return coalesce(e.type, args, n, alloc);
        case 'case':
          return caseWhen(e.type, args, n, alloc);
        case 'cardinality':
          return cardinality(e.args[0].type, data(0, e.args[0].type), n, alloc);
        case 'sequence':
          return sequence(e.type, args[0], args[1], n, alloc);
      }
      break;
  }
  throw new Error(`evaluate: unexpected node ${e.kind}`);
}

/** A struct's child, NULL where the struct row is NULL (buffers shared, bitmap rebuilt). */
function structField(s: Data, index: number, t: TypeDesc, n: number, alloc: Alloc): Data {
  const child = s.children[index];
  const sv = validityOf(s);
  if (!sv) return child;
  const cv = validityOf(child);
  const off = child.offset;
  const bits = allocBits(alloc, off + n);
  let valid = 0;
  for (let i = 0; i < n; i++) {
    if (getBit(sv, i) && (!cv || getBit(cv, i))) {
      bits[(off + i) >> 3] |= 1 << ((off + i) & 7);
      valid++;
    }
  }
  const buffers = child.buffers;
  if (t.kind === 'null') return makeResult(t, n, null, {});
  return child.clone(child.type, off, n, n - valid, [buffers[0], buffers[1], bits, buffers[3]] as never, child.children);
}
