/**
 * Progress that tells the truth (issue 10.5): the `onProgress` events of a run, per phase, in
 * order: `done` never decreases, the total never changes once sent, `done` never passes a
 * non-zero total, and a phase with a known total ends at `done === total`. The totals are the
 * input's rows, known before any row is read: from a Parquet footer, an Arrow IPC file's record
 * batch headers, or an Arrow table in memory (a one-shot iterable has none up front).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as A from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { count, Engine, max, sum, type DataFrame, type Progress } from '../../src/index.js';
import { rng } from '../support/random.js';
import { rebatch } from '../support/tables.js';

const dir = mkdtempSync(join(tmpdir(), 'sluice-progress-'));

/** `rows` rows of (sym, ts, v, items: list<int32>), in batches of 1000. */
function table(rows: number, seed: number, syms = 40): A.Table {
  const r = rng(seed);
  const sym = new Int32Array(rows);
  const ts = new BigInt64Array(rows);
  const v = new Float64Array(rows);
  const items: Array<number[] | null> = [];
  for (let i = 0; i < rows; i++) {
    sym[i] = Math.floor(r() * syms);
    ts[i] = BigInt(Math.floor(r() * 1e9));
    v[i] = Math.round(r() * 1e4) / 100;
    items.push(r() < 0.1 ? null : Array.from({ length: Math.floor(r() * 4) }, (_, k) => k));
  }
  const whole = new A.Table({
    sym: A.makeVector(sym),
    ts: A.makeVector({ type: new A.TimestampMillisecond(), data: ts }),
    v: A.makeVector(v),
    items: A.vectorFromArray(items, new A.List(new A.Field('item', new A.Int32(), true))),
  });
  return rebatch(whole, 1000);
}

const LEFT = table(6000, 1);
const RIGHT = table(4500, 2);
const paths = { ipcLeft: join(dir, 'left.arrow'), ipcRight: join(dir, 'right.arrow'), pqLeft: join(dir, 'left.parquet'), pqRight: join(dir, 'right.parquet') };

beforeAll(async () => {
  writeFileSync(paths.ipcLeft, A.tableToIPC(LEFT, 'file'));
  writeFileSync(paths.ipcRight, A.tableToIPC(RIGHT, 'file'));
  const e = new Engine({ threads: 0 });
  try {
    await e.fromArrow(LEFT).writeParquet(paths.pqLeft, { rowGroupSize: 1500 });
    await e.fromArrow(RIGHT).writeParquet(paths.pqRight, { rowGroupSize: 1000 });
  } finally {
    await e.close();
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Phase = Progress['phase'];
type Totals = Partial<Record<Phase, number>>;

/**
 * Checks the promises of the events of one run, phase by phase; returns each phase's total
 * (the same in every event of the phase) and its last `done`.
 */
function checkEvents(events: Progress[]): { totals: Totals; last: Totals } {
  const totals: Totals = {};
  const last: Totals = {};
  for (const e of events) {
    const prev = last[e.phase];
    if (prev !== undefined) {
      expect(e.done, `${e.phase}: done went back`).toBeGreaterThanOrEqual(prev);
      expect(e.total, `${e.phase}: the total changed`).toBe(totals[e.phase]);
    }
    totals[e.phase] = e.total;
    last[e.phase] = e.done;
    if (e.total > 0) expect(e.done, `${e.phase}: done passed the total`).toBeLessThanOrEqual(e.total);
    if (e.rows !== undefined) expect(e.rows).toBe(e.done);
  }
  for (const phase of Object.keys(totals) as Phase[]) {
    if (totals[phase]! > 0) expect(last[phase], `${phase}: ended short of its total`).toBe(totals[phase]);
  }
  return { totals, last };
}

type Side = 'left' | 'right';
const SOURCES: Record<string, (e: Engine, side: Side) => DataFrame> = {
  readIpc: (e, side) => e.readIpc(side === 'left' ? paths.ipcLeft : paths.ipcRight),
  readParquet: (e, side) => e.readParquet(side === 'left' ? paths.pqLeft : paths.pqRight),
  fromArrow: (e, side) => e.fromArrow(side === 'left' ? LEFT : RIGHT),
};

const L = LEFT.numRows;
const R = RIGHT.numRows;

/** Each plan and the totals its phases must announce (0: not known up front). */
const PLANS: Record<string, { df: (src: (side: Side) => DataFrame) => DataFrame; totals: Totals }> = {
  window: {
    df: (src) => src('left').window({ partitionBy: 'sym', orderBy: 'ts', columns: { s3: sum('v').rows(2) } }),
    totals: { read: L, partition: L, kernel: L, write: L },
  },
  asofJoin: {
    df: (src) => src('left').asofJoin(src('right').select('sym', 'ts', 'v'), { on: 'ts', by: 'sym', suffix: '_q' }),
    totals: { read: L + R, partition: L + R, kernel: L, write: L },
  },
  explode: {
    // explode changes the row count: the rows written are not known up front
    df: (src) => src('left').explode('items'),
    totals: { read: L, write: 0 },
  },
  groupBy: {
    // from the tables in memory: the dense path (40 keys), which routes and computes each slab at once
    df: (src) => src('left').groupBy('sym').agg({ n: count(), latest: max('ts') }),
    totals: { read: L, partition: L, kernel: L, write: 0 },
  },
  sort: {
    df: (src) => src('left').sort('ts', 'sym'),
    totals: { read: L, partition: L, sort: L, write: L },
  },
};

describe.each([0, 2])('threads %i', (threads) => {
  let events: Progress[] = [];
  let engine: Engine;
  beforeAll(() => {
    engine = new Engine({ threads, partitions: 4, slabRows: 700, onProgress: (p) => events.push(p) });
  });
  afterAll(() => engine.close());

  describe.each(Object.keys(SOURCES))('%s', (source) => {
    it.each(Object.keys(PLANS))('%s: events in order, totals the input rows, each phase ending at its total', async (plan) => {
      events = [];
      const { df, totals } = PLANS[plan]!;
      const { table, stats } = await df((side) => SOURCES[source]!(engine, side)).execute();
      const seen = checkEvents(events);
      expect(seen.totals).toEqual(totals);
      expect(seen.last.read).toBe(stats.rowsIn);
      expect(seen.last.write).toBe(table.numRows);
      expect(table.numRows).toBe(stats.rowsOut);
    });
  });

  it('a one-shot async iterable has no read total up front; the kernel total comes after ingest', async () => {
    events = [];
    async function* batches(): AsyncGenerator<A.RecordBatch> {
      yield* LEFT.batches;
    }
    await engine.fromArrow(batches()).window({ partitionBy: 'sym', orderBy: 'ts', columns: { s3: sum('v').rows(2) } }).execute();
    expect(checkEvents(events).totals).toEqual({ read: 0, partition: 0, kernel: L, write: 0 });
  });

  it('a dataset of files: the read total is the sum of its files; CSV has none up front', async () => {
    for (const [df, total] of [
      [engine.readIpc([paths.ipcLeft, paths.ipcRight]), L + R],
      [engine.readParquet([paths.pqLeft, paths.pqRight]), L + R],
    ] as const) {
      events = [];
      await df.select('sym', 'v').execute();
      expect(checkEvents(events).totals).toEqual({ read: total, write: total });
    }
    const csv = join(dir, `small-${threads}.csv`);
    writeFileSync(csv, 'a,b\n1,2\n3,4\n');
    events = [];
    await engine.readCsv(csv).sort('a').execute();
    expect(checkEvents(events).totals).toEqual({ read: 0, partition: 0, sort: 2, write: 0 });
  });

  it('writeIpc and writeParquet report the rows they write', async () => {
    for (const write of ['writeIpc', 'writeParquet'] as const) {
      events = [];
      const out = join(dir, `out-${threads}.${write === 'writeIpc' ? 'arrow' : 'parquet'}`);
      const stats = await engine.readParquet(paths.pqLeft).sort('v')[write](out);
      expect(stats.rowsOut).toBe(L);
      expect(checkEvents(events).totals).toEqual({ read: L, partition: L, sort: L, write: L });
    }
  });
});

describe('spill', () => {
  it('counts bytes spilled so far, without a total, while the other phases keep their promises', async () => {
    const events: Progress[] = [];
    const spillDir = mkdtempSync(join(dir, 'spill-'));
    const engine = new Engine({ threads: 2, memoryBudget: '1MiB', spillDir, onProgress: (p) => events.push(p) });
    try {
      const big = table(60_000, 3, 3000);
      const { stats } = await engine.fromArrow(big).window({ partitionBy: 'sym', orderBy: 'ts', columns: { s3: sum('v').rows(2) } }).execute();
      expect(stats.spilledBytes).toBeGreaterThan(0);
      const spill = events.filter((e) => e.phase === 'spill');
      expect(spill.length).toBeGreaterThan(0);
      expect(spill.at(-1)!.done).toBe(stats.spilledBytes);
      const { totals } = checkEvents(events);
      expect(totals).toEqual({ read: big.numRows, partition: big.numRows, kernel: big.numRows, spill: 0, write: big.numRows });
    } finally {
      await engine.close();
    }
  });
});
