/**
 * Sources: lazy producers of record batches with a schema known before any row is read
 * (except a one-shot async iterable, whose schema comes with its first batch).
 * Every batch is made plain on the way in (io/arrow-input.ts: this apache-arrow copy's objects,
 * dictionaries decoded, view types converted, empty buffers filled in).
 */
import * as A from 'apache-arrow';
import { InputError, PlanError } from '../errors.js';
import {
  isRecordBatchLike,
  isTableLike,
  plainBatch,
  plainSchema,
  type RecordBatchLike,
  type SchemaLike,
  type TableLike,
} from '../io/arrow-input.js';
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
    schema: async () => plain,
    async *batches() {
      for (let i = 0; i < batches.length; i++) yield checkedBatch(batches[i]!, plain, i);
    },
  };
}

/**
 * `batch` (number `index` of its source, from 0) as a plain batch of `schema`; InputError
 * SCHEMA_MISMATCH when its columns differ from the source's (nullability aside).
 */
function checkedBatch(batch: RecordBatchLike, schema: A.Schema, index: number): A.RecordBatch {
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
          `${WHERE}: ${at} has columns (${got.map((f) => f.name).join(', ')}) but the first batch has (${want.map((f) => f.name).join(', ')})`,
          { batch: index + 1, column: (w ?? g)!.name },
        );
      }
      if (!A.util.compareTypes(g.type, w.type)) {
        throw new InputError('SCHEMA_MISMATCH', `${WHERE}: ${at} has column ${w.name} of type ${String(g.type)}, but the first batch has ${String(w.type)}`, {
          batch: index + 1,
          column: w.name,
        });
      }
    }
  }
  return plainBatch(batch, schema, `${WHERE}, batch ${index + 1}`);
}

/** One-shot async iterable: the first batch is read to learn the schema and replayed. */
function asyncSource(iterable: AsyncIterable<unknown>): Source {
  let iterator: AsyncIterator<unknown> | null = null;
  let first: Promise<IteratorResult<unknown>> | null = null;
  let used = false;
  const peek = () => {
    iterator ??= iterable[Symbol.asyncIterator]();
    first ??= iterator.next();
    return first;
  };
  const asBatch = (x: unknown, index: number): RecordBatchLike => {
    if (!isRecordBatchLike(x)) throw new InputError('BAD_BATCH', `${WHERE}: item ${index + 1} of the async iterable is ${describe(x)}, not an Arrow RecordBatch`, { batch: index + 1 });
    return x;
  };
  let schema: A.Schema | null = null;
  return {
    label: 'async iterable of Arrow batches',
    owned: false,
    async schema() {
      if (schema) return schema;
      const r = await peek();
      if (r.done) throw new PlanError('EMPTY_SOURCE', 'fromArrow: the async iterable produced no batch, so it has no schema');
      if (!isRecordBatchLike(r.value)) throw new PlanError('BAD_SOURCE', `fromArrow: the async iterable produced ${describe(r.value)}, not an Arrow RecordBatch`);
      schema = plainSchema(r.value.schema);
      return schema;
    },
    async *batches() {
      if (used) throw new PlanError('SOURCE_CONSUMED', 'fromArrow: this async iterable was already consumed by an earlier run; pass a Table or a re-iterable source to run a plan twice');
      used = true;
      const s = await this.schema();
      const head = await peek();
      try {
        if (!head.done) yield checkedBatch(asBatch(head.value, 0), s, 0);
        for (let i = 1; ; i++) {
          const r = await iterator!.next();
          if (r.done) return;
          yield checkedBatch(asBatch(r.value, i), s, i);
        }
      } finally {
        await iterator!.return?.();
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
      for await (const b of readers.batches(signal)) yield plainBatch(b, s, path);
    },
  };
}
