/**
 * Everything one run (one action) owns: the executor handle, the memory budget and its named
 * reservations, the run's spill folder (created on first spill, removed at the end whatever
 * happens), the abort signal, progress callbacks and the RunStats being filled in.
 */
import { AbortError } from '../errors.js';
import { MemoryBudget } from '../memory/budget.js';
import type { BufferPool } from '../memory/buffer-pool.js';
import { createRunDir, type RunDir } from '../memory/temp-dir.js';
import type { ExchangeEnv } from '../shuffle/exchange.js';
import type { Phase, Progress, RunStats } from '../types/plan.js';
import type { Task } from '../types/tasks.js';
import type { Executor } from './pool.js';

export interface EngineConfig {
  threads: number;
  memoryBudget: number;
  spillDir: string | undefined;
  partitions: number;
  onProgress: ((p: Progress) => void) | undefined;
  windowAlgorithm: 'prefix' | 'naive';
  /** Seed of the partitioning hash: results never depend on it, only placement does. */
  seed: number;
  /** Rows per slab sent to a partition task. */
  slabRows: number;
}

export class RunContext {
  readonly budget: MemoryBudget;
  readonly stats: RunStats;
  private runDirPromise: Promise<RunDir> | null = null;

  constructor(
    readonly config: EngineConfig,
    readonly executor: Executor,
    readonly signal: AbortSignal | undefined,
    /** The engine's reusable shared buffers (never handed to the user). */
    readonly pool: BufferPool,
  ) {
    this.budget = new MemoryBudget(config.memoryBudget);
    this.stats = {
      rowsIn: 0,
      rowsOut: 0,
      threads: config.threads,
      partitions: config.partitions,
      spilledBytes: 0,
      spillFiles: 0,
      peakTrackedBytes: 0,
      phases: {},
    };
  }

  /** Tasks in flight at once: one per thread (the main thread for threads: 0). */
  get concurrency(): number {
    return Math.max(1, this.config.threads);
  }

  run<T>(task: Task): Promise<T> {
    this.checkAbort();
    return this.executor.run<T>(task, this.signal);
  }

  checkAbort(): void {
    if (this.signal?.aborted) throw new AbortError();
  }

  runDir(): Promise<RunDir> {
    this.runDirPromise ??= createRunDir(this.config.spillDir);
    return this.runDirPromise;
  }

  addPhase(phase: Phase | string, ms: number): void {
    this.stats.phases[phase] = (this.stats.phases[phase] ?? 0) + ms;
  }

  progress(phase: Phase, done: number, total: number): void {
    this.config.onProgress?.({ phase, done, total });
  }

  /** What an Exchange needs from the run: budget, buffer pool, spill folder, spill stats. */
  exchangeEnv(): ExchangeEnv {
    return {
      budget: this.budget,
      pool: this.pool,
      runDir: () => this.runDir(),
      onSpill: (bytes, newFile, ms) => {
        this.stats.spilledBytes += bytes;
        if (newFile) this.stats.spillFiles++;
        this.addPhase('spill', ms);
      },
    };
  }

  /** Ends the run: spill folder removed, stats finalized. Never throws. */
  async close(): Promise<void> {
    this.stats.peakTrackedBytes = Math.max(this.stats.peakTrackedBytes, this.budget.peak);
    if (this.runDirPromise) {
      try {
        const dir = await this.runDirPromise;
        await dir.remove();
      } catch {
        // A spill folder that could not even be created has nothing to remove.
      }
    }
  }
}
