/**
 * Arrow input in the one shape the engine carries, whichever apache-arrow copy made it.
 *
 * Users build Tables with their own apache-arrow install (same major version, another copy of
 * the module), so nothing here uses `instanceof`: Tables, RecordBatches, Schemas, types and
 * Data are recognized structurally (type ids and the fields the Arrow format defines), and
 * rebuilt as this copy's objects over the same buffers (no copy of the values).
 *
 * On the way the input is made plain:
 *   - Dictionary columns are decoded to their value type;
 *   - Utf8View / BinaryView (what Polars and arrow-rs produce) become Utf8 / Binary (one copy
 *     of the string bytes per batch; a batch of more than 2 GiB of string bytes is refused);
 *   - zero-length Data without buffers (what `tableFromArrays` / `new Table` give for empty
 *     vectors) gets empty buffers, so every kernel and writer can read it like any other.
 * Nested types (List, LargeList, FixedSizeList, Struct, Map) are rebuilt child by child.
 */
import * as A from 'apache-arrow';
import { build } from '../columns/gather.js';
import { bitmapToBytes, bytesToBitmap } from '../columns/bits.js';
import { decodeDictionary } from '../columns/shared.js';
import { InputError } from '../errors.js';

/** What every apache-arrow copy's DataType has. */
export interface TypeLike {
  readonly typeId: number;
  readonly children?: readonly FieldLike[] | null;
}
export interface FieldLike {
  readonly name: string;
  readonly type: TypeLike;
  readonly nullable: boolean;
  readonly metadata?: Map<string, string>;
}
export interface SchemaLike {
  readonly fields: readonly FieldLike[];
  readonly metadata?: Map<string, string>;
}
export interface DataLike {
  readonly type: TypeLike;
  readonly offset: number;
  readonly length: number;
  readonly nullCount: number;
  readonly values?: unknown;
  readonly valueOffsets?: unknown;
  readonly nullBitmap?: Uint8Array | null;
  readonly typeIds?: unknown;
  readonly children: readonly DataLike[];
  readonly dictionary?: { readonly data: readonly DataLike[] } | null;
  readonly variadicBuffers?: readonly Uint8Array[];
}
export interface RecordBatchLike {
  readonly schema: SchemaLike;
  readonly data: DataLike;
  readonly numRows: number;
}
export interface TableLike {
  readonly schema: SchemaLike;
  readonly batches: readonly RecordBatchLike[];
  readonly numRows: number;
}

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null;

export function isTypeLike(x: unknown): x is TypeLike {
  return isObject(x) && typeof x.typeId === 'number';
}
export function isFieldLike(x: unknown): x is FieldLike {
  return isObject(x) && typeof x.name === 'string' && isTypeLike(x.type);
}
export function isSchemaLike(x: unknown): x is SchemaLike {
  return isObject(x) && Array.isArray(x.fields) && x.fields.every(isFieldLike);
}
function isDataLike(x: unknown): x is DataLike {
  return isObject(x) && isTypeLike(x.type) && typeof x.length === 'number' && Array.isArray(x.children);
}
export function isRecordBatchLike(x: unknown): x is RecordBatchLike {
  return isObject(x) && typeof x.numRows === 'number' && isSchemaLike(x.schema) && isDataLike(x.data) && x.data.type.typeId === A.Type.Struct;
}
export function isTableLike(x: unknown): x is TableLike {
  return isObject(x) && typeof x.numRows === 'number' && isSchemaLike(x.schema) && Array.isArray(x.batches) && !('data' in x && isDataLike(x.data));
}

// ---- types ------------------------------------------------------------------------------------

/** A type's own property (bitWidth, unit, …), read without knowing which copy made it. */
const prop = (t: TypeLike, key: string): unknown => (t as unknown as Record<string, unknown>)[key];
const num = (t: TypeLike, key: string): number => prop(t, key) as number;

/** This copy's plain type for `t` (dictionaries by their values, views by their plain types). */
export function plainType(t: TypeLike): A.DataType {
  switch (t.typeId) {
    case A.Type.Dictionary:
      return plainType(prop(t, 'dictionary') as TypeLike);
    case A.Type.Utf8View:
      return new A.Utf8();
    case A.Type.BinaryView:
      return new A.Binary();
    default:
      return ownType(t);
  }
}

function plainField(f: FieldLike): A.Field {
  return new A.Field(f.name, plainType(f.type), f.nullable, f.metadata);
}

function children(t: TypeLike): A.Field[] {
  return (t.children ?? []).map(plainField);
}

function ownType(t: TypeLike): A.DataType {
  if (t instanceof A.DataType && isPlain(t)) return t;
  switch (t.typeId) {
    case A.Type.Null:
      return new A.Null();
    case A.Type.Bool:
      return new A.Bool();
    case A.Type.Int:
      return new A.Int(prop(t, 'isSigned') as boolean, num(t, 'bitWidth') as 8 | 16 | 32 | 64);
    case A.Type.Float:
      return new A.Float(num(t, 'precision'));
    case A.Type.Decimal:
      return new A.Decimal(num(t, 'scale'), num(t, 'precision'), num(t, 'bitWidth'));
    case A.Type.Date:
      return num(t, 'unit') === A.DateUnit.DAY ? new A.DateDay() : new A.DateMillisecond();
    case A.Type.Time:
      return new A.Time(num(t, 'unit'), num(t, 'bitWidth') as 32 | 64);
    case A.Type.Timestamp:
      return new A.Timestamp(num(t, 'unit'), (prop(t, 'timezone') as string | null | undefined) ?? null);
    case A.Type.Interval:
      return new A.Interval(num(t, 'unit'));
    case A.Type.Duration:
      return new A.Duration(num(t, 'unit'));
    case A.Type.Binary:
      return new A.Binary();
    case A.Type.Utf8:
      return new A.Utf8();
    case A.Type.LargeBinary:
      return new A.LargeBinary();
    case A.Type.LargeUtf8:
      return new A.LargeUtf8();
    case A.Type.FixedSizeBinary:
      return new A.FixedSizeBinary(num(t, 'byteWidth'));
    case A.Type.List:
      return new A.List(children(t)[0]!);
    case A.Type.LargeList:
      return new A.LargeList(children(t)[0]!);
    case A.Type.FixedSizeList:
      return new A.FixedSizeList(num(t, 'listSize'), children(t)[0]!);
    case A.Type.Struct:
      return new A.Struct(children(t));
    case A.Type.Map:
      return new A.Map_(children(t)[0]! as A.Field<A.Struct<{ key: A.DataType; value: A.DataType }>>, Boolean(prop(t, 'keysSorted')));
    case A.Type.Union:
      return new A.Union(num(t, 'mode'), Array.from(prop(t, 'typeIds') as ArrayLike<number>), children(t));
    default:
      throw new InputError('UNSUPPORTED_TYPE', `Arrow type id ${t.typeId} (${String(t)}) is not supported`);
  }
}

/** This copy's type, with no dictionary or view anywhere inside. */
function isPlain(t: A.DataType): boolean {
  if (!(t instanceof A.DataType)) return false;
  if (t.typeId === A.Type.Dictionary || t.typeId === A.Type.Utf8View || t.typeId === A.Type.BinaryView) return false;
  return (t.children ?? []).every((c) => c instanceof A.Field && isPlain(c.type));
}

/** The plain schema of any copy's Schema (the same object when it already is one). */
export function plainSchema(schema: SchemaLike): A.Schema {
  if (schema instanceof A.Schema && schema.fields.every((f) => isPlain(f.type))) return schema;
  return new A.Schema(schema.fields.map(plainField), schema.metadata);
}

// ---- data -------------------------------------------------------------------------------------

/**
 * `batch` as a RecordBatch of `schema` (its plain schema, from `plainSchema`): this copy's
 * Data, dictionaries decoded, views converted, empty buffers filled in. `where` names the
 * input in errors.
 */
export function plainBatch(batch: RecordBatchLike, schema: A.Schema, where: string): A.RecordBatch {
  const cols = batch.data.children;
  if (batch instanceof A.RecordBatch && batch.schema === schema && cols.every(isPlainData)) return batch;
  if (cols.length !== schema.fields.length) {
    throw new InputError('SCHEMA_MISMATCH', `${where}: a batch has ${cols.length} columns but the schema has ${schema.fields.length}`);
  }
  const data = cols.map((c, i) => plainData(c, schema.fields[i]!.type, `${where}, column ${schema.fields[i]!.name}`));
  return new A.RecordBatch(schema, A.makeData({ type: new A.Struct(schema.fields), length: batch.numRows, nullCount: 0, children: data }));
}

function isPlainData(d: DataLike): boolean {
  if (!(d instanceof A.Data) || !isPlain(d.type)) return false;
  if (d.length === 0 && missingBuffer(d)) return false;
  return (d.children ?? []).every(isPlainData);
}

/** Whether a buffer the type needs is absent (arrow-js leaves them out of empty vectors). */
function missingBuffer(d: DataLike): boolean {
  switch (d.type.typeId) {
    case A.Type.Null:
    case A.Type.Struct:
    case A.Type.FixedSizeList:
      return false;
    case A.Type.Utf8:
    case A.Type.Binary:
    case A.Type.LargeUtf8:
    case A.Type.LargeBinary:
      return !d.values || !d.valueOffsets;
    case A.Type.List:
    case A.Type.LargeList:
    case A.Type.Map:
      return !d.valueOffsets;
    case A.Type.Union:
      return !d.typeIds;
    default:
      return !d.values;
  }
}

/** One column as this copy's Data of plain type `type`. */
function plainData(d: DataLike, type: A.DataType, where: string): A.Data {
  const id = d.type.typeId;
  if (id === A.Type.Dictionary) return decodeForeignDictionary(d, type, where);
  if (id === A.Type.Utf8View || id === A.Type.BinaryView) return viewsToPlain(d, type as A.Utf8 | A.Binary, where);
  if (d instanceof A.Data && d.type === type && isPlainData(d)) return d;
  if (d.length > 0 && missingBuffer(d)) throw new InputError('INPUT_MALFORMED', `${where}: a column of ${d.length} rows has no data buffer`);
  const kids = childTypes(type).map((t, i) => {
    const c = d.children?.[i];
    return c ? plainData(c, t, where) : emptyData(t);
  });
  const buffers = d.length === 0 ? emptyBuffers(d, type) : [d.valueOffsets ?? undefined, d.values ?? undefined, d.nullBitmap ?? undefined, d.typeIds ?? undefined];
  return new A.Data(type, d.offset, d.length, d.nullCount, buffers as never, kids);
}

function childTypes(type: A.DataType): A.DataType[] {
  return (type.children ?? []).map((f: A.Field) => f.type);
}

const isLarge = (t: A.DataType): boolean =>
  t.typeId === A.Type.LargeUtf8 || t.typeId === A.Type.LargeBinary || t.typeId === A.Type.LargeList;

/** Buffers for a zero-length column: the given ones, or empty ones of the right kind. */
function emptyBuffers(d: DataLike, type: A.DataType): Array<ArrayBufferView | undefined> {
  let offsets = (d.valueOffsets ?? undefined) as ArrayBufferView | undefined;
  let values = (d.values ?? undefined) as ArrayBufferView | undefined;
  let typeIds = (d.typeIds ?? undefined) as ArrayBufferView | undefined;
  switch (type.typeId) {
    case A.Type.Null:
    case A.Type.Struct:
    case A.Type.FixedSizeList:
      break;
    case A.Type.Utf8:
    case A.Type.Binary:
    case A.Type.LargeUtf8:
    case A.Type.LargeBinary:
      offsets ??= isLarge(type) ? new BigInt64Array(1) : new Int32Array(1);
      values ??= new Uint8Array(0);
      break;
    case A.Type.List:
    case A.Type.LargeList:
    case A.Type.Map:
      offsets ??= isLarge(type) ? new BigInt64Array(1) : new Int32Array(1);
      break;
    case A.Type.Union:
      typeIds ??= new Int8Array(0);
      if ((type as A.Union).mode === A.UnionMode.Dense) offsets ??= new Int32Array(0);
      break;
    default:
      values ??= new (type.ArrayType as new (n: number) => ArrayBufferView)(0);
  }
  return [offsets, values, d.nullBitmap ?? new Uint8Array(0), typeIds];
}

/**
 * A zero-length column of `type`, the one way Sluice makes one: buffers of the right kind built
 * directly (apache-arrow's vectorFromArray compiles builder code with `new Function`, which a
 * host started with --disallow-code-generation-from-strings refuses).
 */
export function emptyData(type: A.DataType): A.Data {
  const stub: DataLike = { type, offset: 0, length: 0, nullCount: 0, children: [] };
  const dictionary = A.DataType.isDictionary(type) ? new A.Vector([emptyData(type.dictionary)]) : undefined;
  return new A.Data(type, 0, 0, 0, emptyBuffers(stub, type) as never, childTypes(type).map(emptyData), dictionary);
}

function decodeForeignDictionary(d: DataLike, type: A.DataType, where: string): A.Data {
  const dictType = d.type as TypeLike;
  const chunks = (d.dictionary?.data ?? []).map((c) => plainData(c, type, where));
  if (d.length === 0) return emptyData(type);
  const indices = ownType(prop(dictType, 'indices') as TypeLike) as A.Int;
  const own = new A.Dictionary(type, indices as never, num(dictType, 'id'), Boolean(prop(dictType, 'isOrdered')));
  const dictionary = new A.Vector(chunks.length > 0 ? chunks : [emptyData(type)]);
  const keys = new A.Data(own, d.offset, d.length, d.nullCount, [undefined, d.values ?? undefined, d.nullBitmap ?? undefined] as never, [], dictionary);
  return decodeDictionary(keys as A.Data<A.Dictionary>);
}

/**
 * Utf8View / BinaryView → Utf8 / Binary. A view is 16 bytes: int32 length, then the bytes
 * inline when length <= 12, else a 4-byte prefix, an int32 buffer index and an int32 offset
 * into that variadic buffer.
 */
function viewsToPlain(d: DataLike, type: A.Utf8 | A.Binary, where: string): A.Data {
  const n = d.length;
  const raw = (d.values ?? undefined) as ArrayBufferView | undefined;
  const nullBitmap = d.nullCount > 0 && d.nullBitmap && d.nullBitmap.length > 0 ? d.nullBitmap : null;
  const valid = nullBitmap ? bitmapToBytes(nullBitmap, d.offset, n) : null;
  const offsets = new Int32Array(n + 1);
  if (n === 0 || !raw) {
    if (n > 0) throw new InputError('INPUT_MALFORMED', `${where}: a view column of ${n} rows has no views buffer`);
    return build({ type, length: 0, nullCount: 0, valueOffsets: offsets, data: new Uint8Array(0) });
  }
  // arrow-js pre-slices the views (row 0 is view 0), like fixed-width values
  const bytes = new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength);
  if (bytes.byteLength < n * 16) throw new InputError('INPUT_MALFORMED', `${where}: the views buffer is shorter than ${n} views`);
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const variadic = d.variadicBuffers ?? [];
  let total = 0;
  for (let i = 0; i < n; i++) {
    if (valid && !valid[i]) continue;
    total += dv.getInt32(i * 16, true);
  }
  if (total > 0x7fffffff) throw new InputError('INPUT_TOO_LARGE', `${where}: a batch holds more than 2 GiB of string bytes; write smaller batches`);
  const out = new Uint8Array(total);
  let pos = 0;
  for (let i = 0; i < n; i++) {
    if (!valid || valid[i]) {
      const at = i * 16;
      const len = dv.getInt32(at, true);
      if (len <= 12) out.set(bytes.subarray(at + 4, at + 4 + len), pos);
      else {
        const buf = variadic[dv.getInt32(at + 8, true)];
        const off = dv.getInt32(at + 12, true);
        if (!buf || off < 0 || off + len > buf.byteLength) throw new InputError('INPUT_MALFORMED', `${where}: row ${i} points outside its data buffer`);
        out.set(buf.subarray(off, off + len), pos);
      }
      pos += len;
    }
    offsets[i + 1] = pos;
  }
  const validity = valid ? { nullBitmap: bytesToBitmap(valid, n).bitmap, nullCount: d.nullCount } : { nullCount: 0 };
  return build({ type, length: n, ...validity, valueOffsets: offsets, data: out });
}
