import { Field, Float32, Int64, List, makeData, makeVector, RecordBatch, Schema, Struct, Table, TimestampNanosecond, Utf8, vectorFromArray } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { servingLog, orders } from '../../src/cli/demo-data.js';
import { fitColumns, renderTable, textWriter, type TextFormat, type TextSink } from '../../src/cli/format.js';
import { typeName as dtypeName } from '../../src/io/text/type-names.js';

function sink(): TextSink & { text: string } {
  const s = { text: '', write(t: string) { s.text += t; } };
  return s;
}

async function render(format: TextFormat, schema: Schema, batches: RecordBatch[], out: TextSink): Promise<void> {
  const w = textWriter(format, out, { maxRows: 20, maxWidth: 0, color: false });
  await w.start(schema);
  for (const b of batches) await w.write(b);
  await w.finish();
}
const renderDelimited = (schema: Schema, batches: RecordBatch[], out: TextSink, d = ',') => render(d === ',' ? 'csv' : 'tsv', schema, batches, out);

const MAX = 2n ** 63n - 1n;
const MIN = -(2n ** 63n);

function sample(): Table {
  const n = 4;
  const ids = new BigInt64Array([MAX, MIN, 42n, 9007199254740993n]);
  const idNull = new Uint8Array([0b1011]); // row 2 is NULL
  const ts = new BigInt64Array([0n, 1_700_000_000_123_456_789n, -1n, 86_400_000_000_000n]);
  const f32 = new Float32Array([0.1, Number.NaN, -0, Infinity]);
  const fields = [
    new Field('id', new Int64(), true),
    new Field('ts', new TimestampNanosecond('UTC'), false),
    new Field('x', new Float32(), false),
    new Field('s', new Utf8(), true),
    new Field('l', new List(new Field('item', new Int64(), true)), true),
  ];
  const s = vectorFromArray(['a,b', '', null, 'say "hi"'], new Utf8()).data[0]!;
  const l = vectorFromArray([[1n, null], [], null, [MAX]], new List(new Field('item', new Int64(), true))).data[0]!;
  const cols = [
    makeData({ type: new Int64(), length: n, data: ids, nullBitmap: idNull, nullCount: 1 }),
    makeData({ type: new TimestampNanosecond('UTC'), length: n, data: ts }),
    makeData({ type: new Float32(), length: n, data: f32 }),
    s,
    l,
  ];
  const schema = new Schema(fields);
  return new Table(schema, [new RecordBatch(schema, makeData({ type: new Struct(fields), length: n, nullCount: 0, children: cols as never }))]);
}

describe('format', () => {
  it('names types briefly', () => {
    const t = sample();
    expect(t.schema.fields.map((f) => dtypeName(f.type))).toEqual(['int64', 'timestamp[ns, UTC]', 'float32', 'utf8', 'list<int64>']);
  });

  it('CSV: exact int64, ISO timestamps, NULL empty, quoting', async () => {
    const t = sample();
    const out = sink();
    await renderDelimited(t.schema, t.batches, out, ',');
    expect(out.text).toBe(
      'id,ts,x,s,l\n' +
        '9223372036854775807,1970-01-01T00:00:00Z,0.1,"a,b","[1, null]"\n' +
        '-9223372036854775808,2023-11-14T22:13:20.123456789Z,NaN,"",[]\n' +
        ',1969-12-31T23:59:59.999999999Z,-0,,\n' +
        '9007199254740993,1970-01-02T00:00:00Z,inf,"say ""hi""",[9223372036854775807]\n',
    );
  });

  it('JSON and NDJSON: int64 as numbers when safe, else strings', async () => {
    const t = sample();
    const j = sink();
    await render('json', t.schema, t.batches, j);
    const arr = JSON.parse(j.text);
    expect(arr).toHaveLength(4);
    expect(arr[0]).toEqual({ id: '9223372036854775807', ts: '1970-01-01T00:00:00Z', x: 0.1, s: 'a,b', l: [1, null] });
    expect(arr[1].x).toBe('NaN');
    expect(arr[2]).toEqual({ id: null, ts: '1969-12-31T23:59:59.999999999Z', x: -0, s: null, l: null });
    expect(arr[3].id).toBe('9007199254740993');
    expect(arr[3].l).toEqual(['9223372036854775807']);
    const nd = sink();
    await render('ndjson', t.schema, t.batches, nd);
    expect(nd.text.trimEnd().split('\n').map((l) => JSON.parse(l))).toEqual(arr);
    const empty = sink();
    await render('json', t.schema, [], empty);
    expect(JSON.parse(empty.text)).toEqual([]);
  });

  it('table view: types row, null, head and tail with "N rows (M shown)"', () => {
    const t = sample();
    const all = renderTable(t.schema, t.batches, { maxRows: 10 });
    expect(all).toMatch(/timestamp\[ns, UTC\]/);
    expect(all).toMatch(/│ +null │/);
    expect(all).toMatch(/9223372036854775807/);
    expect(all).toMatch(/4 rows, 5 columns\n$/);
    expect(all).not.toMatch(/\x1b\[/); // no colour unless asked
    const cut = renderTable(t.schema, t.batches, { maxRows: 2 });
    expect(cut).toMatch(/4 rows \(2 shown\)/);
    expect(cut).toMatch(/│ +9223372036854775807 │ 1970-01-01T00:00:00Z/); // head (the tail row lists the same number inside [])
    expect(cut).toMatch(/9007199254740993/); // tail
    expect(cut).not.toMatch(/-9223372036854775808/);
    expect(cut).toMatch(/…/);
  });

  it('reads sliced batches at the right rows', async () => {
    const t = makeVector(new Int32Array([10, 20, 30, 40, 50]));
    const table = new Table({ v: t, s: vectorFromArray(['a', 'b', 'c', 'd', 'e'], new Utf8()) });
    const batch = table.batches[0]!.slice(2, 5);
    const out = sink();
    await renderDelimited(table.schema, [batch], out);
    expect(out.text).toBe('v,s\n30,c\n40,d\n50,e\n');
    const view = renderTable(table.schema, [table.batches[0]!.slice(0, 2), table.batches[0]!.slice(2, 3), batch.slice(1, 3)], { maxRows: 2 });
    expect(view).toMatch(/│ +10 │ a +│/);
    expect(view).toMatch(/│ +50 │ e +│/);
    expect(view).toMatch(/5 rows \(2 shown\)/);
  });
});

describe('demo data', () => {
  it('is deterministic, plain Utf8, with equal list lengths in orders', () => {
    const a = servingLog(1000, 3);
    const b = servingLog(1000, 3);
    expect(a.getChild('tokens')!.toArray()).toEqual(b.getChild('tokens')!.toArray());
    expect(a.schema.fields.map((f) => dtypeName(f.type))).toEqual(['int64', 'timestamp[ms]', 'int64', 'float64']);
    const o = orders(2000, 1);
    expect(o.schema.fields.map((f) => dtypeName(f.type))).toEqual(['int64', 'list<utf8>', 'utf8', 'list<int64>']);
    const items = o.getChild('items')!;
    const qty = o.getChild('quantities')!;
    let empty = 0;
    let nulls = 0;
    for (let i = 0; i < o.numRows; i++) {
      const x = items.get(i);
      const y = qty.get(i);
      const lx = x ? x.length : 0;
      const ly = y ? y.length : 0;
      expect(lx).toBe(ly);
      if (lx === 0) empty++;
      if (x === null || y === null) nulls++;
    }
    expect(empty).toBeGreaterThan(0);
    expect(nulls).toBeGreaterThan(0);
  });
});

describe('table view fits the terminal', () => {
  function wide(cols: number, rows: number): Table {
    const data: Record<string, ReturnType<typeof makeVector>> = {};
    for (let c = 0; c < cols; c++) data[`column_number_${c}`] = makeVector(Float64Array.from({ length: rows }, (_x, i) => i + c / 100 + 0.04999999999998295));
    return new Table(data);
  }

  it('hides middle columns behind a … column at 80 characters, keeping both ends', () => {
    const t = wide(12, 30);
    const text = renderTable(t.schema, t.batches, { maxRows: 6, maxWidth: 80 });
    const lines = text.trimEnd().split('\n');
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(80);
    expect(lines[1]).toMatch(/column_number_0 /);
    expect(lines[1]).toMatch(/column_number_11 /);
    expect(lines[1]).toMatch(/│ … │/);
    expect(text).not.toMatch(/column_number_5 /);
    expect(lines.at(-1)).toMatch(/^30 rows \(6 shown\), 12 columns \(\d+ shown\)$/);
    // display precision in the table only
    expect(text).toMatch(/│ +0\.05 │/);
    const all = renderTable(t.schema, t.batches, { maxRows: 6, maxWidth: 0 });
    expect(all).toMatch(/column_number_5 /);
    expect(all.trimEnd().split('\n').at(-1)).toBe('30 rows (6 shown), 12 columns');
  });

  it('a table that fits is left whole', () => {
    const t = wide(2, 3);
    const text = renderTable(t.schema, t.batches, { maxWidth: 80 });
    expect(text).not.toMatch(/…/);
    expect(text.trimEnd().split('\n').at(-1)).toBe('3 rows, 2 columns');
  });

  it('fitColumns alternates from both ends and keeps at least one column', () => {
    expect(fitColumns([10, 10, 10, 10, 10], 40)).toEqual([0, 1, 4]);
    expect(fitColumns([10, 10, 10, 10, 10], 30)).toEqual([0, 4]);
    expect(fitColumns([100, 10], 40)).toEqual([0]);
  });
});
