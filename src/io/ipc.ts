/**
 * Arrow IPC input and output.
 *
 * Reading opens the file with a FileHandle and lets apache-arrow pick the format from the
 * magic bytes: the *file* format is read by random access (footer, then one record batch
 * block at a time), the *stream* format sequentially; neither reads the whole file, so memory
 * is bounded by one batch. apache-arrow reports truncation and garbage as raw TypeErrors or
 * plain Errors; every one is rethrown as an InputError naming the path (see input-errors.ts).
 * A file with no schema message (empty, or a few stray bytes) is INPUT_MALFORMED.
 *
 * Writing goes through the atomic helper (temp file + rename) and IpcAppender (one batch at a
 * time, written out before the next one is pulled).
 */
import { RecordBatchReader, type RecordBatch, type Schema } from 'apache-arrow';
import { open, type FileHandle } from 'node:fs/promises';
import { writeAtomic } from './atomic.js';
import { malformed, readError, throwIfAborted } from './input-errors.js';
import { IpcAppender, type IpcFormat } from './ipc-sink.js';

const FORMAT = 'Arrow IPC' as const;

async function openReader(path: string): Promise<{ handle: FileHandle; reader: RecordBatchReader }> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch (err) {
    throw readError(err, path, FORMAT);
  }
  try {
    const reader = (await RecordBatchReader.from(handle)) as RecordBatchReader;
    await reader.open();
    if (!reader.schema) throw malformed(path, FORMAT, 'no schema message (empty file, or not Arrow IPC)');
    return { handle, reader };
  } catch (err) {
    await handle.close().catch(() => {});
    throw readError(err, path, FORMAT);
  }
}

/** Read only the schema of an Arrow IPC file or stream. */
export async function readIpcSchema(path: string): Promise<Schema> {
  const { handle, reader } = await openReader(path);
  try {
    return reader.schema;
  } finally {
    await Promise.resolve(reader.cancel()).catch(() => {});
    await handle.close().catch(() => {});
  }
}

/** Stream the record batches of an Arrow IPC file or stream, one at a time. */
export async function* readIpcBatches(path: string, opts: { signal?: AbortSignal } = {}): AsyncGenerator<RecordBatch> {
  throwIfAborted(opts.signal, path);
  const { handle, reader } = await openReader(path);
  try {
    const it = reader[Symbol.asyncIterator]() as AsyncIterator<RecordBatch>;
    for (;;) {
      throwIfAborted(opts.signal, path);
      let r: IteratorResult<RecordBatch>;
      try {
        r = await it.next();
      } catch (err) {
        throw readError(err, path, FORMAT);
      }
      if (r.done) return;
      // arrow yields a 0-row placeholder for a file without batches; 0-row batches carry nothing
      if (r.value.numRows > 0) yield r.value;
    }
  } finally {
    await Promise.resolve(reader.cancel()).catch(() => {});
    await handle.close().catch(() => {});
  }
}

/**
 * Write `batches` as Arrow IPC (`format` 'file' by default, or 'stream') to `path`, atomically.
 * Returns the row count and the byte size of the file.
 */
export async function writeIpcAtomic(
  path: string,
  schema: Schema,
  batches: AsyncIterable<RecordBatch> | Iterable<RecordBatch>,
  opts: { format?: IpcFormat; signal?: AbortSignal } = {},
): Promise<{ rows: number; bytes: number }> {
  const format = opts.format ?? 'file';
  return writeAtomic(
    path,
    FORMAT,
    async (target) => {
      const out = new IpcAppender(target.handle, schema, format, path);
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
