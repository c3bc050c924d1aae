/**
 * Window kernel outputs (src/ops/window: computed values or a 'take' of a measure column, in
 * sorted order) turned into column data.
 *
 * - windowOutputData: one output column as arrow Data in SORTED order. Computed values wrap the
 *   kernel's typed array (validity bytes → bitmap); a take is one gatherData of the measure
 *   column (any type: strings, binary, decimals, lists, structs), composing the sort permutation
 *   when the measure Data is in load order; lag/lead's default is a one-row literal appended to
 *   the measure, so TAKE_DEFAULT rows gather it.
 * - takeFixedValues: the same take for fixed-width measures as a typed array in the kernel's
 *   layout (bool: one byte per row, decimal128: four words per row), for callers that write
 *   fixed-width outputs into shared arrays.
 * - literalData: a resolved literal as a one-row arrow Data of a given type.
 */
import * as A from 'apache-arrow';
import { typeToArrow } from '../columns/arrow-types.js';
import { bytesToBitmap } from '../columns/bits.js';
import { sharedAlloc } from '../columns/arena.js';
import { concatData, gatherData } from '../columns/gather.js';
import type { ResolvedLiteral } from '../ops/window-literal.js';
import type { ResolvedWindowColumn } from '../ops/window-spec.js';
import { TAKE_DEFAULT, type WindowColumnOut } from '../ops/window.js';
import type { TypeDesc } from '../types/column.js';
import type { Allocator, KeyColumn, TypedArray, TypedArrayConstructor } from '../types/keys.js';

type Build = (props: Record<string, unknown>) => A.Data;
const build = A.makeData as unknown as Build;

/** Validity bitmap from bytes (1 = valid), or none when every row is valid. */
function validity(valid: Uint8Array | null, n: number): { nullCount: number; nullBitmap: Uint8Array | undefined } {
  if (!valid) return { nullCount: 0, nullBitmap: undefined };
  const { bitmap, set } = bytesToBitmap(valid, n);
  return set === n ? { nullCount: 0, nullBitmap: undefined } : { nullCount: n - set, nullBitmap: bitmap };
}

/**
 * One kernel output as arrow Data in sorted order. `measure` is the column the take reads
 * (rows in load order when `perm` is given: perm[sortedPosition] = row of `measure`; already
 * sorted when perm is null).
 */
export function windowOutputData(
  out: WindowColumnOut,
  col: ResolvedWindowColumn,
  measure: A.Data | null,
  perm: Uint32Array | null,
  alloc: Allocator = sharedAlloc,
): A.Data {
  if (out.kind === 'values') return computedData(col.type, out.values, out.valid);
  const src = measure!;
  const { index } = out;
  const n = index.length;
  const idx = alloc(Int32Array, n);
  let usesDefault = false;
  for (let r = 0; r < n; r++) {
    const j = index[r]!;
    if (j >= 0) idx[r] = perm ? perm[j]! : j;
    else if (j === TAKE_DEFAULT) {
      idx[r] = src.length;
      usesDefault = true;
    } else idx[r] = -1;
  }
  const from = usesDefault ? concatData([src, literalData(col.type, col.default!)], alloc) : src;
  return gatherData(from, idx, n, alloc);
}

/** Computed values in the kernel layout (decimal128: four words per row; validity bytes, 1 = valid) as arrow Data. */
export function computedData(type: TypeDesc, values: TypedArray, valid: Uint8Array | null, n = type.kind === 'decimal' ? values.length / 4 : values.length): A.Data {
  return build({ type: typeToArrow(type), length: n, ...validity(valid, n), data: values });
}

/** A one-row arrow Data holding the (non-NULL) literal `lit` as a value of `type`. */
export function literalData(type: TypeDesc, lit: ResolvedLiteral): A.Data {
  const t = typeToArrow(type);
  switch (type.kind) {
    case 'bool':
      return build({ type: t, length: 1, nullCount: 0, data: Uint8Array.of(lit.kind === 'bool' && lit.value ? 1 : 0) });
    case 'utf8':
    case 'largeUtf8':
    case 'binary':
    case 'largeBinary': {
      const bytes = lit.kind === 'bytes' ? Uint8Array.from(Buffer.from(lit.hex, 'hex')) : new TextEncoder().encode(lit.kind === 'string' ? lit.value : '');
      const large = type.kind === 'largeUtf8' || type.kind === 'largeBinary';
      const valueOffsets = large ? BigInt64Array.of(0n, BigInt(bytes.length)) : Int32Array.of(0, bytes.length);
      return build({ type: t, length: 1, nullCount: 0, valueOffsets, data: bytes });
    }
    default:
      return build({ type: t, length: 1, nullCount: 0, data: scalarArray(type, lit) });
  }
}

/** A fixed-width value in the typed-array layout of `type` (decimal: four words). */
function scalarArray(type: TypeDesc, lit: ResolvedLiteral): TypedArray {
  const t = typeToArrow(type) as A.DataType & { ArrayType: new (n: number) => TypedArray };
  if (type.kind === 'decimal') {
    const out = new Uint32Array(4);
    if (lit.kind === 'int') {
      const u = BigInt.asUintN(128, BigInt(lit.value));
      for (let k = 0; k < 4; k++) out[k] = Number((u >> BigInt(32 * k)) & 0xffffffffn);
    }
    return out;
  }
  const out = new t.ArrayType(1);
  if (lit.kind === 'int') {
    if (out instanceof BigInt64Array || out instanceof BigUint64Array) out[0] = BigInt(lit.value);
    else (out as Int32Array)[0] = Number(lit.value);
  } else if (lit.kind === 'float') (out as Float64Array)[0] = lit.value;
  return out;
}

/**
 * A fixed-width take as a typed array in the kernel layout: values[r] = m's value at index[r],
 * the default for TAKE_DEFAULT, NULL (valid 0) for -1. `alloc` provides the arrays.
 */
export function takeFixedValues(
  index: Int32Array,
  m: KeyColumn,
  lit: ResolvedLiteral | null,
  alloc: Allocator,
): { values: TypedArray; valid: Uint8Array | null } {
  const n = index.length;
  const ctor = m.values.constructor as TypedArrayConstructor;
  const values = alloc(ctor, m.type.kind === 'decimal' ? 4 * n : n);
  const bool = m.type.kind === 'bool';
  // Values move as integer words of their own size (64-bit and decimal as 32-bit words): bits
  // are copied exactly, no BigInt per row, no NaN canonicalization.
  const stride = m.type.kind === 'decimal' ? 4 : m.values.BYTES_PER_ELEMENT === 8 ? 2 : 1;
  const words = intView(m.values);
  const dst = intView(values);
  const dflt = lit && lit.kind !== 'null' ? (bool ? Uint8Array.of(lit.kind === 'bool' && lit.value ? 1 : 0) : scalarArray(m.type, lit)) : null;
  const dfltWords = dflt === null ? null : intView(dflt);
  const mv = m.valid;
  let valid: Uint8Array | null = null;
  for (let r = 0; r < n; r++) {
    const j = index[r]!;
    if (j >= 0 && (!mv || mv[j] !== 0)) {
      for (let k = 0; k < stride; k++) dst[r * stride + k] = words[j * stride + k]!;
    } else if (j === TAKE_DEFAULT && dfltWords) {
      for (let k = 0; k < stride; k++) dst[r * stride + k] = dfltWords[k]!;
    } else {
      if (!valid) {
        valid = alloc(Uint8Array, n);
        valid.fill(1);
      }
      valid[r] = 0;
    }
  }
  return { values, valid };
}

/** The same bytes as integers of the element size (8-byte elements as pairs of 32-bit words). */
function intView(a: TypedArray): Int32Array | Int16Array | Uint8Array {
  const b = a.BYTES_PER_ELEMENT;
  if (b >= 4) return new Int32Array(a.buffer, a.byteOffset, a.byteLength >>> 2);
  if (b === 2) return new Int16Array(a.buffer, a.byteOffset, a.byteLength >>> 1);
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}
