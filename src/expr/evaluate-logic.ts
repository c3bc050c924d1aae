/**
 * Boolean kernels with SQL three-valued logic, 8 rows per step on packed bits:
 * for each operand, T = value & valid ("known true") and F = ~value & valid ("known false");
 * AND: T = Ta & Tb, F = Fa | Fb; OR: T = Ta | Tb, F = Fa & Fb; NOT swaps T and F.
 * The result's value bits are T and its validity T | F. IS [NOT] NULL reads validity only.
 */
import type { Data } from 'apache-arrow';
import type { TypeDesc } from '../types/column.js';
import type { Alloc } from './evaluate-data.js';
import { allocBits, boolBitsOf, makeResult, validityOf } from './evaluate-data.js';
import type { Val } from './evaluate-value.js';
import { isConst } from './evaluate-value.js';

const BOOL: TypeDesc = { kind: 'bool' };

/** Known-true and known-false bits of a bool operand, aligned, `nb` bytes. */
function truth(v: Val, nb: number): { T: Uint8Array; F: Uint8Array } {
  const T = new Uint8Array(nb);
  const F = new Uint8Array(nb);
  if (isConst(v)) {
    if (v.value === true) T.fill(0xff);
    else if (v.value === false) F.fill(0xff);
    return { T, F };
  }
  const val = boolBitsOf(v);
  const valid = validityOf(v);
  for (let i = 0; i < nb; i++) {
    const ok = valid ? valid[i] : 0xff;
    T[i] = val[i] & ok;
    F[i] = ~val[i] & ok;
  }
  return { T, F };
}

export function andOr(op: 'and' | 'or', a: Val, b: Val, n: number, alloc: Alloc): Data {
  const nb = (n + 7) >> 3;
  const x = truth(a, nb);
  const y = truth(b, nb);
  const value = allocBits(alloc, n);
  const valid = allocBits(alloc, n);
  if (op === 'and') {
    for (let i = 0; i < nb; i++) {
      const t = x.T[i] & y.T[i];
      value[i] = t;
      valid[i] = t | x.F[i] | y.F[i];
    }
  } else {
    for (let i = 0; i < nb; i++) {
      const t = x.T[i] | y.T[i];
      value[i] = t;
      valid[i] = t | (x.F[i] & y.F[i]);
    }
  }
  return makeResult(BOOL, n, valid, { data: value });
}

export function not(a: Data, n: number, alloc: Alloc): Data {
  const nb = (n + 7) >> 3;
  const val = boolBitsOf(a);
  const out = allocBits(alloc, n);
  for (let i = 0; i < nb; i++) out[i] = ~val[i];
  const v = validityOf(a);
  let validity: Uint8Array | null = null;
  if (v) {
    validity = allocBits(alloc, n);
    validity.set(v.subarray(0, nb));
  }
  return makeResult(BOOL, n, validity, { data: out });
}

export function isNull(a: Val, negate: boolean, n: number, alloc: Alloc): Data {
  const out = allocBits(alloc, n);
  if (isConst(a)) {
    if ((a.value === null) !== negate) out.fill(0xff);
  } else {
    const v = validityOf(a);
    if (!v) {
      if (negate) out.fill(0xff);
    } else if (negate) {
      out.set(v.subarray(0, out.length));
    } else {
      for (let i = 0; i < out.length; i++) out[i] = ~v[i];
    }
  }
  return makeResult(BOOL, n, null, { data: out });
}
