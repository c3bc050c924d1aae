/**
 * Options of the actions (API.md "DataFrame"): `{ signal }` for collect/execute/stream, and one
 * schema per writer so that each can grow its own options (format, compression, ...).
 */
import { actionShape } from './args.js';
import { anyOf, int, list, name, oneOf, options } from './kit.js';

export { actionOptions } from './args.js';

export const writeIpcOptions = options({
  ...actionShape,
  format: oneOf(['file', 'stream']).optional(),
  compression: oneOf(['none', 'lz4', 'zstd']).optional(),
});
export const writeParquetOptions = options({
  ...actionShape,
  compression: oneOf(['none', 'snappy', 'gzip', 'brotli', 'lz4', 'zstd']).optional(),
  rowGroupSize: int(1).optional(),
  partitionBy: anyOf('a column name or a non-empty list of column names', [name(), list(name(), 'a non-empty list of column names')]).optional(),
});
export const writeCsvOptions = options({ ...actionShape });
