/**
 * Text rendering of Arrow record batches for the CLI: table (cli-table3, head and tail rows),
 * CSV, TSV, JSON (one array) and NDJSON (one object per line).
 *
 * Values are read from the Arrow buffers (never `vector.get` for primitives, which loses int64
 * and ns timestamps): fixed-width values and variable-width offsets are indexed by the slice-
 * relative row (apache-arrow sub-arrays them when slicing), validity and boolean bits by
 * `data.offset + row`.
 *
 * Text conventions (the same as the CSV file writer of src/io):
 * - integers exact (int64/uint64 through bigint); floats in the shortest text that reads back to
 *   the same value (float32 included), `NaN`, `inf`, `-inf`, `-0`; booleans `true`/`false`
 * - DATE `YYYY-MM-DD`, TIMESTAMP ISO-8601 (`2024-01-01T12:00:00.5`, with `Z` when zoned),
 *   TIME `HH:MM:SS[.frac]`, durations as integer counts of their unit
 * - nested values as JSON-like text: lists `[1, 2]`, structs `{"a": 1}`, maps `{"k": 1}`,
 *   strings inside them quoted, NULL inside them `null`; binary as hex
 * - CSV/TSV: NULL is an empty field, an empty string `""`; a field is quoted (with `""` escapes)
 *   when it contains the delimiter, a quote, \n or \r
 * - table view: NULL shown as `null`
 * - JSON/NDJSON: one object per row, keys in column order; int64/uint64 (and durations) as JSON
 *   numbers when |v| <= 2^53 - 1, else as decimal strings; NaN/±Infinity as the strings `"NaN"`,
 *   `"inf"`, `"-inf"`; temporal values as ISO strings; lists as arrays; structs as objects; maps
 *   as objects when their keys are strings, else arrays of `[key, value]` pairs; binary as hex
 *   strings.
 */
import { csvQuoter, formatFloat } from '../io/csv-write.js';
import Table from 'cli-table3';
import { Type, Vector, type Data, type DataType, type RecordBatch, type Schema } from 'apache-arrow';
import { formatDate, formatTimestamp, type Unit } from '../io/temporal-text.js';
import { decimalText } from '../columns/decimal-text.js';

const UNITS: Unit[] = ['s', 'ms', 'us', 'ns'];
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** How a cell is rendered: top-level text, text inside a nested value, or JSON. */
type Mode = 'text' | 'nested' | 'json';
/** Cell at slice-relative row `i`: null = NULL (text mode only; the other modes give 'null'). */
type Cell = (i: number) => string | null;

// ---- type names ------------------------------------------------------------------------------

/** Short, lowercase type names: int64, timestamp[ms], list<utf8>, struct<a: int32>… */
export function dtypeName(t: DataType): string {
  const a = t as unknown as Record<string, unknown>;
  switch (t.typeId) {
    case Type.Null:
      return 'null';
    case Type.Bool:
      return 'bool';
    case Type.Int:
      return `${a.isSigned ? 'int' : 'uint'}${a.bitWidth}`;
    case Type.Float:
      return ['float16', 'float32', 'float64'][a.precision as number] ?? 'float';
    case Type.Utf8:
      return 'utf8';
    case Type.LargeUtf8:
      return 'large_utf8';
    case Type.Binary:
      return 'binary';
    case Type.LargeBinary:
      return 'large_binary';
    case Type.FixedSizeBinary:
      return `fixed_size_binary[${a.byteWidth}]`;
    case Type.Date:
      return a.unit === 0 ? 'date32' : 'date64';
    case Type.Timestamp: {
      const tz = a.timezone as string | null | undefined;
      return `timestamp[${UNITS[a.unit as number]}${tz ? `, ${tz}` : ''}]`;
    }
    case Type.Time:
      return `time${a.bitWidth}[${UNITS[a.unit as number]}]`;
    case Type.Duration:
      return `duration[${UNITS[a.unit as number]}]`;
    case Type.Decimal:
      return `decimal(${a.precision}, ${a.scale})`;
    case Type.List:
      return `list<${dtypeName(t.children[0]!.type)}>`;
    case Type.LargeList:
      return `large_list<${dtypeName(t.children[0]!.type)}>`;
    case Type.FixedSizeList:
      return `fixed_size_list<${dtypeName(t.children[0]!.type)}, ${a.listSize}>`;
    case Type.Struct:
      return `struct<${t.children.map((f) => `${f.name}: ${dtypeName(f.type)}`).join(', ')}>`;
    case Type.Map: {
      const kv = t.children[0]!.type.children;
      return `map<${dtypeName(kv[0]!.type)}, ${dtypeName(kv[1]!.type)}>`;
    }
    case Type.Dictionary:
      return `dictionary<${dtypeName((t as unknown as { dictionary: DataType }).dictionary)}>`;
    default:
      return String(t).toLowerCase();
  }
}

// ---- scalar text -------------------------------------------------------------------------------


function intJson(v: bigint | number): string {
  if (typeof v === 'number') return String(v);
  return v <= MAX_SAFE && v >= -MAX_SAFE ? v.toString() : `"${v}"`;
}

function hex(bytes: Uint8Array, start: number, end: number): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString('hex');
}

/** Text of an arbitrary JS value from `vector.get` (fallback for rare types). */
function genericText(v: unknown, json: boolean): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'bigint') return json ? intJson(v) : v.toString();
  if (typeof v === 'number') return json && !Number.isFinite(v) ? JSON.stringify(formatFloat(v, false)) : String(v);
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'string') return JSON.stringify(v);
  if (v instanceof Uint8Array) return JSON.stringify(hex(v, 0, v.byteLength));
  if (ArrayBuffer.isView(v)) return JSON.stringify(Array.from(v as unknown as ArrayLike<number>, String).join(''));
  if (v instanceof Vector || Array.isArray(v)) {
    const parts = Array.from(v as Iterable<unknown>, (x) => genericText(x, json));
    return json ? `[${parts.join(',')}]` : `[${parts.join(', ')}]`;
  }
  if (typeof v === 'object') {
    const o = typeof (v as { toJSON?: unknown }).toJSON === 'function' ? (v as { toJSON(): unknown }).toJSON() : v;
    const entries = o instanceof Map ? [...o.entries()] : Object.entries(o as object);
    const parts = entries.map(([k, x]) => `${JSON.stringify(String(k))}${json ? ':' : ': '}${genericText(x, json)}`);
    return json ? `{${parts.join(',')}}` : `{${parts.join(', ')}}`;
  }
  return JSON.stringify(String(v));
}

function isValid(bitmap: Uint8Array | null, j: number): boolean {
  return bitmap === null || ((bitmap[j >> 3]! >> (j & 7)) & 1) === 1;
}

/**
 * A renderer for the cells of one column chunk. `text` gives null for NULL; `nested` and
 * `json` give the literal text `null`.
 */
export function cellRenderer(data: Data, mode: Mode): Cell {
  const inner = valueRenderer(data, mode);
  const off = data.offset;
  const bitmap = data.nullCount > 0 ? (data.nullBitmap as Uint8Array | null) ?? null : null;
  const nullText = mode === 'text' ? null : 'null';
  if (data.typeId === Type.Null) return () => nullText;
  if (bitmap === null) return inner;
  return (i) => (isValid(bitmap, off + i) ? inner(i) : nullText);
}

/** Renders a non-NULL value at slice-relative row i. */
function valueRenderer(data: Data, mode: Mode): (i: number) => string {
  const type = data.type as DataType;
  const a = type as unknown as Record<string, unknown>;
  const json = mode === 'json';
  const quoted = mode !== 'text';
  const q = (s: string): string => (quoted ? JSON.stringify(s) : s);
  const values = data.values as ArrayLike<number | bigint>;
  switch (type.typeId) {
    case Type.Int:
      return json ? (i) => intJson(values[i]!) : (i) => String(values[i]);
    case Type.Float: {
      const precision = a.precision as number;
      const single = precision !== 2;
      const get: (i: number) => number =
        precision === 0 ? ((vec) => (i: number) => vec.get(i) as number)(new Vector([data])) : (i) => values[i] as number;
      if (json) {
        return (i) => {
          const x = get(i);
          return Number.isFinite(x) ? formatFloat(x, single) : `"${formatFloat(x, single)}"`;
        };
      }
      return (i) => formatFloat(get(i), single);
    }
    case Type.Bool: {
      const bits = data.values as Uint8Array;
      const off = data.offset;
      return (i) => (((bits[(off + i) >> 3]! >> ((off + i) & 7)) & 1) === 1 ? 'true' : 'false');
    }
    case Type.Decimal: {
      // exact digits; a JSON number keeps them all
      const words = data.values as unknown as Uint32Array;
      const scale = a.scale as number;
      return (i) => decimalText(words, i, scale);
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
    case Type.FixedSizeBinary: {
      const bytes = data.values as Uint8Array;
      const w = a.byteWidth as number;
      return (i) => q(hex(bytes, i * w, (i + 1) * w));
    }
    case Type.Date:
      if (a.unit === 0) return (i) => q(formatDate(values[i] as number));
      return (i) => {
        const ms = BigInt(values[i]!);
        return q(ms % 86_400_000n === 0n ? formatDate(Number(ms / 86_400_000n)) : formatTimestamp(ms, 'ms', false));
      };
    case Type.Timestamp: {
      const unit = UNITS[a.unit as number]!;
      const zoned = typeof a.timezone === 'string' && a.timezone !== '';
      return (i) => q(formatTimestamp(BigInt(values[i]!), unit, zoned));
    }
    case Type.Time: {
      const unit = UNITS[a.unit as number]!;
      return (i) => q(formatTimestamp(BigInt(values[i]!), unit, false).slice(11));
    }
    case Type.Duration:
      return json ? (i) => intJson(values[i]!) : (i) => String(values[i]);
    case Type.List:
    case Type.LargeList:
    case Type.Map: {
      const child = data.children[0]!;
      const offsets = data.valueOffsets as ArrayLike<number | bigint>;
      if (type.typeId === Type.Map) return mapRenderer(child, offsets, mode);
      const el = cellRenderer(child, json ? 'json' : 'nested') as (k: number) => string;
      const sep = json ? ',' : ', ';
      return (i) => {
        const s = Number(offsets[i]);
        const e = Number(offsets[i + 1]);
        const parts: string[] = new Array(e - s);
        for (let k = s; k < e; k++) parts[k - s] = el(k);
        return `[${parts.join(sep)}]`;
      };
    }
    case Type.FixedSizeList: {
      const size = a.listSize as number;
      const el = cellRenderer(data.children[0]!, json ? 'json' : 'nested') as (k: number) => string;
      const sep = json ? ',' : ', ';
      return (i) => {
        const parts: string[] = new Array(size);
        for (let k = 0; k < size; k++) parts[k] = el(i * size + k);
        return `[${parts.join(sep)}]`;
      };
    }
    case Type.Struct: {
      const fields = type.children;
      const els = data.children.map((c) => cellRenderer(c, json ? 'json' : 'nested') as (k: number) => string);
      const keys = fields.map((f) => JSON.stringify(f.name) + (json ? ':' : ': '));
      const sep = json ? ',' : ', ';
      return (i) => `{${els.map((el, c) => keys[c] + el(i)).join(sep)}}`;
    }
    case Type.Dictionary: {
      const dict = data.dictionary;
      if (dict && dict.data.length === 1) {
        const el = cellRenderer(dict.data[0]!, mode);
        return (i) => el(Number(values[i])) ?? 'null';
      }
      break;
    }
  }
  const vec = new Vector([data]);
  return (i) => {
    const v = vec.get(i);
    if (!quoted && typeof v === 'string') return v;
    return genericText(v, json);
  };
}

function mapRenderer(entries: Data, offsets: ArrayLike<number | bigint>, mode: Mode): (i: number) => string {
  const json = mode === 'json';
  const [kd, vd] = entries.children as [Data, Data];
  const key = cellRenderer(kd, json ? 'json' : 'nested') as (k: number) => string;
  const val = cellRenderer(vd, json ? 'json' : 'nested') as (k: number) => string;
  const stringKeys = kd.typeId === Type.Utf8 || kd.typeId === Type.LargeUtf8;
  return (i) => {
    const s = Number(offsets[i]);
    const e = Number(offsets[i + 1]);
    const parts: string[] = [];
    for (let k = s; k < e; k++) {
      if (json && !stringKeys) parts.push(`[${key(k)},${val(k)}]`);
      else parts.push(`${key(k)}${json ? ':' : ': '}${val(k)}`);
    }
    if (json && !stringKeys) return `[${parts.join(',')}]`;
    return `{${parts.join(json ? ',' : ', ')}}`;
  };
}

// ---- streaming text formats ------------------------------------------------------------------

/** Where rendered text goes; `write` resolves when the sink can take more. */
export interface TextSink {
  write(text: string): Promise<void> | void;
}


/** Rows rendered per chunk handed to the sink. */
const CHUNK_ROWS = 8192;

export function csvHeader(schema: Schema, delimiter = ','): string {
  const q = csvQuoter(delimiter);
  return `${schema.fields.map((f) => q(f.name)).join(delimiter)}\n`;
}

/** Text of one batch as CSV records ('\n' after each), without a header. */
export async function renderDelimitedBatch(batch: RecordBatch, sink: TextSink, delimiter = ','): Promise<void> {
  const q = csvQuoter(delimiter);
  const cells = batch.data.children.map((d) => cellRenderer(d, 'text'));
  const n = batch.numRows;
  for (let start = 0; start < n; start += CHUNK_ROWS) {
    const end = Math.min(n, start + CHUNK_ROWS);
    let out = '';
    for (let i = start; i < end; i++) {
      let line = '';
      for (let c = 0; c < cells.length; c++) {
        if (c > 0) line += delimiter;
        line += q(cells[c]!(i));
      }
      out += `${line}\n`;
    }
    await sink.write(out);
  }
}

/** Write `batches` as CSV (or TSV with delimiter '\t'), header first. */
export async function renderDelimited(schema: Schema, batches: Iterable<RecordBatch> | AsyncIterable<RecordBatch>, sink: TextSink, delimiter = ','): Promise<number> {
  await sink.write(csvHeader(schema, delimiter));
  let rows = 0;
  for await (const b of batches) {
    await renderDelimitedBatch(b, sink, delimiter);
    rows += b.numRows;
  }
  return rows;
}

function rowObjects(batch: RecordBatch): (i: number) => string {
  const cells = batch.data.children.map((d) => cellRenderer(d, 'json') as (i: number) => string);
  const keys = batch.schema.fields.map((f) => `${JSON.stringify(f.name)}:`);
  return (i) => {
    let s = '{';
    for (let c = 0; c < cells.length; c++) s += (c > 0 ? ',' : '') + keys[c] + cells[c]!(i);
    return `${s}}`;
  };
}

/** Renders every row as a JSON object, in chunks of CHUNK_ROWS; `text(object, row number)` frames it. */
async function renderObjects(
  batches: Iterable<RecordBatch> | AsyncIterable<RecordBatch>,
  sink: TextSink,
  text: (object: string, row: number) => string,
): Promise<number> {
  let rows = 0;
  for await (const b of batches) {
    const row = rowObjects(b);
    for (let start = 0; start < b.numRows; start += CHUNK_ROWS) {
      const end = Math.min(b.numRows, start + CHUNK_ROWS);
      let out = '';
      for (let i = start; i < end; i++) out += text(row(i), rows + i);
      await sink.write(out);
    }
    rows += b.numRows;
  }
  return rows;
}

/** One JSON object per line. */
export function renderNdjson(batches: Iterable<RecordBatch> | AsyncIterable<RecordBatch>, sink: TextSink): Promise<number> {
  return renderObjects(batches, sink, (o) => `${o}\n`);
}

/** One JSON array of objects, one object per line: `[\n{…},\n{…}\n]\n` (`[]` when empty). */
export async function renderJson(batches: Iterable<RecordBatch> | AsyncIterable<RecordBatch>, sink: TextSink): Promise<number> {
  const rows = await renderObjects(batches, sink, (o, r) => `${r === 0 ? '[\n' : ',\n'}${o}`);
  await sink.write(rows === 0 ? '[]\n' : '\n]\n');
  return rows;
}

// ---- table view ------------------------------------------------------------------------------

export interface TableViewOptions {
  /** Rows shown at most: half from the head, half from the tail (default 20). */
  maxRows?: number;
  /** Only the first rows (no tail), e.g. for the demo. */
  headOnly?: boolean;
  /** Colours (header, borders, dim NULLs): only on a TTY. */
  color?: boolean;
  /** Longest cell text before it is cut with '…' (default 40). */
  maxCellWidth?: number;
}

const NUMERIC = new Set<Type>([Type.Int, Type.Float, Type.Decimal, Type.Duration]);

/**
 * Collects batches (keeping only the rows to show: the head, and the tail as a ring of batch
 * slices) and renders the table view: column names with their types in the header, the rows,
 * a `…` row where rows were left out, and `N rows (M shown)` under it.
 */
export class TableView {
  private readonly head: number;
  private readonly tail: number;
  private headRows: string[][] = [];
  /** recent batches whose rows may be in the tail */
  private tailBatches: RecordBatch[] = [];
  private tailBatchRows = 0;
  total = 0;

  constructor(
    private readonly schema: Schema,
    private readonly opts: TableViewOptions = {},
  ) {
    const max = Math.max(0, opts.maxRows ?? 20);
    this.head = opts.headOnly ? max : Math.ceil(max / 2);
    this.tail = opts.headOnly ? 0 : max - this.head;
  }

  add(batch: RecordBatch): void {
    const n = batch.numRows;
    if (n === 0) return;
    this.total += n;
    if (this.headRows.length < this.head) {
      const take = Math.min(n, this.head - this.headRows.length);
      this.headRows.push(...this.renderRows(batch, 0, take));
      if (take === n) return;
      batch = batch.slice(take, n);
    }
    if (this.tail === 0) return;
    this.tailBatches.push(batch);
    this.tailBatchRows += batch.numRows;
    while (this.tailBatches.length > 1 && this.tailBatchRows - this.tailBatches[0]!.numRows >= this.tail) {
      this.tailBatchRows -= this.tailBatches.shift()!.numRows;
    }
  }

  private renderRows(batch: RecordBatch, from: number, to: number): string[][] {
    const color = this.opts.color === true;
    const width = this.opts.maxCellWidth ?? 40;
    const cells = batch.data.children.map((d) => cellRenderer(d, 'text'));
    const out: string[][] = [];
    for (let i = from; i < to; i++) {
      out.push(
        cells.map((cell) => {
          const s = cell(i);
          if (s === null) return color ? '\x1b[2mnull\x1b[22m' : 'null';
          return clip(s, width);
        }),
      );
    }
    return out;
  }

  /** Rows of the tail, in order. */
  private tailRows(): string[][] {
    const rows: string[][] = [];
    let skip = this.tailBatchRows - Math.min(this.tail, this.total - this.headRows.length);
    for (const b of this.tailBatches) {
      if (skip >= b.numRows) {
        skip -= b.numRows;
        continue;
      }
      rows.push(...this.renderRows(b, skip, b.numRows));
      skip = 0;
    }
    return rows;
  }

  render(): string {
    const color = this.opts.color === true;
    const fields = this.schema.fields;
    const tail = this.tailRows();
    const shown = this.headRows.length + tail.length;
    const head = fields.map((f) => `${f.name}\n${color ? `\x1b[2m${dtypeName(f.type)}\x1b[22m` : dtypeName(f.type)}`);
    const table = new Table({
      head,
      style: color ? { head: ['cyan'], border: ['grey'] } : { head: [], border: [] },
      colAligns: fields.map((f) => (NUMERIC.has(f.type.typeId) ? 'right' : 'left')),
      wordWrap: false,
    });
    for (const r of this.headRows) table.push(r);
    if (shown < this.total) table.push(fields.map(() => '…'));
    for (const r of tail) table.push(r);
    const n = this.total.toLocaleString('en-US');
    const footer = shown < this.total ? `${n} rows (${shown.toLocaleString('en-US')} shown)` : `${n} row${this.total === 1 ? '' : 's'}`;
    const cols = `${fields.length} column${fields.length === 1 ? '' : 's'}`;
    return `${fields.length > 0 ? onlyHeaderRule(table.toString()) : '(no columns)'}\n${footer}, ${cols}\n`;
  }
}

/** cli-table3 draws a rule between every two rows: keep only the one under the header. */
function onlyHeaderRule(text: string): string {
  let seen = false;
  return text
    .split('\n')
    .filter((line) => {
      // eslint-disable-next-line no-control-regex
      if (!line.replace(/\x1b\[[0-9;]*m/g, '').startsWith('├')) return true;
      if (seen) return false;
      seen = true;
      return true;
    })
    .join('\n');
}

function clip(s: string, width: number): string {
  const flat = s.includes('\n') || s.includes('\r') ? s.replace(/\r?\n|\r/g, '\\n') : s;
  return flat.length > width ? `${flat.slice(0, Math.max(1, width - 1))}…` : flat;
}

/** Render a whole table (or list of batches) as the table view. */
export function renderTable(schema: Schema, batches: Iterable<RecordBatch>, opts: TableViewOptions = {}): string {
  const view = new TableView(schema, opts);
  for (const b of batches) view.add(b);
  return view.render();
}
