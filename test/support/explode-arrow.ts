/**
 * Test helpers for explode and gather: TypeDesc -> arrow DataType (local, small), arrow Data
 * built from plain JS values with apache-arrow builders, and an independent reader of Data back
 * to plain JS values (validity through arrow's own `getValid`, raw buffers for leaves).
 *
 * JS value conventions: NULL is null; int64/uint64/date64/timestamp/duration are bigint; other
 * ints, floats and date32 are numbers; float16 is its raw uint16 bits; bool is boolean; utf8 is
 * string; binary is Uint8Array (read back as number[]); lists are arrays; structs are plain
 * objects; maps are arrays of [key, value] pairs (built from a JS Map).
 */
import * as A from 'apache-arrow';
import { fieldToArrow, typeToArrow } from '../../src/columns/arrow-types.js';
import type { Data, DataType } from 'apache-arrow';
import type { FieldDesc, TypeDesc } from '../../src/types/column.js';


/** The engine's own converter (src/columns/arrow-types), under the names these tests use. */
export function toArrowField(f: FieldDesc): A.Field {
  return fieldToArrow(f);
}

export function toArrowType(t: TypeDesc): DataType {
  return typeToArrow(t);
}

const FLAT_RAW = new Set(['int', 'float', 'date', 'timestamp', 'duration']);

/** Arrow Data of type `t` holding `values` (plain JS, see the module doc). */
export function makeColumn(values: readonly unknown[], t: TypeDesc): Data {
  if (FLAT_RAW.has(t.kind)) return makeFixed(values, t);
  const type = toArrowType(t);
  const b = A.makeBuilder({ type, nullValues: [null, undefined] });
  for (const v of values) b.append(toBuilderValue(v, t) as never);
  return b.finish().flush() as Data;
}

function toBuilderValue(v: unknown, t: TypeDesc): unknown {
  if (v === null || v === undefined) return null;
  switch (t.kind) {
    case 'list':
    case 'largeList':
    case 'fixedSizeList':
      return (v as unknown[]).map((x) => toBuilderValue(x, t.child.type));
    case 'struct': {
      const o: Record<string, unknown> = {};
      for (const c of t.children) o[c.name] = toBuilderValue((v as Record<string, unknown>)[c.name], c.type);
      return o;
    }
    case 'map': {
      const e = t.child.type as Extract<TypeDesc, { kind: 'struct' }>;
      const entries = v instanceof Map ? [...v.entries()] : (v as Array<[unknown, unknown]>);
      return new Map(entries.map(([k, x]) => [toBuilderValue(k, e.children[0].type), toBuilderValue(x, e.children[1].type)]));
    }
    default:
      // Leaves inside nested values go through arrow's builders: use ints, floats (not float16),
      // strings and bools there; dates/timestamps/durations only at the top level (raw path).
      return v;
  }
}

/** Fixed-width columns straight from typed arrays (raw values: exact int64, float16 bits). */
function makeFixed(values: readonly unknown[], t: TypeDesc): Data {
  const type = toArrowType(t);
  const n = values.length;
  const Ctor = (type as DataType).ArrayType as { new (n: number): ArrayLike<unknown> & Record<number, unknown> };
  const data = new Ctor(n);
  const bitmap = new Uint8Array(((n + 63) >> 6) << 3);
  let nulls = 0;
  values.forEach((v, i) => {
    if (v === null || v === undefined) nulls++;
    else {
      bitmap[i >> 3] |= 1 << (i & 7);
      data[i] = v;
    }
  });
  return A.makeData({ type, length: n, nullCount: nulls, nullBitmap: nulls ? bitmap : undefined, data } as never) as Data;
}

/** Plain JS values of every row of `d` (independent of src/columns). */
export function readData(d: Data): unknown[] {
  const n = d.length;
  const out: unknown[] = new Array(n);
  const id = d.type.typeId;
  const valid = (i: number): boolean => d.getValid(i);
  switch (id) {
    case A.Type.Null:
      return out.fill(null);
    case A.Type.Bool:
    case A.Type.Utf8:
    case A.Type.LargeUtf8: {
      const v = new A.Vector([d]);
      for (let i = 0; i < n; i++) out[i] = valid(i) ? v.get(i) : null;
      return out;
    }
    case A.Type.Binary:
    case A.Type.LargeBinary: {
      const v = new A.Vector([d]);
      for (let i = 0; i < n; i++) out[i] = valid(i) ? Array.from(v.get(i) as Uint8Array) : null;
      return out;
    }
    case A.Type.Int:
    case A.Type.Float:
    case A.Type.Date:
    case A.Type.Timestamp:
    case A.Type.Duration: {
      const vals = d.values as ArrayLike<unknown>;
      for (let i = 0; i < n; i++) out[i] = valid(i) ? vals[i] : null;
      return out;
    }
    case A.Type.List:
    case A.Type.LargeList:
    case A.Type.Map: {
      const child = readData(d.children[0]);
      const offs = d.valueOffsets as ArrayLike<number | bigint>;
      for (let i = 0; i < n; i++) {
        if (!valid(i)) {
          out[i] = null;
          continue;
        }
        const items = child.slice(Number(offs[i]), Number(offs[i + 1]));
        out[i] = id === A.Type.Map ? items.map((e) => (e === null ? null : Object.values(e as object))) : items;
      }
      return out;
    }
    case A.Type.FixedSizeList: {
      const size = (d.type as A.FixedSizeList).listSize;
      const child = readData(d.children[0]);
      for (let i = 0; i < n; i++) out[i] = valid(i) ? child.slice(i * size, (i + 1) * size) : null;
      return out;
    }
    case A.Type.Struct: {
      const fields = (d.type as A.Struct).children.map((f) => f.name);
      const kids = d.children.map((c) => readData(c));
      for (let i = 0; i < n; i++) {
        if (!valid(i)) {
          out[i] = null;
          continue;
        }
        const o: Record<string, unknown> = {};
        fields.forEach((f, k) => (o[f] = kids[k][i]));
        out[i] = o;
      }
      return out;
    }
    case A.Type.Dictionary: {
      const v = new A.Vector([d]);
      for (let i = 0; i < n; i++) out[i] = valid(i) ? v.get(i) : null;
      return out;
    }
    default:
      throw new Error(`readData: unsupported ${String(d.type)}`);
  }
}

/** Normalizes expected JS values the way readData reports them (maps as pair arrays, binary as number[]). */
export function normalize(v: unknown, t: TypeDesc): unknown {
  if (v === null || v === undefined) return null;
  switch (t.kind) {
    case 'list':
    case 'largeList':
    case 'fixedSizeList':
      return (v as unknown[]).map((x) => normalize(x, t.child.type));
    case 'struct': {
      const o: Record<string, unknown> = {};
      for (const c of t.children) o[c.name] = normalize((v as Record<string, unknown>)[c.name], c.type);
      return o;
    }
    case 'map': {
      const e = t.child.type as Extract<TypeDesc, { kind: 'struct' }>;
      const entries = v instanceof Map ? [...v.entries()] : (v as Array<[unknown, unknown]>);
      return entries.map(([k, x]) => [normalize(k, e.children[0].type), normalize(x, e.children[1].type)]);
    }
    case 'binary':
    case 'largeBinary':
      return Array.from(v as Uint8Array);
    default:
      return v;
  }
}

/** Structural invariants of a gather/concat/explode output. */
export function checkLayout(d: Data, path = 'data'): string[] {
  const problems: string[] = [];
  if (d.offset !== 0) problems.push(`${path}: offset ${d.offset}`);
  const bm = d.nullBitmap as Uint8Array | undefined;
  if (d.type.typeId !== A.Type.Null) {
    let nulls = 0;
    for (let i = 0; i < d.length; i++) if (bm && bm.length > 0 && ((bm[i >> 3] >> (i & 7)) & 1) === 0) nulls++;
    if (nulls !== d.nullCount) problems.push(`${path}: nullCount ${d.nullCount}, bitmap says ${nulls}`);
    if (nulls === 0 && bm && bm.length > 0) problems.push(`${path}: bitmap without NULLs`);
  }
  for (const buf of [d.values, d.valueOffsets, bm] as Array<ArrayBufferView | undefined>) {
    if (buf && buf.byteLength > 0 && !(buf.buffer instanceof SharedArrayBuffer)) problems.push(`${path}: buffer not shared`);
  }
  // Offsets start at 0 (gather and concat rebase them) and never decrease.
  const vo = d.valueOffsets as Int32Array | BigInt64Array | undefined;
  if (vo && vo.length > 0 && d.type.typeId !== A.Type.Dictionary) {
    if (Number(vo[0]) !== 0) problems.push(`${path}: offsets start at ${vo[0]}`);
    for (let i = 0; i < d.length; i++) if (Number(vo[i + 1]) < Number(vo[i])) problems.push(`${path}: offsets decrease at ${i}`);
  }
  d.children.forEach((c, k) => problems.push(...checkLayout(c, `${path}.${k}`)));
  return problems;
}
