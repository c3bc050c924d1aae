/**
 * Key columns of the relational verbs as typed arrays (src/types/keys KeyColumn): toKeyColumn,
 * plus large strings/binaries (64-bit offsets) narrowed to 32-bit offsets in the task's scratch,
 * since hashing, grouping and sort encoding read Int32 offsets. A column of more than 2 GiB of
 * bytes cannot be a key in one task (ExecutionError KEY_TOO_LARGE).
 */
import * as A from 'apache-arrow';
import { largeOffsetsToNumbers } from '../columns/gather.js';
import { toKeyColumn } from '../columns/shared.js';
import { bitmapToBytes } from '../columns/bits.js';
import { typeFromArrow } from '../columns/arrow-types.js';
import { ExecutionError } from '../errors.js';
import type { KeyColumn } from '../types/keys.js';
import { scratchAlloc } from './scratch.js';

export function keyColumnOf(data: A.Data): KeyColumn {
  if (data.typeId !== A.Type.LargeUtf8 && data.typeId !== A.Type.LargeBinary) return toKeyColumn(data);
  const n = data.length;
  const wide = largeOffsetsToNumbers(data.valueOffsets as unknown as BigInt64Array, n + 1);
  if (n > 0 && wide[n]! > 0x7fffffff) {
    throw new ExecutionError('KEY_TOO_LARGE', `a key column holds ${wide[n]} bytes of strings in one partition; at most 2 GiB fit (raise partitions)`, {});
  }
  const offsets = scratchAlloc(Int32Array, n + 1);
  for (let i = 0; i <= n; i++) offsets[i] = wide[i]!;
  const valid = data.nullCount > 0 ? bitmapToBytes(data.nullBitmap, data.offset, n) : null;
  return { type: typeFromArrow(data.type), length: n, values: data.values as Uint8Array, offsets, valid };
}
