/**
 * Runs that fail once spilling has started close every spill file handle (issue 7 item 10):
 * after a window or asofJoin at a small memory budget fails (an input file truncated mid-way,
 * a source that throws, an abort while spilling, worker threads terminated), no descriptor of
 * /proc/self/fd points into the spill folder (a deleted but open file shows there as
 * `path (deleted)` and keeps its disk space), the spill folder is empty, the budget is back
 * to zero, and a second run on the same engine succeeds. The full-disk case (ENOSPC on a tiny
 * tmpfs, run twice) is in spill-full-disk.test.ts.
 */
import * as A from 'apache-arrow';
import { mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { Engine, sum, type DataFrame, type Progress } from '../../src/index.js';
import { lcg } from '../support/random.js';
import { rebatch, valuesDigest } from '../support/tables.js';

const dir = mkdtempSync(join(tmpdir(), 'sluice-spill-fail-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Descriptors of this process open on a file under `folder` (deleted ones included). */
function fdsUnder(folder: string): string[] {
  const out: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith(folder + '/')) out.push(target);
    } catch {
      // closed while listing
    }
  }
  return out;
}

const n = 60_000;
function table(seed: number): A.Table {
  const k = new Int32Array(n);
  const t = new BigInt64Array(n);
  const v = new Float64Array(n);
  const next = lcg(seed);
  for (let i = 0; i < n; i++) {
    const s = next();
    k[i] = s % 97;
    t[i] = BigInt(s % 1_000_000);
    v[i] = (s % 1000) / 10;
  }
  return new A.Table({ k: A.makeVector(k), t: A.makeVector({ type: new A.TimestampMillisecond(), data: t }), v: A.makeVector(v) });
}

/** An IPC stream of `t` in 2k-row batches; `truncated` cuts it 70% of the way through. */
function streamFile(name: string, t: A.Table, truncated: boolean): string {
  const bytes = A.tableToIPC(rebatch(t, 2048), 'stream');
  const p = join(dir, name);
  writeFileSync(p, truncated ? bytes.subarray(0, Math.floor(bytes.length * 0.7)) : bytes);
  return p;
}

const left = table(1);
const right = table(2);
const leftFile = streamFile('left.arrows', left, false);
const rightFile = streamFile('right.arrows', right, false);
const leftCut = streamFile('left-cut.arrows', left, true);
const rightCut = streamFile('right-cut.arrows', right, true);

/** Batches of `t`, then an error: a user's async source failing mid-way. */
async function* failingSource(t: A.Table): AsyncGenerator<A.RecordBatch> {
  let i = 0;
  for (const b of rebatch(t.slice(0, 40_000), 2048).batches) {
    yield b;
    if (++i === 15) throw new Error('the source broke');
  }
}

const windowOf = (df: DataFrame) => df.window({ partitionBy: 'k', orderBy: 't', columns: { s: sum('v').rows(3) } });

interface Case {
  name: string;
  /** The failing run; `abort` aborts it at the first spill. */
  run: (e: Engine, signal: AbortSignal) => Promise<unknown>;
  error: { name: string; code: string };
  /** Terminate every worker thread at the first spill (threads > 0 only). */
  killWorkers?: boolean;
  /** kill the workers at every spill event, not only the first */
  killEvery?: boolean;
}

const cases: Case[] = [
  { name: 'window over a truncated file', run: (e) => windowOf(e.readIpc(leftCut)).collect(), error: { name: 'InputError', code: 'INPUT_MALFORMED' } },
  {
    name: 'asofJoin whose left input is truncated',
    run: (e) => e.readIpc(leftCut).asofJoin(e.readIpc(rightFile), { on: 't', by: 'k' }).collect(),
    error: { name: 'InputError', code: 'INPUT_MALFORMED' },
  },
  {
    name: 'asofJoin whose right input is truncated',
    run: (e) => e.readIpc(leftFile).asofJoin(e.readIpc(rightCut), { on: 't', by: 'k' }).collect(),
    error: { name: 'InputError', code: 'INPUT_MALFORMED' },
  },
  {
    name: 'asofJoin without by keys whose right input is truncated',
    run: (e) => e.readIpc(leftFile).asofJoin(e.readIpc(rightCut), { on: 't' }).collect(),
    error: { name: 'InputError', code: 'INPUT_MALFORMED' },
  },
  {
    name: 'asofJoin whose right source throws',
    run: (e) => e.readIpc(leftFile).asofJoin(e.fromArrow(failingSource(right)), { on: 't', by: 'k' }).collect(),
    error: { name: 'InputError', code: 'INPUT_SOURCE_FAILED' },
  },
  {
    name: 'window aborted at the first spill',
    run: (e, signal) => windowOf(e.readIpc(leftFile)).collect({ signal }),
    error: { name: 'AbortError', code: 'ABORTED' },
  },
  {
    name: 'asofJoin aborted at the first spill',
    run: (e, signal) => e.readIpc(leftFile).asofJoin(e.readIpc(rightFile), { on: 't', by: 'k' }).collect({ signal }),
    error: { name: 'AbortError', code: 'ABORTED' },
  },
  {
    name: 'window whose workers are terminated at the first spill',
    run: (e) => windowOf(e.readIpc(leftFile)).collect(),
    error: { name: 'WorkerError', code: 'WORKER_DIED' },
    killWorkers: true,
  },
  {
    // piscina stops replacing workers that are killed while their replacements start up: the
    // run must still end (WORKER_DIED), not wait for a pool with no threads.
    name: 'window whose workers are terminated at every spill',
    run: (e) => windowOf(e.readIpc(leftFile)).collect(),
    error: { name: 'WorkerError', code: 'WORKER_DIED' },
    killWorkers: true,
    killEvery: true,
  },
];

/** The worker threads of an engine's pool (piscina's, behind the executor). */
function workersOf(e: Engine): Worker[] {
  return (e.pool as unknown as { pool: { threads: Worker[] } }).pool.threads;
}

describe.each([0, 2])('threads %i', (threads) => {
  it.each(cases.filter((c) => threads > 0 || !c.killWorkers).map((c) => [c.name, c] as const))('%s: no spill handle left open, spill folder empty', async (_, c) => {
    const spillDir = mkdtempSync(join(dir, 'spill-'));
    const controller = new AbortController();
    let spills = 0;
    let faulting = true; // the check runs after the faulted one are left alone
    const engine = new Engine({
      threads,
      spillDir,
      memoryBudget: '768KiB',
      slabRows: 512,
      partitions: 8,
      onProgress: (p: Progress) => {
        if (p.phase !== 'spill') return;
        spills++;
        if (!faulting || (spills !== 1 && !c.killEvery)) return;
        if (c.killWorkers) for (const w of workersOf(engine)) void w.terminate();
        else controller.abort();
      },
    });
    try {
      const result = await c.run(engine, controller.signal).then(
        (table) => ({ table, err: null }),
        (e: unknown) => ({ table: null, err: e }),
      );
      faulting = false;
      const err = result.err;
      if (c.killWorkers && err === null) {
        // The kill landed between two tasks: piscina replaced the workers and the run went on.
        // That is allowed, but then its result must be the right one.
        const plain = new Engine({ threads: 0 });
        try {
          const want = await windowOf(plain.fromArrow(left)).collect();
          expect(valuesDigest(result.table as A.Table)).toBe(valuesDigest(want));
        } finally {
          await plain.close();
        }
      } else expect(err, 'the run fails').not.toBeNull();
      if (err !== null) expect((err as Error).name, String(err)).toBe(c.error.name);
      if (err !== null) expect((err as { code: string }).code).toBe(c.error.code);
      expect(spills, 'the run had started spilling').toBeGreaterThan(0);
      // Checked before close(): the failed run itself must have let go of its files.
      expect(fdsUnder(spillDir)).toEqual([]);
      expect(readdirSync(spillDir)).toEqual([]);
      expect(engine.budget.used).toBe(0);
      // The engine still works, and that run leaves nothing behind either.
      const ok = await windowOf(engine.readIpc(leftFile)).execute();
      expect(ok.table.numRows).toBe(n);
      expect(ok.stats.spilledBytes).toBeGreaterThan(0);
    } finally {
      await engine.close();
    }
    expect(fdsUnder(spillDir)).toEqual([]);
    expect(readdirSync(spillDir)).toEqual([]);
  });
});
