/**
 * Datasets and text inputs (issue 10 items 2 and 3, input side): globs, folders and arrays of
 * paths read as one source in a stable order; Hive folders add typed key columns; partitioned
 * Parquet output (Hive folders, written atomically) reads back; files that disagree are
 * InputErrors naming the file; `.csv.gz` / `.csv.zst` / `.ndjson.gz` decompress on the fly;
 * readNdjson infers or takes a schema.
 */
import * as A from 'apache-arrow';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine, InputError, PlanError } from '../../src/index.js';
import { prepareIpcCompression } from '../../src/io/ipc-codecs.js';

const dir = mkdtempSync(join(tmpdir(), 'sluice-datasets-'));
const engine = new Engine({ threads: 2 });
let zstd: typeof import('@bokuweb/zstd-wasm');
beforeAll(async () => {
  await prepareIpcCompression('zstd'); // loads zstd-wasm once (its init is not idempotent)
  zstd = await import('@bokuweb/zstd-wasm');
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await engine.close();
});

const table = (from: number, n: number) => A.tableFromArrays({ id: Int32Array.from({ length: n }, (_, i) => from + i), v: Float64Array.from({ length: n }, (_, i) => (from + i) / 2) });
const ids = (t: A.Table) => Array.from(t.getChild('id')!.toArray() as Int32Array);
const col = (t: A.Table, name: string) => [...t.getChild(name)!].map((v) => (typeof v === 'bigint' ? Number(v) : v));

async function writeParts(root: string, parts: Array<[string, number, number]>): Promise<void> {
  for (const [rel, from, n] of parts) {
    const p = join(root, rel);
    mkdirSync(join(p, '..'), { recursive: true });
    await engine.fromArrow(table(from, n)).writeParquet(p);
  }
}

describe('datasets', () => {
  it('a glob, a folder and an array: one source, files in sorted order (an array in its own)', async () => {
    const root = join(dir, 'plain');
    await writeParts(root, [['b.parquet', 10, 5], ['a.parquet', 0, 10], ['c/d.parquet', 15, 3], ['_SUCCESS.parquet', 99, 1], ['.hidden.parquet', 98, 1]]);
    writeFileSync(join(root, 'notes.txt'), 'not data');
    const want = Array.from({ length: 18 }, (_, i) => i);
    expect(ids(await engine.readParquet(join(root, '**/*.parquet')).collect())).toEqual(want);
    expect(ids(await engine.readParquet(root).collect())).toEqual(want);
    expect(ids(await engine.readParquet([join(root, 'b.parquet'), join(root, 'a.parquet')]).collect())).toEqual([...want.slice(10, 15), ...want.slice(0, 10)]);
    expect(ids(await engine.readParquet(join(root, '*.parquet')).collect())).toEqual(want.slice(0, 15));
    for (const missing of [join(root, 'nope-*.parquet'), join(root, 'nope.parquet'), join(dir, 'empty-folder')]) {
      if (missing.endsWith('folder')) mkdirSync(missing, { recursive: true });
      const err = await engine.readParquet(missing).schema().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InputError);
      expect((err as InputError).code).toBe('INPUT_NOT_FOUND');
    }
  });

  it('Hive folders add typed key columns', async () => {
    const root = join(dir, 'hive');
    await writeParts(root, [
      ['day=2024-01-02/n=2/s=b%2Fc/part-0.parquet', 3, 2],
      ['day=2024-01-01/n=10/s=a/part-0.parquet', 0, 3],
      ['day=__HIVE_DEFAULT_PARTITION__/n=-1/s=x y/part-0.parquet', 5, 1],
    ]);
    const t = await engine.readParquet(root).collect();
    expect(t.schema.fields.map((f) => `${f.name}:${String(f.type)}`)).toEqual(['id:Int32', 'v:Float64', 'day:Date32<DAY>', 'n:Int64', 's:Utf8']);
    // bytewise path order: "day=2024-01-01" < "day=2024-01-02" < "day=__HIVE…"
    expect(ids(t)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(col(t, 'n')).toEqual([10, 10, 10, 2, 2, -1]);
    expect(col(t, 's')).toEqual(['a', 'a', 'a', 'b/c', 'b/c', 'x y']);
    expect(col(t, 'day').slice(0, 4)).toEqual([Date.UTC(2024, 0, 1), Date.UTC(2024, 0, 1), Date.UTC(2024, 0, 1), Date.UTC(2024, 0, 2)]);
    expect(col(t, 'day')[5]).toBeNull();
    const f = await engine.readParquet(root).filter('n > 5').collect();
    expect(ids(f)).toEqual([0, 1, 2]);
  });

  it('files that disagree: other columns or other Hive keys are InputErrors naming the file', async () => {
    const root = join(dir, 'mismatch');
    await writeParts(root, [['a.parquet', 0, 2]]);
    await engine.fromArrow(A.tableFromArrays({ id: Float64Array.from([1]), v: Float64Array.from([1]) })).writeParquet(join(root, 'b.parquet'));
    const err = await engine.readParquet(root).collect().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as Error).message).toMatch(/b\.parquet.*column id/);
    const hive = join(dir, 'mixed-keys');
    await writeParts(hive, [['k=1/a.parquet', 0, 1], ['j=1/b.parquet', 0, 1]]);
    expect(await engine.readParquet(hive).schema().catch((e: unknown) => e)).toBeInstanceOf(InputError);
  });

  it('partitionBy writes Hive folders atomically, and they read back', async () => {
    const out = join(dir, 'out-dataset');
    const src = A.tableFromArrays({ id: Int32Array.from([1, 2, 3, 4, 5, 6]), region: ['eu', 'us', 'eu', null, 'a/b', 'us'], v: Float64Array.from([1, 2, 3, 4, 5, 6]) });
    await engine.fromArrow(src).writeParquet(out, { partitionBy: 'region', rowGroupSize: 2, compression: 'snappy' });
    expect(readdirSync(out).sort()).toEqual(['region=__HIVE_DEFAULT_PARTITION__', 'region=a%2Fb', 'region=eu', 'region=us']);
    expect(readdirSync(dir).filter((n) => n.includes('sluice-tmp'))).toEqual([]);
    const back = await engine.readParquet(out).collect();
    expect(back.schema.fields.map((f) => f.name)).toEqual(['id', 'v', 'region']);
    const rows = back.toArray().map((r) => `${r.id}:${r.region}`).sort();
    expect(rows).toEqual(['1:eu', '2:us', '3:eu', '4:null', '5:a/b', '6:us']);
    // rewriting replaces the dataset; a failing run leaves it as it was
    await engine.fromArrow(src.slice(0, 2)).writeParquet(out, { partitionBy: ['region'] });
    expect(readdirSync(out).sort()).toEqual(['region=eu', 'region=us']);
    async function* failing() {
      yield src.batches[0]!;
      throw new Error('source broke');
    }
    await expect(engine.fromArrow(failing()).writeParquet(out, { partitionBy: 'region' })).rejects.toThrow(/source broke/);
    expect(readdirSync(out).sort()).toEqual(['region=eu', 'region=us']);
    expect(readdirSync(dir).filter((n) => n.includes('sluice-tmp'))).toEqual([]);
    // options are checked; a folder with other things in it is never replaced
    await expect(engine.fromArrow(src).writeParquet(out, { partitionBy: 'nope' })).rejects.toBeInstanceOf(PlanError);
    await expect(engine.fromArrow(src).writeParquet(out, { rowGroupSize: 0 })).rejects.toBeInstanceOf(PlanError);
    const precious = join(dir, 'precious');
    mkdirSync(precious);
    writeFileSync(join(precious, 'thesis.docx'), 'x');
    await expect(engine.fromArrow(src).writeParquet(precious, { partitionBy: 'region' })).rejects.toBeInstanceOf(InputError);
    expect(existsSync(join(precious, 'thesis.docx'))).toBe(true);
  });
});

describe('compressed text and NDJSON', () => {
  const csv = 'id,name\n1,a\n2,b\n3,"c,d"\n';
  it('.csv.gz and .csv.zst decompress on the fly; a folder of CSV parts is one source', async () => {
    const root = join(dir, 'csvs');
    mkdirSync(root);
    writeFileSync(join(root, 'a.csv.gz'), gzipSync(csv));
    writeFileSync(join(root, 'b.csv.zst'), Uint8Array.prototype.slice.call(zstd.compress(Buffer.from('id,name\n4,e\n'), 3)));
    writeFileSync(join(root, 'c.csv'), 'name,id\nf,5\n'); // by name: the first file's schema applies
    const t = await engine.readCsv(root).collect();
    expect(col(t, 'id')).toEqual([1, 2, 3, 4, 5]);
    expect(col(t, 'name')).toEqual(['a', 'b', 'c,d', 'e', 'f']);
    writeFileSync(join(dir, 'broken.csv.gz'), Buffer.from('not gzip at all'));
    const err = await engine.readCsv(join(dir, 'broken.csv.gz')).collect().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as Error).message).toContain('broken.csv.gz');
  });

  it('readNdjson: inferred schema (nested too), a given schema, errors with the line', async () => {
    const p = join(dir, 'rows.ndjson.gz');
    const lines = ['{"id": 1, "name": "a", "tags": ["x"], "pos": {"x": 1.5}}', '', '{"id": 2, "name": null, "extra": true, "tags": [], "pos": {"x": 2}}', '{"id": 3, "mix": 1}', '{"id": 4, "mix": "one"}'];
    writeFileSync(p, gzipSync(lines.join('\n') + '\n'));
    const t = await engine.readNdjson(p).collect();
    expect(t.schema.fields.map((f) => `${f.name}:${String(f.type)}`)).toEqual([
      'id:Int64',
      'name:Utf8',
      'tags:List<Utf8>',
      'pos:Struct<{x:Float64}>',
      'extra:Bool',
      'mix:Utf8',
    ]);
    expect(col(t, 'id')).toEqual([1, 2, 3, 4]);
    expect(col(t, 'mix')).toEqual([null, null, '1', 'one']);
    expect([...t.getChild('tags')!].map((l) => (l ? [...l] : l))).toEqual([['x'], [], null, null]);
    const g = await engine.readNdjson(p, { schema: { id: 'int32', name: 'utf8' } }).collect();
    expect(g.schema.fields.map((f) => f.name)).toEqual(['id', 'name']);
    const bad = join(dir, 'bad.ndjson');
    writeFileSync(bad, '{"id": 1}\n{"id": "x"}\n');
    const err = await engine.readNdjson(bad, { schema: 'id int64' }).collect().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).details).toMatchObject({ line: 2, column: 'id' });
    writeFileSync(bad, '{"id": 1}\n[1]\n');
    expect(await engine.readNdjson(bad).collect().catch((e: unknown) => e)).toBeInstanceOf(InputError);
    writeFileSync(bad, '{"id": 12345678901234567890}\n');
    const big = await engine.readNdjson(bad, { schema: 'id int64' }).collect().catch((e: unknown) => e);
    expect((big as Error).message).toMatch(/2\^53/);
  });
});
