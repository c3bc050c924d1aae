/**
 * Everything one run (one action) owns: the executor handle, its share of the engine's memory
 * budget (loans for tasks, limits for spillable consumers), the run's spill folder (created on
 * first spill, removed at the end whatever happens, with every spill file handle closed first),
 * the abort signal, progress, the phase clock and the RunStats being filled in.
 *
 * Memory policy (every byte a named reservation; nothing grows past the budget):
 * - tasks hold *loans*: pooled buffers (their input, output and scratch) reserved for the
 *   task's duration. A loan that does not fit waits for other loans to come back; with none
 *   outstanding it is MEMORY_EXHAUSTED. No task asks for more than `limits.taskBytes`.
 * - spillable consumers (retained input, exchanges) grow only while `limits.headroom` bytes stay
 *   free for the loans of the tasks in flight, and spill otherwise. Loans already out are part
 *   of that headroom, not in addition to it (`spillableLeave`): spillable data still never passes
 *   limit - headroom, and counting the loans out twice made 10M x 10M ASOF spill at 1 GiB.
 *   A stage that plans its tasks before its rows come in (a sort of tables in memory) may
 *   leave less: what those tasks will borrow, never below one task's loans (exchangeEnv).
 */
import { AbortError, ExecutionError, PlanError } from '../errors.js';
import { formatBytes, type MemoryBudget, type PeakTracker, type Reservation } from '../memory/budget.js';
import { bufferSize, GRAIN, type BufferPool } from '../memory/buffer-pool.js';
import { MergeBuffer } from '../memory/merge-buffer.js';
import type { SpillWriter } from '../memory/spill-file.js';
import { createRunDir, type RunDir } from '../memory/temp-dir.js';
import type { ExchangeEnv } from '../shuffle/exchange.js';
import type { Phase, Progress, RunStats } from '../types/plan.js';
import type { Done, ResultOf, Task } from '../types/tasks.js';
import type { Executor } from './pool.js';
import { RunProgress } from './run-progress.js';

export interface EngineConfig {
  threads: number;
  memoryBudget: number;
  spillDir: string | undefined;
  partitions: number;
  onProgress: ((p: Progress) => void) | undefined;
  windowAlgorithm: 'prefix' | 'naive';
  /** Seed of the partitioning hash: results never depend on it, only placement does. */
  seed: number;
  /** Most rows per slab sent to a partition task (fewer when the budget is small). */
  slabRows: number;
}

/** Bytes added to every loan for alignment padding and descriptors. */
export const LOAN_SLACK = 1024;

/** The most loans one task takes at once (a partition slab: its input, output and scratch). */
const MAX_TASK_LOANS = 3;

/**
 * Shared outputs from which the workers collect at once when the run ends (src/worker/
 * collect-task): a full collection costs a worker milliseconds; smaller outputs wait for it.
 */
const FULL_COLLECT_BYTES = 64 * 2 ** 20;

/** How the budget is shared out (see the file comment). */
export interface RunLimits {
  /** The most one task may hold (its loans together). */
  taskBytes: number;
  /** Bytes spillable consumers leave free: the loans of every task in flight. */
  headroom: number;
  /**
   * The most bytes one input batch may hold as it is read (or read again, or read back from a
   * spill): a quarter of a task's share, so it fits next to the tasks' loans.
   */
  readBytes: number;
  /**
   * The most bytes of a group's results a worker copies to the main thread rather than moving
   * them (src/worker/entry): its originals wait for the worker's next collection, uncounted, so
   * a quarter of a task's share (and 48 MiB at most).
   */
  copyBytes: number;
}

/**
 * 40% of the budget is for the tasks in flight, shared equally; spillable data leaves half the
 * budget free (those loans, and room for the batches being read or read back).
 */
export function runLimits(budget: number, concurrency: number): RunLimits {
  const taskBytes = Math.floor((budget * 0.4) / concurrency);
  return { taskBytes, headroom: Math.floor(budget / 2), readBytes: Math.floor(taskBytes / 4), copyBytes: Math.min(48 * 2 ** 20, Math.floor(taskBytes / 4)) };
}

/** A pooled buffer reserved against the budget for one task. */
export interface Loan {
  readonly buffer: SharedArrayBuffer;
  /** Gives the buffer back to the pool; idempotent. */
  release(): void;
  /** The buffer stays in use under `owner` (e.g. an exchange keeps the rows in it): no longer a loan. */
  handOver(owner: Reservation): SharedArrayBuffer;
}

/**
 * Wall-clock phases that never overlap: the run is in exactly one phase at a time (what the
 * coordinator is waiting for), so the phases add up to the wall time.
 */
export class PhaseClock {
  private current = 'other';
  private since = performance.now();
  constructor(private readonly totals: Partial<Record<string, number>>) {}

  /** Switches to `phase`; returns the phase that was running. */
  enter(phase: string): string {
    const now = performance.now();
    this.totals[this.current] = (this.totals[this.current] ?? 0) + (now - this.since);
    this.since = now;
    const prev = this.current;
    this.current = phase;
    return prev;
  }

  /** Attributes the time spent waiting for `work` to `phase`. */
  async during<T>(phase: Phase | 'assemble', work: Promise<T>): Promise<T> {
    const prev = this.enter(phase);
    try {
      return await work;
    } finally {
      this.enter(prev);
    }
  }

  /** The items of `items`, the time spent waiting for each attributed to `phase`. */
  async *phaseOf<T>(phase: Phase | 'assemble', items: AsyncIterable<T>): AsyncGenerator<T> {
    const it = items[Symbol.asyncIterator]();
    try {
      for (;;) {
        const r = await this.during(phase, it.next());
        if (r.done) return;
        yield r.value;
      }
    } finally {
      await it.return?.(undefined);
    }
  }

  stop(): void {
    this.enter('other');
  }
}

export class RunContext {
  readonly stats: RunStats;
  readonly clock: PhaseClock;
  /** The run's progress counters, one per phase (see run-progress.ts). */
  readonly progress: RunProgress;
  readonly limits: RunLimits;
  private readonly peak: PeakTracker;
  /** The buffer every spill merge of the run writes into (released when the run ends). */
  private readonly merge: MergeBuffer;
  private readonly started = performance.now();
  private runDirPromise: Promise<RunDir> | null = null;
  private readonly writers = new Set<SpillWriter>();
  private loansOut = 0;
  /** Bytes of the loans out (their buffers' sizes). */
  private lentBytes = 0;
  private loanReturned: Array<() => void> = [];
  /** Consumers that can give memory back by spilling what they keep (see `relief`). */
  private readonly reliefs = new Set<() => Promise<number>>();
  private readonly onAbort = (): void => this.wakeLoanWaiters();
  /** Bytes of the shared buffers the workers wrote that leave with the result (direct outputs). */
  private sharedOutBytes = 0;

  constructor(
    readonly config: EngineConfig,
    readonly executor: Executor,
    readonly signal: AbortSignal | undefined,
    /** The engine's budget and its reusable shared buffers (never handed to the user). */
    readonly budget: MemoryBudget,
    readonly pool: BufferPool,
  ) {
    this.peak = budget.trackPeak();
    this.merge = new MergeBuffer(budget);
    this.limits = runLimits(budget.limit, this.concurrency);
    // An abort wakes tasks waiting for loans, which then see it (removed when the run ends:
    // the engine's close signal outlives every run).
    signal?.addEventListener('abort', this.onAbort, { once: true });
    this.stats = {
      rowsIn: 0,
      rowsOut: 0,
      threads: config.threads,
      partitions: config.partitions,
      spilledBytes: 0,
      spillFiles: 0,
      peakTrackedBytes: 0,
      overflowBytes: 0,
      wallMs: 0,
      phases: {},
      cpuMs: {},
    };
    this.clock = new PhaseClock(this.stats.phases);
    this.progress = new RunProgress(config.onProgress);
  }

  /** Tasks in flight at once: one per thread (the main thread for threads: 0). */
  get concurrency(): number {
    return Math.max(1, this.config.threads);
  }

  /**
   * Whether a stream may hold one more item than there are threads (src/coordinator/scheduler
   * orderedMapAhead): each item in flight (its loans, then its result) takes up to a task's
   * share, and concurrency + 2 shares must leave a fifth of the budget (two threads or more).
   */
  get roomAhead(): boolean {
    return (this.concurrency + 2) * this.limits.taskBytes <= 0.8 * this.budget.limit;
  }

  async task<T extends Task>(task: T): Promise<Done<ResultOf<T>>> {
    this.checkAbort();
    const done: Done<ResultOf<T>> = await this.executor.run<ResultOf<T>>(task, this.signal);
    this.stats.cpuMs[task.kind] = (this.stats.cpuMs[task.kind] ?? 0) + done.ms;
    return done;
  }

  checkAbort(): void {
    if (this.signal?.aborted) throw new AbortError();
  }

  /**
   * Reserves pooled buffers of these sizes for one task, all or none, waiting while other
   * loans are out; MEMORY_EXHAUSTED when they cannot fit even with no other loan out.
   * `kept`: the indexes of loans that may be handed over (kept past the task, e.g. routed
   * rows an exchange keeps): those get a buffer about their size; the others, given back when
   * the task ends, may reuse a free buffer up to twice their size (no fresh pages to touch).
   */
  async loans(name: string, sizes: number[], kept: readonly number[] = []): Promise<Loan[]> {
    const total = sizes.reduce((s, b) => s + b, 0);
    // More than the whole budget can never be lent (as reserved: pooled buffers come in sizes a
    // little above the request): say so before any waiting or spilling.
    if (sizes.reduce((s, b) => s + bufferSize(b), 0) > this.budget.limit) {
      // The task runs alone, next to what spillable consumers may still hold: twice its need.
      throw budgetTooSmall(this.budget.limit, Math.ceil((2 * total) / 2 ** 20) * 2 ** 20, `one ${name} task needs ${formatBytes(total)} of working memory`);
    }
    // A task above its share (a partition bigger than planned) waits to run alone.
    const alone = total > this.limits.taskBytes;
    for (;;) {
      this.checkAbort();
      const got = alone && this.loansOut > 0 ? null : (this.tryLoans(name, sizes, kept, false) ?? this.tryLoans(name, sizes, kept, true));
      if (got) return got;
      if (this.loansOut === 0) {
        // Nothing will come back by itself: spillable consumers give memory back first.
        if ((await this.relieve()) > 0) continue;
        const late = this.tryLoans(name, sizes, kept, true);
        if (late) return late;
        // Nothing can be given back: report what holds the budget.
        const r = this.budget.reserve(name);
        try {
          r.grow(sizes.reduce((s, b) => s + bufferSize(b), 0));
        } finally {
          r.free();
        }
        throw new ExecutionError('MEMORY_EXHAUSTED', `internal: ${name} loans of ${formatBytes(total)} did not fit although the budget had room`);
      }
      await this.loanReturn();
    }
  }

  /**
   * Registers a consumer that can spill what it keeps to give memory back, for as long as it
   * can (e.g. an exchange while rows still come in); returns the function that unregisters it.
   * `spill` resolves to the bytes it freed.
   */
  relief(spill: () => Promise<number>): () => void {
    this.reliefs.add(spill);
    return () => this.reliefs.delete(spill);
  }

  private async relieve(): Promise<number> {
    let freed = 0;
    for (const spill of [...this.reliefs]) freed += await spill();
    return freed;
  }

  /**
   * Waits until `bytes` could be reserved (cached pool buffers are evicted for it), or until no
   * loan is out (nothing more will come back): a reader's admission before it reads a batch.
   */
  async roomFor(bytes: number): Promise<void> {
    for (;;) {
      this.checkAbort();
      if (this.budget.free >= bytes || this.loansOut === 0) return;
      await this.loanReturn();
    }
  }

  private tryLoans(name: string, sizes: number[], kept: readonly number[], exact: boolean): Loan[] | null {
    // All or none, and a failed attempt is undone quietly: it was never a loan, so giving its
    // buffers back must not wake other waiters (two waiters would wake each other forever).
    const taken: Array<{ reservation: Reservation; buffer: SharedArrayBuffer; keepable: boolean }> = [];
    for (let i = 0; i < sizes.length; i++) {
      const keepable = kept.includes(i);
      const reservation = this.budget.reserve(name);
      const buffer = this.pool.tryTake(reservation, sizes[i]!, exact ? 'exact' : keepable ? 'near' : 'brief');
      if (!buffer) {
        reservation.free();
        for (const t of taken) {
          this.pool.give(t.reservation, t.buffer);
          t.reservation.free();
        }
        return null;
      }
      taken.push({ reservation, buffer, keepable });
    }
    return taken.map(({ reservation, buffer, keepable }) => this.lend(name, reservation, buffer, keepable));
  }

  /**
   * Bytes a spillable consumer must leave free when it grows: the headroom, less the loans
   * already out (they are what the headroom is kept for, and their bytes are in use already).
   * `handedOver`: bytes of a loan about to become the consumer's own (an exchange keeping a
   * task's routing buffer): they leave the loans and join the spillable data, so they must not
   * count as lent, or spillable data would pass limit - headroom by them.
   */
  spillableLeave(handedOver = 0, headroom = this.limits.headroom): number {
    return Math.max(0, headroom - (this.lentBytes - handedOver));
  }

  private lend(name: string, reservation: Reservation, buffer: SharedArrayBuffer, keepable: boolean): Loan {
    this.loansOut++;
    this.lentBytes += buffer.byteLength;
    let out = true;
    const end = (): void => {
      out = false;
      reservation.free();
      this.loansOut--;
      this.lentBytes -= buffer.byteLength;
      this.wakeLoanWaiters();
    };
    return {
      buffer,
      release: () => {
        if (!out) return;
        this.pool.give(reservation, buffer);
        end();
      },
      handOver: (owner) => {
        if (!out) throw new ExecutionError('INTERNAL', `internal: a ${name} loan was handed over after its release`);
        // A brief loan may be a buffer twice its size: kept, that would hold idle budget.
        if (!keepable) throw new ExecutionError('INTERNAL', `internal: a ${name} loan not lent as kept was handed over`);
        reservation.moveTo(owner, buffer.byteLength);
        end();
        return buffer;
      },
    };
  }

  /** Resolves at the next loan's return (or an abort). */
  private loanReturn(): Promise<void> {
    return new Promise<void>((resolve) => this.loanReturned.push(resolve));
  }

  private wakeLoanWaiters(): void {
    const waiting = this.loanReturned;
    this.loanReturned = [];
    for (const w of waiting) w();
  }

  runDir(): Promise<RunDir> {
    this.runDirPromise ??= createRunDir(this.config.spillDir);
    return this.runDirPromise;
  }

  /** Spill writers register here, so every handle is closed when the run ends, however it ends. */
  track(writer: SpillWriter): void {
    this.writers.add(writer);
  }

  untrack(writer: SpillWriter): void {
    this.writers.delete(writer);
  }

  /** The action handed `rows` more output rows to its consumer (a file writer, the table, the stream). */
  delivered(rows: number): void {
    this.stats.rowsOut += rows;
    this.progress.add('write', rows);
  }

  /** Bytes went to disk: the `spill` bar counts bytes spilled so far (no total: spills are not planned). */
  spilled(bytes: number, newFile: boolean): void {
    this.stats.spilledBytes += bytes;
    if (newFile) this.stats.spillFiles++;
    this.config.onProgress?.({ phase: 'spill', done: this.stats.spilledBytes, total: 0 });
  }

  /**
   * The most a task's loans (together at most limits.taskBytes, their LOAN_SLACK included)
   * reserve: pooled buffers come in sizes up to 1/16 above the request, a grain at least
   * (bufferSize).
   */
  maxTaskLoans(): number {
    return Math.ceil((this.limits.taskBytes * 17) / 16) + MAX_TASK_LOANS * GRAIN;
  }

  /**
   * What an Exchange needs from the run. `headroom`: what it leaves free for loans, when its
   * stage knows its tasks need less than the run's; never below what one task's loans reserve
   * (maxTaskLoans), so any one task still gets its loans once the others are back: after its
   * input ends an exchange cannot spill, and a loan that cannot fit then is MEMORY_EXHAUSTED.
   */
  exchangeEnv(headroom = this.limits.headroom): ExchangeEnv {
    const leaveFree = Math.min(this.limits.headroom, Math.max(headroom, this.maxTaskLoans()));
    return {
      budget: this.budget,
      pool: this.pool,
      leave: (handedOver) => this.spillableLeave(handedOver, leaveFree),
      pieceBytes: Math.max(1, Math.floor(this.limits.taskBytes / 8)),
      runDir: () => this.runDir(),
      track: (w) => this.track(w),
      untrack: (w) => this.untrack(w),
      spilled: (bytes, newFile) => this.spilled(bytes, newFile),
      merge: this.merge,
    };
  }

  /**
   * Shared buffers the workers write leave the run with its result: when it ends, the workers
   * are asked to collect their views of them, so the caller's letting the result go frees them.
   */
  handsOutShared(bytes: number): void {
    this.sharedOutBytes += bytes;
  }

  /** Ends the run: spill handles closed, spill folder removed, stats finalized. Never throws. */
  async close(): Promise<void> {
    if (this.sharedOutBytes > 0) this.executor.collectShared(this.sharedOutBytes >= FULL_COLLECT_BYTES);
    this.signal?.removeEventListener('abort', this.onAbort);
    this.clock.stop();
    this.stats.wallMs = performance.now() - this.started;
    this.stats.peakTrackedBytes = Math.max(this.stats.peakTrackedBytes, this.peak.peak);
    this.peak.stop();
    this.merge.release();
    for (const w of this.writers) await w.discard();
    this.writers.clear();
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

/** The smallest budget a plan can run in (see Engine): a typed error before any row is read. */
export function budgetTooSmall(budget: number, minimum: number, why: string): PlanError {
  return new PlanError(
    'MEMORY_BUDGET_TOO_SMALL',
    `The memory budget of ${formatBytes(budget)} is smaller than this plan's minimum working set of ${formatBytes(minimum)} (${why}); raise memoryBudget (--memory-limit) to at least ${formatBytes(minimum)}`,
    { budget, minimum },
  );
}
