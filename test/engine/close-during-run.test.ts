/**
 * engine.close() while a run is in progress (issue 7.8): the run ends with one AbortError that
 * says the engine was closed (never a base SluiceError or a WorkerError "Terminating worker
 * thread"), its spill folder is removed, nothing hangs, and the closed engine refuses new runs.
 * close() is called from the run's own progress callback, so it lands while tasks are in flight.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AbortError, Engine, PlanError, sum, type Progress } from '../../src/index.js';
import { makeTable } from '../support/tables.js';

const schema = [
  { name: 'k', type: { kind: 'int', bits: 32, signed: true } as const, nullable: true },
  { name: 't', type: { kind: 'int', bits: 64, signed: true } as const, nullable: true },
  { name: 'v', type: { kind: 'int', bits: 64, signed: true } as const, nullable: true },
];
const n = 20_000;
const table = makeTable(schema, {
  k: Array.from({ length: n }, (_, i) => i % 101),
  t: Array.from({ length: n }, (_, i) => BigInt(i)),
  v: Array.from({ length: n }, (_, i) => BigInt(i % 7)),
});

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** An engine that closes itself at the first progress event of `phase`. */
function selfClosingEngine(threads: number, phase: Progress['phase']): { engine: Engine; spillDir: string; closed: Promise<void> } {
  const spillDir = mkdtempSync(join(tmpdir(), 'sluice-close-'));
  dirs.push(spillDir);
  let closeDone: Promise<void> | null = null;
  let signalClosed!: () => void;
  const closed = new Promise<void>((r) => (signalClosed = r));
  const engine: Engine = new Engine({
    threads,
    spillDir,
    memoryBudget: '256KiB', // spills, so there is a spill folder to remove
    slabRows: 256,
    partitions: 16,
    onProgress: (p) => {
      if (p.phase === phase && closeDone === null) {
        closeDone = engine.close();
        void closeDone.then(signalClosed);
      }
    },
  });
  return { engine, spillDir, closed };
}

describe.each([0, 2])('threads %i', (threads) => {
  it.each(['partition', 'kernel'] as const)('close() at the first %s progress ends the run with an AbortError', async (phase) => {
    const { engine, spillDir, closed } = selfClosingEngine(threads, phase);
    const run = engine.fromArrow(table).window({ partitionBy: 'k', orderBy: 't', columns: { s: sum('v').rows(3) } }).collect();
    const err = await run.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(AbortError);
    expect((err as AbortError).code).toBe('ABORTED');
    expect((err as Error).message).toMatch(/engine was closed/);
    await closed; // close() itself settles
    expect(readdirSync(spillDir)).toEqual([]);
    // A closed engine refuses new runs with a PlanError, before reading anything.
    await expect(engine.fromArrow(table).collect()).rejects.toMatchObject({ name: 'PlanError', code: 'ENGINE_CLOSED' });
    expect(() => engine.pool).toThrow(PlanError);
    await engine.close(); // idempotent
  });

  it('close() while a stream is being consumed ends it with an AbortError', async () => {
    const engine = new Engine({ threads });
    const batches = Array.from({ length: 40 }, () => table.batches[0]!);
    let seen = 0;
    const consume = async () => {
      for await (const _ of engine.fromArrow(batches).withColumns({ w: 'v' }).stream()) {
        seen++;
        if (seen === 1) await engine.close();
      }
    };
    const err = await consume().then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(AbortError);
    expect((err as Error).message).toMatch(/engine was closed/);
    expect(seen).toBeLessThan(40);
  });

  it('close() while a write is in progress leaves no output file', async () => {
    const { engine, spillDir, closed } = selfClosingEngine(threads, 'kernel');
    const out = join(spillDir, 'out.arrow');
    await expect(engine.fromArrow(table).window({ partitionBy: 'k', orderBy: 't', columns: { s: sum('v').rows(3) } }).writeIpc(out)).rejects.toBeInstanceOf(AbortError);
    await closed;
    expect(readdirSync(spillDir)).toEqual([]);
  });
});
