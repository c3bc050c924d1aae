/**
 * NDJSON input (one JSON object per line; `.jsonl` too; a JSON array with one element per line,
 * as Sluice writes `.json`), streaming: text pieces (a file, `-`,
 * `.gz` / `.zst`: text-input.ts) are cut into lines, each parsed with JSON.parse, and every
 * `batchRows` objects become one RecordBatch. Memory: one batch of objects plus the sample.
 *
 * Schema: given (`schema`, by key), or inferred from the first `inferRows` objects (default
 * 65536): columns in the order their keys first appear; per key, booleans → bool, integers →
 * int64 (floats among them → float64), strings → utf8, arrays → list of the merged element
 * type, objects → struct of the merged fields; a key whose values mix kinds (a number and a
 * string, say) or that is only ever null → utf8 (non-string values as their JSON text).
 * Dates are not inferred from strings (as in Polars); a schema can ask for date32/timestamp
 * columns, read from ISO-8601 strings. A key missing from an object is NULL; keys outside the
 * schema are left out (with an inferred schema: keys first seen after the sample).
 *
 * JSON numbers are doubles: an integer beyond ±2^53 in an integer column is an InputError (it
 * cannot be read exactly; write it as a string, which integer columns accept). Blank lines
 * are skipped. A file without any object (empty, blank lines, `[]`) is INPUT_MALFORMED unless
 * a schema gives the columns (then it has 0 rows), as an empty CSV file is. A line that is not a JSON object, or a value that does not fit its column, is
 * an InputError INPUT_MALFORMED naming the path, the line and the column.
 */
import { Bool, Field, Float64, Int64, List, makeBuilder, makeData, RecordBatch, Schema, Struct, Type, Utf8, type Data, type DataType } from 'apache-arrow';
import { PlanError } from '../errors.js';
import { makeFiller } from './csv-columns.js';
import { malformed, readError, throwIfAborted } from './input-errors.js';
import { emptyBatch } from './ipc-sink.js';
import { textPieces } from './text-input.js';

const FORMAT = 'NDJSON' as const;

export interface NdjsonReadOptions {
  schema?: Field[];
  inferRows?: number;
  batchRows?: number;
  signal?: AbortSignal;
  /** yield one empty batch when there are no rows (one-shot inputs) */
  schemaBatch?: boolean;
}

type Row = { obj: Record<string, unknown>; line: number };

/**
 * Non-empty lines with their 1-based line numbers. A JSON array written one element per line
 * (`[`, `{...},` lines, `]`: Sluice's own JSON output, and most tools' "records" arrays) reads
 * as the lines of its elements: `array` is set once its opening bracket is seen.
 */
async function* lines(path: string, array: { seen: boolean } = { seen: false }): AsyncGenerator<{ text: string; line: number }> {
  let pending = '';
  let line = 0;
  let first = true;
  const element = (raw: string, at: number): { text: string; line: number } | null => {
    let l = raw.trim();
    if (first && l !== '') {
      first = false;
      if (l.startsWith('[')) {
        array.seen = true;
        l = l.slice(1).trim();
      }
    }
    if (array.seen) {
      if (l.endsWith(',')) l = l.slice(0, -1).trim();
      if (l.endsWith(']')) l = l.slice(0, -1).trim();
      if (l.endsWith(',')) l = l.slice(0, -1).trim();
    }
    return l === '' ? null : { text: l, line: at };
  };
  for await (const piece of textPieces(path, 'NDJSON')) {
    const text = pending + piece;
    let start = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
      line++;
      const e = element(text.slice(start, nl), line);
      if (e) yield e;
      start = nl + 1;
    }
    pending = text.slice(start);
  }
  const e = element(pending, line + 1);
  if (e) yield e;
}

// ---- inference -----------------------------------------------------------------------------

type Kind =
  | { k: 'null' }
  | { k: 'bool' }
  | { k: 'int' }
  | { k: 'float' }
  | { k: 'str' }
  | { k: 'mixed' }
  | { k: 'list'; item: Kind }
  | { k: 'struct'; fields: Map<string, Kind> };

const NULL: Kind = { k: 'null' };

function kindOf(v: unknown): Kind {
  if (v === null || v === undefined) return NULL;
  if (typeof v === 'boolean') return { k: 'bool' };
  if (typeof v === 'number') return Number.isInteger(v) ? { k: 'int' } : { k: 'float' };
  if (typeof v === 'string') return { k: 'str' };
  if (Array.isArray(v)) return { k: 'list', item: v.reduce((a: Kind, x) => merge(a, kindOf(x)), NULL) };
  const fields = new Map<string, Kind>();
  for (const [key, x] of Object.entries(v as object)) fields.set(key, kindOf(x));
  return { k: 'struct', fields };
}

function merge(a: Kind, b: Kind): Kind {
  if (a.k === 'null') return b;
  if (b.k === 'null') return a;
  if ((a.k === 'int' && b.k === 'float') || (a.k === 'float' && b.k === 'int')) return { k: 'float' };
  if (a.k !== b.k) return { k: 'mixed' };
  if (a.k === 'list') return { k: 'list', item: merge(a.item, (b as typeof a).item) };
  if (a.k === 'struct') {
    const fields = new Map(a.fields);
    for (const [key, x] of (b as typeof a).fields) fields.set(key, merge(fields.get(key) ?? NULL, x));
    return { k: 'struct', fields };
  }
  return a;
}

function arrowOf(kind: Kind): DataType {
  switch (kind.k) {
    case 'bool':
      return new Bool();
    case 'int':
      return new Int64();
    case 'float':
      return new Float64();
    case 'list':
      return new List(new Field('item', arrowOf(kind.item), true));
    case 'struct':
      return new Struct([...kind.fields].map(([n, x]) => new Field(n, arrowOf(x), true)));
    default:
      return new Utf8();
  }
}

function inferFields(rows: Row[]): Field[] {
  const kinds = new Map<string, Kind>();
  for (const { obj } of rows) for (const [key, v] of Object.entries(obj)) kinds.set(key, merge(kinds.get(key) ?? NULL, kindOf(v)));
  return [...kinds].map(([name, k]) => new Field(name, arrowOf(k), true));
}

// ---- columns -------------------------------------------------------------------------------

const isNested = (t: DataType): boolean => t.typeId === Type.List || t.typeId === Type.Struct || t.typeId === Type.LargeList;

/** A scalar JSON value as the text csv-columns' fillers parse (or an error text). */
function scalarText(v: unknown, t: DataType): string | { error: string } {
  if (t.typeId === Type.Utf8 || t.typeId === Type.LargeUtf8) return typeof v === 'string' ? v : JSON.stringify(v);
  if (typeof v === 'number') {
    if (t.typeId === Type.Int && Number.isInteger(v) && !Number.isSafeInteger(v)) {
      return { error: 'an integer beyond ±2^53, which JSON numbers cannot hold exactly (write it as a string)' };
    }
    return String(v);
  }
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'string') return v;
  return { error: `a JSON ${Array.isArray(v) ? 'array' : 'object'}` };
}

/** A JSON value in the shape apache-arrow's builders take for `t` (nested columns only). */
function builderValue(v: unknown, t: DataType): unknown {
  if (v === null || v === undefined) return null;
  switch (t.typeId) {
    case Type.Int: {
      if (typeof v === 'string' && /^[+-]?\d+$/.test(v)) return (t as Int64).bitWidth === 64 ? BigInt(v) : Number(v);
      if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw new Error(`${JSON.stringify(v)} is not an integer within ±2^53`);
      return (t as Int64).bitWidth === 64 ? BigInt(v) : v;
    }
    case Type.Float:
      if (typeof v !== 'number') throw new Error(`${JSON.stringify(v)} is not a number`);
      return v;
    case Type.Bool:
      if (typeof v !== 'boolean') throw new Error(`${JSON.stringify(v)} is not a boolean`);
      return v;
    case Type.Utf8:
    case Type.LargeUtf8:
      return typeof v === 'string' ? v : JSON.stringify(v);
    case Type.List:
    case Type.LargeList: {
      if (!Array.isArray(v)) throw new Error(`${JSON.stringify(v)} is not an array`);
      const item = (t as List).children[0]!.type;
      return v.map((x) => builderValue(x, item));
    }
    case Type.Struct: {
      if (typeof v !== 'object' || Array.isArray(v)) throw new Error(`${JSON.stringify(v)} is not an object`);
      const out: Record<string, unknown> = {};
      for (const f of (t as Struct).children) out[f.name] = builderValue((v as Record<string, unknown>)[f.name], f.type);
      return out;
    }
    default:
      throw new PlanError('NDJSON_UNSUPPORTED_TYPE', `NDJSON: type ${String(t)} is not supported inside lists and structs`);
  }
}

function checkNestedType(t: DataType, name: string): void {
  if (!isNested(t)) return;
  for (const c of t.children) {
    if (isNested(c.type)) checkNestedType(c.type, name);
    else if (![Type.Int, Type.Float, Type.Bool, Type.Utf8, Type.LargeUtf8].includes(c.type.typeId)) {
      throw new PlanError('NDJSON_UNSUPPORTED_TYPE', `NDJSON column ${name}: ${String(c.type)} is not supported inside lists and structs`, { column: name });
    }
  }
}

function column(rows: Row[], field: Field, where: string): Data {
  const n = rows.length;
  const fail = (r: Row, what: string) =>
    malformed(where, FORMAT, `line ${r.line}, column ${field.name}: ${what}; expected ${String(field.type)}`, { line: r.line, column: field.name });
  const nullable = (r: Row) => {
    if (!field.nullable) throw fail(r, 'null or missing in a non-nullable column');
  };
  if (isNested(field.type)) {
    const b = makeBuilder({ type: field.type, nullValues: [null, undefined] });
    for (const r of rows) {
      const v = r.obj[field.name];
      if (v === null || v === undefined) nullable(r);
      try {
        b.append(builderValue(v, field.type) as never);
      } catch (err) {
        if (err instanceof PlanError) throw err;
        throw fail(r, (err as Error).message);
      }
    }
    return b.finish().flush();
  }
  const f = makeFiller(field.type, n, field.name);
  for (let i = 0; i < n; i++) {
    const r = rows[i]!;
    const v = r.obj[field.name];
    if (v === null || v === undefined) {
      nullable(r);
      f.setNull(i);
      continue;
    }
    const text = scalarText(v, field.type);
    if (typeof text !== 'string') throw fail(r, text.error);
    const err = f.set(i, text);
    if (err !== null) throw fail(r, `${JSON.stringify(v)} is ${err}`);
  }
  return f.finish(n);
}

function toBatch(rows: Row[], schema: Schema, where: string): RecordBatch {
  const children = schema.fields.map((f) => column(rows, f, where));
  return new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: rows.length, nullCount: 0, children }));
}

/** Stream an NDJSON file as RecordBatches of at most `batchRows` rows. */
/**
 * The objects of one line: one, or in an array, several elements on that line (`{..},{..}`,
 * a whole small array written on one line).
 */
function parseLine(text: string, line: number, inArray: boolean, where: string): Array<Record<string, unknown>> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    let elements: unknown = null;
    if (inArray) {
      try {
        elements = JSON.parse(`[${text}]`);
      } catch {
        // reported below, as the line's own error
      }
    }
    if (!Array.isArray(elements)) {
      const hint = inArray ? `; a JSON array is read when each element is on a line of its own, as Sluice writes it (for others: jq -c '.[]')` : '';
      throw malformed(where, FORMAT, `line ${line}: not JSON (${(err as Error).message})${hint}`, { line });
    }
    value = elements;
  }
  const objects = Array.isArray(value) && inArray ? value : [value];
  for (const obj of objects) {
    if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) throw malformed(where, FORMAT, `line ${line}: not a JSON object`, { line });
  }
  return objects as Array<Record<string, unknown>>;
}

export async function* readNdjsonBatches(path: string, opts: NdjsonReadOptions = {}): AsyncGenerator<RecordBatch> {
  const batchRows = opts.batchRows ?? 65536;
  const inferRows = opts.inferRows ?? 65536;
  if (!Number.isSafeInteger(inferRows) || inferRows < 1) {
    throw new PlanError('BAD_OPTION', `readNdjson: expected \`inferRows\` to be an integer from 1 and up, got ${String(inferRows)}`, { option: 'inferRows' });
  }
  let schema: Schema | null = opts.schema ? new Schema(opts.schema) : null;
  schema?.fields.forEach((f) => (isNested(f.type) ? checkNestedType(f.type, f.name) : makeFiller(f.type, 1, f.name)));
  let rows: Row[] = [];
  let yielded = false;
  try {
    const array = { seen: false };
    for await (const { text, line } of lines(path, array)) {
      throwIfAborted(opts.signal, path);
      for (const obj of parseLine(text, line, array.seen, path)) rows.push({ obj, line });
      if (schema === null && rows.length >= inferRows) schema = new Schema(inferFields(rows));
      if (schema !== null && rows.length >= batchRows) {
        for (let s = 0; s + batchRows <= rows.length; s += batchRows) {
          yield toBatch(rows.slice(s, s + batchRows), schema, path);
          yielded = true;
        }
        rows = rows.slice(rows.length - (rows.length % batchRows));
      }
    }
  } catch (err) {
    throw readError(err, path, FORMAT);
  }
  // no object and no schema: no columns to give (Polars' "cannot infer NDJSON types on empty
  // reader"; an empty CSV says the same)
  if (schema === null && rows.length === 0) throw malformed(path, FORMAT, 'empty input: no JSON object to take the columns from');
  schema ??= new Schema(inferFields(rows));
  for (let s = 0; s < rows.length; s += batchRows) {
    yield toBatch(rows.slice(s, s + batchRows), schema, path);
    yielded = true;
  }
  if (!yielded && opts.schemaBatch) yield emptyBatch(schema);
}

/** The schema `readNdjsonBatches` will produce (reads the inference sample when not given). */
export async function readNdjsonSchema(path: string, opts: NdjsonReadOptions = {}): Promise<Schema> {
  if (opts.schema) return new Schema(opts.schema);
  const it = readNdjsonBatches(path, { ...opts, schemaBatch: true });
  try {
    const r = await it.next();
    return r.done ? new Schema([]) : r.value.schema;
  } finally {
    await it.return(undefined);
  }
}
