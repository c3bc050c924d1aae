/**
 * CSV output, one batch at a time, atomically (temp file + rename).
 *
 * Each batch is turned into text column by column straight from the Arrow buffers, then
 * written before the next batch is pulled, so memory stays bounded by one batch.
 * Rendering: a header line of the column names (unless `header: false`); fields separated by
 * `delimiter` (default ','), records by '\n'. NULL is an empty field; an empty string is `""`.
 * A field is quoted (with `""` escapes) when it contains the delimiter, a quote, \n or \r.
 * Integers are exact (int64/uint64 through bigint); floats in the shortest text that reads
 * back to the same value (float32 included), `NaN`, `inf`, `-inf`, and `-0`; booleans
 * `true`/`false`; DATE as `YYYY-MM-DD`; TIMESTAMP as ISO-8601 (temporal-text.ts), zoned ones as wall
 * time in their zone with its offset (time-zones.ts; `Z` for UTC); NULL-typed columns empty; Dictionary columns as their values; durations as integer counts; nested and binary
 * values as JSON-like text (lists `[1, 2]`, structs `{"a": 1}`, binary as hex).
 */
import { DateUnit, Type, Vector, type Data, type DataType, type Date_, type RecordBatch, type Schema, type Timestamp } from 'apache-arrow';
import { writeAtomic } from './atomic.js';
import { throwIfAborted } from './input-errors.js';
import { formatDate, formatTimestamp, type Unit } from './temporal-text.js';
import { formatInZone } from './time-zones.js';

const FORMAT = 'CSV' as const;
const UNITS: Unit[] = ['s', 'ms', 'us', 'ns'];

export interface CsvWriteOptions {
  /** schema for the header when there may be no batches; default: the first batch's */
  schema?: Schema;
  header?: boolean;
  delimiter?: string;
  signal?: AbortSignal;
}

/** Float text shared by every text output: NaN, inf, -inf, -0; float32 by its shortest exact digits. */
export function formatFloat(x: number, single: boolean): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  if (!single) return String(x);
  for (let p = 1; p <= 9; p++) {
    const s = x.toPrecision(p);
    if (Math.fround(Number(s)) === x) return String(Number(s));
  }
  return String(x);
}

function genericText(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'bigint' || typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (typeof v === 'string') return JSON.stringify(v);
  if (v instanceof Uint8Array) return JSON.stringify(Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex'));
  if (v instanceof Vector || Array.isArray(v)) return `[${Array.from(v as Iterable<unknown>, genericText).join(', ')}]`;
  if (typeof v === 'object') {
    const entries = typeof (v as { toJSON?: unknown }).toJSON === 'function' ? (v as { toJSON(): object }).toJSON() : v;
    if (entries instanceof Map) return `{${Array.from(entries, ([k, x]) => `${genericText(k)}: ${genericText(x)}`).join(', ')}}`;
    return `{${Object.entries(entries).map(([k, x]) => `${JSON.stringify(k)}: ${genericText(x)}`).join(', ')}}`;
  }
  return String(v);
}

/**
 * Text of rows 0..n-1 of `data` (null for NULL). Arrow-js pre-slices fixed-width values and
 * value offsets to row 0, while bool values and validity bitmaps keep the bit `offset`.
 */
function columnText(data: Data, out: Array<string | null>): void {
  const n = data.length;
  const off = data.offset;
  const bitmap = data.nullCount > 0 ? data.nullBitmap : null;
  const type: DataType = data.type;
  const values = data.values as ArrayLike<number | bigint>;
  let cell: (j: number) => string | null;
  switch (type.typeId) {
    case Type.Int:
      cell = (j) => String(values[j]);
      break;
    case Type.Float: {
      const single = (type as { precision?: number }).precision === 1;
      if ((type as { precision?: number }).precision === 0) {
        const vec = new Vector([data]);
        cell = (j) => formatFloat(vec.get(j) as number, true);
      } else cell = (j) => formatFloat(values[j] as number, single);
      break;
    }
    case Type.Bool: {
      const bits = data.values as Uint8Array;
      cell = (j) => ((bits[(j + off) >> 3]! >> ((j + off) & 7)) & 1 ? 'true' : 'false');
      break;
    }
    case Type.Utf8:
    case Type.LargeUtf8:
    case Type.Binary:
    case Type.LargeBinary: {
      // Strings as UTF-8 text; bytes as hex, as the CLI's text output prints them.
      const encoding = type.typeId === Type.Utf8 || type.typeId === Type.LargeUtf8 ? 'utf8' : 'hex';
      const bytes = data.values as Uint8Array;
      const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      const offsets = data.valueOffsets as ArrayLike<number | bigint>;
      cell = (j) => buf.toString(encoding, Number(offsets[j]), Number(offsets[j + 1]));
      break;
    }
    case Type.Date:
      if ((type as Date_).unit === DateUnit.DAY) cell = (j) => formatDate(values[j] as number);
      else {
        cell = (j) => {
          const ms = BigInt(values[j]!);
          return ms % 86_400_000n === 0n ? formatDate(Number(ms / 86_400_000n)) : formatTimestamp(ms, 'ms', false);
        };
      }
      break;
    case Type.Timestamp: {
      const t = type as Timestamp;
      const unit = UNITS[t.unit]!;
      const zone = t.timezone;
      cell = zone ? (j) => formatInZone(BigInt(values[j]!), unit, zone) : (j) => formatTimestamp(BigInt(values[j]!), unit, false);
      break;
    }

    case Type.Duration:
      cell = (j) => String(values[j]);
      break;
    case Type.Dictionary: {
      const dict = data.dictionary!;
      const texts: Array<string | null> = [];
      for (const d of dict.data) {
        const part: Array<string | null> = new Array(d.length);
        columnText(d, part);
        for (const s of part) texts.push(s);
      }
      // A NULL dictionary value is a NULL cell (an empty field), not an empty string.
      cell = (j) => texts[Number(values[j])] ?? null;
      break;
    }
    default: {
      const vec = new Vector([data]);
      cell = (j) => genericText(vec.get(j));
    }
  }
  if (type.typeId === Type.Null) {
    out.fill(null, 0, n); // no buffers at all, not even a validity bitmap
    return;
  }
  for (let i = 0; i < n; i++) {
    const j = off + i;
    out[i] = bitmap !== null && ((bitmap[j >> 3]! >> (j & 7)) & 1) === 0 ? null : cell(i);
  }
}

/** CSV field quoting: NULL empty, '' quoted, quotes doubled; shared with the CLI's text output. */
export function csvQuoter(delimiter: string): (s: string | null) => string {
  return (s) => {
    if (s === null) return '';
    if (s === '') return '""';
    if (s.includes('"')) return `"${s.replaceAll('"', '""')}"`;
    if (s.includes(delimiter) || s.includes('\n') || s.includes('\r')) return `"${s}"`;
    return s;
  };
}

/** Text of a whole batch, '\n' after every record. */
export function batchToCsv(batch: RecordBatch, delimiter = ','): string {
  const q = csvQuoter(delimiter);
  const n = batch.numRows;
  const cols = batch.data.children.map((d) => {
    const out: Array<string | null> = new Array(n);
    columnText(d, out);
    return out;
  });
  const lines: string[] = new Array(n);
  for (let i = 0; i < n; i++) {
    let line = q(cols[0]![i]!);
    for (let c = 1; c < cols.length; c++) line += delimiter + q(cols[c]![i]!);
    lines[i] = line;
  }
  return n === 0 ? '' : `${lines.join('\n')}\n`;
}

/** Write `batches` as CSV to `path`, atomically. */
export async function writeCsvAtomic(
  path: string,
  batches: AsyncIterable<RecordBatch> | Iterable<RecordBatch>,
  opts: CsvWriteOptions = {},
): Promise<{ rows: number; bytes: number }> {
  const delimiter = opts.delimiter ?? ',';
  const header = opts.header ?? true;
  const q = csvQuoter(delimiter);
  return writeAtomic(
    path,
    FORMAT,
    async (target) => {
      let rows = 0;
      let wroteHeader = !header;
      const writeHeader = async (schema: Schema): Promise<void> => {
        if (wroteHeader) return;
        wroteHeader = true;
        await target.write(`${schema.fields.map((f) => q(f.name)).join(delimiter)}\n`);
      };
      if (opts.schema) await writeHeader(opts.schema);
      for await (const batch of batches) {
        throwIfAborted(opts.signal, path);
        await writeHeader(batch.schema);
        rows += batch.numRows;
        await target.write(batchToCsv(batch, delimiter));
      }
      return { rows, bytes: target.bytes };
    },
    { signal: opts.signal },
  );
}
