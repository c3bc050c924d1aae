/**
 * Bounded in-flight work on top of p-queue: an ordered parallel map for streams (row-local
 * stages) and a fail-fast "run all" for partition tasks. On error or early exit nothing is
 * left running: queued jobs turn into no-ops and in-flight work is awaited before returning.
 * (p-queue's clear() would drop queued jobs without settling their promises: never use it
 * while someone awaits them.)
 */
import PQueue from 'p-queue';
import { AbortError } from '../errors.js';

/** Maps a stream with `concurrency` calls in flight, yielding results in input order. */
export async function* orderedMap<I, O>(
  inputs: AsyncIterable<I>,
  fn: (item: I, index: number) => Promise<O>,
  concurrency: number,
): AsyncGenerator<O> {
  const queue = new PQueue({ concurrency: Math.max(1, concurrency) });
  const pending: Array<Promise<O>> = [];
  // One result waiting per thread at most: memory stays a few batches whatever the input size.
  const window = Math.max(2, concurrency + 1);
  let index = 0;
  let stopped = false;
  try {
    for await (const item of inputs) {
      const i = index++;
      const p = queue.add(async () => (stopped ? (undefined as O) : fn(item, i))) as Promise<O>;
      p.catch(() => {}); // observed when it reaches the head
      pending.push(p);
      while (pending.length >= window) yield await pending.shift()!;
    }
    while (pending.length > 0) yield await pending.shift()!;
  } finally {
    stopped = true;
    await Promise.allSettled(pending);
  }
}

/** Runs a task in the lane of orderedMapAhead: at most its `concurrency` such tasks at once. */
export type TaskLane = <T>(task: () => Promise<T>) => Promise<T>;

/** What a task queued behind a failed one throws instead of running (never seen: the failure is earlier in order). */
class SkippedAfterFailure extends Error {}

/**
 * orderedMap whose items are made ready one ahead: `fn` runs for up to concurrency + 1 items at
 * once, and each runs its task through `lane`, which lets `concurrency` tasks run at a time. The
 * coordinator's share of an item (its loans, the copy of its rows into shared memory) is done
 * while the tasks before it run, so a thread that finishes a task finds the next one waiting;
 * with orderedMap's `concurrency` calls it waited for that copy (a broadcast join's 512k-row
 * slice, ~4-8 ms, twenty times a run). A task that fails stops the tasks queued in the lane
 * behind it (they throw, after it in order, so its error is the one seen). `ahead` false: no
 * item made ready ahead (orderedMap's own `concurrency`), for a budget with no room for one
 * more item's memory (RunContext.roomAhead).
 */
export function orderedMapAhead<I, O>(
  inputs: AsyncIterable<I>,
  fn: (item: I, lane: TaskLane, index: number) => Promise<O>,
  concurrency: number,
  ahead = true,
): AsyncGenerator<O> {
  const running = new PQueue({ concurrency: Math.max(1, concurrency) });
  let failed = false;
  const lane: TaskLane = <T>(task: () => Promise<T>): Promise<T> =>
    running.add(async () => {
      if (failed) throw new SkippedAfterFailure('skipped: a task before this one failed');
      try {
        return await task();
      } catch (err) {
        failed = true;
        throw err;
      }
    }) as Promise<T>;
  return orderedMap(inputs, (item, index) => fn(item, lane, index), Math.max(1, concurrency) + (ahead ? 1 : 0));
}

interface Failure {
  err: unknown;
  index: number;
  abort: boolean;
}

/**
 * Runs every job with at most `concurrency` in flight; the first failure stops the rest (jobs
 * not started yet do nothing) and, once the jobs in flight have settled, the failure of the
 * lowest-index job is thrown: jobs start in index order, so that is the same error whichever
 * thread finished first (an abort counts only when nothing else failed).
 */
export async function runAll<T>(jobs: Array<() => Promise<T>>, concurrency: number, onDone?: (done: number) => void): Promise<T[]> {
  const queue = new PQueue({ concurrency: Math.max(1, concurrency) });
  const results = new Array<T>(jobs.length);
  const failed: { first: Failure | null } = { first: null };
  let done = 0;
  const all = jobs.map((job, i) =>
    queue.add(async () => {
      if (failed.first) return;
      try {
        results[i] = await job();
        onDone?.(++done);
      } catch (err) {
        // Recorded before the queue starts the next job, which then does nothing.
        const abort = err instanceof AbortError;
        // (read again: the check at the start is from before the job awaited)
        const f = failed.first as Failure | null;
        if (f === null || (f.abort && !abort) || (f.abort === abort && i < f.index)) failed.first = { err, index: i, abort };
      }
    }),
  );
  await Promise.all(all);
  if (failed.first) throw failed.first.err;
  return results;
}
