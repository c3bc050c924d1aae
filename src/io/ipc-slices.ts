/**
 * Row slices of an uncompressed Arrow IPC record batch, read straight from the file: the
 * message header gives every buffer's place in the body, so rows [r0, r1) of a column are byte
 * ranges of its buffers and the rest of the batch is never read. Memory is one slice, whatever
 * the batch size.
 *
 * Per column (flat types only): fixed-width values are the range [r0·w, r1·w); validity and
 * boolean bitmaps the bytes of bits [r0, r1) (slices start at multiples of 64 rows, so the bits
 * need no shifting); utf8 / binary the offsets [r0, r1] first, then the bytes they span, with the
 * offsets rebased to 0. Every range is checked against its buffer (the buffers against the body
 * were checked with the file's layout); the slice is then checked like any batch.
 *
 * Compressed batches, and columns of other types (lists, structs, dictionaries, large or view
 * strings), are not sliced here: the reader decodes those whole (see ipc.ts).
 */
import * as A from 'apache-arrow';
import type { FileHandle } from 'node:fs/promises';
import { countSet } from '../columns/bits.js';
import { newLocalBuffer } from '../memory/mapped-buffers.js';

/** Where a record batch's body lies in the file, and its header (field nodes, buffer regions). */
export interface BatchBlock {
  /** File position of the body. */
  body: number;
  bodyLength: number;
  rows: number;
  nodes: ReadonlyArray<{ length: number; nullCount: number }>;
  buffers: ReadonlyArray<{ offset: number; length: number }>;
  compressed: boolean;
}

/** How one column's rows lie in its buffers: `buffer` is its validity buffer's index. */
type Layout = { kind: 'fixed'; width: number; buffer: number } | { kind: 'bits'; buffer: number } | { kind: 'binary'; buffer: number };

/** Bytes per value of a fixed-width column type (0: not fixed-width, or not sliced). */
function valueWidth(t: A.DataType): number {
  switch (t.typeId) {
    case A.Type.Int:
    case A.Type.Time:
    case A.Type.Decimal:
      return (t as A.Int | A.Time | A.Decimal).bitWidth / 8;
    case A.Type.Float:
      return [2, 4, 8][(t as A.Float).precision]!;
    case A.Type.Date:
      return (t as A.Date_).unit === A.DateUnit.DAY ? 4 : 8;
    case A.Type.Timestamp:
    case A.Type.Duration:
      return 8;
    case A.Type.FixedSizeBinary:
      return (t as A.FixedSizeBinary).byteWidth;
    default:
      return 0;
  }
}

/** The layouts of a schema's columns when every column can be read in slices; null otherwise. */
export function sliceLayouts(schema: A.Schema): Layout[] | null {
  const layouts: Layout[] = [];
  let buffer = 0;
  for (const f of schema.fields) {
    const t = f.type;
    if (t.typeId === A.Type.Bool) layouts.push({ kind: 'bits', buffer });
    else if (t.typeId === A.Type.Utf8 || t.typeId === A.Type.Binary) layouts.push({ kind: 'binary', buffer });
    else {
      const width = valueWidth(t);
      if (width <= 0 || !Number.isInteger(width)) return null;
      layouts.push({ kind: 'fixed', width, buffer });
    }
    buffer += layouts[layouts.length - 1]!.kind === 'binary' ? 3 : 2;
  }
  return layouts;
}

/** Rows per slice: a multiple of 64 holding about `maxBytes` of the batch's `bytes` at most. */
export function sliceRowsFor(rows: number, bytes: number, maxBytes: number): number {
  const perRow = Math.max(1, bytes / Math.max(1, rows));
  return Math.max(64, Math.floor(maxBytes / perRow / 64) * 64);
}

const align8 = (n: number): number => (n + 7) & ~7;

/**
 * Rows [r0, r1) of the record batch `block` (r0 a multiple of 64), as a batch of `schema`.
 * `fail` makes the error for a range outside its buffer.
 */
export async function readSlice(
  h: FileHandle,
  block: BatchBlock,
  schema: A.Schema,
  layouts: Layout[],
  r0: number,
  r1: number,
  fail: (what: string) => Error,
): Promise<A.RecordBatch> {
  const n = r1 - r0;
  const bitBytes = (n + 7) >> 3;
  const region = (c: number, k: number) => block.buffers[layouts[c]!.buffer + k]!;
  // First pass: validity, fixed values, bitmaps and offsets, in one buffer (8-aligned parts).
  type Part = { pos: number; len: number; at: number };
  const parts: Part[] = [];
  let total = 0;
  const part = (c: number, k: number, from: number, len: number, what: string): Part => {
    const r = region(c, k);
    if (from + len > r.length) throw fail(`column ${schema.fields[c]!.name}: the ${what} buffer holds ${r.length} bytes, rows up to ${r1} need ${from + len}`);
    const p = { pos: block.body + r.offset + from, len, at: total };
    total = align8(total + len);
    parts.push(p);
    return p;
  };
  const plan = layouts.map((l, c) => {
    const validity = block.nodes[c]!.nullCount > 0 ? part(c, 0, r0 >> 3, bitBytes, 'validity') : null;
    const values =
      l.kind === 'fixed' ? part(c, 1, r0 * l.width, n * l.width, 'values') : l.kind === 'bits' ? part(c, 1, r0 >> 3, bitBytes, 'values') : part(c, 1, r0 * 4, (n + 1) * 4, 'offsets');
    return { validity, values };
  });
  const first = newLocalBuffer(total);
  await readParts(h, first, parts, fail);

  // Second pass: the bytes the utf8 / binary offsets span.
  const spans: Part[] = [];
  let spanTotal = 0;
  const offsets = layouts.map((l, c) => {
    if (l.kind !== 'binary') return null;
    const offs = new Int32Array(first, plan[c]!.values.at, n + 1);
    const lo = offs[0]!;
    const hi = offs[n]!;
    const data = region(c, 2);
    if (lo < 0 || hi < lo || hi > data.length) throw fail(`column ${schema.fields[c]!.name}: value offsets ${lo}..${hi} of rows ${r0}..${r1} lie outside its ${data.length}-byte data buffer`);
    for (let i = 0; i <= n; i++) offs[i] = offs[i]! - lo;
    const p = { pos: block.body + data.offset + lo, len: hi - lo, at: spanTotal };
    spanTotal = align8(spanTotal + p.len);
    spans.push(p);
    return { offs, span: p };
  });
  const second = newLocalBuffer(spanTotal);
  await readParts(h, second, spans, fail);

  const children = layouts.map((l, c) => {
    const type = schema.fields[c]!.type;
    const v = plan[c]!.validity;
    const nullBitmap = v ? new Uint8Array(first, v.at, v.len) : undefined;
    const nullCount = nullBitmap ? n - countSet(nullBitmap, 0, n) : 0;
    const values = plan[c]!.values;
    if (l.kind === 'binary') {
      const { offs, span } = offsets[c]!;
      return A.makeData({ type, length: n, nullCount, nullBitmap, valueOffsets: offs, data: new Uint8Array(second, span.at, span.len) });
    }
    return A.makeData({ type, length: n, nullCount, nullBitmap, data: new Uint8Array(first, values.at, values.len) });
  });
  return new A.RecordBatch(schema, A.makeData({ type: new A.Struct(schema.fields), length: n, nullCount: 0, children }));
}

async function readParts(h: FileHandle, into: ArrayBuffer, parts: Array<{ pos: number; len: number; at: number }>, fail: (what: string) => Error): Promise<void> {
  for (const p of parts) {
    if (p.len === 0) continue;
    const { bytesRead } = await h.read(new Uint8Array(into, p.at, p.len), 0, p.len, p.pos);
    if (bytesRead < p.len) throw fail(`truncated: ${p.len} bytes expected at byte ${p.pos}, ${bytesRead} found`);
  }
}
