/**
 * Row slices of an uncompressed Arrow IPC record batch, read straight from the file: the
 * message header gives every buffer's place in the body, so rows [r0, r1) of a column are byte
 * ranges of its buffers and the rest of the batch is never read. Memory is one slice, whatever
 * the batch size.
 *
 * Per column: fixed-width values are the range [r0·w, r1·w); validity and boolean bitmaps the
 * bytes of bits [r0, r1) (shifted to bit 0 unless r0 is a multiple of 8); utf8 / binary the
 * offsets [r0, r1] first, then the bytes they span, with the offsets rebased to 0; a list its
 * offsets the same way, then its child for the child rows they span (recursively); a fixed-size
 * list its child rows [r0·size, r1·size); a struct its children's rows [r0, r1). Every range is
 * checked against its buffer (the buffers against the body were checked with the file's
 * layout); the slice is then checked like any batch.
 *
 * Compressed batches, and columns of other types (large lists and strings, maps, unions,
 * dictionaries, views), are not sliced here: the reader decodes those whole (see ipc.ts).
 */
import * as A from 'apache-arrow';
import type { FileHandle } from 'node:fs/promises';
import { countSet, sliceBitmap } from '../columns/bits.js';
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

/**
 * How one column's rows lie in the batch: `node` is its field node and `buffer` its first
 * buffer (the validity bitmap), in the message's depth-first order.
 */
type Layout =
  | { kind: 'fixed'; width: number; node: number; buffer: number }
  | { kind: 'bits'; node: number; buffer: number }
  | { kind: 'binary'; node: number; buffer: number }
  | { kind: 'list'; node: number; buffer: number; child: Layout }
  | { kind: 'fixedList'; size: number; node: number; buffer: number; child: Layout }
  | { kind: 'struct'; node: number; buffer: number; children: Layout[] };

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
  const at = { node: 0, buffer: 0 };
  const layouts: Layout[] = [];
  for (const f of schema.fields) {
    const l = layoutOf(f.type, at);
    if (!l) return null;
    layouts.push(l);
  }
  return layouts;
}

/** One column's layout, advancing the node and buffer counters past it (and its children). */
function layoutOf(t: A.DataType, at: { node: number; buffer: number }): Layout | null {
  const node = at.node++;
  const buffer = at.buffer;
  switch (t.typeId) {
    case A.Type.Bool:
      at.buffer += 2;
      return { kind: 'bits', node, buffer };
    case A.Type.Utf8:
    case A.Type.Binary:
      at.buffer += 3;
      return { kind: 'binary', node, buffer };
    case A.Type.List: {
      at.buffer += 2;
      const child = layoutOf(t.children[0]!.type, at);
      return child && { kind: 'list', node, buffer, child };
    }
    case A.Type.FixedSizeList: {
      at.buffer += 1;
      const child = layoutOf(t.children[0]!.type, at);
      return child && { kind: 'fixedList', size: (t as A.FixedSizeList).listSize, node, buffer, child };
    }
    case A.Type.Struct: {
      at.buffer += 1;
      const children: Layout[] = [];
      for (const f of t.children) {
        const c = layoutOf(f.type, at);
        if (!c) return null;
        children.push(c);
      }
      return { kind: 'struct', node, buffer, children };
    }
    default: {
      const width = valueWidth(t);
      if (width <= 0 || !Number.isInteger(width)) return null;
      at.buffer += 2;
      return { kind: 'fixed', width, node, buffer };
    }
  }
}

/** Rows per slice: a multiple of 64 holding about `maxBytes` of the batch's `bytes` at most. */
export function sliceRowsFor(rows: number, bytes: number, maxBytes: number): number {
  const perRow = Math.max(1, bytes / Math.max(1, rows));
  return Math.max(64, Math.floor(maxBytes / perRow / 64) * 64);
}

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
  const read = new SliceReader(h, block, fail);
  const children: A.Data[] = [];
  for (let c = 0; c < layouts.length; c++) children.push(await read.column(schema.fields[c]!, layouts[c]!, r0, r1));
  return new A.RecordBatch(schema, A.makeData({ type: new A.Struct(schema.fields), length: r1 - r0, nullCount: 0, children }));
}

/**
 * Reads one column's rows [r0, r1) (any r0: a list's child rows start anywhere) as Data at
 * offset 0, as Arrow's own slices hold them: fixed-width values from row r0, offsets (utf8,
 * binary, lists) for rows [r0, r1] rebased to 0, a list's child for the rows they span;
 * bitmaps read from the byte holding row r0 and shifted to bit 0 when r0 is not a multiple of 8.
 */
class SliceReader {
  constructor(
    private readonly h: FileHandle,
    private readonly block: BatchBlock,
    private readonly fail: (what: string) => Error,
  ) {}

  async column(field: A.Field, l: Layout, r0: number, r1: number): Promise<A.Data> {
    const type = field.type;
    const n = r1 - r0;
    const nulls = this.block.nodes[l.node]!.nullCount > 0 ? await this.bits(field, l.buffer, r0, n, 'validity') : undefined;
    const base = { length: n, nullCount: nulls ? n - countSet(nulls, 0, n) : 0, nullBitmap: nulls };
    switch (l.kind) {
      case 'fixed':
        return A.makeData({ ...base, type: type as A.Int, data: await this.bytes(field, l.buffer + 1, r0 * l.width, n * l.width, 'values') });
      case 'bits':
        return A.makeData({ ...base, type: type as A.Bool, data: await this.bits(field, l.buffer + 1, r0, n, 'values') });
      case 'binary': {
        const { offs, lo, hi } = await this.offsets(field, l.buffer + 1, r0, n);
        const data = this.block.buffers[l.buffer + 2]!;
        if (hi > data.length) throw this.fail(`column ${field.name}: value offsets ${lo}..${hi} of rows ${r0}..${r1} lie outside its ${data.length}-byte data buffer`);
        return A.makeData({ ...base, type: type as A.Utf8, valueOffsets: offs, data: await this.bytes(field, l.buffer + 2, lo, hi - lo, 'data') });
      }
      case 'list': {
        const { offs, lo, hi } = await this.offsets(field, l.buffer + 1, r0, n);
        const child = await this.column((type as A.List).children[0]!, l.child, lo, hi);
        return A.makeData({ ...base, type: type as A.List, valueOffsets: offs, child });
      }
      case 'fixedList': {
        const child = await this.column((type as A.FixedSizeList).children[0]!, l.child, r0 * l.size, r1 * l.size);
        return A.makeData({ ...base, type: type as A.FixedSizeList, child });
      }
      case 'struct': {
        const children: A.Data[] = [];
        for (let c = 0; c < l.children.length; c++) children.push(await this.column(type.children[c]!, l.children[c]!, r0, r1));
        return A.makeData({ ...base, type: type as A.Struct, children });
      }
    }
  }

  /** Bits [r0, r0 + n) of bitmap buffer `index`, starting at bit 0. */
  private async bits(field: A.Field, index: number, r0: number, n: number, what: string): Promise<Uint8Array> {
    const k = r0 & 7;
    const raw = await this.bytes(field, index, r0 >> 3, (k + n + 7) >> 3, what);
    return k === 0 ? raw : sliceBitmap(raw, k, n);
  }

  /** Int32 offsets of rows [r0, r0 + m], rebased to 0, and the child/data range [lo, hi) they span. */
  private async offsets(field: A.Field, buffer: number, r0: number, m: number): Promise<{ offs: Int32Array; lo: number; hi: number }> {
    const raw = await this.bytes(field, buffer, r0 * 4, (m + 1) * 4, 'offsets');
    const offs = new Int32Array(raw.buffer, raw.byteOffset, m + 1);
    const lo = offs[0]!;
    const hi = offs[m]!;
    if (lo < 0 || hi < lo) throw this.fail(`column ${field.name}: value offsets ${lo}..${hi} are not ascending`);
    for (let i = 0; i <= m; i++) offs[i] = offs[i]! - lo;
    return { offs, lo, hi };
  }

  /** Bytes [from, from + len) of buffer `index`, checked against it. */
  private async bytes(field: A.Field, index: number, from: number, len: number, what: string): Promise<Uint8Array> {
    const r = this.block.buffers[index]!;
    if (from + len > r.length) throw this.fail(`column ${field.name}: the ${what} buffer holds ${r.length} bytes, rows up to ${from + len} bytes need more`);
    const out = new Uint8Array(newLocalBuffer((len + 7) & ~7), 0, len);
    if (len === 0) return out;
    const pos = this.block.body + r.offset + from;
    const { bytesRead } = await this.h.read(out, 0, len, pos);
    if (bytesRead < len) throw this.fail(`truncated: ${len} bytes expected at byte ${pos}, ${bytesRead} found`);
    return out;
  }
}
