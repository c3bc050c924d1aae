/**
 * Workers copy a group's small results to the main thread and move big ones (and every one
 * after their first move: src/worker/entry COPY_RESULTS_UP_TO). One engine runs group-bys on
 * both sides of the threshold in turn (small: copied; big, over 4 MiB a task: moved; small
 * again: moved), and every result must equal a plain count per key.
 */
import * as A from 'apache-arrow';
import { afterAll, describe, expect, it } from 'vitest';
import { count, Engine, sum } from '../../src/index.js';

const engine = new Engine({ threads: 2, partitions: 4 });
afterAll(() => engine.close());

function table(rows: number, keys: number): A.Table {
  const k = new BigInt64Array(rows);
  const v = new Int32Array(rows);
  for (let i = 0; i < rows; i++) {
    k[i] = BigInt((i * 7919) % keys);
    v[i] = i % 13;
  }
  return new A.Table({ k: A.makeVector(k), v: A.makeVector(v) });
}

async function check(rows: number, keys: number): Promise<void> {
  const out = await engine.fromArrow(table(rows, keys)).groupBy('k').agg({ n: count(), s: sum('v') }).collect();
  expect(out.numRows).toBe(keys);
  const n = new Map<bigint, bigint>();
  const s = new Map<bigint, bigint>();
  for (let i = 0; i < rows; i++) {
    const key = BigInt((i * 7919) % keys);
    n.set(key, (n.get(key) ?? 0n) + 1n);
    s.set(key, (s.get(key) ?? 0n) + BigInt(i % 13));
  }
  const ks = out.getChild('k')!.toArray() as BigInt64Array;
  const ns = out.getChild('n')!.toArray() as BigInt64Array;
  const ss = out.getChild('s')!.toArray() as BigInt64Array;
  // Groups in order of first appearance: rows 0 .. keys-1 hold every key once, in that order.
  for (let g = 0; g < keys; g++) {
    const key = BigInt((g * 7919) % keys);
    expect(ks[g]).toBe(key);
    expect(ns[g]).toBe(n.get(key));
    expect(ss[g]).toBe(s.get(key));
  }
}

describe('group results copied or moved from the workers', () => {
  it('small (copied), big (moved), then small again: every result exact', async () => {
    await check(20_000, 1_000);
    await check(1_200_000, 600_000);
    await check(20_000, 1_000);
  });
});
