/**
 * The executor that runs tasks: a piscina pool of worker threads, or the same task code
 * inline on the main thread for `threads: 0`. Replies are envelopes: a typed error thrown in
 * a worker is rebuilt here (classes do not survive the thread boundary); a worker that dies
 * becomes a WorkerError; an aborted task an AbortError.
 */
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { getHeapStatistics } from 'node:v8';
import { Piscina } from 'piscina';
import { AbortError, fromEnvelope, WorkerError } from '../errors.js';
import type { Done, Task, TaskReply } from '../types/tasks.js';

export interface Executor {
  readonly threads: number;
  run<T>(task: Task, signal?: AbortSignal): Promise<Done<T>>;
  /**
   * Asks each worker, without waiting, to collect its views of shared buffers (./worker/
   * collect-task): after a run that handed the caller shared memory the workers wrote. `full`:
   * at once (large outputs), not only nudged.
   */
  collectShared(full: boolean): void;
  close(): Promise<void>;
}

type Dispatch = (task: Task) => Promise<TaskReply<unknown>>;

export interface WorkerEntry {
  /** The module piscina loads in each worker; its default export runs a task. */
  url: URL;
  /** undefined: each worker gets the options of the thread that starts it (Node's default). */
  execArgv?: string[];
}

const FROM_SOURCES = import.meta.url.endsWith('.ts');

/** The task dispatcher (src/worker/entry): workers reach it through the loader below; `threads: 0` imports it. */
function dispatchUrl(): URL {
  return new URL(FROM_SOURCES ? '../worker/entry.ts' : '../worker/entry.js', import.meta.url);
}

/**
 * What workers load (src/worker/entry-loader, CommonJS) and their flags.
 *
 * piscina loads a task module with `require()` first. Where Node can `require()` an ES module
 * (20.19+), that loads Sluice's whole module graph synchronously, and a worker terminated in
 * the middle of it (Ctrl-C or an abort as a run starts, a pool closed early) aborts the whole
 * process: "FATAL ERROR: v8::Module::IsGraphAsync ... must be used on an instantiated module"
 * (reproduced: 3 of ~100 pools destroyed 10-250 ms after they start). The loader is a small
 * CommonJS file that `import()`s the dispatcher, a path a termination ends cleanly.
 *
 * Node refuses process-wide flags in a worker's `execArgv` (ERR_WORKER_INVALID_EXEC_ARGV for
 * --max-old-space-size, --expose-gc, --stack-size, --title, ...), so handing workers
 * `process.execArgv` breaks every host started with one. Without `execArgv`, Node gives each
 * worker the options of its parent thread (--cpu-prof, --import, --conditions, ...), and the
 * process-wide flags apply to workers anyway (a worker's heap limit follows
 * --max-old-space-size; `gc` is exposed): nothing to map to piscina's `resourceLimits`. So
 * flags are passed only when running from sources, where each worker needs tsx loaded in its
 * own thread (the CommonJS loader and the `import()` of TypeScript from it): the host's flags
 * that workers accept, plus `--import tsx` if they lack it.
 */
export function workerEntry(): WorkerEntry {
  const url = new URL(FROM_SOURCES ? '../worker/entry-loader.cts' : '../worker/entry-loader.cjs', import.meta.url);
  if (!FROM_SOURCES) return { url };
  const flags = workerFlags(process.execArgv);
  return { url, execArgv: flags.some((a) => /[\\/]tsx[\\/]|^tsx$/.test(a)) ? flags : [...flags, '--import', 'tsx'] };
}

/**
 * The flags of `flags` a worker accepts. Node names the ones it refuses when a Worker is
 * constructed (before any thread starts); a flag it always refuses is added so that the probe
 * never starts a thread. A refused flag's separate value (`--title x`) goes with it.
 */
export function workerFlags(flags: readonly string[]): string[] {
  const MARKER = '--expose-gc';
  let kept = [...flags];
  for (let round = 0; round < 8 && kept.length > 0; round++) {
    let refused: string[];
    try {
      void new Worker('', { eval: true, execArgv: [...kept, MARKER] }).terminate();
      return kept; // not expected: the marker is refused
    } catch (err) {
      const m = /invalid execArgv flags: (.*)$/s.exec((err as Error).message ?? '');
      if ((err as NodeJS.ErrnoException).code !== 'ERR_WORKER_INVALID_EXEC_ARGV' || !m) return [];
      refused = m[1]!.split(', ');
    }
    const next: string[] = [];
    for (let i = 0; i < kept.length; i++) {
      const f = kept[i]!;
      if (!refused.includes(f)) next.push(f);
      else if (!f.includes('=') && kept[i + 1] !== undefined && !kept[i + 1]!.startsWith('-')) i++;
    }
    if (next.length === kept.length) {
      // Only the marker was refused: done. Otherwise the refusal names no flag of ours (e.g.
      // "--cpu-prof-dir must be used with --cpu-prof"): give up on the host's flags.
      return refused.length === 1 && refused[0] === MARKER ? kept : [];
    }
    kept = next;
  }
  return kept;
}

function unwrap<T>(reply: TaskReply<unknown>): Done<T> {
  if (reply.ok) return { value: reply.value as T, ms: reply.ms, scratch: reply.scratch };
  throw fromEnvelope(reply.error);
}

/**
 * A worker's young generation: a worker's garbage is its tasks' Arrow objects and the views of
 * shared buffers it was lent, and a buffer goes back to the system only once every thread that
 * saw it has collected its view. Smaller than V8's default (a worker's new space grew to 16 MiB,
 * 8 with this limit: measured), the workers collect more often and hold less: 30M-row window at
 * 64 MiB, VmHWM 517-526 -> 443-487 MiB, same time (probes, two runs each). A host
 * --max-semi-space-size takes precedence (measured).
 */
const WORKER_YOUNG_GENERATION_MB = 8;

/**
 * A worker's old generation at most under a tight budget (see workerOldGenerationMb), and the
 * budgets that are tight.
 */
const TIGHT_OLD_GENERATION_MB = 1024;
const TIGHT_BUDGET_BYTES = 512 * 2 ** 20;

/**
 * The cap on a worker's old generation for an engine of `budgetBytes` (undefined: V8's own).
 * V8 lets an old generation grow to 4x what its last full collection kept when the heap may
 * reach 2 GB or more (the default on a large host) and by less below (1.3x at 256 MB up to 2x):
 * a worker keeping ~25 MiB (task replies, Arrow objects over shared buffers) swung between 26
 * and 105 MiB of heap in a 100M-row window's output phase at a 64 MiB budget, 22-29 MiB capped
 * at 1 GiB (and that phase no longer set the run's VmHWM). Only tight budgets are capped:
 * capped, explode's workers collected more often and ran 10-15% slower at the default budget.
 * A host whose default (`defaultMb`, the main thread's heap limit, which a worker shares) is no
 * bigger keeps it, and a host --max-old-space-size takes precedence over the cap anyway.
 */
export function workerOldGenerationMb(budgetBytes: number, defaultMb = getHeapStatistics().heap_size_limit / 2 ** 20): number | undefined {
  return budgetBytes <= TIGHT_BUDGET_BYTES && defaultMb > TIGHT_OLD_GENERATION_MB ? TIGHT_OLD_GENERATION_MB : undefined;
}

export class ThreadExecutor implements Executor {
  readonly threads: number;
  private pool: Piscina | null;
  /**
   * The tasks in flight on the current pool, each told (rejected) when the pool has lost every
   * worker and started none again: piscina then keeps queued tasks forever (seen when workers
   * are killed while replacements start up), and the next run starts a new pool. One entry per
   * task, removed when it settles: racing every task against one long-lived promise would add a
   * reaction to it per task, and each would keep its task's reply alive as long as the pool.
   */
  private lostWatchers = new Set<(err: Error) => void>();
  private broken = false;
  /** Starts `threads` workers; any failure to start them is a WorkerError WORKER_START_FAILED. */
  constructor(
    threads: number,
    private readonly entry: WorkerEntry = workerEntry(),
    /** Cap on each worker's old generation (workerOldGenerationMb); undefined: V8's own. */
    private readonly oldGenerationMb?: number,
  ) {
    this.threads = threads;
    this.pool = this.startPool();
  }

  private startPool(): Piscina {
    // A new pool has no collect tasks in flight (the old one's were told it was lost).
    this.collecting = Promise.resolve();
    this.collectAsked = false;
    const threads = this.threads;
    const entry = this.entry;
    let pool: Piscina;
    try {
      pool = new Piscina({
        filename: fileURLToPath(entry.url),
        // Threads beyond the machine's cores start only when tasks wait for them: a small job
        // asked to run on 99 threads does not start 99 isolates (~20 MiB and a few ms each).
        minThreads: Math.min(threads, availableParallelism()),
        maxThreads: threads,
        idleTimeout: Infinity,
        // Tasks are queued by Sluice's own scheduler; piscina's queue only holds what is in flight.
        maxQueue: 'auto',
        resourceLimits: {
          maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB,
          ...(this.oldGenerationMb !== undefined ? { maxOldGenerationSizeMb: this.oldGenerationMb } : {}),
        },
        ...(entry.execArgv !== undefined ? { execArgv: entry.execArgv } : {}),
      });
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      // Node's permission model (--experimental-permission / --permission) refuses threads unless --allow-worker.
      const hint = e?.code === 'ERR_ACCESS_DENIED' ? " (Node's permission model: start node with --allow-worker, or run with threads: 0, --threads 0)" : '';
      throw new WorkerError('WORKER_START_FAILED', `Could not start ${threads} worker thread${threads === 1 ? '' : 's'}: ${e?.code ? `${e.code}: ` : ''}${e?.message ?? String(err)}${hint}`, {}, { cause: err });
    }
    // A worker that dies outside a task must not crash the process; the task that was running reports it.
    pool.on('error', () => {});
    this.broken = false;
    const watchers = new Set<(err: Error) => void>();
    this.lostWatchers = watchers;
    // After a worker exits, give piscina time to start its replacement before calling the pool lost.
    pool.on('workerDestroy', () => {
      setTimeout(() => {
        if (this.pool !== pool || this.broken || pool.threads.length > 0) return;
        this.broken = true;
        const err = new WorkerError('WORKER_DIED', 'Every worker thread exited and none was started again');
        for (const tell of watchers) tell(err);
        watchers.clear();
      }, LOST_POOL_MS).unref();
    });
    return pool;
  }

  async run<T>(task: Task, signal?: AbortSignal): Promise<Done<T>> {
    // Collect tasks asked for while this one waited are waited for too.
    for (let c = this.collecting; ; c = this.collecting) {
      await c;
      if (c === this.collecting) break;
    }
    if (!this.pool) throw new AbortError('The engine was closed');
    if (signal?.aborted) throw new AbortError();
    if (this.broken) {
      // The pool lost its workers (a run failed with WORKER_DIED): this run gets a new one.
      const old = this.pool;
      this.pool = this.startPool();
      void old.destroy().catch(() => {});
    }
    let reply: TaskReply<unknown>;
    const watchers = this.lostWatchers;
    let tell!: (err: Error) => void;
    const lost = new Promise<never>((_, reject) => (tell = reject));
    watchers.add(tell);
    try {
      reply = (await Promise.race([this.pool.run(task, { signal: signal ?? null }), lost])) as TaskReply<unknown>;
    } catch (err) {
      if (signal?.aborted) throw new AbortError('The run was aborted', {}, { cause: err });
      const e = err as Error;
      throw new WorkerError('WORKER_DIED', `A worker thread failed while running a ${task.kind} task: ${e?.message ?? String(err)}`, {}, { cause: err });
    } finally {
      // Nothing refers to `lost` after this: it and its reaction are collected with the task.
      watchers.delete(tell);
    }
    return unwrap<T>(reply);
  }

  collectShared(full: boolean): void {
    const pool = this.pool;
    // Asked again while the workers still collect: they will have collected the views too,
    // unless those tasks only nudge and this ask is for a full collection.
    if (!pool || this.broken || (this.collectAsked && (this.collectingFull || !full))) return;
    // One task a worker: each takes one while the others are busy with theirs (a worker that
    // misses it collects with its next allocations, as before). Tasks wait for them (run):
    // piscina's queue holds only the tasks Sluice's scheduler lets run, one per thread.
    this.collectAsked = true;
    this.collectingFull = full;
    // Told when the pool loses its workers, as every task is (piscina then keeps queued tasks
    // forever, and the runs waiting for these would wait with them).
    const watchers = this.lostWatchers;
    let tell!: (err: Error) => void;
    const lost = new Promise<never>((_, reject) => (tell = reject));
    watchers.add(tell);
    const asks = Array.from({ length: pool.threads.length }, () => Promise.race([pool.run({ kind: 'collect', full } satisfies Task), lost]));
    const collecting = Promise.allSettled(asks).then(() => {
      watchers.delete(tell);
      if (this.collecting === collecting) this.collectAsked = false;
    });
    this.collecting = collecting;
  }

  /** The collect tasks in flight (collectShared), settled before any other task is queued. */
  private collecting: Promise<unknown> = Promise.resolve();
  private collectAsked = false;
  /** The collect tasks in flight collect at once (see collectShared). */
  private collectingFull = false;

  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = null;
    if (!pool) return;
    await pool.destroy();
  }
}

/** How long a pool may have no worker after one exits before its tasks are failed. */
const LOST_POOL_MS = 1000;

/** threads: 0 — the same task code, on the main thread. */
export class InlineExecutor implements Executor {
  readonly threads = 0;
  private dispatch: Promise<Dispatch> | null = null;
  private closed = false;

  async run<T>(task: Task, signal?: AbortSignal): Promise<Done<T>> {
    if (this.closed) throw new AbortError('The engine was closed');
    if (signal?.aborted) throw new AbortError();
    this.dispatch ??= import(dispatchUrl().href).then((m: { default: Dispatch }) => m.default);
    const dispatch = await this.dispatch;
    // One task at a time, as in a worker: tasks reuse the thread's scratch memory, and two
    // runs on one engine could otherwise interleave at a task's awaits.
    const turn = this.tail.then(() => dispatch(task));
    this.tail = turn.then(
      () => undefined,
      () => undefined,
    );
    const reply = await turn;
    if (signal?.aborted) throw new AbortError();
    return unwrap<T>(reply);
  }

  private tail: Promise<unknown> = Promise.resolve();

  collectShared(_full: boolean): void {
    // The main thread collects as the host's code allocates.
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

export function createExecutor(threads: number, memoryBudget: number): Executor {
  return threads === 0 ? new InlineExecutor() : new ThreadExecutor(threads, workerEntry(), workerOldGenerationMb(memoryBudget));
}
