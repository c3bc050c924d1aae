/**
 * Errors across the thread boundary: a worker that throws, one that dies, one that hangs under
 * an aborted signal; typed errors come back, nothing hangs, the engine stays usable, and the
 * spill folder is removed.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AbortError, Engine, ExecutionError, PlanError, sum, WorkerError } from '../../src/index.js';
import { makeTable } from '../support/tables.js';

const schema = [
  { name: 'k', type: { kind: 'int', bits: 32, signed: true } as const, nullable: true },
  { name: 't', type: { kind: 'int', bits: 64, signed: true } as const, nullable: true },
  { name: 'v', type: { kind: 'int', bits: 64, signed: true } as const, nullable: true },
];
const n = 5000;
const table = makeTable(schema, {
  k: Array.from({ length: n }, (_, i) => i % 17),
  t: Array.from({ length: n }, (_, i) => BigInt(i)),
  v: Array.from({ length: n }, (_, i) => BigInt(i % 5)),
});
const windowOf = (engine: Engine) =>
  engine.fromArrow(table).window({ partitionBy: 'k', orderBy: 't', columns: { s: sum('v').rows(3) } });

const engines: Engine[] = [];
afterAll(async () => {
  await Promise.all(engines.map((e) => e.close()));
});

describe.each([0, 2])('threads %i', (threads) => {
  const spillDir = mkdtempSync(join(tmpdir(), 'sluice-errors-'));
  const engine = new Engine({ threads, spillDir, memoryBudget: '256KiB', slabRows: 512 });
  engines.push(engine);
  afterAll(() => rmSync(spillDir, { recursive: true, force: true }));

  it('a task that throws in a worker comes back as a typed error, and the engine still works', async () => {
    await expect(engine.pool.run({ kind: 'fault', mode: 'throw' })).rejects.toBeInstanceOf(ExecutionError);
    const t = await windowOf(engine).collect();
    expect(t.numRows).toBe(n);
  });

  it.runIf(threads > 0)('a worker that dies gives a WorkerError, no hang, and the pool replaces it', async () => {
    await expect(engine.pool.run({ kind: 'fault', mode: 'exit' })).rejects.toBeInstanceOf(WorkerError);
    const t = await windowOf(engine).collect();
    expect(t.numRows).toBe(n);
  });

  it('an aborted run rejects with AbortError and removes its spill folder', async () => {
    const ac = new AbortController();
    const p = windowOf(engine).collect({ signal: ac.signal });
    ac.abort();
    await expect(p).rejects.toBeInstanceOf(AbortError);
    expect(readdirSync(spillDir)).toEqual([]);
    const again = await windowOf(engine).collect();
    expect(again.numRows).toBe(n);
  });

  it('a hanging task is ended by abort', async () => {
    const ac = new AbortController();
    const p = engine.pool.run({ kind: 'fault', mode: threads > 0 ? 'hang' : 'throw' }, ac.signal);
    setTimeout(() => ac.abort(), 50);
    await expect(p).rejects.toBeInstanceOf(threads > 0 ? AbortError : ExecutionError);
  });

  it('a spilling run leaves no spill folder behind', async () => {
    const { stats } = await windowOf(engine).execute();
    expect(stats.spillFiles).toBeGreaterThan(0);
    expect(readdirSync(spillDir)).toEqual([]);
  });

  it('plan errors come from the action before any row is read', async () => {
    let pulled = 0;
    async function* source() {
      for (let i = 0; i < 3; i++) {
        pulled++;
        yield table.batches[0]!;
      }
    }
    const df = engine.fromArrow(source()).window({ orderBy: 'nope', columns: { s: sum('v').rows(1) } });
    await expect(df.collect()).rejects.toBeInstanceOf(PlanError);
    // Only the first batch was read, to learn the schema of a one-shot iterable.
    expect(pulled).toBe(1);
  });
});
