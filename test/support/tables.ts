/**
 * Test helpers: Arrow tables from plain JS columns (bigint for 64-bit integers and timestamps,
 * unscaled bigint for decimal128, Uint8Array for binary),
 * plain JS values back out of Arrow columns (raw buffers: no lossy timestamp get()), batch
 * splitting, and exact digests of results.
 */
import * as A from 'apache-arrow';
import { typeToArrow } from '../../src/columns/arrow-types.js';
import { bitmapToBytes } from '../../src/columns/bits.js';
import type { DataFrame } from '../../src/index.js';
import type { FieldDesc, TypeDesc } from '../../src/types/column.js';
import type { RunStats } from '../../src/types/plan.js';

export type JsValue = number | bigint | string | boolean | Uint8Array | null;

/** One Arrow column (plain Utf8 for strings, never Dictionary). */
export function columnData(type: TypeDesc, values: readonly JsValue[]): A.Data {
  const t = typeToArrow(type);
  const n = values.length;
  const valid = new Uint8Array(n);
  let nulls = 0;
  for (let i = 0; i < n; i++) {
    valid[i] = values[i] === null ? 0 : 1;
    if (values[i] === null) nulls++;
  }
  const nullBitmap = nulls > 0 ? packBits(valid) : undefined;
  switch (type.kind) {
    case 'utf8': {
      const enc = new TextEncoder();
      const parts = values.map((v) => (v === null ? new Uint8Array(0) : enc.encode(String(v))));
      const offsets = new Int32Array(n + 1);
      for (let i = 0; i < n; i++) offsets[i + 1] = offsets[i]! + parts[i]!.length;
      const bytes = new Uint8Array(offsets[n]!);
      parts.forEach((p, i) => bytes.set(p, offsets[i]!));
      return A.makeData({ type: t as A.Utf8, length: n, nullCount: nulls, nullBitmap, valueOffsets: offsets, data: bytes });
    }
    case 'bool': {
      const bits = packBits(Uint8Array.from(values, (v) => (v ? 1 : 0)));
      return A.makeData({ type: t as A.Bool, length: n, nullCount: nulls, nullBitmap, data: bits });
    }
    case 'binary': {
      const parts = values.map((v) => (v === null ? new Uint8Array(0) : (v as Uint8Array)));
      const offsets = new Int32Array(n + 1);
      for (let i = 0; i < n; i++) offsets[i + 1] = offsets[i]! + parts[i]!.length;
      const bytes = new Uint8Array(offsets[n]!);
      parts.forEach((p, i) => bytes.set(p, offsets[i]!));
      return A.makeData({ type: t as A.Binary, length: n, nullCount: nulls, nullBitmap, valueOffsets: offsets, data: bytes });
    }
    case 'decimal': {
      // unscaled bigint values, four little-endian words each
      const words = new Uint32Array(4 * n);
      values.forEach((v, i) => {
        if (v === null) return;
        const u = BigInt.asUintN(128, v as bigint);
        for (let k = 0; k < 4; k++) words[4 * i + k] = Number((u >> BigInt(32 * k)) & 0xffffffffn);
      });
      return A.makeData({ type: t as A.Decimal, length: n, nullCount: nulls, nullBitmap, data: words });
    }
    default: {
      const Ctor = (t as A.Int).ArrayType as unknown as { new (n: number): ArrayLike<unknown> & { [i: number]: unknown } };
      const data = new Ctor(n);
      const big = data instanceof BigInt64Array || data instanceof BigUint64Array;
      for (let i = 0; i < n; i++) {
        const v = values[i];
        if (v === null) continue;
        data[i] = big ? BigInt(v as bigint) : Number(v);
      }
      return A.makeData({ type: t as A.Int, length: n, nullCount: nulls, nullBitmap, data: data as never });
    }
  }
}

function packBits(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(Math.ceil(bytes.length / 8) + 8);
  for (let i = 0; i < bytes.length; i++) if (bytes[i]) out[i >> 3]! |= 1 << (i & 7);
  return out;
}

export function makeTable(schema: FieldDesc[], columns: Record<string, readonly JsValue[]>, batchSize = Infinity): A.Table {
  const fields = schema.map((f) => new A.Field(f.name, typeToArrow(f.type), true));
  const arrowSchema = new A.Schema(fields);
  const n = columns[schema[0]!.name]!.length;
  const whole = schema.map((f) => columnData(f.type, columns[f.name]!));
  const batches: A.RecordBatch[] = [];
  const step = Math.max(1, Math.min(n, batchSize === Infinity ? n : batchSize));
  for (let start = 0; start < n || (n === 0 && batches.length === 0); start += step) {
    const len = Math.min(step, n - start);
    const children = whole.map((d) => d.slice(start, len));
    batches.push(new A.RecordBatch(arrowSchema, A.makeData({ type: new A.Struct(fields), length: len, nullCount: 0, children })));
    if (n === 0) break;
  }
  return new A.Table(arrowSchema, batches);
}

/** Plain JS values of a column: bigint for 64-bit ints, dates as numbers, timestamps as bigint. */
export function columnValues(table: A.Table, name: string): JsValue[] {
  const out: JsValue[] = [];
  const vec = table.getChild(name);
  if (!vec) throw new Error(`no column ${name}; have ${table.schema.fields.map((f) => f.name).join(', ')}`);
  for (const d of vec.data) {
    const valid = d.nullCount > 0 ? bitmapToBytes(d.nullBitmap, d.offset, d.length) : null;
    for (let i = 0; i < d.length; i++) {
      if (valid && !valid[i]) {
        out.push(null);
        continue;
      }
      switch (d.typeId) {
        case A.Type.Utf8:
        case A.Type.LargeUtf8:
          out.push(new A.Vector([d]).get(i) as string);
          break;
        case A.Type.Bool:
          out.push(((d.values[(d.offset + i) >> 3]! >> ((d.offset + i) & 7)) & 1) === 1);
          break;
        case A.Type.Binary:
        case A.Type.LargeBinary: {
          const offs = d.valueOffsets as unknown as ArrayLike<number | bigint>;
          out.push((d.values as Uint8Array).slice(Number(offs[i]!), Number(offs[i + 1]!)));
          break;
        }
        case A.Type.Decimal: {
          const w = d.values as Uint32Array;
          let u = 0n;
          for (let k = 3; k >= 0; k--) u = (u << 32n) | BigInt(w[4 * i + k]!);
          out.push(BigInt.asIntN(128, u));
          break;
        }
        default:
          out.push((d.values as unknown as ArrayLike<number | bigint>)[i]!);
      }
    }
  }
  return out;
}

/** The same rows in batches of `rows` rows (the last one shorter), as a reader meets them in files. */
export function rebatch(t: A.Table, rows: number): A.Table {
  const batches: A.RecordBatch[] = [];
  for (let s = 0; s < t.numRows; s += rows) batches.push(...t.slice(s, Math.min(t.numRows, s + rows)).batches);
  return new A.Table(t.schema, batches);
}

/**
 * Every column's name and values as one string (bigint as `5n`, -0 as '-0'), to compare two
 * results exactly whatever their batches; with `order`, the rows taken in that order.
 */
export function valuesDigest(t: A.Table, order: readonly number[] | null = null): string {
  return JSON.stringify(
    t.schema.fields.map((f) => {
      const v = columnValues(t, f.name).map((x) => (typeof x === 'bigint' ? `${x}n` : typeof x === 'number' && Object.is(x, -0) ? '-0' : x));
      return [f.name, order ? order.map((k) => v[k]) : v];
    }),
  );
}

/** A column of rows as objects (for references that take row objects). */
export function rowsOf(schema: FieldDesc[], columns: Record<string, readonly JsValue[]>): Array<Record<string, JsValue>> {
  const n = columns[schema[0]!.name]!.length;
  const rows: Array<Record<string, JsValue>> = [];
  for (let i = 0; i < n; i++) {
    const r: Record<string, JsValue> = {};
    for (const f of schema) r[f.name] = columns[f.name]![i]!;
    rows.push(r);
  }
  return rows;
}

export const INT64_MIN = -(1n << 63n);
export const INT64_MAX = (1n << 63n) - 1n;

/**
 * A run's batches gathered from stream(): the same rows as execute(), but the engine does not
 * know the caller keeps them all, so outputs take the bounded path (routed, spilled over the
 * budget) rather than being written straight into the result.
 */
export async function streamed(df: DataFrame): Promise<{ table: A.Table; stats: RunStats }> {
  const run = df.stream();
  const batches: A.RecordBatch[] = [];
  for await (const b of run) batches.push(b);
  return { table: new A.Table(batches), stats: run.stats! };
}
