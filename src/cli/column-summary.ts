/**
 * Per-column summaries for `sluice describe`, accumulated batch by batch (memory: one batch):
 * rows, NULL count, min and max.
 *
 * Per batch, an allocation-free scan over the typed arrays finds the rows holding the batch's
 * min and max; only those two values are then read (a number, one bigint, or a copy of the
 * bytes) and compared with the running ones, and their text is kept (rendered by the shared
 * value-to-text layer, so min/max print exactly as the column's values do in CSV).
 *
 * Orders: numbers with NaN above every number (as sort and window min/max do), -0 equal to 0;
 * 64-bit integers, timestamps, dates, times and durations as integers; decimals as integers of
 * their scale; booleans false < true; strings and binary in byte order. Other types (nested,
 * dictionary, interval) get no min/max.
 */
import { Type, type Data, type DataType, type RecordBatch, type Schema } from 'apache-arrow';
import { cellText } from '../io/text/cells.js';
import { typeName } from '../io/text/type-names.js';

type Key = number | bigint | Buffer | boolean;

interface Extreme {
  key: Key;
  text: string;
}

export interface ColumnSummary {
  column: string;
  type: string;
  rows: number;
  nulls: number;
  min: string | null;
  max: string | null;
}

/** How values of a type are scanned and compared. */
type Kind = 'number' | 'int64' | 'uint64' | 'decimal' | 'bool' | 'bytes' | 'fixedBytes' | 'view' | 'none';

function kindOf(t: DataType): Kind {
  const a = t as DataType & { bitWidth?: number; isSigned?: boolean; unit?: number };
  switch (t.typeId) {
    case Type.Int:
      return a.bitWidth === 64 ? (a.isSigned ? 'int64' : 'uint64') : 'number';
    case Type.Float:
      return (t as DataType & { precision?: number }).precision === 0 ? 'none' : 'number';
    case Type.Date:
      return a.unit === 0 ? 'number' : 'int64';
    case Type.Time:
      return a.bitWidth === 32 ? 'number' : 'int64';
    case Type.Timestamp:
    case Type.Duration:
      return 'int64';
    case Type.Decimal:
      return 'decimal';
    case Type.Bool:
      return 'bool';
    case Type.Utf8:
    case Type.LargeUtf8:
    case Type.Binary:
    case Type.LargeBinary:
      return 'bytes';
    case Type.FixedSizeBinary:
      return 'fixedBytes';
    case Type.Utf8View:
    case Type.BinaryView:
      return 'view';
    default:
      return 'none';
  }
}

function valid(bitmap: Uint8Array | null, off: number, i: number): boolean {
  return bitmap === null || ((bitmap[(off + i) >> 3]! >> ((off + i) & 7)) & 1) === 1;
}

/** -1 / 0 / 1 with NaN above every number. */
function cmpNumber(a: number, b: number): number {
  if (a !== a) return b !== b ? 0 : 1;
  if (b !== b) return -1;
  return a < b ? -1 : a > b ? 1 : 0;
}

function cmpKey(a: Key, b: Key): number {
  if (typeof a === 'number' && typeof b === 'number') return cmpNumber(a, b);
  if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  return Buffer.compare(a as Buffer, b as Buffer);
}

/** Compare the byte ranges [as, ae) and [bs, be) of `bytes` (no allocation). */
function cmpBytes(x: Uint8Array, as: number, ae: number, y: Uint8Array, bs: number, be: number): number {
  const n = Math.min(ae - as, be - bs);
  for (let k = 0; k < n; k++) {
    const d = x[as + k]! - y[bs + k]!;
    if (d !== 0) return d;
  }
  return ae - as - (be - bs);
}

/** Rows holding the min and the max of the valid values of `data` (-1 when none). */
function scan(data: Data, kind: Kind): [number, number] {
  const n = data.length;
  const off = data.offset;
  const bitmap = data.nullCount > 0 ? (data.nullBitmap ?? null) : null;
  let lo = -1;
  let hi = -1;
  switch (kind) {
    case 'number': {
      const v = data.values as ArrayLike<number>;
      for (let i = 0; i < n; i++) {
        if (!valid(bitmap, off, i)) continue;
        if (lo < 0) {
          lo = hi = i;
          continue;
        }
        if (cmpNumber(v[i]!, v[lo]!) < 0) lo = i;
        if (cmpNumber(v[i]!, v[hi]!) > 0) hi = i;
      }
      break;
    }
    case 'int64':
    case 'uint64': {
      // high word signed (int64) or unsigned (uint64), low word unsigned: no bigint per row
      const src = data.values as BigInt64Array;
      const w = new Int32Array(src.buffer, src.byteOffset, n * 2);
      const signed = kind === 'int64';
      const cmp = (i: number, j: number): number => {
        const hi1 = signed ? w[2 * i + 1]! : w[2 * i + 1]! >>> 0;
        const hi2 = signed ? w[2 * j + 1]! : w[2 * j + 1]! >>> 0;
        if (hi1 !== hi2) return hi1 < hi2 ? -1 : 1;
        const lo1 = w[2 * i]! >>> 0;
        const lo2 = w[2 * j]! >>> 0;
        return lo1 < lo2 ? -1 : lo1 > lo2 ? 1 : 0;
      };
      for (let i = 0; i < n; i++) {
        if (!valid(bitmap, off, i)) continue;
        if (lo < 0) {
          lo = hi = i;
          continue;
        }
        if (cmp(i, lo) < 0) lo = i;
        if (cmp(i, hi) > 0) hi = i;
      }
      break;
    }
    case 'decimal': {
      const w = data.values as unknown as Uint32Array;
      const stride = ((data.type as DataType & { bitWidth?: number }).bitWidth ?? 128) / 32;
      const cmp = (i: number, j: number): number => {
        for (let k = stride - 1; k >= 0; k--) {
          let a = w[i * stride + k]!;
          let b = w[j * stride + k]!;
          if (k === stride - 1) {
            a |= 0;
            b |= 0;
          }
          if (a !== b) return a < b ? -1 : 1;
        }
        return 0;
      };
      for (let i = 0; i < n; i++) {
        if (!valid(bitmap, off, i)) continue;
        if (lo < 0) {
          lo = hi = i;
          continue;
        }
        if (cmp(i, lo) < 0) lo = i;
        if (cmp(i, hi) > 0) hi = i;
      }
      break;
    }
    case 'bool': {
      const bits = data.values as Uint8Array;
      let f = -1;
      let t = -1;
      for (let i = 0; i < n && (f < 0 || t < 0); i++) {
        if (!valid(bitmap, off, i)) continue;
        if (((bits[(off + i) >> 3]! >> ((off + i) & 7)) & 1) === 1) t = t < 0 ? i : t;
        else f = f < 0 ? i : f;
      }
      lo = f >= 0 ? f : t;
      hi = t >= 0 ? t : f;
      break;
    }
    case 'bytes':
    case 'fixedBytes': {
      const bytes = data.values as Uint8Array;
      const offsets = data.valueOffsets as ArrayLike<number | bigint> | undefined;
      const width = (data.type as DataType & { byteWidth?: number }).byteWidth ?? 0;
      const start = (i: number): number => (kind === 'bytes' ? Number(offsets![i]) : i * width);
      const end = (i: number): number => (kind === 'bytes' ? Number(offsets![i + 1]) : (i + 1) * width);
      for (let i = 0; i < n; i++) {
        if (!valid(bitmap, off, i)) continue;
        if (lo < 0) {
          lo = hi = i;
          continue;
        }
        const s = start(i);
        const e = end(i);
        if (cmpBytes(bytes, s, e, bytes, start(lo), end(lo)) < 0) lo = i;
        if (cmpBytes(bytes, s, e, bytes, start(hi), end(hi)) > 0) hi = i;
      }
      break;
    }
    case 'view': {
      const v = viewLayout(data);
      for (let i = 0; i < n; i++) {
        if (!valid(bitmap, off, i)) continue;
        if (lo < 0) {
          lo = hi = i;
          continue;
        }
        const x = v.buffer(i);
        const xs = v.start(i);
        const xe = xs + v.size(i);
        if (cmpBytes(x, xs, xe, v.buffer(lo), v.start(lo), v.start(lo) + v.size(lo)) < 0) lo = i;
        if (cmpBytes(x, xs, xe, v.buffer(hi), v.start(hi), v.start(hi) + v.size(hi)) > 0) hi = i;
      }
      break;
    }
    case 'none':
      break;
  }
  return [lo, hi];
}

/** Where view-layout value i lives (16-byte views, inline up to 12 bytes); no allocation. */
function viewLayout(data: Data): { size(i: number): number; buffer(i: number): Uint8Array; start(i: number): number } {
  const views = data.values as Uint8Array;
  const dv = new DataView(views.buffer, views.byteOffset, views.byteLength);
  const size = (i: number): number => Math.max(0, dv.getInt32(i * 16, true));
  return {
    size,
    buffer: (i) => (size(i) <= 12 ? views : data.variadicBuffers[dv.getInt32(i * 16 + 8, true)]!),
    start: (i) => (size(i) <= 12 ? i * 16 + 4 : dv.getInt32(i * 16 + 12, true)),
  };
}

/** The comparable value at row i (read once per batch). */
function keyAt(data: Data, kind: Kind, i: number): Key {
  switch (kind) {
    case 'number':
      return (data.values as ArrayLike<number>)[i]!;
    case 'int64':
    case 'uint64':
      return (data.values as BigInt64Array | BigUint64Array)[i]!;
    case 'decimal': {
      const w = data.values as unknown as Uint32Array;
      const stride = ((data.type as DataType & { bitWidth?: number }).bitWidth ?? 128) / 32;
      let v = 0n;
      for (let k = stride - 1; k >= 0; k--) v = (v << 32n) | BigInt(w[i * stride + k]!);
      return w[i * stride + stride - 1]! >= 0x8000_0000 ? v - (1n << BigInt(stride * 32)) : v;
    }
    case 'bool': {
      const off = data.offset + i;
      return (((data.values as Uint8Array)[off >> 3]! >> (off & 7)) & 1) === 1;
    }
    case 'bytes': {
      const offsets = data.valueOffsets as ArrayLike<number | bigint>;
      return Buffer.from((data.values as Uint8Array).subarray(Number(offsets[i]), Number(offsets[i + 1])));
    }
    case 'fixedBytes': {
      const w = (data.type as DataType & { byteWidth?: number }).byteWidth ?? 0;
      return Buffer.from((data.values as Uint8Array).subarray(i * w, (i + 1) * w));
    }
    case 'view': {
      const v = viewLayout(data);
      return Buffer.from(v.buffer(i).subarray(v.start(i), v.start(i) + v.size(i)));
    }
    case 'none':
      return 0;
  }
}

class ColumnAccumulator {
  rows = 0;
  nulls = 0;
  min: Extreme | null = null;
  max: Extreme | null = null;
  private readonly kind: Kind;

  constructor(
    readonly name: string,
    readonly type: DataType,
  ) {
    this.kind = kindOf(type);
  }

  add(data: Data): void {
    this.rows += data.length;
    this.nulls += data.typeId === Type.Null ? data.length : data.nullCount;
    if (this.kind === 'none' || data.length === 0) return;
    const [lo, hi] = scan(data, this.kind);
    if (lo < 0) return;
    const text = cellText(data, { syntax: 'field', floats: 'exact' });
    const kLo = keyAt(data, this.kind, lo);
    if (this.min === null || cmpKey(kLo, this.min.key) < 0) this.min = { key: kLo, text: text(lo) ?? '' };
    const kHi = keyAt(data, this.kind, hi);
    if (this.max === null || cmpKey(kHi, this.max.key) > 0) this.max = { key: kHi, text: text(hi) ?? '' };
  }
}

/** Summaries of every column of a stream of batches with `schema`. */
export class TableSummary {
  private readonly columns: ColumnAccumulator[];

  constructor(readonly schema: Schema) {
    this.columns = schema.fields.map((f) => new ColumnAccumulator(f.name, f.type));
  }

  add(batch: RecordBatch): void {
    batch.data.children.forEach((d, c) => this.columns[c]!.add(d));
  }

  result(): ColumnSummary[] {
    return this.columns.map((c) => ({
      column: c.name,
      type: typeName(c.type),
      rows: c.rows,
      nulls: c.nulls,
      min: c.min?.text ?? null,
      max: c.max?.text ?? null,
    }));
  }
}
