/**
 * CSV reading and writing: round trip with a schema over the scalar types, inference, exact
 * text of the writer, streaming in batches, and errors that name the path, line and column.
 */
import * as arrow from 'apache-arrow';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
import { readCsvBatches, readCsvSchema, writeCsvAtomic } from '../../src/io/csv.js';
import type { FieldDesc } from '../../src/types/column.js';

const dir = mkdtempSync(join(tmpdir(), 'sluice-io-csv-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function readAll(path: string, opts: Parameters<typeof readCsvBatches>[1] = {}): Promise<arrow.RecordBatch[]> {
  const out: arrow.RecordBatch[] = [];
  for await (const b of readCsvBatches(path, opts)) out.push(b);
  return out;
}

function raw(batches: arrow.RecordBatch[], name: string): unknown[] {
  const out: unknown[] = [];
  for (const b of batches) {
    const d = b.getChild(name)!.data[0]!;
    for (let i = 0; i < d.length; i++) {
      if (!d.getValid(i)) out.push(null);
      else if (arrow.DataType.isTimestamp(d.type) || (arrow.DataType.isInt(d.type) && d.type.bitWidth === 64)) out.push(d.values[i] /* arrow-js pre-slices fixed-width values */);
      else out.push(new arrow.Vector([d]).get(i));
    }
  }
  return out;
}

const fields: FieldDesc[] = [
  { name: 'i64', type: { kind: 'int', bits: 64, signed: true }, nullable: true },
  { name: 'i16', type: { kind: 'int', bits: 16, signed: true }, nullable: true },
  { name: 'u64', type: { kind: 'int', bits: 64, signed: false }, nullable: true },
  { name: 'f64', type: { kind: 'float', bits: 64 }, nullable: true },
  { name: 'f32', type: { kind: 'float', bits: 32 }, nullable: true },
  { name: 's', type: { kind: 'utf8' }, nullable: true },
  { name: 'b', type: { kind: 'bool' }, nullable: true },
  { name: 'd', type: { kind: 'date', unit: 'day' }, nullable: true },
  { name: 'ts', type: { kind: 'timestamp', unit: 'ns', timezone: null }, nullable: true },
  { name: 'tz', type: { kind: 'timestamp', unit: 'ms', timezone: 'UTC' }, nullable: true },
];

describe('CSV', () => {
  it('round trips scalar types exactly with a schema (int64 extremes, specials, quotes, non-ASCII, NULLs)', async () => {
    const src = join(dir, 'src.csv');
    writeFileSync(
      src,
      [
        'i64,i16,u64,f64,f32,s,b,d,ts,tz',
        '-9223372036854775808,-32768,18446744073709551615,1e300,0.1,"a, ""quoted"" word",true,1970-01-01,2024-02-29T23:59:59.123456789,2024-01-01T00:00:00Z',
        '9223372036854775807,32767,0,-0,-inf,"multi\nline",FALSE,0001-01-01,1677-09-21T00:12:43.145224192,2024-01-01T01:00:00+01:00',
        ',,,,,,,,,',
        '0,0,1,NaN,inf,日本語 😀,1,9999-12-31,1969-12-31T23:59:59.999999999,1969-12-31 23:59:59.999',
      ].join('\n') + '\n',
    );
    const a = await readAll(src, { schema: fields });
    expect(a[0]!.schema.fields.map((f) => String(f.type))).toEqual([
      'Int64', 'Int16', 'Uint64', 'Float64', 'Float32', 'Utf8', 'Bool', 'Date32<DAY>', 'Timestamp<NANOSECOND>', 'Timestamp<MILLISECOND, UTC>',
    ]);
    expect(raw(a, 'i64')).toEqual([-(2n ** 63n), 2n ** 63n - 1n, null, 0n]);
    expect(raw(a, 'u64')).toEqual([2n ** 64n - 1n, 0n, null, 1n]);
    expect(raw(a, 'f64')).toEqual([1e300, -0, null, NaN]);
    expect(raw(a, 's')).toEqual(['a, "quoted" word', 'multi\nline', null, '日本語 😀']);
    expect(raw(a, 'b')).toEqual([true, false, null, true]);
    expect(raw(a, 'ts')).toEqual([1709251199123456789n, -(2n ** 63n), null, -1n]);
    expect(raw(a, 'tz')).toEqual([1704067200000n, 1704067200000n, null, -1n]);
    const out = join(dir, 'out.csv');
    await writeCsvAtomic(out, a);
    const b = await readAll(out, { schema: fields });
    for (const f of fields) expect(raw(b, f.name)).toEqual(raw(a, f.name));
  });

  it('writes exact text: header, int64, NULL as empty, quoting, ISO-8601 timestamps (zoned: local time with offset)', async () => {
    const t = new arrow.Table({
      id: arrow.makeVector(BigInt64Array.of(9007199254740993n, -1n)),
      name: arrow.vectorFromArray(['plain', 'has,comma "q"'], new arrow.Utf8()),
      empty: arrow.vectorFromArray(['', null], new arrow.Utf8()),
      x: arrow.makeVector(Float64Array.of(0.1, NaN)),
      when: arrow.makeVector(arrow.makeData({ type: new arrow.TimestampMicrosecond(), length: 2, data: BigInt64Array.of(1_500n, -1n) })),
      at: arrow.makeVector(arrow.makeData({ type: new arrow.TimestampSecond('Europe/Paris'), length: 2, data: BigInt64Array.of(0n, 253402300800n) })),
      day: arrow.makeVector(arrow.makeData({ type: new arrow.DateDay(), length: 2, data: Int32Array.of(0, -1) })),
    });
    const p = join(dir, 'exact.csv');
    await writeCsvAtomic(p, t.batches);
    expect(readFileSync(p, 'utf8')).toBe(
      'id,name,empty,x,when,at,day\n' +
        '9007199254740993,plain,"",0.1,1970-01-01T00:00:00.001500,1970-01-01T01:00:00+01:00,1970-01-01\n' +
        '-1,"has,comma ""q""",,NaN,1969-12-31T23:59:59.999999,+10000-01-01T01:00:00+01:00,1969-12-31\n',
    );
  });

  it('infers int64, float64, bool and utf8 (plain Utf8, not Dictionary); empty is NULL', async () => {
    const p = join(dir, 'infer.csv');
    writeFileSync(p, 'i,f,b,s,n\n1,1,true,x,\n-9223372036854775808,2.5,False,1,\n,,,,\n9223372036854775807,-inf,TRUE,true,\n');
    const got = await readAll(p);
    expect(got[0]!.schema.fields.map((f) => `${f.name}:${String(f.type)}`)).toEqual(['i:Int64', 'f:Float64', 'b:Bool', 's:Utf8', 'n:Utf8']);
    expect(raw(got, 'i')).toEqual([1n, -(2n ** 63n), null, 2n ** 63n - 1n]);
    expect(raw(got, 'f')).toEqual([1, 2.5, null, -Infinity]);
    expect(raw(got, 'b')).toEqual([true, false, null, true]);
    expect(raw(got, 's')).toEqual(['x', '1', null, 'true']);
    expect(raw(got, 'n')).toEqual([null, null, null, null]);
    expect((await readCsvSchema(p)).fields.map((f) => String(f.type))).toEqual(['Int64', 'Float64', 'Bool', 'Utf8', 'Utf8']);
  });

  it('streams in batches of batchRows, in order', async () => {
    const p = join(dir, 'many.csv');
    writeFileSync(p, 'k,v\n' + Array.from({ length: 3500 }, (_, i) => `${i},"r${i}"`).join('\n'));
    const got = await readAll(p, { batchRows: 1000 });
    expect(got.map((b) => b.numRows)).toEqual([1000, 1000, 1000, 500]);
    expect(raw(got, 'k')).toEqual(Array.from({ length: 3500 }, (_, i) => BigInt(i)));
    expect(raw(got, 'v')[3499]).toBe('r3499');
  });

  it('a bad value names path, line and column (lines count quoted line breaks)', async () => {
    const p = join(dir, 'bad.csv');
    writeFileSync(p, 'i64,s\n1,"two\nlines"\n2,ok\nthree,x\n');
    const err = await readAll(p, { schema: [fields[0]!, fields[5]!] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    const e = err as InputError;
    expect(e.code).toBe('INPUT_MALFORMED');
    expect(e.details).toMatchObject({ path: p, line: 5, column: 'i64' });
    expect(e.message).toContain(p);
    expect(e.message).toContain('line 5');
    expect(e.message).toContain('"three"');
  });

  it('a value that does not fit the inferred type later on is an InputError suggesting a schema', async () => {
    const p = join(dir, 'drift.csv');
    writeFileSync(p, 'n\n' + Array.from({ length: 20 }, (_, i) => String(i)).join('\n') + '\n2.5\n');
    const err = await readAll(p, { batchRows: 10, inferRows: 10 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).details).toMatchObject({ line: 22, column: 'n' });
    expect((err as InputError).message).toMatch(/pass a schema/);
  });

  it('wrong field counts and broken quotes are INPUT_MALFORMED with the line', async () => {
    const p1 = join(dir, 'count.csv');
    writeFileSync(p1, 'a,b\n1,2\n3\n');
    const e1 = (await readAll(p1).catch((e: unknown) => e)) as InputError;
    expect(e1).toBeInstanceOf(InputError);
    expect(e1.details).toMatchObject({ path: p1, line: 3 });
    const p2 = join(dir, 'quote.csv');
    writeFileSync(p2, 'a,b\n1,2\n3,"never closed\n4,5\n');
    const e2 = (await readAll(p2).catch((e: unknown) => e)) as InputError;
    expect(e2).toBeInstanceOf(InputError);
    expect(e2.code).toBe('INPUT_MALFORMED');
    expect(e2.message).toContain('line 3');
  });

  it('header=false, other delimiters, CRLF and a BOM', async () => {
    const p = join(dir, 'semi.csv');
    writeFileSync(p, '\uFEFF1;x\r\n2;"y;z"\r\n');
    const got = await readAll(p, { header: false, delimiter: ';' });
    expect(got[0]!.schema.fields.map((f) => f.name)).toEqual(['column_1', 'column_2']);
    expect(raw(got, 'column_1')).toEqual([1n, 2n]);
    expect(raw(got, 'column_2')).toEqual(['x', 'y;z']);
    const q = join(dir, 'bom.csv');
    writeFileSync(q, '\uFEFFa,a\r\n1,2\r\n');
    expect((await readCsvSchema(q)).fields.map((f) => f.name)).toEqual(['a', 'a_2']);
  });

  it('a missing file is INPUT_NOT_FOUND', async () => {
    const p = join(dir, 'nope.csv');
    const err = (await readAll(p).catch((e: unknown) => e)) as InputError;
    expect(err).toBeInstanceOf(InputError);
    expect(err.code).toBe('INPUT_NOT_FOUND');
    expect(err.details.path).toBe(p);
  });
});
