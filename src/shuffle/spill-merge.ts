/**
 * A destination's rows from several kept routing replies, written as one Arrow IPC record
 * batch message straight from the replies' shared regions: the exchange's spill merge.
 *
 * Each spill writes a batch per destination, and a destination's rows lie in every kept reply
 * ([bounds[d], bounds[d + 1]) of its columns). Cut into a chunk descriptor per reply, viewed as
 * typed arrays per chunk and column, concatenated into fresh arrays and then framed, that made
 * 5.2 GB of garbage on the coordinator in a 30M-row window at 64 MiB (heap sampling: chunk
 * cuts 1.0 GB, typed-array views and subarrays 0.9 GB, the concatenations 0.6 GB). Here each
 * reply's columns are viewed once per spill (ReplyColumns), a destination's segments are
 * measured (rows, NULLs, bytes) to make the message's header, and the body is copied segment by
 * segment into the caller's output buffer: no object per segment, no intermediate column.
 * Flat columns only (fixed-width, bool, utf8 / binary with 32-bit offsets), as the body layout
 * is written here: continuation marker, metadata, then per column its validity (when it has
 * NULLs) and values / offsets and bytes, each padded to 8 bytes (ipc-encode.ts frames the same).
 */
import { copyBitRange, countSet, setBitRange } from '../columns/bits.js';
import { copyBytes } from '../columns/gather.js';
import { flatLayoutOf, viewOf } from '../columns/shared.js';
import { align8, batchMessageHeadBytes, writeBatchMessageHead } from '../io/ipc-batch-meta.js';
import type * as A from 'apache-arrow';
import type { ColumnDesc } from '../types/column.js';
import type { RoutedChunks } from '../types/tasks.js';

interface FlatSource {
  layout: 'fixed' | 'bool' | 'varbinary';
  rowBytes: number;
  /** Fixed: the values from row 0; bool: the bitmap (bit `bit + i` is row i); varbinary: all the bytes. */
  bytes: Uint8Array;
  bit: number;
  /** The validity bitmap (bit `bit + i`), or null without NULLs. */
  valid: Uint8Array | null;
  /** Varbinary: offsets from row 0. */
  offs: Int32Array | null;
}

/** Whether spill batches of these types can be merged here (else the exchange's chunk path). */
export function mergeable(types: A.DataType[]): boolean {
  return types.every((t) => {
    const f = flatLayoutOf(t);
    return f !== null && (f.layout !== 'varbinary' || f.offsetBytes === 4);
  });
}

/** One reply's columns (row ids first) viewed once. */
export class ReplyColumns {
  readonly ids: Uint32Array;
  readonly columns: FlatSource[];

  constructor(
    readonly reply: RoutedChunks,
    types: A.DataType[],
  ) {
    const descs: ColumnDesc[] = [reply.rowIds!, ...reply.columns];
    this.ids = viewOf(Uint32Array, reply.rowIds!.values!);
    this.columns = descs.map((d, c) => {
      const f = flatLayoutOf(types[c]!)!;
      return {
        layout: f.layout,
        rowBytes: f.rowBytes,
        bytes: d.values ? viewOf(Uint8Array, d.values) : new Uint8Array(0),
        bit: d.offset,
        valid: d.validity && d.nullCount > 0 ? viewOf(Uint8Array, d.validity) : null,
        offs: f.layout === 'varbinary' && d.offsets ? viewOf(Int32Array, d.offsets) : null,
      };
    });
  }
}

/** Rows [start, start + rows) of a reply. */
export interface Segment {
  from: ReplyColumns;
  start: number;
  rows: number;
}

/** Bytes of a segment's column values as a merged batch holds them (validity excluded). */
export function segmentBytes(s: Segment): number {
  let b = 0;
  for (const c of s.from.columns) {
    if (c.layout === 'fixed') b += s.rows * c.rowBytes;
    else if (c.layout === 'bool') b += (s.rows + 7) >> 3;
    else b += 4 * s.rows + c.offs![s.start + s.rows]! - c.offs![s.start]!;
  }
  return b;
}

/** A merged message's head (its bytes, field nodes and buffer regions), its body's bytes and rows, and which columns have NULLs. */
export interface MergedHead {
  headBytes: number;
  nodes: number[];
  regions: number[];
  bodyBytes: number;
  rows: number;
  nulls: boolean[];
}

/** The message's head for `segments` (in order) and the body bytes that follow it. */
export function mergedHead(segments: Segment[]): MergedHead {
  const rows = segments.reduce((t, s) => t + s.rows, 0);
  const columns = segments[0]!.from.columns.length;
  const nodes: number[] = [];
  const regions: number[] = [];
  const hasNulls: boolean[] = [];
  let body = 0;
  const region = (bytes: number): void => {
    regions.push(body, align8(bytes));
    body += align8(bytes);
  };
  for (let c = 0; c < columns; c++) {
    let nulls = 0;
    let data = 0;
    for (const s of segments) {
      const src = s.from.columns[c]!;
      if (src.valid) nulls += s.rows - countSet(src.valid, src.bit + s.start, s.rows);
      if (src.layout === 'varbinary') data += src.offs![s.start + s.rows]! - src.offs![s.start]!;
    }
    const layout = segments[0]!.from.columns[c]!;
    nodes.push(rows, nulls);
    hasNulls.push(nulls > 0);
    region(nulls > 0 ? (rows + 7) >> 3 : 0);
    if (layout.layout === 'fixed') region(rows * layout.rowBytes);
    else if (layout.layout === 'bool') region((rows + 7) >> 3);
    else {
      region(4 * (rows + 1));
      region(data);
    }
  }
  return { headBytes: batchMessageHeadBytes(nodes.length >> 1, regions.length >> 1), nodes, regions, bodyBytes: body, rows, nulls: hasNulls };
}

/**
 * Writes the message of `segments` (its MergedHead) into `out` at `at` (8-aligned, the
 * message's bytes zeroed), in the layout the head describes.
 */
export function writeMerged(out: Uint8Array, at: number, { nodes, regions, bodyBytes, rows, nulls }: MergedHead, segments: Segment[]): void {
  let p = at + writeBatchMessageHead(out, at, rows, nodes, regions, bodyBytes);
  const columns = segments[0]!.from.columns.length;
  const bitBytes = align8((rows + 7) >> 3);
  for (let c = 0; c < columns; c++) {
    const layout = segments[0]!.from.columns[c]!;
    if (nulls[c]) {
      const bits = out.subarray(p, p + bitBytes);
      let r = 0;
      for (const s of segments) {
        const src = s.from.columns[c]!;
        if (src.valid) copyBitRange(src.valid, src.bit + s.start, bits, r, s.rows);
        else setBitRange(bits, r, s.rows);
        r += s.rows;
      }
      p += bitBytes;
    }
    if (layout.layout === 'fixed') {
      const w = layout.rowBytes;
      for (const s of segments) {
        copyBytes(s.from.columns[c]!.bytes, s.start * w, (s.start + s.rows) * w, out, p);
        p += s.rows * w;
      }
      p = at + align8(p - at);
    } else if (layout.layout === 'bool') {
      const bits = out.subarray(p, p + bitBytes);
      let r = 0;
      for (const s of segments) {
        const src = s.from.columns[c]!;
        copyBitRange(src.bytes, src.bit + s.start, bits, r, s.rows);
        r += s.rows;
      }
      p += bitBytes;
    } else {
      // offsets rebased from 0, then the bytes they span
      const offs = new Int32Array(out.buffer, out.byteOffset + p, rows + 1);
      let r = 0;
      let pos = 0;
      for (const s of segments) {
        const so = s.from.columns[c]!.offs!;
        const first = so[s.start]!;
        for (let i = 1; i <= s.rows; i++) offs[r + i] = pos + so[s.start + i]! - first;
        r += s.rows;
        pos += so[s.start + s.rows]! - first;
      }
      p += align8(4 * (rows + 1));
      for (const s of segments) {
        const src = s.from.columns[c]!;
        const a = src.offs![s.start]!;
        const b = src.offs![s.start + s.rows]!;
        copyBytes(src.bytes, a, b, out, p);
        p += b - a;
      }
      p = at + align8(p - at);
    }
  }
}
