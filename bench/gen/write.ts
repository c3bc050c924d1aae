/**
 * Data sets on disk: generated once into `<data root>/<data set>/` (Arrow IPC file format,
 * streamed batch by batch), converted on demand to Parquet (zstd) and CSV by Polars' streaming
 * sinks (`scanIPC(...).sinkParquet/sinkCSV`, bounded memory at any size), reused while their
 * meta.json matches. Every file is written under a temporary name and renamed when complete.
 *
 * Parquet goes through DuckDB at the end (`COPY (SELECT * FROM read_parquet(polars file)) TO
 * ...`, zstd, row order kept): Polars writes its Arrow schema into the footer, so readers that
 * honour it (Sluice through parquet-wasm) get LargeUtf8 / LargeList columns, which Sluice
 * cannot use as ASOF `by` keys; DuckDB's files carry plain Parquet types, read as Utf8 / List
 * by all three systems.
 */
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statfsSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { AsyncByteQueue, RecordBatchFileWriter, util } from 'apache-arrow';
import { datasetDir, type DatasetSpec, filesOf, type GeneratedFile } from './datasets.js';

/** bump when a generator changes what it writes */
const GEN_VERSION = 1;

export type FileFormat = 'ipc' | 'parquet' | 'csv';

export interface DatasetFiles {
  dir: string;
  /** role (file name without extension: window, trades, quotes, explode, fact, dim, distinct) -> path per format */
  files: Record<string, Partial<Record<FileFormat, string>>>;
  rows: Record<string, number>;
}

export class NoSpaceError extends Error {}

interface Meta { version: number; spec: DatasetSpec; files: Record<string, { rows: number; bytes: number }>; }

const log = (s: string) => process.stderr.write(`[data] ${s}\n`);

/**
 * apache-arrow's writers push their bytes into an AsyncByteQueue that nothing bounds (a writer
 * faster than the disk queues the whole file in memory); this one only collects them, and each
 * batch's bytes are written out synchronously before the next batch is made.
 */
class CollectingSink extends AsyncByteQueue {
  chunks: Uint8Array[] = [];
  override write(value: Uint8Array | ArrayBufferLike | ArrayBufferView | string): void {
    const u8 = util.toUint8Array(value as ArrayBufferView);
    if (u8.byteLength > 0) this.chunks.push(u8);
  }
  drainTo(fd: number): void {
    for (const c of this.chunks) writeSync(fd, c);
    this.chunks = [];
  }
}

async function writeIpcFile(path: string, f: GeneratedFile): Promise<number> {
  const tmp = `${path}.tmp-${process.pid}`;
  const fd = openSync(tmp, 'w');
  try {
    const sink = new CollectingSink();
    const writer = new RecordBatchFileWriter();
    writer.reset(sink);
    for (const b of f.batches()) {
      writer.write(b);
      sink.drainTo(fd);
    }
    writer.finish();
    sink.drainTo(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  return statSync(path).size;
}

export function freeBytes(dir: string): number {
  const s = statfsSync(dir);
  return s.bavail * s.bsize;
}

/** rough bytes per row of a generated IPC file, for the free-space check before writing */
const BYTES_PER_ROW: Record<DatasetSpec['kind'], number> = { window: 68, market: 22, orders: 210, join: 35, distinct: 28 };
/** Parquet + CSV add about this factor on top of the IPC file */
const CONVERSION_FACTOR: Record<FileFormat, number> = { ipc: 0, parquet: 0.5, csv: 0.9 };

export function estimateBytes(spec: DatasetSpec, formats: FileFormat[]): number {
  const rows = spec.rows + (spec.kind === 'market' ? (spec.rightRows ?? spec.rows) : spec.kind === 'join' ? spec.dimRows : 0);
  const ipc = rows * BYTES_PER_ROW[spec.kind];
  return ipc * (1 + formats.reduce((a, f) => a + CONVERSION_FACTOR[f], 0));
}

async function convert(ipc: string, format: Exclude<FileFormat, 'ipc'>): Promise<string> {
  const path = ipc.replace(/\.ipc$/, `.${format}`);
  if (existsSync(path)) return path;
  const { default: pl } = await import('nodejs-polars');
  const tmp = `${path}.tmp-${process.pid}`;
  const t0 = performance.now();
  const lf = pl.scanIPC(ipc);
  if (format === 'parquet') {
    const polarsFile = `${tmp}.polars`;
    await lf.sinkParquet(polarsFile, { compression: 'zstd' }).collect();
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const db = await DuckDBInstance.create(':memory:', { threads: '2', preserve_insertion_order: 'true' });
    const conn = await db.connect();
    try {
      await conn.run(`COPY (SELECT * FROM read_parquet('${polarsFile}')) TO '${tmp}' (FORMAT parquet, COMPRESSION zstd)`);
    } finally {
      conn.closeSync(); db.closeSync(); rmSync(polarsFile, { force: true });
    }
  } else await lf.sinkCSV(tmp).collect();
  renameSync(tmp, path);
  log(`${path}: ${(statSync(path).size / 2 ** 20).toFixed(0)} MiB in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return path;
}

/**
 * Makes sure the data set exists in `root` with the given formats (IPC always) and returns its
 * paths. Throws NoSpaceError (nothing written) when the free space under `root` is less than
 * the estimate plus `reserveBytes`.
 */
export async function ensureDataset(root: string, spec: DatasetSpec, formats: FileFormat[] = [], reserveBytes = 2 * 2 ** 30): Promise<DatasetFiles> {
  const dir = join(root, datasetDir(spec));
  const gen = filesOf(spec);
  const metaPath = join(dir, 'meta.json');
  let meta: Meta | undefined;
  if (existsSync(metaPath)) {
    const m = JSON.parse(readFileSync(metaPath, 'utf8')) as Meta;
    if (m.version === GEN_VERSION && JSON.stringify(m.spec) === JSON.stringify(spec) && gen.every((f) => existsSync(join(dir, f.name)))) meta = m;
  }
  const missing = formats.filter((fmt) => fmt !== 'ipc' && gen.some((f) => (fmt !== 'csv' || f.csv) && !existsSync(join(dir, f.name.replace(/\.ipc$/, `.${fmt}`)))));
  const writes = !meta || missing.length > 0;
  if (!meta || missing.length) {
    mkdirSync(dir, { recursive: true });
    const need = estimateBytes(spec, meta ? missing : (['ipc', ...formats] as FileFormat[])) - (meta ? estimateBytes(spec, []) : 0);
    const free = freeBytes(dir);
    if (need + reserveBytes > free) {
      throw new NoSpaceError(`data set ${datasetDir(spec)} needs about ${(need / 2 ** 30).toFixed(1)} GiB, ${(free / 2 ** 30).toFixed(1)} GiB free under ${root} (keeping ${(reserveBytes / 2 ** 30).toFixed(0)} GiB spare)`);
    }
  }
  if (!meta) {
    rmSync(metaPath, { force: true });
    const files: Meta['files'] = {};
    for (const f of gen) {
      const t0 = performance.now();
      for (const ext of ['parquet', 'csv']) rmSync(join(dir, f.name.replace(/\.ipc$/, `.${ext}`)), { force: true });
      const bytes = await writeIpcFile(join(dir, f.name), f);
      files[f.name] = { rows: f.rows, bytes };
      log(`${join(dir, f.name)}: ${f.rows} rows, ${(bytes / 2 ** 20).toFixed(0)} MiB in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    }
    meta = { version: GEN_VERSION, spec, files };
    writeFileSync(metaPath, JSON.stringify(meta, null, 2));
  }
  const described = await describe(dir, gen.map((f) => ({ name: f.name, rows: f.rows, csv: f.csv })), formats);
  // Fresh files flushed before any timed run: their writeback otherwise overlaps the first cases
  // (seen: a 10M-row join 40% slower right after its data was written than in a later run).
  if (writes) execFileSync('sync');
  return described;
}

/** paths of the files of a data set folder (generated or given with --data) */
export async function describe(dir: string, names: Array<{ name: string; rows: number; csv: boolean }>, formats: FileFormat[]): Promise<DatasetFiles> {
  const out: DatasetFiles = { dir, files: {}, rows: {} };
  for (const f of names) {
    const ipc = join(dir, f.name);
    if (!existsSync(ipc)) throw new Error(`missing data file ${ipc}`);
    const role = f.name.replace(/\.ipc$/, '');
    const paths: Partial<Record<FileFormat, string>> = { ipc };
    for (const fmt of formats) {
      if (fmt === 'ipc' || (fmt === 'csv' && !f.csv)) continue;
      paths[fmt] = await convert(ipc, fmt);
    }
    out.files[role] = paths;
    out.rows[role] = f.rows;
  }
  return out;
}

export const namesOf = (spec: DatasetSpec) => filesOf(spec).map((f) => ({ name: f.name, rows: f.rows, csv: f.csv }));
