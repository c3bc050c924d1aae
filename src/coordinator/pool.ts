/**
 * The executor that runs tasks: a piscina pool of worker threads, or the same task code
 * inline on the main thread for `threads: 0`. Replies are envelopes: a typed error thrown in
 * a worker is rebuilt here (classes do not survive the thread boundary); a worker that dies
 * becomes a WorkerError; an aborted task an AbortError.
 */
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { AbortError, fromEnvelope, SluiceError, WorkerError } from '../errors.js';
import type { Done, Task, TaskReply } from '../types/tasks.js';

export interface Executor {
  readonly threads: number;
  run<T>(task: Task, signal?: AbortSignal): Promise<Done<T>>;
  close(): Promise<void>;
}

type Dispatch = (task: Task) => Promise<TaskReply<unknown>>;

/** The worker entry next to this build: .js in dist, .ts under tsx/vitest. */
function workerEntry(): { url: URL; execArgv: string[] } {
  const fromTs = import.meta.url.endsWith('.ts');
  const url = new URL(fromTs ? '../worker/entry.ts' : '../worker/entry.js', import.meta.url);
  // Workers inherit the process's flags (e.g. --cpu-prof); from sources they also need tsx.
  return { url, execArgv: fromTs ? [...process.execArgv, '--import', 'tsx'] : process.execArgv };
}

function unwrap<T>(reply: TaskReply<unknown>): Done<T> {
  if (reply.ok) return { value: reply.value as T, ms: reply.ms, scratch: reply.scratch };
  throw fromEnvelope(reply.error);
}

export class ThreadExecutor implements Executor {
  readonly threads: number;
  private pool: Piscina | null;
  constructor(threads: number) {
    this.threads = threads;
    const { url, execArgv } = workerEntry();
    this.pool = new Piscina({
      filename: fileURLToPath(url),
      minThreads: threads,
      maxThreads: threads,
      idleTimeout: Infinity,
      // Tasks are queued by Sluice's own scheduler; piscina's queue only holds what is in flight.
      maxQueue: 'auto',
      execArgv,
    });
    // A worker that dies outside a task must not crash the process; the task that was running reports it.
    this.pool.on('error', () => {});
  }

  async run<T>(task: Task, signal?: AbortSignal): Promise<Done<T>> {
    if (!this.pool) throw new SluiceError('ENGINE_CLOSED', 'The engine is closed');
    if (signal?.aborted) throw new AbortError();
    let reply: TaskReply<unknown>;
    try {
      reply = (await this.pool.run(task, { signal: signal ?? null })) as TaskReply<unknown>;
    } catch (err) {
      if (signal?.aborted) throw new AbortError('The run was aborted', {}, { cause: err });
      const e = err as Error;
      throw new WorkerError('WORKER_DIED', `A worker thread failed while running a ${task.kind} task: ${e?.message ?? String(err)}`, {}, { cause: err });
    }
    return unwrap<T>(reply);
  }

  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = null;
    if (pool) await pool.destroy();
  }
}

/** threads: 0 — the same task code, on the main thread. */
export class InlineExecutor implements Executor {
  readonly threads = 0;
  private dispatch: Promise<Dispatch> | null = null;
  private closed = false;

  async run<T>(task: Task, signal?: AbortSignal): Promise<Done<T>> {
    if (this.closed) throw new SluiceError('ENGINE_CLOSED', 'The engine is closed');
    if (signal?.aborted) throw new AbortError();
    this.dispatch ??= import(workerEntry().url.href).then((m: { default: Dispatch }) => m.default);
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

  async close(): Promise<void> {
    this.closed = true;
  }
}

export function createExecutor(threads: number): Executor {
  return threads === 0 ? new InlineExecutor() : new ThreadExecutor(threads);
}
