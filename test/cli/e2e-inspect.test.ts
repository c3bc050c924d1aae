/**
 * `sluice head|schema|describe FILE` on every input format, through the built CLI: the same
 * rows, columns, types, NULL counts and min/max from Parquet, Arrow IPC (file and stream,
 * also from stdin), CSV and TSV; any output format; NDJSON (file and stdin).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { tableFromArrays, tableFromIPC, tableToIPC } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';
import { expectedSummary, ROWS, writeFixtures } from './fixtures.js';
import { BUILT, errorLines, sluice } from './spawn.js';

let dir: string;
let cleanup: () => Promise<void>;
let files: Awaited<ReturnType<typeof writeFixtures>>;
beforeAll(async () => {
  ({ dir, cleanup } = await tempDir());
  files = await writeFixtures(dir);
});
afterAll(async () => cleanup());

const FORMATS = ['parquet', 'arrow', 'arrows', 'csv', 'tsv'] as const;

function parseCsv(text: string): string[][] {
  return text
    .trimEnd()
    .split('\n')
    .map((l) => l.split(','));
}

describe.skipIf(!BUILT)('sluice head / schema / describe', () => {
  it.each(FORMATS)('describe %s: rows, NULL counts, min and max of every column', async (f) => {
    const r = await sluice(['--threads', '0', 'describe', files[f], '--format', 'json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const rows = JSON.parse(r.stdout.toString()) as Array<Record<string, unknown>>;
    expect(rows.map(({ column, rows, nulls, min, max }) => ({ column, rows, nulls, min, max }))).toEqual(expectedSummary());
    if (f === 'parquet' || f === 'arrow' || f === 'arrows') {
      expect(rows.map((x) => x.type)).toEqual(['int64', 'utf8', 'float64', 'timestamp[ms]', 'bool']);
    }
  });

  it.each(FORMATS)('schema %s: one row per column with its type', async (f) => {
    const r = await sluice(['--threads', '0', 'schema', files[f]]);
    expect(r.code).toBe(0);
    const lines = parseCsv(r.stdout.toString());
    expect(lines[0]).toEqual(['column', 'type', 'nullable']);
    expect(lines.slice(1).map((l) => l[0])).toEqual(['id', 'name', 'price', 'ts', 'flag']);
    if (f !== 'csv' && f !== 'tsv') expect(lines[1]).toEqual(['id', 'int64', 'false']);
  });

  it.each(FORMATS)('head %s: the first rows, in any output format', async (f) => {
    const r = await sluice(['--threads', '0', 'head', '-n', '3', files[f]]);
    expect(r.code).toBe(0);
    const lines = parseCsv(r.stdout.toString());
    expect(lines).toHaveLength(4);
    expect(lines[0]).toEqual(['id', 'name', 'price', 'ts', 'flag']);
    expect(lines[1]!.slice(0, 3)).toEqual(['-700', '', '-62.5']);
    expect(lines[1]![3]).toMatch(/^2023-11-14T22:13:20(\.000)?$/);
    expect(lines[2]!.slice(0, 3)).toEqual(['-697', 'n2', '-62.375']);
  });

  it('head on a terminal-style table, and with -o to a file', async () => {
    const t = await sluice(['--threads', '0', '--format', 'table', 'head', files.parquet]);
    expect(t.code).toBe(0);
    expect(t.stdout.toString()).toMatch(/10 rows, 5 columns\n$/);
    const out = `${dir}/head.arrow`;
    const o = await sluice(['--threads', '0', '--quiet', 'head', '-n', '7', files.csv, '-o', out]);
    expect(o.code).toBe(0);
    expect(tableFromIPC(await readFile(out)).numRows).toBe(7);
  });

  it('head - of an endless CSV or NDJSON stream prints its rows and ends (stdin is read only that far)', async () => {
    const csv = await sluice(['--threads', '0', 'head', '-', '-n', '2'], { stdin: 'a,b\n', stdinForever: '1,2\n' });
    expect(csv.timedOut).toBe(false);
    expect(csv.code).toBe(0);
    expect(csv.stdout.toString()).toBe('a,b\n1,2\n1,2\n');
    const nd = await sluice(['--threads', '0', 'head', '-', '-n', '3', '--input-format', 'ndjson', '--format', 'csv'], { stdinForever: '{"x":7}\n' });
    expect(nd.code).toBe(0);
    expect(nd.stdout.toString()).toBe('x\n7\n7\n7\n');
    // quoted line breaks (many a record) do not end a record: the rows shown are whole
    const quoted = await sluice(['--threads', '0', 'head', '-', '-n', '2', '--format', 'ndjson'], { stdin: 'a,b\n1,"x\ny"\n', stdinForever: '3,"p\nq\nr\ns\nt"\n' });
    expect(quoted.code).toBe(0);
    expect(quoted.stdout.toString()).toBe('{"a":1,"b":"x\\ny"}\n{"a":3,"b":"p\\nq\\nr\\ns\\nt"}\n');
  });

  it('head - into a temp folder where no file can be made (/proc): a clean error line, no stack', async () => {
    const r = await sluice(['--threads', '0', '--temp-dir', '/proc', 'head', '-'], { stdin: 'a,b\n', stdinForever: '1,2\n' });
    expect(r.timedOut).toBe(false);
    expect([1, 2]).toContain(r.code);
    expect(errorLines(r.stderr)).toHaveLength(1);
    expect(r.stderr).toMatch(/^sluice: error: ExecutionError \[WRITE_FAILED\]: Copying standard input to a temp file in \/proc failed: .*--temp-dir/);
  });

  it('Arrow IPC stream on stdin: head - and describe -', async () => {
    const bytes = await readFile(files.arrows);
    const h = await sluice(['--threads', '0', 'head', '-', '-n', '2'], { stdin: bytes });
    expect(h.stderr).toBe('');
    expect(h.code).toBe(0);
    expect(parseCsv(h.stdout.toString())).toHaveLength(3);
    const d = await sluice(['--threads', '0', 'describe', '-', '--format', 'ndjson'], { stdin: bytes });
    expect(d.code).toBe(0);
    const first = JSON.parse(d.stdout.toString().split('\n')[0]!);
    expect(first).toMatchObject({ column: 'id', rows: ROWS, nulls: 0 });
  });

  it('CSV on stdin: describe - gives the same summary as the file', async () => {
    const r = await sluice(['--threads', '0', 'describe', '-', '--format', 'json'], { stdin: await readFile(files.csv) });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const rows = JSON.parse(r.stdout.toString()) as Array<Record<string, unknown>>;
    expect(rows.map(({ column, rows, nulls, min, max }) => ({ column, rows, nulls, min, max }))).toEqual(expectedSummary());
  });

  it('NDJSON from a file and from stdin: head, schema', async () => {
    const text = '{"id":1,"name":"a"}\n{"id":2,"name":null}\n{"id":3,"name":"c"}\n';
    const path = `${dir}/t.ndjson`;
    await writeFile(path, text);
    const h = await sluice(['--threads', '0', 'head', '-n', '2', path]);
    expect(h.stderr).toBe('');
    expect(h.stdout.toString()).toBe('id,name\n1,a\n2,\n');
    const s = await sluice(['--threads', '0', 'schema', '-'], { stdin: Buffer.from(text) });
    expect(s.stderr).toBe('');
    expect(parseCsv(s.stdout.toString())).toEqual([['column', 'type', 'nullable'], ['id', 'int64', 'true'], ['name', 'utf8', 'true']]);
  });

  it('reads back the JSON arrays it writes (.json), by extension and from stdin, also on one line', async () => {
    const json = `${dir}/back.json`;
    const w = await sluice(['--threads', '0', '--quiet', 'head', '-n', '3', files.csv, '-o', json]);
    expect(w.code).toBe(0);
    const direct = await sluice(['--threads', '0', 'head', '-n', '3', files.csv]);
    const h = await sluice(['--threads', '0', 'head', json]);
    expect(h.stderr).toBe('');
    expect(h.stdout.toString()).toBe(direct.stdout.toString());
    const piped = await sluice(['--threads', '0', 'head', '-'], { stdin: await readFile(json) });
    expect(piped.stdout.toString()).toBe(direct.stdout.toString());
    await writeFile(`${dir}/line.json`, '[{"a":1,"b":"x"},{"a":2,"b":null}]\n');
    const one = await sluice(['--threads', '0', 'head', `${dir}/line.json`]);
    expect(one.stdout.toString()).toBe('a,b\n1,x\n2,\n');
    await writeFile(`${dir}/pretty.json`, '[\n  {\n    "a": 1\n  }\n]\n');
    const pretty = await sluice(['--threads', '0', 'head', `${dir}/pretty.json`]);
    expect(pretty.code).not.toBe(0);
    expect(pretty.stderr).toMatch(/INPUT_MALFORMED.*each element is on a line of its own/);
  });

  it('head -n N shows N rows in the table view (unless --max-rows says otherwise)', async () => {
    const t = await sluice(['--threads', '0', '--format', 'table', 'head', '-n', '30', files.csv]);
    expect(t.stdout.toString()).toMatch(/\b30 rows, 5 columns\n$/);
    expect(t.stdout.toString()).not.toMatch(/shown/);
    const capped = await sluice(['--threads', '0', '--format', 'table', '--max-rows', '6', 'head', '-n', '30', files.csv]);
    expect(capped.stdout.toString()).toMatch(/30 rows \(6 shown\)/);
  });

  it('a CSV folder whose later file has other columns: InputError SCHEMA_MISMATCH naming both files', async () => {
    const fold = `${dir}/csvfold`;
    await mkdir(fold, { recursive: true });
    await writeFile(`${fold}/1.csv`, 'a,b\n1,2\n');
    await writeFile(`${fold}/2.csv`, 'a,c\n5,6\n');
    const r = await sluice(['--threads', '0', 'head', fold]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/InputError \[SCHEMA_MISMATCH\]: CSV file .*2\.csv has columns \(a, c\) but the first file .*1\.csv has \(a, b\)/);
  });

  it('a folder mixing formats is a usage error naming them; --input-format reads one of them', async () => {
    const fold = `${dir}/mixedfold`;
    await mkdir(`${fold}/sub`, { recursive: true });
    await writeFile(`${fold}/a.csv`, 'a,b\n1,2\n');
    await writeFile(`${fold}/sub/b.csv`, 'a,b\n3,4\n');
    await writeFile(`${fold}/c.ndjson`, '{"a":5}\n');
    await writeFile(`${fold}/README.txt`, 'notes: not read by a folder read, not counted\n');
    const r = await sluice(['--threads', '0', 'describe', fold]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/mixes formats \(2 csv files, 1 ndjson file\): pass --input-format/);
    const csv = await sluice(['--threads', '0', 'head', fold, '--input-format', 'csv']);
    expect(csv.code).toBe(0);
    expect(parseCsv(csv.stdout.toString())).toHaveLength(3);
  });

  it('tells formats by content: TSV on stdin, gzip on stdin, and a file whose extension says another format', async () => {
    const tsv = await sluice(['--threads', '0', 'schema', '-'], { stdin: Buffer.from('a\tb\n1\tx\n') });
    expect(parseCsv(tsv.stdout.toString())).toEqual([['column', 'type', 'nullable'], ['a', 'int64', 'true'], ['b', 'utf8', 'true']]);
    const gz = await sluice(['--threads', '0', 'head', '-'], { stdin: gzipSync(Buffer.from('a,b\n1,2\n')) });
    expect(gz.stderr.toString()).toBe('');
    expect(gz.stdout.toString()).toBe('a,b\n1,2\n');
    const misnamed = `${dir}/really-parquet.csv`;
    await writeFile(misnamed, await readFile(files.parquet));
    const p = await sluice(['--threads', '0', 'head', misnamed]);
    expect(p.code).not.toBe(0);
    expect(p.stderr.toString()).toMatch(/starts like Parquet but its extension says CSV: pass --input-format parquet/);
    expect((await sluice(['--threads', '0', 'head', '--input-format', 'parquet', misnamed])).code).toBe(0);
    const text = `${dir}/really-csv.parquet`;
    await writeFile(text, await readFile(files.csv));
    const c = await sluice(['--threads', '0', 'head', text]);
    expect(c.stderr.toString()).toMatch(/does not start like Parquet .* but like text: pass --input-format csv/);
  });

  it('a bad input on stdin is named standard input, not the copy Sluice reads it from', async () => {
    const r = await sluice(['--threads', '0', 'head', '-'], { stdin: Buffer.from('PAR1 not really a Parquet file') });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/^sluice: error: InputError \[INPUT_MALFORMED\]: Malformed Parquet input on standard input: /);
    expect(r.stderr).not.toMatch(/sluice-stdin/);
  });

  it('a truncated Arrow IPC stream on stdin is the same truncation error as from a file', async () => {
    const cut = (await readFile(files.arrows)).subarray(0, 1000);
    const file = `${dir}/cut.arrows`;
    await writeFile(file, cut);
    const f = await sluice(['--threads', '0', 'head', file]);
    const s = await sluice(['--threads', '0', 'head', '-'], { stdin: cut });
    const truncated = /truncated: the stream ends inside a message at byte (\d+)\n$/;
    expect(f.stderr).toMatch(/^sluice: error: InputError \[INPUT_MALFORMED\]: Malformed Arrow IPC input /);
    expect(s.stderr).toMatch(/^sluice: error: InputError \[INPUT_MALFORMED\]: Malformed Arrow IPC input /);
    expect(s.stderr.match(truncated)?.[1]).toBe(f.stderr.match(truncated)?.[1]);
    expect(s.code).toBe(f.code);
    expect(s.stdout.length).toBe(0);
  });

  it('an Arrow IPC stream without rows on stdin: its columns, no rows', async () => {
    const empty = Buffer.from(tableToIPC(tableFromArrays({ a: Int32Array.from([]) }), 'stream'));
    const s = await sluice(['--threads', '0', 'schema', '-'], { stdin: empty });
    expect(s.stderr).toBe('');
    expect(parseCsv(s.stdout.toString())).toEqual([['column', 'type', 'nullable'], ['a', 'int32', 'true']]);
    const h = await sluice(['--threads', '0', 'head', '-'], { stdin: empty });
    expect(h.stderr).toBe('');
    expect(h.stdout.toString()).toBe('a\n');
  });

  it('an empty CSV or NDJSON file without a schema is one InputError naming it; with a schema, 0 rows', async () => {
    const empties: Array<[string, string, string[]]> = [
      ['empty.csv', '', []],
      ['empty-no-header.csv', '', ['--no-header']],
      ['empty.ndjson', '', []],
      ['blank.ndjson', '\n\n', []],
      ['empty-array.json', '[]\n', []],
    ];
    for (const [name, content, flags] of empties) {
      await writeFile(`${dir}/${name}`, content);
      const r = await sluice(['--threads', '0', 'head', ...flags, `${dir}/${name}`]);
      expect(r.code, name).toBe(2);
      expect(r.stdout.length, name).toBe(0);
      expect(r.stderr, name).toMatch(new RegExp(`^sluice: error: InputError \\[INPUT_MALFORMED\\]: Malformed (CSV|NDJSON) input \\S*${name.replace('.', '\\.')}: (empty file|empty input)[^\\n]*\\n$`));
    }
    const piped = await sluice(['--threads', '0', 'head', '--input-format', 'ndjson', '-'], { stdin: '' });
    expect(piped.code).toBe(2);
    expect(piped.stderr).toMatch(/^sluice: error: InputError \[INPUT_MALFORMED\]: Malformed NDJSON input on standard input: empty input: no JSON object/);
    const job = `${dir}/empty-with-schema.json`;
    await writeFile(job, JSON.stringify({
      sources: { n: { type: 'ndjson', path: 'empty.ndjson', schema: 'a int64, b utf8' }, c: { type: 'csv', path: 'empty.csv', schema: 'a int64, b utf8' } },
      steps: [{ op: 'union', others: 'c' }],
    }));
    const withSchema = await sluice(['--threads', '0', 'run', job]);
    expect(withSchema.stderr).toBe('');
    expect(withSchema.stdout.toString()).toBe('a,b\n');
  });

  it('a missing or corrupt file is one typed error line, exit 2', async () => {
    const a = await sluice(['describe', `${dir}/nope.parquet`]);
    expect(a.code).toBe(2);
    expect(a.stderr).toMatch(/^sluice: error: InputError \[INPUT_NOT_FOUND\]: .*nope\.parquet\n$/);
    const bad = `${dir}/bad.arrow`;
    await import('node:fs/promises').then((fs) => fs.writeFile(bad, 'not arrow at all'));
    const b = await sluice(['schema', bad]);
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(/^sluice: error: InputError \[INPUT_MALFORMED\]: [^\n]*\n$/);
  });
});
