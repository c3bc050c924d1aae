/**
 * The thread pool keeps nothing of a task once it has settled: a task's reply (which refers to
 * its routed chunks, and through them to shared buffers) is collectable as soon as the caller
 * drops it. A race against one long-lived "pool lost" promise used to keep every reply for the
 * life of the pool (1 GiB of heap and buffers on a 10M-row window at a 64 MiB budget).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ThreadExecutor } from '../../src/coordinator/pool.js';
import { collect } from '../support/gc.js';


const executor = new ThreadExecutor(2, { url: new URL('../support/reply-worker.mjs', import.meta.url) });
afterAll(() => executor.close());


describe('ThreadExecutor', () => {
  it('holds no reply of a settled task', async () => {
    const refs: WeakRef<object>[] = [];
    for (let i = 0; i < 40; i++) {
      const done = await executor.run<{ payload: string[] }>({ kind: 'fault', mode: 'throw' } /* any task: the test worker replies to all */);
      expect(done.value.payload).toHaveLength(256);
      refs.push(new WeakRef(done.value));
    }
    await collect();
    // The newest reply may still sit in a register or piscina bookkeeping; none of the rest may stay.
    expect(refs.slice(0, -1).filter((r) => r.deref() !== undefined)).toHaveLength(0);
  });
});
