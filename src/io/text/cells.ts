/**
 * The one value-to-text layer: the text of every cell of an Arrow column chunk, for the CSV
 * writer (src/io/csv-write), the CLI's CSV/TSV/JSON/NDJSON output and its table view.
 *
 * Values are read from the Arrow buffers, never through `vector.get` (which loses int64 and
 * nanosecond timestamps): apache-arrow pre-slices fixed-width values and value offsets to the
 * slice's first row, while validity and boolean bits keep the bit `offset`.
 *
 * Text of a value (the same in every output, except where noted):
 * - integers exact (64-bit through bigint); decimals exact with their scale (`-12.50`)
 * - floats: `exact` = shortest round-trip text (float32 by its own digits), `NaN`, `inf`,
 *   `-inf`, `-0`; `display` (table view) = at most 7 significant digits (float-text.ts)
 * - booleans `true` / `false`; strings as they are; binary and fixed-size binary as hex
 * - DATE, TIMESTAMP (zoned: local time in the column's zone with its offset), TIME: time-text.ts
 * - DURATION: the integer count of its unit
 * - nested values as JSON-like text: lists `[1, 2]`, structs `{"a": 1}`, maps `{"k": 1}`
 *   (`[[k, v], …]` in JSON when keys are not strings), strings and temporal values inside
 *   them quoted, NULL inside them `null`
 * - Dictionary columns as their values
 *
 * Syntax `field` (CSV field, table cell): NULL is `null` (the caller decides how it looks).
 * Syntax `json` (JSON value): NULL is `null`; 64-bit integers and durations beyond ±(2^53 - 1)
 * and decimals of precision > 15 are JSON strings (a JSON reader would round them as doubles);
 * NaN and ±inf are the strings `"NaN"`, `"inf"`, `"-inf"`.
 */
import { Type, Vector, util, type Data, type DataType } from 'apache-arrow';
import { displayFloat, exactFloat, type FloatBits } from './float-text.js';
import { formatDate, formatDate64, formatTimeOfDay, timestampWordsFormatter, UNITS } from './time-text.js';
import { highWords, words64 } from '../../ops/int64-words.js';

export interface TextStyle {
  syntax: 'field' | 'json';
  floats: 'exact' | 'display';
}

/** Text of the cell at slice-relative row `i`; null for NULL in `field` syntax. */
export type CellText = (i: number) => string | null;

/** Where a value sits: a top-level field, inside a nested value, or JSON. */
type Mode = 'field' | 'nested' | 'json';
type ValueText = (i: number) => string;

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

interface TypeFields {
  precision?: number;
  scale?: number;
  bitWidth?: number;
  byteWidth?: number;
  listSize?: number;
  unit?: number;
  timezone?: string | null;
}

/** The cell texts of one column chunk. */
export function cellText(data: Data, style: TextStyle): CellText {
  return cells(data, style.syntax === 'json' ? 'json' : 'field', style.floats);
}

function cells(data: Data, mode: Mode, floats: TextStyle['floats']): CellText {
  const nullText = mode === 'field' ? null : 'null';
  if (data.typeId === Type.Null) return () => nullText;
  if (data.typeId === Type.Dictionary) return dictionaryCells(data, mode, floats);
  const value = valueText(data, mode, floats);
  const bitmap = data.nullCount > 0 ? data.nullBitmap : null;
  if (bitmap === null || bitmap === undefined) return value;
  const off = data.offset;
  return (i) => (((bitmap[(off + i) >> 3]! >> ((off + i) & 7)) & 1) === 1 ? value(i) : nullText);
}

/** Cells of a child inside a nested value: never null, NULL is `null`. */
function nestedCells(data: Data, mode: Mode, floats: TextStyle['floats']): ValueText {
  return cells(data, mode === 'json' ? 'json' : 'nested', floats) as ValueText;
}

function hex(bytes: Uint8Array, start: number, end: number): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString('hex');
}

function jsonInt(v: bigint | number): string {
  if (typeof v === 'number') return String(v);
  return v <= MAX_SAFE && v >= -MAX_SAFE ? v.toString() : `"${v}"`;
}

/** Two's-complement little-endian 32-bit words → bigint. */
function wordsToBigInt(words: Uint32Array, start: number, count: number): bigint {
  let v = 0n;
  for (let k = count - 1; k >= 0; k--) v = (v << 32n) | BigInt(words[start + k]!);
  const bits = BigInt(count * 32);
  return words[start + count - 1]! >= 0x8000_0000 ? v - (1n << bits) : v;
}

/** Exact decimal text of an unscaled integer with `scale` digits after the point. */
export function decimalText(unscaled: bigint, scale: number): string {
  if (scale <= 0) return scale === 0 || unscaled === 0n ? unscaled.toString() : `${unscaled}${'0'.repeat(-scale)}`;
  const neg = unscaled < 0n;
  const digits = (neg ? -unscaled : unscaled).toString().padStart(scale + 1, '0');
  return `${neg ? '-' : ''}${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
}

/** Bytes of a view-layout value (BinaryView / Utf8View: 16-byte views, inline up to 12 bytes). */
function viewBytes(data: Data): (i: number) => Uint8Array {
  const views = data.values as Uint8Array;
  const dv = new DataView(views.buffer, views.byteOffset, views.byteLength);
  const buffers = data.variadicBuffers;
  return (i) => {
    const at = i * 16;
    const size = dv.getInt32(at, true);
    if (size <= 12) return views.subarray(at + 4, at + 4 + Math.max(0, size));
    const buf = buffers[dv.getInt32(at + 8, true)]!;
    const start = dv.getInt32(at + 12, true);
    return buf.subarray(start, start + size);
  };
}

function wordsOf(v: BigInt64Array): { lo: Uint32Array; hi: Int32Array | Uint32Array } {
  return { lo: words64(v), hi: highWords(v) };
}

function valueText(data: Data, mode: Mode, floats: TextStyle['floats']): ValueText {
  const type = data.type as DataType & TypeFields;
  const json = mode === 'json';
  const quote = mode !== 'field';
  const q = quote ? (s: string): string => JSON.stringify(s) : (s: string): string => s;
  const values = data.values as ArrayLike<number | bigint>;
  switch (type.typeId) {
    case Type.Int:
      return json ? (i) => jsonInt(values[i]!) : (i) => String(values[i]);
    case Type.Float: {
      const bits: FloatBits = type.precision === 0 ? 16 : type.precision === 1 ? 32 : 64;
      const get: (i: number) => number = bits === 16 ? (i) => util.uint16ToFloat64(values[i] as number) : (i) => values[i] as number;
      const text = floats === 'display' ? displayFloat : exactFloat;
      if (json) {
        return (i) => {
          const x = get(i);
          return Number.isFinite(x) ? exactFloat(x, bits) : `"${exactFloat(x, bits)}"`;
        };
      }
      return (i) => text(get(i), bits);
    }
    case Type.Bool: {
      const bits = data.values as Uint8Array;
      const off = data.offset;
      return (i) => (((bits[(off + i) >> 3]! >> ((off + i) & 7)) & 1) === 1 ? 'true' : 'false');
    }
    case Type.Decimal: {
      const words = data.values as unknown as Uint32Array;
      const stride = (type.bitWidth ?? 128) / 32;
      const scale = type.scale ?? 0;
      const asString = json && (type.precision ?? 38) > 15;
      return (i) => {
        const s = decimalText(wordsToBigInt(words, i * stride, stride), scale);
        return asString ? `"${s}"` : s;
      };
    }
    case Type.Utf8:
    case Type.LargeUtf8: {
      const bytes = data.values as Uint8Array;
      const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      const offsets = data.valueOffsets as ArrayLike<number | bigint>;
      return (i) => q(buf.toString('utf8', Number(offsets[i]), Number(offsets[i + 1])));
    }
    case Type.Binary:
    case Type.LargeBinary: {
      const bytes = data.values as Uint8Array;
      const offsets = data.valueOffsets as ArrayLike<number | bigint>;
      return (i) => q(hex(bytes, Number(offsets[i]), Number(offsets[i + 1])));
    }
    case Type.Utf8View:
    case Type.BinaryView: {
      const bytes = viewBytes(data);
      const encoding = type.typeId === Type.Utf8View ? 'utf8' : 'hex';
      return (i) => {
        const b = bytes(i);
        return q(Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString(encoding));
      };
    }
    case Type.FixedSizeBinary: {
      const bytes = data.values as Uint8Array;
      const w = type.byteWidth!;
      return (i) => q(hex(bytes, i * w, (i + 1) * w));
    }
    // 64-bit temporal values are read as 32-bit words (lo at 2i, hi at 2i+1), never as BigInt
    case Type.Date: {
      if (type.unit === 0) return (i) => q(formatDate(values[i] as number));
      const { lo, hi } = wordsOf(data.values as BigInt64Array);
      return (i) => q(formatDate64(hi[2 * i + 1]!, lo[2 * i]!));
    }
    case Type.Timestamp: {
      const text = timestampWordsFormatter(UNITS[type.unit!]!, type.timezone);
      const { lo, hi } = wordsOf(data.values as BigInt64Array);
      return (i) => q(text(hi[2 * i + 1]!, lo[2 * i]!));
    }
    case Type.Time: {
      const unit = UNITS[type.unit!]!;
      if (data.values instanceof BigInt64Array) {
        const { lo, hi } = wordsOf(data.values);
        return (i) => q(formatTimeOfDay(hi[2 * i + 1]!, lo[2 * i]!, unit));
      }
      const v32 = data.values as Int32Array; // time32: non-negative counts since midnight
      return (i) => q(formatTimeOfDay(0, v32[i]! >>> 0, unit));
    }
    case Type.Duration:
      return json ? (i) => jsonInt(values[i]!) : (i) => String(values[i]);
    case Type.List:
    case Type.LargeList: {
      const el = nestedCells(data.children[0]!, mode, floats);
      const offsets = data.valueOffsets as ArrayLike<number | bigint>;
      const sep = json ? ',' : ', ';
      return (i) => {
        const s = Number(offsets[i]);
        const e = Number(offsets[i + 1]);
        let out = '[';
        for (let k = s; k < e; k++) out += (k > s ? sep : '') + el(k);
        return `${out}]`;
      };
    }
    case Type.FixedSizeList: {
      const el = nestedCells(data.children[0]!, mode, floats);
      const size = type.listSize!;
      const sep = json ? ',' : ', ';
      return (i) => {
        let out = '[';
        for (let k = 0; k < size; k++) out += (k > 0 ? sep : '') + el(i * size + k);
        return `${out}]`;
      };
    }
    case Type.Struct: {
      const els = data.children.map((c) => nestedCells(c, mode, floats));
      const keys = type.children.map((f, c) => (c > 0 ? (json ? ',' : ', ') : '') + JSON.stringify(f.name) + (json ? ':' : ': '));
      return (i) => {
        let out = '{';
        for (let c = 0; c < els.length; c++) out += keys[c] + els[c]!(i);
        return `${out}}`;
      };
    }
    case Type.Map:
      return mapText(data, mode, floats);
  }
  // Interval, Union and anything newer: through apache-arrow's getter.
  const vec = new Vector([data]);
  return (i) => genericText(vec.get(i), mode);
}

function mapText(data: Data, mode: Mode, floats: TextStyle['floats']): ValueText {
  const json = mode === 'json';
  const entries = data.children[0]!;
  const [kd, vd] = entries.children as [Data, Data];
  const key = nestedCells(kd, mode, floats);
  const val = nestedCells(vd, mode, floats);
  const offsets = data.valueOffsets as ArrayLike<number | bigint>;
  const pairs = json && !(kd.typeId === Type.Utf8 || kd.typeId === Type.LargeUtf8 || kd.typeId === Type.Utf8View);
  return (i) => {
    const s = Number(offsets[i]);
    const e = Number(offsets[i + 1]);
    let out = pairs ? '[' : '{';
    for (let k = s; k < e; k++) {
      if (k > s) out += json ? ',' : ', ';
      out += pairs ? `[${key(k)},${val(k)}]` : `${key(k)}${json ? ':' : ': '}${val(k)}`;
    }
    return out + (pairs ? ']' : '}');
  };
}

/**
 * Dictionary indices → the cells of their values (dictionaries may come in several chunks).
 * A NULL index and a NULL dictionary value are both NULL.
 */
function dictionaryCells(data: Data, mode: Mode, floats: TextStyle['floats']): CellText {
  const indices = data.values as ArrayLike<number | bigint>;
  const chunks = data.dictionary?.data ?? [];
  const parts = chunks.map((d) => cells(d, mode, floats));
  const starts: number[] = [];
  let at = 0;
  for (const d of chunks) {
    starts.push(at);
    at += d.length;
  }
  const nullText = mode === 'field' ? null : 'null';
  const value: CellText =
    parts.length === 1
      ? (i) => parts[0]!(Number(indices[i]))
      : (i) => {
          const k = Number(indices[i]);
          let c = starts.length - 1;
          while (c > 0 && starts[c]! > k) c--;
          return parts[c] ? parts[c]!(k - starts[c]!) : nullText;
        };
  const bitmap = data.nullCount > 0 ? data.nullBitmap : null;
  if (bitmap === null || bitmap === undefined) return value;
  const off = data.offset;
  return (i) => (((bitmap[(off + i) >> 3]! >> ((off + i) & 7)) & 1) === 1 ? value(i) : nullText);
}

/** Text of a JS value from apache-arrow's getter (types without a buffer reader above). */
function genericText(v: unknown, mode: Mode): string {
  const json = mode === 'json';
  const nested: Mode = json ? 'json' : 'nested';
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'bigint') return json ? jsonInt(v) : v.toString();
  if (typeof v === 'number') return json && !Number.isFinite(v) ? `"${exactFloat(v, 64)}"` : exactFloat(v, 64);
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'string') return mode === 'field' ? v : JSON.stringify(v);
  if (v instanceof Uint8Array) {
    const h = hex(v, 0, v.byteLength);
    return mode === 'field' ? h : JSON.stringify(h);
  }
  if (ArrayBuffer.isView(v) || v instanceof Vector || Array.isArray(v)) {
    const parts = Array.from(v as unknown as Iterable<unknown>, (x) => genericText(x, nested));
    return json ? `[${parts.join(',')}]` : `[${parts.join(', ')}]`;
  }
  if (typeof v === 'object') {
    const o = typeof (v as { toJSON?: unknown }).toJSON === 'function' ? (v as { toJSON(): unknown }).toJSON() : v;
    const entries = o instanceof Map ? [...o.entries()] : Object.entries(o as object);
    const parts = entries.map(([k, x]) => `${JSON.stringify(String(k))}${json ? ':' : ': '}${genericText(x, nested)}`);
    return json ? `{${parts.join(',')}}` : `{${parts.join(', ')}}`;
  }
  return JSON.stringify(String(v));
}
