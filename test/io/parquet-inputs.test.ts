/**
 * Parquet as users have it (issue 7 items 8 and 9): a file written by Polars (strings read
 * back as Utf8View) reads, filters and writes again (it used to fail with "Missing variadic
 * count for Utf8View column" and leave the process hanging); a file the OS will not let us
 * read is INPUT_UNREADABLE with the OS error, for every format; writeParquet's compression
 * and rowGroupSize options are applied.
 */
import * as A from 'apache-arrow';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pl from 'nodejs-polars';
import * as pq from 'parquet-wasm';
import { afterAll, describe, expect, it } from 'vitest';
import { Engine, InputError } from '../../src/index.js';
import { readParquetBatches } from '../../src/io/parquet.js';
import { rejection } from '../support/rejection.js';

const dir = mkdtempSync(join(tmpdir(), 'sluice-pq-in-'));
const engine = new Engine({ threads: 2 });
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await engine.close();
});

describe('Parquet inputs', () => {
  it('a Polars file with Utf8View strings: read, filter, write, read back', async () => {
    const p = join(dir, 'polars.parquet');
    const long = 'a string well over twelve bytes long';
    pl.DataFrame({ id: [1, 2, 3, 4], s: ['a', null, long, 'd'], b: [true, false, null, true] }).writeParquet(p);
    const df = engine.readParquet(p);
    expect((await df.schema()).fields.map((f) => String(f.type))).toEqual(['Float64', 'Utf8', 'Bool']);
    const out = join(dir, 'again.parquet');
    await df.filter('id > 1').writeParquet(out);
    const back = await engine.readParquet(out).collect();
    expect([...back.getChild('s')!]).toEqual([null, long, 'd']);
    const ipc = join(dir, 'again.arrow');
    await df.writeIpc(ipc);
    expect([...(await engine.readIpc(ipc).collect()).getChild('s')!]).toEqual(['a', null, long, 'd']);
  });

  it('writeParquet: compression and rowGroupSize', async () => {
    const t = A.tableFromArrays({ id: Int32Array.from({ length: 10_000 }, (_, i) => i % 10) });
    const sizes: Record<string, number> = {};
    for (const compression of ['none', 'snappy', 'gzip', 'brotli', 'lz4', 'zstd'] as const) {
      const p = join(dir, `c-${compression}.parquet`);
      await engine.fromArrow(t).writeParquet(p, { compression, rowGroupSize: 1000 });
      sizes[compression] = statSync(p).size;
      expect((await engine.readParquet(p).collect()).numRows).toBe(10_000);
    }
    expect(sizes.zstd!).toBeLessThan(sizes.none!);
    const p = join(dir, 'groups.parquet');
    await engine.fromArrow(t).writeParquet(p, { rowGroupSize: 1000 });
    const f = await pq.ParquetFile.fromFile(new Blob([await (await import('node:fs/promises')).readFile(p)]));
    expect(f.metadata().numRowGroups()).toBe(10);
    expect(f.metadata().rowGroup(0).columns()[0]!.compression()).toBe(pq.Compression.ZSTD);
    f.free();
  });
});

describe('a Parquet file that changes while it is read', () => {
  it('is INPUT_CHANGED, not a damaged file (a new modification time alone makes its Blob refuse reads)', async () => {
    const p = join(dir, 'changing.parquet');
    const t = A.tableFromArrays({ id: Int32Array.from({ length: 50_000 }, (_, i) => i) });
    await engine.fromArrow(t).writeParquet(p, { rowGroupSize: 1000 });
    const batches = readParquetBatches(p, { batchRows: 1000 });
    expect((await batches.next()).done).toBe(false);
    const later = new Date(Date.now() + 5000);
    utimesSync(p, later, later); // same bytes, a new mtime
    const err = await rejection(
      (async () => {
        for await (const _ of batches);
      })(),
    );
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).code).toBe('INPUT_CHANGED');
    expect((err as Error).message).toMatch(/changed while it was being read/);
    // read again once it is settled: every row
    expect((await engine.readParquet(p).collect()).numRows).toBe(50_000);
  });
});

describe('unreadable files', () => {
  const user = { uid: 65534, gid: 65534 };
  const canDrop = process.getuid?.() === 0;
  it.runIf(canDrop)('a file without read permission is INPUT_UNREADABLE with the OS error (Parquet, IPC, CSV)', () => {
    const files = {
      parquet: join(dir, 'secret.parquet'),
      ipc: join(dir, 'secret.arrow'),
      csv: join(dir, 'secret.csv'),
    };
    writeFileSync(files.parquet, 'PAR1 not really');
    writeFileSync(files.ipc, 'x');
    writeFileSync(files.csv, 'a\n1\n');
    chmodSync(dir, 0o755);
    for (const [format, p] of Object.entries(files)) {
      chmodSync(p, 0o000);
      const r = spawnSync(process.execPath, ['--import', 'tsx', join(process.cwd(), 'test', 'support', 'read-file.ts'), format, p], {
        ...user,
        cwd: process.cwd(),
        env: { ...process.env, HOME: tmpdir() },
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(r.status, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout.trim()) as { error?: { name: string; code: string; message: string } };
      expect(out.error, format).toMatchObject({ name: 'InputError', code: 'INPUT_UNREADABLE' });
      expect(out.error!.message).toMatch(/EACCES/);
      expect(out.error!.message).toContain(p);
    }
  }, 120_000);
});
