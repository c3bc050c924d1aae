/**
 * Where a result goes and in which format, and the streaming of it there.
 *
 * Choosing (`planOutput`, a pure function of the command line and the job's "output"):
 * - `-o -` (or `-o /dev/stdout`) is stdout, in `--format` (CSV by default); `-o PATH` is a file, its format from the
 *   extension, or `--format` when the extension is unknown (a device or FIFO without a known
 *   extension, like `/dev/stdout`, is CSV by default); a `--format` that disagrees with the
 *   extension is a usage error.
 * - `--format` without `-o` applies to stdout only: the job's output.path is not written.
 * - otherwise the job's output (path and/or format, which must agree too); otherwise stdout,
 *   as a table on a terminal and CSV elsewhere.
 * - Arrow IPC: `.arrows` (and stdout) is the IPC *stream* format; `.arrow`, `.ipc`, `.feather`
 *   and any other path the IPC *file* format; the job's output.ipcFormat chooses for stdout and
 *   other paths, and must agree with those extensions.
 *
 * Writing (`emit`): the result is pulled batch by batch from `DataFrame.stream()` and written
 * before the next batch is pulled (nothing is materialized; the table view keeps only the rows
 * it shows). A regular file (or a path that does not exist yet) is written atomically: a temp
 * name next to it, fsync, rename; a failure leaves no file and an existing one untouched. A
 * symlink to a regular file is written atomically at its target (the link stays). Device
 * nodes, FIFOs and sockets (`/dev/null`, `/dev/stdout`, named pipes) are written through:
 * renaming over them would replace them with a regular file. Parquet to stdout or through a
 * device is written to a temp file in --temp-dir first (the format ends with its footer) and
 * copied.
 *
 * Every write error fails the run: ENOSPC, EIO, `> /dev/full` are InputError
 * OUTPUT_UNWRITABLE (exit code 1); a reader that went away (EPIPE, `| head`) is StdoutClosed
 * (the run stops quietly, exit code 0).
 */
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { lstat, open, realpath, stat, unlink, type FileHandle } from 'node:fs/promises';
import os from 'node:os';
import { basename, extname, join, resolve } from 'node:path';
import type { RecordBatch, Schema } from 'apache-arrow';
import { AbortError, type DataFrame, type RunStats } from '../index.js';
import { writeAtomic, writeFully, type AtomicTarget, type ChunkWriter } from '../io/atomic.js';
import { throwIfAborted, writeError, type FormatName } from '../io/input-errors.js';
import { writeIpcAtomic } from '../io/ipc.js';
import { IpcAppender, type IpcFormat } from '../io/ipc-sink.js';
import { prepareIpcCompression, type IpcCompression } from '../io/ipc-codecs.js';
import { writeParquetAtomic, type ParquetCompression } from '../io/parquet.js';
import { partitionKeys, writeParquetDataset } from '../io/parquet-dataset.js';
import { JobError, UsageError } from './errors.js';
import { textWriter, type TextFormat, type TextSink, type TextWriterOptions } from './format.js';
import type { OutputFormat, OutputSpec } from './job.js';
import { IPC_COMPRESSIONS, PARQUET_COMPRESSIONS } from '../options/actions.js';

// ---- choosing the output ---------------------------------------------------------------------

interface Extension {
  format: OutputFormat;
  /** formats a `--format` may name for this extension */
  accepts: readonly OutputFormat[];
  ipc?: IpcFormat;
}

const TEXT_FORMATS: readonly OutputFormat[] = ['table', 'csv', 'tsv', 'json', 'ndjson'];

const EXTENSIONS: Record<string, Extension> = {
  '.csv': { format: 'csv', accepts: ['csv'] },
  '.tsv': { format: 'tsv', accepts: ['tsv'] },
  '.tab': { format: 'tsv', accepts: ['tsv'] },
  '.json': { format: 'json', accepts: ['json'] },
  '.ndjson': { format: 'ndjson', accepts: ['ndjson'] },
  '.jsonl': { format: 'ndjson', accepts: ['ndjson'] },
  '.arrow': { format: 'arrow', accepts: ['arrow'], ipc: 'file' },
  '.ipc': { format: 'arrow', accepts: ['arrow'], ipc: 'file' },
  '.feather': { format: 'arrow', accepts: ['arrow'], ipc: 'file' },
  '.arrows': { format: 'arrow', accepts: ['arrow'], ipc: 'stream' },
  '.parquet': { format: 'parquet', accepts: ['parquet'] },
  '.pq': { format: 'parquet', accepts: ['parquet'] },
  '.txt': { format: 'table', accepts: TEXT_FORMATS },
};

function extensionOf(path: string): Extension | undefined {
  return EXTENSIONS[extname(path).toLowerCase()];
}

/** The format named by a file extension, or undefined. */
export function formatFromPath(path: string): OutputFormat | undefined {
  return extensionOf(path)?.format;
}

export function knownExtensions(): string {
  return Object.keys(EXTENSIONS).join(', ');
}

export type OutputPlan = {
  format: OutputFormat;
  ipc: IpcFormat;
  /** the job's output.compression (Parquet or Arrow IPC; else the writer's default) */
  compression?: ParquetCompression;
  /** the job's output.partitionBy: a Hive-partitioned Parquet folder at `path` */
  partitionBy?: string[];
  /** the job's output.rowGroupSize (Parquet; else the writer's default) */
  rowGroupSize?: number;
} & ({ to: 'stdout' } | { to: 'file'; path: string });

export interface OutputRequest {
  /** `-o` as given */
  output?: string;
  /** `--format` */
  format?: OutputFormat;
  /** the job file's "output" and the folder its paths are relative to */
  job?: OutputSpec;
  jobDir?: string;
  stdoutIsTTY: boolean;
  /** whether a path is a device node, FIFO or socket (written through; CSV unless --format) */
  isSpecial?: (path: string) => boolean;
}

/** Suffixes of compressed files: inputs with them are read decompressed, outputs are refused. */
const COMPRESSED_SUFFIXES = ['.gz', '.gzip', '.zst', '.zstd', '.bz2', '.xz', '.lz4', '.br', '.zip'];

function toFile(path: string, format: OutputFormat | undefined, what: string, fail: (m: string) => Error, isSpecial?: (path: string) => boolean): OutputPlan {
  const suffix = extname(path).toLowerCase();
  if (COMPRESSED_SUFFIXES.includes(suffix)) {
    // A file named .csv.gz holding plain text would not read back (as gzip) anywhere.
    throw fail(
      `${JSON.stringify(path)} names a compressed file (${suffix}), and Sluice writes its text formats uncompressed: write ${JSON.stringify(basename(path, extname(path)))} and compress it (e.g. gzip), or write parquet or arrow, which take a compression`,
    );
  }
  const ext = extensionOf(path);
  if (format !== undefined && ext !== undefined && !ext.accepts.includes(format)) {
    throw fail(`${what} ${format} disagrees with the extension of ${JSON.stringify(path)} (${extname(path)} is ${ext.format}); change one of them`);
  }
  // `-o /dev/stdout`, a named pipe: like `-o -`, CSV unless told otherwise
  const f = format ?? ext?.format ?? (isSpecial?.(path) ? 'csv' : undefined);
  if (f === undefined) {
    throw fail(`cannot tell the output format from ${JSON.stringify(path)} (known extensions: ${knownExtensions()}); pass --format`);
  }
  return { to: 'file', path, format: f, ipc: ext?.ipc ?? 'file' };
}

/** Where the result goes and as what (rules in the header comment). Throws UsageError / JobError. */
export function planOutput(req: OutputRequest): OutputPlan {
  const usage = (m: string): Error => new UsageError(m);
  if (req.output === '-' || req.output === '/dev/stdout') return { to: 'stdout', format: req.format ?? 'csv', ipc: 'stream' };
  // resolve('') is the current folder: say what is wrong instead
  if (req.output !== undefined && req.output.trim() === '') throw usage('-o needs a file path (or - for stdout), got an empty string');
  if (req.output !== undefined) return toFile(resolve(req.output), req.format, '--format', usage, req.isSpecial);
  if (req.format !== undefined) return { to: 'stdout', format: req.format, ipc: 'stream' };
  const job = req.job;
  if (job?.path === '-') return withWriterOptions({ to: 'stdout', format: job.format ?? 'csv', ipc: 'stream' }, job);
  if (job?.path !== undefined) {
    return withWriterOptions(toFile(resolve(req.jobDir ?? '.', job.path), job.format, '$.output.format', (m) => new JobError(m), req.isSpecial), job);
  }
  if (job?.format !== undefined) return withWriterOptions({ to: 'stdout', format: job.format, ipc: 'stream' }, job);
  return withWriterOptions({ to: 'stdout', format: req.stdoutIsTTY ? 'table' : 'csv', ipc: 'stream' }, job ?? {});
}

/**
 * The job's writer options (output.compression, partitionBy, rowGroupSize, ipcFormat) on its
 * plan, where the format's writer takes them (writeParquet: compression, partitionBy,
 * rowGroupSize; writeIpc: compression, ipcFormat; text: none), else a JobError.
 */
function withWriterOptions(plan: OutputPlan, job: OutputSpec): OutputPlan {
  const { compression, partitionBy, rowGroupSize, ipcFormat } = job;
  if (compression !== undefined) {
    if (plan.format !== 'parquet' && plan.format !== 'arrow') {
      throw new JobError(`$.output.compression: ${plan.format} output is not compressed; compression is for parquet (${PARQUET_COMPRESSIONS.join(', ')}) and arrow (${IPC_COMPRESSIONS.join(', ')})`);
    }
    if (plan.format === 'arrow' && !(IPC_COMPRESSIONS as readonly string[]).includes(compression)) {
      throw new JobError(`$.output.compression: arrow (Arrow IPC) output is compressed with ${IPC_COMPRESSIONS.join(', ')}, not ${JSON.stringify(compression)}`);
    }
  }
  if (partitionBy !== undefined) {
    if (plan.format !== 'parquet') throw new JobError(`$.output.partitionBy: only parquet output can be partitioned (Hive-style key=value folders), not ${plan.format}`);
    if (plan.to !== 'file') throw new JobError('$.output.partitionBy: a partitioned output is a folder of files: give output.path a folder, not stdout');
  }
  if (rowGroupSize !== undefined && plan.format !== 'parquet') throw new JobError(`$.output.rowGroupSize: only parquet output has row groups, not ${plan.format}`);
  if (ipcFormat !== undefined) {
    if (plan.format !== 'arrow') throw new JobError(`$.output.ipcFormat: only arrow (Arrow IPC) output is written in the file or the stream format, not ${plan.format}`);
    // an extension that names one of them must agree, as output.format must
    const ext = plan.to === 'file' ? extensionOf(plan.path) : undefined;
    if (plan.to === 'file' && ext?.ipc !== undefined && ext.ipc !== ipcFormat) {
      throw new JobError(`$.output.ipcFormat ${ipcFormat} disagrees with the extension of ${JSON.stringify(plan.path)} (${extname(plan.path)} is the Arrow IPC ${ext.ipc} format); change one of them`);
    }
  }
  return {
    ...plan,
    ...(ipcFormat !== undefined ? { ipc: ipcFormat } : {}),
    ...(rowGroupSize !== undefined ? { rowGroupSize } : {}),
    ...(compression !== undefined ? { compression } : {}),
    ...(partitionBy !== undefined ? { partitionBy: typeof partitionBy === 'string' ? [partitionBy] : partitionBy } : {}),
  };
}

// ---- byte sinks ------------------------------------------------------------------------------

/** A destination for bytes and text; every write resolves once the destination has taken it. */
export interface ByteSink extends TextSink, ChunkWriter {
  write(chunk: string | Uint8Array): Promise<void>;
}

/** The reader of stdout went away (EPIPE): the run ends quietly, exit code 0. */
export class StdoutClosed extends AbortError {
  constructor() {
    super('stdout was closed');
    this.name = 'StdoutClosed';
  }
}

const STDOUT = '<stdout>';

/**
 * Bytes to a Node stream (stdout). Each write waits for the stream's callback, so an error of
 * any write (ENOSPC, EIO, EPIPE) fails the write that caused it, and views of shared buffers
 * are not reused before they are written out.
 */
export function streamSink(stream: NodeJS.WritableStream, opts: { signal?: AbortSignal; format?: FormatName; beforeWrite?: () => void } = {}): ByteSink {
  const one = (chunk: string | Uint8Array): Promise<void> => {
    if (opts.signal?.aborted) throw new AbortError('The run was aborted', {}, { cause: opts.signal.reason });
    if (typeof chunk === 'string' ? chunk.length === 0 : chunk.byteLength === 0) return Promise.resolve();
    opts.beforeWrite?.();
    return new Promise<void>((resolveWrite, reject) => {
      const fail = (err: unknown): void => {
        const code = (err as { code?: unknown } | null)?.code;
        reject(code === 'EPIPE' || code === 'ERR_STREAM_DESTROYED' ? new StdoutClosed() : writeError(err, STDOUT, opts.format ?? 'text'));
      };
      try {
        stream.write(chunk, (err?: Error | null) => (err ? fail(err) : resolveWrite()));
      } catch (err) {
        fail(err);
      }
    });
  };
  return {
    write: one,
    async writev(chunks) {
      let n = 0;
      for (const c of chunks) {
        await one(c);
        n += c.byteLength;
      }
      return { bytesWritten: n };
    },
  };
}

/** Bytes to an open file handle (a device or FIFO written through). */
function handleSink(handle: FileHandle, path: string, format: FormatName, signal: AbortSignal): ByteSink & { bytes: number } {
  const sink = {
    bytes: 0,
    async write(chunk: string | Uint8Array): Promise<void> {
      await sink.writev([typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk]);
    },
    async writev(chunks: Uint8Array[]): Promise<{ bytesWritten: number }> {
      throwIfAborted(signal, path);
      try {
        const n = await writeFully(handle, chunks);
        sink.bytes += n;
        return { bytesWritten: n };
      } catch (err) {
        throw writeError(err, path, format);
      }
    },
  };
  return sink;
}

/** Bytes to an atomic temp file. */
function atomicSink(target: AtomicTarget, signal: AbortSignal): ByteSink {
  return {
    async write(chunk) {
      throwIfAborted(signal, target.path);
      await target.write(chunk);
    },
    async writev(chunks) {
      throwIfAborted(signal, target.path);
      const before = target.bytes;
      await target.write(chunks);
      return { bytesWritten: target.bytes - before };
    },
  };
}

/** How a file path is written: atomically (regular files, new paths) or through (devices, FIFOs). */
export async function fileTarget(path: string): Promise<{ kind: 'atomic' | 'through'; path: string }> {
  let st;
  try {
    st = await lstat(path);
  } catch {
    return { kind: 'atomic', path };
  }
  if (st.isSymbolicLink()) {
    let real: string;
    try {
      real = await realpath(path);
    } catch {
      return { kind: 'through', path }; // a dangling link: opening it creates its target
    }
    const target = await stat(real);
    if (target.isDirectory()) throw new UsageError(`output ${JSON.stringify(path)} is a folder`);
    return { kind: target.isFile() ? 'atomic' : 'through', path: target.isFile() ? real : path };
  }
  if (st.isDirectory()) throw new UsageError(`output ${JSON.stringify(path)} is a folder`);
  return { kind: st.isFile() ? 'atomic' : 'through', path };
}

// ---- emitting --------------------------------------------------------------------------------

export interface EmitOptions {
  stdout: NodeJS.WritableStream;
  stdoutIsTTY: boolean;
  text: TextWriterOptions;
  signal: AbortSignal;
  /** folder for the temp file of Parquet written to stdout or a device (default: OS temp) */
  tempDir?: string;
  /** called before each write to stdout (progress bars on the same terminal make way) */
  beforeStdout?: () => void;
}

export interface EmitResult {
  stats: RunStats;
  rows: number;
  /** bytes written to a file (undefined for stdout and a partitioned folder) */
  bytes?: number;
  /** files written into a partitioned folder */
  files?: number;
  /** the file (or partitioned folder) written, after following a symlink */
  path?: string;
}

const FORMAT_NAMES: Record<OutputFormat, FormatName> = {
  table: 'text',
  csv: 'CSV',
  tsv: 'text',
  json: 'text',
  ndjson: 'text',
  arrow: 'Arrow IPC',
  parquet: 'Parquet',
};

function isText(format: OutputFormat): format is TextFormat {
  return format !== 'arrow' && format !== 'parquet';
}

/** The batches of `it` as an iterable, timing how long the consumer waits for each (engine time). */
function timed(it: AsyncIterator<RecordBatch>, clock: { waitMs: number }): AsyncIterable<RecordBatch> {
  const wrapped: AsyncIterator<RecordBatch> = {
    async next() {
      const t0 = performance.now();
      try {
        return await it.next();
      } finally {
        clock.waitMs += performance.now() - t0;
      }
    },
    async return() {
      return (await it.return?.()) ?? { done: true, value: undefined };
    },
  };
  return { [Symbol.asyncIterator]: () => wrapped };
}

/**
 * `batches` once its first batch (or its end) is in: a run refused when it starts (a budget
 * below its minimum, an input that cannot be read) then fails before a writer puts a CSV
 * header or an IPC schema on stdout, so a pipe never receives a header with no rows.
 */
async function primed(it: AsyncIterator<RecordBatch>): Promise<AsyncIterable<RecordBatch>> {
  let first: IteratorResult<RecordBatch> | null = await it.next();
  const wrapped: AsyncIterator<RecordBatch> = {
    async next() {
      if (first === null) return it.next();
      const r = first;
      first = null;
      return r;
    },
    async return() {
      first = null;
      return (await it.return?.()) ?? { done: true, value: undefined };
    },
  };
  return { [Symbol.asyncIterator]: () => wrapped };
}

async function pumpText(format: TextFormat, schema: Schema, batches: AsyncIterable<RecordBatch>, sink: ByteSink, opts: TextWriterOptions): Promise<void> {
  const w = textWriter(format, sink, opts);
  await w.start(schema);
  for await (const b of batches) await w.write(b);
  await w.finish();
}

async function pumpIpc(schema: Schema, batches: AsyncIterable<RecordBatch>, sink: ByteSink, ipc: IpcFormat, where: string, compression: IpcCompression): Promise<void> {
  await prepareIpcCompression(compression);
  const out = new IpcAppender(sink, schema, ipc, where, compression);
  for await (const b of batches) await out.append(b);
  await out.finish();
}

/** Parquet to a non-file sink: written to a temp file (atomically), then copied. */
async function pumpParquetViaTemp(schema: Schema, batches: AsyncIterable<RecordBatch>, sink: ByteSink, opts: EmitOptions, plan: OutputPlan): Promise<void> {
  const temp = join(opts.tempDir ?? os.tmpdir(), `sluice-out-${process.pid}-${randomBytes(6).toString('hex')}.parquet`);
  try {
    await writeParquetAtomic(temp, schema, batches, { signal: opts.signal, ...parquetOptions(plan) });
    for await (const chunk of createReadStream(temp)) await sink.write(chunk as Buffer);
  } finally {
    await unlink(temp).catch(() => {});
  }
}

async function toSink(plan: OutputPlan, schema: Schema, batches: AsyncIterable<RecordBatch>, sink: ByteSink, where: string, opts: EmitOptions): Promise<void> {
  if (isText(plan.format)) await pumpText(plan.format, schema, batches, sink, opts.text);
  else if (plan.format === 'arrow') await pumpIpc(schema, batches, sink, plan.ipc, where, ipcCompression(plan));
  else await pumpParquetViaTemp(schema, batches, sink, opts, plan);
}

/** A Parquet output's writer options from the job (planOutput checked them), else the writer's defaults. */
function parquetOptions(plan: OutputPlan): { compression?: ParquetCompression; rowGroupRows?: number } {
  return {
    ...(plan.compression !== undefined ? { compression: plan.compression } : {}),
    ...(plan.rowGroupSize !== undefined ? { rowGroupRows: plan.rowGroupSize } : {}),
  };
}

/** An Arrow IPC output's compression: the job's (planOutput checked it is one of IPC's), else none. */
function ipcCompression(plan: OutputPlan): IpcCompression {
  return (plan.compression as IpcCompression | undefined) ?? 'none';
}

/** Run `df` and send its result where `plan` says. */
export async function emit(df: DataFrame, plan: OutputPlan, opts: EmitOptions): Promise<EmitResult> {
  if (plan.to === 'stdout' && !isText(plan.format) && opts.stdoutIsTTY) {
    throw new UsageError(`refusing to write binary ${plan.format} data to a terminal; use -o PATH or redirect stdout`);
  }
  const partitioned = plan.to === 'file' && plan.partitionBy !== undefined;
  // a Hive-partitioned output is a folder, written as a whole by writeParquetDataset
  const target = plan.to === 'file' ? (partitioned ? { kind: 'dataset' as const, path: plan.path } : await fileTarget(plan.path)) : undefined;
  const schema = await df.schema();
  // its keys are checked before the run starts, not once the first batch is in
  if (plan.partitionBy !== undefined) partitionKeys(schema, plan.partitionBy, '$.output');
  const t0 = performance.now();
  const clock = { waitMs: 0 };
  const stream = df.stream({ signal: opts.signal });
  const it = stream[Symbol.asyncIterator]();
  const format = FORMAT_NAMES[plan.format];
  let written: Written;
  try {
    const batches = await primed(timed(it, clock)[Symbol.asyncIterator]());
    written = await write(plan, target, schema, batches, opts, format);
  } finally {
    // a writer that failed mid-stream must still end the run (its readers, decoder threads)
    await it.return?.().catch(() => {});
  }
  const wallMs = performance.now() - t0;
  const stats = withWritePhase(stream.stats, wallMs, clock.waitMs);
  return { stats, rows: stats.rowsOut, ...written, path: target?.path };
}

/** What a write made: the byte count of a file, the file count of a partitioned folder. */
type Written = { bytes?: number; files?: number };

/** Write `batches` where `plan` says. */
async function write(
  plan: OutputPlan,
  target: { kind: 'atomic' | 'through' | 'dataset'; path: string } | undefined,
  schema: Schema,
  batches: AsyncIterable<RecordBatch>,
  opts: EmitOptions,
  format: FormatName,
): Promise<Written> {
  const { signal } = opts;
  let bytes: number | undefined;
  if (target === undefined) {
    const sink = streamSink(opts.stdout, { signal, format, beforeWrite: opts.beforeStdout });
    await toSink(plan, schema, batches, sink, STDOUT, opts);
  } else if (target.kind === 'dataset') {
    const { files } = await writeParquetDataset(target.path, schema, batches, { ...parquetOptions(plan), partitionBy: plan.partitionBy!, signal });
    return { files };
  } else if (target.kind === 'atomic') {
    const path = target.path;
    if (plan.format === 'parquet') bytes = (await writeParquetAtomic(path, schema, batches, { ...parquetOptions(plan), signal })).bytes;
    else if (plan.format === 'arrow') bytes = (await writeIpcAtomic(path, schema, batches, { format: plan.ipc, compression: ipcCompression(plan), signal })).bytes;
    else {
      const textFormat = plan.format;
      bytes = await writeAtomic(
        path,
        format,
        async (t) => {
          await pumpText(textFormat, schema, batches, atomicSink(t, signal), opts.text);
          return t.bytes;
        },
        { signal },
      );
    }
  } else {
    let handle: FileHandle;
    try {
      handle = await open(target.path, 'w');
    } catch (err) {
      throw writeError(err, target.path, format);
    }
    let open_ = true;
    try {
      const sink = handleSink(handle, target.path, format, signal);
      await toSink(plan, schema, batches, sink, target.path, opts);
      bytes = sink.bytes;
      open_ = false;
      await handle.close().catch((err: unknown) => {
        throw writeError(err, target.path, format);
      });
    } finally {
      if (open_) await handle.close().catch(() => {});
    }
  }
  return bytes !== undefined ? { bytes } : {};
}

/**
 * RunStats of the run with the CLI's writing counted: `wallMs` the whole run's (the engine's
 * stops when its last batch leaves), and the time spent writing the output (wall time minus
 * the time spent waiting for batches) as the `write` phase, where the engine did not report
 * one. Phases stay disjoint (API.md: they add up to at most wallMs): a write that overlapped a
 * phase the engine counted while the consumer held its batch is trimmed.
 */
function withWritePhase(stats: RunStats | undefined, wallMs: number, waitMs: number): RunStats {
  if (stats === undefined) throw new Error('the run ended without its stats');
  const out: RunStats = { ...stats, phases: { ...stats.phases } };
  out.wallMs = Math.max(stats.wallMs ?? 0, wallMs);
  if (out.phases.write === undefined) {
    const engine = Object.values(out.phases).reduce((t, ms) => t + ms, 0);
    out.phases.write = Math.max(0, Math.min(wallMs - waitMs, out.wallMs - engine));
  }
  return out;
}
