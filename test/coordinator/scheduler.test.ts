/** The scheduler never hangs: a failing job with more queued, and a consumer that stops early. */
import { describe, expect, it } from 'vitest';
import { orderedMap, runAll } from '../../src/coordinator/scheduler.js';

const tick = () => new Promise((r) => setTimeout(r, 1));

describe('runAll', () => {
  it('rejects with the first failure while later jobs are still queued, and runs no more jobs', async () => {
    let started = 0;
    const jobs = Array.from({ length: 10 }, (_, i) => async () => {
      started++;
      await tick();
      if (i === 1) throw new Error('boom');
      return i;
    });
    await expect(runAll(jobs, 1)).rejects.toThrow('boom');
    expect(started).toBe(2);
  });

  it('returns results in job order', async () => {
    const jobs = [30, 1, 10].map((ms, i) => () => new Promise<number>((r) => setTimeout(() => r(i), ms)));
    expect(await runAll(jobs, 3)).toEqual([0, 1, 2]);
  });
});

describe('orderedMap', () => {
  it('yields in input order and settles everything when the consumer stops early', async () => {
    async function* input() {
      for (let i = 0; i < 20; i++) yield i;
    }
    let calls = 0;
    const out: number[] = [];
    for await (const v of orderedMap(input(), async (x) => {
      calls++;
      await new Promise((r) => setTimeout(r, (x * 7) % 5));
      return x * 2;
    }, 2)) {
      out.push(v);
      if (out.length === 3) break;
    }
    expect(out).toEqual([0, 2, 4]);
    expect(calls).toBeLessThan(20);
  });
});
