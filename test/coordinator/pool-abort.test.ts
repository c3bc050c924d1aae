/**
 * An aborted task's run hears of the abort only once the worker running it has stopped: until
 * then the worker may still write the shared buffers it was given, and the run gives those back
 * (to the pool, to the next run) as soon as it hears. (On this platform a terminated worker
 * stopped before piscina's rejection was seen, with or without the wait: the test holds the
 * contract for hosts where it does not.)
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ThreadExecutor } from '../../src/coordinator/pool.js';

const executor = new ThreadExecutor(2, { url: new URL('../support/spin-worker.mjs', import.meta.url) });
afterAll(() => executor.close());

describe('ThreadExecutor abort', () => {
  it('rejects an aborted running task after its worker has exited: its shared memory is not written after', async () => {
    for (let round = 0; round < 5; round++) {
      const counter = new Int32Array(new SharedArrayBuffer(4));
      const controller = new AbortController();
      // Any task shape: the test worker only reads `spin`.
      const task = { kind: 'fault' as const, mode: 'throw' as const, spin: counter.buffer };
      const run = executor.run(task, controller.signal);
      while (Atomics.load(counter, 0) === 0) await new Promise((r) => setTimeout(r, 1));
      controller.abort();
      await expect(run).rejects.toMatchObject({ name: 'AbortError' });
      const at = Atomics.load(counter, 0);
      await new Promise((r) => setTimeout(r, 50));
      expect(Atomics.load(counter, 0)).toBe(at);
    }
  });
});
