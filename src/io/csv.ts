/**
 * CSV input (papaparse), streaming: the text (a file, `-` for standard input, `.gz` / `.zst`
 * decompressed on the fly: text-input.ts) arrives in pieces of about 1 MiB; papaparse's core
 * Parser splits the complete records of each piece (a record cut by the piece boundary waits
 * for the next piece), and records are parsed straight into pre-sized typed columns
 * (csv-columns.ts), `batchRows` rows per RecordBatch. Memory: one batch, the inference sample,
 * and one piece.
 *
 * Options:
 *   - `schema`: column types. With a header it is applied by name: the file's columns keep the
 *     file's order; columns the schema names that the file lacks are a PlanError listing them
 *     (raised when the schema is asked for, before any row is read); file columns it does not
 *     name are inferred. Without a header it names and types the columns by position and must
 *     have exactly as many columns as the records have fields.
 *   - `header` (default true): the first record names the columns and is skipped.
 *   - `delimiter` (default ','), `quote` (default '"'), `escape` (default: the quote, i.e. `""`).
 *   - `nullValues` (default `['']`): fields that are NULL, compared before unquoting is told
 *     apart (papaparse does not say whether a field was quoted). An empty field is NULL in every
 *     non-string column whatever the list; in a string column only when '' is in the list.
 *   - `inferRows` (default 65536): rows sampled to infer the types of the columns the schema
 *     does not give (0: every such column is utf8). `inferDates` (default true): recognize
 *     ISO-8601 dates and timestamps when inferring (csv-columns.ts inferType).
 *   - `batchRows` (default 65536).
 * A later value that does not fit an inferred type is an InputError suggesting a schema.
 * Without a header, columns are `column_1`, `column_2`, …; empty header names get the same
 * default, duplicates get `_2`, `_3`, … suffixes.
 *
 * Records: line endings \n, \r\n or \r (detected from the first line ending); a UTF-8 BOM is
 * skipped. A blank line is skipped when there are several columns (it is a NULL when there is
 * one). A record with the wrong number of fields, a broken quote, or a value that does not
 * parse as its column type is an InputError INPUT_MALFORMED naming the path, the line, the
 * column and the value. Line numbers count physical lines (1-based, the header included), so
 * they stay right with quoted line breaks. An empty file (no line at all) is INPUT_MALFORMED
 * unless a schema gives the columns (then it has 0 rows), as an empty NDJSON file is.
 *
 * The writer lives in csv-write.ts and is re-exported here.
 */
import { Field, makeData, RecordBatch, Schema, Struct, Type, Utf8, type DataType } from 'apache-arrow';
import Papa from 'papaparse';
import { fieldToArrow } from '../columns/arrow-types.js';
import { InputError, PlanError } from '../errors.js';
import type { FieldDesc } from '../types/column.js';
import { inferType, makeFiller, type Filler } from './csv-columns.js';
import { inputName, malformed, readError, throwIfAborted } from './input-errors.js';
import { textPieces } from './text-input.js';

export { writeCsvAtomic, type CsvWriteOptions } from './csv-write.js';

const FORMAT = 'CSV' as const;

export interface CsvReadOptions {
  schema?: Field[] | Schema | FieldDesc[];
  /**
   * The schema is a dataset's, read from its first file (this path): a header it does not
   * match is the data's fault (InputError SCHEMA_MISMATCH naming both files), not the caller's.
   */
  schemaFrom?: string;
  header?: boolean;
  delimiter?: string;
  quote?: string;
  escape?: string;
  nullValues?: string[];
  inferRows?: number;
  inferDates?: boolean;
  batchRows?: number;
  signal?: AbortSignal;
  /** yield one empty batch when there are no rows, so the schema travels (one-shot inputs) */
  schemaBatch?: boolean;
  /** stop with one empty batch as soon as the schema is known (readCsvSchema) */
  schemaOnly?: boolean;
}

interface Dialect {
  delimiter: string;
  quote: string;
  escape: string;
}

/** Complete records of one piece of text, with what is needed to name their lines later. */
interface Piece {
  rows: string[][];
  text: string;
  /** physical line number of the first record of `text` */
  line: number;
}

function countNewlines(text: string, newline: string): number {
  const ch = newline === '\r' ? '\r' : '\n';
  let n = 0;
  for (let i = text.indexOf(ch); i !== -1; i = text.indexOf(ch, i + 1)) n++;
  return n;
}

function detectNewline(text: string): string | null {
  const n = text.indexOf('\n');
  if (n > 0 && text[n - 1] === '\r') return '\r\n';
  if (n >= 0) return '\n';
  return text.indexOf('\r') >= 0 ? '\r' : null;
}

/** Physical line of record `k` of `piece` (re-parses the piece; only used for error messages). */
function parserConfig(d: Dialect, newline: string): Papa.ParseConfig {
  return { delimiter: d.delimiter, newline, quoteChar: d.quote, escapeChar: d.escape } as Papa.ParseConfig;
}

function lineOfRecord(piece: Piece, k: number, d: Dialect, newline: string): number {
  if (k === 0) return piece.line;
  const ends: number[] = [];
  new Papa.Parser({ ...parserConfig(d, newline), step: (r: Papa.ParseStepResult<string[]>) => void ends.push(r.meta.cursor) } as Papa.ParseConfig).parse(
    piece.text,
    0,
    false,
  );
  const start = ends[k - 1] ?? piece.text.length;
  return piece.line + countNewlines(piece.text.slice(0, start), newline);
}

async function* pieces(path: string, d: Dialect, signal: AbortSignal | undefined): AsyncGenerator<Piece & { newline: string }> {
  const input = textPieces(path, 'CSV');
  let parser: Papa.Parser | null = null;
  let newline = '\n';
  let pending = '';
  let line = 1;
  let first = true;
  const quoteError = (res: Papa.ParseResult<string[]>, text: string, final: boolean): void => {
    const e = res.errors.find((x) => x.type === 'Quotes' && (final || (x.row ?? 0) < res.data.length));
    if (!e) return;
    const at = lineOfRecord({ rows: res.data, text, line }, Math.min(e.row ?? 0, res.data.length), d, newline);
    throw malformed(path, FORMAT, `line ${at}: ${e.message}`, { line: at });
  };
  try {
    for await (const chunk of input as AsyncIterable<string>) {
      throwIfAborted(signal, path);
      let text = pending + chunk;
      if (first) {
        if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
        first = false;
      }
      if (parser === null) {
        const nl = detectNewline(text);
        if (nl === null || (nl === '\r' && text.endsWith('\r'))) {
          pending = text; // no line ending seen yet (or a \r that may start \r\n)
          continue;
        }
        newline = nl;
        parser = new Papa.Parser(parserConfig(d, newline));
      }
      const res = parser.parse(text, 0, true) as Papa.ParseResult<string[]>;
      const used = res.meta.cursor;
      const done = text.slice(0, used);
      pending = text.slice(used);
      quoteError(res, done, false);
      if (res.data.length > 0) yield { rows: res.data, text: done, line, newline };
      line += countNewlines(done, newline);
    }
    if (first) return; // empty file
    if (pending.length > 0) {
      parser ??= new Papa.Parser(parserConfig(d, newline));
      const res = parser.parse(pending, 0, false) as Papa.ParseResult<string[]>;
      quoteError(res, pending, true);
      if (res.data.length > 0) yield { rows: res.data, text: pending, line, newline };
    }
  } catch (err) {
    throw readError(err, path, FORMAT);
  } finally {
    await input.return(undefined);
  }
}

function uniqueNames(names: string[]): string[] {
  const seen = new Map<string, number>();
  return names.map((raw, i) => {
    const base = raw === '' ? `column_${i + 1}` : raw;
    let name = base;
    for (let k = seen.get(base) ?? 1; seen.has(name); k++) {
      name = `${base}_${k + 1}`;
      seen.set(base, k + 1);
    }
    seen.set(name, seen.get(name) ?? 1);
    return name;
  });
}

const oneChar = (v: unknown): boolean => typeof v === 'string' && v.length === 1 && !/[\r\n]/.test(v);

function validateOptions(path: string, opts: CsvReadOptions): Dialect & { header: boolean; batchRows: number; inferRows: number; nulls: Set<string> } {
  const bad = (name: string, expected: string, got: unknown) =>
    new PlanError('BAD_OPTION', `readCsv: expected \`${name}\` to be ${expected}, got ${JSON.stringify(got)} (reading ${path})`, { option: name, path });
  const delimiter = opts.delimiter ?? ',';
  if (typeof delimiter !== 'string' || delimiter.length === 0 || /["\r\n]/.test(delimiter)) throw bad('delimiter', 'a non-empty string without quotes or line breaks', delimiter);
  const quote = opts.quote ?? '"';
  if (!oneChar(quote) || delimiter.includes(quote)) throw bad('quote', 'one character, not the delimiter', quote);
  const escape = opts.escape ?? quote;
  if (!oneChar(escape) || delimiter.includes(escape)) throw bad('escape', 'one character, not the delimiter', escape);
  const batchRows = opts.batchRows ?? 65536;
  if (!Number.isInteger(batchRows) || batchRows < 1) throw bad('batchRows', 'an integer from 1 and up', batchRows);
  const inferRows = opts.inferRows ?? 65536;
  if (!Number.isSafeInteger(inferRows) || inferRows < 0) throw bad('inferRows', 'an integer from 0 and up', inferRows);
  const nullValues = opts.nullValues ?? [''];
  if (!Array.isArray(nullValues) || nullValues.some((v) => typeof v !== 'string')) throw bad('nullValues', 'a list of strings', nullValues);
  if (opts.header !== undefined && typeof opts.header !== 'boolean') throw bad('header', 'true or false', opts.header);
  if (opts.inferDates !== undefined && typeof opts.inferDates !== 'boolean') throw bad('inferDates', 'true or false', opts.inferDates);
  return { delimiter, quote, escape, header: opts.header ?? true, batchRows, inferRows, nulls: new Set(nullValues) };
}

function givenFields(schema: CsvReadOptions['schema']): Field[] | null {
  if (!schema) return null;
  const fields = schema instanceof Schema ? schema.fields : schema;
  return fields.map((f) => (f instanceof Field ? f : fieldToArrow(f as FieldDesc)));
}

const isText = (t: DataType): boolean => t.typeId === Type.Utf8 || t.typeId === Type.LargeUtf8;

/** Stream a CSV file as RecordBatches of at most `batchRows` rows. */
export async function* readCsvBatches(path: string, opts: CsvReadOptions = {}): AsyncGenerator<RecordBatch> {
  const o = validateOptions(path, opts);
  const { batchRows, nulls } = o;
  const where = inputName(path);
  const given = givenFields(opts.schema);
  // check the given types before reading anything
  given?.forEach((f) => makeFiller(f.type, 1, f.name));
  /** the final fields, once known (after the header and, when needed, the inference sample) */
  let fields: Field[] | null = null;
  /** per column: the given field, or null when its type is inferred */
  let plan: Array<{ name: string; field: Field | null }> | null = null;
  let textCol: boolean[] = [];
  let schema: Schema | null = null;
  let fillers: Filler[] = [];
  let filled = 0;
  let yielded = false;
  let sample = null as SampleRow[] | null;
  let width = -1;
  let newline = '\n';

  const setFields = (f: Field[]): void => {
    fields = f;
    schema = new Schema(f);
    textCol = f.map((x) => isText(x.type));
    newFillers();
  };
  const newFillers = (): void => {
    fillers = fields!.map((f) => makeFiller(f.type, batchRows, f.name));
    filled = 0;
  };
  const emit = (): RecordBatch => {
    const children = fillers.map((f) => f.finish(filled));
    const batch = new RecordBatch(schema!, makeData({ type: new Struct(schema!.fields), length: filled, nullCount: 0, children }));
    newFillers();
    yielded = true;
    return batch;
  };
  const planColumns = (names: string[], byName: boolean, line: number): void => {
    width = names.length;
    if (given && byName) {
      const have = new Set(names);
      const missing = given.filter((f) => !have.has(f.name)).map((f) => f.name);
      if (missing.length > 0 && opts.schemaFrom !== undefined) {
        throw new InputError('SCHEMA_MISMATCH', `CSV file ${where} has columns (${names.join(', ')}) but the first file ${opts.schemaFrom} has (${given.map((f) => f.name).join(', ')}): ${missing.join(', ')} missing`, { path, columns: missing });
      }
      if (missing.length > 0) {
        throw new PlanError(
          'CSV_SCHEMA_MISMATCH',
          `readCsv ${where}: the schema names ${missing.length === 1 ? 'a column' : 'columns'} the header lacks: ${missing.join(', ')} (the header has ${names.join(', ')})`,
          { path, columns: missing },
        );
      }
      const byNameMap = new Map(given.map((f) => [f.name, f]));
      plan = names.map((n) => ({ name: n, field: byNameMap.get(n) ?? null }));
    } else if (given) {
      if (given.length !== width) {
        throw new PlanError('CSV_SCHEMA_MISMATCH', `readCsv ${where}: the schema has ${given.length} columns but line ${line} has ${width} fields (without a header the schema gives every column by position)`, { path });
      }
      plan = given.map((f) => ({ name: f.name, field: f }));
    } else plan = names.map((n) => ({ name: n, field: null }));
    if (plan.every((c) => c.field !== null)) setFields(plan.map((c) => c.field!));
    else sample = [];
  };
  const isNull = (s: string, c: number): boolean => (s === '' ? !textCol[c] || nulls.has('') : nulls.size > 0 && nulls.has(s));
  const put = (row: string[], piece: Piece, k: number): void => {
    const i = filled;
    for (let c = 0; c < width; c++) {
      const s = row[c]!;
      if (isNull(s, c)) {
        if (!fields![c]!.nullable) {
          const at = lineOfRecord(piece, k, o, newline);
          throw malformed(path, FORMAT, `line ${at}, column ${fields![c]!.name}: NULL (${JSON.stringify(s)}) in a non-nullable column`, { line: at, column: fields![c]!.name });
        }
        fillers[c]!.setNull(i);
      } else {
        const err = fillers[c]!.set(i, s);
        if (err !== null) {
          const at = lineOfRecord(piece, k, o, newline);
          const hint = plan![c]!.field ? '' : ` (type inferred from the first ${o.inferRows} rows; pass a schema that gives this column a type)`;
          throw malformed(
            path,
            FORMAT,
            `line ${at}, column ${fields![c]!.name}: ${JSON.stringify(s.length > 80 ? `${s.slice(0, 80)}…` : s)} is ${err}; expected ${String(fields![c]!.type)}${hint}`,
            { line: at, column: fields![c]!.name, value: s },
          );
        }
      }
    }
    filled++;
  };
  const infer = (): void => {
    const rows = sample!;
    setFields(
      plan!.map(
        (p, c) =>
          p.field ??
          new Field(p.name, o.inferRows === 0 ? new Utf8() : inferType(columnValues(rows, c, nulls), { dates: opts.inferDates ?? true }), true),
      ),
    );
  };

  let headerPending = o.header;
  for await (const piece of pieces(path, o, opts.signal)) {
    newline = piece.newline;
    const rows = piece.rows;
    for (let k = 0; k < rows.length; k++) {
      const row = rows[k]!;
      if (headerPending) {
        headerPending = false;
        planColumns(uniqueNames(row), true, piece.line);
        if (opts.schemaOnly && fields) return yield emit();
        continue;
      }
      if (plan === null) {
        planColumns(row.map((_, c) => `column_${c + 1}`), false, lineOfRecord(piece, k, o, newline));
        if (opts.schemaOnly && fields) return yield emit();
      }
      if (row.length !== width) {
        if (row.length === 1 && row[0] === '' && width > 1) continue; // blank line
        const at = lineOfRecord(piece, k, o, newline);
        throw malformed(path, FORMAT, `line ${at}: expected ${width} fields, found ${row.length}`, { line: at });
      }
      const sampling = sample as SampleRow[] | null;
      if (sampling !== null) {
        sampling.push({ row, piece, k });
        if (sampling.length < Math.max(1, o.inferRows)) continue;
        infer();
        if (opts.schemaOnly) return yield emit();
        const rest = sampling;
        sample = null;
        for (const r of rest) {
          put(r.row, r.piece, r.k);
          if (filled === batchRows) yield emit();
        }
        continue;
      }
      put(row, piece, k);
      if (filled === batchRows) yield emit();
    }
  }
  if (plan === null) {
    // an empty file: without a schema there are no columns to give (Polars' "empty CSV")
    if (!given) throw malformed(path, FORMAT, o.header ? 'empty file (no header line)' : 'empty file (no line to take the columns from)');
    setFields(given);
  }
  const rest = sample as SampleRow[] | null;
  if (rest !== null) {
    infer();
    if (opts.schemaOnly) return yield emit();
    for (const r of rest) {
      put(r.row, r.piece, r.k);
      if (filled === batchRows) yield emit();
    }
  }
  if (filled > 0 || (!yielded && (opts.schemaBatch || opts.schemaOnly))) yield emit();
}

interface SampleRow {
  row: string[];
  piece: Piece;
  k: number;
}

function* columnValues(rows: SampleRow[], c: number, nulls: Set<string>): Generator<string> {
  for (const r of rows) {
    const s = r.row[c]!;
    if (!nulls.has(s)) yield s;
  }
}

/**
 * The schema `readCsvBatches` will produce: reads the header and, for columns whose type is
 * inferred, the inference sample (PlanError when a schema does not fit the header).
 */
export async function readCsvSchema(path: string, opts: CsvReadOptions = {}): Promise<Schema> {
  const it = readCsvBatches(path, { ...opts, schemaOnly: true });
  try {
    const r = await it.next();
    if (!r.done) return r.value.schema;
  } finally {
    await it.return(undefined);
  }
  return new Schema([]);
}
