/**
 * select / withColumns / filter / limit through the engine (row-local, streaming stages), and a
 * readIpc → window → writeIpc pipeline with spilling, atomic output and no leftover files.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as A from 'apache-arrow';
import { afterAll, describe, expect, it } from 'vitest';
import { col, Engine, expr, InputError, lit, PlanError, sum } from '../../src/index.js';
import type { FieldDesc } from '../../src/types/column.js';
import { enginePool, SETTINGS } from '../support/engines.js';
import { columnValues, INT64_MAX, makeTable } from '../support/tables.js';

const engineFor = enginePool(64);
const dir = mkdtempSync(join(tmpdir(), 'sluice-rowlocal-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const schema: FieldDesc[] = [
  { name: 'id', type: { kind: 'int', bits: 64, signed: true }, nullable: true },
  { name: 'price', type: { kind: 'float', bits: 64 }, nullable: true },
  { name: 'qty', type: { kind: 'int', bits: 32, signed: true }, nullable: true },
  { name: 'venue', type: { kind: 'utf8' }, nullable: true },
];
const n = 1000;
const data = {
  id: Array.from({ length: n }, (_, i) => (i === 3 ? INT64_MAX : BigInt(i))),
  price: Array.from({ length: n }, (_, i) => (i % 11 === 0 ? null : i / 4)),
  qty: Array.from({ length: n }, (_, i) => i % 7),
  venue: Array.from({ length: n }, (_, i) => (i % 13 === 0 ? null : i % 2 ? 'x' : 'y')),
};

describe.each(SETTINGS.slice(0, 3))('row-local stages with %o', (s) => {
  it('select, withColumns, filter and limit keep input order', async () => {
    const t = makeTable(schema, data, 97);
    const out = await engineFor(s)
      .fromArrow(t)
      .withColumns({ notional: col('price').mul(col('qty')), qty: col('qty').add(lit(1)) })
      .filter(expr('notional > 10 AND venue = \'x\''))
      .select('id', 'notional', 'qty')
      .limit(50)
      .collect();
    const expected: Array<[bigint, number, number]> = [];
    for (let i = 0; i < n && expected.length < 50; i++) {
      const p = data.price[i];
      const notional = p === null ? null : p * data.qty[i]!;
      if (notional !== null && notional > 10 && data.venue[i] === 'x') expected.push([data.id[i]!, notional, data.qty[i]! + 1]);
    }
    expect(columnValues(out, 'id')).toEqual(expected.map((e) => e[0]));
    expect(columnValues(out, 'notional')).toEqual(expected.map((e) => e[1]));
    expect(columnValues(out, 'qty').map(Number)).toEqual(expected.map((e) => e[2]));
  });
});

describe('files', () => {
  it('readIpc → window → writeIpc with a tiny budget: spills, writes atomically, leaves no spill files', async () => {
    // 30k rows over 300 venues, about 1 MiB of input, at a 256 KiB budget: every stage spills.
    const rows = 30_000;
    const big = {
      id: Array.from({ length: rows }, (_, i) => BigInt(i)),
      price: Array.from({ length: rows }, (_, i) => (i % 11 === 0 ? null : i / 4)),
      qty: Array.from({ length: rows }, (_, i) => (i * 7919) % 101),
      venue: Array.from({ length: rows }, (_, i) => (i % 997 === 0 ? null : `v${(i * 31) % 300}`)),
    };
    const input = join(dir, 'in.arrow');
    const t = makeTable(schema, big, 1000);
    writeFileSync(input, A.tableToIPC(t, 'file'));
    const spillDir = mkdtempSync(join(tmpdir(), 'sluice-spill-'));
    const engine = new Engine({ threads: 2, memoryBudget: '256KiB', spillDir, slabRows: 512 });
    try {
      const out = join(dir, 'out.arrow');
      const stats = await engine
        .readIpc(input)
        .window({ partitionBy: 'venue', orderBy: 'id', columns: { s: sum('qty').rows(2) } })
        .writeIpc(out);
      expect(stats.rowsIn).toBe(rows);
      expect(stats.rowsOut).toBe(rows);
      expect(stats.spillFiles).toBeGreaterThan(0);
      expect(stats.peakTrackedBytes).toBeLessThanOrEqual(256 * 1024);
      expect(readdirSync(spillDir)).toEqual([]);
      const back = A.tableFromIPC(readFileSync(out));
      const mem = await engine.fromArrow(t).window({ partitionBy: 'venue', orderBy: 'id', columns: { s: sum('qty').rows(2) } }).collect();
      expect(columnValues(back, 's')).toEqual(columnValues(mem, 's'));
      expect(columnValues(back, 'id')).toEqual(big.id);
    } finally {
      await engine.close();
      rmSync(spillDir, { recursive: true, force: true });
    }
  });

  it('a failing run leaves no output file and keeps an existing one', async () => {
    const engine = engineFor(SETTINGS[1]!);
    const out = join(dir, 'keep.arrow');
    writeFileSync(out, 'old');
    const bad = join(dir, 'truncated.arrow');
    const bytes = A.tableToIPC(makeTable(schema, data, 100), 'file');
    writeFileSync(bad, bytes.subarray(0, bytes.length >> 1));
    await expect(engine.readIpc(bad).writeIpc(out)).rejects.toBeInstanceOf(InputError);
    expect(readFileSync(out).toString()).toBe('old');
    const fresh = join(dir, 'fresh.arrow');
    await expect(engine.readIpc(bad).writeIpc(fresh)).rejects.toBeInstanceOf(InputError);
    expect(existsSync(fresh)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.includes('.tmp') || f.startsWith('.'))).toEqual([]);
  });

  it('unknown columns are PlanErrors naming the column', async () => {
    const engine = engineFor(SETTINGS[0]!);
    const err = await engine.fromArrow(makeTable(schema, data)).select('nope').collect().catch((e) => e);
    expect(err).toBeInstanceOf(PlanError);
    expect(String(err.message)).toContain('nope');
  });
});

