/**
 * Workers copy a group's results to the main thread when they are small enough (RunLimits
 * copyBytes: 48 MiB at most) and move bigger ones, and every one after their first move
 * (src/worker/entry). One engine runs group-bys on both sides of the bound in turn (small:
 * copied; an assembled range of 1M groups of ten 8-byte columns, 84 MB: moved; small again:
 * moved), and every group must be exact.
 */
import * as A from 'apache-arrow';
import { afterAll, describe, expect, it } from 'vitest';
import { count, Engine, first, type WindowFn } from '../../src/index.js';

// A budget big enough that an output range holds 1M groups (taskBytes / 4 passes the 48 MiB cap).
const engine = new Engine({ threads: 2, partitions: 4, memoryBudget: '4GiB' });
afterAll(() => engine.close());

const WIDTH = 8;

/** `rows` rows; row i has key (i * 7919) % keys (rows 0 .. keys-1 hold every key once) and values v_c = key * (c + 1). */
function table(rows: number, keys: number): A.Table {
  const k = new BigInt64Array(rows);
  const vs = Array.from({ length: WIDTH }, () => new BigInt64Array(rows));
  for (let i = 0; i < rows; i++) {
    const key = (i * 7919) % keys;
    k[i] = BigInt(key);
    for (let c = 0; c < WIDTH; c++) vs[c]![i] = BigInt(key * (c + 1));
  }
  return new A.Table({ k: A.makeVector(k), ...Object.fromEntries(vs.map((v, c) => [`v${c}`, A.makeVector(v)])) });
}

async function check(rows: number, keys: number): Promise<void> {
  const aggs: Record<string, WindowFn> = { n: count() };
  for (let c = 0; c < WIDTH; c++) aggs[`f${c}`] = first(`v${c}`);
  const out = await engine.fromArrow(table(rows, keys)).groupBy('k').agg(aggs).collect();
  expect(out.numRows).toBe(keys);
  const ks = out.getChild('k')!.toArray() as BigInt64Array;
  const ns = out.getChild('n')!.toArray() as BigInt64Array;
  const fs = Array.from({ length: WIDTH }, (_, c) => out.getChild(`f${c}`)!.toArray() as BigInt64Array);
  const per = Math.floor(rows / keys);
  for (let g = 0; g < keys; g++) {
    // Groups in order of first appearance: key (g * 7919) % keys first appears at row g.
    const key = (g * 7919) % keys;
    if (ks[g] !== BigInt(key)) expect(ks[g]).toBe(BigInt(key));
    const n = per + (g < rows - per * keys ? 1 : 0);
    if (ns[g] !== BigInt(n)) expect(ns[g]).toBe(BigInt(n));
    for (let c = 0; c < WIDTH; c++) if (fs[c]![g] !== BigInt(key * (c + 1))) expect(fs[c]![g]).toBe(BigInt(key * (c + 1)));
  }
}

describe('group results copied or moved from the workers', () => {
  it('small (copied), big (moved), then small again: every group exact', async () => {
    await check(20_000, 1_000);
    await check(1_100_000, 1_000_000);
    await check(20_000, 1_000);
  });
});
