/**
 * Options of the actions (API.md "DataFrame"): `{ signal }` for collect/execute/stream, and one
 * schema per writer so that each can grow its own options (format, compression, ...).
 */
import { PARQUET_COMPRESSIONS } from '../io/parquet.js';
import type { IpcCompression } from '../io/ipc-codecs.js';
import { actionShape } from './args.js';
import { anyOf, int, list, name, oneOf, options } from './kit.js';

export { actionOptions } from './args.js';

export const IPC_COMPRESSIONS = ['none', 'lz4', 'zstd'] as const satisfies readonly IpcCompression[];
export { PARQUET_COMPRESSIONS };
/** Hive partition columns of a Parquet output (job files' output.partitionBy too). */
export const partitionColumns = () => anyOf('a column name or a non-empty list of column names', [name(), list(name(), 'a non-empty list of column names')]);

export const writeIpcOptions = options({
  ...actionShape,
  format: oneOf(['file', 'stream']).optional(),
  compression: oneOf(IPC_COMPRESSIONS).optional(),
});
export const writeParquetOptions = options({
  ...actionShape,
  compression: oneOf(PARQUET_COMPRESSIONS).optional(),
  rowGroupSize: int(1).optional(),
  partitionBy: partitionColumns().optional(),
});
export const writeCsvOptions = options({ ...actionShape });
