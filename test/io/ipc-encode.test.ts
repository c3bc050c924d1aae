/**
 * encodeFlatBatch frames a batch of flat columns as an IPC stream message that apache-arrow
 * reads back as the same rows; non-flat or sliced columns are declined (null).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import * as A from 'apache-arrow';
import { concatData } from '../../src/columns/gather.js';
import { encodeFlatBatch } from '../../src/io/ipc-encode.js';
import { allCases, columnWithSlice } from '../support/explode-arbitraries.js';
import { makeColumn, normalize, readData } from '../support/explode-arrow.js';

/** A stream of apache-arrow's schema message, the encoded messages and the end marker. */
function streamOf(schema: A.Schema, messages: Uint8Array[][]): Uint8Array {
  const head = A.RecordBatchStreamWriter.writeAll(new A.Table(schema)).toUint8Array(true);
  // writeAll of an empty table: the schema message, then the 8-byte end-of-stream marker.
  const parts = [head.subarray(0, head.byteLength - 8), ...messages.flat(), head.subarray(head.byteLength - 8)];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

const T = A.Type;
const FLAT = new Set<A.Type>([T.Int, T.Float, T.Date, T.Time, T.Timestamp, T.Duration, T.Interval, T.Decimal, T.FixedSizeBinary, T.Bool, T.Utf8, T.Binary, T.LargeUtf8, T.LargeBinary]);

describe('encodeFlatBatch', () => {
  for (const c of allCases) {
    it(`reads back as written: ${c.label}`, () => {
      fc.assert(
        fc.property(fc.array(columnWithSlice(c, 40), { minLength: 1, maxLength: 2 }), (cols) => {
          // A fresh concatenation (offset 0), as the exchange's merges make; two batches in a row.
          const datas = cols.map((col) => concatData([makeColumn(col.values, c.type).slice(col.off, col.len)]));
          const type = datas[0]!.type;
          const encoded = datas.map((d) => encodeFlatBatch([d, d], d.length));
          // Declined exactly for the types that are not flat.
          expect(encoded.map((e) => e !== null)).toEqual(datas.map(() => FLAT.has(type.typeId)));
          if (!FLAT.has(type.typeId)) return;
          for (const e of encoded) {
            expect(e!.bytes).toBe(e!.chunks.reduce((n, x) => n + x.byteLength, 0));
            expect(e!.bytes % 8).toBe(0);
          }
          const schema = new A.Schema([new A.Field('a', type, true), new A.Field('b', type, true)]);
          const table = A.tableFromIPC(streamOf(schema, encoded.map((e) => e!.chunks)));
          expect(table.batches.length).toBe(cols.length);
          cols.forEach((col, i) => {
            const expected = col.values.slice(col.off, col.off + col.len).map((v) => normalize(v, c.type));
            const b = table.batches[i]!;
            expect(b.numRows).toBe(col.len);
            expect(readData(b.data.children[0]!)).toEqual(expected);
            expect(readData(b.data.children[1]!)).toEqual(expected);
          });
        }),
        { numRuns: 25 },
      );
    });
  }

  it('declines sliced columns and nested types', () => {
    const ints = A.vectorFromArray([1, 2, null, 4], new A.Int32()).data[0]!;
    expect(encodeFlatBatch([ints.slice(1, 2)], 2)).toBeNull();
    const list = A.vectorFromArray([[1], [2, 3]], new A.List(new A.Field('item', new A.Int32(), true))).data[0]!;
    expect(encodeFlatBatch([list], 2)).toBeNull();
    expect(encodeFlatBatch([ints], 4)).not.toBeNull();
  });
});
