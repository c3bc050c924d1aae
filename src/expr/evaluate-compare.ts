/**
 * Comparison kernels `= != < <= > >=`, producing a BOOL column (validity = AND of inputs).
 *
 * Domains (bind.ts already unified the operand types):
 * - numbers (ints up to 32 bits, floats, date32): one loop per (op, shape) on doubles; when a
 *   float operand holds NaN, a 3-way compare with NaN = NaN and NaN greatest (DuckDB/Spark).
 * - 64-bit (int64, uint64, date64, timestamp, duration): compared on Int32 halves (hi signed or
 *   unsigned per operand, then lo unsigned), so int64 against uint64 is exact and no BigInt is
 *   created.
 * - strings: byte-wise (UTF-8 byte order = code point order), shorter prefix first.
 * - bools: bitwise on whole bytes (false < true).
 * Results are one byte per row, packed to bits at the end.
 */
import type { Data } from 'apache-arrow';
import type { TypeDesc } from '../types/column.js';
import { isString } from '../types/column.js';
import type { CompareOp } from './ast.js';
import type { Alloc } from './evaluate-data.js';
import { allocBits, andValidity, boolBitsOf, ENCODER, halves, is64, makeResult, packBytes, strViewOf, validityOf } from './evaluate-data.js';
import type { Val } from './evaluate-value.js';
import { isConst, materialize } from './evaluate-value.js';

const BOOL: TypeDesc = { kind: 'bool' };
const FLIP: Record<CompareOp, CompareOp> = { eq: 'eq', ne: 'ne', lt: 'gt', le: 'ge', gt: 'lt', ge: 'le' };

export function compare(op: CompareOp, lt: TypeDesc, rt: TypeDesc, a: Val, b: Val, n: number, alloc: Alloc): Data {
  if ((isConst(a) && a.value === null) || (isConst(b) && b.value === null)) return materialize(null, BOOL, n, alloc);
  // constant on the left: flip so the column is on the left
  if (isConst(a) && !isConst(b)) return compare(FLIP[op], rt, lt, b, a, n, alloc);
  if (isConst(a)) a = materialize(a.value, lt, n, alloc);
  const A = a as Data;
  const validity = andValidity(alloc, n, validityOf(A), isConst(b) ? null : validityOf(b));
  const out = allocBits(alloc, n);
  if (lt.kind === 'bool') {
    compareBools(op, A, b, n, out);
  } else {
    const bytes = new Uint8Array(n);
    if (isString(lt)) compareStrings(op, A, b, n, bytes);
    else if (is64(lt)) compare64(op, A, b, lt, rt, n, bytes);
    else compareNumbers(op, A, b, lt.kind === 'float' || rt.kind === 'float', n, bytes);
    packBytes(bytes, n, out);
  }
  return makeResult(BOOL, n, validity, { data: out });
}

function compareNumbers(op: CompareOp, a: Data, b: Val, isFloat: boolean, n: number, r: Uint8Array): void {
  const A = a.values as Float64Array;
  const B = isConst(b) ? null : (b.values as Float64Array);
  const s = isConst(b) ? (b.value as number) : 0;
  if (isFloat && (hasNaN(A, n) || (B ? hasNaN(B, n) : s !== s))) {
    const c = new Int8Array(n);
    for (let i = 0; i < n; i++) c[i] = cmpTotal(A[i], B ? B[i] : s);
    fromThreeWay(op, c, n, r);
    return;
  }
  if (B) {
    switch (op) {
      case 'eq': for (let i = 0; i < n; i++) r[i] = A[i] === B[i] ? 1 : 0; break;
      case 'ne': for (let i = 0; i < n; i++) r[i] = A[i] !== B[i] ? 1 : 0; break;
      case 'lt': for (let i = 0; i < n; i++) r[i] = A[i] < B[i] ? 1 : 0; break;
      case 'le': for (let i = 0; i < n; i++) r[i] = A[i] <= B[i] ? 1 : 0; break;
      case 'gt': for (let i = 0; i < n; i++) r[i] = A[i] > B[i] ? 1 : 0; break;
      case 'ge': for (let i = 0; i < n; i++) r[i] = A[i] >= B[i] ? 1 : 0; break;
    }
  } else {
    switch (op) {
      case 'eq': for (let i = 0; i < n; i++) r[i] = A[i] === s ? 1 : 0; break;
      case 'ne': for (let i = 0; i < n; i++) r[i] = A[i] !== s ? 1 : 0; break;
      case 'lt': for (let i = 0; i < n; i++) r[i] = A[i] < s ? 1 : 0; break;
      case 'le': for (let i = 0; i < n; i++) r[i] = A[i] <= s ? 1 : 0; break;
      case 'gt': for (let i = 0; i < n; i++) r[i] = A[i] > s ? 1 : 0; break;
      case 'ge': for (let i = 0; i < n; i++) r[i] = A[i] >= s ? 1 : 0; break;
    }
  }
}

function hasNaN(A: Float64Array, n: number): boolean {
  for (let i = 0; i < n; i++) if (A[i] !== A[i]) return true;
  return false;
}

/** Total order for floats: NaN = NaN, NaN above everything, -0 = 0. */
export function cmpTotal(x: number, y: number): number {
  if (x < y) return -1;
  if (x > y) return 1;
  if (x === y) return 0;
  const xn = x !== x;
  const yn = y !== y;
  return xn && yn ? 0 : xn ? 1 : -1;
}

function fromThreeWay(op: CompareOp, c: Int8Array, n: number, r: Uint8Array): void {
  switch (op) {
    case 'eq': for (let i = 0; i < n; i++) r[i] = c[i] === 0 ? 1 : 0; break;
    case 'ne': for (let i = 0; i < n; i++) r[i] = c[i] !== 0 ? 1 : 0; break;
    case 'lt': for (let i = 0; i < n; i++) r[i] = c[i] < 0 ? 1 : 0; break;
    case 'le': for (let i = 0; i < n; i++) r[i] = c[i] <= 0 ? 1 : 0; break;
    case 'gt': for (let i = 0; i < n; i++) r[i] = c[i] > 0 ? 1 : 0; break;
    case 'ge': for (let i = 0; i < n; i++) r[i] = c[i] >= 0 ? 1 : 0; break;
  }
}

function isUnsigned(t: TypeDesc): boolean {
  return t.kind === 'int' && !t.signed;
}

function compare64(op: CompareOp, a: Data, b: Val, lt: TypeDesc, rt: TypeDesc, n: number, r: Uint8Array): void {
  const ha = halves(a.values as BigInt64Array);
  const lo1 = ha.lo;
  const hi1 = isUnsigned(lt) ? ha.uhi : ha.hi;
  const c = new Int8Array(n);
  if (isConst(b)) {
    const v = BigInt(b.value as bigint);
    const lo2 = Number(BigInt.asUintN(32, v));
    const hi2 = isUnsigned(rt) ? Number(BigInt.asUintN(32, v >> 32n)) : Number(BigInt.asIntN(32, v >> 32n));
    for (let i = 0; i < n; i++) {
      const x = hi1[2 * i + 1];
      const y = lo1[2 * i];
      c[i] = x < hi2 ? -1 : x > hi2 ? 1 : y < lo2 ? -1 : y > lo2 ? 1 : 0;
    }
  } else {
    const hb = halves(b.values as BigInt64Array);
    const lo2 = hb.lo;
    const hi2 = isUnsigned(rt) ? hb.uhi : hb.hi;
    for (let i = 0; i < n; i++) {
      const j = 2 * i;
      const x = hi1[j + 1];
      const y = hi2[j + 1];
      c[i] = x < y ? -1 : x > y ? 1 : lo1[j] < lo2[j] ? -1 : lo1[j] > lo2[j] ? 1 : 0;
    }
  }
  fromThreeWay(op, c, n, r);
}

function compareStrings(op: CompareOp, a: Data, b: Val, n: number, r: Uint8Array): void {
  const sa = strViewOf(a);
  const ao = sa.offsets;
  const ab = sa.bytes;
  let bo: Int32Array | Float64Array;
  let bb: Uint8Array;
  let constant = false;
  if (isConst(b)) {
    bb = ENCODER.encode(String(b.value));
    bo = new Int32Array([0, bb.length]);
    constant = true;
  } else {
    const sb = strViewOf(b);
    bo = sb.offsets;
    bb = sb.bytes;
  }
  const eqOnly = op === 'eq' || op === 'ne';
  const c = new Int8Array(n);
  for (let i = 0; i < n; i++) {
    const j = constant ? 0 : i;
    let p = ao[i];
    const pe = ao[i + 1];
    let q = bo[j];
    const qe = bo[j + 1];
    const la = pe - p;
    const lb = qe - q;
    if (eqOnly && la !== lb) {
      c[i] = 1;
      continue;
    }
    const m = la < lb ? la : lb;
    let res = 0;
    for (let k = 0; k < m; k++, p++, q++) {
      const x = ab[p];
      const y = bb[q];
      if (x !== y) {
        res = x < y ? -1 : 1;
        break;
      }
    }
    c[i] = res !== 0 ? res : la < lb ? -1 : la > lb ? 1 : 0;
  }
  fromThreeWay(op, c, n, r);
}

function compareBools(op: CompareOp, a: Data, b: Val, n: number, out: Uint8Array): void {
  const A = boolBitsOf(a);
  const nb = out.length;
  const B = isConst(b) ? new Uint8Array(nb).fill(b.value ? 0xff : 0) : boolBitsOf(b);
  for (let i = 0; i < nb; i++) {
    const x = A[i];
    const y = B[i];
    switch (op) {
      case 'eq': out[i] = ~(x ^ y); break;
      case 'ne': out[i] = x ^ y; break;
      case 'lt': out[i] = ~x & y; break;
      case 'le': out[i] = ~x | y; break;
      case 'gt': out[i] = x & ~y; break;
      case 'ge': out[i] = x | ~y; break;
    }
  }
}
