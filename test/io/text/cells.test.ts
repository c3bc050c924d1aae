/**
 * The value-to-text layer (src/io/text): exact text of every type, the same in the CSV file
 * writer and the CLI's CSV output; display precision only in the table view; temporal values
 * in the column's zone (checked against Temporal itself as the reference).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { fc, test as fcTest } from '@fast-check/vitest';
import * as A from 'apache-arrow';
import { Temporal } from 'temporal-polyfill';
import { describe, expect, it } from 'vitest';
import { textWriter } from '../../../src/cli/format.js';
import { writeCsvAtomic } from '../../../src/io/csv-write.js';
import { cellText, decimalText } from '../../../src/io/text/cells.js';
import { displayFloat, exactFloat } from '../../../src/io/text/float-text.js';
import { timestampFormatter } from '../../../src/io/text/time-text.js';
import { typeName } from '../../../src/io/text/type-names.js';

const field = (d: A.Data): Array<string | null> => {
  const t = cellText(d, { syntax: 'field', floats: 'exact' });
  return Array.from({ length: d.length }, (_x, i) => t(i));
};
const json = (d: A.Data): string[] => {
  const t = cellText(d, { syntax: 'json', floats: 'exact' });
  return Array.from({ length: d.length }, (_x, i) => t(i)!);
};

function batchOf(cols: Record<string, A.Data>): A.RecordBatch {
  const fields = Object.entries(cols).map(([k, d]) => new A.Field(k, d.type, true));
  const schema = new A.Schema(fields);
  const n = Object.values(cols)[0]!.length;
  return new A.RecordBatch(schema, A.makeData({ type: new A.Struct(fields), length: n, nullCount: 0, children: Object.values(cols) }));
}

/** One column per type the layer reads from buffers, 3 rows each, some NULL. */
function everyType(): A.RecordBatch {
  const ts = (unit: A.TimeUnit, tz: string | null, vals: bigint[]) =>
    A.makeData({ type: new A.Timestamp(unit, tz), length: vals.length, data: BigInt64Array.from(vals) });
  const listOfTs = A.makeData({
    type: new A.List<A.Timestamp>(new A.Field('item', new A.Timestamp(A.TimeUnit.NANOSECOND), true)),
    length: 3,
    nullCount: 1,
    nullBitmap: Uint8Array.of(0b011),
    valueOffsets: Int32Array.of(0, 2, 2, 2),
    child: ts(A.TimeUnit.NANOSECOND, null, [1n, 86_400_000_000_000n]),
  });
  const fsb = A.makeData({ type: new A.FixedSizeBinary(2), length: 3, nullCount: 1, nullBitmap: Uint8Array.of(0b101), data: Uint8Array.of(0xde, 0xad, 0, 0, 0x00, 0x01) });
  const dec = A.makeData({
    type: new A.Decimal(2, 10, 128),
    length: 3,
    // 1250, -5, 0 as 128-bit little-endian words
    data: Uint32Array.of(1250, 0, 0, 0, 0xffff_fffb, 0xffff_ffff, 0xffff_ffff, 0xffff_ffff, 0, 0, 0, 0),
  });
  return batchOf({
    i64: A.makeData({ type: new A.Int64(), length: 3, data: BigInt64Array.of(2n ** 63n - 1n, -(2n ** 63n), 0n) }),
    u64: A.makeData({ type: new A.Uint64(), length: 3, data: BigUint64Array.of(2n ** 64n - 1n, 1n, 0n) }),
    f32: A.makeData({ type: new A.Float32(), length: 3, data: Float32Array.of(0.1, NaN, -0) }),
    f16: A.makeData({ type: new A.Float16(), length: 3, data: Uint16Array.of(A.util.float64ToUint16(1.5), A.util.float64ToUint16(-Infinity), A.util.float64ToUint16(0.1)) }),
    t32: A.makeData({ type: new A.TimeMillisecond(), length: 3, data: Int32Array.of(0, 45_296_789, 86_399_999) }),
    t64: A.makeData({ type: new A.TimeNanosecond(), length: 3, data: BigInt64Array.of(1n, 3_600_000_000_000n, 86_399_999_999_999n) }),
    d32: A.makeData({ type: new A.DateDay(), length: 3, data: Int32Array.of(0, -1, 19_723) }),
    ny: ts(A.TimeUnit.MILLISECOND, 'America/New_York', [1_710_054_000_000n - 1n, 1_710_054_000_000n, 0n]),
    utc: ts(A.TimeUnit.SECOND, 'UTC', [0n, -1n, 1_700_000_000n]),
    list_ts: listOfTs,
    fsb,
    dec,
    dur: A.makeData({ type: new A.Duration(A.TimeUnit.MICROSECOND), length: 3, data: BigInt64Array.of(-5n, 9_007_199_254_740_993n, 0n) }),
    dict: A.vectorFromArray(['x', null, 'y,z'], new A.Dictionary(new A.Utf8(), new A.Int32())).data[0]!,
    s: A.vectorFromArray(['a "q"', '', null], new A.Utf8()).data[0]!,
    bin: A.makeData({ type: new A.Binary(), length: 3, nullCount: 0, valueOffsets: Int32Array.of(0, 2, 2, 3), data: Uint8Array.of(0xab, 0xcd, 0x01) }),
    st: A.vectorFromArray(
      [{ a: 1, b: 'x' }, null, { a: null, b: null }],
      new A.Struct([new A.Field('a', new A.Int32(), true), new A.Field('b', new A.Utf8(), true)]),
    ).data[0]!,
    map: A.vectorFromArray(
      [new Map([['k', 1n]]), new Map(), null],
      new A.Map_<A.Utf8, A.Int64>(new A.Field('entries', new A.Struct<{ key: A.Utf8; value: A.Int64 }>([new A.Field('key', new A.Utf8(), false), new A.Field('value', new A.Int64(), true)]))),
    ).data[0]!,
    nul: A.makeData({ type: new A.Null(), length: 3 }),
  });
}

describe('cell text', () => {
  it('gives the exact text of every type', () => {
    const b = everyType();
    const col = (name: string) => field(b.getChild(name)!.data[0]!);
    expect(col('i64')).toEqual(['9223372036854775807', '-9223372036854775808', '0']);
    expect(col('u64')).toEqual(['18446744073709551615', '1', '0']);
    expect(col('f32')).toEqual(['0.1', 'NaN', '-0']);
    expect(col('f16')).toEqual(['1.5', '-inf', '0.1']);
    expect(col('t32')).toEqual(['00:00:00', '12:34:56.789', '23:59:59.999']);
    expect(col('t64')).toEqual(['00:00:00.000000001', '01:00:00', '23:59:59.999999999']);
    expect(col('d32')).toEqual(['1970-01-01', '1969-12-31', '2024-01-01']);
    // the DST jump of 2024-03-10 in New York: 01:59:59.999-05:00 then 03:00:00-04:00
    expect(col('ny')).toEqual(['2024-03-10T01:59:59.999-05:00', '2024-03-10T03:00:00-04:00', '1969-12-31T19:00:00-05:00']);
    expect(col('utc')).toEqual(['1970-01-01T00:00:00Z', '1969-12-31T23:59:59Z', '2023-11-14T22:13:20Z']);
    expect(col('list_ts')).toEqual(['["1970-01-01T00:00:00.000000001", "1970-01-02T00:00:00"]', '[]', null]);
    expect(col('fsb')).toEqual(['dead', null, '0001']);
    expect(col('dec')).toEqual(['12.50', '-0.05', '0.00']);
    expect(col('dur')).toEqual(['-5', '9007199254740993', '0']);
    expect(col('dict')).toEqual(['x', null, 'y,z']);
    expect(col('s')).toEqual(['a "q"', '', null]);
    expect(col('bin')).toEqual(['abcd', '', '01']);
    // a NULL struct is distinct from a struct whose fields are all NULL
    expect(col('st')).toEqual(['{"a": 1, "b": "x"}', null, '{"a": null, "b": null}']);
    expect(col('map')).toEqual(['{"k": 1}', '{}', null]);
    expect(col('nul')).toEqual([null, null, null]);
  });

  it('JSON: exact integers as strings beyond 2^53, NaN/inf as strings, nested as JSON', () => {
    const b = everyType();
    const col = (name: string) => json(b.getChild(name)!.data[0]!);
    expect(col('i64')).toEqual(['"9223372036854775807"', '"-9223372036854775808"', '0']);
    expect(col('f32')).toEqual(['0.1', '"NaN"', '-0']);
    expect(col('dur')).toEqual(['-5', '"9007199254740993"', '0']);
    expect(col('dec')).toEqual(['12.50', '-0.05', '0.00']);
    expect(col('list_ts')).toEqual(['["1970-01-01T00:00:00.000000001","1970-01-02T00:00:00"]', '[]', 'null']);
    expect(col('fsb')).toEqual(['"dead"', 'null', '"0001"']);
    expect(col('dict')).toEqual(['"x"', 'null', '"y,z"']);
    expect(col('st')).toEqual(['{"a":1,"b":"x"}', 'null', '{"a":null,"b":null}']);
    expect(col('map')).toEqual(['{"k":1}', '{}', 'null']);
    expect(JSON.parse(`[${col('ny').join(',')}]`)).toEqual(['2024-03-10T01:59:59.999-05:00', '2024-03-10T03:00:00-04:00', '1969-12-31T19:00:00-05:00']);
  });

  it('reads sliced batches at the right rows', () => {
    const b = everyType().slice(1, 3);
    expect(field(b.getChild('i64')!.data[0]!)).toEqual(['-9223372036854775808', '0']);
    expect(field(b.getChild('fsb')!.data[0]!)).toEqual([null, '0001']);
    expect(field(b.getChild('t32')!.data[0]!)).toEqual(['12:34:56.789', '23:59:59.999']);
    expect(field(b.getChild('list_ts')!.data[0]!)).toEqual(['[]', null]);
  });

  it('Utf8View and BinaryView: inline and out-of-line values', () => {
    const long = Buffer.from('a string longer than twelve bytes');
    const views = new Uint8Array(32);
    const dv = new DataView(views.buffer);
    dv.setInt32(0, 2, true);
    views.set(Buffer.from('hi'), 4);
    dv.setInt32(16, long.length, true);
    views.set(long.subarray(0, 4), 20);
    dv.setInt32(24, 0, true);
    dv.setInt32(28, 0, true);
    for (const [type, expected] of [
      [new A.Utf8View(), ['hi', long.toString()]],
      [new A.BinaryView(), ['6869', long.toString('hex')]],
    ] as const) {
      const d = new A.Data(type as A.DataType, 0, 2, 0, { [A.BufferType.DATA]: views } as never, [], undefined, [new Uint8Array(long)]);
      expect(field(d)).toEqual(expected);
    }
  });

  it('names types as job files spell them', () => {
    const b = everyType();
    expect(b.schema.fields.map((f) => typeName(f.type))).toEqual([
      'int64', 'uint64', 'float32', 'float16', 'time32[ms]', 'time64[ns]', 'date32', 'timestamp[ms, America/New_York]', 'timestamp[s, UTC]',
      'list<timestamp[ns]>', 'fixed_size_binary[2]', 'decimal(10, 2)', 'duration[us]', 'dictionary<utf8>', 'utf8', 'binary',
      'struct<a: int32, b: utf8>', 'map<utf8, int64>', 'null',
    ]);
  });

  it('decimal text handles negative scales and zero', () => {
    expect(decimalText(123n, -2)).toBe('12300');
    expect(decimalText(0n, -2)).toBe('0');
    expect(decimalText(-1n, 3)).toBe('-0.001');
    expect(decimalText(5n, 0)).toBe('5');
  });
});

describe('one renderer for the CSV writer and the CLI', () => {
  it('writeCsv and the CLI CSV output are byte-identical over every type, whole and sliced', async () => {
    const dir = await mkdtemp(join(os.tmpdir(), 'sluice-text-'));
    try {
      const b = everyType();
      for (const batches of [[b], [b.slice(0, 1), b.slice(1, 3)]]) {
        const path = join(dir, 'x.csv');
        await writeCsvAtomic(path, batches);
        let cli = '';
        const w = textWriter('csv', { write: (t) => void (cli += t) }, { maxRows: 20, maxWidth: 0, color: false });
        await w.start(b.schema);
        for (const x of batches) await w.write(x);
        await w.finish();
        expect(await readFile(path, 'utf8')).toBe(cli);
      }
      const text = await readFile(join(dir, 'x.csv'), 'utf8');
      expect(text.split('\n')[1]).toBe(
        '9223372036854775807,18446744073709551615,0.1,1.5,00:00:00,00:00:00.000000001,1970-01-01,2024-03-10T01:59:59.999-05:00,' +
          '1970-01-01T00:00:00Z,"[""1970-01-01T00:00:00.000000001"", ""1970-01-02T00:00:00""]",dead,12.50,-5,x,"a ""q""",abcd,' +
          '"{""a"": 1, ""b"": ""x""}","{""k"": 1}",',
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('floats', () => {
  fcTest.prop([fc.double()])('exact text reads back to the same float64', (x) => {
    const s = exactFloat(x, 64);
    const back = s === 'inf' ? Infinity : s === '-inf' ? -Infinity : Number(s);
    expect(Object.is(back, x)).toBe(true);
  });

  fcTest.prop([fc.float({ noNaN: true, noDefaultInfinity: true })])('exact float32 text is the shortest that reads back', (x) => {
    const s = exactFloat(x, 32);
    expect(Object.is(Math.fround(Number(s)), x)).toBe(true);
    const significand = s.replace(/^-/, '').replace(/e.*$/, '').replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
    expect(significand.length).toBeLessThanOrEqual(9);
  });

  fcTest.prop([fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e14, max: 1e14 })])('display text is within display precision of the value', (x) => {
    const s = displayFloat(x, 64);
    const back = Number(s);
    expect(Math.abs(back - x)).toBeLessThanOrEqual(Math.abs(x) * 5e-7 + 1e-300);
  });

  it('display precision only in the table view', () => {
    expect(displayFloat(0.04999999999998295, 64)).toBe('0.05');
    expect(exactFloat(0.04999999999998295, 64)).toBe('0.04999999999998295');
    expect(displayFloat(123456789.123, 64)).toBe('123456789');
    expect(displayFloat(1e20, 64)).toBe('1e+20');
    expect(displayFloat(1.5e-9, 64)).toBe('1.5e-9');
    expect(displayFloat(-0, 64)).toBe('-0');
    const d = A.makeData({ type: new A.Float64(), length: 1, data: Float64Array.of(0.04999999999998295) });
    expect(cellText(d, { syntax: 'field', floats: 'display' })(0)).toBe('0.05');
    expect(cellText(d, { syntax: 'json', floats: 'display' })(0)).toBe('0.04999999999998295');
  });
});

describe('zoned timestamps', () => {
  const zones = ['America/New_York', 'Europe/London', 'Australia/Lord_Howe', 'Asia/Kolkata', 'Pacific/Chatham', '+05:30', '-08:00'];
  fcTest.prop([fc.constantFrom(...zones), fc.bigInt({ min: -(2n ** 62n), max: 2n ** 62n })])(
    'local time and offset agree with Temporal (reference)',
    (zone, ns) => {
      const text = timestampFormatter('ns', zone)(ns);
      const z = Temporal.Instant.fromEpochNanoseconds(ns).toZonedDateTimeISO(zone);
      const m = /^(.*?)([+-]\d\d:\d\d(?::\d\d)?)$/.exec(text)!;
      expect(m).not.toBeNull();
      // the same instant, shown at the same offset
      expect(Temporal.Instant.from(text).epochNanoseconds).toBe(ns);
      expect(Temporal.PlainDateTime.from(m[1]!).equals(z.toPlainDateTime())).toBe(true);
    },
  );

  it('UTC zones use Z; an unknown zone shows the UTC instant with Z', () => {
    expect(timestampFormatter('ms', 'UTC')(0n)).toBe('1970-01-01T00:00:00Z');
    expect(timestampFormatter('ms', '+00:00')(0n)).toBe('1970-01-01T00:00:00Z');
    expect(timestampFormatter('ms', 'Mars/Olympus_Mons')(1n)).toBe('1970-01-01T00:00:00.001Z');
    expect(timestampFormatter('s', null)(0n)).toBe('1970-01-01T00:00:00');
    // London in winter is UTC+0 but not a UTC zone: the offset is written
    expect(timestampFormatter('s', 'Europe/London')(0n)).toBe('1970-01-01T01:00:00+01:00');
    expect(timestampFormatter('s', 'Europe/London')(1_704_067_200n)).toBe('2024-01-01T00:00:00+00:00');
    // local mean time before 1847 has a seconds offset
    expect(timestampFormatter('s', 'Europe/London')(-5_000_000_000n)).toBe('1811-07-23T15:05:25-00:01:15');
  });
});
