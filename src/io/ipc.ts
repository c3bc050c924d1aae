/**
 * Arrow IPC input and output.
 *
 * Reading opens the file with a FileHandle (or takes standard input for `-`, which must be the
 * stream format) and lets apache-arrow pick the format from the magic bytes: the *file* format
 * is read by random access (footer, then one record batch block at a time), the *stream*
 * format sequentially; neither reads the whole file, so memory is bounded by one batch. With
 * a `BatchSlicing` limit, a file batch above it is read in row slices (ipc-slices.ts) when it
 * is uncompressed with flat columns, and otherwise decoded whole and handed on in slices.
 * LZ4_FRAME and ZSTD compressed buffers are decoded by the codecs of ipc-codecs.ts.
 *
 * Nothing apache-arrow decodes is trusted as is:
 *   - file format: before the first batch, the footer is checked against the file itself. The
 *     messages are walked from the start to the footer (one small read per message, bodies
 *     skipped): every message must fit before the footer, its buffers inside its body, its
 *     field nodes match the footer's schema; a leading schema message must equal that schema;
 *     the footer's blocks must be exactly the record batch and dictionary messages found.
 *     A flipped footer byte is then an error, never a table with 0 rows or 0 columns.
 *   - every batch (both formats) is checked structurally (arrow-validate.ts).
 * Every failure is an InputError naming the path: INPUT_MALFORMED for bad bytes (apache-arrow's
 * raw TypeErrors included), INPUT_NOT_FOUND / INPUT_UNREADABLE with the OS error.
 *
 * Empty batches are skipped; `schemaBatch` makes an input without rows yield one empty batch,
 * so its schema travels with the batches (one-shot inputs such as standard input need that).
 *
 * Writing goes through the atomic helper (temp file + rename) and IpcAppender (one batch at a
 * time, written out before the next one is pulled), uncompressed or with LZ4_FRAME / ZSTD.
 */
import { Message, RecordBatchReader, type MessageHeader, util, type DataType, type RecordBatch, type Schema } from 'apache-arrow';
import { open, type FileHandle } from 'node:fs/promises';
import { batchBytes } from '../columns/shared.js';
import { batchProblem } from './arrow-validate.js';
import { writeAtomic } from './atomic.js';
import { SluiceError } from '../errors.js';
import { malformed, readError, throwIfAborted } from './input-errors.js';
import { verifyFooter, verifyMessage } from './ipc-flatbuffers.js';
import { prepareIpcCompression, type IpcCompression } from './ipc-codecs.js';
import { readSlice, sliceLayouts, sliceRowsFor, type BatchBlock } from './ipc-slices.js';
import { emptyBatch, IpcAppender, type IpcFormat } from './ipc-sink.js';

const FORMAT = 'Arrow IPC' as const;
const MAGIC = 'ARROW1';
/** footer length (int32) + trailing magic */
const TAIL = 10;

interface Block {
  offset: number;
  metaDataLength: number;
  bodyLength: number;
}

interface OpenIpc {
  reader: RecordBatchReader;
  /** File format: the rows of its record batches (from their message headers); stream: null. */
  rows: number | null;
  /** File format: its record batches in file order (the footer's order); stream: null. */
  blocks: BatchBlock[] | null;
  /** File format: the open file (for slices); stream: null. */
  handle: FileHandle | null;
  close(): Promise<void>;
}

/**
 * How big the batches handed on may be. A batch bigger than `maxBytes` is read in row slices
 * of at most about that size (ipc-slices.ts) when it is uncompressed and every column has a
 * flat type; otherwise (compressed, lists, dictionaries...) it is decoded whole and handed on
 * in slices of that size: `whole` is told its decoded bytes before its first slice and 0 once
 * the consumer asks for the batch after its last (the whole batch is held until then).
 */
export interface BatchSlicing {
  maxBytes: number;
  whole(bytes: number): void;
}

async function readAt(h: FileHandle, pos: number, len: number, path: string): Promise<Buffer> {
  const buf = Buffer.alloc(len);
  const { bytesRead } = await h.read(buf, 0, len, pos);
  if (bytesRead < len) throw malformed(path, FORMAT, `truncated: ${len} bytes expected at byte ${pos}, ${bytesRead} found`);
  return buf;
}

/** Field nodes a record batch carries for `type` (dictionary values travel in their own batches). */
function nodeCount(type: DataType): number {
  if (type.typeId === -1 /* Dictionary */) return 1;
  return 1 + (type.children ?? []).reduce((s: number, f: { type: DataType }) => s + nodeCount(f.type), 0);
}

type BatchHeader = ReturnType<Message<MessageHeader.RecordBatch>['header']>;

/**
 * What is wrong with a record batch or dictionary batch message (null: nothing): buffers
 * outside the body, impossible null counts, and for record batches field nodes that do not
 * match `schema` (their count, and top-level lengths equal to the batch length).
 */
function batchHeaderProblem(header: BatchHeader, body: number, schema: Schema | null): string | null {
  for (const b of header.buffers) {
    if (b.offset < 0 || b.length < 0 || b.offset + b.length > body) return 'a buffer lies outside the message body';
  }
  for (const n of header.nodes) {
    if (n.length < 0 || n.nullCount < 0 || n.nullCount > n.length) return `a field node has ${n.nullCount} nulls in ${n.length} rows`;
  }
  if (schema === null) return null;
  const want = schema.fields.reduce((s, f) => s + nodeCount(f.type), 0);
  if (header.nodes.length !== want) return `${header.nodes.length} field nodes, the schema (${schema.fields.length} columns) needs ${want}`;
  let at = 0;
  for (const f of schema.fields) {
    if (header.nodes[at]!.length !== header.length) return `column ${f.name} has ${header.nodes[at]!.length} rows in a batch of ${header.length}`;
    at += nodeCount(f.type);
  }
  return null;
}

/**
 * Walk the messages of an IPC file and check them, then check the footer apache-arrow read
 * against them (see the header comment).
 */
/** Where the footer of an IPC file starts, from its last 10 bytes (checked before apache-arrow reads it). */
async function footerStartOf(h: FileHandle, path: string): Promise<number> {
  const fail = (what: string) => malformed(path, FORMAT, what);
  const size = (await h.stat()).size;
  if (size < 8 + TAIL) throw fail(`${size} bytes is too short for the Arrow IPC file format`);
  const tail = await readAt(h, size - TAIL, TAIL, path);
  if (tail.toString('latin1', 4) !== MAGIC) throw fail('no ARROW1 magic at the end of the file (truncated?)');
  const footerLength = tail.readInt32LE(0);
  const footerStart = size - TAIL - footerLength;
  if (footerLength <= 0 || footerStart < 8) throw fail(`the footer length ${footerLength} does not fit in the file (${size} bytes)`);
  try {
    verifyFooter(await readAt(h, footerStart, footerLength, path));
  } catch (err) {
    if (err instanceof SluiceError) throw err;
    throw fail(`corrupt footer: ${(err as Error).message}`);
  }
  return footerStart;
}

/** Checks the layout (see the header comment); returns the record batches and their rows. */
async function checkFileLayout(h: FileHandle, reader: RecordBatchReader, footerStart: number, path: string): Promise<{ rows: number; blocks: BatchBlock[] }> {
  const fail = (what: string) => malformed(path, FORMAT, what);
  // apache-arrow's file writer leaves out the leading schema message (pyarrow and Polars write
  // it): the footer's schema is the reference, and a schema message, when there is one, must
  // equal it
  const footer = reader.footer;
  if (!footer) throw fail('no footer');
  const schema: Schema = footer.schema;
  const batches: Block[] = [];
  const dictionaries: Block[] = [];
  const blocks: BatchBlock[] = [];
  let rows = 0;
  for (let p = 8; p < footerStart; ) {
    const head = await readAt(h, p, Math.min(8, footerStart - p), path);
    if (head.length < 4) throw fail(`stray bytes at byte ${p} before the footer`);
    let prefix = 4;
    let len = head.readInt32LE(0);
    if (len === -1) {
      if (head.length < 8) throw fail(`truncated message header at byte ${p}`);
      prefix = 8;
      len = head.readInt32LE(4);
    }
    if (len === 0) break; // end-of-stream marker
    if (len < 0 || p + prefix + len > footerStart) throw fail(`the message at byte ${p} (${len} bytes) runs into the footer`);
    let msg: Message;
    const meta = await readAt(h, p + prefix, len, path);
    try {
      verifyMessage(meta);
      msg = Message.decode(meta);
    } catch (err) {
      throw fail(`unreadable message at byte ${p}: ${(err as Error).message}`);
    }
    const body = msg.bodyLength;
    if (!Number.isSafeInteger(body) || body < 0 || p + prefix + len + body > footerStart) {
      throw fail(`the body of the message at byte ${p} (${String(body)} bytes) runs into the footer`);
    }
    const block = { offset: p, metaDataLength: prefix + len, bodyLength: body };
    if (msg.isSchema()) {
      if (p !== 8) throw fail(`a schema message at byte ${p}, after the first message`);
      const own: Schema = msg.header();
      const equal: boolean = util.compareSchemas(schema, own);
      if (!equal) throw fail(`the footer's schema (${schema.fields.length} columns) differs from the file's schema message (${own.fields.length} columns)`);
    } else if (msg.isRecordBatch() || msg.isDictionaryBatch()) {
      const problem = msg.isRecordBatch() ? batchHeaderProblem(msg.header(), body, schema) : batchHeaderProblem(msg.header().data, body, null);
      if (problem) throw fail(`the message at byte ${p}: ${problem}`);
      if (msg.isRecordBatch()) {
        const header = msg.header();
        rows += header.length;
        blocks.push({
          body: p + prefix + len,
          bodyLength: body,
          rows: header.length,
          nodes: header.nodes.map((x) => ({ length: x.length, nullCount: x.nullCount })),
          buffers: header.buffers.map((x) => ({ offset: x.offset, length: x.length })),
          compressed: header.compression !== null,
        });
      }
      (msg.isRecordBatch() ? batches : dictionaries).push(block);
    } else {
      throw fail(`unexpected message type ${msg.headerType} at byte ${p}`);
    }
    p += prefix + len + body;
  }

  const same = (kind: string, count: number, get: (i: number) => Block | null, found: Block[]) => {
    if (count !== found.length) throw fail(`the footer lists ${count} ${kind}, the file holds ${found.length}`);
    for (let i = 0; i < count; i++) {
      const b = get(i);
      const f = found[i]!;
      if (!b || b.offset !== f.offset || b.metaDataLength !== f.metaDataLength || b.bodyLength !== f.bodyLength) {
        throw fail(`the footer's ${kind} block ${i} does not match the message at byte ${f.offset}`);
      }
    }
  };
  same('record batches', footer.numRecordBatches, (i) => footer.getRecordBatch(i), batches);
  same('dictionary batches', footer.numDictionaries, (i) => footer.getDictionaryBatch(i), dictionaries);
  return { rows, blocks };
}

/**
 * The messages of an IPC stream, each verified (ipc-flatbuffers.ts) before apache-arrow decodes
 * it, re-chunked one whole message (prefix, metadata, body) per chunk: memory is one message.
 */
async function* verifiedMessages(chunks: AsyncIterable<Uint8Array | string>, where: string): AsyncGenerator<Uint8Array> {
  let buf: Buffer = Buffer.alloc(0);
  // chunks not yet joined to `buf`: joined only once a whole message is there (no quadratic copying)
  let parts: Buffer[] = [];
  let pending = 0;
  let pos = 0; // stream position of buf[0], for messages
  let need = 8;
  let first = true;
  let schema: Schema | null = null;
  const fail = (what: string) => malformed(where, FORMAT, what);
  for await (const chunk of chunks) {
    const c = typeof chunk === 'string' ? Buffer.from(chunk, 'latin1') : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    parts.push(c);
    pending += c.length;
    if (buf.length + pending < need) continue;
    buf = Buffer.concat([buf, ...parts]);
    parts = [];
    pending = 0;
    for (;;) {
      if (first && buf.length >= 6) {
        if (buf.toString('latin1', 0, 6) === MAGIC) throw fail('this is the IPC file format, which needs random access; pipe the stream format (.arrows)');
        first = false;
      }
      if (buf.length < Math.min(need, 8)) break;
      let prefix = 4;
      let len = buf.readInt32LE(0);
      if (len === -1) {
        if (buf.length < 8) break;
        prefix = 8;
        len = buf.readInt32LE(4);
      }
      if (len === 0) {
        yield buf.subarray(0, prefix); // end-of-stream marker
        return;
      }
      if (len < 0) throw fail(`bad message length ${len} at byte ${pos}`);
      if (buf.length < prefix + len) {
        need = prefix + len;
        break;
      }
      const meta = buf.subarray(prefix, prefix + len);
      let msg: Message;
      try {
        verifyMessage(meta);
        msg = Message.decode(meta);
      } catch (err) {
        throw fail(`unreadable message at byte ${pos}: ${(err as Error).message}`);
      }
      // apache-arrow ends a stream silently at a second schema message: never let one through
      if (msg.isSchema() !== (pos === 0)) throw fail(pos === 0 ? 'the stream does not start with a schema message' : `a second schema message at byte ${pos}`);
      const body = msg.bodyLength;
      if (msg.isSchema()) schema = msg.header();
      else if (msg.isRecordBatch() || msg.isDictionaryBatch()) {
        const problem = msg.isRecordBatch() ? batchHeaderProblem(msg.header(), body, schema) : batchHeaderProblem(msg.header().data, body, null);
        if (problem) throw fail(`the message at byte ${pos}: ${problem}`);
      } else throw fail(`unexpected message type ${msg.headerType} at byte ${pos}`);
      if (!Number.isSafeInteger(body) || body < 0) throw fail(`bad body length at byte ${pos}`);
      const total = prefix + len + body;
      if (buf.length < total) {
        need = total;
        break;
      }
      yield buf.subarray(0, total);
      buf = buf.subarray(total);
      pos += total;
      need = 8;
    }
  }
  if (buf.length + pending > 0) throw fail(`truncated: the stream ends inside a message at byte ${pos}`);
}

async function openIpc(path: string): Promise<OpenIpc> {
  if (path === '-') {
    try {
      const reader = (await RecordBatchReader.from(verifiedMessages(process.stdin, path))) as RecordBatchReader;
      await reader.open();
      if (!reader.schema) throw malformed(path, FORMAT, 'no schema message (empty, or not the Arrow IPC stream format)');
      return { reader, rows: null, blocks: null, handle: null, close: async () => void (await Promise.resolve(reader.cancel()).catch(() => {})) };
    } catch (err) {
      throw readError(err, path, FORMAT);
    }
  }
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch (err) {
    throw readError(err, path, FORMAT);
  }
  const close = async () => {
    await handle.close().catch(() => {});
  };
  try {
    // a FIFO or a device cannot seek: it can only hold the stream format, read as it comes
    const seekable = (await handle.stat()).isFile();
    const head = Buffer.alloc(6);
    const isFile = seekable && (await handle.read(head, 0, 6, 0)).bytesRead === 6 && head.toString('latin1') === MAGIC;
    const footerStart = isFile ? await footerStartOf(handle, path) : -1;
    const source = isFile ? handle : verifiedMessages(handle.createReadStream({ autoClose: false, ...(seekable ? { start: 0 } : {}) }), path);
    const reader = (await RecordBatchReader.from(source as FileHandle)) as RecordBatchReader;
    await reader.open();
    if (!reader.schema) throw malformed(path, FORMAT, 'no schema message (empty file, or not Arrow IPC)');
    const layout = isFile ? await checkFileLayout(handle, reader, footerStart, path) : null;
    return {
      reader,
      rows: layout?.rows ?? null,
      blocks: layout?.blocks ?? null,
      handle: isFile ? handle : null,
      close: async () => {
        await Promise.resolve(reader.cancel()).catch(() => {});
        await close();
      },
    };
  } catch (err) {
    await close();
    throw readError(err, path, FORMAT);
  }
}

/** Read only the schema of an Arrow IPC file or stream (the footer of a file is checked too). */
export async function readIpcSchema(path: string): Promise<Schema> {
  const { reader, close } = await openIpc(path);
  try {
    return reader.schema;
  } finally {
    await close();
  }
}

/**
 * The rows of an Arrow IPC file, from its record batches' message headers (read while its
 * layout is checked; no body is read); null for the stream format, which has no footer.
 */
export async function readIpcRows(path: string): Promise<number | null> {
  const { rows, close } = await openIpc(path);
  await close();
  return rows;
}

/**
 * Stream the record batches of an Arrow IPC file or stream (`-`: standard input), one at a
 * time, skipping empty ones; with `schemaBatch`, an input without rows yields one empty batch.
 * With `slicing`, no batch handed on is bigger than about `slicing.maxBytes` (see BatchSlicing):
 * the same file and limit give the same slices, so a second read gives the same batches.
 */
export async function* readIpcBatches(
  path: string,
  opts: { signal?: AbortSignal; schemaBatch?: boolean; slicing?: BatchSlicing } = {},
): AsyncGenerator<RecordBatch> {
  throwIfAborted(opts.signal, path);
  const { reader, blocks, handle, close } = await openIpc(path);
  // kept: a stream reader forgets its schema once it reaches the end
  const schema = reader.schema;
  const slicing = opts.slicing;
  const checked = (batch: RecordBatch, index: number, rows?: [number, number]): RecordBatch => {
    const problem = batchProblem(batch);
    if (problem) throw malformed(path, FORMAT, `record batch ${index}${rows ? ` (rows ${rows[0]}..${rows[1]})` : ''}: ${problem}`, { batch: index });
    return batch;
  };
  // A batch decoded whole, handed on in slices of at most slicing.maxBytes (held until the last is consumed).
  async function* inSlices(batch: RecordBatch): AsyncGenerator<RecordBatch> {
    const bytes = batchBytes(batch);
    if (!slicing || bytes <= slicing.maxBytes) return yield batch;
    const step = sliceRowsFor(batch.numRows, bytes, slicing.maxBytes);
    slicing.whole(bytes);
    try {
      for (let r0 = 0; r0 < batch.numRows; r0 += step) yield batch.slice(r0, Math.min(batch.numRows, r0 + step));
    } finally {
      slicing.whole(0);
    }
  }
  try {
    let yielded = false;
    if (blocks && handle) {
      const layouts = sliceLayouts(reader.schema);
      for (let index = 0; index < blocks.length; index++) {
        throwIfAborted(opts.signal, path);
        const block = blocks[index]!;
        if (block.rows === 0) continue;
        yielded = true;
        if (slicing && layouts && !block.compressed && block.bodyLength > slicing.maxBytes) {
          const step = sliceRowsFor(block.rows, block.bodyLength, slicing.maxBytes);
          const fail = (what: string) => malformed(path, FORMAT, `record batch ${index}: ${what}`, { batch: index });
          for (let r0 = 0; r0 < block.rows; r0 += step) {
            throwIfAborted(opts.signal, path);
            const r1 = Math.min(block.rows, r0 + step);
            let slice: RecordBatch;
            try {
              slice = await readSlice(handle, block, reader.schema, layouts, r0, r1, fail);
            } catch (err) {
              throw readError(err, path, FORMAT);
            }
            yield checked(slice, index, [r0, r1]);
          }
          continue;
        }
        let batch: RecordBatch | null;
        try {
          batch = await reader.readRecordBatch(index);
        } catch (err) {
          throw readError(err, path, FORMAT);
        }
        if (!batch) throw malformed(path, FORMAT, `record batch ${index} could not be read`, { batch: index });
        yield* inSlices(checked(batch, index));
      }
    } else {
      const it = reader[Symbol.asyncIterator]() as AsyncIterator<RecordBatch>;
      for (let index = 0; ; index++) {
        throwIfAborted(opts.signal, path);
        let r: IteratorResult<RecordBatch>;
        try {
          r = await it.next();
        } catch (err) {
          throw readError(err, path, FORMAT);
        }
        if (r.done) break;
        checked(r.value, index);
        // arrow yields a 0-row placeholder for a stream without batches; 0-row batches carry nothing
        if (r.value.numRows === 0) continue;
        yielded = true;
        yield* inSlices(r.value);
      }
    }
    if (!yielded && opts.schemaBatch) yield emptyBatch(schema);
  } finally {
    await close();
  }
}

export interface IpcWriteOptions {
  format?: IpcFormat;
  compression?: IpcCompression;
  signal?: AbortSignal;
}

/**
 * Write `batches` as Arrow IPC (`format` 'file' by default, or 'stream'; `compression` 'none'
 * by default, or 'lz4' / 'zstd') to `path`, atomically. Returns the row count and byte size.
 */
export async function writeIpcAtomic(
  path: string,
  schema: Schema,
  batches: AsyncIterable<RecordBatch> | Iterable<RecordBatch>,
  opts: IpcWriteOptions = {},
): Promise<{ rows: number; bytes: number }> {
  const format = opts.format ?? 'file';
  const compression = opts.compression ?? 'none';
  await prepareIpcCompression(compression);
  return writeAtomic(
    path,
    FORMAT,
    async (target) => {
      const out = new IpcAppender(target.handle, schema, format, path, compression);
      for await (const batch of batches) {
        throwIfAborted(opts.signal, path);
        await out.append(batch);
      }
      throwIfAborted(opts.signal, path);
      await out.finish();
      return { rows: out.rows, bytes: out.bytes };
    },
    { signal: opts.signal },
  );
}
