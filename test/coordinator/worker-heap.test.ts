/**
 * Under a tight memory budget each worker's old generation is capped (workerOldGenerationMb):
 * V8 then lets it grow by less past what its last full collection kept (a 100M-row window at a
 * 64 MiB budget swung 26-105 MiB a worker uncapped, 22-29 capped). Other budgets keep V8's own.
 */
import { getHeapStatistics } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { ThreadExecutor, workerOldGenerationMb } from '../../src/coordinator/pool.js';

const MiB = 2 ** 20;
const url = new URL('../support/heap-limit-worker.mjs', import.meta.url);

async function heapLimitOf(oldGenerationMb: number | undefined): Promise<number> {
  const executor = new ThreadExecutor(1, { url }, oldGenerationMb);
  try {
    const done = await executor.run<{ heapSizeLimit: number }>({ kind: 'fault', mode: 'throw' } /* the test worker replies to all */);
    return done.value.heapSizeLimit;
  } finally {
    await executor.close();
  }
}

describe('workers under a tight budget', () => {
  it('tight budgets cap the old generation; the default budget and none do not', () => {
    const bigHost = 4096;
    expect(workerOldGenerationMb(64 * MiB, bigHost)).toBe(1024);
    expect(workerOldGenerationMb(512 * MiB, bigHost)).toBe(1024);
    expect(workerOldGenerationMb(1024 * MiB, bigHost)).toBeUndefined();
    expect(workerOldGenerationMb(Infinity, bigHost)).toBeUndefined();
  });

  it("never raises a small host's default", () => {
    expect(workerOldGenerationMb(64 * MiB, 1024)).toBeUndefined();
    expect(workerOldGenerationMb(64 * MiB, 512)).toBeUndefined();
  });

  // A host --max-old-space-size takes precedence over resourceLimits, and a host whose default is
  // no bigger than the cap gets none: only on a host with a larger default does the cap show.
  const hostFlag = /max[-_]old[-_]space[-_]size/.test(`${process.execArgv.join(' ')} ${process.env.NODE_OPTIONS ?? ''}`);
  const largeDefault = getHeapStatistics().heap_size_limit > 1200 * MiB;
  it.skipIf(hostFlag || !largeDefault)("the cap reaches the worker's isolate", async () => {
    const capped = await heapLimitOf(1024);
    const uncapped = await heapLimitOf(undefined);
    // The heap limit is the old generation's plus the young generation's.
    expect(capped).toBeGreaterThanOrEqual(1024 * MiB);
    expect(capped).toBeLessThan(1200 * MiB);
    expect(uncapped).toBeGreaterThan(capped);
  });
});
