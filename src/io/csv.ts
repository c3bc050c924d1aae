/**
 * CSV input (papaparse), streaming: the file is read as UTF-8 text in 1 MiB pieces; papaparse's
 * core Parser splits the complete records of each piece (a record cut by the piece boundary
 * waits for the next piece), and records are parsed straight into pre-sized typed columns
 * (csv-columns.ts), `batchRows` rows per RecordBatch. Memory: one batch plus one piece.
 *
 * Options: `schema` (FieldDesc[] or an arrow Schema; columns by position, names from the
 * schema), `header` (default true: the first record names the columns and is skipped),
 * `delimiter` (default ','), `batchRows` (default 65536). Without a schema, types are
 * inferred from the first batch (see csv-columns.ts); a later value that does not fit is an
 * InputError suggesting a schema. Without a header, columns are `column_1`, `column_2`, …;
 * empty header names get the same default, duplicates get `_2`, `_3`, … suffixes.
 *
 * Records: quotes are `"` with `""` as escape; line endings \n, \r\n or \r (detected from the
 * first line ending); a UTF-8 BOM is skipped. An empty field is NULL (also `""`: papaparse does
 * not tell them apart). A blank line is skipped when there are several columns (it is a NULL
 * when there is one). A record with the wrong number of fields, a broken quote, or a value
 * that does not parse as its column type is an InputError INPUT_MALFORMED naming the path,
 * the line, the column and the value. Line numbers count physical lines (1-based, the header
 * included), so they stay right with quoted line breaks.
 *
 * The writer lives in csv-write.ts and is re-exported here.
 */
import { Field, Int64, makeData, RecordBatch, Schema, Struct, type DataType } from 'apache-arrow';
import { createReadStream } from 'node:fs';
import Papa from 'papaparse';
import { PlanError } from '../errors.js';
import type { FieldDesc } from '../types/column.js';
import { fieldsFromDescs, inferType, makeFiller, type Filler } from './csv-columns.js';
import { malformed, readError, throwIfAborted } from './input-errors.js';

export { writeCsvAtomic, type CsvWriteOptions } from './csv-write.js';

const FORMAT = 'CSV' as const;
const PIECE_BYTES = 1 << 20;

export interface CsvReadOptions {
  schema?: FieldDesc[] | Schema;
  header?: boolean;
  delimiter?: string;
  batchRows?: number;
  signal?: AbortSignal;
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
function lineOfRecord(piece: Piece, k: number, delimiter: string, newline: string): number {
  if (k === 0) return piece.line;
  const ends: number[] = [];
  new Papa.Parser({ delimiter, newline, step: (r: Papa.ParseStepResult<string[]>) => void ends.push(r.meta.cursor) } as Papa.ParseConfig).parse(
    piece.text,
    0,
    false,
  );
  const start = ends[k - 1] ?? piece.text.length;
  return piece.line + countNewlines(piece.text.slice(0, start), newline);
}

async function* pieces(path: string, delimiter: string, signal: AbortSignal | undefined): AsyncGenerator<Piece & { newline: string }> {
  const input = createReadStream(path, { encoding: 'utf8', highWaterMark: PIECE_BYTES });
  let parser: Papa.Parser | null = null;
  let newline = '\n';
  let pending = '';
  let line = 1;
  let first = true;
  const quoteError = (res: Papa.ParseResult<string[]>, text: string, final: boolean): void => {
    const e = res.errors.find((x) => x.type === 'Quotes' && (final || (x.row ?? 0) < res.data.length));
    if (!e) return;
    const at = lineOfRecord({ rows: res.data, text, line }, Math.min(e.row ?? 0, res.data.length), delimiter, newline);
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
        parser = new Papa.Parser({ delimiter, newline, quoteChar: '"' } as Papa.ParseConfig);
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
      parser ??= new Papa.Parser({ delimiter, newline, quoteChar: '"' } as Papa.ParseConfig);
      const res = parser.parse(pending, 0, false) as Papa.ParseResult<string[]>;
      quoteError(res, pending, true);
      if (res.data.length > 0) yield { rows: res.data, text: pending, line, newline };
    }
  } catch (err) {
    throw readError(err, path, FORMAT);
  } finally {
    input.destroy();
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

function validateOptions(path: string, opts: CsvReadOptions): { delimiter: string; header: boolean; batchRows: number } {
  const delimiter = opts.delimiter ?? ',';
  if (typeof delimiter !== 'string' || delimiter.length === 0 || /["\r\n]/.test(delimiter)) {
    throw new PlanError('BAD_CSV_OPTION', `Expected \`delimiter\` to be a non-empty string without quotes or line breaks, got ${JSON.stringify(delimiter)} (reading ${path})`, { path });
  }
  const batchRows = opts.batchRows ?? 65536;
  if (!Number.isInteger(batchRows) || batchRows < 1) {
    throw new PlanError('BAD_CSV_OPTION', `Expected \`batchRows\` to be an integer from 1 and up, got ${String(batchRows)} (reading ${path})`, { path });
  }
  return { delimiter, header: opts.header ?? true, batchRows };
}

/** Stream a CSV file as RecordBatches of at most `batchRows` rows. */
export async function* readCsvBatches(path: string, opts: CsvReadOptions = {}): AsyncGenerator<RecordBatch> {
  const { delimiter, header, batchRows } = validateOptions(path, opts);
  let fields: Field[] | null = opts.schema
    ? opts.schema instanceof Schema
      ? opts.schema.fields
      : fieldsFromDescs(opts.schema)
    : null;
  const given = fields !== null;
  let schema: Schema | null = fields ? new Schema(fields) : null;
  let fillers: Filler[] = [];
  let filled = 0;
  let sample: string[][] | null = given ? null : []; // rows buffered for inference
  let sampleLines: Array<{ piece: Piece; k: number }> = [];
  let headerPending = header;
  let width = fields?.length ?? -1;

  const newFillers = (): void => {
    fillers = fields!.map((f) => makeFiller(f.type, batchRows, f.name));
    filled = 0;
  };
  const emit = (): RecordBatch => {
    const children = fillers.map((f) => f.finish(filled));
    const batch = new RecordBatch(schema!, makeData({ type: new Struct(schema!.fields), length: filled, nullCount: 0, children }));
    newFillers();
    return batch;
  };
  const put = (row: string[], piece: Piece, k: number, newline: string): void => {
    const i = filled;
    for (let c = 0; c < width; c++) {
      const s = row[c]!;
      if (s === '') {
        if (!fields![c]!.nullable) {
          const at = lineOfRecord(piece, k, delimiter, newline);
          throw malformed(path, FORMAT, `line ${at}, column ${fields![c]!.name}: empty value (NULL) in a non-nullable column`, {
            line: at,
            column: fields![c]!.name,
          });
        }
        fillers[c]!.setNull(i);
      } else {
        const err = fillers[c]!.set(i, s);
        if (err !== null) {
          const at = lineOfRecord(piece, k, delimiter, newline);
          const hint = given ? '' : ` (type inferred from the first ${batchRows} rows; pass a schema to readCsv)`;
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
    fields = fields!.map((f, c) => new Field(f.name, inferType(columnValues(rows, c)), true));
    schema = new Schema(fields);
    newFillers();
  };

  let lastNewline = '\n';
  for await (const piece of pieces(path, delimiter, opts.signal)) {
    lastNewline = piece.newline;
    const rows = piece.rows;
    for (let k = 0; k < rows.length; k++) {
      const row = rows[k]!;
      if (headerPending) {
        headerPending = false;
        if (!given) fields = uniqueNames(row).map((n) => new Field(n, new Int64(), true));
        else if (row.length !== width) {
          throw malformed(path, FORMAT, `line ${piece.line}: the header has ${row.length} fields but the schema has ${width} columns`, { line: piece.line });
        }
        width = row.length;
        if (given) newFillers();
        continue;
      }
      if (width < 0) {
        width = row.length;
        fields = row.map((_, c) => new Field(`column_${c + 1}`, new Int64(), true));
      }
      if (row.length !== width) {
        if (row.length === 1 && row[0] === '' && width > 1) continue; // blank line
        const at = lineOfRecord(piece, k, delimiter, piece.newline);
        throw malformed(path, FORMAT, `line ${at}: expected ${width} fields, found ${row.length}`, { line: at });
      }
      if (sample !== null) {
        sample.push(row);
        sampleLines.push({ piece, k });
        if (sample.length === batchRows) {
          infer();
          for (let r = 0; r < sample.length; r++) put(sample[r]!, sampleLines[r]!.piece, sampleLines[r]!.k, piece.newline);
          sample = null;
          sampleLines = [];
          yield emit();
        }
        continue;
      }
      if (fillers.length !== width) newFillers();
      put(row, piece, k, piece.newline);
      if (filled === batchRows) yield emit();
    }
  }
  if (sample !== null) {
    if (fields === null) {
      if (header) throw malformed(path, FORMAT, 'empty file (no header line)');
      return;
    }
    if (sample.length === 0) return;
    infer();
    for (let r = 0; r < sample.length; r++) put(sample[r]!, sampleLines[r]!.piece, sampleLines[r]!.k, lastNewline);
    yield emit();
    return;
  }
  if (filled > 0) yield emit();
}

function* columnValues(rows: string[][], c: number): Generator<string> {
  for (const r of rows) yield r[c]!;
}

/**
 * The schema `readCsvBatches` will produce: the given one, or the types inferred from the
 * first batch (reads at most `batchRows` records).
 */
export async function readCsvSchema(path: string, opts: CsvReadOptions = {}): Promise<Schema> {
  if (opts.schema) {
    validateOptions(path, opts);
    return opts.schema instanceof Schema ? opts.schema : new Schema(fieldsFromDescs(opts.schema));
  }
  const it = readCsvBatches(path, opts);
  try {
    const r = await it.next();
    if (!r.done) return r.value.schema;
  } finally {
    await it.return(undefined);
  }
  // header only: every column is an all-NULL utf8 column
  return headerOnlySchema(path, opts);
}

async function headerOnlySchema(path: string, opts: CsvReadOptions): Promise<Schema> {
  const { delimiter, header } = validateOptions(path, opts);
  for await (const piece of pieces(path, delimiter, opts.signal)) {
    const row = piece.rows[0];
    if (row) {
      const names = header ? uniqueNames(row) : row.map((_, c) => `column_${c + 1}`);
      return new Schema(names.map((n) => new Field(n, inferType([]) as DataType, true)));
    }
  }
  return new Schema([]);
}

