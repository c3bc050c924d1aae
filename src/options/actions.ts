/**
 * Options of the actions (API.md "DataFrame"): `{ signal }` for collect/execute/stream, and one
 * schema per writer so that each can grow its own options (format, compression, ...).
 */
import { actionShape } from './args.js';
import { options } from './kit.js';

export { actionOptions } from './args.js';

export const writeIpcOptions = options({ ...actionShape });
export const writeParquetOptions = options({ ...actionShape });
export const writeCsvOptions = options({ ...actionShape });
