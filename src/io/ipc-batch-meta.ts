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
 * the frame, and read back by its vtables into plain numbers.
 *
 * Layout reminders (see also ipc-flatbuffers.ts): a flatbuffer starts with a uint32 offset to
 * its root table; a table starts with an int32 offset back to its vtable (vtable = table -
 * value); a vtable holds uint16 sizes (vtable, table) and one uint16 offset per field, 0 when
 * absent; offset fields hold a uint32 relative to their own position; vectors start with a
 * uint32 length. Message: version (0, int16), header_type (1, uint8), header (2, table),
 * bodyLength (3, int64). RecordBatch: length (0, int64), nodes (1, [FieldNode]), buffers
 * (2, [Buffer]), compression (3, table). FieldNode and Buffer are structs of two int64.
 */

/** Arrow's MetadataVersion.V5 and MessageHeader.RecordBatch. */
const METADATA_V5 = 4;
const HEADER_RECORD_BATCH = 3;
const TWO32 = 4294967296;

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

function setInt64(view: DataView, at: number, n: number): void {
  view.setUint32(at, n % TWO32, true);
  view.setUint32(at + 4, Math.floor(n / TWO32), true);
}

/** Bytes of a record batch message's framing and metadata (batchMessageHead) for these counts. */
export function batchMessageHeadBytes(nodeCount: number, bufferCount: number): number {
  return align8(8 + 88 + 16 * nodeCount + 16 * bufferCount);
}

/** Plain memory the metadata is laid out in: a DataView over shared or resizable memory (the merge buffer) writes several times slower. */
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
  // Message vtable: 4 fields; the table holds soffset(0) header(4) bodyLength(8) version(16) header_type(18).
  v.setUint16(b + 4, 12, true);
  v.setUint16(b + 6, 20, true);
  v.setUint16(b + 8, 16, true);
  v.setUint16(b + 10, 18, true);
  v.setUint16(b + 12, 4, true);
  v.setUint16(b + 14, 8, true);
  v.setInt32(b + 16, 12, true);
  v.setUint32(b + 20, 56 - 20, true);
  setInt64(v, b + 24, bodyBytes);
  v.setInt16(b + 32, METADATA_V5, true);
  v.setUint8(b + 34, HEADER_RECORD_BATCH);
  // RecordBatch vtable: 3 fields; the table holds soffset(0) nodes(4) length(8) buffers(16).
  v.setUint16(b + 40, 10, true);
  v.setUint16(b + 42, 20, true);
  v.setUint16(b + 44, 8, true);
  v.setUint16(b + 46, 4, true);
  v.setUint16(b + 48, 16, true);
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

/** Reads a message's flatbuffer, copied to the plain `stage` (a DataView over the task's shared scratch reads several times slower): positions are from the flatbuffer's start. */
class Reader {
  private readonly view: DataView;
  private readonly size: number;
  constructor(bytes: Uint8Array, at: number, length: number) {
    stageFor(length);
    stage.set(bytes.subarray(at, at + length));
    this.view = stageView;
    this.size = length;
  }

  need(pos: number, len: number): void {
    if (pos < 0 || pos + len > this.size) throw new Error(`IPC metadata out of bounds at byte ${pos}`);
  }

  u8(pos: number): number {
    this.need(pos, 1);
    return this.view.getUint8(pos);
  }

  u32(pos: number): number {
    this.need(pos, 4);
    return this.view.getUint32(pos, true);
  }

  int64(pos: number): number {
    this.need(pos, 8);
    const hi = this.view.getInt32(pos + 4, true);
    if (hi < 0 || hi >= 1 << 21) throw new Error(`IPC metadata holds a length or offset past 2^53 at byte ${pos}`);
    return hi * TWO32 + this.view.getUint32(pos, true);
  }

  /** Position of field `id` of the table at `table`, or -1 when absent. */
  field(table: number, id: number): number {
    const vt = table - this.view.getInt32(table, true);
    this.need(vt, 4);
    const vtSize = this.view.getUint16(vt, true);
    if (4 + 2 * id + 2 > vtSize) return -1;
    this.need(vt, vtSize);
    const off = this.view.getUint16(vt + 4 + 2 * id, true);
    return off === 0 ? -1 : table + off;
  }

  /** The table or vector an offset field at `pos` points to. */
  target(pos: number): number {
    return pos + this.u32(pos);
  }

  /** A vector of 16-byte structs of two int64 at `field` (absent: none), flattened. */
  pairs(field: number): number[] {
    if (field < 0) return [];
    const vec = this.target(field);
    const n = this.u32(vec);
    this.need(vec + 4, 16 * n);
    const out = new Array<number>(2 * n);
    for (let i = 0; i < 2 * n; i++) out[i] = this.int64(vec + 4 + 8 * i);
    return out;
  }
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
  const r = new Reader(bytes, metaAt, metaLength);
  const message = r.u32(0);
  r.need(message, 4);
  const typeField = r.field(message, 1);
  if (typeField < 0 || r.u8(typeField) !== HEADER_RECORD_BATCH) throw new Error(`IPC message at byte ${at} is not a record batch`);
  const headerField = r.field(message, 2);
  const bodyField = r.field(message, 3);
  if (headerField < 0) throw new Error(`IPC message at byte ${at} has no header`);
  const batch = r.target(headerField);
  r.need(batch, 4);
  if (r.field(batch, 3) >= 0) throw new Error(`IPC message at byte ${at} is compressed`);
  const lengthField = r.field(batch, 0);
  const bodyBytes = bodyField < 0 ? 0 : r.int64(bodyField);
  const bodyStart = metaAt + metaLength;
  if (bodyStart + bodyBytes > bytes.byteLength) throw new Error(`IPC message body out of bounds at byte ${at}`);
  return {
    length: lengthField < 0 ? 0 : r.int64(lengthField),
    nodes: r.pairs(r.field(batch, 1)),
    buffers: r.pairs(r.field(batch, 2)),
    bodyBytes,
    bodyStart,
    next: bodyStart + bodyBytes,
  };
}
