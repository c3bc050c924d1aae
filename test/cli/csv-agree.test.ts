/**
 * The CSV file writer (src/io/csv-write) and the CLI's CSV output (src/cli/format) render the
 * same cells: binary as hex, a NULL dictionary value as an empty field, sliced batches.
 */
import * as A from 'apache-arrow';
import { expect, it } from 'vitest';
import { renderDelimited } from '../../src/cli/format.js';
import { batchToCsv } from '../../src/io/csv-write.js';

it('writer and CLI agree on binary, dictionary NULLs and sliced rows', async () => {
  const bin = A.makeData({
    type: new A.Binary(),
    length: 3,
    nullCount: 0,
    valueOffsets: Int32Array.from([0, 2, 2, 3]),
    data: Uint8Array.from([0xab, 0xcd, 0x01]),
  });
  const dict = A.vectorFromArray(['x', null, 'y'], new A.Dictionary(new A.Utf8(), new A.Int32())).data[0]!;
  const ints = A.makeData({ type: new A.Int32(), length: 3, data: Int32Array.from([1, 2, 3]) });
  const schema = new A.Schema([new A.Field('b', bin.type), new A.Field('d', dict.type, true), new A.Field('i', ints.type)]);
  const batch = new A.RecordBatch(schema, A.makeData({ type: new A.Struct(schema.fields), length: 3, nullCount: 0, children: [bin, dict, ints] }));
  for (const b of [batch, batch.slice(1, 3)]) {
    let cli = '';
    await renderDelimited(schema, [b], { write: (t) => void (cli += t) });
    const body = cli.split('\n').slice(1).join('\n');
    expect(batchToCsv(b)).toBe(body);
  }
  // An empty binary value is an empty string (quoted), a NULL is an empty field.
  expect(batchToCsv(batch)).toBe('abcd,x,1\n"",,2\n01,y,3\n');
});
