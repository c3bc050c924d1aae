/**
 * ThreadExecutor.collectShared: the collect tasks it queues at a run's end (one a worker) never
 * crowd out the next run's tasks. Runs ending back to back once piled them up past piscina's
 * queue, and the next run's task failed with "Task queue is at limit" (WORKER_DIED).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ThreadExecutor } from '../../src/coordinator/pool.js';

const executor = new ThreadExecutor(2, { url: new URL('../support/reply-worker.mjs', import.meta.url) });
afterAll(() => executor.close());

describe('ThreadExecutor.collectShared', () => {
  it('asked after every run, even many times at once, never fails the tasks that follow', async () => {
    for (let round = 0; round < 20; round++) {
      for (let ask = 0; ask < 3; ask++) executor.collectShared(false);
      // As Sluice's scheduler runs them: one task a thread in flight.
      const replies = await Promise.all([0, 1].map(() => executor.run<{ payload: string[] }>({ kind: 'fault', mode: 'throw' } /* the test worker replies to all */)));
      for (const r of replies) expect(r.value.payload).toHaveLength(256);
    }
  });

  it('tasks queued right after it wait for the collect tasks (two runs on one engine: more tasks than threads)', async () => {
    for (let round = 0; round < 10; round++) {
      executor.collectShared(false);
      // piscina's queue holds threads^2 = 4 tasks: five queued behind two busy collect tasks overflow it.
      const replies = await Promise.all([0, 1, 2, 3, 4].map(() => executor.run<{ payload: string[] }>({ kind: 'fault', mode: 'throw' })));
      expect(replies).toHaveLength(5);
    }
  });
});

describe('ThreadExecutor.collectShared when the workers die running the collect tasks', () => {
  it('the next task still runs (on the workers started again), not waiting forever', async () => {
    const dying = new ThreadExecutor(2, { url: new URL('../support/collect-exit-worker.mjs', import.meta.url) });
    try {
      dying.collectShared(true);
      const done = await dying.run<{ kind: string }>({ kind: 'fault', mode: 'throw' });
      expect(done.value.kind).toBe('fault');
    } finally {
      await dying.close();
    }
  }, 20_000);
});
