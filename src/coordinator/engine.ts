/**
 * The Engine: options, the worker pool, and the sources that start a plan (API.md "Engine").
 */
import os from 'node:os';
import type * as A from 'apache-arrow';
import { AbortError, PlanError } from '../errors.js';
import { MemoryBudget, parseBytes } from '../memory/budget.js';
import { BufferPool } from '../memory/buffer-pool.js';
import { engineOptions } from '../options/engine.js';
import { checkApi, describeValue } from '../options/kit.js';
import { checkPaths } from '../io/dataset.js';
import { csvReadOptions, ipcReadOptions, ndjsonReadOptions, parquetReadOptions, sourcePaths } from '../options/read.js';
import { csvReaders, IPC_READERS, ndjsonReaders, PARQUET_READERS } from './file-readers.js';
import type { Progress } from '../types/plan.js';
import { DataFrame } from './dataframe.js';
import { createExecutor, type Executor } from './pool.js';
import { RunContext, type EngineConfig } from './run-context.js';
import { checkSpillDir } from '../memory/temp-dir.js';
import { arrowSource, fileSource, type ArrowInput } from './sources.js';

export interface EngineOptions {
  /** Worker threads; default os.availableParallelism(); 0 = inline on the main thread. */
  threads?: number;
  /** Bytes, or a string with B/KiB/MiB/GiB/KB/MB/GB; default 1GiB. */
  memoryBudget?: number | string;
  /** Default os.tmpdir(); each run uses and removes its own sub-folder. */
  spillDir?: string;
  /** Hash partitions; default 4 per thread (at least 4). */
  partitions?: number;
  onProgress?: (p: Progress) => void;
  /** Benchmarks only: 'naive' re-folds every window frame row by row. Default 'prefix'. */
  windowAlgorithm?: 'prefix' | 'naive';
  /** Rows per partitioning slab (default 1,048,576); tests lower it to exercise many slabs. */
  slabRows?: number;
}

/** A column type in a schema option: a type name (`'int64'`, `'timestamp[ms, UTC]'`) or an Arrow DataType. */
export type ColumnType = string | A.DataType;

/** A schema option: an Arrow Schema (any apache-arrow copy), `{ name: type }`, `[{ name, type, nullable? }]` or `'name type, ...'`. */
export type SchemaOption = A.Schema | Record<string, ColumnType> | Array<{ name: string; type: ColumnType; nullable?: boolean }> | string;

/** `readCsv` options (API.md "Engine"); checked by src/options/read.ts. */
export interface CsvOptions {
  /** column types: by name with a header (the file's other columns inferred), by position without */
  schema?: SchemaOption;
  /** default true */
  header?: boolean;
  /** default ',' */
  delimiter?: string;
  /** default '"' */
  quote?: string;
  /** default: the quote character (`""` inside quotes) */
  escape?: string;
  /** fields read as NULL; default `['']` (a given list replaces it) */
  nullValues?: string[];
  /** rows sampled to infer column types; default 65536 (0: inferred columns are utf8) */
  inferRows?: number;
  /** recognize ISO-8601 dates and timestamps when inferring; default true */
  inferDates?: boolean;
}

/** `readNdjson` options; checked by src/options/read.ts. */
export interface NdjsonOptions {
  /** column types by key (the objects' other keys are left out) */
  schema?: SchemaOption;
  /** lines sampled to infer the schema; default 65536 */
  inferRows?: number;
}

/**
 * A file, a glob (`'logs/*.parquet'`), a folder, or an array of those, read as one source
 * (globs and folders in sorted path order; Hive `key=value` folders add columns); `-` is
 * standard input (the IPC stream format, CSV or NDJSON).
 */
export type Paths = string | string[];

/** `readIpc` / `readParquet` take no options yet (an unknown key is still an error). */
export type FileOptions = Record<string, never>;

export function resolveEngineOptions(options: EngineOptions = {}): EngineConfig {
  const o = checkApi(engineOptions, options, 'new Engine()');
  const threads = o.threads ?? os.availableParallelism();
  let memoryBudget: number;
  try {
    memoryBudget = parseBytes(o.memoryBudget ?? '1GiB');
  } catch (err) {
    // parseBytes says which units it takes and what was wrong
    throw new PlanError('BAD_OPTION', `new Engine(): \`memoryBudget\`: ${(err as Error).message}`, { option: 'memoryBudget' });
  }
  return {
    threads,
    memoryBudget,
    spillDir: o.spillDir,
    partitions: o.partitions ?? Math.max(4, 4 * threads),
    onProgress: o.onProgress,
    windowAlgorithm: o.windowAlgorithm ?? 'prefix',
    seed: 0x5eed_51c3,
    slabRows: o.slabRows ?? 1 << 20,
  };
}

export class Engine {
  readonly config: EngineConfig;
  /** The memory budget every run of this engine draws on (named reservations). */
  readonly budget: MemoryBudget;
  /** Shared buffers reused across runs (counted in the budget; emptied by close()). */
  readonly buffers: BufferPool;
  private executor: Executor | null = null;
  /** Aborted by close(): runs in progress end with an AbortError saying so. */
  private readonly closing = new AbortController();

  constructor(options: EngineOptions = {}) {
    this.config = resolveEngineOptions(options);
    this.budget = new MemoryBudget(this.config.memoryBudget);
    this.buffers = new BufferPool(this.budget);
  }

  /** @internal a new run's context (one per action) */
  runContext(signal: AbortSignal | undefined): RunContext {
    checkSpillDir(this.config.spillDir);
    return new RunContext(this.config, this.pool, signal, this.budget, this.buffers);
  }

  get closed(): boolean {
    return this.closing.signal.aborted;
  }

  /** Aborted when the engine is closed. */
  get closeSignal(): AbortSignal {
    return this.closing.signal;
  }

  assertOpen(): void {
    if (this.closed) throw new PlanError('ENGINE_CLOSED', 'This engine is closed; create a new Engine');
  }

  /** The worker pool, started on first use. */
  get pool(): Executor {
    this.assertOpen();
    this.executor ??= createExecutor(this.config.threads, this.config.memoryBudget);
    return this.executor;
  }

  fromArrow(input: ArrowInput): DataFrame {
    return DataFrame.fromSource(this, arrowSource(input));
  }

  /** Arrow IPC file or stream format (LZ4_FRAME / ZSTD buffers too); `path`: see `Paths`. */
  readIpc(path: Paths, options: FileOptions = {}): DataFrame {
    const paths = checkPaths(checkApi(sourcePaths(), path, 'readIpc()', 'path'), 'readIpc()');
    checkApi(ipcReadOptions, options, 'readIpc()');
    return DataFrame.fromSource(this, fileSource('ipc', paths, IPC_READERS));
  }

  readParquet(path: Paths, options: FileOptions = {}): DataFrame {
    const paths = checkPaths(checkApi(sourcePaths(), path, 'readParquet()', 'path'), 'readParquet()');
    checkApi(parquetReadOptions, options, 'readParquet()');
    if (paths[0] === '-') throw new PlanError('BAD_OPTION', "readParquet(): Parquet needs random access and cannot be read from standard input ('-'); use the Arrow IPC stream format", { option: 'path' });
    return DataFrame.fromSource(this, fileSource('parquet', paths, PARQUET_READERS));
  }

  readCsv(path: Paths, options: CsvOptions = {}): DataFrame {
    const paths = checkPaths(checkApi(sourcePaths(), path, 'readCsv()', 'path'), 'readCsv()');
    const o = checkApi(csvReadOptions, options, 'readCsv()');
    return DataFrame.fromSource(this, fileSource('csv', paths, csvReaders(o)));
  }

  readNdjson(path: Paths, options: NdjsonOptions = {}): DataFrame {
    const paths = checkPaths(checkApi(sourcePaths(), path, 'readNdjson()', 'path'), 'readNdjson()');
    const o = checkApi(ndjsonReadOptions, options, 'readNdjson()');
    return DataFrame.fromSource(this, fileSource('ndjson', paths, ndjsonReaders({ ...(o.inferRows !== undefined ? { inferRows: o.inferRows } : {}), ...(o.schema ? { schema: o.schema.fields } : {}) })));
  }

  /**
   * Ends the workers; idempotent. A run still in progress ends with an AbortError (its spill
   * folder and any output temp file are removed as after any abort).
   */
  async close(): Promise<void> {
    if (!this.closed) this.closing.abort(new AbortError('The engine was closed (engine.close()) while the run was in progress'));
    this.buffers.clear();
    const ex = this.executor;
    this.executor = null;
    if (ex) await ex.close();
  }
}
