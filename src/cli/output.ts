/**
 * Where a result goes: stdout or a file, in one of the output formats.
 *
 * - files: Arrow IPC and Parquet through the engine's atomic writers (`writeIpc`,
 *   `writeParquet`: streamed, temp name + rename); text formats are rendered into a temp file
 *   next to the target (`.<name>.<pid>-<random>.sluice-tmp`), fsynced and renamed over it at
 *   the end; on any failure or abort the temp file is removed and an existing file is untouched.
 * - stdout: text formats are rendered batch by batch with back-pressure; `arrow` is an Arrow IPC
 *   *stream*; `parquet` is written to a temp file in --temp-dir (or the OS temp folder) and
 *   copied. Binary formats are refused on a terminal.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat, unlink } from 'node:fs/promises';
import os from 'node:os';
import { extname, join } from 'node:path';
import { tableToIPC, type RecordBatch, type Table } from 'apache-arrow';
import { AbortError, type DataFrame, type RunStats } from '../index.js';
import { writeAtomic } from '../io/atomic.js';
import { throwIfAborted } from '../io/input-errors.js';
import { UsageError } from './errors.js';
import { renderDelimited, renderJson, renderNdjson, TableView, type TextSink } from './format.js';
import type { OutputFormat } from './job.js';

const EXTENSIONS: Record<string, OutputFormat> = {
  '.csv': 'csv',
  '.tsv': 'tsv',
  '.tab': 'tsv',
  '.json': 'json',
  '.ndjson': 'ndjson',
  '.jsonl': 'ndjson',
  '.arrow': 'arrow',
  '.ipc': 'arrow',
  '.feather': 'arrow',
  '.arrows': 'arrow',
  '.parquet': 'parquet',
  '.pq': 'parquet',
  '.txt': 'table',
};

/** The format named by a file extension, or undefined. */
export function formatFromPath(path: string): OutputFormat | undefined {
  return EXTENSIONS[extname(path).toLowerCase()];
}

export function knownExtensions(): string {
  return Object.keys(EXTENSIONS).join(', ');
}

/** A writable with back-pressure: resolves when the stream can take more. */
export interface ByteSink extends TextSink {
  write(chunk: string | Uint8Array): Promise<void>;
}

export function streamSink(stream: NodeJS.WritableStream, signal?: AbortSignal): ByteSink {
  return {
    async write(chunk) {
      if (signal?.aborted) throw new AbortError();
      if (typeof chunk === 'string' ? chunk.length === 0 : chunk.byteLength === 0) return;
      if (stream.write(chunk as never)) return;
      await new Promise<void>((resolve) => {
        const done = (): void => {
          stream.off('drain', done);
          stream.off('close', done);
          stream.off('error', done);
          resolve();
        };
        stream.on('drain', done);
        stream.on('close', done);
        stream.on('error', done);
      });
    },
  };
}

/** Write a text file atomically (src/io/atomic: temp name next to `path`, fsync, rename). */
export function writeTextFileAtomic(path: string, body: (sink: ByteSink) => Promise<void>, signal?: AbortSignal): Promise<number> {
  return writeAtomic(
    path,
    'text',
    async (target) => {
      await body({
        async write(chunk) {
          throwIfAborted(signal, path);
          await target.write(chunk);
        },
      });
      return target.bytes;
    },
    { signal },
  );
}

export interface EmitOptions {
  format: OutputFormat;
  /** file path, or undefined for stdout */
  path?: string;
  stdout: NodeJS.WritableStream;
  stdoutIsTTY: boolean;
  /** table view: rows shown at most */
  maxRows: number;
  color: boolean;
  signal: AbortSignal;
  tempDir?: string;
}

export interface EmitResult {
  stats: RunStats;
  rows: number;
  /** bytes written to the file (undefined for stdout) */
  bytes?: number;
}

async function renderText(format: OutputFormat, table: Table, sink: ByteSink, opts: EmitOptions): Promise<void> {
  const batches: RecordBatch[] = table.batches;
  switch (format) {
    case 'csv':
      await renderDelimited(table.schema, batches, sink, ',');
      return;
    case 'tsv':
      await renderDelimited(table.schema, batches, sink, '\t');
      return;
    case 'json':
      await renderJson(batches, sink);
      return;
    case 'ndjson':
      await renderNdjson(batches, sink);
      return;
    case 'table': {
      const view = new TableView(table.schema, { maxRows: opts.maxRows, color: opts.color });
      for (const b of batches) view.add(b);
      await sink.write(view.render());
      return;
    }
    default:
      throw new Error(`not a text format: ${format}`);
  }
}

/** Run `df` and send its result to the output. */
export async function emit(df: DataFrame, opts: EmitOptions): Promise<EmitResult> {
  const { format, path, signal } = opts;
  if (path !== undefined) {
    if (format === 'arrow') {
      const stats = await df.writeIpc(path, { signal });
      return { stats, rows: stats.rowsOut, bytes: await sizeOf(path) };
    }
    if (format === 'parquet') {
      const stats = await df.writeParquet(path, { signal });
      return { stats, rows: stats.rowsOut, bytes: await sizeOf(path) };
    }
    const { table, stats } = await df.execute({ signal });
    const bytes = await writeTextFileAtomic(path, (sink) => renderText(format, table, sink, opts), signal);
    return { stats, rows: table.numRows, bytes };
  }
  if ((format === 'arrow' || format === 'parquet') && opts.stdoutIsTTY) {
    throw new UsageError(`refusing to write binary ${format} data to a terminal; use -o PATH or redirect stdout`);
  }
  const sink = streamSink(opts.stdout, signal);
  if (format === 'parquet') {
    const temp = join(opts.tempDir ?? os.tmpdir(), `sluice-stdout-${process.pid}-${randomBytes(6).toString('hex')}.parquet`);
    try {
      const stats = await df.writeParquet(temp, { signal });
      for await (const chunk of createReadStream(temp)) await sink.write(chunk as Buffer);
      return { stats, rows: stats.rowsOut };
    } finally {
      await unlink(temp).catch(() => {});
    }
  }
  const { table, stats } = await df.execute({ signal });
  if (format === 'arrow') await sink.write(tableToIPC(table, 'stream'));
  else await renderText(format, table, sink, opts);
  return { stats, rows: table.numRows };
}

async function sizeOf(path: string): Promise<number | undefined> {
  try {
    return (await stat(path)).size;
  } catch {
    return undefined;
  }
}
