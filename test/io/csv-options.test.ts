/**
 * CSV options (issue 7 items 2, 4 and 8; issue 10 item 4): schemas by name with a header and by
 * position without, in every form; missing columns are PlanErrors from schema()/explain();
 * nullValues, inferRows, inferDates, quote/escape; zoned timestamps read as wall time in the
 * column's zone (DST gap and overlap rules) or as instants, and written with their offset;
 * a NULL-typed column written as empty fields.
 */
import * as A from 'apache-arrow';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine, InputError, lit, PlanError } from '../../src/index.js';
import { importArrowCopy, type ArrowCopy } from '../support/arrow-copy.js';

const dir = mkdtempSync(join(tmpdir(), 'sluice-csv-opt-'));
const engine = new Engine({ threads: 0 });
let copy: ArrowCopy;
beforeAll(async () => {
  copy = await importArrowCopy();
});
afterAll(async () => {
  copy?.dispose();
  rmSync(dir, { recursive: true, force: true });
  await engine.close();
});

function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}
const cols = (t: A.Table) => t.schema.fields.map((f) => `${f.name}:${String(f.type)}`);
const values = (t: A.Table, name: string) => [...t.getChild(name)!].map((v) => (typeof v === 'bigint' ? Number(v) : v));

describe('CSV schemas', () => {
  const ab = () => file('ab.csv', 'a,b,c\n1,10,x\n2,20,y\n');
  it('a schema in another column order maps by name', async () => {
    const t = await engine.readCsv(ab(), { schema: { b: 'int64', a: 'int32', c: 'utf8' } }).collect();
    expect(cols(t)).toEqual(['a:Int32', 'b:Int64', 'c:Utf8']);
    expect(values(t, 'a')).toEqual([1, 2]);
    expect(values(t, 'b')).toEqual([10, 20]);
  });
  it('every form: object, list, string, Arrow Schema (this copy and another); unnamed columns inferred', async () => {
    const B = copy.arrow;
    const forms = [
      { a: 'float64' },
      [{ name: 'a', type: 'float64' }],
      'a float64',
      new A.Schema([new A.Field('a', new A.Float64())]),
      new B.Schema([new B.Field('a', new B.Float64())]),
      { a: new B.Float64() },
    ];
    for (const schema of forms) {
      const df = engine.readCsv(ab(), { schema: schema as never });
      expect(cols(await df.collect())).toEqual(['a:Float64', 'b:Int64', 'c:Utf8']);
    }
    const s = await engine.readCsv(ab(), { schema: '"b" uint8, c utf8, a timestamp[ms, UTC]' }).schema().catch((e: unknown) => e);
    expect(s).toBeInstanceOf(A.Schema);
  });
  it('columns the schema names that the file lacks: a PlanError from schema(), explain() and collect()', async () => {
    const df = engine.readCsv(ab(), { schema: { a: 'int64', zz: 'utf8', yy: 'bool' } });
    for (const action of [() => df.schema(), () => df.explain(), () => df.collect()]) {
      const err = await action().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PlanError);
      expect((err as Error).message).toMatch(/zz, yy/);
    }
  });
  it('without a header: by position, and the column count must match', async () => {
    const p = file('nohead.csv', '1,x\n2,y\n');
    const t = await engine.readCsv(p, { header: false, schema: 'id int16, name utf8' }).collect();
    expect(cols(t)).toEqual(['id:Int16', 'name:Utf8']);
    expect(values(t, 'name')).toEqual(['x', 'y']);
    const err = await engine.readCsv(p, { header: false, schema: { id: 'int16' } }).schema().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PlanError);
  });
  it('bad schema values are PlanErrors, not TypeErrors', async () => {
    for (const schema of [{ a: 'int65' }, 'a', 42, [{ type: 'int64' }], { a: 'int64', ...{} }, []]) {
      const err = await Promise.resolve()
        .then(() => engine.readCsv(ab(), { schema: schema as never }).schema())
        .then(
          () => null,
          (e: unknown) => e,
        );
      if (JSON.stringify(schema) === '{"a":"int64"}') expect(err).toBeNull();
      else expect(err, JSON.stringify(schema)).toBeInstanceOf(PlanError);
    }
  });
});

describe('CSV null values, inference, quoting', () => {
  it("nullValues replaces [''], and '' stays an empty string in text columns then", async () => {
    const p = file('na.csv', 's,n\nNA,1\n,NA\nx,\n');
    const t = await engine.readCsv(p, { nullValues: ['NA'] }).collect();
    expect(values(t, 's')).toEqual([null, '', 'x']);
    expect(values(t, 'n')).toEqual([1, null, null]);
    const d = await engine.readCsv(p).collect();
    expect(values(d, 's')).toEqual(['NA', null, 'x']);
    expect(String(d.schema.fields[1]!.type)).toBe('Utf8'); // 'NA' is text by default
  });
  it('inferDates: ISO dates and timestamps, with and without offsets; off gives text', async () => {
    const p = file('dates.csv', 'd,t,z,mixed\n2024-01-31,2024-01-31 10:00:00,2024-01-31T10:00:00Z,2024-01-31T10:00:00Z\n2024-02-29,2024-02-29T11:30:00.123456,2024-02-29T11:30:00+02:00,2024-02-29T11:30:00\n');
    const t = await engine.readCsv(p).collect();
    expect(cols(t)).toEqual(['d:Date32<DAY>', 't:Timestamp<MICROSECOND>', 'z:Timestamp<MICROSECOND, UTC>', 'mixed:Utf8']);
    expect((t.getChild('z')!.data[0]!.values as BigInt64Array)[1]).toBe(BigInt(Date.UTC(2024, 1, 29, 9, 30)) * 1000n);
    expect(cols(await engine.readCsv(p, { inferDates: false }).collect())).toEqual(['d:Utf8', 't:Utf8', 'z:Utf8', 'mixed:Utf8']);
  });
  it('inferRows: the sample size (a later value that does not fit is an InputError); 0 reads text', async () => {
    const p = file('late.csv', `n\n${Array.from({ length: 50 }, (_, i) => i).join('\n')}\n2.5\n`);
    expect(cols(await engine.readCsv(p).collect())).toEqual(['n:Float64']);
    const err = await engine.readCsv(p, { inferRows: 10 }).collect().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).details).toMatchObject({ line: 52, column: 'n' });
    expect(cols(await engine.readCsv(p, { inferRows: 0 }).collect())).toEqual(['n:Utf8']);
  });
  it('quote and escape characters', async () => {
    const p = file('quote.csv', "a;b\n'x;y';'it\\'s'\n");
    const t = await engine.readCsv(p, { delimiter: ';', quote: "'", escape: '\\' }).collect();
    expect(values(t, 'a')).toEqual(['x;y']);
    expect(values(t, 'b')).toEqual(["it's"]);
    const err = await Promise.resolve().then(() => engine.readCsv(p, { quote: 'ab' }).schema()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PlanError);
  });
});

describe('zoned timestamps in CSV', () => {
  const ny = 'timestamp[ms, America/New_York]';
  const ms = (iso: string) => BigInt(Date.parse(iso));
  it('wall time in the zone: plain, DST gap (shifted forward), overlap (earlier), with offset an instant', async () => {
    const p = file('zoned.csv', 't\n2024-01-15 09:00\n2024-03-10 02:30\n2024-11-03 01:30\n2024-07-01T12:00:00Z\n2024-07-01T12:00:00+05:30\n');
    const t = await engine.readCsv(p, { schema: { t: ny } }).collect();
    expect(Array.from(t.getChild('t')!.data[0]!.values as BigInt64Array)).toEqual([
      ms('2024-01-15T14:00:00Z'), // EST
      ms('2024-03-10T07:30:00Z'), // 02:30 does not exist: read with EST, i.e. 03:30 EDT
      ms('2024-11-03T05:30:00Z'), // 01:30 happens twice: the first (EDT)
      ms('2024-07-01T12:00:00Z'),
      ms('2024-07-01T06:30:00Z'),
    ]);
    const out = join(dir, 'zoned-out.csv');
    await engine.readCsv(p, { schema: { t: ny } }).writeCsv(out);
    expect(readFileSync(out, 'utf8')).toBe(
      't\n2024-01-15T09:00:00-05:00\n2024-03-10T03:30:00-04:00\n2024-11-03T01:30:00-04:00\n2024-07-01T08:00:00-04:00\n2024-07-01T02:30:00-04:00\n',
    );
    // what Sluice writes reads back as the same instants
    const back = await engine.readCsv(out, { schema: { t: ny } }).collect();
    expect(Array.from(back.getChild('t')!.data[0]!.values as BigInt64Array)).toEqual(Array.from(t.getChild('t')!.data[0]!.values as BigInt64Array));
  });
  it('an unknown zone is a PlanError', async () => {
    const p = file('zoned2.csv', 't\n2024-01-15 09:00\n');
    const err = await engine.readCsv(p, { schema: { t: 'timestamp[ms, Mars/Olympus]' } }).schema().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PlanError);
  });
});

describe('writing CSV', () => {
  it('a NULL-typed column is empty fields', async () => {
    const out = join(dir, 'null-col.csv');
    await engine.fromArrow(A.tableFromArrays({ a: Int32Array.from([1, 2]) })).withColumns({ x: lit(null) }).writeCsv(out);
    expect(readFileSync(out, 'utf8')).toBe('a,x\n1,\n2,\n');
  });
});
