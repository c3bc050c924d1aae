/**
 * Arrow columns from typed arrays (makeData wraps the buffers, no copy, no per-row objects).
 * Strings are plain Utf8 (offsets + bytes), lists plain List<...>: never dictionaries.
 */
import {
  type Data, type DataType, Field, Float64, Int32, Int64, List, makeData, RecordBatch, Schema, Struct, Utf8,
} from 'apache-arrow';

const TWO32 = 4294967296;

/** writes a safe integer into slot i of an Int32Array view of int64 data (no BigInt per value) */
export function setI64(words: Int32Array, i: number, v: number): void {
  const hi = Math.floor(v / TWO32);
  words[2 * i] = (v - hi * TWO32) | 0;
  words[2 * i + 1] = hi | 0;
}

/** validity bitmap with bit i set where `valid(i)`; returns the null count too */
export class Validity {
  readonly bits: Uint8Array;
  nulls = 0;
  constructor(readonly length: number) { this.bits = new Uint8Array(((length + 63) >> 6) << 3); }
  set(i: number, valid: boolean): void {
    if (valid) this.bits[i >> 3]! |= 1 << (i & 7); else this.nulls++;
  }
  isValid(i: number): boolean { return (this.bits[i >> 3]! & (1 << (i & 7))) !== 0; }
}

const withNulls = (v?: Validity) => (v && v.nulls > 0 ? { nullCount: v.nulls, nullBitmap: v.bits } : { nullCount: 0 });

export const int64Col = (values: BigInt64Array, v?: Validity): Data =>
  makeData({ type: new Int64(), length: values.length, data: values, ...withNulls(v) });
export const int32Col = (values: Int32Array): Data => makeData({ type: new Int32(), length: values.length, data: values, nullCount: 0 });
export const float64Col = (values: Float64Array): Data => makeData({ type: new Float64(), length: values.length, data: values, nullCount: 0 });
export const utf8Col = (offsets: Int32Array, bytes: Uint8Array, v?: Validity): Data =>
  makeData({ type: new Utf8(), length: offsets.length - 1, valueOffsets: offsets, data: bytes, ...withNulls(v) });
export const listCol = (child: Data, offsets: Int32Array, v?: Validity): Data =>
  makeData({ type: new List(new Field('item', child.type as DataType, true)), length: offsets.length - 1, valueOffsets: offsets, child, ...withNulls(v) });

/** Utf8 bytes of many short ASCII strings, appended one by one */
export class Utf8Builder {
  readonly offsets: Int32Array;
  private bytes: Uint8Array;
  private n = 0;
  private p = 0;
  constructor(rows: number, bytesPerRow: number) {
    this.offsets = new Int32Array(rows + 1);
    this.bytes = new Uint8Array(Math.max(16, rows * bytesPerRow));
  }
  /** appends `prefix` then `value` in decimal, zero-padded to `width` digits */
  pushNumber(prefix: Uint8Array, value: number, width = 0): void {
    let digits = 1; for (let x = value; x >= 10; x = Math.floor(x / 10)) digits++;
    const len = prefix.length + Math.max(width, digits);
    if (this.p + len > this.bytes.length) { const b = new Uint8Array(2 * this.bytes.length + len); b.set(this.bytes); this.bytes = b; }
    this.bytes.set(prefix, this.p);
    let q = this.p + len - 1;
    for (let x = value, k = 0; k < Math.max(width, digits); k++, q--) { this.bytes[q] = 48 + (x % 10); x = Math.floor(x / 10); }
    this.p += len;
    this.offsets[++this.n] = this.p;
  }
  pushEmpty(): void { this.offsets[++this.n] = this.p; }
  data(v?: Validity): Data { return utf8Col(this.offsets.subarray(0, this.n + 1), this.bytes.subarray(0, this.p), v); }
}

export const ascii = (s: string): Uint8Array => new TextEncoder().encode(s);

export function batchOf(columns: Record<string, Data>, nullable: Record<string, boolean> = {}): RecordBatch {
  const fields = Object.entries(columns).map(([name, d]) => new Field(name, d.type, nullable[name] ?? d.nullCount > 0));
  const length = Object.values(columns)[0]!.length;
  const data = makeData({ type: new Struct(fields), length, nullCount: 0, children: Object.values(columns) });
  return new RecordBatch(new Schema(fields), data);
}
