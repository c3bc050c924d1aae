/**
 * The Engine: options, the worker pool, and the sources that start a plan (API.md "Engine").
 */
import os from 'node:os';
import { PlanError, show } from '../errors.js';
import { MemoryBudget, parseBytes } from '../memory/budget.js';
import { BufferPool } from '../memory/buffer-pool.js';
import type { Progress } from '../types/plan.js';
import { DataFrame } from './dataframe.js';
import { createExecutor, type Executor } from './pool.js';
import { RunContext, type EngineConfig } from './run-context.js';
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

export interface CsvOptions {
  schema?: unknown;
  header?: boolean;
  delimiter?: string;
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
  /** The memory budget every run of this engine draws on (named reservations). */
  readonly budget: MemoryBudget;
  /** Shared buffers reused across runs (counted in the budget; emptied by close()). */
  readonly buffers: BufferPool;
  private executor: Executor | null = null;
  private closed = false;

  constructor(options: EngineOptions = {}) {
    this.config = resolveEngineOptions(options);
    this.budget = new MemoryBudget(this.config.memoryBudget);
    this.buffers = new BufferPool(this.budget);
  }

  /** @internal a new run's context (one per action) */
  runContext(signal: AbortSignal | undefined): RunContext {
    return new RunContext(this.config, this.pool, signal, this.budget, this.buffers);
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

  readIpc(path: string): DataFrame {
    checkPath(path, 'readIpc');
    return DataFrame.fromSource(this, fileSource('ipc', path));
  }

  readParquet(path: string): DataFrame {
    checkPath(path, 'readParquet');
    return DataFrame.fromSource(this, fileSource('parquet', path));
  }

  readCsv(path: string, options: CsvOptions = {}): DataFrame {
    checkPath(path, 'readCsv');
    return DataFrame.fromSource(this, fileSource('csv', path, options as Record<string, unknown>));
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

function checkPath(path: unknown, method: string): void {
  if (typeof path !== 'string' || path === '') throw new PlanError('BAD_OPTION', `${method}: expected a file path, got \`${show(path)}\``);
}
