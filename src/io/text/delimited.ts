/**
 * Delimited text (CSV, TSV) of record batches, through the cell texts of cells.ts (exact
 * values). NULL is an empty field and an empty string `""`; a field is quoted (quotes doubled)
 * when it contains the delimiter, a quote, \n or \r. Records end with '\n'.
 */
import type { RecordBatch, Schema } from 'apache-arrow';
import { cellText } from './cells.js';

/** Rows rendered per chunk of text handed on, so a huge batch is not one huge string. */
export const ROWS_PER_CHUNK = 8192;

/** CSV field quoting: NULL empty, '' quoted, quotes doubled. */
export function csvQuoter(delimiter: string): (s: string | null) => string {
  return (s) => {
    if (s === null) return '';
    if (s === '') return '""';
    if (s.includes('"')) return `"${s.replaceAll('"', '""')}"`;
    if (s.includes(delimiter) || s.includes('\n') || s.includes('\r')) return `"${s}"`;
    return s;
  };
}

/** The header record: the column names. */
export function delimitedHeader(schema: Schema, delimiter = ','): string {
  const q = csvQuoter(delimiter);
  return `${schema.fields.map((f) => q(f.name)).join(delimiter)}\n`;
}

/** The records of `batch`, in chunks of at most ROWS_PER_CHUNK rows. */
export function* delimitedChunks(batch: RecordBatch, delimiter = ','): Generator<string> {
  const q = csvQuoter(delimiter);
  const cols = batch.data.children.map((d) => cellText(d, { syntax: 'field', floats: 'exact' }));
  const n = batch.numRows;
  for (let start = 0; start < n; start += ROWS_PER_CHUNK) {
    const end = Math.min(n, start + ROWS_PER_CHUNK);
    let out = '';
    for (let i = start; i < end; i++) {
      let line = cols.length > 0 ? q(cols[0]!(i)) : '';
      for (let c = 1; c < cols.length; c++) line += delimiter + q(cols[c]!(i));
      out += `${line}\n`;
    }
    yield out;
  }
}

/** The records of `batch` as one string. */
export function delimitedText(batch: RecordBatch, delimiter = ','): string {
  let out = '';
  for (const chunk of delimitedChunks(batch, delimiter)) out += chunk;
  return out;
}
