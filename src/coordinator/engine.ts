/**
 * The Engine: options, the worker pool, and the sources that start a plan (API.md "Engine").
 */
import os from 'node:os';
import { PlanError, show } from '../errors.js';
import { parseBytes } from '../memory/budget.js';
import { BufferPool } from '../memory/buffer-pool.js';
import type { Progress } from '../types/plan.js';
import { DataFrame } from './dataframe.js';
import { createExecutor, type Executor } from './pool.js';
import type { EngineConfig } from './run-context.js';
import { csvReadOptions, ndjsonReadOptions, type CsvOptions, type NdjsonOptions } from './read-options.js';
import { arrowSource, fileSource, type ArrowInput } from './sources.js';
import { checkPaths } from '../io/dataset.js';
import { csvReaders, IPC_READERS, ndjsonReaders, PARQUET_READERS } from './file-readers.js';

export type { CsvOptions, NdjsonOptions } from './read-options.js';

/**
 * A file, a glob (`'logs/*.parquet'`), a folder, or an array of those, read as one source
 * (globs and folders in sorted path order; Hive `key=value` folders add columns); `-` is
 * standard input (the IPC stream format, CSV or NDJSON).
 */
export type Paths = string | string[];

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

const KNOWN_OPTIONS = new Set(['threads', 'memoryBudget', 'spillDir', 'partitions', 'onProgress', 'windowAlgorithm', 'slabRows']);

function badOption(name: string, expected: string, got: unknown): PlanError {
  return new PlanError('BAD_OPTION', `Expected \`${name}\` to be ${expected}, got \`${show(got)}\` (${typeof got})`, { option: name });
}

function intOption(options: EngineOptions, name: keyof EngineOptions, min: number, fallback: number): number {
  const v = options[name];
  if (v === undefined) return fallback;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min) throw badOption(name, `an integer from ${min} and up`, v);
  return v;
}

export function resolveEngineOptions(options: EngineOptions = {}): EngineConfig {
  if (typeof options !== 'object' || options === null) throw badOption('options', 'an object', options);
  for (const k of Object.keys(options)) {
    if (!KNOWN_OPTIONS.has(k)) throw new PlanError('BAD_OPTION', `Unknown engine option \`${k}\`; known options: ${[...KNOWN_OPTIONS].join(', ')}`, { option: k });
  }
  const threads = intOption(options, 'threads', 0, os.availableParallelism());
  const partitions = intOption(options, 'partitions', 1, Math.max(4, 4 * threads));
  const slabRows = intOption(options, 'slabRows', 1, 1 << 20);
  let memoryBudget: number;
  try {
    memoryBudget = parseBytes(options.memoryBudget ?? '1GiB');
  } catch (err) {
    throw badOption('memoryBudget', "a number of bytes or a size like '512MiB'", options.memoryBudget);
  }
  if (options.spillDir !== undefined && (typeof options.spillDir !== 'string' || options.spillDir === '')) throw badOption('spillDir', 'a folder path', options.spillDir);
  if (options.onProgress !== undefined && typeof options.onProgress !== 'function') throw badOption('onProgress', 'a function', options.onProgress);
  const windowAlgorithm = options.windowAlgorithm ?? 'prefix';
  if (windowAlgorithm !== 'prefix' && windowAlgorithm !== 'naive') throw badOption('windowAlgorithm', "'prefix' or 'naive'", windowAlgorithm);
  return {
    threads,
    memoryBudget,
    spillDir: options.spillDir,
    partitions,
    onProgress: options.onProgress,
    windowAlgorithm,
    seed: 0x5eed_51c3,
    slabRows,
  };
}

export class Engine {
  readonly config: EngineConfig;
  /** Shared buffers reused across runs (bounded by the memory budget; emptied by close()). */
  readonly buffers: BufferPool;
  private executor: Executor | null = null;
  private closed = false;

  constructor(options: EngineOptions = {}) {
    this.config = resolveEngineOptions(options);
    this.buffers = new BufferPool(this.config.memoryBudget);
  }

  /** The worker pool, started on first use. */
  get pool(): Executor {
    if (this.closed) throw new PlanError('ENGINE_CLOSED', 'This engine is closed; create a new Engine');
    this.executor ??= createExecutor(this.config.threads);
    return this.executor;
  }

  fromArrow(input: ArrowInput): DataFrame {
    return DataFrame.fromSource(this, arrowSource(input));
  }

  /** Arrow IPC file or stream format (LZ4_FRAME / ZSTD buffers too); `path`: see `Paths`. */
  readIpc(path: Paths): DataFrame {
    return DataFrame.fromSource(this, fileSource('ipc', checkPaths(path, 'readIpc'), IPC_READERS));
  }

  readParquet(path: Paths): DataFrame {
    const paths = checkPaths(path, 'readParquet');
    if (paths[0] === '-') throw new PlanError('BAD_OPTION', "readParquet: Parquet needs random access and cannot be read from standard input ('-'); use the Arrow IPC stream format");
    return DataFrame.fromSource(this, fileSource('parquet', paths, PARQUET_READERS));
  }

  readCsv(path: Paths, options: CsvOptions = {}): DataFrame {
    const paths = checkPaths(path, 'readCsv');
    return DataFrame.fromSource(this, fileSource('csv', paths, csvReaders(csvReadOptions(options))));
  }

  readNdjson(path: Paths, options: NdjsonOptions = {}): DataFrame {
    const paths = checkPaths(path, 'readNdjson');
    return DataFrame.fromSource(this, fileSource('ndjson', paths, ndjsonReaders(ndjsonReadOptions(options))));
  }

  /** Ends the workers; idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    this.buffers.clear();
    const ex = this.executor;
    this.executor = null;
    if (ex) await ex.close();
  }
}
