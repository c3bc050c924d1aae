/**
 * Rows as JSON objects (keys in column order, values as cells.ts's `json` syntax), for JSON
 * arrays and NDJSON.
 */
import type { RecordBatch } from 'apache-arrow';
import { cellText } from './cells.js';
import { ROWS_PER_CHUNK } from './delimited.js';

/** The JSON object text of row `i` of `batch`. */
export function jsonRow(batch: RecordBatch): (i: number) => string {
  const cells = batch.data.children.map((d) => cellText(d, { syntax: 'json', floats: 'exact' }) as (i: number) => string);
  const keys = batch.schema.fields.map((f, c) => `${c > 0 ? ',' : ''}${JSON.stringify(f.name)}:`);
  return (i) => {
    let s = '{';
    for (let c = 0; c < cells.length; c++) s += keys[c] + cells[c]!(i);
    return `${s}}`;
  };
}

/**
 * The rows of `batch` in chunks of at most ROWS_PER_CHUNK rows; `frame(object, i)` wraps each
 * object (`i` = row number within the batch), e.g. with a newline for NDJSON.
 */
export function* jsonChunks(batch: RecordBatch, frame: (object: string, i: number) => string): Generator<string> {
  const row = jsonRow(batch);
  const n = batch.numRows;
  for (let start = 0; start < n; start += ROWS_PER_CHUNK) {
    const end = Math.min(n, start + ROWS_PER_CHUNK);
    let out = '';
    for (let i = start; i < end; i++) out += frame(row(i), i);
    yield out;
  }
}
