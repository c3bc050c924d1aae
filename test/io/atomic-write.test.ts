/**
 * Writes are atomic for all three formats: a source that throws midway, an abort, or a batch
 * of the wrong schema leaves no file at the path (an existing one untouched) and no temp file
 * behind; a missing output folder is InputError OUTPUT_UNWRITABLE; success leaves exactly the file.
 */
import * as arrow from 'apache-arrow';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AbortError, InputError } from '../../src/errors.js';
import { writeCsvAtomic } from '../../src/io/csv.js';
import { writeIpcAtomic } from '../../src/io/ipc.js';
import { writeParquetAtomic } from '../../src/io/parquet.js';
import { writeParquetDataset } from '../../src/io/parquet-dataset.js';

const root = mkdtempSync(join(tmpdir(), 'sluice-io-atomic-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const batch = (k: number): arrow.RecordBatch =>
  new arrow.Table({ a: arrow.makeVector(Int32Array.of(k, k + 1, k + 2)), s: arrow.vectorFromArray(['x', 'y', null], new arrow.Utf8()) }).batches[0]!;
const schema = batch(0).schema;

async function* failingSource(): AsyncGenerator<arrow.RecordBatch> {
  yield batch(0);
  yield batch(3);
  throw new Error('source broke at batch 3');
}

type Writer = (path: string, batches: AsyncIterable<arrow.RecordBatch> | Iterable<arrow.RecordBatch>, signal?: AbortSignal) => Promise<{ rows: number; bytes: number }>;
const writers: Record<string, Writer> = {
  ipc: (p, b, signal) => writeIpcAtomic(p, schema, b, { signal }),
  'ipc-stream': (p, b, signal) => writeIpcAtomic(p, schema, b, { format: 'stream', signal }),
  parquet: (p, b, signal) => writeParquetAtomic(p, schema, b, { signal }),
  csv: (p, b, signal) => writeCsvAtomic(p, b, { signal }),
};

for (const [name, write] of Object.entries(writers)) {
  describe(`${name} writer`, () => {
    const dir = mkdtempSync(join(root, `${name}-`));

    it('a failing source leaves no file and no temp file', async () => {
      const p = join(dir, 'out.fail');
      await expect(write(p, failingSource())).rejects.toThrow('source broke at batch 3');
      expect(existsSync(p)).toBe(false);
      expect(readdirSync(dir)).toEqual([]);
    });

    it('a failing source keeps an existing file untouched', async () => {
      const p = join(dir, 'existing');
      writeFileSync(p, 'precious');
      await expect(write(p, failingSource())).rejects.toThrow('source broke');
      expect(readFileSync(p, 'utf8')).toBe('precious');
      expect(readdirSync(dir)).toEqual(['existing']);
      rmSync(p);
    });

    it('an abort leaves nothing behind', async () => {
      const p = join(dir, 'aborted');
      const ac = new AbortController();
      async function* slow(): AsyncGenerator<arrow.RecordBatch> {
        yield batch(0);
        ac.abort();
        yield batch(3);
      }
      await expect(write(p, slow(), ac.signal)).rejects.toBeInstanceOf(AbortError);
      expect(readdirSync(dir)).toEqual([]);
    });

    it('success writes exactly the file and reports rows and bytes', async () => {
      const p = join(dir, 'ok');
      const res = await write(p, [batch(0), batch(3)]);
      expect(res.rows).toBe(6);
      expect(readdirSync(dir)).toEqual(['ok']);
      expect(res.bytes).toBe(readFileSync(p).byteLength);
      rmSync(p);
    });

    it('a missing output folder is InputError OUTPUT_UNWRITABLE naming the path', async () => {
      const p = join(dir, 'no-such-folder', 'out');
      const err = await write(p, [batch(0)]).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InputError);
      expect((err as InputError).code).toBe('OUTPUT_UNWRITABLE');
      expect((err as InputError).details.path).toBe(p);
    });
  });
}

describe('schema checks', () => {
  it('a batch whose types differ from the schema fails the IPC write and leaves nothing', async () => {
    const dir = mkdtempSync(join(root, 'schema-'));
    const other = new arrow.Table({ a: arrow.makeVector(Float64Array.of(1)), s: arrow.vectorFromArray(['x'], new arrow.Utf8()) }).batches[0]!;
    const p = join(dir, 'bad');
    await expect(writeIpcAtomic(p, schema, [batch(0), other])).rejects.toThrow(/column a has type Float64/);
    await expect(writeParquetAtomic(p, schema, [batch(0), other])).rejects.toThrow(/column a has type Float64/);
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('temps a killed process left', () => {
  it('a write removes the temps of earlier writes to the same path by dead processes of this machine, and only those', async () => {
    const dir = mkdtempSync(join(root, 'sweep-'));
    const host = hostname().replace(/[^A-Za-z0-9]/g, '').slice(0, 32) || 'host';
    const dead = spawnSync(process.execPath, ['-e', '']).pid!; // a child that has exited
    const temp = (target: string, owner: string): string => `.${target}.${owner}-0123456789ab.sluice-tmp`;
    const deadFile = temp('out.csv', `${host}-${dead}`);
    const deadDataset = temp('set', `${host}-${dead}`); // a dataset's temp is a folder
    const kept = [temp('out.csv', `${host}-${process.ppid}`), temp('out.csv', `otherhost-${dead}`), temp('other.csv', `${host}-${dead}`), '.out.csv.sluice-tmp'];
    for (const n of [deadFile, ...kept]) writeFileSync(join(dir, n), 'partial');
    mkdirSync(join(dir, deadDataset));
    writeFileSync(join(dir, deadDataset, 'part-0.parquet'), 'partial');
    await writeCsvAtomic(join(dir, 'out.csv'), [batch(0)]);
    await writeParquetDataset(join(dir, 'set'), schema, (async function* () { yield batch(0); })(), { partitionBy: ['a'] });
    expect(readdirSync(dir).sort()).toEqual([...kept, 'out.csv', 'set'].sort());
  });
});
