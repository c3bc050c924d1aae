/**
 * Incremental Arrow IPC serialization into a file handle, batch by batch, with back-pressure.
 *
 * apache-arrow's RecordBatchWriter pushes its output into an AsyncByteQueue; we hand it a
 * queue subclass that only collects the chunks, and after every batch we write them with
 * `writev` and drop them, so memory stays bounded by one batch. Chunks may be views of
 * SharedArrayBuffers (batches built over shared partition buffers): `writev` takes those
 * as they are, no copy.
 *
 * Buffers are compressed with LZ4_FRAME or ZSTD when asked (the zstd encoder must be loaded
 * first: ipc-codecs.ts `prepareIpcCompression`).
 *
 * Every batch must have the types of the writer's schema; a batch whose field names or
 * nullability differ is re-labelled with the writer's schema (arrow's writer would otherwise
 * silently end the stream on a "new" schema).
 */
import { emptyData } from './arrow-input.js';
import { BufferRegion } from 'apache-arrow/ipc/metadata/message';
import {
  AsyncByteQueue,
  compressionRegistry,
  makeData,
  Message,
  RecordBatch,
  Struct,
  RecordBatchFileWriter,
  RecordBatchStreamWriter,
  util,
  type Field,
  type Schema,
} from 'apache-arrow';
import { ExecutionError } from '../errors.js';
import { writeFully, type ChunkWriter } from './atomic.js';
import { compressionType, type IpcCompression } from './ipc-codecs.js';
import { align8 } from './ipc-batch-meta.js';
import type { EncodedBatch } from './ipc-encode.js';

export type IpcFormat = 'file' | 'stream';

/** An AsyncByteQueue that just keeps what is written until `take()`. */
class CollectingSink extends AsyncByteQueue {
  chunks: Uint8Array[] = [];
  override write(value: Uint8Array | ArrayBufferLike | ArrayBufferView | string): void {
    const u8 = util.toUint8Array(value as ArrayBufferView);
    if (u8.byteLength > 0) this.chunks.push(u8);
  }
  take(): Uint8Array[] {
    const out = this.chunks;
    this.chunks = [];
    return out;
  }
}

function sameSchema(a: Schema, b: Schema): boolean {
  return util.compareSchemas(a, b);
}

/** Re-label `batch` with `schema` when names or nullability differ; throw on a type mismatch. */
export function conformBatch(batch: RecordBatch, schema: Schema, where: string): RecordBatch {
  const got: Field[] = batch.schema.fields;
  if (batch.schema === schema || sameSchema(schema, batch.schema)) return batch;
  const fields = schema.fields;
  if (fields.length !== got.length) {
    throw new ExecutionError(
      'SCHEMA_MISMATCH',
      `${where}: a batch has ${got.length} columns (${got.map((f) => f.name).join(', ')}) but the schema has ${fields.length} (${fields.map((f) => f.name).join(', ')})`,
      { path: where },
    );
  }
  for (let i = 0; i < fields.length; i++) {
    if (!util.compareTypes(fields[i]!.type, got[i]!.type)) {
      throw new ExecutionError(
        'SCHEMA_MISMATCH',
        `${where}: column ${fields[i]!.name} has type ${String(got[i]!.type)} in a batch but ${String(fields[i]!.type)} in the schema`,
        { path: where, column: fields[i]!.name },
      );
    }
  }
  return new RecordBatch(schema, batch.data);
}

/** A zero-row batch of `schema` (nested and dictionary types included). */
export function emptyBatch(schema: Schema): RecordBatch {
  const children = schema.fields.map((f) => emptyData(f.type));
  return new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: 0, nullCount: 0, children }));
}


/**
 * Compressed body buffers as the Arrow format defines them: each buffer is an int64 prefix
 * holding its UNCOMPRESSED length (-1 when stored as is, because compressing did not make it
 * smaller) followed by the compressed bytes, each group starting at an 8-byte boundary.
 * (apache-arrow 21 writes the compressed length in the prefix, which other readers reject.)
 */
function compressBodyBuffers(codec: IpcCompression, buffers: ArrayBufferView[]): { byteLength: number; bufferRegions: BufferRegion[]; buffers: ArrayBufferView[] } {
  const type = compressionType(codec)!;
  const encode = compressionRegistry.get(type)!.encode!;
  let offset = 0;
  const out: ArrayBufferView[] = [];
  const regions: BufferRegion[] = [];
  for (const buffer of buffers) {
    const bytes = util.toUint8Array(buffer);
    if (bytes.length === 0) {
      out.push(new Uint8Array(0), new Uint8Array(0));
      regions.push(new BufferRegion(offset, 0));
      continue;
    }
    const packed = encode(bytes);
    const effective = packed.length < bytes.length;
    const body = effective ? packed : bytes;
    const prefix = new Uint8Array(8);
    new DataView(prefix.buffer).setBigInt64(0, effective ? BigInt(bytes.length) : -1n, true);
    out.push(prefix, body);
    regions.push(new BufferRegion(offset, 8 + body.length));
    offset = align8(offset + 8 + body.length);
  }
  return { byteLength: offset, bufferRegions: regions, buffers: out };
}

/**
 * The IPC file format with the leading schema message that pyarrow, Polars and Arrow C++ write
 * (apache-arrow leaves it out): readers can then check the footer's schema against it.
 */
class FileWriter extends RecordBatchFileWriter {
  constructor(private readonly codec: IpcCompression) {
    super({ compressionType: compressionType(codec) });
  }
  protected override _writeSchema(schema: Schema): this {
    return this._writeMagic()._writePadding(2)._writeMessage(Message.from(schema));
  }
  protected override _compressBodyBuffers(buffers: ArrayBufferView[]) {
    return compressBodyBuffers(this.codec, buffers);
  }
}

class StreamWriter extends RecordBatchStreamWriter {
  constructor(private readonly codec: IpcCompression) {
    super({ compressionType: compressionType(codec) });
  }
  protected override _compressBodyBuffers(buffers: ArrayBufferView[]) {
    return compressBodyBuffers(this.codec, buffers);
  }
}

export class IpcAppender {
  rows = 0;
  bytes = 0;
  private readonly sink = new CollectingSink();
  private readonly writer: RecordBatchFileWriter | RecordBatchStreamWriter;
  private finished = false;

  constructor(
    private readonly handle: ChunkWriter,
    readonly schema: Schema,
    readonly format: IpcFormat,
    private readonly where: string,
    compression: IpcCompression = 'none',
  ) {
    this.writer = format === 'file' ? new FileWriter(compression) : new StreamWriter(compression);
    // reset(sink, schema) adopts our queue (it is an AsyncByteQueue) and writes the schema message
    this.writer.reset(this.sink as never, schema);
  }

  /** Serialize one batch and write it out before returning. */
  async append(batch: RecordBatch): Promise<void> {
    if (this.finished) throw new Error(`${this.where}: append after finish`);
    const b = conformBatch(batch, this.schema, this.where);
    this.writer.write(b);
    this.rows += b.numRows;
    await this.flush();
  }

  /**
   * Serialize several batches and write them out in one go; returns the bytes each batch took,
   * in order (its message begins where the previous one ends). Batches already framed as
   * messages (./ipc-encode.ts, stream format only) are written as they are.
   */
  async appendMany(batches: Array<RecordBatch | EncodedBatch>): Promise<number[]> {
    if (this.finished) throw new Error(`${this.where}: append after finish`);
    const sizes: number[] = [];
    const all: Uint8Array[] = [];
    for (const batch of batches) {
      if (!(batch instanceof RecordBatch)) {
        // A stream takes framed messages as they are (a file would also need them in its footer).
        if (this.format !== 'stream') throw new Error(`${this.where}: encoded batches go to IPC streams only`);
        this.rows += batch.numRows;
        sizes.push(batch.bytes);
        all.push(...batch.chunks);
        continue;
      }
      const b = conformBatch(batch, this.schema, this.where);
      this.writer.write(b);
      this.rows += b.numRows;
      const chunks = this.sink.take();
      sizes.push(chunks.reduce((n, c) => n + c.byteLength, 0));
      all.push(...chunks);
    }
    if (all.length > 0) this.bytes += await writeFully(this.handle, all);
    return sizes;
  }

  /** Write the end-of-stream marker (and the footer for the file format). */
  async finish(): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    this.writer.finish();
    await this.flush();
  }

  /** Writes out what is serialized so far (after construction: the schema message). */
  async flush(): Promise<void> {
    const chunks = this.sink.take();
    if (chunks.length > 0) this.bytes += await writeFully(this.handle, chunks);
  }
}
