/** The readers of each file format, as fileSource (sources.ts) takes them. */
import { readCsvBatches, readCsvSchema, type CsvReadOptions } from '../io/csv.js';
import { readIpcBatches, readIpcRows, readIpcSchema } from '../io/ipc.js';
import { readNdjsonBatches, readNdjsonSchema, type NdjsonReadOptions } from '../io/ndjson.js';
import { readParquetBatches, readParquetRows, readParquetSchema } from '../io/parquet.js';
import type { FileReaders } from './sources.js';

export const IPC_READERS: FileReaders = {
  schema: (path) => readIpcSchema(path),
  rows: (path) => readIpcRows(path),
  batches: (path, { signal, schemaBatch, slicing }) => readIpcBatches(path, { signal, schemaBatch, slicing }),
};

export const PARQUET_READERS: FileReaders = {
  schema: (path) => readParquetSchema(path),
  rows: (path) => readParquetRows(path),
  batches: (path, { signal, schemaBatch }) => readParquetBatches(path, { signal, schemaBatch }),
};

/** CSV: a later file of a dataset is read with the first file's schema (by its header names). */
export function csvReaders(options: CsvReadOptions): FileReaders {
  return {
    schema: (path) => readCsvSchema(path, options),
    rows: async () => null,
    batches: (path, { signal, schemaBatch, schema, schemaFrom }) =>
      readCsvBatches(path, { ...options, ...(schema ? { schema } : {}), ...(schemaFrom !== undefined ? { schemaFrom } : {}), signal, schemaBatch }),
  };
}

/** NDJSON: a later file of a dataset is read with the first file's schema. */
export function ndjsonReaders(options: NdjsonReadOptions): FileReaders {
  return {
    schema: (path) => readNdjsonSchema(path, options),
    rows: async () => null,
    batches: (path, { signal, schemaBatch, schema }) => readNdjsonBatches(path, { ...options, ...(schema ? { schema: schema.fields } : {}), signal, schemaBatch }),
  };
}
