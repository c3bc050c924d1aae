/**
 * Staged direct outputs of a collected run in the engine's pool (src/coordinator/partitioned
 * newStaging, returnStaging): the row positions and the first spare of each width are pooled
 * buffers, a spare becomes a result column, and the staged column left over takes its place in
 * the pool. What must hold: a result the caller keeps is never memory a later run writes (the
 * later runs take exactly those pooled buffers), and every run's results are right (against a
 * naive reference for two columns, and the same job written in place for all of them: several
 * columns of one width, a bool and an int8 sharing width 1); streamed outputs stage as before.
 */
import * as A from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { directStaging } from '../../src/coordinator/partitioned.js';
import { count, Engine, lag, max, sum } from '../../src/index.js';
import { BufferPool } from '../../src/memory/buffer-pool.js';

const ROWS = 40_000;

/** A table whose window results differ from seed to seed in every row. */
function tableOf(seed: number, rows = ROWS): A.Table {
  const k = new Int32Array(rows);
  const t = new Int32Array(rows);
  const v = new BigInt64Array(rows);
  const h = new Int32Array(rows);
  const i8 = new Int8Array(rows);
  const b: Array<boolean | null> = [];
  let x = seed;
  for (let i = 0; i < rows; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    k[i] = x % 37;
    t[i] = i;
    v[i] = BigInt(seed * 1_000_000 + (x % 1000));
    h[i] = seed * 100_000 + (x % 5000);
    i8[i] = ((x >>> 9) % 200) - 100;
    b.push(x % 11 === 0 ? null : ((x >>> 4) & 1) === 1);
  }
  return new A.Table({ k: A.makeVector(k), t: A.makeVector(t), v: A.makeVector(v), h: A.makeVector(h), i8: A.makeVector(i8), b: A.vectorFromArray(b, new A.Bool()) });
}

/** The naive results: per key in t order, s = sum of v over the last 3 rows, p = the previous row's h (NULL first). */
function expected(table: A.Table): { s: bigint[]; p: Array<number | null> } {
  const k = table.getChild('k')!.toArray() as Int32Array;
  const v = table.getChild('v')!.toArray() as BigInt64Array;
  const h = table.getChild('h')!.toArray() as Int32Array;
  const rows = table.numRows;
  const seen = new Map<number, number[]>();
  const s: bigint[] = [];
  const p: Array<number | null> = [];
  for (let i = 0; i < rows; i++) {
    const before = seen.get(k[i]!) ?? [];
    s.push(v[i]! + before.slice(-2).reduce((a, j) => a + v[j]!, 0n));
    p.push(before.length > 0 ? h[before[before.length - 1]!]! : null);
    before.push(i);
    seen.set(k[i]!, before);
  }
  return { s, p };
}

// Several columns of one width (s, c, m, s2: 8 bytes), one of 4 (p), and a bool sharing width 1 with an int8.
const columns = { s: sum('v').rows(2), p: lag('h'), c: count('v').rows(3), m: max('v').rows(4), pb: lag('b'), p8: lag('i8'), s2: sum('h').rows(1) };
const names = Object.keys(columns);
const snapshot = (table: A.Table): Array<Array<string | null>> => names.map((n) => [...table.getChild(n)!].map((x) => (x === null ? null : String(x))));

/** The same job with outputs written in place (no staging), on an engine of its own. */
async function unstaged(input: A.Table, threads: number): Promise<Array<Array<string | null>>> {
  const minRows = directStaging.minRows;
  directStaging.minRows = Infinity;
  const engine = new Engine({ threads, partitions: 5 });
  try {
    const { table, stats } = await engine.fromArrow(input).window({ partitionBy: 'k', orderBy: 't', columns }).execute();
    expect(stats.cpuMs.interleave).toBeUndefined();
    return snapshot(table);
  } finally {
    directStaging.minRows = minRows;
    await engine.close();
  }
}
const resultOf = (table: A.Table) => ({ s: [...(table.getChild('s')!.toArray() as BigInt64Array)], p: table.getChild('p')!.toArray() as unknown });

describe('pooled staging of collected direct outputs', () => {
  const minRows = directStaging.minRows;
  beforeAll(() => void (directStaging.minRows = 0));
  afterAll(() => void (directStaging.minRows = minRows));

  for (const threads of [0, 2]) {
    it(`keeps a held result as it was through later runs on other data (threads ${threads})`, async () => {
      const engine = new Engine({ threads, partitions: 5 });
      // Every buffer the pool lends: a result column among them is a pooled spare.
      const lent = new Set<ArrayBufferLike>();
      const tryTake = BufferPool.prototype.tryTake;
      const spy = vi.spyOn(BufferPool.prototype, 'tryTake').mockImplementation(function (this: BufferPool, ...args: Parameters<BufferPool['tryTake']>) {
        const b = tryTake.apply(this, args);
        if (b) lent.add(b);
        return b;
      });
      try {
        const held: Array<{ table: A.Table; copy: { s: bigint[]; p: Array<number | null> }; all: Array<Array<string | null>> }> = [];
        for (let seed = 1; seed <= 4; seed++) {
          const input = tableOf(seed);
          const { table, stats } = await engine.fromArrow(input).window({ partitionBy: 'k', orderBy: 't', columns }).execute();
          // staged (and so interleaved), or the test proves nothing
          expect(stats.cpuMs.interleave).toBeDefined();
          const want = expected(input);
          expect(resultOf(table).s).toEqual(want.s);
          expect([...table.getChild('p')!].map((x) => (x === null ? null : Number(x)))).toEqual(want.p);
          const all = snapshot(table);
          expect(all).toEqual(await unstaged(input, threads));
          held.push({ table, copy: want, all });
        }
        // Every earlier result is still its own: no later run wrote into its columns.
        for (const { table, copy, all } of held) {
          expect(resultOf(table).s).toEqual(copy.s);
          expect([...table.getChild('p')!].map((x) => (x === null ? null : Number(x)))).toEqual(copy.p);
          expect(snapshot(table)).toEqual(all);
        }
        // The result columns of different runs never share memory.
        const buffers = held.flatMap(({ table }) => names.flatMap((c) => table.getChild(c)!.data.map((d) => d.values.buffer)));
        expect(new Set(buffers).size).toBe(buffers.length);
        // ... and each run from the first put one pooled spare into its result (not tested vacuously).
        for (const { table } of held) expect(names.some((c) => lent.has(table.getChild(c)!.data[0]!.values.buffer))).toBe(true);
      } finally {
        spy.mockRestore();
        await engine.close();
      }
    });

    it(`clears what a smaller result leaves of a pooled buffer (threads ${threads})`, async () => {
      const engine = new Engine({ threads, partitions: 5 });
      try {
        const held: A.Table[] = [];
        // Each run smaller than the last by less than an eighth: its spares are the last run's leftovers, a little big.
        for (const n of [ROWS, ROWS - 3000, ROWS - 6000]) {
          const input = tableOf(n, n);
          const { table } = await engine.fromArrow(input).window({ partitionBy: 'k', orderBy: 't', columns }).execute();
          expect(snapshot(table)).toEqual(await unstaged(input, threads));
          held.push(table);
        }
        let bigger = 0;
        for (const table of held) {
          for (const c of names) {
            const values = table.getChild(c)!.data[0]!.values as Uint8Array;
            const end = values.byteOffset + values.byteLength;
            if (values.buffer.byteLength - end >= 8) bigger++;
            expect(new Uint8Array(values.buffer, end).every((x) => x === 0), c).toBe(true);
          }
        }
        expect(bigger).toBeGreaterThan(0);
      } finally {
        await engine.close();
      }
    });

    it(`stages outputs that are not collected (a stream) as before, run after run (threads ${threads})`, async () => {
      const input = tableOf(3);
      const want = await unstaged(input, threads);
      const engine = new Engine({ threads, partitions: 5 });
      try {
        for (let run = 0; run < 2; run++) {
          const stream = engine.fromArrow(input).window({ partitionBy: 'k', orderBy: 't', columns }).stream();
          const batches: A.RecordBatch[] = [];
          for await (const batch of stream) batches.push(batch);
          expect(stream.stats!.cpuMs.interleave).toBeDefined();
          expect(snapshot(new A.Table(batches))).toEqual(want);
        }
      } finally {
        await engine.close();
      }
    });
  }
});
