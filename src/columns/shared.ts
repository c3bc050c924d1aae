/**
 * Columns in SharedArrayBuffers, and their thread-safe descriptors.
 *
 * - `toSharedData` copies any arrow Data into SharedArrayBuffers, normalized to offset 0 with
 *   offsets rebased, so a worker can view it without another copy.
 * - `describeData` / `rebuildData` turn such Data into plain descriptors (type + buffer regions)
 *   and back with `makeData`: the typed-array views are rebuilt over the same shared memory.
 * - `toKeyColumn` exposes one column as plain typed arrays for sorts, hashes and kernels.
 *
 * Arrow-js buffer conventions kept here: fixed-width `values` and `valueOffsets` are already
 * sliced to row 0; bool values and validity bitmaps keep the Data's bit `offset`; struct and
 * fixed-size-list children are sliced to row 0, list children are addressed by the offsets.
 */
import { shiftedCopy } from './array-loops.js';
import * as A from 'apache-arrow';
import type { BatchDesc, BufRef, ColumnDesc } from '../types/column.js';
import type { KeyColumn, TypedArray, TypedArrayConstructor } from '../types/keys.js';
import { schemaFromArrow, typeFromArrow, typeToArrow } from './arrow-types.js';
import { bitmapToBytes, countSet, sliceBitmap } from './bits.js';
import { type Allocator, sharedAlloc } from './arena.js';
import { build, type ConcatChunk, concatData, gatherData, offsetsOf, valueLayout } from './gather.js';

export type { TypedArrayConstructor };


/**
 * Told of each verbatim copy toSharedData makes (`to` holds the bytes of `from`), so a caller
 * can find copied bytes again in the memory they came from (src/coordinator/loan-copies).
 */
export type OnCopy = (from: TypedArray, to: TypedArray) => void;

/** A copy of `src` in memory from `alloc` (default: a new SharedArrayBuffer). */
export function copyShared<T extends TypedArray>(src: T, alloc: Allocator = sharedAlloc, onCopy?: OnCopy): T {
  const ctor = src.constructor as TypedArrayConstructor<T>;
  const out = alloc(ctor, src.length);
  (out as unknown as { set(a: T): void }).set(src);
  onCopy?.(src, out);
  return out;
}


/** Deep copy of `data` into shared memory, normalized to offset 0; dictionaries are decoded. */
export function toSharedData(data: A.Data, alloc: Allocator = sharedAlloc, onCopy?: OnCopy): A.Data {
  const t = data.type as A.DataType;
  const n = data.length;
  const off = data.offset;
  if (t.typeId === A.Type.Dictionary) return toSharedData(decodeDictionary(data as A.Data<A.Dictionary>), alloc, onCopy);
  const nullCount = t.typeId === A.Type.Null ? n : data.nullCount;
  const nullBitmap = nullCount > 0 && data.nullBitmap && data.nullBitmap.length > 0 ? copyShared(sliceBitmap(data.nullBitmap, off, n), alloc, onCopy) : undefined;
  const base = { type: t, offset: 0, length: n, nullCount: nullBitmap ? nullCount : 0, nullBitmap } as const;
  switch (t.typeId) {
    case A.Type.Null:
      return A.makeData({ type: t as A.Null, length: n, nullCount: n });
    case A.Type.Bool:
      return A.makeData({ ...base, type: t as A.Bool, data: copyShared(sliceBitmap(data.values as Uint8Array, off, n), alloc, onCopy) });
    case A.Type.Int:
    case A.Type.Float:
    case A.Type.Date:
    case A.Type.Timestamp:
    case A.Type.Duration:
    case A.Type.Decimal: {
      const values = data.values as TypedArray;
      const stride = data.stride;
      return build({ ...base, type: t, data: copyShared(values.subarray(0, n * stride), alloc, onCopy) });
    }
    case A.Type.Utf8:
    case A.Type.Binary: {
      const { offsets, start, end } = rebaseOffsets32(data.valueOffsets as Int32Array, n, alloc);
      const bytes = copyShared((data.values as Uint8Array).subarray(start, end), alloc, onCopy);
      return A.makeData({ ...base, type: t as A.Utf8, valueOffsets: offsets, data: bytes });
    }
    case A.Type.LargeUtf8:
    case A.Type.LargeBinary: {
      const { offsets, start, end } = rebaseOffsets64(data.valueOffsets as unknown as BigInt64Array, n, alloc);
      const bytes = copyShared((data.values as Uint8Array).subarray(start, end), alloc, onCopy);
      return A.makeData({ ...base, type: t as A.LargeUtf8, valueOffsets: offsets, data: bytes });
    }
    case A.Type.List:
    case A.Type.Map: {
      const { offsets, start, end } = rebaseOffsets32(data.valueOffsets as Int32Array, n, alloc);
      const child = toSharedData(data.children[0]!.slice(start, end - start), alloc, onCopy);
      return build({ ...base, type: t, valueOffsets: offsets, child });
    }
    case A.Type.LargeList: {
      const { offsets, start, end } = rebaseOffsets64(data.valueOffsets as unknown as BigInt64Array, n, alloc);
      const child = toSharedData(data.children[0]!.slice(start, end - start), alloc, onCopy);
      return A.makeData({ ...base, type: t as A.LargeList, valueOffsets: offsets, child });
    }
    case A.Type.FixedSizeList: {
      const size = (t as A.FixedSizeList).listSize;
      const child = toSharedData(prefix(data.children[0]!, n * size), alloc, onCopy);
      return A.makeData({ ...base, type: t as A.FixedSizeList, child });
    }
    case A.Type.Struct: {
      const children = data.children.map((c) => toSharedData(prefix(c, n), alloc, onCopy));
      return A.makeData({ ...base, type: t as A.Struct, children });
    }
    default:
      // typeFromArrow raises the typed "unsupported type" error.
      typeFromArrow(t);
      throw new Error(`unreachable: ${String(t)}`);
  }
}

function prefix(d: A.Data, n: number): A.Data {
  return d.length === n ? d : d.slice(0, n);
}

function rebaseOffsets32(src: Int32Array, n: number, alloc: Allocator): { offsets: Int32Array; start: number; end: number } {
  const start = n === 0 ? 0 : src[0]!;
  const end = n === 0 ? 0 : src[n]!;
  const offsets = alloc(Int32Array, n + 1);
  // No rows: the one offset is 0 (src[0] may be anything, a slice's start).
  if (n === 0) offsets[0] = 0;
  else if (start === 0) offsets.set(src.subarray(0, n + 1));
  else shiftedCopy(src, 0, n + 1, -start, offsets, 0);
  return { offsets, start, end };
}

function rebaseOffsets64(src: BigInt64Array, n: number, alloc: Allocator): { offsets: BigInt64Array; start: number; end: number } {
  const start = n === 0 ? 0n : src[0]!;
  const end = n === 0 ? 0n : src[n]!;
  const offsets = alloc(BigInt64Array, n + 1);
  offsets[0] = 0n;
  for (let i = 1; i <= n; i++) offsets[i] = src[i]! - start;
  return { offsets, start: Number(start), end: Number(end) };
}

/** A dictionary column as a plain column of its value type (gather of the dictionary by index). */
export function decodeDictionary(data: A.Data<A.Dictionary>): A.Data {
  // A dictionary may arrive in several chunks (delta dictionaries): view it as one column.
  const chunks = data.dictionary!.data;
  const dict = chunks.length === 1 ? chunks[0]! : concatData([...chunks]);
  const n = data.length;
  const idx = new Int32Array(n);
  const keys = data.values as ArrayLike<number | bigint>;
  const valid = data.nullCount > 0 ? bitmapToBytes(data.nullBitmap, data.offset, n) : null;
  for (let i = 0; i < n; i++) idx[i] = valid && !valid[i] ? -1 : Number(keys[i]!);
  return gatherData(dict, idx);
}

function bufRef(view: ArrayBufferView | null | undefined, what: string, transferable: boolean): BufRef | null {
  if (!view || view.byteLength === 0 && !(view.buffer instanceof SharedArrayBuffer)) return null;
  if (transferable && view.buffer instanceof ArrayBuffer) return { sab: view.buffer, byteOffset: view.byteOffset, byteLength: view.byteLength };
  if (!(view.buffer instanceof SharedArrayBuffer)) {
    throw new Error(`internal: ${what} buffer is not in shared memory; call toSharedData first`);
  }
  return { sab: view.buffer, byteOffset: view.byteOffset, byteLength: view.byteLength };
}

/** The buffer regions of a column desc, in one fixed order (validity, offsets, values, then the children's). */
export function bufRefsOf(c: ColumnDesc): BufRef[] {
  const own = [c.validity, c.offsets, c.values].filter((r): r is BufRef => r !== null);
  return [...own, ...c.children.flatMap(bufRefsOf)];
}

/**
 * Plain descriptor of a Data whose buffers are all in SharedArrayBuffers, or (`transferable`)
 * in ArrayBuffers the caller puts in the message's transfer list.
 */
export function describeData(data: A.Data, transferable = false): ColumnDesc {
  return {
    type: typeFromArrow(data.type),
    length: data.length,
    offset: data.offset,
    nullCount: data.typeId === A.Type.Null ? data.length : data.nullCount,
    validity: data.nullCount > 0 ? bufRef(data.nullBitmap, 'validity', transferable) : null,
    offsets: bufRef(data.valueOffsets as ArrayBufferView | undefined, 'offsets', transferable),
    values: bufRef(data.values as ArrayBufferView | undefined, 'values', transferable),
    children: data.children.map((c) => describeData(c, transferable)),
  };
}

/** The region a descriptor names, as a view of its buffer (no copy). */
export function viewOf<T extends TypedArray>(ctor: TypedArrayConstructor<T>, ref: BufRef): T {
  return new ctor(ref.sab, ref.byteOffset, ref.byteLength / ctor.BYTES_PER_ELEMENT);
}

/**
 * Row `i` of a uint32 column (a chunk's row ids) read through one view of its buffer: the
 * exchange reads a chunk's first and last id for each of hundreds of thousands of chunks, where
 * an Arrow Data per read held the coordinator's time.
 */
export function uint32At(desc: ColumnDesc, i: number): number {
  // A fixed-width column's values start at its row 0 (Arrow slices them); `offset` is the validity bitmap's.
  const ref = desc.values!;
  return new Uint32Array(ref.sab, ref.byteOffset + 4 * i, 1)[0]!;
}

/** The descriptor of a typed array over a SharedArrayBuffer. */
export function bufRefOf(a: TypedArray): BufRef {
  return bufRef(a, 'array', false)!;
}

function view<T extends TypedArray>(ctor: TypedArrayConstructor<T>, ref: BufRef | null): T | undefined {
  return ref ? viewOf(ctor, ref) : undefined;
}

const NO_BITMAP = new Uint8Array(0);

/**
 * How a flat column's rows lie in its buffers, once per type object (null: nested, dictionary
 * and null types): fixed-width values as `values` (typed array `ctor`, `stride` elements and
 * `rowBytes` bytes a row), bits, or bytes with offsets of `offsetBytes` each.
 */
export interface FlatLayout {
  layout: 'fixed' | 'bool' | 'varbinary';
  ctor: TypedArrayConstructor;
  stride: number;
  rowBytes: number;
  offsetBytes: 4 | 8;
}
const flatLayouts = new WeakMap<A.DataType, FlatLayout | null>();
export function flatLayoutOf(type: A.DataType): FlatLayout | null {
  let f = flatLayouts.get(type);
  if (f !== undefined) return f;
  const layout = valueLayout(type);
  if (layout === 'fixed' || layout === 'bool' || layout === 'varbinary') {
    const ctor = layout === 'fixed' ? ((type as A.DataType).ArrayType as unknown as TypedArrayConstructor) : Uint8Array;
    const stride = layout === 'fixed' ? new A.Data(type, 0, 0).stride : 1;
    const large = type.typeId === A.Type.LargeUtf8 || type.typeId === A.Type.LargeBinary;
    f = { layout, ctor, stride, rowBytes: layout === 'fixed' ? stride * ctor.BYTES_PER_ELEMENT : 0, offsetBytes: large ? 8 : 4 };
  } else f = null;
  flatLayouts.set(type, f);
  return f;
}

/**
 * A flat column's buffers as concatData reads them, viewed in place without building an Arrow
 * Data (makeData per chunk held the coordinator when the exchange merged ~700K chunk columns
 * of a spilled run); null for nested, dictionary and null types, which take rebuildWithType.
 */
export function flatViewOf(desc: Pick<ColumnDesc, 'length' | 'offset' | 'nullCount' | 'validity' | 'offsets' | 'values'>, type: A.DataType): ConcatChunk | null {
  const f = flatLayoutOf(type);
  if (!f) return null;
  const nullBitmap = view(Uint8Array, desc.validity);
  return {
    type,
    length: desc.length,
    offset: desc.offset,
    stride: f.stride,
    nullCount: nullBitmap ? desc.nullCount : 0,
    nullBitmap: nullBitmap ?? NO_BITMAP,
    values: view(f.ctor, desc.values),
    valueOffsets: f.layout === 'varbinary' ? (f.offsetBytes === 8 ? view(BigInt64Array, desc.offsets) : view(Int32Array, desc.offsets)) : undefined,
    children: [],
    dictionary: undefined,
  };
}

/**
 * Cuts one column descriptor into row ranges: `(start, length)` gives what describeData of the
 * Data's slice would (a flat column's regions and bit offset worked out from the descriptor,
 * its null count from the bitmap), without building Arrow Data per range; nested, dictionary
 * and null columns go through their Data, made once.
 */
export function descSlicer(desc: ColumnDesc): (start: number, length: number) => ColumnDesc {
  const type = typeToArrow(desc.type);
  const f = flatLayoutOf(type);
  if (!f) {
    const data = rebuildWithType(desc, type);
    return (start, length) => describeData(data.slice(start, length));
  }
  const { layout, rowBytes, offsetBytes } = f;
  const bitmap = view(Uint8Array, desc.validity);
  const region = (ref: BufRef | null, from: number, bytes: number): BufRef | null => (ref ? { sab: ref.sab, byteOffset: ref.byteOffset + from, byteLength: bytes } : null);
  return (start, length) => {
    const offset = desc.offset + start;
    const nullCount = bitmap && desc.nullCount > 0 ? length - countSet(bitmap, offset, length) : 0;
    return {
      type: desc.type,
      length,
      offset,
      nullCount,
      validity: nullCount > 0 ? desc.validity : null,
      // Arrow slices fixed-width values and value offsets to row 0; bits and bytes stay whole.
      offsets: layout === 'varbinary' ? region(desc.offsets, start * offsetBytes, (length + 1) * offsetBytes) : null,
      values: layout === 'fixed' ? region(desc.values, start * rowBytes, length * rowBytes) : desc.values,
      children: [],
    };
  };
}

/** Arrow Data over the shared buffers a descriptor names (no copy). */
export function rebuildData(desc: ColumnDesc): A.Data {
  const type = typeToArrow(desc.type);
  return rebuildWithType(desc, type);
}

/** Like rebuildData, for a caller that already holds the column's Arrow type (no type object per call). */
export function rebuildWithType(desc: ColumnDesc, type: A.DataType): A.Data {
  const nullBitmap = view(Uint8Array, desc.validity);
  const base = { type, offset: desc.offset, length: desc.length, nullCount: nullBitmap ? desc.nullCount : 0, nullBitmap };
  const children = desc.children.map((c, i) => rebuildWithType(c, type.children[i]!.type));
  switch (type.typeId) {
    case A.Type.Null:
      return A.makeData({ type: type as A.Null, offset: desc.offset, length: desc.length, nullCount: desc.length });
    case A.Type.Utf8:
    case A.Type.Binary:
      return A.makeData({ ...base, type: type as A.Utf8, valueOffsets: view(Int32Array, desc.offsets)!, data: view(Uint8Array, desc.values) });
    case A.Type.LargeUtf8:
    case A.Type.LargeBinary:
      return A.makeData({ ...base, type: type as A.LargeUtf8, valueOffsets: view(BigInt64Array, desc.offsets)!, data: view(Uint8Array, desc.values) });
    case A.Type.List:
    case A.Type.Map:
      return build({ ...base, type, valueOffsets: view(Int32Array, desc.offsets)!, child: children[0]! });
    case A.Type.LargeList:
      return A.makeData({ ...base, type: type as A.LargeList, valueOffsets: view(BigInt64Array, desc.offsets)!, child: children[0]! });
    case A.Type.FixedSizeList:
      return A.makeData({ ...base, type: type as A.FixedSizeList, child: children[0]! });
    case A.Type.Struct:
      return A.makeData({ ...base, type: type as A.Struct, children });
    default: {
      const ctor = (type as A.DataType).ArrayType as unknown as TypedArrayConstructor;
      return build({ ...base, type, data: view(ctor, desc.values) });
    }
  }
}

/** Shared copy of a batch, as a descriptor. */
export function describeBatch(batch: A.RecordBatch, alloc: Allocator = sharedAlloc, onCopy?: OnCopy): BatchDesc {
  return {
    schema: schemaFromArrow(batch.schema),
    length: batch.numRows,
    columns: batch.data.children.map((c) => describeData(isAllShared(c) ? c : toSharedData(c, alloc, onCopy))),
  };
}


export function batchFromColumns(schema: A.Schema, columns: A.Data[], length: number): A.RecordBatch {
  const data = A.makeData({ type: new A.Struct(schema.fields), length, nullCount: 0, children: columns });
  return new A.RecordBatch(schema, data);
}

/**
 * The non-empty buffers of `d` (values, offsets, validity bitmap) and of its children,
 * recursively: what a column views, for asking where it points.
 */
export function buffersOf(d: A.Data, out: ArrayBufferView[] = []): ArrayBufferView[] {
  for (const b of [d.values, d.valueOffsets, d.nullBitmap] as Array<ArrayBufferView | undefined>) if (b !== undefined && b !== null && b.byteLength > 0) out.push(b);
  for (const c of d.children) buffersOf(c, out);
  return out;
}

/** True when every buffer of `data` (recursively) lives in shared memory and it has no dictionary. */
export function isAllShared(data: A.Data): boolean {
  if (data.typeId === A.Type.Dictionary) return false;
  const bufs = [data.values, data.valueOffsets, data.nullCount > 0 ? data.nullBitmap : undefined] as Array<ArrayBufferView | undefined>;
  for (const b of bufs) if (b && b.byteLength > 0 && !(b.buffer instanceof SharedArrayBuffer)) return false;
  return data.children.every(isAllShared);
}

/** 64-bit string offsets as 32-bit ones (one partition's bytes stay far below 2^31), from `alloc` when given. */
function int32Offsets(offsets: ArrayLike<number>, alloc: Allocator | undefined): Int32Array {
  const out = alloc ? alloc(Int32Array, offsets.length, 'overwritten') : new Int32Array(offsets.length);
  for (let i = 0; i < offsets.length; i++) out[i] = offsets[i]!;
  return out;
}

/**
 * One column of `length` rows as typed arrays (see KeyColumn); what it makes (validity and
 * bool bytes, 32-bit offsets of large strings) from `alloc` when given.
 */
export function toKeyColumn(data: A.Data, alloc?: Allocator): KeyColumn {
  const t = typeFromArrow(data.type);
  const n = data.length;
  const bytes = (): Uint8Array | undefined => alloc?.(Uint8Array, n, 'overwritten');
  const valid = data.nullCount > 0 ? bitmapToBytes(data.nullBitmap, data.offset, n, bytes()) : null;
  switch (t.kind) {
    case 'bool':
      return { type: t, length: n, values: bitmapToBytes(data.values as Uint8Array, data.offset, n, bytes()), offsets: null, valid };
    case 'utf8':
    case 'binary':
      return { type: t, length: n, values: data.values as Uint8Array, offsets: (data.valueOffsets as Int32Array).subarray(0, n + 1), valid };
    case 'largeUtf8':
    case 'largeBinary':
      // 64-bit offsets as 32-bit ones: one partition's key bytes stay far below 2^31.
      return { type: t, length: n, values: data.values as Uint8Array, offsets: int32Offsets(offsetsOf(data), alloc), valid };
    case 'int':
    case 'float':
    case 'date':
    case 'timestamp':
    case 'duration':
      return { type: t, length: n, values: (data.values as TypedArray).subarray(0, n), offsets: null, valid };
    case 'decimal':
      return { type: t, length: n, values: (data.values as Uint32Array).subarray(0, 4 * n), offsets: null, valid };
    case 'null':
      return { type: t, length: n, values: new Uint8Array(n), offsets: null, valid: new Uint8Array(n) };
    default:
      throw new Error(`internal: ${t.kind} cannot be a key column`);
  }
}

/**
 * Bytes `toSharedData` allocates for `data` (its rows only, as a slice sees them, with 8-byte
 * alignment per buffer): what a copy of a slice costs, where dataBytes counts the whole buffers
 * a slice shares with its parent.
 */
export function copyBytes(data: A.Data): number {
  const t = data.type as A.DataType;
  const n = data.length;
  const pad = (b: number): number => Math.ceil(b / 8) * 8;
  const validity = data.nullCount > 0 && t.typeId !== A.Type.Null ? pad(Math.ceil((n + (data.offset & 7)) / 8) + 1) : 0;
  switch (t.typeId) {
    case A.Type.Null:
      return 0;
    case A.Type.Bool:
      return validity + pad(Math.ceil(n / 8) + 1);
    case A.Type.Dictionary:
      return copyBytes(decodeDictionary(data as A.Data<A.Dictionary>));
    case A.Type.Utf8:
    case A.Type.Binary: {
      const o = data.valueOffsets as Int32Array;
      return validity + pad(4 * (n + 1)) + pad(n === 0 ? 0 : o[n]! - o[0]!);
    }
    case A.Type.LargeUtf8:
    case A.Type.LargeBinary: {
      const o = data.valueOffsets as unknown as BigInt64Array;
      return validity + pad(8 * (n + 1)) + pad(n === 0 ? 0 : Number(o[n]! - o[0]!));
    }
    case A.Type.List:
    case A.Type.Map: {
      const o = data.valueOffsets as Int32Array;
      const start = n === 0 ? 0 : o[0]!;
      const end = n === 0 ? 0 : o[n]!;
      return validity + pad(4 * (n + 1)) + copyBytes(data.children[0]!.slice(start, end - start));
    }
    case A.Type.LargeList: {
      const o = data.valueOffsets as unknown as BigInt64Array;
      const start = n === 0 ? 0 : Number(o[0]!);
      const end = n === 0 ? 0 : Number(o[n]!);
      return validity + pad(8 * (n + 1)) + copyBytes(data.children[0]!.slice(start, end - start));
    }
    case A.Type.FixedSizeList:
      return validity + copyBytes(prefix(data.children[0]!, n * (t as A.FixedSizeList).listSize));
    case A.Type.Struct:
      return validity + data.children.reduce((s, c) => s + copyBytes(prefix(c, n)), 0);
    default: {
      const values = data.values as TypedArray;
      return validity + pad(n * data.stride * values.BYTES_PER_ELEMENT);
    }
  }
}

/** copyBytes of every column of a batch. */
export function batchCopyBytes(batch: A.RecordBatch): number {
  return batch.data.children.reduce((s, c) => s + copyBytes(c), 0);
}

/** Bytes held by a Data's buffers, children included (for memory accounting). */
export function dataBytes(data: A.Data): number {
  let bytes = 0;
  for (const b of [data.values, data.valueOffsets, data.nullBitmap] as Array<ArrayBufferView | undefined>) if (b) bytes += b.byteLength;
  for (const c of data.children) bytes += dataBytes(c);
  return bytes;
}

/**
 * Bytes a descriptor's regions span. A string/binary column counts only the bytes its rows
 * reference: a routed chunk is a region of a column gathered for every destination, whose byte
 * buffer it shares (lists still count their whole child).
 */
export function descBytes(c: ColumnDesc): number {
  return valueBytes(c) + (c.offsets?.byteLength ?? 0) + (c.validity?.byteLength ?? 0) + c.children.reduce((s, k) => s + descBytes(k), 0);
}

function valueBytes(c: ColumnDesc): number {
  const v = c.values;
  const o = c.offsets;
  if (!v || !o) return v?.byteLength ?? 0;
  const k = c.type.kind;
  if (k === 'utf8' || k === 'binary') {
    const offs = new Int32Array(o.sab, o.byteOffset, c.length + 1);
    return offs[c.length]! - offs[0]!;
  }
  if (k === 'largeUtf8' || k === 'largeBinary') {
    const w = new Int32Array(o.sab, o.byteOffset, 2 * (c.length + 1));
    const at = (i: number): number => w[2 * i + 1]! * 4294967296 + (w[2 * i]! >>> 0);
    return at(c.length) - at(0);
  }
  return v.byteLength;
}

/** Bytes of a partition chunk: its row ids and columns. */
export function chunkDescBytes(chunk: { rowIds: ColumnDesc; columns: ColumnDesc[] }): number {
  return descBytes(chunk.rowIds) + chunk.columns.reduce((s, c) => s + descBytes(c), 0);
}

export function batchBytes(batch: A.RecordBatch): number {
  return batch.data.children.reduce((s, c) => s + dataBytes(c), 0);
}

/** A batch with only the columns at `indices`, in that order (no copy). */
export function selectColumns(batch: A.RecordBatch, indices: number[]): A.RecordBatch {
  const fields = indices.map((i) => batch.schema.fields[i]!);
  const schema = new A.Schema(fields);
  return batchFromColumns(schema, indices.map((i) => batch.data.children[i]!), batch.numRows);
}

/** A batch with extra columns appended (no copy of the existing ones). */
export function appendColumns(batch: A.RecordBatch, fields: A.Field[], columns: A.Data[]): A.RecordBatch {
  const schema = new A.Schema([...batch.schema.fields, ...fields], batch.schema.metadata);
  return batchFromColumns(schema, [...batch.data.children, ...columns], batch.numRows);
}
