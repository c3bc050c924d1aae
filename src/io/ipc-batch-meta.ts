/**
 * The metadata of an Arrow IPC record batch message, written and read by hand: the spill
 * files' hot path.
 *
 * Through apache-arrow, writing a message's metadata made a FieldNode and a BufferRegion object
 * per node and buffer and two BigInts each (flatbuffers' int64 fields), and reading a spilled
 * batch back ran its whole RecordBatchReader (schema clones and metadata Maps per batch, a
 * RecordBatch, a VectorLoader): in a 10M x 10M ASOF join at 64 MiB, ~100K spill messages made
 * about half the coordinator's garbage and nearly all the workers' (heap sampling: 430 MB a
 * worker in 6 s, scavenges 12% of worker time). Here the flatbuffer is laid out directly into
 * the frame, and read back by its vtables into plain numbers (through ipc-flatbuffers.ts's
 * bounds-checked FlatbufferView).
 *
 * Layout reminders (see also ipc-flatbuffers.ts): a flatbuffer starts with a uint32 offset to
 * its root table; a table starts with an int32 offset back to its vtable (vtable = table -
 * value); a vtable holds uint16 sizes (vtable, table) and one uint16 offset per field, 0 when
 * absent; offset fields hold a uint32 relative to their own position; vectors start with a
 * uint32 length. Message: version (0, int16), header_type (1, uint8), header (2, table),
 * bodyLength (3, int64). RecordBatch: length (0, int64), nodes (1, [FieldNode]), buffers
 * (2, [Buffer]), compression (3, table). FieldNode and Buffer are structs of two int64.
 */

import { TWO32 } from '../ops/int64-words.js';
import { FlatbufferView } from './ipc-flatbuffers.js';

/** Arrow's MetadataVersion.V5 and MessageHeader.RecordBatch. */
const METADATA_V5 = 4;
const HEADER_RECORD_BATCH = 3;

/** `n` rounded up to a multiple of 8 (Arrow IPC pads every buffer and message to 8 bytes). */
export const align8 = (n: number): number => (n + 7) & ~7;

/**
 * A record batch's layout: `nodes` holds (length, null count) per field node and `buffers`
 * (offset in the body, length) per buffer, flattened in pairs.
 */
export interface BatchMeta {
  length: number;
  nodes: number[];
  buffers: number[];
  bodyBytes: number;
}

/** A vtable at `at`: its size, its table's inline size, then each field's offset in the table. */
function setVtable(view: DataView, at: number, tableSize: number, fields: readonly number[]): void {
  view.setUint16(at, 4 + 2 * fields.length, true);
  view.setUint16(at + 2, tableSize, true);
  for (let i = 0; i < fields.length; i++) view.setUint16(at + 4 + 2 * i, fields[i]!, true);
}

/** Field offsets (version, header_type, header, bodyLength) of the Message table, and (length, nodes, buffers) of the RecordBatch table. */
const MESSAGE_FIELDS = [16, 18, 4, 8] as const;
const BATCH_FIELDS = [8, 4, 16] as const;

function setInt64(view: DataView, at: number, n: number): void {
  view.setUint32(at, n % TWO32, true);
  view.setUint32(at + 4, Math.floor(n / TWO32), true);
}

/** Bytes of a record batch message's framing and metadata (batchMessageHead) for these counts. */
export function batchMessageHeadBytes(nodeCount: number, bufferCount: number): number {
  return align8(8 + 88 + 16 * nodeCount + 16 * bufferCount);
}

/** Plain memory the metadata is laid out in and read from: a DataView over shared or resizable memory (the merge buffer, a task's scratch) is several times slower. */
let stage = new Uint8Array(4096);
let stageView = new DataView(stage.buffer);

/** Views of the stage's first n bytes, by n: a run's heads have a few sizes (one per column count). */
let heads = new Map<number, Uint8Array>();

function stageFor(bytes: number): void {
  if (bytes <= stage.byteLength) return;
  stage = new Uint8Array(2 ** Math.ceil(Math.log2(bytes)));
  stageView = new DataView(stage.buffer);
  heads = new Map();
}

function stageHead(n: number): Uint8Array {
  let v = heads.get(n);
  if (!v) heads.set(n, (v = stage.subarray(0, n)));
  return v;
}

/**
 * The framing and metadata of a record batch message (continuation marker, metadata length,
 * the flatbuffer padded to 8 bytes), to be followed by `bodyBytes` of body buffers as `buffers` say.
 */
export function batchMessageHead(length: number, nodes: readonly number[], buffers: readonly number[], bodyBytes: number): Uint8Array {
  const head = new Uint8Array(batchMessageHeadBytes(nodes.length >> 1, buffers.length >> 1));
  writeBatchMessageHead(head, 0, length, nodes, buffers, bodyBytes);
  return head;
}

/**
 * batchMessageHead written into `out` at `at` (batchMessageHeadBytes of room); returns its bytes.
 *
 * Fixed layout, offsets from the flatbuffer's start (after the 8 framing bytes):
 *   0 root offset -> 16 | 4 Message vtable (12 bytes) | 16 Message table (20) | 40 RecordBatch
 *   vtable (10) | 56 RecordBatch table (20) | 76 nodes vector (8-aligned elements at 80) |
 *   84 + 16N buffers vector (elements at 88 + 16N).
 */
export function writeBatchMessageHead(out: Uint8Array, at: number, length: number, nodes: readonly number[], buffers: readonly number[], bodyBytes: number): number {
  const nodeCount = nodes.length >> 1;
  const bufferCount = buffers.length >> 1;
  const nodesAt = 76;
  const buffersAt = 84 + 16 * nodeCount;
  const framed = batchMessageHeadBytes(nodeCount, bufferCount);
  stageFor(framed);
  stage.fill(0, 0, framed);
  const v = stageView;
  v.setInt32(0, -1, true);
  v.setInt32(4, framed - 8, true);
  const b = 8; // the flatbuffer's start
  v.setUint32(b, 16, true);
  // Message vtable: the table holds soffset(0) header(4) bodyLength(8) version(16) header_type(18).
  setVtable(v, b + 4, 20, MESSAGE_FIELDS);
  v.setInt32(b + 16, 12, true);
  v.setUint32(b + 20, 56 - 20, true);
  setInt64(v, b + 24, bodyBytes);
  v.setInt16(b + 32, METADATA_V5, true);
  v.setUint8(b + 34, HEADER_RECORD_BATCH);
  // RecordBatch vtable: the table holds soffset(0) nodes(4) length(8) buffers(16).
  setVtable(v, b + 40, 20, BATCH_FIELDS);
  v.setInt32(b + 56, 16, true);
  v.setUint32(b + 60, nodesAt - 60, true);
  setInt64(v, b + 64, length);
  v.setUint32(b + 72, buffersAt - 72, true);
  v.setUint32(b + nodesAt, nodeCount, true);
  for (let i = 0; i < nodes.length; i++) setInt64(v, b + nodesAt + 4 + 8 * i, nodes[i]!);
  v.setUint32(b + buffersAt, bufferCount, true);
  for (let i = 0; i < buffers.length; i++) setInt64(v, b + buffersAt + 4 + 8 * i, buffers[i]!);
  // One copy: element writes into a buffer that is shared or resizable take a slow path each.
  out.set(stageHead(framed), at);
  return framed;
}

/** A record batch message found in a stream: its layout and where its body lies. */
export interface BatchMessage extends BatchMeta {
  /** Byte position of the body in the stream's bytes. */
  bodyStart: number;
  /** Byte position of the next message. */
  next: number;
}

/**
 * The record batch message at byte `at` of a stream's `bytes` (continuation-framed or the legacy
 * framing without the marker), or null at the end-of-stream marker or the end of the bytes.
 * Throws on anything else: a message other than a record batch, a compressed one, bounds that
 * leave the bytes.
 */
export function readBatchMessage(bytes: Uint8Array, at: number): BatchMessage | null {
  const u32 = (p: number): number => (bytes[p]! | (bytes[p + 1]! << 8) | (bytes[p + 2]! << 16) | (bytes[p + 3]! << 24)) >>> 0;
  if (at + 4 > bytes.byteLength) return null;
  let metaAt = at + 4;
  let metaLength = u32(at);
  if (metaLength === 0xffffffff) {
    if (at + 8 > bytes.byteLength) return null;
    metaLength = u32(at + 4);
    metaAt = at + 8;
  }
  if (metaLength === 0) return null;
  if (metaAt + metaLength > bytes.byteLength) throw new Error(`IPC metadata out of bounds at byte ${at}`);
  // Read from a plain copy: a DataView over the task's shared scratch reads several times slower.
  stageFor(metaLength);
  stage.set(bytes.subarray(metaAt, metaAt + metaLength));
  const r = new FlatbufferView(stageView, metaLength);
  const message = r.root();
  if (r.uint8Field(message, 1) !== HEADER_RECORD_BATCH) throw new Error(`IPC message at byte ${at} is not a record batch`);
  const headerField = r.field(message, 2);
  const bodyField = r.field(message, 3);
  if (headerField === 0) throw new Error(`IPC message at byte ${at} has no header`);
  const batch = r.deref(headerField);
  if (r.field(batch, 3) !== 0) throw new Error(`IPC message at byte ${at} is compressed`);
  const lengthField = r.field(batch, 0);
  const bodyBytes = bodyField === 0 ? 0 : r.int64(bodyField);
  const bodyStart = metaAt + metaLength;
  if (bodyStart + bodyBytes > bytes.byteLength) throw new Error(`IPC message body out of bounds at byte ${at}`);
  return {
    length: lengthField === 0 ? 0 : r.int64(lengthField),
    nodes: r.int64Pairs(r.field(batch, 1)),
    buffers: r.int64Pairs(r.field(batch, 2)),
    bodyBytes,
    bodyStart,
    next: bodyStart + bodyBytes,
  };
}
