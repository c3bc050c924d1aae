/**
 * A job file's `output` with the writers' options (API.md writeParquet / writeIpc):
 * `compression` (Parquet: none snappy gzip brotli lz4 zstd; Arrow IPC: none lz4 zstd) and
 * `partitionBy` (Parquet only: Hive folders), `rowGroupSize` (Parquet only) and `ipcFormat`
 * (writeIpc's `format`, Arrow IPC only), through the built CLI; each output read back.
 * A compression the format has not, partitionBy on another format or on stdout, a writer
 * option on a format whose writer lacks it, is one error line naming the job file, with exit 2,
 * and writes nothing.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import * as pq from 'parquet-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src/index.js';
import { tempDir, writeJob } from './helpers.js';
import { BUILT, errorLines, sluice } from './spawn.js';

let dir: string;
let cleanup: () => Promise<void>;
beforeAll(async () => ({ dir, cleanup } = await tempDir()));
afterAll(async () => cleanup());

const T0 = ['--threads', '0', '--quiet'];
const trades = { t: { type: 'demo', dataset: 'trades', rows: 300, seed: 3 } };
const job = (name: string, output: unknown) => writeJob(dir, name, { sources: trades, output });

/** Rows as sorted lines of key-sorted JSON: the same rows whatever the column or row order. */
function rowSet(ndjson: string): string[] {
  return ndjson
    .trimEnd()
    .split('\n')
    .map((l) => JSON.stringify(Object.fromEntries(Object.entries(JSON.parse(l) as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))))
    .sort();
}

async function codecs(path: string): Promise<pq.Compression[]> {
  const f = await pq.ParquetFile.fromFile(new Blob([await readFile(path)]));
  try {
    const meta = f.metadata();
    return [...new Set(Array.from({ length: meta.numRowGroups() }, (_, g) => meta.rowGroup(g).columns().map((c) => c.compression())).flat())];
  } finally {
    f.free();
  }
}

/** The rows of each row group of a Parquet file, from its metadata. */
async function rowGroupRows(bytes: Uint8Array): Promise<number[]> {
  const f = await pq.ParquetFile.fromFile(new Blob([bytes]));
  try {
    const meta = f.metadata();
    return Array.from({ length: meta.numRowGroups() }, (_, g) => meta.rowGroup(g).numRows());
  } finally {
    f.free();
  }
}

/** The first bytes of an IPC stream: a continuation marker (0xFFFFFFFF), then the schema message. */
const STREAM_START = Buffer.from([0xff, 0xff, 0xff, 0xff]);

describe.skipIf(!BUILT)('job output options', () => {
  let expected: string[];
  beforeAll(async () => {
    const r = await sluice([...T0, 'run', await job('plain.json', undefined), '-o', '-', '--format', 'ndjson']);
    expect(r.code).toBe(0);
    expected = rowSet(r.stdout.toString());
    expect(expected).toHaveLength(300);
  });

  it('Parquet with zstd (and gzip) compression, read back', async () => {
    for (const [compression, codec] of [['zstd', pq.Compression.ZSTD], ['gzip', pq.Compression.GZIP]] as const) {
      const path = join(dir, `${compression}.parquet`);
      const r = await sluice([...T0, 'run', await job(`${compression}.json`, { path: `${compression}.parquet`, compression })]);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(await codecs(path)).toEqual([codec]);
      const back = await sluice([...T0, 'head', path, '-n', '1000', '--format', 'ndjson']);
      expect(rowSet(back.stdout.toString())).toEqual(expected);
    }
  });

  it('Arrow IPC with lz4 compression, read back', async () => {
    const r = await sluice([...T0, 'run', await job('lz4.json', { path: 'lz4.arrow', compression: 'lz4' })]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    await sluice([...T0, 'run', await job('none.json', { path: 'none.arrow' })]);
    expect((await stat(join(dir, 'lz4.arrow'))).size).not.toBe((await stat(join(dir, 'none.arrow'))).size);
    const engine = new Engine({ threads: 0 });
    try {
      expect((await engine.readIpc(join(dir, 'lz4.arrow')).collect()).numRows).toBe(300);
    } finally {
      await engine.close();
    }
    const back = await sluice([...T0, 'head', join(dir, 'lz4.arrow'), '-n', '1000', '--format', 'ndjson']);
    expect(rowSet(back.stdout.toString())).toEqual(expected);
  });

  it('Parquet with a small rowGroupSize has that many row groups, to a file and to stdout', async () => {
    const r = await sluice([...T0, 'run', await job('groups.json', { path: 'groups.parquet', rowGroupSize: 64 })]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(await rowGroupRows(await readFile(join(dir, 'groups.parquet')))).toEqual([64, 64, 64, 64, 44]);
    const back = await sluice([...T0, 'head', join(dir, 'groups.parquet'), '-n', '1000', '--format', 'ndjson']);
    expect(rowSet(back.stdout.toString())).toEqual(expected);
    const out = await sluice([...T0, 'run', await job('groups-stdout.json', { path: '-', format: 'parquet', rowGroupSize: 100 })]);
    expect(out.code).toBe(0);
    expect(await rowGroupRows(out.stdout)).toEqual([100, 100, 100]);
  });

  it('ipcFormat stream writes the IPC stream format where the file format is the default; file on stdout', async () => {
    const r = await sluice([...T0, 'run', await job('stream.json', { path: 'stream.bin', format: 'arrow', ipcFormat: 'stream' })]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const bytes = await readFile(join(dir, 'stream.bin'));
    expect(bytes.subarray(0, 4)).toEqual(STREAM_START);
    expect(bytes.subarray(0, 6).toString('latin1')).not.toBe('ARROW1');
    await sluice([...T0, 'run', await job('file.json', { path: 'file.bin', format: 'arrow' })]);
    expect((await readFile(join(dir, 'file.bin'))).subarray(0, 6).toString('latin1')).toBe('ARROW1');
    const back = await sluice([...T0, 'head', '--input-format', 'arrow', join(dir, 'stream.bin'), '-n', '1000', '--format', 'ndjson']);
    expect(rowSet(back.stdout.toString())).toEqual(expected);
    // the extension's own format, said again, is fine
    expect((await sluice([...T0, 'run', await job('arrows.json', { path: 'same.arrows', ipcFormat: 'stream' })])).code).toBe(0);
    expect((await readFile(join(dir, 'same.arrows'))).subarray(0, 4)).toEqual(STREAM_START);
    const out = await sluice([...T0, 'run', await job('file-stdout.json', { path: '-', format: 'arrow', ipcFormat: 'file' })]);
    expect(out.code).toBe(0);
    expect(out.stdout.subarray(0, 6).toString('latin1')).toBe('ARROW1');
    expect(out.stdout.subarray(-6).toString('latin1')).toBe('ARROW1');
  });

  it('a Hive-partitioned Parquet output by one column, read back', async () => {
    const r = await sluice(['--threads', '0', 'run', await job('parts.json', { path: 'parts', format: 'parquet', partitionBy: 'sym', compression: 'snappy' })]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^sluice: wrote 300 rows \(parquet, \d+ files?\) to .*parts in /);
    const folders = (await readdir(join(dir, 'parts'))).sort();
    const syms = [...new Set(expected.map((l) => (JSON.parse(l) as { sym: string }).sym))].sort();
    expect(folders).toEqual(syms.map((s) => `sym=${s}`));
    const part = join(dir, 'parts', folders[0]!, 'part-00000.parquet');
    expect(await codecs(part)).toEqual([pq.Compression.SNAPPY]);
    const back = await sluice([...T0, 'head', join(dir, 'parts'), '-n', '1000', '--format', 'ndjson']);
    expect(back.stderr).toBe('');
    expect(rowSet(back.stdout.toString())).toEqual(expected);
  });

  it('-o replaces the whole job output, its options too', async () => {
    const r = await sluice([...T0, 'run', join(dir, 'parts.json'), '-o', join(dir, 'flat.csv')]);
    expect(r.code).toBe(0);
    expect((await readFile(join(dir, 'flat.csv'), 'utf8')).split('\n')[0]).toBe('sym,ts,price,qty,venue');
  });

  const ERRORS: Array<[string, unknown, RegExp]> = [
    ['a Parquet codec on Arrow IPC', { path: 'bad.arrow', compression: 'snappy' }, /^sluice: error: \S+\/bad\.json: \$\.output\.compression: arrow \(Arrow IPC\) output is compressed with none, lz4, zstd, not "snappy"/],
    ['compression on CSV', { path: 'bad.csv', compression: 'zstd' }, /^sluice: error: \S+\/bad\.json: \$\.output\.compression: csv output is not compressed; compression is for parquet \(.*\) and arrow \(none, lz4, zstd\)/],
    ['a codec no writer has', { path: 'bad.parquet', compression: 'lzo' }, /^sluice: error: .*\$\.output\.compression: expected one of "none", "snappy", "gzip", "brotli", "lz4", "zstd", got "lzo"/],
    ['partitionBy on CSV', { path: 'bad-csv', format: 'csv', partitionBy: 'sym' }, /^sluice: error: \S+\/bad\.json: \$\.output\.partitionBy: only parquet output can be partitioned \(Hive-style key=value folders\), not csv/],
    ['partitionBy on Arrow IPC', { path: 'bad.arrow', partitionBy: ['sym'] }, /^sluice: error: \S+\/bad\.json: \$\.output\.partitionBy: only parquet output can be partitioned .*, not arrow/],
    ['partitionBy to stdout', { path: '-', format: 'parquet', partitionBy: 'sym' }, /^sluice: error: \S+\/bad\.json: \$\.output\.partitionBy: a partitioned output is a folder of files/],
    ['partitionBy on a column the result lacks', { path: 'bad-parts', format: 'parquet', partitionBy: 'nope' }, /^sluice: error: PlanError \[UNKNOWN_COLUMN\]: \$\.output: partitionBy column nope is not in the output \(columns: sym, ts, price, qty, venue\)\n$/],
    ['an unknown output key', { path: 'bad.parquet', rowGroups: 5 }, /^sluice: error: .*\$\.output: unknown key "rowGroups"/],
    ['rowGroupSize on Arrow IPC', { path: 'bad.arrow', rowGroupSize: 10 }, /^sluice: error: \S+\/bad\.json: \$\.output\.rowGroupSize: only parquet output has row groups, not arrow/],
    ['rowGroupSize on CSV', { path: 'bad.csv', rowGroupSize: 10 }, /^sluice: error: \S+\/bad\.json: \$\.output\.rowGroupSize: only parquet output has row groups, not csv/],
    ['rowGroupSize 0', { path: 'bad.parquet', rowGroupSize: 0 }, /^sluice: error: .*\$\.output\.rowGroupSize: expected an integer/],
    ['ipcFormat on Parquet', { path: 'bad.parquet', ipcFormat: 'stream' }, /^sluice: error: \S+\/bad\.json: \$\.output\.ipcFormat: only arrow \(Arrow IPC\) output is written in the file or the stream format, not parquet/],
    ['ipcFormat on CSV to stdout', { path: '-', ipcFormat: 'file' }, /^sluice: error: \S+\/bad\.json: \$\.output\.ipcFormat: only arrow .*, not csv/],
    ['ipcFormat against the extension', { path: 'bad.arrows', ipcFormat: 'file' }, /^sluice: error: \S+\/bad\.json: \$\.output\.ipcFormat file disagrees with the extension of ".*bad\.arrows" \(\.arrows is the Arrow IPC stream format\); change one of them/],
    ['an ipcFormat no writer has', { path: 'bad.arrow', ipcFormat: 'streaming' }, /^sluice: error: .*\$\.output\.ipcFormat: expected one of "file", "stream", got "streaming" \(string\); did you mean "stream"\?/],
  ];
  it.each(ERRORS)('%s: one error line, exit 2, nothing written', async (name, output, line) => {
    const before = await readdir(dir);
    const r = await sluice([...T0, 'run', await job('bad.json', output)]);
    expect(r.code).toBe(2);
    expect(errorLines(r.stderr)).toHaveLength(1);
    expect(r.stderr).toMatch(line);
    expect(r.stdout.length).toBe(0);
    expect((await readdir(dir)).filter((f) => !before.includes(f) && f !== 'bad.json'), name).toEqual([]);
  });
});
