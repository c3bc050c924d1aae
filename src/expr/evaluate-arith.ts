/**
 * Arithmetic kernels: `+ - * / %` and unary `-` over two operands of the same numeric type
 * (bind.ts inserted the casts). One tight loop per (operation, shape), where the shape is
 * column⊕column, column⊕constant or constant⊕column (constants are never materialized).
 *
 * - Ints up to 32 bits and floats compute in doubles and store into the result typed array:
 *   the store wraps ints (two's complement) and rounds float32; 32-bit products use Math.imul
 *   so they stay exact before wrapping.
 * - 64-bit ints compute with BigInt operators on BigInt64Array/BigUint64Array elements and store
 *   into one, which wraps. No BigInt is allocated per value: V8 (Node 20) lowers `+ - * %` whose
 *   operands are 64-bit array elements and whose result is stored into a 64-bit array to int64
 *   machine instructions. A version on 32-bit words measured 1.2-6x slower on 1M rows, so
 *   these loops stay as they are: keep them in this shape (no intermediate bigint values).
 * - `%` on ints and `/` with `nullOnZero` (ints divided as float64) give NULL for a zero
 *   divisor; the validity is the AND of the inputs' validities.
 */
import type { Data } from 'apache-arrow';
import type { TypeDesc } from '../types/column.js';
import type { ArithOp } from './ast.js';
import type { Alloc } from './evaluate-data.js';
import { allocBits, andValidity, ctorOf, is64, makeResult, validityOf } from './evaluate-data.js';
import type { Val } from './evaluate-value.js';
import { isConst, materialize } from './evaluate-value.js';

type Num = Float64Array; // any numeric typed array read as numbers
type Big = BigInt64Array; // any 64-bit array read as bigints

export function arith(op: ArithOp, t: TypeDesc, a: Val, b: Val, n: number, alloc: Alloc, nullOnZero: boolean): Data {
  if ((isConst(a) && a.value === null) || (isConst(b) && b.value === null)) return materialize(null, t, n, alloc);
  if (isConst(a) && isConst(b)) a = materialize(a.value, t, n, alloc);
  const validity = andValidity(alloc, n, isConst(a) ? null : validityOf(a), isConst(b) ? null : validityOf(b));
  const out = alloc(ctorOf(t), n);
  const A = isConst(a) ? null : a.values;
  const B = isConst(b) ? null : b.values;
  const sa = isConst(a) ? a.value : null;
  const sb = isConst(b) ? b.value : null;
  let zeros: Uint8Array | null = null;
  if (is64(t)) {
    zeros = big(op, out as Big, A as Big | null, B as Big | null, sa as bigint, sb as bigint, n);
  } else {
    const isInt = t.kind === 'int';
    zeros = num(op, out as Num, A as Num | null, B as Num | null, sa as number, sb as number, n, isInt, isInt && t.bits === 32, nullOnZero);
  }
  let valid = validity;
  if (zeros) {
    // zeros: bit i set where the divisor is zero → clear validity
    if (!valid) valid = allocBits(alloc, n).fill(0xff);
    for (let i = 0; i < valid.length; i++) valid[i] &= ~zeros[i];
  }
  return makeResult(t, n, valid, { data: out });
}

function zeroBits(B: Num | null, sb: number, n: number): Uint8Array | null {
  if (!B) return sb === 0 ? new Uint8Array((n + 7) >> 3).fill(0xff) : null;
  let bits: Uint8Array | null = null;
  for (let i = 0; i < n; i++) {
    if (B[i] === 0) {
      bits ??= new Uint8Array((n + 7) >> 3);
      bits[i >> 3] |= 1 << (i & 7);
    }
  }
  return bits;
}

function num(op: ArithOp, out: Num, A: Num | null, B: Num | null, sa: number, sb: number, n: number, isInt: boolean, i32: boolean, nullOnZero: boolean): Uint8Array | null {
  switch (op) {
    case 'add':
      if (A && B) for (let i = 0; i < n; i++) out[i] = A[i] + B[i];
      else if (A) for (let i = 0; i < n; i++) out[i] = A[i] + sb;
      else for (let i = 0; i < n; i++) out[i] = sa + B![i];
      return null;
    case 'sub':
      if (A && B) for (let i = 0; i < n; i++) out[i] = A[i] - B[i];
      else if (A) for (let i = 0; i < n; i++) out[i] = A[i] - sb;
      else for (let i = 0; i < n; i++) out[i] = sa - B![i];
      return null;
    case 'mul':
      if (i32) {
        if (A && B) for (let i = 0; i < n; i++) out[i] = Math.imul(A[i], B[i]);
        else if (A) for (let i = 0; i < n; i++) out[i] = Math.imul(A[i], sb);
        else for (let i = 0; i < n; i++) out[i] = Math.imul(sa, B![i]);
      } else {
        if (A && B) for (let i = 0; i < n; i++) out[i] = A[i] * B[i];
        else if (A) for (let i = 0; i < n; i++) out[i] = A[i] * sb;
        else for (let i = 0; i < n; i++) out[i] = sa * B![i];
      }
      return null;
    case 'div':
      if (A && B) for (let i = 0; i < n; i++) out[i] = A[i] / B[i];
      else if (A) for (let i = 0; i < n; i++) out[i] = A[i] / sb;
      else for (let i = 0; i < n; i++) out[i] = sa / B![i];
      return nullOnZero ? zeroBits(B, sb, n) : null;
    case 'mod':
      // ints: x % 0 is NaN, stored as 0 in an int array; the row becomes NULL below
      if (A && B) for (let i = 0; i < n; i++) out[i] = A[i] % B[i];
      else if (A) for (let i = 0; i < n; i++) out[i] = A[i] % sb;
      else for (let i = 0; i < n; i++) out[i] = sa % B![i];
      return isInt ? zeroBits(B, sb, n) : null;
  }
}

function big(op: ArithOp, out: Big, A: Big | null, B: Big | null, sa: bigint, sb: bigint, n: number): Uint8Array | null {
  switch (op) {
    case 'add':
      if (A && B) for (let i = 0; i < n; i++) out[i] = A[i] + B[i];
      else if (A) for (let i = 0; i < n; i++) out[i] = A[i] + sb;
      else for (let i = 0; i < n; i++) out[i] = sa + B![i];
      return null;
    case 'sub':
      if (A && B) for (let i = 0; i < n; i++) out[i] = A[i] - B[i];
      else if (A) for (let i = 0; i < n; i++) out[i] = A[i] - sb;
      else for (let i = 0; i < n; i++) out[i] = sa - B![i];
      return null;
    case 'mul':
      if (A && B) for (let i = 0; i < n; i++) out[i] = A[i] * B[i];
      else if (A) for (let i = 0; i < n; i++) out[i] = A[i] * sb;
      else for (let i = 0; i < n; i++) out[i] = sa * B![i];
      return null;
    case 'mod': {
      let zeros: Uint8Array | null = null;
      if (!B && sb === 0n) return new Uint8Array((n + 7) >> 3).fill(0xff);
      for (let i = 0; i < n; i++) {
        const d = B ? B[i] : sb;
        if (d === 0n) {
          zeros ??= new Uint8Array((n + 7) >> 3);
          zeros[i >> 3] |= 1 << (i & 7);
        } else {
          out[i] = (A ? A[i] : sa) % d;
        }
      }
      return zeros;
    }
    case 'div':
      throw new Error('64-bit integer division is evaluated as float64 (bind.ts)');
  }
}

/** Unary minus (wraps for ints: -MIN = MIN). */
export function negate(t: TypeDesc, a: Data, n: number, alloc: Alloc): Data {
  const out = alloc(ctorOf(t), n);
  if (is64(t)) {
    const A = a.values as Big;
    const o = out as Big;
    for (let i = 0; i < n; i++) o[i] = -A[i];
  } else {
    const A = a.values as Num;
    const o = out as Num;
    for (let i = 0; i < n; i++) o[i] = -A[i];
  }
  return makeResult(t, n, andValidity(alloc, n, validityOf(a)), { data: out });
}
