/**
 * Record batch metadata written and read by hand (src/io/ipc-batch-meta.ts), checked against
 * apache-arrow both ways: heads we write decode with its Message.decode and frame streams its
 * reader reads; messages its writer makes read back here with the same layout it reports.
 */
import fc from 'fast-check';
import * as A from 'apache-arrow';
import { Message } from 'apache-arrow/ipc/metadata/message';
import { describe, expect, it } from 'vitest';
import { align8, batchMessageHead, readBatchMessage } from '../../src/io/ipc-batch-meta.js';

/** A stream: arrow's schema message, then the batches, then the end-of-stream marker. */
function streamOf(table: A.Table): Uint8Array {
  return A.tableToIPC(table, 'stream');
}

describe('ipc-batch-meta', () => {
  it('writes heads apache-arrow decodes with the same numbers, lengths past 2^32 included', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 40 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 2 ** 34 }), fc.integer({ min: 0, max: 2 ** 34 })), { maxLength: 12 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 2 ** 45 }), fc.integer({ min: 0, max: 2 ** 33 })), { maxLength: 30 }),
        fc.integer({ min: 0, max: 2 ** 50 }),
        (length, nodes, buffers, bodyBytes) => {
          const head = batchMessageHead(length, nodes.flat(), buffers.flat(), bodyBytes);
          expect(head.byteLength % 8).toBe(0);
          const view = new DataView(head.buffer);
          expect(view.getInt32(0, true)).toBe(-1);
          expect(view.getInt32(4, true)).toBe(head.byteLength - 8);
          const m = Message.decode(head.subarray(8));
          expect(m.isRecordBatch()).toBe(true);
          expect(Number(m.bodyLength)).toBe(bodyBytes);
          const rb = m.header() as unknown as { length: number; nodes: { length: number; nullCount: number }[]; buffers: { offset: number; length: number }[] };
          expect(Number(rb.length)).toBe(length);
          expect(rb.nodes.map((n) => [Number(n.length), Number(n.nullCount)])).toEqual(nodes);
          expect(rb.buffers.map((b) => [Number(b.offset), Number(b.length)])).toEqual(buffers);
          // and reads back here
          const bytes = new Uint8Array(head.byteLength + (bodyBytes < 4096 ? bodyBytes : 0));
          bytes.set(head);
          if (bodyBytes < 4096) {
            const r = readBatchMessage(bytes, 0)!;
            expect(r).toEqual({ length, nodes: nodes.flat(), buffers: buffers.flat(), bodyBytes, bodyStart: head.byteLength, next: head.byteLength + bodyBytes });
          } else {
            expect(() => readBatchMessage(bytes, 0)).toThrow(/out of bounds/);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it("reads apache-arrow's own record batch messages, and stops at the end-of-stream marker", () => {
    const table = new A.Table({
      i: A.vectorFromArray([1, null, 3, 4, 5], new A.Int32()),
      s: A.vectorFromArray(['a', 'bb', null, '', 'ccc'], new A.Utf8()),
      b: A.vectorFromArray([true, false, null, true, true], new A.Bool()),
    });
    const two = new A.Table([...table.batches, ...table.slice(1, 4).batches]);
    const bytes = streamOf(two);
    // skip the schema message: its framed length
    const schemaEnd = 8 + new DataView(bytes.buffer, bytes.byteOffset).getInt32(4, true);
    const first = readBatchMessage(bytes, schemaEnd)!;
    expect(first.length).toBe(5);
    expect(first.nodes).toEqual([5, 1, 5, 1, 5, 1]);
    // validity + values, validity + offsets + bytes, validity + bits
    expect(first.buffers.length).toBe(2 * 7);
    const values = new Int32Array(bytes.buffer, bytes.byteOffset + first.bodyStart + first.buffers[2]!, 5);
    expect([values[0], values[2], values[4]]).toEqual([1, 3, 5]);
    const second = readBatchMessage(bytes, first.next)!;
    expect(second.length).toBe(3);
    expect(readBatchMessage(bytes, second.next)).toBeNull();
  });

  it('frames a stream apache-arrow reads: our heads with arrow-laid bodies', () => {
    const values = Int32Array.from([7, -1, 42, 0, 9]);
    const body = new Uint8Array(align8(values.byteLength));
    body.set(new Uint8Array(values.buffer));
    const head = batchMessageHead(5, [5, 0], [0, 0, 0, body.byteLength], body.byteLength);
    const schemaMsg = streamOf(new A.Table({ x: A.vectorFromArray([1], new A.Int32()) }));
    const schemaEnd = 8 + new DataView(schemaMsg.buffer, schemaMsg.byteOffset).getInt32(4, true);
    const stream = new Uint8Array(schemaEnd + head.byteLength + body.byteLength + 8);
    stream.set(schemaMsg.subarray(0, schemaEnd));
    stream.set(head, schemaEnd);
    stream.set(body, schemaEnd + head.byteLength);
    const t = A.tableFromIPC(stream);
    expect(t.getChild('x')!.toArray()).toEqual(values);
  });

  it('refuses what is not a record batch, and metadata that points outside the bytes', () => {
    const bytes = streamOf(new A.Table({ x: A.vectorFromArray([1, 2], new A.Int32()) }));
    expect(() => readBatchMessage(bytes, 0)).toThrow(/not a record batch/);
    const head = batchMessageHead(2, [2, 0], [0, 0, 0, 8], 8);
    expect(() => readBatchMessage(head, 0)).toThrow(/out of bounds/);
    const cut = head.subarray(0, 40);
    expect(() => readBatchMessage(cut, 0)).toThrow(/out of bounds/);
  });
});
