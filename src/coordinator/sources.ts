/**
 * Sources: lazy producers of record batches with a schema known before any row is read
 * (except a one-shot async iterable, whose schema comes with its first batch).
 * Dictionary columns are decoded on the way in so every later stage sees plain columns.
 */
import * as A from 'apache-arrow';
import { decodeDictionary } from '../columns/shared.js';
import { InputError, PlanError } from '../errors.js';
import { readCsvBatches, readCsvSchema } from '../io/csv.js';
import { readIpcBatches, readIpcSchema } from '../io/ipc.js';
import { readParquetBatches, readParquetSchema } from '../io/parquet.js';

export interface Source {
  /** For explain(). */
  readonly label: string;
  /** Batches from Sluice's own reads (true) or the caller's memory (false; never counted or spilled). */
  readonly owned: boolean;
  schema(): Promise<A.Schema>;
  batches(signal?: AbortSignal): AsyncIterable<A.RecordBatch>;
}

export type ArrowInput =
  | A.Table
  | A.RecordBatch
  | Iterable<A.RecordBatch>
  | AsyncIterable<A.RecordBatch>;

export function arrowSource(input: ArrowInput): Source {
  if (input instanceof A.Table) return memorySource(input.schema, input.batches, `Arrow table (${input.numRows} rows)`);
  if (input instanceof A.RecordBatch) return memorySource(input.schema, [input], `Arrow batch (${input.numRows} rows)`);
  if (input && typeof (input as Iterable<A.RecordBatch>)[Symbol.iterator] === 'function') {
    const batches = [...(input as Iterable<A.RecordBatch>)];
    checkBatches(batches);
    if (batches.length === 0) throw new PlanError('EMPTY_SOURCE', 'fromArrow: an empty list of batches has no schema; pass an empty Table instead');
    return memorySource(batches[0]!.schema, batches, `${batches.length} Arrow batches`);
  }
  if (input && typeof (input as AsyncIterable<A.RecordBatch>)[Symbol.asyncIterator] === 'function') {
    return asyncSource(input as AsyncIterable<A.RecordBatch>);
  }
  throw new PlanError('BAD_SOURCE', `fromArrow expects an Arrow Table, RecordBatch, or an (async) iterable of RecordBatches, got ${describe(input)}`);
}

function describe(x: unknown): string {
  if (x === null) return 'null';
  if (typeof x === 'object') return (x as object).constructor?.name ?? 'object';
  return typeof x;
}

function checkBatches(batches: unknown[]): void {
  batches.forEach((b, i) => {
    if (!(b instanceof A.RecordBatch)) throw new PlanError('BAD_SOURCE', `fromArrow: item ${i} is ${describe(b)}, not an Arrow RecordBatch`);
  });
}

function memorySource(schema: A.Schema, batches: A.RecordBatch[], label: string): Source {
  const plain = plainSchema(schema);
  return {
    label,
    owned: false,
    schema: async () => plain,
    async *batches() {
      for (const b of batches) yield plainBatch(b, plain);
    },
  };
}

/** One-shot async iterable: the first batch is read to learn the schema and replayed. */
function asyncSource(iterable: AsyncIterable<A.RecordBatch>): Source {
  let iterator: AsyncIterator<A.RecordBatch> | null = null;
  let first: Promise<IteratorResult<A.RecordBatch>> | null = null;
  let used = false;
  const peek = () => {
    iterator ??= iterable[Symbol.asyncIterator]();
    first ??= iterator.next();
    return first;
  };
  return {
    label: 'async iterable of Arrow batches',
    owned: false,
    async schema() {
      const r = await peek();
      if (r.done) throw new PlanError('EMPTY_SOURCE', 'fromArrow: the async iterable produced no batch, so it has no schema');
      if (!(r.value instanceof A.RecordBatch)) throw new PlanError('BAD_SOURCE', `fromArrow: the async iterable produced ${describe(r.value)}, not an Arrow RecordBatch`);
      return plainSchema(r.value.schema);
    },
    async *batches() {
      if (used) throw new PlanError('SOURCE_CONSUMED', 'fromArrow: this async iterable was already consumed by an earlier run; pass a Table or a re-iterable source to run a plan twice');
      used = true;
      const schema = await this.schema();
      const head = await peek();
      if (!head.done) yield plainBatch(head.value, schema);
      for (;;) {
        const r = await iterator!.next();
        if (r.done) return;
        if (!(r.value instanceof A.RecordBatch)) throw new InputError('BAD_BATCH', `fromArrow: the async iterable produced ${describe(r.value)}, not an Arrow RecordBatch`);
        yield plainBatch(r.value, schema);
      }
    },
  };
}

export function fileSource(kind: 'ipc' | 'parquet' | 'csv', path: string, csvOptions?: Record<string, unknown>): Source {
  const readers = {
    ipc: { schema: () => readIpcSchema(path), batches: (signal?: AbortSignal) => readIpcBatches(path, { signal }) },
    parquet: { schema: () => readParquetSchema(path), batches: (signal?: AbortSignal) => readParquetBatches(path, { signal }) },
    csv: {
      schema: () => readCsvSchema(path, csvOptions as never),
      batches: (signal?: AbortSignal) => readCsvBatches(path, { ...(csvOptions ?? {}), signal } as never),
    },
  }[kind];
  let schema: Promise<A.Schema> | null = null;
  const getSchema = () => (schema ??= readers.schema().then(plainSchema));
  return {
    label: `${kind === 'ipc' ? 'Arrow IPC' : kind === 'parquet' ? 'Parquet' : 'CSV'} file ${path}`,
    owned: true,
    schema: getSchema,
    async *batches(signal?: AbortSignal) {
      const s = await getSchema();
      for await (const b of readers.batches(signal)) yield plainBatch(b, s);
    },
  };
}

/** The schema with dictionary fields replaced by their value types. */
function plainSchema(schema: A.Schema): A.Schema {
  if (!schema.fields.some((f) => hasDictionary(f.type))) return schema;
  return new A.Schema(schema.fields.map((f) => plainField(f)), schema.metadata);
}

function plainField(f: A.Field): A.Field {
  return new A.Field(f.name, plainType(f.type), f.nullable, f.metadata);
}

function plainType(t: A.DataType): A.DataType {
  if (t.typeId === A.Type.Dictionary) return plainType((t as A.Dictionary).dictionary);
  if (t.typeId === A.Type.Struct) return new A.Struct((t as A.Struct).children.map(plainField));
  if (t.typeId === A.Type.List) return new A.List(plainField((t as A.List).children[0]!));
  return t;
}

function hasDictionary(t: A.DataType): boolean {
  return t.typeId === A.Type.Dictionary || (t.children ?? []).some((c) => hasDictionary(c.type));
}

/** A batch under the plain schema: top-level dictionary columns decoded. */
function plainBatch(batch: A.RecordBatch, schema: A.Schema): A.RecordBatch {
  if (batch.schema === schema) return batch;
  const columns = batch.data.children.map((c) => (c.typeId === A.Type.Dictionary ? decodeDictionary(c as A.Data<A.Dictionary>) : c));
  const data = A.makeData({ type: new A.Struct(schema.fields), length: batch.numRows, nullCount: 0, children: columns });
  return new A.RecordBatch(schema, data);
}

