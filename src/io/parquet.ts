/**
 * Parquet input and output through parquet-wasm (Rust's parquet crate compiled to WASM).
 *
 * Reading (in a worker thread, see parquet-read-worker.ts, because parquet-wasm can panic on
 * corrupt data in a way that escapes every promise): `ParquetFile.fromFile(await
 * fs.openAsBlob(path))` reads byte ranges of the file on demand (footer first, then one row
 * group's column chunks at a time); `stream({ batchSize })` decodes row group by row group into
 * WASM RecordBatches. Each one is converted to Arrow IPC *stream* bytes (`intoIPCStream`),
 * transferred to this thread and parsed with apache-arrow's `tableFromIPC`, so what we yield
 * are ordinary apache-arrow RecordBatches. Memory: one batch here, one row group in WASM.
 *
 * Writing: batches are fed one at a time (each through IPC bytes into a WASM RecordBatch) to
 * `transformParquetStream`, which emits Parquet bytes as row groups fill up (ZSTD, at most
 * `rowGroupRows` rows per group); bytes go straight to the atomic temp file. WASM linear memory
 * never shrinks, so the row group size bounds the memory the writer keeps for good.
 *
 * parquet-wasm throws plain Errors ("Parquet error: …") or WASM RuntimeErrors: all become
 * InputErrors naming the path.
 */
import { type RecordBatch, Table, tableFromIPC, tableToIPC, type Schema } from 'apache-arrow';
import { open, stat } from 'node:fs/promises';
import type * as pq from 'parquet-wasm';
import { loadParquetWasm, type ParquetWasm } from './wasm.js';
import { InputError, WorkerError, type SluiceError } from '../errors.js';
import { writeAtomic } from './atomic.js';
import { readError, throwIfAborted } from './input-errors.js';
import { conformBatch, emptyBatch } from './ipc-sink.js';
import { ParquetReadWorker } from './parquet-read-worker.js';

const FORMAT = 'Parquet' as const;
const DEFAULT_BATCH_ROWS = 65536;
const DEFAULT_ROW_GROUP_ROWS = 131072;

/** What the file was when a read started: a read that fails is checked against it. */
interface Opened {
  path: string;
  mtimeMs: number;
  size: number;
}

async function checkFile(path: string): Promise<Opened> {
  // openAsBlob throws ERR_INVALID_ARG_VALUE for a missing file, and parquet-wasm traps
  // ("RuntimeError: unreachable") on a file it cannot read: stat and open it first, so the
  // error says what the OS said (ENOENT, EACCES, …)
  let st;
  try {
    st = await stat(path);
    if (st.isFile()) await (await open(path, 'r')).close();
  } catch (err) {
    throw readError(err, path, FORMAT);
  }
  if (!st.isFile()) throw new InputError('INPUT_UNREADABLE', `Cannot read Parquet input ${path}: not a regular file`, { path, format: FORMAT });
  return { path, mtimeMs: st.mtimeMs, size: st.size };
}

/**
 * The error for a read the decoder could not finish. The file is read through a file-backed
 * Blob, which refuses to read once the file's modification time changes (even with the same
 * bytes), after which the decoder traps: a file changed since the read began is INPUT_CHANGED,
 * not damaged. A decoder thread that died (out of memory, terminated) is a WorkerError.
 */
async function readFailure(file: Opened, reply: { kind: string; message?: string; died?: boolean }): Promise<SluiceError> {
  const message = reply.kind === 'error' ? reply.message! : `unexpected reply ${reply.kind}`;
  const now = await stat(file.path).catch(() => null);
  if (!now || now.mtimeMs !== file.mtimeMs || now.size !== file.size) {
    return new InputError('INPUT_CHANGED', `Parquet input ${file.path} changed while it was being read (${now ? 'modified' : 'removed'} after the read began); read it again once it is complete`, { path: file.path, format: FORMAT });
  }
  if (reply.kind === 'error' && reply.died) return new WorkerError('WORKER_DIED', `The thread decoding Parquet input ${file.path} died: ${message}`, { path: file.path });
  // parquet-wasm traps on bytes it cannot decode ("RuntimeError: unreachable"): say what that means
  const said = /\bunreachable\b/.test(message) ? `the file is damaged (its pages do not decode: ${message})` : message;
  return new InputError('INPUT_MALFORMED', `Malformed Parquet input ${file.path}: ${said}`, { path: file.path, format: FORMAT });
}

function ipcSchema(ipc: Uint8Array, path: string): Schema {
  try {
    return tableFromIPC(ipc).schema;
  } catch (err) {
    throw readError(err, path, FORMAT);
  }
}

/** Read only the schema of a Parquet file (from its footer), as an apache-arrow Schema. */
export async function readParquetSchema(path: string): Promise<Schema> {
  const file = await checkFile(path);
  const w = new ParquetReadWorker(path, { batchRows: 1, schemaOnly: true });
  try {
    const r = await w.next();
    if (r.kind !== 'schema') throw await readFailure(file, r);
    return ipcSchema(r.ipc, path);
  } finally {
    await w.close();
  }
}

/** The row count of a Parquet file, from its footer (no row is read). */
export async function readParquetRows(path: string): Promise<number> {
  const file = await checkFile(path);
  const w = new ParquetReadWorker(path, { batchRows: 1, schemaOnly: true });
  try {
    const r = await w.next();
    if (r.kind !== 'schema') throw await readFailure(file, r);
    if (!Number.isSafeInteger(r.rows) || r.rows < 0) throw await readFailure(file, { kind: 'error', message: `the footer's row count ${r.rows} is not a row count` });
    return r.rows;
  } finally {
    await w.close();
  }
}

/** Stream the rows of a Parquet file as apache-arrow RecordBatches of at most `batchRows` rows. */
export async function* readParquetBatches(
  path: string,
  opts: { signal?: AbortSignal; batchRows?: number; schemaBatch?: boolean } = {},
): AsyncGenerator<RecordBatch> {
  throwIfAborted(opts.signal, path);
  const file = await checkFile(path);
  const w = new ParquetReadWorker(path, { batchRows: opts.batchRows ?? DEFAULT_BATCH_ROWS, schemaOnly: false });
  try {
    const first = await w.next();
    if (first.kind !== 'schema') throw await readFailure(file, first);
    let yielded = false;
    for (;;) {
      throwIfAborted(opts.signal, path);
      const r = await w.next();
      if (r.kind === 'done') {
        if (!yielded && opts.schemaBatch) yield emptyBatch(ipcSchema(first.ipc, path));
        return;
      }
      if (r.kind !== 'batch') throw await readFailure(file, r);
      let batches: RecordBatch[];
      try {
        batches = tableFromIPC(r.ipc).batches;
      } catch (err) {
        throw readError(err, path, FORMAT);
      }
      for (const b of batches) {
        yielded = true;
        yield b;
      }
    }
  } finally {
    await w.close();
  }
}

function toWasmBatches(wasm: ParquetWasm, schema: Schema, batch: RecordBatch): pq.RecordBatch[] {
  const t = wasm.Table.fromIPCStream(tableToIPC(new Table(schema, [batch]), 'stream'));
  try {
    return t.recordBatches();
  } finally {
    t.free();
  }
}

export const PARQUET_COMPRESSIONS = ['none', 'snappy', 'gzip', 'brotli', 'lz4', 'zstd'] as const;
export type ParquetCompression = (typeof PARQUET_COMPRESSIONS)[number];

function codecOf(wasm: ParquetWasm, c: ParquetCompression): pq.Compression {
  const codecs: Record<ParquetCompression, pq.Compression> = {
    none: wasm.Compression.UNCOMPRESSED,
    snappy: wasm.Compression.SNAPPY,
    gzip: wasm.Compression.GZIP,
    brotli: wasm.Compression.BROTLI,
    // LZ4_RAW: the Parquet 2.9 codec; the older "LZ4" framing is deprecated and read differently by each tool
    lz4: wasm.Compression.LZ4_RAW,
    zstd: wasm.Compression.ZSTD,
  };
  return codecs[c];
}

export interface ParquetWriteOptions {
  signal?: AbortSignal;
  /** rows per row group (default 131072) */
  rowGroupRows?: number;
  /** default 'zstd' */
  compression?: ParquetCompression;
}

/**
 * Write `batches` to `path` as Parquet, atomically; row groups of at most `rowGroupRows` rows.
 * Returns the row count and the byte size of the file.
 */
export async function writeParquetAtomic(
  path: string,
  schema: Schema,
  batches: AsyncIterable<RecordBatch> | Iterable<RecordBatch>,
  opts: ParquetWriteOptions = {},
): Promise<{ rows: number; bytes: number }> {
  return writeAtomic(path, FORMAT, (target) => writeParquetTo(target, path, schema, batches, opts), { signal: opts.signal });
}

/** The Parquet bytes of `batches`, written through `target` (an atomic temp file). */
export async function writeParquetTo(
  target: { write(chunk: Uint8Array): Promise<void>; bytes: number },
  path: string,
  schema: Schema,
  batches: AsyncIterable<RecordBatch> | Iterable<RecordBatch>,
  opts: ParquetWriteOptions,
): Promise<{ rows: number; bytes: number }> {
  const wasm = await loadParquetWasm('Writing Parquet');
  const src = (Symbol.asyncIterator in batches
    ? (batches as AsyncIterable<RecordBatch>)[Symbol.asyncIterator]()
    : (batches as Iterable<RecordBatch>)[Symbol.iterator]()) as AsyncIterator<RecordBatch> | Iterator<RecordBatch>;
  let srcDone = false;
  let rows = 0;
  let sourceError: unknown;
  let sentAny = false;
  const input = new ReadableStream<pq.RecordBatch>({
    async pull(controller) {
      try {
        for (;;) {
          throwIfAborted(opts.signal, path);
          const r = await src.next();
          if (r.done) {
            srcDone = true;
            // an empty output still needs its schema: send one empty batch
            if (!sentAny) {
              sentAny = true;
              for (const wb of toWasmBatches(wasm, schema, emptyBatch(schema))) controller.enqueue(wb);
            }
            controller.close();
            return;
          }
          const b = conformBatch(r.value, schema, path);
          if (b.numRows === 0) continue;
          rows += b.numRows;
          sentAny = true;
          for (const wb of toWasmBatches(wasm, schema, b)) controller.enqueue(wb);
          return;
        }
      } catch (err) {
        sourceError = err;
        controller.error(err);
      }
    },
    async cancel() {
      srcDone = true;
      await src.return?.();
    },
  });
  const props = new wasm.WriterPropertiesBuilder()
    .setCompression(codecOf(wasm, opts.compression ?? 'zstd'))
    .setMaxRowGroupSize(opts.rowGroupRows ?? DEFAULT_ROW_GROUP_ROWS)
    .build();
  try {
    const output = (await wasm.transformParquetStream(input, props)) as ReadableStream<Uint8Array>;
    const reader = output.getReader();
    try {
      for (;;) {
        const r = await reader.read();
        if (r.done) break;
        await target.write(r.value);
      }
    } finally {
      reader.releaseLock();
    }
  } catch (err) {
    throw sourceError ?? err;
  } finally {
    // parquet-wasm may fail without cancelling its input: end the upstream run here, or
    // its readers and workers would stay open (and keep the process alive)
    if (!srcDone) await Promise.resolve(src.return?.()).catch(() => {});
  }
  if (sourceError !== undefined) throw sourceError;
  return { rows, bytes: target.bytes };
}
