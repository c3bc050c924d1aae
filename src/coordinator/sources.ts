/**
 * Sources: lazy producers of record batches with a schema known before any row is read
 * (except a one-shot async iterable, whose schema comes with its first batch).
 * Every batch is made plain on the way in (io/arrow-input.ts: this apache-arrow copy's objects,
 * dictionaries decoded, view types converted, empty buffers filled in).
 */
import { stat } from 'node:fs/promises';
import * as A from 'apache-arrow';
import { batchCopyBytes } from '../columns/shared.js';
import { InputError, PlanError, SluiceError } from '../errors.js';
import {
  isRecordBatchLike,
  isTableLike,
  plainBatch,
  plainSchema,
  type RecordBatchLike,
  type SchemaLike,
  type TableLike,
} from '../io/arrow-input.js';
import { expandDataset, FORMAT_NAMES, type Dataset, type FileFormat } from '../io/dataset.js';
import { constantColumn, hiveFields } from '../io/hive.js';
import { inputName, STDIN_NAME } from '../io/input-errors.js';
import type { BatchSlicing } from '../io/ipc.js';

export interface Source {
  /** For explain(). */
  readonly label: string;
  /** Batches from Sluice's own reads (true) or the caller's memory (false; never counted or spilled). */
  readonly owned: boolean;
  /**
   * `batches()` may be called again and gives the same batches at no cost (the caller's Arrow
   * tables in memory): an operator may look at its input once before it runs (a sort's sample).
   */
  readonly replayable?: boolean;
  schema(): Promise<A.Schema>;
  /** `slicing`: how big a batch may be, where the format can cut it (Arrow IPC files; see BatchSlicing). */
  batches(signal?: AbortSignal, slicing?: BatchSlicing): AsyncIterable<A.RecordBatch>;
  /**
   * What is known of the size before reading: for partition counts and progress totals.
   * `rows` only when asked (files: a metadata read per file; otherwise null for files).
   */
  size(options?: { rows?: boolean }): Promise<SourceSize>;
  /**
   * The batches of the last `batches()` again, from the same files, when reading them twice
   * is cheaper than keeping a copy (Arrow IPC: no decoding); InputError INPUT_CHANGED when a
   * file changed in between. Absent: the source cannot be read again cheaply.
   */
  reread?(signal?: AbortSignal, slicing?: BatchSlicing): AsyncIterable<A.RecordBatch>;
}

/**
 * `bytes`: about the bytes the rows take in memory; null when unknown (one-shot inputs).
 * `rows`: exact, or null when unknown (CSV, NDJSON, standard input, one-shot inputs).
 */
export interface SourceSize {
  bytes: number | null;
  rows: number | null;
}

/** In memory, a Parquet file's columns take about this many times its (compressed) bytes. */
const PARQUET_EXPANSION = 3;

export type ArrowInput =
  | A.Table
  | A.RecordBatch
  | TableLike
  | RecordBatchLike
  | Iterable<A.RecordBatch | RecordBatchLike>
  | AsyncIterable<A.RecordBatch | RecordBatchLike>;

/**
 * A source over the caller's Arrow data, from this or any other apache-arrow copy (recognized
 * structurally, see io/arrow-input.ts). Every batch must have the first batch's column names
 * and types: a batch that differs is an InputError naming the batch and the column.
 */
export function arrowSource(input: ArrowInput): Source {
  if (isTableLike(input)) return memorySource(input.schema, input.batches, `Arrow table (${input.numRows} rows)`);
  if (isRecordBatchLike(input)) return memorySource(input.schema, [input], `Arrow batch (${input.numRows} rows)`);
  if (isObject(input) && typeof (input as Iterable<unknown>)[Symbol.iterator] === 'function') {
    const batches = [...(input as Iterable<unknown>)];
    batches.forEach((b, i) => {
      if (!isRecordBatchLike(b)) throw new PlanError('BAD_SOURCE', `fromArrow: item ${i} is ${describe(b)}, not an Arrow RecordBatch`);
    });
    if (batches.length === 0) throw new PlanError('EMPTY_SOURCE', 'fromArrow: an empty list of batches has no schema; pass an empty Table instead');
    const first = batches[0] as RecordBatchLike;
    return memorySource(first.schema, batches as RecordBatchLike[], `${batches.length} Arrow batches`);
  }
  if (isObject(input) && typeof (input as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function') {
    return asyncSource(input as AsyncIterable<unknown>);
  }
  throw new PlanError('BAD_SOURCE', `fromArrow expects an Arrow Table, RecordBatch, or an (async) iterable of RecordBatches, got ${describe(input)}`);
}

const isObject = (x: unknown): x is object => typeof x === 'object' && x !== null;

function describe(x: unknown): string {
  if (x === null) return 'null';
  if (typeof x === 'object') return (x as object).constructor?.name ?? 'object';
  return typeof x;
}

const WHERE = 'fromArrow';

function memorySource(schema: SchemaLike, batches: readonly RecordBatchLike[], label: string): Source {
  const plain = plainSchema(schema);
  return {
    label,
    owned: false,
    replayable: true,
    schema: async () => plain,
    size: async () => ({
      rows: batches.reduce((n, b) => n + b.numRows, 0),
      bytes: batches.reduce((n, b, i) => n + batchCopyBytes(checkedBatch(b, plain, i)), 0),
    }),
    async *batches() {
      for (let i = 0; i < batches.length; i++) yield checkedBatch(batches[i]!, plain, i);
    },
  };
}

/**
 * `batch` (number `index` of its source, from 0) as a plain batch of `schema`; InputError
 * SCHEMA_MISMATCH when its columns differ from the source's (nullability aside).
 */
function checkedBatch(batch: RecordBatchLike, schema: A.Schema, index: number, where = WHERE): A.RecordBatch {
  if (batch.schema !== schema) {
    const got = plainSchema(batch.schema).fields;
    const want = schema.fields;
    const at = `batch ${index + 1} (counting from 1)`;
    for (let c = 0; c < Math.max(got.length, want.length); c++) {
      const g = got[c];
      const w = want[c];
      if (!g || !w || g.name !== w.name) {
        throw new InputError(
          'SCHEMA_MISMATCH',
          `${where}: ${at} has columns (${got.map((f) => f.name).join(', ')}) but the first batch has (${want.map((f) => f.name).join(', ')})`,
          { batch: index + 1, column: (w ?? g)!.name },
        );
      }
      if (!A.util.compareTypes(g.type, w.type)) {
        throw new InputError('SCHEMA_MISMATCH', `${where}: ${at} has column ${w.name} of type ${String(g.type)}, but the first batch has ${String(w.type)}`, {
          batch: index + 1,
          column: w.name,
        });
      }
    }
  }
  return plainBatch(batch, schema, `${where}, batch ${index + 1}`);
}

/** One-shot async iterable: the first batch is read to learn the schema and replayed. */
function asyncSource(iterable: AsyncIterable<unknown>, where = WHERE): Source {
  let iterator: AsyncIterator<unknown> | null = null;
  let first: Promise<IteratorResult<unknown>> | null = null;
  let used = false;
  // The user's iterable throwing is a failure of the input, not of the engine.
  const next = (index: number): Promise<IteratorResult<unknown>> =>
    iterator!.next().catch((err: unknown) => {
      // A typed error (say from another run's stream) stays what it is.
      if (err instanceof SluiceError) throw err;
      throw new InputError('INPUT_SOURCE_FAILED', `${where}: reading item ${index + 1} of the async iterable failed: ${err instanceof Error ? err.message : String(err)}`, { batch: index + 1 }, { cause: err });
    });
  const peek = () => {
    iterator ??= iterable[Symbol.asyncIterator]();
    first ??= next(0);
    return first;
  };
  const asBatch = (x: unknown, index: number): RecordBatchLike => {
    if (!isRecordBatchLike(x)) throw new InputError('BAD_BATCH', `${where}: item ${index + 1} of the async iterable is ${describe(x)}, not an Arrow RecordBatch`, { batch: index + 1 });
    return x;
  };
  let schema: A.Schema | null = null;
  return {
    label: 'async iterable of Arrow batches',
    owned: false,
    size: async () => ({ bytes: null, rows: null }),
    async schema() {
      if (schema) return schema;
      const r = await peek();
      if (r.done) throw new PlanError('EMPTY_SOURCE', `${where}: the async iterable produced no batch, so it has no schema`);
      if (!isRecordBatchLike(r.value)) throw new PlanError('BAD_SOURCE', `${where}: the async iterable produced ${describe(r.value)}, not an Arrow RecordBatch`);
      schema = plainSchema(r.value.schema);
      return schema;
    },
    async *batches() {
      if (used) throw new PlanError('SOURCE_CONSUMED', `${where}: this one-shot input was already consumed by an earlier run; pass a Table or a file to run a plan twice`);
      used = true;
      const s = await this.schema();
      const head = await peek();
      try {
        if (!head.done) yield checkedBatch(asBatch(head.value, 0), s, 0, where);
        for (let i = 1; ; i++) {
          const r = await next(i);
          if (r.done) return;
          yield checkedBatch(asBatch(r.value, i), s, i, where);
        }
      } finally {
        await iterator!.return?.();
      }
    },
  };
}

/** How one file format is read: the schema of one file, and its batches. */
export interface FileReaders {
  schema(path: string): Promise<A.Schema>;
  /** The rows of one file when its metadata says so cheaply (no row read); null otherwise. */
  rows(path: string): Promise<number | null>;
  /**
   * `schema`: the dataset's schema (its first file's, at `schemaFrom`) when reading a later
   * file: text formats read by it, binary formats are checked against it. `schemaBatch`: yield
   * one empty batch when there are no rows (one-shot inputs need it to learn the schema).
   */
  batches(path: string, opts: { signal?: AbortSignal; schemaBatch?: boolean; schema?: A.Schema; schemaFrom?: string; slicing?: BatchSlicing }): AsyncIterable<A.RecordBatch>;
}

/**
 * A source over files (API.md "Engine" paths: files, globs, folders, arrays of them), read one
 * file after another, batch by batch. The schema is the first file's, plus the Hive keys;
 * every later file must have the same columns (InputError SCHEMA_MISMATCH naming the file and
 * the column). `-` is standard input, which can be read by one run only.
 */
export function fileSource(format: FileFormat, paths: string[], readers: FileReaders): Source {
  const name = FORMAT_NAMES[format];
  const label = `${name} ${paths.length === 1 ? inputName(paths[0]!) : `[${paths.join(', ')}]`}`;
  if (paths.length === 1 && paths[0] === '-') {
    const src = asyncSource(readers.batches('-', { schemaBatch: true }), `${name} ${STDIN_NAME}`);
    return { ...src, label, owned: true };
  }
  type Expanded = { dataset: Dataset; fileSchema: A.Schema; schema: A.Schema; bytes?: Promise<number | null>; rows?: Promise<number | null> };
  let expanded: Promise<Expanded> | null = null;
  const expand = () =>
    (expanded ??= (async (): Promise<Expanded> => {
      const dataset = await expandDataset(paths, format);
      const fileSchema = plainSchema(await readers.schema(dataset.files[0]!.path));
      const hive = hiveFields(dataset.hiveKeys, (k) => dataset.files.map((f) => f.hive.find(([key]) => key === k)![1]));
      const clash = hive.find((h) => fileSchema.fields.some((f) => f.name === h.name));
      // a key that is also a column in the files: the files' column wins (no second column)
      const keep = hive.filter((h) => h !== clash && !fileSchema.fields.some((f) => f.name === h.name));
      const schema = keep.length === 0 ? fileSchema : new A.Schema([...fileSchema.fields, ...keep], fileSchema.metadata);
      return { dataset, fileSchema, schema };
    })().catch((err: unknown) => {
      expanded = null; // the next action looks again
      throw err;
    }));
  // What the last batches() read, so that reread() reads the same files or says they changed.
  type Read = { state: Expanded; stats: Array<{ size: number; mtimeMs: number } | null> };
  let lastRead: Read | null = null;
  async function* read(state: Expanded, signal: AbortSignal | undefined, slicing: BatchSlicing | undefined, check: Read | null, record: Read | null): AsyncGenerator<A.RecordBatch> {
    const { dataset, fileSchema, schema } = state;
    const hive = schema.fields.slice(fileSchema.fields.length);
    for (let f = 0; f < dataset.files.length; f++) {
      const file = dataset.files[f]!;
      const st = await stat(file.path).then(
        (x) => ({ size: x.size, mtimeMs: x.mtimeMs }),
        () => null,
      );
      if (check) {
        const was = check.stats[f];
        if (!st || !was || st.size !== was.size || st.mtimeMs !== was.mtimeMs) {
          throw new InputError('INPUT_CHANGED', `${name} file ${file.path} changed while the run was reading it a second time (its rows are replayed from the file, not kept)`, {
            path: file.path,
          });
        }
      } else record?.stats.push(st);
      const values = hive.map((h) => file.hive.find(([k]) => k === h.name)![1]);
      const opts = f === 0 ? { signal, slicing } : { signal, slicing, schema: fileSchema, schemaFrom: dataset.files[0]!.path };
      for await (const raw of readers.batches(file.path, opts)) {
        const b = sameColumns(raw, fileSchema, `${name} file ${file.path}`, f === 0 ? 'its schema read before the run' : `the first file ${dataset.files[0]!.path}`);
        if (b.numRows === 0) continue;
        yield hive.length === 0
          ? b
          : new A.RecordBatch(
              schema,
              A.makeData({
                type: new A.Struct(schema.fields),
                length: b.numRows,
                nullCount: 0,
                children: [...b.data.children, ...hive.map((h, i) => constantColumn(h.type, values[i]!, b.numRows))],
              }),
            );
      }
    }
  }
  return {
    label,
    owned: true,
    schema: async () => (await expand()).schema,
    async size(options = {}) {
      // Once per listing of the files (a run plans with it more than once).
      const state = await expand();
      state.bytes ??= (async () => {
        let bytes = 0;
        for (const f of state.dataset.files) {
          try {
            bytes += (await stat(f.path)).size;
          } catch {
            return null;
          }
        }
        return format === 'parquet' ? bytes * PARQUET_EXPANSION : bytes;
      })();
      if (options.rows) {
        state.rows ??= (async () => {
          let rows = 0;
          for (const f of state.dataset.files) {
            const n = await readers.rows(f.path);
            if (n === null) return null;
            rows += n;
          }
          return rows;
        })();
      }
      return { bytes: await state.bytes, rows: options.rows ? await state.rows! : null };
    },
    async *batches(signal?: AbortSignal, slicing?: BatchSlicing) {
      const state = await expand();
      expanded = null; // files are listed again for the next action
      const record: Read = { state, stats: [] };
      lastRead = record;
      yield* read(state, signal, slicing, null, record);
    },
    ...(format === 'ipc'
      ? {
          async *reread(signal?: AbortSignal, slicing?: BatchSlicing) {
            const last = lastRead;
            if (!last) throw new InputError('INPUT_CHANGED', `${label} has not been read yet, so it cannot be read again`);
            yield* read(last.state, signal, slicing, last, null);
          },
        }
      : {}),
  };
}

/**
 * A later file's batch as a batch of the dataset's schema: columns matched by name (a file may
 * hold them in another order), types equal; InputError SCHEMA_MISMATCH otherwise.
 */
function sameColumns(raw: RecordBatchLike, want: A.Schema, where: string, reference: string): A.RecordBatch {
  const got = plainSchema(raw.schema);
  const g = got.fields;
  const w = want.fields;
  const at = w.map((f) => g.findIndex((x) => x.name === f.name));
  if (g.length !== w.length || at.includes(-1)) {
    throw new InputError('SCHEMA_MISMATCH', `${where} has columns (${g.map((f) => f.name).join(', ')}) but ${reference} has (${w.map((f) => f.name).join(', ')})`, { path: where });
  }
  for (let i = 0; i < w.length; i++) {
    if (!A.util.compareTypes(g[at[i]!]!.type, w[i]!.type)) {
      throw new InputError('SCHEMA_MISMATCH', `${where} has column ${w[i]!.name} of type ${String(g[at[i]!]!.type)}, but ${reference} has ${String(w[i]!.type)}`, {
        path: where,
        column: w[i]!.name,
      });
    }
  }
  const b = plainBatch(raw, got, where);
  if (at.every((j, i) => j === i)) return plainBatch(b, want, where);
  const children = at.map((j) => b.data.children[j]!);
  return new A.RecordBatch(want, A.makeData({ type: new A.Struct(want.fields), length: b.numRows, nullCount: 0, children }));
}
