/**
 * One record batch of flat columns framed as an Arrow IPC stream message, without building an
 * apache-arrow RecordBatch or running its VectorAssembler.
 *
 * The exchange writes a spill batch per destination and spill (thousands a run): through
 * apache-arrow's writer each made a RecordBatch (schema merges, length checks), assembled its
 * buffers and re-packed any bitmap at a bit offset bit by bit into a JS array (`packBools`):
 * about a third of the main thread's allocations in a 10M-row window at 64 MiB (heap sampling:
 * RecordBatch 90 MB, packBools 122 MB, encoding 50 MB). Here the message is the metadata of
 * ipc-batch-meta.ts for nodes and buffer regions worked out from the columns, framed as
 * apache-arrow's writer frames it: continuation marker, metadata length, metadata padded to 8
 * bytes, then every body buffer padded to 8 bytes. Readers (tableFromIPC, the spill readers)
 * see a stream message like any other.
 */
import type * as A from 'apache-arrow';
import { flatLayoutOf } from '../columns/shared.js';
import { align8, batchMessageHead } from './ipc-batch-meta.js';

/** A message ready to write: its chunks in order, their total bytes and the batch's rows (as a RecordBatch names them). */
export interface EncodedBatch {
  numRows: number;
  chunks: Uint8Array[];
  bytes: number;
}

const PADDING = new Uint8Array(8);
const EMPTY = new Uint8Array(0);

function bytesOf(view: ArrayBufferView, bytes: number): Uint8Array {
  return new Uint8Array(view.buffer, view.byteOffset, bytes);
}

/**
 * The message of a batch of `length` rows whose columns are flat (fixed-width, bool, binary or
 * utf8) and start at row 0 of their buffers with value offsets from 0 (fresh concatenations);
 * null when one is not (nested, dictionary, null, sliced): the caller writes it the usual way.
 */
export function encodeFlatBatch(columns: A.Data[], length: number): EncodedBatch | null {
  const nodes: number[] = [];
  const regions: number[] = [];
  const body: Uint8Array[] = [];
  let bodyBytes = 0;
  const add = (bytes: Uint8Array): void => {
    const padded = align8(bytes.byteLength);
    regions.push(bodyBytes, padded);
    bodyBytes += padded;
    if (bytes.byteLength > 0) body.push(bytes);
    if (padded > bytes.byteLength) body.push(PADDING.subarray(0, padded - bytes.byteLength));
  };
  for (const data of columns) {
    const f = flatLayoutOf(data.type);
    if (!f || data.offset !== 0 || data.length !== length) return null;
    const bitBytes = (length + 7) >> 3;
    const nullCount = data.nullCount > 0 ? data.nullCount : 0;
    if (nullCount > 0 && (!data.nullBitmap || data.nullBitmap.byteLength < bitBytes)) return null;
    nodes.push(length, nullCount);
    add(nullCount > 0 ? data.nullBitmap!.subarray(0, bitBytes) : EMPTY);
    if (f.layout === 'fixed') add(bytesOf(data.values, length * f.rowBytes));
    else if (f.layout === 'bool') add(bytesOf(data.values, bitBytes));
    else {
      const offsets = data.valueOffsets as Int32Array | BigInt64Array;
      if (Number(offsets[0]) !== 0) return null;
      add(bytesOf(offsets, (length + 1) * f.offsetBytes));
      add(bytesOf(data.values, Number(offsets[length])));
    }
  }
  const head = batchMessageHead(length, nodes, regions, bodyBytes);
  return { numRows: length, chunks: [head, ...body], bytes: head.byteLength + bodyBytes };
}
