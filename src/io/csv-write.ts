/**
 * CSV output, one batch at a time, atomically (temp file + rename).
 *
 * Each batch is turned into text by the shared value-to-text layer (src/io/text: exact values,
 * the same text the CLI prints) and written before the next batch is pulled, so memory stays
 * bounded by one batch. A header line of the column names comes first (unless
 * `header: false`); fields are separated by `delimiter` (default ','), records by '\n'; NULL is
 * an empty field and an empty string `""` (quoting rules: src/io/text/delimited.ts).
 */
import type { RecordBatch, Schema } from 'apache-arrow';
import { writeAtomic } from './atomic.js';
import { throwIfAborted } from './input-errors.js';
import { delimitedChunks, delimitedHeader } from './text/delimited.js';

const FORMAT = 'CSV' as const;

export interface CsvWriteOptions {
  /** schema for the header when there may be no batches; default: the first batch's */
  schema?: Schema;
  header?: boolean;
  delimiter?: string;
  signal?: AbortSignal;
}

/** Write `batches` as CSV to `path`, atomically. */
export async function writeCsvAtomic(
  path: string,
  batches: AsyncIterable<RecordBatch> | Iterable<RecordBatch>,
  opts: CsvWriteOptions = {},
): Promise<{ rows: number; bytes: number }> {
  const delimiter = opts.delimiter ?? ',';
  return writeAtomic(
    path,
    FORMAT,
    async (target) => {
      let rows = 0;
      let wroteHeader = opts.header === false;
      const writeHeader = async (schema: Schema): Promise<void> => {
        if (wroteHeader) return;
        wroteHeader = true;
        await target.write(delimitedHeader(schema, delimiter));
      };
      if (opts.schema) await writeHeader(opts.schema);
      for await (const batch of batches) {
        throwIfAborted(opts.signal, path);
        await writeHeader(batch.schema);
        rows += batch.numRows;
        for (const chunk of delimitedChunks(batch, delimiter)) await target.write(chunk);
      }
      return { rows, bytes: target.bytes };
    },
    { signal: opts.signal },
  );
}
