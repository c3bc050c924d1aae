/**
 * The options of writeIpc / writeParquet, checked before the run starts (PlanError BAD_OPTION
 * naming the option, what was expected and what was given).
 */
import { PlanError, show } from '../errors.js';
import { IPC_COMPRESSIONS, type IpcCompression } from '../io/ipc-codecs.js';
import { PARQUET_COMPRESSIONS, type ParquetCompression } from '../io/parquet.js';
import type { IpcWriteOptions, ParquetWriteOptions } from './dataframe.js';

function bad(method: string, name: string, expected: string, got: unknown): PlanError {
  return new PlanError('BAD_OPTION', `${method}: expected \`${name}\` to be ${expected}, got \`${show(got)}\` (${typeof got})`, { option: name });
}

function oneOf<T extends string>(method: string, name: string, values: readonly T[], v: unknown, fallback: T): T {
  if (v === undefined) return fallback;
  if (typeof v !== 'string' || !values.includes(v as T)) throw bad(method, name, `one of ${values.map((x) => `'${x}'`).join(', ')}`, v);
  return v as T;
}

export function checkIpcWriteOptions(o: IpcWriteOptions): { format: 'file' | 'stream'; compression: IpcCompression } {
  return {
    format: oneOf('writeIpc', 'format', ['file', 'stream'] as const, o.format, 'file'),
    compression: oneOf('writeIpc', 'compression', IPC_COMPRESSIONS, o.compression, 'none'),
  };
}

export function checkParquetWriteOptions(o: ParquetWriteOptions): { compression: ParquetCompression; rowGroupRows?: number; partitionBy: string[] } {
  const compression = oneOf('writeParquet', 'compression', PARQUET_COMPRESSIONS, o.compression, 'zstd');
  const rg = o.rowGroupSize;
  if (rg !== undefined && (typeof rg !== 'number' || !Number.isSafeInteger(rg) || rg < 1)) throw bad('writeParquet', 'rowGroupSize', 'an integer from 1 and up (rows)', rg);
  const pb = o.partitionBy;
  const partitionBy = pb === undefined ? [] : typeof pb === 'string' ? [pb] : pb;
  if (!Array.isArray(partitionBy) || partitionBy.some((c) => typeof c !== 'string' || c === '') || new Set(partitionBy).size !== partitionBy.length) {
    throw bad('writeParquet', 'partitionBy', 'a column name or a list of distinct column names', pb);
  }
  return { compression, ...(rg !== undefined ? { rowGroupRows: rg } : {}), partitionBy };
}
