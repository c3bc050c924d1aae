/**
 * Quick looks at a data file without a job file: `sluice head FILE`, `sluice schema FILE`,
 * `sluice describe FILE`.
 *
 * The input format comes from `--input-format`, else the extension (`.parquet` `.pq`;
 * `.arrow` `.arrows` `.ipc` `.feather`; `.csv` `.tsv` `.tab` `.txt`, also with `.gz` / `.zst`;
 * `.ndjson` `.jsonl`), else the file's first bytes (`PAR1`, `ARROW1`, an IPC stream's
 * continuation marker; anything else is read as CSV). A glob or folder is judged by its
 * pattern's or first file's extension. `-` is stdin: an Arrow IPC stream (recognized by its
 * first bytes, read as it arrives by `engine.readIpc('-')`) or text (copied to a temp file in
 * --temp-dir for the text readers, removed when the command ends).
 *
 * `schema` and `describe` answer with a small Arrow table (one row per column), printed through
 * the same outputs as any result (`--format`, `-o`). `describe` streams the file batch by batch
 * (column-summary.ts), never holding more than one batch.
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { open, readdir, stat, unlink } from 'node:fs/promises';
import os from 'node:os';
import { extname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import { once } from 'node:events';
import { Bool, Int64, makeData, Table, Utf8, Vector, type Schema } from 'apache-arrow';
import { ExecutionError, InputError, type DataFrame, type Engine, type RunStats } from '../index.js';
import { UsageError } from './errors.js';
import { removeAtExit } from '../io/exit-cleanup.js';
import { binaryFormat } from '../io/text-input.js';
import { formatOfPath, type FileFormat } from '../io/dataset.js';
import { typeName } from '../io/text/type-names.js';
import { TableSummary } from './column-summary.js';

export const INPUT_FORMATS = ['csv', 'tsv', 'arrow', 'parquet', 'ndjson'] as const;
export type InputFormat = (typeof INPUT_FORMATS)[number];

const BY_EXTENSION: Array<[RegExp, InputFormat]> = [
  [/\.(parquet|pq)$/i, 'parquet'],
  [/\.(arrow|arrows|ipc|feather)$/i, 'arrow'],
  [/\.(csv|txt)(\.gz|\.zst)?$/i, 'csv'],
  [/\.(tsv|tab)(\.gz|\.zst)?$/i, 'tsv'],
  [/\.(ndjson|jsonl|json)(\.gz|\.zst)?$/i, 'ndjson'],
];

function fromExtension(path: string): InputFormat | undefined {
  for (const [re, f] of BY_EXTENSION) if (re.test(path)) return f;
  return undefined;
}

/** gzip or zstd by their magic bytes, as the text readers' file suffix, or ''. */
export function compressionSuffix(head: Uint8Array): '' | '.gz' | '.zst' {
  if (head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b) return '.gz';
  if (head.length >= 4 && head[0] === 0x28 && head[1] === 0xb5 && head[2] === 0x2f && head[3] === 0xfd) return '.zst';
  return '';
}

/**
 * The format of the first bytes of a file: Parquet, Arrow IPC (file or stream), NDJSON, TSV
 * (a first line with tabs and no commas), else CSV.
 */
export function sniffFormat(head: Uint8Array): InputFormat {
  const binary = binaryFormat(head);
  if (binary !== null) return binary;
  const text = Buffer.from(head.buffer, head.byteOffset, head.byteLength).toString('latin1');
  // a JSON object first (after a byte-order mark or spaces): one per line; or an array of them
  if (/^(\ufeff|\xef\xbb\xbf)?\s*(\[\s*)?\{/.test(text)) return 'ndjson';
  const nl = text.indexOf('\n');
  const firstLine = nl >= 0 ? text.slice(0, nl) : text;
  if (firstLine.includes('\t') && !firstLine.includes(',')) return 'tsv';
  return 'csv';
}

/**
 * The formats of the files under `dir` that a folder read takes (src/io/dataset: hidden and `_`
 * entries skipped, `.txt` and other extensions ignored), each with a count and a first file.
 */
async function folderFormats(dir: string, into = new Map<FileFormat, { count: number; first: string }>()): Promise<Map<FileFormat, { count: number; first: string }>> {
  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    if (e.name.startsWith('.') || e.name.startsWith('_')) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) await folderFormats(p, into);
    else {
      const f = formatOfPath(p);
      if (f === undefined) continue;
      const seen = into.get(f);
      if (seen) seen.count++;
      else into.set(f, { count: 1, first: p });
    }
  }
  return into;
}

/** Bytes read to tell a file's format by its content. */
const SNIFF_BYTES = 4096;

/**
 * A file whose extension names one format but whose first bytes are another's (a Parquet file
 * named .csv): an InputError saying which, instead of the reader's puzzled message.
 */
async function checkContent(path: string, format: InputFormat): Promise<void> {
  let head: Uint8Array;
  try {
    const h = await open(path, 'r');
    try {
      const buf = new Uint8Array(8);
      head = buf.subarray(0, (await h.read(buf, 0, 8, 0)).bytesRead);
    } finally {
      await h.close();
    }
  } catch {
    return; // a folder, a glob or a missing file: the reader reports what is wrong
  }
  const names = { parquet: 'Parquet', arrow: 'Arrow IPC', csv: 'CSV', tsv: 'TSV', ndjson: 'NDJSON' } as const;
  const binary = binaryFormat(head);
  if (binary !== null && binary !== format) {
    throw new InputError('INPUT_MALFORMED', `${path} starts like ${names[binary]} but its extension says ${names[format]}: pass --input-format ${binary}`, { path });
  }
  if (binary === null && head.length > 0 && (format === 'parquet' || format === 'arrow') && compressionSuffix(head) === '') {
    const looks = sniffFormat(head);
    throw new InputError('INPUT_MALFORMED', `${path} does not start like ${names[format]} (its extension's format) but like text: pass --input-format ${looks} if it is ${names[looks]}`, { path });
  }
}

/** The input format of `path` (a file, folder or glob). */
export async function detectFormat(path: string): Promise<InputFormat> {
  const ext = fromExtension(path);
  if (ext) return ext;
  let st;
  try {
    st = await stat(path);
  } catch {
    return 'csv'; // a glob or a missing file: the reader reports what is wrong
  }
  if (st.isDirectory()) {
    const formats = [...(await folderFormats(path)).values()];
    if (formats.length > 1) {
      // Reading one format's files would drop the others without a word.
      const held = formats.map(({ count, first }) => `${count} ${fromExtension(first)} file${count === 1 ? '' : 's'}`).join(', ');
      throw new UsageError(`folder ${JSON.stringify(path)} mixes formats (${held}): pass --input-format to read one of them, or a glob such as ${JSON.stringify(join(path, '**', `*${extname(formats[0]!.first)}`))}`);
    }
    return formats.length === 1 ? fromExtension(formats[0]!.first)! : 'csv';
  }
  const h = await open(path, 'r');
  try {
    const buf = new Uint8Array(SNIFF_BYTES);
    const { bytesRead } = await h.read(buf, 0, SNIFF_BYTES, 0);
    return sniffFormat(buf.subarray(0, bytesRead));
  } finally {
    await h.close();
  }
}

export interface InputOptions {
  format?: InputFormat;
  delimiter?: string;
  header?: boolean;
  stdin: NodeJS.ReadableStream;
  /** folder for the copy of CSV read from stdin (default: the OS temp folder) */
  tempDir?: string;
  /** registers work to do when the command ends (removing that copy) */
  onCleanup: (fn: () => Promise<void>) => void;
  /** told the path of the copy of stdin, when one is made (messages name it standard input) */
  onStdinCopy?: (path: string) => void;
  /**
   * Text read from stdin is needed up to this many records only (head -n: its rows and the
   * header): the copy stops there, so an endless stream still ends.
   */
  stdinRecords?: number;
}

/** Arrow IPC from stdin when its first bytes say so; otherwise CSV from stdin ('-'). */
async function openStdin(engine: Engine, opts: InputOptions): Promise<DataFrame> {
  const stdin = opts.stdin as Readable;
  let format = opts.format;
  let compressed: '' | '.gz' | '.zst' = '';
  if (format === undefined) {
    const first = await new Promise<Buffer | null>((resolve, reject) => {
      const onReadable = (): void => {
        cleanup();
        resolve(stdin.read() as Buffer | null);
      };
      const onEnd = (): void => {
        cleanup();
        resolve(null);
      };
      const onError = (err: Error): void => {
        cleanup();
        reject(err);
      };
      const cleanup = (): void => {
        stdin.off('readable', onReadable);
        stdin.off('end', onEnd);
        stdin.off('error', onError);
      };
      stdin.once('readable', onReadable);
      stdin.once('end', onEnd);
      stdin.once('error', onError);
    });
    if (first !== null) stdin.unshift(first);
    compressed = first === null ? '' : compressionSuffix(first);
    // compressed text is taken for CSV (--input-format says otherwise); the reader inflates it
    format = first === null || compressed !== '' ? 'csv' : sniffFormat(first);
  }
  // the engine's own stdin reader (process.stdin, the peeked bytes put back above): its checks
  // and messages are those of an IPC file, e.g. a truncated stream says where it ends
  if (format === 'arrow') return engine.readIpc('-');
  // Other formats on stdin: copied to a temp file for the file reader (stdin may have been
  // peeked at); messages name it standard input (main.ts)
  const temp = join(opts.tempDir ?? os.tmpdir(), `sluice-stdin-${process.pid}-${randomBytes(6).toString('hex')}.${format}${compressed}`);
  opts.onStdinCopy?.(temp);
  const atExit = removeAtExit(temp);
  opts.onCleanup(() =>
    unlink(temp)
      .catch(() => {})
      .then(() => atExit.forget()),
  );
  try {
    if (opts.stdinRecords !== undefined && compressed === '' && format !== 'parquet') await copyRecords(stdin, temp, opts.stdinRecords, format === 'csv' || format === 'tsv');
    else await pipeline(stdin, createWriteStream(temp, { flags: 'wx' }));
  } catch (err) {
    if (err instanceof Error && 'code' in err && typeof (err as NodeJS.ErrnoException).syscall === 'string') {
      const folder = opts.tempDir ?? os.tmpdir();
      throw new ExecutionError('WRITE_FAILED', `Copying standard input to a temp file in ${folder} failed: ${err.message} (choose another folder with --temp-dir)`, { path: folder }, { cause: err });
    }
    throw err;
  }
  return openFile(engine, temp, format, opts);
}

/**
 * Copies `stdin` to a new file `path` up to and including the line break that ends its
 * `records`-th record (all of it when shorter), then stops reading. `quoted` (CSV, TSV): line
 * breaks inside double quotes do not end a record.
 */
async function copyRecords(stdin: Readable, path: string, records: number, quoted: boolean): Promise<void> {
  const out = createWriteStream(path, { flags: 'wx' });
  // An error of the file (a read-only or full temp folder) fails the copy, never the process.
  let failed: Error | null = null;
  out.on('error', (err) => (failed ??= err));
  const write = async (b: Buffer): Promise<void> => {
    if (failed) throw failed;
    if (!out.write(b)) await Promise.race([once(out, 'drain'), once(out, 'close')]);
    if (failed) throw failed;
  };
  try {
    let seen = 0;
    let inQuotes = false;
    // Leaving the loop early destroys stdin: nothing more of it is read.
    for await (const chunk of stdin as AsyncIterable<Buffer>) {
      let end = -1;
      for (let i = 0; i < chunk.length; i++) {
        const c = chunk[i]!;
        if (quoted && c === 0x22) inQuotes = !inQuotes;
        else if (c === 0x0a && !inQuotes && ++seen === records) {
          end = i + 1;
          break;
        }
      }
      if (end < 0) {
        await write(chunk);
        continue;
      }
      await write(chunk.subarray(0, end));
      break;
    }
  } finally {
    out.end();
    await finished(out).catch((err: unknown) => {
      failed ??= err as Error;
    });
  }
  if (failed) throw failed;
}

function openFile(engine: Engine, path: string, format: InputFormat, opts: InputOptions): DataFrame {
  switch (format) {
    case 'parquet':
      return engine.readParquet(path);
    case 'arrow':
      return engine.readIpc(path);
    case 'csv':
    case 'tsv':
      return engine.readCsv(path, {
        delimiter: opts.delimiter ?? (format === 'tsv' ? '\t' : ','),
        ...(opts.header !== undefined ? { header: opts.header } : {}),
      });
    case 'ndjson':
      return engine.readNdjson(path);
  }
}

/** A DataFrame over the file at `path`. */
export async function openInput(engine: Engine, path: string, opts: InputOptions): Promise<DataFrame> {
  if (path === '-') return openStdin(engine, opts);
  if (opts.format === undefined && fromExtension(path) !== undefined) await checkContent(path, fromExtension(path)!);
  return openFile(engine, path, opts.format ?? (await detectFormat(path)), opts);
}

// The small report tables are built from plain buffers: apache-arrow's vectorFromArray compiles
// builder code with `new Function`, which --disallow-code-generation-from-strings refuses.

function utf8Vector(values: ReadonlyArray<string | null>): Vector<Utf8> {
  const bytes = values.map((v) => Buffer.from(v ?? '', 'utf8'));
  const offsets = new Int32Array(values.length + 1);
  for (let i = 0; i < bytes.length; i++) offsets[i + 1] = offsets[i]! + bytes[i]!.length;
  const valid = new Uint8Array(Math.ceil(values.length / 8));
  values.forEach((v, i) => v !== null && (valid[i >> 3]! |= 1 << (i & 7)));
  const nullCount = values.filter((v) => v === null).length;
  return new Vector([makeData({ type: new Utf8(), length: values.length, nullCount, nullBitmap: nullCount > 0 ? valid : null, valueOffsets: offsets, data: Buffer.concat(bytes) })]);
}

function boolVector(values: readonly boolean[]): Vector<Bool> {
  const bits = new Uint8Array(Math.ceil(values.length / 8));
  values.forEach((v, i) => v && (bits[i >> 3]! |= 1 << (i & 7)));
  return new Vector([makeData({ type: new Bool(), length: values.length, nullCount: 0, data: bits })]);
}

function int64Vector(values: readonly number[]): Vector<Int64> {
  return new Vector([makeData({ type: new Int64(), length: values.length, nullCount: 0, data: BigInt64Array.from(values, (v) => BigInt(v)) })]);
}

/** One row per column: column, type, nullable. */
export function schemaTable(schema: Schema): Table {
  const f = schema.fields;
  return new Table({
    column: utf8Vector(f.map((x) => x.name)),
    type: utf8Vector(f.map((x) => typeName(x.type))),
    nullable: boolVector(f.map((x) => x.nullable)),
  });
}

/** Stream `df` once and summarize every column (rows, NULLs, min, max). */
export async function describeTable(df: DataFrame, signal: AbortSignal): Promise<{ table: Table; stats: RunStats | undefined }> {
  const summary = new TableSummary(await df.schema());
  const stream = df.stream({ signal });
  for await (const b of stream) summary.add(b);
  const r = summary.result();
  const table = new Table({
    column: utf8Vector(r.map((x) => x.column)),
    type: utf8Vector(r.map((x) => x.type)),
    rows: int64Vector(r.map((x) => x.rows)),
    nulls: int64Vector(r.map((x) => x.nulls)),
    min: utf8Vector(r.map((x) => x.min)),
    max: utf8Vector(r.map((x) => x.max)),
  });
  return { table, stats: stream.stats };
}
