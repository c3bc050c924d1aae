/**
 * describe's per-column summaries against a naive reference (plain JS over the values, written
 * from the documented orders: NaN above every number, -0 equal to 0, integers exact, strings in
 * UTF-8 byte order, false < true), over random columns split into random batches and slices.
 */
import { fc, test as fcTest } from '@fast-check/vitest';
import * as A from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { TableSummary } from '../../src/cli/column-summary.js';

type Value = number | bigint | string | boolean;

/** Reference min/max text of non-NULL values (JS order helpers written for the test). */
function reference(values: Array<Value | null>, text: (v: Value) => string): { nulls: number; min: string | null; max: string | null } {
  const present = values.filter((v): v is Value => v !== null);
  const cmp = (a: Value, b: Value): number => {
    if (typeof a === 'number' && typeof b === 'number') {
      if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) ? (Number.isNaN(b) ? 0 : 1) : -1;
      return a < b ? -1 : a > b ? 1 : 0;
    }
    if (typeof a === 'string' && typeof b === 'string') return Buffer.compare(Buffer.from(a), Buffer.from(b));
    if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
    return (a as bigint) < (b as bigint) ? -1 : (a as bigint) > (b as bigint) ? 1 : 0;
  };
  if (present.length === 0) return { nulls: values.length, min: null, max: null };
  let min = present[0]!;
  let max = present[0]!;
  for (const v of present) {
    if (cmp(v, min) < 0) min = v;
    if (cmp(v, max) > 0) max = v;
  }
  return { nulls: values.length - present.length, min: text(min), max: text(max) };
}

/** `values` as batches cut at `cuts`, each batch a slice of a larger one (non-zero offsets). */
function batches(type: A.DataType, values: Array<Value | null>, cuts: number[]): A.RecordBatch[] {
  const pad = values.length > 0 ? [values[0]!, ...values, values[0]!] : [];
  const whole = A.vectorFromArray(pad as never[], type as never);
  const schema = new A.Schema([new A.Field('x', type, true)]);
  const batch = new A.RecordBatch(schema, A.makeData({ type: new A.Struct(schema.fields), length: whole.length, nullCount: 0, children: [whole.data[0]!] }));
  const bounds = [...new Set([0, ...cuts.map((c) => c % (values.length + 1)), values.length])].sort((a, b) => a - b);
  const out: A.RecordBatch[] = [];
  for (let k = 1; k < bounds.length; k++) out.push(batch.slice(1 + bounds[k - 1]!, 1 + bounds[k]!));
  return out;
}

function summarize(type: A.DataType, parts: A.RecordBatch[]) {
  const s = new TableSummary(new A.Schema([new A.Field('x', type, true)]));
  for (const b of parts) s.add(b);
  return s.result()[0]!;
}

const cuts = fc.array(fc.nat(), { maxLength: 4 });
const float = (v: Value): string => (Object.is(v, -0) ? '-0' : Number.isNaN(v) ? 'NaN' : v === Infinity ? 'inf' : v === -Infinity ? '-inf' : String(v));

describe('column summaries (describe)', () => {
  fcTest.prop([fc.array(fc.option(fc.double(), { nil: null }), { maxLength: 60 }), cuts])('float64: NaN above every number', (values, c) => {
    const got = summarize(new A.Float64(), batches(new A.Float64(), values, c));
    const want = reference(values, float);
    // -0 and 0 are equal: either text is right
    const z = (t: string | null): string | null => (t === '-0' ? '0' : t);
    expect({ nulls: got.nulls, min: z(got.min), max: z(got.max) }).toEqual({ nulls: want.nulls, min: z(want.min), max: z(want.max) });
    expect(got.rows).toBe(values.length);
  });

  fcTest.prop([fc.array(fc.option(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), { nil: null }), { maxLength: 60 }), cuts])('int64: exact over the whole range', (values, c) => {
    const got = summarize(new A.Int64(), batches(new A.Int64(), values, c));
    expect({ nulls: got.nulls, min: got.min, max: got.max }).toEqual(reference(values, String));
  });

  fcTest.prop([fc.array(fc.option(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), { nil: null }), { maxLength: 60 }), cuts])('uint64: high values above low ones', (values, c) => {
    const got = summarize(new A.Uint64(), batches(new A.Uint64(), values, c));
    expect({ nulls: got.nulls, min: got.min, max: got.max }).toEqual(reference(values, String));
  });

  fcTest.prop([fc.array(fc.option(fc.string({ unit: 'binary' }), { nil: null }), { maxLength: 40 }), cuts])('utf8: UTF-8 byte order', (values, c) => {
    const got = summarize(new A.Utf8(), batches(new A.Utf8(), values, c));
    expect({ nulls: got.nulls, min: got.min, max: got.max }).toEqual(reference(values, String));
  });

  fcTest.prop([fc.array(fc.option(fc.boolean(), { nil: null }), { maxLength: 40 }), cuts])('bool: false < true', (values, c) => {
    const got = summarize(new A.Bool(), batches(new A.Bool(), values, c));
    expect({ nulls: got.nulls, min: got.min, max: got.max }).toEqual(reference(values, String));
  });

  it('all-NULL, empty and nested columns have no min/max; timestamps print as the column does', () => {
    expect(summarize(new A.Int32(), batches(new A.Int32(), [null, null], []))).toMatchObject({ rows: 2, nulls: 2, min: null, max: null });
    expect(summarize(new A.Int32(), [])).toMatchObject({ rows: 0, nulls: 0, min: null, max: null });
    const list = new A.List(new A.Field('item', new A.Int32(), true));
    expect(summarize(list, batches(list, [[1], null] as never, []))).toMatchObject({ rows: 2, nulls: 1, min: null, max: null });
    const ts = new A.TimestampSecond('America/New_York');
    const v = A.makeData({ type: ts, length: 3, data: BigInt64Array.of(1_710_054_000n, -1n, 0n) });
    const schema = new A.Schema([new A.Field('x', ts, true)]);
    const b = new A.RecordBatch(schema, A.makeData({ type: new A.Struct(schema.fields), length: 3, nullCount: 0, children: [v] }));
    expect(summarize(ts, [b])).toMatchObject({ type: 'timestamp[s, America/New_York]', min: '1969-12-31T18:59:59-05:00', max: '2024-03-10T03:00:00-04:00' });
  });
});
