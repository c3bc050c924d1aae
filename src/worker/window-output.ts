/**
 * Window kernel outputs (src/ops/window: typed arrays in sorted order, one validity byte per
 * row) as arrow Data in sorted order, in the task's scratch, ready to be routed by row id.
 */
import * as A from 'apache-arrow';
import { typeToArrow } from '../columns/arrow-types.js';
import { bytesToBitmap } from '../columns/bits.js';
import type { WindowColumnOut } from '../ops/window.js';
import { scratchAlloc } from './scratch.js';

export function windowOutputData(out: WindowColumnOut, n: number): A.Data {
  const type = typeToArrow(out.type);
  let nullCount = 0;
  let nullBitmap: Uint8Array | undefined;
  if (out.valid) {
    const { bitmap, set } = bytesToBitmap(out.valid, n, scratchAlloc(Uint8Array, (n + 7) >> 3));
    nullCount = n - set;
    if (nullCount > 0) nullBitmap = bitmap;
  }
  if (out.type.kind === 'bool') {
    const { bitmap } = bytesToBitmap(out.values as Uint8Array, n, scratchAlloc(Uint8Array, (n + 7) >> 3));
    return A.makeData({ type: type as A.Bool, length: n, nullCount, nullBitmap, data: bitmap });
  }
  return A.makeData({ type: type as A.Int, length: n, nullCount, nullBitmap, data: out.values.subarray(0, n) as Int32Array });
}
