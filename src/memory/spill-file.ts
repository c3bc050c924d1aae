/**
 * Spill files (after DataFusion's spill_manager): create, append batches, finish, read back.
 *
 * Format: Arrow IPC *stream* (schema, record batches, end-of-stream marker), written with
 * IpcAppender, so every append goes to disk before it returns and memory stays bounded by one
 * batch. Batches may be views of SharedArrayBuffers (partition buffers): their bytes are
 * written from the shared memory as they are. Columns should be plain Utf8 rather than
 * Dictionary (a dictionary column serializes its whole dictionary with every batch).
 *
 * Read back with `readSpill` (one batch at a time) or `readSpillAll`, or a piece at a time:
 * `append` returns the byte range a batch takes, and the schema message followed by any run of
 * consecutive batches is a valid stream on its own (src/worker/partition-input reads pieces
 * into task scratch that way). A spill file that does not read back is an internal failure:
 * ExecutionError SPILL_UNREADABLE naming the file.
 */
import type { RecordBatch, Schema } from 'apache-arrow';
import type { SpillPiece } from '../types/tasks.js';
import { open, unlink, type FileHandle } from 'node:fs/promises';
import { ExecutionError, SluiceError } from '../errors.js';
import { IpcAppender } from '../io/ipc-sink.js';
import type { EncodedBatch } from '../io/ipc-encode.js';
import { readIpcBatches } from '../io/ipc.js';

export interface SpillInfo {
  path: string;
  rows: number;
  bytes: number;
}

export class SpillWriter {
  private done = false;

  private constructor(
    readonly path: string,
    private readonly handle: FileHandle,
    private readonly out: IpcAppender,
    /** Bytes of the schema message at the start of the file. */
    readonly schemaBytes: number,
  ) {}

  /** Create the spill file at `path` (which must not exist) and write the schema. */
  static async create(path: string, schema: Schema): Promise<SpillWriter> {
    let handle: FileHandle;
    try {
      handle = await open(path, 'wx');
    } catch (err) {
      throw new ExecutionError('SPILL_FAILED', `Cannot create spill file ${path}: ${(err as Error).message}`, { path }, { cause: err });
    }
    const out = new IpcAppender(handle, schema, 'stream', path);
    try {
      await out.flush();
    } catch (err) {
      await handle.close().catch(() => {});
      await unlink(path).catch(() => {});
      throw new ExecutionError('SPILL_FAILED', `Writing spill file ${path} failed: ${(err as Error)?.message ?? String(err)}`, { path }, { cause: err });
    }
    return new SpillWriter(path, handle, out, out.bytes);
  }

  get rows(): number {
    return this.out.rows;
  }
  get bytes(): number {
    return this.out.bytes;
  }

  /** Write one batch to disk; returns the piece of the file it takes (readable on its own). */
  async append(batch: RecordBatch): Promise<SpillPiece> {
    if (this.done) throw new ExecutionError('SPILL_FAILED', `Spill file ${this.path} is already finished`, { path: this.path });
    const start = this.out.bytes;
    try {
      await this.out.append(batch);
    } catch (err) {
      throw this.fail(err);
    }
    return { path: this.path, schemaBytes: this.schemaBytes, start, end: this.out.bytes, rows: batch.numRows };
  }

  /** Write several batches in one write; returns the piece each takes, in order. */
  async appendMany(batches: Array<RecordBatch | EncodedBatch>): Promise<SpillPiece[]> {
    if (this.done) throw new ExecutionError('SPILL_FAILED', `Spill file ${this.path} is already finished`, { path: this.path });
    let at = this.out.bytes;
    let sizes: number[];
    try {
      sizes = await this.out.appendMany(batches);
    } catch (err) {
      throw this.fail(err);
    }
    return sizes.map((size, i) => {
      const piece = { path: this.path, schemaBytes: this.schemaBytes, start: at, end: at + size, rows: batches[i]!.numRows };
      at += size;
      return piece;
    });
  }

  /** Write the end-of-stream marker and close the file. */
  async finish(): Promise<SpillInfo> {
    if (!this.done) {
      this.done = true;
      try {
        await this.out.finish();
        await this.handle.close();
      } catch (err) {
        throw this.fail(err);
      }
    }
    return { path: this.path, rows: this.out.rows, bytes: this.out.bytes };
  }

  /** Close and delete the file (after a failure or when the data is no longer needed). */
  async discard(): Promise<void> {
    this.done = true;
    await this.handle.close().catch(() => {});
    await unlink(this.path).catch(() => {});
  }

  private fail(err: unknown): SluiceError {
    if (err instanceof SluiceError) return err;
    return new ExecutionError('SPILL_FAILED', `Writing spill file ${this.path} failed: ${(err as Error)?.message ?? String(err)}`, { path: this.path }, { cause: err });
  }
}

/** Read a spill file back, one batch at a time. */
export async function* readSpill(path: string): AsyncGenerator<RecordBatch> {
  try {
    yield* readIpcBatches(path);
  } catch (err) {
    if (err instanceof SluiceError && err.code.startsWith('INPUT_')) {
      throw new ExecutionError('SPILL_UNREADABLE', `Spill file ${path} cannot be read back: ${err.message}`, { path }, { cause: err });
    }
    throw err;
  }
}

/** Read a whole spill file into memory. */
export async function readSpillAll(path: string): Promise<RecordBatch[]> {
  const out: RecordBatch[] = [];
  for await (const b of readSpill(path)) out.push(b);
  return out;
}
