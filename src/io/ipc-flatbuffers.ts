/**
 * A bounds verifier for the flatbuffers of Arrow IPC metadata (the file Footer and the
 * Message of every stream message), run before apache-arrow decodes them.
 *
 * apache-arrow decodes flatbuffers without checks: a corrupt vector length makes it loop over
 * (or allocate) billions of entries, which hangs the read. Like flatbuffers' own Verifier,
 * this walks the tables the format defines (Format/File.fbs, Message.fbs, Schema.fbs) and checks
 * that every table, vtable, string and vector lies inside the buffer, with a depth limit for
 * nested fields. It does not check values (type ids, units); apache-arrow and the structural
 * checks after decoding handle those.
 *
 * Layout reminders: a table starts with an int32 offset back to its vtable; the vtable holds
 * uint16 sizes (vtable, table) then one uint16 offset per field (0 = absent). Offset fields
 * (tables, strings, vectors) hold a uint32 relative to their own position. Strings and vectors
 * start with a uint32 length.
 */

import { TWO32 } from '../ops/int64-words.js';

type FieldSpec =
  | { kind: 'table'; spec: TableSpec }
  | { kind: 'string' }
  | { kind: 'tables'; spec: TableSpec }
  | { kind: 'structs'; size: number }
  /** a union value: the table's schema is not checked beyond its bounds */
  | { kind: 'anyTable' };

/** Field index → what the field holds (scalar fields are left out). */
type TableSpec = { readonly [index: number]: FieldSpec | (() => FieldSpec) };

const MAX_DEPTH = 64;

const KeyValue: TableSpec = { 0: { kind: 'string' }, 1: { kind: 'string' } };
const DictionaryEncoding: TableSpec = { 1: { kind: 'anyTable' } };
const Field: TableSpec = {
  0: { kind: 'string' },
  3: { kind: 'anyTable' },
  4: { kind: 'table', spec: DictionaryEncoding },
  5: () => ({ kind: 'tables', spec: Field }),
  6: { kind: 'tables', spec: KeyValue },
};
const Schema: TableSpec = { 1: { kind: 'tables', spec: Field }, 2: { kind: 'tables', spec: KeyValue }, 3: { kind: 'structs', size: 8 } };
const Block = { kind: 'structs', size: 24 } as const;
const Footer: TableSpec = { 1: { kind: 'table', spec: Schema }, 2: Block, 3: Block, 4: { kind: 'tables', spec: KeyValue } };
const RecordBatch: TableSpec = {
  1: { kind: 'structs', size: 16 },
  2: { kind: 'structs', size: 16 },
  3: { kind: 'anyTable' },
  4: { kind: 'structs', size: 8 },
};
const DictionaryBatch: TableSpec = { 1: { kind: 'table', spec: RecordBatch } };
/** Message.header is a union: its spec depends on header_type (field 1: 1 Schema, 2 DictionaryBatch, 3 RecordBatch). */
const HEADERS: Record<number, TableSpec> = { 1: Schema, 2: DictionaryBatch, 3: RecordBatch };

/**
 * Bounds-checked reads of a flatbuffer: every position, table, vtable and field is checked to lie
 * inside its `size` bytes before it is read. The verifier below walks whole schemas with it;
 * ipc-batch-meta.ts reads record batch headers with it.
 */
export class FlatbufferView {
  constructor(
    protected readonly view: DataView,
    protected readonly size: number,
  ) {}

  static of(buf: Uint8Array): FlatbufferView {
    return new FlatbufferView(new DataView(buf.buffer, buf.byteOffset, buf.byteLength), buf.byteLength);
  }

  protected within(pos: number, len: number, what: string): void {
    if (!Number.isSafeInteger(pos) || pos < 0 || len < 0 || pos + len > this.size) {
      throw new Error(`${what} at ${pos} (${len} bytes) lies outside the ${this.size}-byte metadata`);
    }
  }

  u32(pos: number): number {
    this.within(pos, 4, 'offset');
    return this.view.getUint32(pos, true);
  }

  /** An int64 as a number; values past 2^53 (never a real length or offset) are refused. */
  int64(pos: number): number {
    this.within(pos, 8, 'int64');
    const hi = this.view.getInt32(pos + 4, true);
    if (hi < 0 || hi >= 1 << 21) throw new Error(`int64 at ${pos} is negative or past 2^53`);
    return hi * TWO32 + this.view.getUint32(pos, true);
  }

  /** Target of the offset field at `pos`. */
  deref(pos: number): number {
    return pos + this.u32(pos);
  }

  /** Position of field `index` of the table at `table` (0 when absent). */
  field(table: number, index: number): number {
    this.within(table, 4, 'table');
    const vtable = table - this.view.getInt32(table, true);
    this.within(vtable, 4, 'vtable');
    const vsize = this.view.getUint16(vtable, true);
    const tsize = this.view.getUint16(vtable + 2, true);
    this.within(vtable, vsize, 'vtable');
    this.within(table, tsize, 'table');
    const slot = 4 + 2 * index;
    if (slot + 2 > vsize) return 0;
    const off = this.view.getUint16(vtable + slot, true);
    if (off === 0) return 0;
    if (off >= tsize) throw new Error(`field ${index} of the table at ${table} lies outside the table`);
    return table + off;
  }

  uint8Field(table: number, index: number): number {
    const pos = this.field(table, index);
    if (pos === 0) return 0;
    this.within(pos, 1, 'field');
    return this.view.getUint8(pos);
  }

  /** The vector of structs of two int64 (FieldNode, Buffer) the offset field at `pos` points to, flattened; none when absent (0). */
  int64Pairs(pos: number): number[] {
    if (pos === 0) return [];
    const vec = this.deref(pos);
    const n = this.u32(vec);
    this.within(vec + 4, 16 * n, 'vector');
    const out = new Array<number>(2 * n);
    for (let i = 0; i < 2 * n; i++) out[i] = this.int64(vec + 4 + 8 * i);
    return out;
  }

  root(): number {
    return this.deref(0);
  }
}

class Verifier extends FlatbufferView {
  table(pos: number, spec: TableSpec | null, depth: number): void {
    if (depth > MAX_DEPTH) throw new Error('metadata nested too deeply');
    this.field(pos, 0); // checks the table and its vtable
    if (spec === null) return;
    for (const key of Object.keys(spec)) {
      const index = Number(key);
      const s = spec[index]!;
      const f = typeof s === 'function' ? s() : s;
      const at = this.field(pos, index);
      if (at !== 0) this.value(this.deref(at), f, depth + 1);
    }
  }

  private value(pos: number, f: FieldSpec, depth: number): void {
    switch (f.kind) {
      case 'table':
        return this.table(pos, f.spec, depth);
      case 'anyTable':
        return this.table(pos, null, depth);
      case 'string': {
        const n = this.u32(pos);
        return this.within(pos + 4, n + 1, 'string');
      }
      case 'structs': {
        const n = this.u32(pos);
        return this.within(pos + 4, n * f.size, 'vector');
      }
      case 'tables': {
        const n = this.u32(pos);
        this.within(pos + 4, n * 4, 'vector');
        for (let i = 0; i < n; i++) this.table(this.deref(pos + 4 + 4 * i), f.spec, depth);
      }
    }
  }
}

/** Throws an Error saying what is out of bounds when `bytes` is not a sound Footer. */
export function verifyFooter(bytes: Uint8Array): void {
  const v = new Verifier(new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), bytes.byteLength);
  v.table(v.root(), Footer, 0);
}

/** Throws an Error saying what is out of bounds when `bytes` is not a sound Message. */
export function verifyMessage(bytes: Uint8Array): void {
  const v = new Verifier(new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), bytes.byteLength);
  const root = v.root();
  const headerType = v.uint8Field(root, 1);
  const spec = HEADERS[headerType];
  if (!spec) throw new Error(`unknown message type ${headerType}`);
  v.table(root, { 2: { kind: 'table', spec }, 4: { kind: 'tables', spec: KeyValue } }, 0);
}
