/**
 * One record batch of flat columns framed as an Arrow IPC stream message, without building an
 * apache-arrow RecordBatch or running its VectorAssembler.
 *
 * The exchange writes a spill batch per destination and spill (thousands a run): through
 * apache-arrow's writer each made a RecordBatch (schema merges, length checks), assembled its
 * buffers and re-packed any bitmap at a bit offset bit by bit into a JS array (`packBools`):
 * about a third of the main thread's allocations in a 10M-row window at 64 MiB (heap sampling:
 * RecordBatch 90 MB, packBools 122 MB, encoding 50 MB). Here the message is apache-arrow's own
 * flatbuffer encoding (Message.encode) of nodes and buffer regions worked out from the columns,
 * framed as its writer frames it: continuation marker, metadata length, metadata padded to 8
 * bytes, then every body buffer padded to 8 bytes. Readers (tableFromIPC, the spill readers)
 * see a stream message like any other.
 */
import type * as A from 'apache-arrow';
import { BufferRegion, FieldNode, Message, RecordBatch as RecordBatchHeader } from 'apache-arrow/ipc/metadata/message';
import { flatLayoutOf } from '../columns/shared.js';

/** A message ready to write: its chunks in order, their total bytes and the batch's rows (as a RecordBatch names them). */
export interface EncodedBatch {
  numRows: number;
  chunks: Uint8Array[];
  bytes: number;
}

const PADDING = new Uint8Array(8);
const EMPTY = new Uint8Array(0);

/** `n` rounded up to a multiple of 8 (Arrow IPC pads every buffer and message to 8 bytes). */
export const align8 = (n: number): number => (n + 7) & ~7;

function bytesOf(view: ArrayBufferView, bytes: number): Uint8Array {
  return new Uint8Array(view.buffer, view.byteOffset, bytes);
}

/**
 * The message of a batch of `length` rows whose columns are flat (fixed-width, bool, binary or
 * utf8) and start at row 0 of their buffers with value offsets from 0 (fresh concatenations);
 * null when one is not (nested, dictionary, null, sliced): the caller writes it the usual way.
 */
export function encodeFlatBatch(columns: A.Data[], length: number): EncodedBatch | null {
  const nodes: FieldNode[] = [];
  const regions: BufferRegion[] = [];
  const body: Uint8Array[] = [];
  let bodyBytes = 0;
  const add = (bytes: Uint8Array): void => {
    const padded = align8(bytes.byteLength);
    regions.push(new BufferRegion(bodyBytes, padded));
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
    nodes.push(new FieldNode(length, nullCount));
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
  const head = messageHead(length, nodes, regions, bodyBytes);
  return { numRows: length, chunks: [head, ...body], bytes: head.byteLength + bodyBytes };
}

/**
 * The framing and metadata of a record batch message (continuation marker, metadata length,
 * the flatbuffer padded to 8 bytes), to be followed by `bodyBytes` of body buffers laid out as
 * `regions` say (each padded to 8 bytes).
 */
export function messageHead(length: number, nodes: FieldNode[], regions: BufferRegion[], bodyBytes: number): Uint8Array {
  const metadata = Message.encode(Message.from(new RecordBatchHeader(length, nodes, regions, null), bodyBytes));
  const framed = align8(metadata.byteLength + 8);
  const head = new Uint8Array(framed);
  new Int32Array(head.buffer, 0, 2).set([-1, framed - 8]);
  head.set(metadata, 8);
  return head;
}

export { BufferRegion, FieldNode };
