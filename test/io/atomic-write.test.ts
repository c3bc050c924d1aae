/**
 * Writes are atomic for all three formats: a source that throws midway, an abort, or a batch
 * of the wrong schema leaves no file at the path (an existing one untouched) and no temp file
 * behind; a missing output folder is InputError OUTPUT_UNWRITABLE; success leaves exactly the file.
 */
import * as arrow from 'apache-arrow';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AbortError, InputError } from '../../src/errors.js';
import { writeCsvAtomic } from '../../src/io/csv.js';
import { writeIpcAtomic } from '../../src/io/ipc.js';
import { writeParquetAtomic } from '../../src/io/parquet.js';
import { writeParquetDataset } from '../../src/io/parquet-dataset.js';
import { HOST } from '../../src/io/process-owner.js';
import { rejection } from '../support/rejection.js';

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
  it('a dataset whose temp folder is removed while it is written fails instead of publishing the parts written after', async () => {
    const dir = mkdtempSync(join(root, 'yanked-'));
    const two = new arrow.Table({ a: arrow.makeVector(Int32Array.of(7, 8)), s: arrow.vectorFromArray(['p', 'q'], new arrow.Utf8()) }).batches[0]!;
    async function* yanking(): AsyncGenerator<arrow.RecordBatch> {
      yield batch(0);
      await new Promise((r) => setTimeout(r, 50));
      for (const n of readdirSync(dir)) if (n.endsWith('.sluice-tmp')) rmSync(join(dir, n), { recursive: true, force: true });
      yield two;
    }
    const err = await rejection(writeParquetDataset(join(dir, 'set'), schema, yanking(), { partitionBy: ['a'] }));
    expect(err).toBeInstanceOf(InputError);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a write removes the temps of earlier writes to the same path by dead processes of this machine untouched for 10 minutes, and only those', async () => {
    const dir = mkdtempSync(join(root, 'sweep-'));
    const host = HOST;
    const dead = spawnSync(process.execPath, ['-e', '']).pid!; // a child that has exited
    const temp = (target: string, owner: string, random = '0123456789ab'): string => `.${target}.${owner}-${random}.sluice-tmp`;
    const deadFile = temp('out.csv', `${host}-${dead}`);
    const deadDataset = temp('set', `${host}-${dead}`); // a dataset's temp is a folder
    // a dead owner's temp written to lately may be a live writer's in another PID namespace
    const recent = temp('out.csv', `${host}-${dead}`, 'aaaaaaaaaaaa');
    const recentDataset = temp('set', `${host}-${dead}`, 'bbbbbbbbbbbb');
    const kept = [recent, recentDataset, temp('out.csv', `${host}-${process.ppid}`), temp('out.csv', `otherhost-${dead}`), temp('other.csv', `${host}-${dead}`), '.out.csv.sluice-tmp'];
    for (const n of [deadFile, ...kept]) if (n !== recentDataset) writeFileSync(join(dir, n), 'partial');
    for (const d of [deadDataset, recentDataset]) {
      mkdirSync(join(dir, d, 'k=1'), { recursive: true });
      writeFileSync(join(dir, d, 'k=1', 'part-0.parquet'), 'partial');
    }
    const old = new Date(Date.now() - 11 * 60_000);
    for (const p of [deadFile, deadDataset, `${deadDataset}/k=1`, `${deadDataset}/k=1/part-0.parquet`, recentDataset, `${recentDataset}/k=1`]) utimesSync(join(dir, p), old, old);
    for (const n of kept.slice(2)) utimesSync(join(dir, n), old, old);
    await writeCsvAtomic(join(dir, 'out.csv'), [batch(0)]);
    await writeParquetDataset(join(dir, 'set'), schema, (async function* () { yield batch(0); })(), { partitionBy: ['a'] });
    expect(readdirSync(dir).sort()).toEqual([...kept, 'out.csv', 'set'].sort());
  });
});
