/**
 * Spill merges written straight from routing replies (src/shuffle/spill-merge.ts): segments of
 * several replies, at any row offset, with and without NULLs, read back by apache-arrow as the
 * rows of those segments in order, for every flat column kind.
 */
import fc from 'fast-check';
import * as A from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { describeData, toSharedData } from '../../src/columns/shared.js';
import { mergeable, mergedHead, ReplyColumns, writeMerged, type Segment } from '../../src/shuffle/spill-merge.js';
import type { RoutedChunks } from '../../src/types/tasks.js';
import { rng } from '../support/random.js';

const FIELDS = [
  new A.Field('__row_id', new A.Uint32(), false),
  new A.Field('i', new A.Int32(), true),
  new A.Field('b', new A.Int64(), true),
  new A.Field('f', new A.Float64(), true),
  new A.Field('ok', new A.Bool(), true),
  new A.Field('s', new A.Utf8(), true),
  new A.Field('d', new A.Decimal(2, 20, 128), true),
];
const SCHEMA = new A.Schema(FIELDS);
const TYPES = FIELDS.map((f) => f.type);

type Row = [number, number | null, bigint | null, number | null, boolean | null, string | null, Uint32Array | null];

function reply(rows: Row[], bounds: number[], sliceFrom: number): RoutedChunks {
  // Columns made from a longer vector and sliced, so bitmaps start at a bit offset.
  const pad = Array.from({ length: sliceFrom }, () => rows[0]!);
  const all = [...pad, ...rows];
  const col = (c: number): A.Data => {
    const values = all.map((r) => r[c]);
    const v = c === 6 ? A.makeVector({ type: FIELDS[6]!.type as A.Decimal, data: new Uint32Array(all.length * 4).map((_, k) => (all[k >> 2]![6] ? all[k >> 2]![6]![k & 3]! : 0)), length: all.length, nullCount: all.filter((r) => r[6] === null).length, nullBitmap: A.vectorFromArray(all.map((r) => r[6] !== null), new A.Bool()).data[0]!.values }) : A.vectorFromArray(values as never[], FIELDS[c]!.type);
    return toSharedData(v.data[0]!).slice(sliceFrom, rows.length);
  };
  const [rowIds, ...columns] = FIELDS.map((_, c) => describeData(col(c)));
  return { extraBytes: 0, bufferBytes: 0, buffer: null, rowIds: rowIds!, columns, bounds: Uint32Array.from(bounds) };
}

function decode(message: Uint8Array): A.RecordBatch {
  const schemaOnly = A.tableToIPC(new A.Table(SCHEMA), 'stream');
  const head = schemaOnly.subarray(0, schemaOnly.byteLength - 8);
  const bytes = new Uint8Array(head.byteLength + message.byteLength + 8);
  bytes.set(head);
  bytes.set(message, head.byteLength);
  bytes.set([0xff, 0xff, 0xff, 0xff], head.byteLength + message.byteLength);
  const t = A.tableFromIPC(bytes);
  expect(t.batches.length).toBe(1);
  return t.batches[0]!;
}

function rowOf(b: A.RecordBatch, i: number): unknown[] {
  return FIELDS.map((f, c) => {
    const v = b.getChildAt(c)!.get(i);
    if (v === null) return null;
    if (c === 6) return Array.from(v as Uint32Array);
    return typeof v === 'bigint' ? String(v) : v;
  });
}

const asJs = (r: Row): unknown[] => r.map((v, c) => (v === null ? null : c === 6 ? Array.from(v as Uint32Array) : typeof v === 'bigint' ? String(v) : v));

describe('spill merges from reply segments', () => {
  it('takes flat columns with 32-bit offsets only', () => {
    expect(mergeable(TYPES)).toBe(true);
    expect(mergeable([new A.Uint32(), new A.LargeUtf8()])).toBe(false);
    expect(mergeable([new A.Uint32(), new A.List(new A.Field('x', new A.Int32()))])).toBe(false);
  });

  it('writes the segments of several replies as one message apache-arrow reads as their rows, in order', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 10_000 }), (replies, seed) => {
        const r = rng(seed);
        const nulls = r() < 0.7;
        const mk = (id: number): Row => [
          id,
          nulls && r() < 0.2 ? null : Math.floor(r() * 2000) - 1000,
          nulls && r() < 0.2 ? null : BigInt(Math.floor(r() * 2 ** 52)) * (r() < 0.5 ? -1n : 1n),
          nulls && r() < 0.2 ? null : r() * 1e6,
          nulls && r() < 0.2 ? null : r() < 0.5,
          nulls && r() < 0.2 ? null : 'x'.repeat(Math.floor(r() * 12)),
          nulls && r() < 0.2 ? null : Uint32Array.from({ length: 4 }, () => Math.floor(r() * 2 ** 32)),
        ];
        const segments: Segment[] = [];
        const want: unknown[][] = [];
        let id = 0;
        for (let k = 0; k < replies; k++) {
          const n = 1 + Math.floor(r() * 200);
          const rows = Array.from({ length: n }, () => mk(id++));
          const cut = Math.floor(r() * n);
          const cut2 = cut + Math.floor(r() * (n - cut + 1));
          const cols = new ReplyColumns(reply(rows, [0, cut, cut2, n], Math.floor(r() * 13)), TYPES);
          // this destination's rows: [cut, cut2)
          if (cut2 > cut) segments.push({ from: cols, start: cut, rows: cut2 - cut });
          for (let i = cut; i < cut2; i++) want.push(asJs(rows[i]!));
        }
        if (segments.length === 0) return;
        const head = mergedHead(segments);
        const size = head.headBytes + head.bodyBytes;
        const out = new Uint8Array(size + 16);
        writeMerged(out, 8, head, segments);
        const b = decode(out.subarray(8, 8 + size));
        expect(b.numRows).toBe(want.length);
        expect(Array.from({ length: b.numRows }, (_, i) => rowOf(b, i))).toEqual(want);
        FIELDS.forEach((_, c) => expect(b.getChildAt(c)!.nullCount).toBe(want.filter((w) => w[c] === null).length));
      }),
      { numRuns: 60 },
    );
  });
});
