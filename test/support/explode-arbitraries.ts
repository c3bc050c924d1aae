/**
 * fast-check arbitraries of typed columns for gather / explode tests: a TypeDesc and a JS value
 * generator (NULLs included) per case, following the conventions of explode-arrow.ts.
 */
import fc from 'fast-check';
import type { FieldDesc, TypeDesc } from '../../src/types/column.js';

export interface TypeCase {
  label: string;
  type: TypeDesc;
  value: fc.Arbitrary<unknown>;
}

const f = (name: string, type: TypeDesc, nullable = true): FieldDesc => ({ name, type, nullable });
const nullable = <T>(a: fc.Arbitrary<T>): fc.Arbitrary<T | null> => fc.option(a, { nil: null, freq: 4 });

const int32: TypeDesc = { kind: 'int', bits: 32, signed: true };
const int64: TypeDesc = { kind: 'int', bits: 64, signed: true };
const utf8: TypeDesc = { kind: 'utf8' };

const i32 = fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });
const i64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
// short strings mostly, long ones (> 48 bytes: the memcpy path of the gather) sometimes
const str = fc.oneof(
  { arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }), weight: 4 },
  { arbitrary: fc.string({ unit: 'grapheme', minLength: 40, maxLength: 90 }), weight: 1 },
);
const bytes = fc.oneof(
  { arbitrary: fc.uint8Array({ maxLength: 12 }), weight: 4 },
  { arbitrary: fc.uint8Array({ minLength: 49, maxLength: 100 }), weight: 1 },
);

export const structType: TypeDesc = { kind: 'struct', children: [f('a', int32), f('s', utf8)] };
const structValue = nullable(fc.record({ a: nullable(i32), s: nullable(str) }));

export const leafCases: TypeCase[] = [
  { label: 'int32', type: int32, value: nullable(i32) },
  { label: 'int64', type: int64, value: nullable(i64) },
  { label: 'uint8', type: { kind: 'int', bits: 8, signed: false }, value: nullable(fc.integer({ min: 0, max: 255 })) },
  { label: 'int16', type: { kind: 'int', bits: 16, signed: true }, value: nullable(fc.integer({ min: -32768, max: 32767 })) },
  { label: 'uint64', type: { kind: 'int', bits: 64, signed: false }, value: nullable(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n })) },
  { label: 'float64', type: { kind: 'float', bits: 64 }, value: nullable(fc.double()) },
  { label: 'float32', type: { kind: 'float', bits: 32 }, value: nullable(fc.float()) },
  { label: 'float16', type: { kind: 'float', bits: 16 }, value: nullable(fc.integer({ min: 0, max: 65535 })) },
  { label: 'bool', type: { kind: 'bool' }, value: nullable(fc.boolean()) },
  { label: 'utf8', type: utf8, value: nullable(str) },
  { label: 'largeUtf8', type: { kind: 'largeUtf8' }, value: nullable(str) },
  { label: 'binary', type: { kind: 'binary' }, value: nullable(bytes) },
  { label: 'largeBinary', type: { kind: 'largeBinary' }, value: nullable(bytes) },
  { label: 'date32', type: { kind: 'date', unit: 'day' }, value: nullable(i32) },
  { label: 'date64', type: { kind: 'date', unit: 'ms' }, value: nullable(i64) },
  { label: 'timestamp[us, UTC]', type: { kind: 'timestamp', unit: 'us', timezone: 'UTC' }, value: nullable(i64) },
  { label: 'duration[ns]', type: { kind: 'duration', unit: 'ns' }, value: nullable(i64) },
  { label: 'null', type: { kind: 'null' }, value: fc.constant(null) },
];

const list = (el: fc.Arbitrary<unknown>, maxLength = 5) => nullable(fc.array(el, { maxLength }));

export const nestedCases: TypeCase[] = [
  { label: 'list<int32>', type: { kind: 'list', child: f('item', int32) }, value: list(nullable(i32)) },
  { label: 'list<int64>', type: { kind: 'list', child: f('item', int64) }, value: list(nullable(i64)) },
  { label: 'largeList<utf8>', type: { kind: 'largeList', child: f('item', utf8) }, value: list(nullable(str)) },
  {
    label: 'fixedSizeList[3]<int32>',
    type: { kind: 'fixedSizeList', size: 3, child: f('item', int32) },
    value: nullable(fc.array(nullable(i32), { minLength: 3, maxLength: 3 })),
  },
  { label: 'struct<a: int32, s: utf8>', type: structType, value: structValue },
  { label: 'list<struct>', type: { kind: 'list', child: f('item', structType) }, value: list(structValue) },
  {
    label: 'list<list<utf8>>',
    type: { kind: 'list', child: f('item', { kind: 'list', child: f('item', utf8) }) },
    value: list(list(nullable(str), 3), 4),
  },
  {
    label: 'struct<l: list<int64>, b: bool>',
    type: { kind: 'struct', children: [f('l', { kind: 'list', child: f('item', int64) }), f('b', { kind: 'bool' })] },
    value: nullable(fc.record({ l: list(nullable(i64)), b: nullable(fc.boolean()) })),
  },
  {
    label: 'map<utf8, int32>',
    type: mapType(utf8, int32),
    value: nullable(fc.uniqueArray(fc.tuple(str, nullable(i32)), { maxLength: 4, selector: (e) => e[0] })),
  },
];

export function mapType(key: TypeDesc, value: TypeDesc): TypeDesc {
  return {
    kind: 'map',
    keysSorted: false,
    child: f('entries', { kind: 'struct', children: [f('key', key, false), f('value', value)] }, false),
  };
}

export const allCases: TypeCase[] = [...leafCases, ...nestedCases];

/** A column of a case: values plus a slice window (offset, length) into them. */
export function columnWithSlice(c: TypeCase, maxRows = 30) {
  return fc
    .array(c.value, { maxLength: maxRows })
    .chain((values) =>
      fc
        .integer({ min: 0, max: values.length })
        .chain((off) => fc.integer({ min: 0, max: values.length - off }).map((len) => ({ values, off, len }))),
    );
}
