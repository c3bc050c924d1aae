/**
 * Arrow inputs as users hand them over (issue 7 items 6, 7, 8, 9):
 *   - zero-length vectors without buffers (tableFromArrays / new Table of empty vectors) work in
 *     ASOF (left: every left row with NULL right columns; inner: none), window, explode and
 *     every writer;
 *   - Tables, RecordBatches and Schemas from another apache-arrow copy are accepted;
 *   - an async source whose later batch changes a column type is an InputError naming both;
 *   - Utf8View / BinaryView columns come out as Utf8 / Binary.
 */
import * as A from 'apache-arrow';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine, InputError, sum } from '../../src/index.js';
import { importArrowCopy, type ArrowCopy } from '../support/arrow-copy.js';

const dir = mkdtempSync(join(tmpdir(), 'sluice-arrow-input-'));
let copy: ArrowCopy;
const engines: Engine[] = [];
const engine = (threads: number): Engine => {
  const e = new Engine({ threads });
  engines.push(e);
  return e;
};
beforeAll(async () => {
  copy = await importArrowCopy();
});
afterAll(async () => {
  copy?.dispose();
  rmSync(dir, { recursive: true, force: true });
  await Promise.all(engines.map((e) => e.close()));
});

const left = () => A.tableFromArrays({ t: BigInt64Array.from([1n, 5n, 9n]), v: Int32Array.from([10, 20, 30]) });

describe('zero-length in-memory inputs', () => {
  const emptyRights = {
    tableFromArrays: () => A.tableFromArrays({ t: new BigInt64Array(0), w: new Float64Array(0), s: [] as string[] }),
    'new Table of empty vectors': () =>
      new A.Table({ t: A.makeVector(new BigInt64Array(0)), w: A.makeVector(new Float64Array(0)), s: A.vectorFromArray([], new A.Utf8()) }),
  };
  for (const threads of [0, 2]) {
    for (const [name, make] of Object.entries(emptyRights)) {
      it(`ASOF with an empty right (${name}, threads ${threads})`, async () => {
        const e = engine(threads);
        const l = await e.fromArrow(left()).asofJoin(e.fromArrow(make()), { on: 't' }).collect();
        expect(l.numRows).toBe(3);
        expect(l.getChild('v')!.toArray()).toEqual(Int32Array.from([10, 20, 30]));
        expect([...l.getChild('w')!]).toEqual([null, null, null]);
        expect([...l.getChild('s')!]).toEqual([null, null, null]);
        const inner = await e.fromArrow(left()).asofJoin(e.fromArrow(make()), { on: 't', how: 'inner' }).collect();
        expect(inner.numRows).toBe(0);
        expect(inner.schema.fields.map((f) => f.name)).toEqual(['t', 'v', 't_right', 'w', 's']);
      });
    }
    it(`window, explode and an empty left ASOF over empty vectors (threads ${threads})`, async () => {
      const e = engine(threads);
      const empty = emptyRights.tableFromArrays();
      const w = await e.fromArrow(empty).window({ orderBy: 't', columns: { x: sum('w').rows(2) } }).collect();
      expect(w.numRows).toBe(0);
      expect(w.schema.fields.map((f) => f.name)).toEqual(['t', 'w', 's', 'x']);
      const lists = new A.Table({ id: A.makeVector(new Int32Array(0)), l: A.vectorFromArray([], new A.List(new A.Field('item', new A.Int32(), true))) });
      expect((await e.fromArrow(lists).explode('l').collect()).numRows).toBe(0);
      const a = await e.fromArrow(empty).asofJoin(e.fromArrow(left()), { on: 't' }).collect();
      expect(a.numRows).toBe(0);
    });
  }
  it('every writer takes an empty in-memory table', async () => {
    const e = engine(0);
    const df = e.fromArrow(emptyRights['new Table of empty vectors']());
    await df.writeCsv(join(dir, 'empty.csv'));
    expect(readFileSync(join(dir, 'empty.csv'), 'utf8')).toBe('t,w,s\n');
    await df.writeIpc(join(dir, 'empty.arrow'));
    expect((await e.readIpc(join(dir, 'empty.arrow')).collect()).numRows).toBe(0);
    await df.writeParquet(join(dir, 'empty.parquet'));
    const back = await e.readParquet(join(dir, 'empty.parquet')).collect();
    expect(back.numRows).toBe(0);
    expect(back.schema.fields.map((f) => String(f.type))).toEqual(['Int64', 'Float64', 'Utf8']);
  });
});

describe('another apache-arrow copy', () => {
  it('is really another copy', () => {
    expect(copy.arrow.Table).not.toBe(A.Table);
    expect(new copy.arrow.Int32()).not.toBeInstanceOf(A.DataType);
  });
  it('Tables, RecordBatches, iterables and async iterables of its batches', async () => {
    const B = copy.arrow;
    const t = B.tableFromArrays({ id: Int32Array.from([1, 2, 3]), s: ['a', null, 'c'], ts: BigInt64Array.from([1n, 2n, 3n]) });
    const dict = B.vectorFromArray(['x', 'y', 'x'], new B.Dictionary(new B.Utf8(), new B.Int32()));
    const lists = B.vectorFromArray([[1], [], null], new B.List(new B.Field('item', new B.Int32(), true)));
    const withNested = t.assign(new B.Table({ d: dict, l: lists }));
    for (const threads of [0, 2]) {
      const e = engine(threads);
      for (const input of [withNested, withNested.batches[0]!, withNested.batches, (async function* () { yield* withNested.batches; })()]) {
        const out = await e.fromArrow(input as never).collect();
        expect(out).toBeInstanceOf(A.Table);
        expect(out.numRows).toBe(3);
        expect(out.schema.fields.map((f) => `${f.name}:${String(f.type)}`)).toEqual(['id:Int32', 's:Utf8', 'ts:Int64', 'd:Utf8', 'l:List<Int32>']);
        expect([...out.getChild('s')!]).toEqual(['a', null, 'c']);
        expect([...out.getChild('d')!]).toEqual(['x', 'y', 'x']);
        expect([...out.getChild('l')!].map((v) => (v ? [...v] : v))).toEqual([[1], [], null]);
      }
      const w = await e.fromArrow(withNested).window({ orderBy: 'id', columns: { r: sum('id').rows(1) } }).collect();
      expect(Array.from(w.getChild('r')!.toArray() as BigInt64Array)).toEqual([1n, 3n, 5n]);
    }
  });
  it('an empty Table of its own', async () => {
    const B = copy.arrow;
    const out = await engine(0).fromArrow(B.tableFromArrays({ a: new Float64Array(0) }) as never).collect();
    expect(out.numRows).toBe(0);
    expect(String(out.schema.fields[0]!.type)).toBe('Float64');
  });
});

describe('batches that disagree', () => {
  it('an async source whose second batch has another type for a column', async () => {
    async function* source() {
      yield A.tableFromArrays({ a: Int32Array.from([1, 2]), b: ['x', 'y'] }).batches[0]!;
      yield A.tableFromArrays({ a: Float64Array.from([1.5]), b: ['z'] }).batches[0]!;
    }
    for (const threads of [0, 2]) {
      const err = await engine(threads).fromArrow(source()).collect().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InputError);
      expect((err as InputError).code).toBe('SCHEMA_MISMATCH');
      expect((err as Error).message).toMatch(/batch 2 .*column a of type Float64.*first batch has Int32/);
    }
  });
  it('an iterable of batches with different column names', async () => {
    const batches = [A.tableFromArrays({ a: Int32Array.from([1]) }).batches[0]!, A.tableFromArrays({ c: Int32Array.from([1]) }).batches[0]!];
    const err = await engine(0).fromArrow(batches).collect().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as Error).message).toMatch(/batch 2 .*\(c\).*\(a\)/);
  });
});

describe('view types', () => {
  it('Utf8View and BinaryView from IPC written by Polars become Utf8 and Binary', async () => {
    const pl = (await import('nodejs-polars')).default;
    const p = join(dir, 'views.arrow');
    const long = 'a string longer than twelve bytes';
    pl.DataFrame({ s: ['x', null, long, 'y'.repeat(13)], n: [1, 2, 3, 4] }).writeIPC(p);
    const raw = A.tableFromIPC(readFileSync(p));
    expect(raw.schema.fields[0]!.type.typeId).toBe(A.Type.Utf8View);
    const e = engine(2);
    const df = e.readIpc(p);
    expect(String((await df.schema()).fields[0]!.type)).toBe('Utf8');
    const out = await df.filter('n > 1').collect();
    expect([...out.getChild('s')!]).toEqual([null, long, 'y'.repeat(13)]);
    // sliced view data (row offsets) from an in-memory table
    const sliced = raw.slice(1, 4);
    expect([...(await e.fromArrow(sliced).collect()).getChild('s')!]).toEqual([null, long, 'y'.repeat(13)]);
  });
  it('BinaryView with inline and referenced values, NULLs and a sliced start: Binary, through a kernel and a writer', async () => {
    const values: Array<Buffer | null> = [Buffer.from('ab'), null, Buffer.from('a value longer than 12 bytes'), Buffer.alloc(0), Buffer.from('0123456789abcdef')];
    const data = Buffer.concat(values.filter((v): v is Buffer => v !== null && v.length > 12));
    const views = new Uint8Array(16 * values.length);
    const dv = new DataView(views.buffer);
    let at = 0;
    values.forEach((v, i) => {
      if (v === null) return;
      dv.setInt32(i * 16, v.length, true);
      if (v.length <= 12) views.set(v, i * 16 + 4);
      else {
        views.set(v.subarray(0, 4), i * 16 + 4);
        dv.setInt32(i * 16 + 8, 0, true);
        dv.setInt32(i * 16 + 12, at, true);
        at += v.length;
      }
    });
    const bin = A.makeData({ type: new A.BinaryView(), length: values.length, nullCount: 1, nullBitmap: Uint8Array.of(0b11101), views, variadicBuffers: [data] });
    const id = A.makeData({ type: new A.Int32(), length: values.length, data: Int32Array.from([0, 1, 2, 3, 4]) });
    const schema = new A.Schema([new A.Field('id', new A.Int32()), new A.Field('b', new A.BinaryView(), true)]);
    const batch = new A.RecordBatch(schema, A.makeData({ type: new A.Struct(schema.fields), length: values.length, nullCount: 0, children: [id, bin] }));
    const e = engine(2);
    const hex = (t: A.Table) => [...t.getChild('b')!].map((v) => (v === null ? null : Buffer.from(v as Uint8Array).toString('utf8')));
    const want = values.map((v) => (v === null ? null : v.toString('utf8')));
    const out = await e.fromArrow(batch).filter('id >= 0').collect();
    expect(String(out.schema.fields[1]!.type)).toBe('Binary');
    expect(hex(out)).toEqual(want);
    expect(hex(await e.fromArrow(batch.slice(1, 5)).collect())).toEqual(want.slice(1));
    const p = join(dir, 'binview.parquet');
    await e.fromArrow(batch).writeParquet(p);
    expect(hex(await e.readParquet(p).collect())).toEqual(want);
  });
});
