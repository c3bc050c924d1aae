/**
 * Data files for the end-to-end tests, the same 1,000 rows (two batches) in every input
 * format: Parquet, Arrow IPC file and stream, CSV and TSV. `expectedSummary` is what
 * `sluice describe` must print, computed here from plain JS arrays.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as A from 'apache-arrow';
import { Engine } from '../../src/index.js';
import { writeIpcAtomic } from '../../src/io/ipc.js';

export const ROWS = 1000;

export interface Columns {
  id: bigint[];
  name: Array<string | null>;
  price: number[];
  ts: bigint[];
  flag: Array<boolean | null>;
}

export function columns(): Columns {
  const c: Columns = { id: [], name: [], price: [], ts: [], flag: [] };
  for (let i = 0; i < ROWS; i++) {
    c.id.push(i === 500 ? 2n ** 62n + 1n : BigInt(i * 3 - 700));
    c.name.push(i % 7 === 0 ? null : `n${(i * 7919) % 13}`);
    c.price.push((i - 500) / 8);
    c.ts.push(1_700_000_000_000n + BigInt(((i * 7919) % ROWS) * 1000));
    c.flag.push(i % 11 === 0 ? null : i % 3 === 0);
  }
  return c;
}

export function table(): A.Table {
  const c = columns();
  const schema = new A.Schema([
    new A.Field('id', new A.Int64(), false),
    new A.Field('name', new A.Utf8(), true),
    new A.Field('price', new A.Float64(), false),
    new A.Field('ts', new A.TimestampMillisecond(), false),
    new A.Field('flag', new A.Bool(), true),
  ]);
  const batches: A.RecordBatch[] = [];
  for (let start = 0; start < ROWS; start += 500) {
    const end = start + 500;
    const data = [
      A.vectorFromArray(c.id.slice(start, end), new A.Int64()),
      A.vectorFromArray(c.name.slice(start, end), new A.Utf8()),
      A.vectorFromArray(c.price.slice(start, end), new A.Float64()),
      A.makeVector({ type: new A.TimestampMillisecond(), data: BigInt64Array.from(c.ts.slice(start, end)) }),
      A.vectorFromArray(c.flag.slice(start, end), new A.Bool()),
    ].map((v) => v.data[0]!);
    batches.push(new A.RecordBatch(schema, A.makeData({ type: new A.Struct(schema.fields), length: 500, nullCount: 0, children: data })));
  }
  return new A.Table(schema, batches);
}

/** Writes data.{parquet,arrow,arrows,csv,tsv} into `dir`; returns their paths by format. */
export async function writeFixtures(dir: string): Promise<Record<'parquet' | 'arrow' | 'arrows' | 'csv' | 'tsv', string>> {
  const t = table();
  const engine = new Engine({ threads: 0 });
  try {
    const paths = {
      parquet: join(dir, 'data.parquet'),
      arrow: join(dir, 'data.arrow'),
      arrows: join(dir, 'data.arrows'),
      csv: join(dir, 'data.csv'),
      tsv: join(dir, 'data.tsv'),
    };
    await engine.fromArrow(t).writeParquet(paths.parquet);
    await engine.fromArrow(t).writeIpc(paths.arrow);
    await writeIpcAtomic(paths.arrows, t.schema, t.batches, { format: 'stream' });
    await engine.fromArrow(t).writeCsv(paths.csv);
    const c = columns();
    const iso = (ms: bigint): string => new Date(Number(ms)).toISOString().replace('Z', '').replace(/\.000$/, '');
    const lines = ['id\tname\tprice\tts\tflag'];
    for (let i = 0; i < ROWS; i++) lines.push([c.id[i], c.name[i] ?? '', c.price[i], iso(c.ts[i]!), c.flag[i] ?? ''].join('\t'));
    await writeFile(paths.tsv, `${lines.join('\n')}\n`);
    return paths;
  } finally {
    await engine.close();
  }
}

/** What describe reports per column: rows, nulls, min, max (as CSV text). */
export function expectedSummary(): Array<{ column: string; rows: number; nulls: number; min: string; max: string }> {
  const c = columns();
  const iso = (ms: bigint): string => new Date(Number(ms)).toISOString().replace('Z', '').replace(/\.000$/, '');
  const big = (xs: bigint[]) => [xs.reduce((a, b) => (b < a ? b : a)), xs.reduce((a, b) => (b > a ? b : a))];
  const names = c.name.filter((x): x is string => x !== null).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  const flags = c.flag.filter((x): x is boolean => x !== null);
  const [ts0, ts1] = big(c.ts);
  const [id0, id1] = big(c.id);
  return [
    { column: 'id', rows: ROWS, nulls: 0, min: String(id0), max: String(id1) },
    { column: 'name', rows: ROWS, nulls: c.name.length - names.length, min: names[0]!, max: names.at(-1)! },
    { column: 'price', rows: ROWS, nulls: 0, min: String(Math.min(...c.price)), max: String(Math.max(...c.price)) },
    { column: 'ts', rows: ROWS, nulls: 0, min: iso(ts0!), max: iso(ts1!) },
    { column: 'flag', rows: ROWS, nulls: c.flag.length - flags.length, min: String(flags.some((f) => !f) ? false : true), max: String(flags.some((f) => f)) },
  ];
}
