/**
 * Partitioned Parquet output: `writeParquet(dir, { partitionBy: ['date'] })` writes Hive-style
 * folders (`dir/date=2024-01-01/part-00000.parquet`), atomically per run.
 *
 * Everything is written under a temp folder next to `dir` (`.<name>.<pid>-<random>.sluice-tmp`),
 * renamed to `dir` at the end; a failed or aborted run removes it and leaves `dir` as it was.
 * An existing `dir` is replaced only when it looks like a dataset (every entry a `key=value`
 * folder, a `.parquet` file or a hidden file): any other folder or a file there is an error
 * rather than something Sluice deletes.
 *
 * Rows are routed batch by batch: each batch's rows are grouped by their partition values (in
 * row order) and appended to that partition's open Parquet writer, which streams row groups to
 * its file (memory: one row group per open writer). At most MAX_OPEN writers are open; opening
 * another finishes the least recently used one, whose later rows go to its next part file.
 * The partition columns are left out of the files (their values are in the folder names), as
 * Hive, Spark, DuckDB and Polars do. Rows keep their input order within each partition.
 */
import { makeData, RecordBatch, Schema, Struct, Type, type Data, type DataType, type Date_, type Timestamp } from 'apache-arrow';
import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { gatherData } from '../columns/gather.js';
import { InputError, PlanError } from '../errors.js';
import { writeFully } from './atomic.js';
import { formatFloat } from './csv-write.js';
import { encodeHiveValue } from './hive.js';
import { throwIfAborted, writeError } from './input-errors.js';
import { writeParquetTo, type ParquetWriteOptions } from './parquet.js';
import { formatDate, formatTimestamp, type Unit } from './temporal-text.js';

const FORMAT = 'Parquet' as const;
const MAX_OPEN = 32;
const UNITS: Unit[] = ['s', 'ms', 'us', 'ns'];

/** A one-way queue of batches from the router to one partition's writer, with back-pressure. */
class Channel implements AsyncIterable<RecordBatch> {
  private readonly items: Array<{ batch: RecordBatch; taken: () => void }> = [];
  private wake: (() => void) | null = null;
  private ended = false;
  private broken = false;

  /** Resolves when the writer has taken the batch (or has failed). */
  push(batch: RecordBatch): Promise<void> {
    if (this.broken) return Promise.resolve();
    return new Promise((taken) => {
      this.items.push({ batch, taken });
      this.wake?.();
    });
  }

  end(): void {
    this.ended = true;
    this.wake?.();
  }

  /** The writer failed: release every waiting push. */
  break(): void {
    this.broken = true;
    for (const it of this.items.splice(0)) it.taken();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<RecordBatch> {
    for (;;) {
      const it = this.items.shift();
      if (it) {
        it.taken();
        yield it.batch;
        continue;
      }
      if (this.ended) return;
      await new Promise<void>((r) => (this.wake = r));
      this.wake = null;
    }
  }
}

interface OpenPart {
  channel: Channel;
  done: Promise<void>;
  error: unknown;
  lastUse: number;
}

/** Per-row text of a partition column (null for NULL), or a PlanError for types a folder name cannot hold. */
function keyTexts(data: Data, column: string): Array<string | null> {
  const n = data.length;
  const out: Array<string | null> = new Array(n);
  const t = data.type as DataType;
  const values = data.values as ArrayLike<number | bigint>;
  let text: (i: number) => string;
  switch (t.typeId) {
    case Type.Int:
      text = (i) => String(values[i]);
      break;
    case Type.Float:
      text = (i) => formatFloat(values[i] as number, (t as { precision?: number }).precision === 1);
      break;
    case Type.Bool: {
      const bits = data.values as Uint8Array;
      text = (i) => ((bits[(data.offset + i) >> 3]! >> ((data.offset + i) & 7)) & 1 ? 'true' : 'false');
      break;
    }
    case Type.Utf8:
    case Type.LargeUtf8: {
      const bytes = data.values as Uint8Array;
      const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      const offsets = data.valueOffsets as ArrayLike<number | bigint>;
      text = (i) => buf.toString('utf8', Number(offsets[i]), Number(offsets[i + 1]));
      break;
    }
    case Type.Date:
      text = (t as Date_).unit === 0 ? (i) => formatDate(values[i] as number) : (i) => formatDate(Number(BigInt(values[i]!) / 86_400_000n));
      break;
    case Type.Timestamp: {
      const ts = t as Timestamp;
      text = (i) => formatTimestamp(BigInt(values[i]!), UNITS[ts.unit]!, Boolean(ts.timezone));
      break;
    }
    default:
      throw new PlanError('BAD_PARTITION_COLUMN', `writeParquet: cannot partition by ${column} of type ${String(t)}; use an integer, string, boolean, date or timestamp column`, { column });
  }
  const bitmap = data.nullCount > 0 ? data.nullBitmap : null;
  for (let i = 0; i < n; i++) {
    const j = data.offset + i;
    out[i] = bitmap && ((bitmap[j >> 3]! >> (j & 7)) & 1) === 0 ? null : text(i);
  }
  return out;
}

/** Whether every entry of a folder is what a dataset holds (so replacing it loses nothing else). */
async function looksLikeDataset(dir: string): Promise<boolean> {
  for (const e of await readdir(dir, { withFileTypes: true })) {
    if (e.name.startsWith('.') || e.name.startsWith('_')) continue;
    if (e.isDirectory() && e.name.includes('=')) continue;
    if (e.isFile() && e.name.endsWith('.parquet')) continue;
    return false;
  }
  return true;
}

export async function writeParquetDataset(
  path: string,
  schema: Schema,
  batches: AsyncIterable<RecordBatch>,
  opts: ParquetWriteOptions & { partitionBy: string[] },
): Promise<{ rows: number; files: number }> {
  const keyIdx = opts.partitionBy.map((k) => {
    const i = schema.fields.findIndex((f) => f.name === k);
    if (i < 0) throw new PlanError('UNKNOWN_COLUMN', `writeParquet: partitionBy column ${k} is not in the output (columns: ${schema.fields.map((f) => f.name).join(', ')})`, { column: k });
    return i;
  });
  const dataIdx = schema.fields.map((_, i) => i).filter((i) => !keyIdx.includes(i));
  if (dataIdx.length === 0) throw new PlanError('BAD_OPTION', 'writeParquet: partitionBy names every column; no column would be left in the files');
  const dataSchema = new Schema(dataIdx.map((i) => schema.fields[i]!), schema.metadata);
  // reject unsupported key types before any row is read
  for (const i of keyIdx) keyTexts(makeData({ type: schema.fields[i]!.type, length: 0 } as never), schema.fields[i]!.name);

  const existing = await stat(path).catch(() => null);
  if (existing && !(existing.isDirectory() && (await looksLikeDataset(path)))) {
    throw new InputError(
      'OUTPUT_UNWRITABLE',
      `Cannot write a partitioned Parquet dataset to ${path}: it exists and is ${existing.isDirectory() ? 'a folder with other files in it' : 'not a folder'}`,
      { path },
    );
  }
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}-${randomBytes(6).toString('hex')}.sluice-tmp`);
  const open_ = new Map<string, OpenPart>();
  const partCount = new Map<string, number>();
  const handles: FileHandle[] = [];
  let rows = 0;
  let files = 0;
  let tick = 0;

  const finishPart = async (key: string): Promise<void> => {
    const part = open_.get(key)!;
    open_.delete(key);
    part.channel.end();
    await part.done;
    if (part.error !== undefined) throw part.error;
  };
  const partFor = async (key: string): Promise<OpenPart> => {
    const have = open_.get(key);
    if (have) return have;
    if (open_.size >= MAX_OPEN) {
      let lru = '';
      let oldest = Infinity;
      for (const [k, p] of open_) if (p.lastUse < oldest) [lru, oldest] = [k, p.lastUse];
      await finishPart(lru);
    }
    const k = partCount.get(key) ?? 0;
    partCount.set(key, k + 1);
    const folder = join(temp, key);
    await mkdir(folder, { recursive: true });
    const handle = await open(join(folder, `part-${String(k).padStart(5, '0')}.parquet`), 'wx');
    handles.push(handle);
    files++;
    const target = {
      bytes: 0,
      async write(chunk: Uint8Array) {
        target.bytes += await writeFully(handle, [chunk]);
      },
    };
    const channel = new Channel();
    const part: OpenPart = { channel, done: Promise.resolve(), error: undefined, lastUse: tick };
    part.done = writeParquetTo(target, path, dataSchema, channel, opts).then(
      async () => {
        await handle.sync();
      },
      (err: unknown) => {
        part.error = err;
        channel.break();
      },
    );
    open_.set(key, part);
    return part;
  };

  try {
    await mkdir(temp);
    for await (const batch of batches) {
      throwIfAborted(opts.signal, path);
      const n = batch.numRows;
      if (n === 0) continue;
      rows += n;
      const texts = keyIdx.map((i) => keyTexts(batch.data.children[i]!, schema.fields[i]!.name));
      const groups = new Map<string, number[]>();
      for (let r = 0; r < n; r++) {
        let key = '';
        for (let k = 0; k < keyIdx.length; k++) key += `${k > 0 ? '/' : ''}${encodeHiveValue(opts.partitionBy[k]!)}=${encodeHiveValue(texts[k]![r]!)}`;
        let g = groups.get(key);
        if (!g) groups.set(key, (g = []));
        g.push(r);
      }
      const cols = dataIdx.map((i) => batch.data.children[i]!);
      for (const [key, rowList] of groups) {
        const part = await partFor(key);
        part.lastUse = ++tick;
        const idx = Int32Array.from(rowList);
        const children = rowList.length === n ? cols : cols.map((c) => gatherData(c, idx, idx.length, (ctor, len) => new ctor(len)));
        await part.channel.push(new RecordBatch(dataSchema, makeData({ type: new Struct(dataSchema.fields), length: idx.length, nullCount: 0, children })));
        if (part.error !== undefined) throw part.error;
      }
    }
    for (const key of [...open_.keys()]) await finishPart(key);
    throwIfAborted(opts.signal, path);
    await Promise.all(handles.splice(0).map((h) => h.close()));
    if (existing) {
      const old = `${temp}.old`;
      await rename(path, old);
      await rename(temp, path);
      await rm(old, { recursive: true, force: true });
    } else {
      await rename(temp, path);
    }
    return { rows, files };
  } catch (err) {
    throw writeError(err, path, FORMAT);
  } finally {
    for (const p of open_.values()) p.channel.end();
    await Promise.all([...open_.values()].map((p) => p.done));
    await Promise.all(handles.map((h) => h.close().catch(() => {})));
    await rm(temp, { recursive: true, force: true }).catch(() => {});
  }
}
