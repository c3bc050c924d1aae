/**
 * A window (and an ASOF join's left side) over Arrow IPC files replays its input by reading the
 * files a second time instead of keeping (or spilling) a copy: the same result as the same rows from memory or Parquet at
 * any budget, and a file that changes between the two reads is an InputError INPUT_CHANGED,
 * not a wrong result.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as A from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine, InputError, sum, type DataFrame } from '../../src/index.js';
import { rng } from '../support/random.js';
import { rebatch } from '../support/tables.js';
import { rejection } from '../support/rejection.js';

const dir = mkdtempSync(join(tmpdir(), 'sluice-reread-'));
const ipc = join(dir, 'in.arrow');
const parquet = join(dir, 'in.parquet');
const folder = join(dir, 'parts');

/** `rows` rows of (user, ts, v, note) in batches of `batchRows`. */
function table(rows: number, seed: number, batchRows = 2000): A.Table {
  const r = rng(seed);
  const user = new Int32Array(rows);
  const ts = new Float64Array(rows);
  const v = new Int32Array(rows);
  const note: Array<string | null> = [];
  for (let i = 0; i < rows; i++) {
    user[i] = Math.floor(r() * 300);
    ts[i] = Math.floor(r() * 1e6);
    v[i] = Math.floor(r() * 1000) - 500;
    note.push(r() < 0.1 ? null : `n${i % 97}`);
  }
  const whole = new A.Table({ user: A.makeVector(user), ts: A.makeVector(ts), v: A.makeVector(v), note: A.vectorFromArray(note, new A.Utf8()) });
  return rebatch(whole, batchRows);
}

const DATA = table(40_000, 7);

const rolled = (df: DataFrame): DataFrame =>
  df.window({ partitionBy: 'user', orderBy: 'ts', columns: { s3: sum('v').rows(2), s30: sum('v').rows(29, 0), c: sum('v').rows(5, 5) } });

async function rowsOf(df: DataFrame): Promise<unknown[]> {
  const t = await df.collect();
  return t.toArray().map((r) => r.toJSON());
}

beforeAll(async () => {
  writeFileSync(ipc, A.tableToIPC(DATA, 'file'));
  mkdirSync(folder);
  writeFileSync(join(folder, 'a.arrow'), A.tableToIPC(DATA.slice(0, 15_000), 'file'));
  writeFileSync(join(folder, 'b.arrow'), A.tableToIPC(DATA.slice(15_000), 'file'));
  const e = new Engine({ threads: 0 });
  try {
    await e.fromArrow(DATA).writeParquet(parquet);
  } finally {
    await e.close();
  }
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Runs `job` over an IPC file rewritten (shorter) when the kernel phase starts: expects
 * INPUT_CHANGED naming the file, no output file and every reservation back; returns the engine
 * (to be closed by the caller) and the file.
 */
async function changedBetweenReads(name: string, job: (df: DataFrame, e: Engine) => DataFrame): Promise<{ e: Engine; path: string }> {
  const path = join(dir, `${name}.arrow`);
  const out = join(dir, `${name}-out.arrow`);
  writeFileSync(path, A.tableToIPC(DATA, 'file'));
  let rewritten = false;
  const e = new Engine({
    threads: 1,
    onProgress: (p) => {
      if (p.phase === 'kernel' && !rewritten) {
        rewritten = true;
        writeFileSync(path, A.tableToIPC(DATA.slice(0, 30_000), 'file'));
      }
    },
  });
  try {
    const err = await rejection(job(e.readIpc(path), e).writeIpc(out));
    expect(rewritten).toBe(true);
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).code).toBe('INPUT_CHANGED');
    expect(String((err as Error).message)).toContain(`${name}.arrow`);
    expect(existsSync(out)).toBe(false);
    expect(e.budget.used).toBe(0);
  } catch (err) {
    await e.close();
    throw err;
  }
  return { e, path };
}

describe('window over Arrow IPC files read twice', () => {
  let expected: unknown[];
  beforeAll(async () => {
    const e = new Engine({ threads: 0 });
    try {
      expected = await rowsOf(rolled(e.fromArrow(DATA)));
    } finally {
      await e.close();
    }
  });

  for (const [threads, budget] of [
    [0, undefined],
    [2, undefined],
    [1, '2MiB'],
    [2, '3MiB'],
  ] as const) {
    it(`gives the in-memory result (threads ${threads}, budget ${budget ?? 'default'})`, async () => {
      const e = new Engine({ threads, memoryBudget: budget, slabRows: 3000 });
      try {
        expect(await rowsOf(rolled(e.readIpc(ipc)))).toEqual(expected);
        expect(await rowsOf(rolled(e.readIpc(folder)))).toEqual(expected);
        expect(await rowsOf(rolled(e.readIpc(ipc).select('user', 'ts', 'v')))).toEqual(expected.map((r) => {
          const { note: _, ...rest } = r as Record<string, unknown>;
          return rest;
        }));
        expect(await rowsOf(rolled(e.readParquet(parquet)))).toEqual(expected);
        expect(e.budget.used).toBe(0);
      } finally {
        await e.close();
      }
    });
  }

  it('keeps nothing of the input: a budget too small to hold it spills less than the input', async () => {
    const e = new Engine({ threads: 1, memoryBudget: '3MiB', slabRows: 3000 });
    try {
      const fromIpc = await rolled(e.readIpc(ipc)).execute();
      const fromParquet = await rolled(e.readParquet(parquet)).execute();
      // Parquet keeps (and here spills) its decoded input for the replay; IPC reads it again.
      expect(fromIpc.stats.spilledBytes).toBeLessThan(fromParquet.stats.spilledBytes);
      expect(fromIpc.stats.rowsIn).toBe(DATA.numRows);
      expect(fromIpc.stats.peakTrackedBytes).toBeLessThanOrEqual(3 * 2 ** 20);
    } finally {
      await e.close();
    }
  });

  it('a kept (not re-readable) input holds at most a quarter of the budget: the exchanges keep the rest', async () => {
    const big = table(600_000, 9, 20_000);
    const path = join(dir, 'kept.parquet');
    const roomy = new Engine({ threads: 0 });
    let most = 0;
    const e: Engine = new Engine({
      threads: 1,
      memoryBudget: '16MiB',
      slabRows: 3000,
      onProgress: () => {
        for (const r of e.budget.reservations()) if (r.name === 'window.retained') most = Math.max(most, r.bytes);
      },
    });
    try {
      await roomy.fromArrow(big).writeParquet(path);
      const want = await rowsOf(rolled(roomy.fromArrow(big)));
      expect(await rowsOf(rolled(e.readParquet(path)))).toEqual(want);
      expect(most).toBeGreaterThan(0);
      expect(most).toBeLessThanOrEqual(e.budget.limit / 4);
    } finally {
      await roomy.close();
      await e.close();
    }
  });

  it('batches big for the budget are kept (or spilled in pieces) instead of read again', async () => {
    // Small batches first (read again), then big ones (kept or spilled from there on).
    const big = join(dir, 'big.arrow');
    const mixed = new A.Table(DATA.schema, [...DATA.slice(0, 6000).batches, ...table(40_000, 7, 17_000).slice(6000).batches]);
    expect(mixed.batches.length).toBe(6); // 3 of 2000 rows, then 11000, 17000 and 6000
    writeFileSync(big, A.tableToIPC(mixed, 'file'));
    const whole = join(dir, 'whole.arrow');
    writeFileSync(whole, A.tableToIPC(table(40_000, 7, 40_000), 'file'));
    for (const [threads, budget, path] of [
      [1, '1MiB', big],
      [2, '2MiB', big],
      [1, '1536KiB', whole],
    ] as const) {
      const e = new Engine({ threads, memoryBudget: budget });
      try {
        const run = await rolled(e.readIpc(path)).execute();
        expect(run.stats.peakTrackedBytes).toBeLessThanOrEqual(e.budget.limit);
        expect(await rowsOf(rolled(e.readIpc(path)))).toEqual(expected);
        expect(e.budget.used).toBe(0);
      } finally {
        await e.close();
      }
    }
  });

  it('a slab that cannot be lent while the reader holds a big batch makes the exchange spill what it keeps', async () => {
    const n = 400_000;
    const user = new Int32Array(n);
    const ts = new Float64Array(n);
    const v = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      user[i] = (i * 7919) % 5000;
      ts[i] = i;
      v[i] = i % 100;
    }
    const t = new A.Table({ user: A.makeVector(user), ts: A.makeVector(ts), v: A.makeVector(v) });
    const path = join(dir, 'two-batches.arrow');
    writeFileSync(path, A.tableToIPC(new A.Table(t.schema, [...t.slice(0, 200_000).batches, ...t.slice(200_000).batches]), 'file'));
    const job = (df: DataFrame): DataFrame => df.window({ partitionBy: 'user', orderBy: 'ts', columns: { s: sum('v').rows(3) } });
    const roomy = new Engine({ threads: 0 });
    const e = new Engine({ threads: 1, memoryBudget: '4MiB' });
    try {
      const want = await rowsOf(job(roomy.fromArrow(t)));
      const run = await job(e.readIpc(path)).execute();
      expect(run.stats.spilledBytes).toBeGreaterThan(0);
      expect(await rowsOf(job(e.readIpc(path)))).toEqual(want);
      expect(e.budget.used).toBe(0);
    } finally {
      await roomy.close();
      await e.close();
    }
  });

  it('a file that changes between the two reads is INPUT_CHANGED, with no output file left', async () => {
    const { e, path } = await changedBetweenReads('changing', (df) => rolled(df));
    try {
      // The engine is still usable, and reads the file as it is now.
      expect((await e.readIpc(path).collect()).numRows).toBe(30_000);
    } finally {
      await e.close();
    }
  });
});

describe('asofJoin over an Arrow IPC left side read twice', () => {
  const right = table(20_000, 11);
  const joined = (df: DataFrame, e: Engine): DataFrame => df.asofJoin(e.fromArrow(right), { on: 'ts', by: 'user', direction: 'backward' });
  let expected: unknown[];
  beforeAll(async () => {
    const e = new Engine({ threads: 0 });
    try {
      // sorted by ts within a user: the ASOF keys; the row order is the left input's
      expected = await rowsOf(joined(e.fromArrow(DATA), e));
    } finally {
      await e.close();
    }
  });

  for (const [threads, budget] of [
    [2, undefined],
    [1, '2MiB'],
    [2, '3MiB'],
  ] as const) {
    it(`gives the in-memory result (threads ${threads}, budget ${budget ?? 'default'})`, async () => {
      const e = new Engine({ threads, memoryBudget: budget, slabRows: 3000 });
      try {
        expect(await rowsOf(joined(e.readIpc(ipc), e))).toEqual(expected);
        expect(await rowsOf(joined(e.readParquet(parquet), e))).toEqual(expected);
        if (budget) expect((await joined(e.readIpc(ipc), e).execute()).stats.peakTrackedBytes).toBeLessThanOrEqual(e.budget.limit);
        expect(e.budget.used).toBe(0);
      } finally {
        await e.close();
      }
    });
  }

  it('reads the left file again at the replay: one that changes in between is INPUT_CHANGED, with no output file left', async () => {
    const { e } = await changedBetweenReads('changing-left', (df, engine) => joined(df, engine));
    await e.close();
  });
});
