/**
 * Round trips of many column types through Arrow IPC (file and stream) and Parquet:
 * int8..int64 (with extremes), uint64, float32/64 (NaN, -0, ±inf), utf8 (non-ASCII, empty,
 * NULL), bool, date32, timestamps with and without zone, lists, structs, lists of structs.
 */
import * as arrow from 'apache-arrow';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readIpcBatches, readIpcSchema, writeIpcAtomic } from '../../src/io/ipc.js';
import { readParquetBatches, readParquetSchema, writeParquetAtomic } from '../../src/io/parquet.js';

const dir = mkdtempSync(join(tmpdir(), 'sluice-io-rt-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;

function fixed<T extends arrow.DataType>(type: T, data: ArrayLike<unknown>, valid?: boolean[]): arrow.Vector<T> {
  const n = data.length;
  let nullBitmap: Uint8Array | undefined;
  let nullCount = 0;
  if (valid) {
    nullBitmap = new Uint8Array((n + 7) >> 3);
    valid.forEach((v, i) => {
      if (v) nullBitmap![i >> 3]! |= 1 << (i & 7);
      else nullCount++;
    });
  }
  return arrow.makeVector(arrow.makeData({ type, length: n, nullCount, nullBitmap, data } as never)) as arrow.Vector<T>;
}

/** A batch of 5 rows, shifted by `k` so that two batches differ. */
export function fixtureBatch(k: number): arrow.RecordBatch {
  const V = [true, false, true, true, true];
  const ts = BigInt64Array.of(1_700_000_000_123_456_789n + BigInt(k), -1n, 0n, I64_MAX, I64_MIN + 1n);
  const pointType = new arrow.Struct([new arrow.Field('x', new arrow.Int32(), true), new arrow.Field('y', new arrow.Utf8(), true)]);
  const cols: Record<string, arrow.Vector> = {
    i8: fixed(new arrow.Int8(), Int8Array.of(-128, 127, 0, k, -1)),
    i32: fixed(new arrow.Int32(), Int32Array.of(-(2 ** 31), 2 ** 31 - 1, k, 0, 7), V),
    i64: fixed(new arrow.Int64(), BigInt64Array.of(I64_MIN, I64_MAX, BigInt(k), -1n, 2n ** 53n + 1n)),
    u64: fixed(new arrow.Uint64(), BigUint64Array.of(0n, 2n ** 64n - 1n, BigInt(k), 1n, 2n ** 63n), V),
    f32: fixed(new arrow.Float32(), Float32Array.of(0.1, -0, NaN, Infinity, k + 0.5)),
    f64: fixed(new arrow.Float64(), Float64Array.of(1e300, -0, NaN, -Infinity, k / 3), V),
    s: arrow.vectorFromArray(['héllo, "wörld"', null, '', '日本語\n😀', `k=${k}`], new arrow.Utf8()),
    b: arrow.vectorFromArray([true, false, null, true, k % 2 === 0], new arrow.Bool()),
    d: fixed(new arrow.DateDay(), Int32Array.of(0, -719162, 2932896, k, 19000), V),
    ts_ns: fixed(new arrow.TimestampNanosecond(), ts, V),
    ts_us_utc: fixed(new arrow.TimestampMicrosecond('UTC'), BigInt64Array.of(0n, 1n, -1n, BigInt(k), 1_700_000_000_000_000n)),
    ts_s_ny: fixed(new arrow.TimestampSecond('America/New_York'), BigInt64Array.of(0n, 86_400n, -86_400n, BigInt(k), 253_402_300_799n), V),
    l: arrow.vectorFromArray([[1, 2], [], null, [null, k], [3]], new arrow.List(new arrow.Field('item', new arrow.Int32(), true))),
    st: arrow.vectorFromArray([{ x: 1, y: 'a' }, null, { x: null, y: 'é' }, { x: k, y: null }, { x: null, y: null }], pointType),
    ls: arrow.vectorFromArray(
      [[{ x: 1, y: 'p' }, null], null, [], [{ x: null, y: null }], [{ x: k, y: 'q' }]],
      new arrow.List(new arrow.Field('item', pointType, true)),
    ),
  };
  return new arrow.Table(cols).batches[0]!;
}

/** Comparable rendering: raw integers for 64-bit and temporal columns, NaN/-0 kept distinct. */
export function canon(batches: arrow.RecordBatch[]): unknown[][] {
  if (batches.length === 0) return [];
  const t = new arrow.Table(batches);
  return t.schema.fields.map((f) => {
    const v = t.getChild(f.name)!;
    const out: unknown[] = [];
    for (const d of v.data) {
      for (let i = 0; i < d.length; i++) {
        if (!d.getValid(i)) out.push(null);
        else if (arrow.DataType.isTimestamp(d.type) || arrow.DataType.isDate(d.type) || (arrow.DataType.isInt(d.type) && d.type.bitWidth === 64)) {
          out.push(String(d.values[i]) /* pre-sliced, like every fixed-width buffer */);
        } else {
          out.push(JSON.stringify(new arrow.Vector([d]).get(i), (_k, x: unknown) =>
            typeof x === 'bigint' ? `${x}n` : typeof x === 'number' && (Number.isNaN(x) || !Number.isFinite(x) || Object.is(x, -0)) ? `#${Object.is(x, -0) ? '-0' : x}` : x,
          ));
        }
      }
    }
    return out;
  });
}

function typesOf(schema: arrow.Schema): string[] {
  return schema.fields.map((f) => `${f.name}: ${String(f.type)}`);
}

async function collect(it: AsyncIterable<arrow.RecordBatch>): Promise<arrow.RecordBatch[]> {
  const out: arrow.RecordBatch[] = [];
  for await (const b of it) out.push(b);
  return out;
}

const input = [fixtureBatch(1), fixtureBatch(2)];
const schema = input[0]!.schema;

describe('round trips', () => {
  for (const format of ['file', 'stream'] as const) {
    it(`Arrow IPC ${format}: every type and value survives`, async () => {
      const p = join(dir, `rt.${format}.arrow`);
      const res = await writeIpcAtomic(p, schema, input, { format });
      expect(res.rows).toBe(10);
      const back = await collect(readIpcBatches(p));
      expect(back.length).toBe(2);
      expect(typesOf(back[0]!.schema)).toEqual(typesOf(schema));
      expect(canon(back)).toEqual(canon(input));
      expect(typesOf(await readIpcSchema(p))).toEqual(typesOf(schema));
      // none of the strings came back as Dictionary
      expect(back[0]!.schema.fields.some((f) => arrow.DataType.isDictionary(f.type))).toBe(false);
    });
  }

  it('Parquet: every type and value survives', async () => {
    const p = join(dir, 'rt.parquet');
    const res = await writeParquetAtomic(p, schema, input);
    expect(res.rows).toBe(10);
    const back = await collect(readParquetBatches(p));
    expect(back.reduce((n, b) => n + b.numRows, 0)).toBe(10);
    expect(typesOf(back[0]!.schema)).toEqual(typesOf(schema));
    expect(canon(back)).toEqual(canon(input));
    expect(typesOf(await readParquetSchema(p))).toEqual(typesOf(schema));
  });

  it('an empty input keeps its schema (IPC and Parquet)', async () => {
    const pi = join(dir, 'empty.arrow');
    const pp = join(dir, 'empty.parquet');
    await writeIpcAtomic(pi, schema, []);
    await writeParquetAtomic(pp, schema, []);
    expect(await collect(readIpcBatches(pi))).toEqual([]);
    expect(typesOf(await readIpcSchema(pi))).toEqual(typesOf(schema));
    expect((await collect(readParquetBatches(pp))).reduce((n, b) => n + b.numRows, 0)).toBe(0);
    expect(typesOf(await readParquetSchema(pp))).toEqual(typesOf(schema));
  });

  it('the canon helper tells values apart (so the round trips can fail)', () => {
    expect(canon([fixtureBatch(1)])).not.toEqual(canon([fixtureBatch(2)]));
  });
});
