/**
 * The scheduler never hangs and never leaves work running (issue 7 item 13): a failing job with
 * more queued, a consumer that stops early and a failing map each return only once every
 * started call has settled (no call still running, none started afterwards), the input stream
 * is closed, at most `concurrency` calls run at once, and results come in input order.
 */
import { describe, expect, it } from 'vitest';
import { orderedMap, orderedMapAhead, runAll } from '../../src/coordinator/scheduler.js';
import { AbortError } from '../../src/errors.js';
import { rejection } from '../support/rejection.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Counts calls started, running now and the most running at once. */
function tracker() {
  const t = {
    started: 0,
    running: 0,
    maxRunning: 0,
    async run<T>(ms: number, body: () => T): Promise<T> {
      t.started++;
      t.running++;
      t.maxRunning = Math.max(t.maxRunning, t.running);
      try {
        await sleep(ms);
        return body();
      } finally {
        t.running--;
      }
    },
  };
  return t;
}

/** A stream of 0..n-1 that records how far it was pulled and whether it was closed. */
function input(n: number) {
  const state = { pulled: 0, closed: false };
  async function* gen() {
    try {
      for (let i = 0; i < n; i++) {
        state.pulled++;
        yield i;
      }
    } finally {
      state.closed = true;
    }
  }
  return { state, items: gen() };
}

describe('runAll', () => {
  it('rejects with the first failure while later jobs are still queued, and runs no more jobs', async () => {
    const t = tracker();
    const jobs = Array.from({ length: 10 }, (_, i) => () =>
      t.run(1, () => {
        if (i === 1) throw new Error('boom');
        return i;
      }),
    );
    await expect(runAll(jobs, 1)).rejects.toThrow('boom');
    expect(t.started).toBe(2);
    await sleep(20);
    expect(t.started).toBe(2);
  });

  it('rejects only after the jobs in flight with the failing one have settled', async () => {
    const t = tracker();
    // Job 0 fails at once while jobs 1 and 2 are still running for much longer.
    const jobs = [0, 30, 40, 5, 5].map((ms, i) => () =>
      t.run(ms, () => {
        if (i === 0) throw new Error('first');
        if (i === 2) throw new Error('second');
        return i;
      }),
    );
    const err = await rejection(runAll(jobs, 3));
    expect((err as Error).message).toBe('first');
    expect(t.running).toBe(0);
    expect(t.started).toBe(3);
    await sleep(60);
    expect(t.started).toBe(3);
  });

  it('throws the failure of the lowest-index job, whichever failed first (a real error before an abort)', async () => {
    // Job 2 fails first; job 1, started before it, fails later: job 1's error is the one thrown.
    const late = [0, 40, 5].map((ms, i) => () =>
      tracker().run(ms, () => {
        if (i > 0) throw new Error(`job ${i}`);
        return i;
      }),
    );
    expect(((await rejection(runAll(late, 3))) as Error).message).toBe('job 1');
    // An abort of a lower job does not hide the error that caused the run to stop.
    const mixed = [30, 5].map((ms, i) => () =>
      tracker().run(ms, () => {
        throw i === 0 ? new AbortError('aborted') : new Error('the cause');
      }),
    );
    expect(((await rejection(runAll(mixed, 2))) as Error).message).toBe('the cause');
  });

  it('returns results in job order with at most `concurrency` jobs running, reporting each completion', async () => {
    const t = tracker();
    const delays = [30, 1, 10, 5, 20, 1, 15, 2];
    const jobs = delays.map((ms, i) => () => t.run(ms, () => i * 10));
    const done: number[] = [];
    expect(await runAll(jobs, 3, (n) => done.push(n))).toEqual(delays.map((_, i) => i * 10));
    expect(t.maxRunning).toBe(3);
    expect(t.running).toBe(0);
    expect(done).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });
});

describe('orderedMap', () => {
  /** An input of n items that records how far it was read and whether it was closed. */

  it('yields in input order and settles everything when the consumer stops early', async () => {
    const t = tracker();
    const { state, items } = input(20);
    const out: number[] = [];
    for await (const v of orderedMap(items, (x) => t.run((x * 7) % 5, () => x * 2), 2)) {
      out.push(v);
      if (out.length === 3) break;
    }
    // The break returned only after every started call finished, and closed the input.
    expect(out).toEqual([0, 2, 4]);
    expect(t.running).toBe(0);
    expect(state.closed).toBe(true);
    expect(t.started).toBeLessThan(20);
    expect(t.maxRunning).toBeLessThanOrEqual(2);
    const started = t.started;
    await sleep(20);
    expect(t.started).toBe(started);
    expect(state.pulled).toBeLessThan(20);
  });

  it('yields every result in input order whatever order the calls finish in', async () => {
    const t = tracker();
    const { state, items } = input(30);
    const out: number[] = [];
    for await (const v of orderedMap(items, (x, i) => t.run((x * 13) % 7, () => [x, i]), 3)) out.push(...v);
    expect(out).toEqual(Array.from({ length: 30 }, (_, i) => [i, i]).flat());
    expect(t.started).toBe(30);
    expect(t.maxRunning).toBe(3);
    expect(state.closed).toBe(true);
  });

  it('a failing call rejects the stream after the calls in flight settle, and closes the input', async () => {
    const t = tracker();
    const { state, items } = input(20);
    const out: number[] = [];
    const consume = async () => {
      for await (const v of orderedMap(
        items,
        (x) =>
          t.run(x === 2 ? 1 : 25, () => {
            if (x === 2) throw new Error('bad item 2');
            return x;
          }),
        3,
      ))
        out.push(v);
    };
    await expect(consume()).rejects.toThrow('bad item 2');
    expect(out).toEqual([0, 1]);
    expect(t.running).toBe(0);
    expect(state.closed).toBe(true);
    const started = t.started;
    await sleep(40);
    expect(t.started).toBe(started);
  });
});

describe('orderedMapAhead', () => {
  it('makes one item ready ahead while `concurrency` tasks run, and yields in input order', async () => {
    const tasks = tracker();
    const prep = tracker();
    const { state, items } = input(12);
    const out: number[] = [];
    let readyWhileFull = 0;
    for await (const v of orderedMapAhead(
      items,
      async (x, lane) => {
        // The item's share before its task: counted when every task lane was busy.
        await prep.run(1, () => {
          if (tasks.running === 2) readyWhileFull++;
        });
        return lane(() => tasks.run(x % 3 === 0 ? 15 : 5, () => x * 10));
      },
      2,
    ))
      out.push(v);
    expect(out).toEqual(Array.from({ length: 12 }, (_, i) => i * 10));
    expect(tasks.maxRunning).toBe(2);
    expect(readyWhileFull).toBeGreaterThan(0);
    expect(state.closed).toBe(true);
  });

  it('without room ahead, prepares no more items than tasks run', async () => {
    const tasks = tracker();
    let inFlight = 0;
    let most = 0;
    const { items } = input(10);
    for await (const _ of orderedMapAhead(
      items,
      async (x, lane) => {
        inFlight++;
        most = Math.max(most, inFlight);
        try {
          return await lane(() => tasks.run(3, () => x));
        } finally {
          inFlight--;
        }
      },
      2,
      false,
    ));
    expect(most).toBe(2);
  });

  it('a failed task stops the tasks queued behind it, and its error is the one seen', async () => {
    const tasks = tracker();
    const { state, items } = input(20);
    const out: number[] = [];
    const consume = async () => {
      for await (const v of orderedMapAhead(
        items,
        (x, lane) =>
          lane(() =>
            tasks.run(x === 1 ? 1 : 20, () => {
              if (x === 1) throw new Error('bad item 1');
              return x;
            }),
          ),
        2,
      ))
        out.push(v);
    };
    await expect(consume()).rejects.toThrow('bad item 1');
    expect(out).toEqual([0]);
    expect(tasks.running).toBe(0);
    expect(state.closed).toBe(true);
    // Items 0 and 1 ran, item 2 was made ready and queued behind 1's failure: it never ran.
    expect(tasks.started).toBe(2);
    await sleep(40);
    expect(tasks.started).toBe(2);
  });
});
