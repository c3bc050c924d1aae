/**
 * Operand values during evaluation: either a column (arrow `Data`, possibly sliced) or a
 * constant (`Const`) that kernels broadcast without materializing it per row when they can.
 * Constants are JS values by type: numbers for ints up to 32 bits, floats and date32; bigints
 * for 64-bit ints, date64, timestamps and durations; booleans; strings; null.
 */
import type { Data } from 'apache-arrow';
import type { TypeDesc } from '../types/column.js';
import { isString } from '../types/column.js';
import type { BoundLiteral } from './bind.js';
import type { Alloc } from './evaluate-data.js';
import { allocBits, ctorOf, decodeUtf8, ENCODER, getBit, is64, makeResult, strViewOf, validityOf, boolBitsOf } from './evaluate-data.js';

export type Scalar = null | boolean | number | bigint | string;

export class Const {
  constructor(readonly value: Scalar) {}
}

export type Val = Data | Const;

export function isConst(v: Val): v is Const {
  return v instanceof Const;
}

/** The constant of a bound literal, in the representation of its type. */
export function literalScalar(value: BoundLiteral, t: TypeDesc): Scalar {
  if (value === null || typeof value === 'boolean') return value;
  switch (t.kind) {
    case 'int':
      return t.bits === 64 ? BigInt(value) : Number(value);
    case 'float':
      return t.bits === 32 ? Math.fround(Number(value)) : Number(value);
    default:
      return value;
  }
}

/** Whether `t` can be a constant (folded) value. */
export function isPrimitive(t: TypeDesc): boolean {
  return t.kind === 'null' || t.kind === 'bool' || t.kind === 'int' || t.kind === 'float' || isString(t) ||
    t.kind === 'date' || t.kind === 'timestamp' || t.kind === 'duration';
}

/** A column of `length` copies of `value` of type `t`. */
export function materialize(value: Scalar, t: TypeDesc, length: number, alloc: Alloc): Data {
  if (t.kind === 'null') return makeResult(t, length, null, {});
  const validity = value === null ? allocBits(alloc, length) : null;
  switch (t.kind) {
    case 'bool': {
      const bits = allocBits(alloc, length);
      if (value === true) bits.fill(0xff);
      return makeResult(t, length, validity, { data: bits });
    }
    case 'utf8':
    case 'largeUtf8':
    case 'binary':
    case 'largeBinary': {
      const enc = typeof value === 'string' ? ENCODER.encode(value) : new Uint8Array(0);
      const bytes = alloc(Uint8Array, enc.length * length) as Uint8Array;
      const offsets = alloc(Int32Array, length + 1) as Int32Array;
      if (enc.length * length > 0x7fffffff) throw new RangeError('materialized string column exceeds 2 GiB');
      for (let i = 0; i < length; i++) {
        bytes.set(enc, i * enc.length);
        offsets[i + 1] = (i + 1) * enc.length;
      }
      const type: TypeDesc = t.kind === 'largeUtf8' ? { kind: 'utf8' } : t.kind === 'largeBinary' ? { kind: 'binary' } : t;
      return makeResult(type, length, validity, { data: bytes, valueOffsets: offsets });
    }
    default: {
      if (!isPrimitive(t)) {
        if (value !== null) throw new Error(`materialize: non-null constant of type ${t.kind}`);
        return nullColumn(t, length, alloc);
      }
      const ctor = ctorOf(t);
      const arr = alloc(ctor, length);
      if (value !== null) {
        if (is64(t)) (arr as BigInt64Array).fill(BigInt(value as bigint));
        else (arr as Float64Array).fill(Number(value));
      }
      return makeResult(t, length, validity, { data: arr });
    }
  }
}

/** An all-NULL column of any type (nested types get empty children). */
export function nullColumn(t: TypeDesc, length: number, alloc: Alloc): Data {
  const validity = allocBits(alloc, length);
  switch (t.kind) {
    case 'list':
    case 'map':
      return makeResult(t, length, validity, { valueOffsets: alloc(Int32Array, length + 1), child: nullColumn(t.child.type, 0, alloc) });
    case 'largeList':
      return makeResult(t, length, validity, { valueOffsets: alloc(BigInt64Array, length + 1), child: nullColumn(t.child.type, 0, alloc) });
    case 'fixedSizeList':
      return makeResult(t, length, validity, { child: nullColumn(t.child.type, length * t.size, alloc) });
    case 'struct':
      return makeResult(t, length, validity, { children: t.children.map((c) => nullColumn(c.type, length, alloc)) });
    default:
      return materialize(null, t, length, alloc);
  }
}

export function toData(v: Val, t: TypeDesc, length: number, alloc: Alloc): Data {
  return isConst(v) ? materialize(v.value, t, length, alloc) : v;
}

/** Row i of a primitive column as a constant. */
export function scalarAt(d: Data, t: TypeDesc, i: number): Scalar {
  if (t.kind === 'null') return null;
  const valid = validityOf(d);
  if (valid && !getBit(valid, i)) return null;
  switch (t.kind) {
    case 'bool':
      return getBit(boolBitsOf(d), i) === 1;
    case 'utf8':
    case 'largeUtf8':
    case 'binary':
    case 'largeBinary': {
      const s = strViewOf(d);
      return decodeUtf8(s.bytes, s.offsets[i], s.offsets[i + 1]);
    }
    default:
      return (d.values as Float64Array | BigInt64Array)[i];
  }
}
