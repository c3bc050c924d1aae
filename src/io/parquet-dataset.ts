/**
 * Partitioned Parquet output: `writeParquet(dir, { partitionBy: ['date'] })` writes Hive-style
 * folders (`dir/date=2024-01-01/part-00000.parquet`), atomically per run.
 *
 * Everything is written under a temp folder next to `dir` (`.<name>.<host>-<pid>-<random>.sluice-tmp`),
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
import { makeData, RecordBatch, Schema, Struct, Type, type Data, type DataType } from 'apache-arrow';
import { mkdir, open, readdir, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { gatherData } from '../columns/gather.js';
import { InputError, PlanError } from '../errors.js';
import { sweepDeadTemps, tempNameFor, writeFully } from './atomic.js';
import { removeAtExit } from './exit-cleanup.js';
import { encodeHiveValue } from './hive.js';
import { throwIfAborted, writeError } from './input-errors.js';
import { writeParquetTo, type ParquetWriteOptions } from './parquet.js';
import { cellText } from './text/cells.js';

const FORMAT = 'Parquet' as const;
const MAX_OPEN = 32;

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

const KEY_TYPES = new Set<number>([Type.Int, Type.Float, Type.Bool, Type.Utf8, Type.LargeUtf8, Type.Date, Type.Timestamp]);

/** PlanError for a partition column whose values cannot name a folder (nested, binary, …). */
function checkKeyType(type: DataType, column: string, where: string): void {
  if (!KEY_TYPES.has(type.typeId)) {
    throw new PlanError('BAD_PARTITION_COLUMN', `${where}: cannot partition by ${column} of type ${String(type)}; use an integer, string, boolean, date or timestamp column`, { column });
  }
}

/** Per-row text of a partition column (null for NULL): the text CSV shows (io/text). */
function keyTexts(data: Data): Array<string | null> {
  const cell = cellText(data, { syntax: 'field', floats: 'exact' });
  const out: Array<string | null> = new Array(data.length);
  for (let i = 0; i < data.length; i++) out[i] = cell(i);
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

/**
 * The partition columns' and the data columns' indexes, once `partitionBy` is known to fit
 * `schema` (columns present, key types supported, some column left for the files): a
 * PlanError otherwise, before any row is read. `where` starts its messages (the CLI names
 * the job key).
 */
export function partitionKeys(schema: Schema, partitionBy: string[], where = 'writeParquet'): { keyIdx: number[]; dataIdx: number[] } {
  const keyIdx = partitionBy.map((k) => {
    const i = schema.fields.findIndex((f) => f.name === k);
    if (i < 0) throw new PlanError('UNKNOWN_COLUMN', `${where}: partitionBy column ${k} is not in the output (columns: ${schema.fields.map((f) => f.name).join(', ')})`, { column: k });
    return i;
  });
  const dataIdx = schema.fields.map((_, i) => i).filter((i) => !keyIdx.includes(i));
  if (dataIdx.length === 0) throw new PlanError('BAD_OPTION', `${where}: partitionBy names every column; no column would be left in the files`);
  for (const i of keyIdx) checkKeyType(schema.fields[i]!.type, schema.fields[i]!.name, where);
  return { keyIdx, dataIdx };
}

export async function writeParquetDataset(
  path: string,
  schema: Schema,
  batches: AsyncIterable<RecordBatch>,
  opts: ParquetWriteOptions & { partitionBy: string[] },
): Promise<{ rows: number; files: number }> {
  const { keyIdx, dataIdx } = partitionKeys(schema, opts.partitionBy);
  const dataSchema = new Schema(dataIdx.map((i) => schema.fields[i]!), schema.metadata);

  const existing = await stat(path).catch(() => null);
  if (existing && !(existing.isDirectory() && (await looksLikeDataset(path)))) {
    throw new InputError(
      'OUTPUT_UNWRITABLE',
      `Cannot write a partitioned Parquet dataset to ${path}: it exists and is ${existing.isDirectory() ? 'a folder with other files in it' : 'not a folder'}`,
      { path },
    );
  }
  await sweepDeadTemps(path);
  const temp = tempNameFor(path);
  const atExit = removeAtExit(temp);
  const open_ = new Map<string, OpenPart>();
  const partCount = new Map<string, number>();
  const handles: FileHandle[] = [];
  const written: string[] = [];
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
    const file = join(folder, `part-${String(k).padStart(5, '0')}.parquet`);
    const handle = await open(file, 'wx');
    handles.push(handle);
    written.push(file);
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
      const texts = keyIdx.map((i) => keyTexts(batch.data.children[i]!));
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
    // Every part must still be there: a temp folder removed under the writer (by hand, or by
    // a sweep that took this process for a dead one) would be recreated by the next part's
    // mkdir and published with the earlier parts missing.
    await Promise.all(written.map((f) => stat(f)));
    if (existing) {
      // Named like a temp, so that the sweep removes it if this process dies between the renames.
      const old = tempNameFor(path);
      await rename(path, old);
      try {
        await rename(temp, path);
      } catch (err) {
        // The earlier dataset goes back where it was: a failed write leaves it untouched.
        await rename(old, path).catch(() => {});
        throw err;
      }
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
    atExit.forget();
  }
}
