/**
 * Serializable descriptions of column types and of columns held in shared memory.
 *
 * Arrow's DataType objects lose their prototypes when posted to a worker, so everything that
 * crosses a thread describes types with `TypeDesc` (plain data) and buffers with `BufRef`
 * (a region of a SharedArrayBuffer). `src/columns` converts between these and arrow `Data`.
 */

export type TimeUnit = 's' | 'ms' | 'us' | 'ns';

export type TypeDesc =
  | { kind: 'null' }
  | { kind: 'bool' }
  | { kind: 'int'; bits: 8 | 16 | 32 | 64; signed: boolean }
  | { kind: 'float'; bits: 16 | 32 | 64 }
  | { kind: 'utf8' }
  | { kind: 'largeUtf8' }
  | { kind: 'binary' }
  | { kind: 'largeBinary' }
  /** DATE: `day` is date32 (days since epoch), `ms` is date64 (milliseconds since epoch). */
  | { kind: 'date'; unit: 'day' | 'ms' }
  /** TIMESTAMP: int64 count of `unit` since the epoch; `timezone` null means zone-less (NTZ). */
  | { kind: 'timestamp'; unit: TimeUnit; timezone: string | null }
  | { kind: 'duration'; unit: TimeUnit }
  /** DECIMAL128: 128-bit two's-complement unscaled integers (four little-endian 32-bit words), value = unscaled / 10^scale. */
  | { kind: 'decimal'; precision: number; scale: number }
  | { kind: 'list'; child: FieldDesc }
  | { kind: 'largeList'; child: FieldDesc }
  | { kind: 'fixedSizeList'; size: number; child: FieldDesc }
  | { kind: 'struct'; children: FieldDesc[] }
  /** MAP: child is the `entries` struct field with key and value children. */
  | { kind: 'map'; child: FieldDesc; keysSorted: boolean };

export interface FieldDesc {
  name: string;
  type: TypeDesc;
  nullable: boolean;
}

export type SchemaDesc = FieldDesc[];

/**
 * A region of a buffer, in bytes: a SharedArrayBuffer, or an ArrayBuffer that travels in the
 * message's transfer list (worker results), so no thread keeps a view of it behind.
 */
export interface BufRef {
  sab: SharedArrayBuffer | ArrayBuffer;
  byteOffset: number;
  byteLength: number;
  /**
   * In a worker's result: the region lies in region `inInput` of the task's input (numbered in
   * bufRefsOf order), which the coordinator may reuse after the task (src/coordinator/loan-copies).
   * A buffer's identity does not cross threads, so the worker names it.
   */
  inInput?: number;
}

/**
 * One column (or child) in shared memory; mirrors arrow `Data` with offset 0 semantics
 * applied through `offset`. `validity` is an Arrow LSB bitmap whose bit `offset + i` is row i.
 */
export interface ColumnDesc {
  type: TypeDesc;
  length: number;
  offset: number;
  nullCount: number;
  validity: BufRef | null;
  /** value offsets for utf8/binary/list (Int32Array) or large* (BigInt64Array). */
  offsets: BufRef | null;
  /** values for fixed-width types, bytes for utf8/binary, bitmap for bool. */
  values: BufRef | null;
  children: ColumnDesc[];
}

/** A batch of columns in shared memory, with the global input row id of each row. */
export interface BatchDesc {
  schema: SchemaDesc;
  length: number;
  columns: ColumnDesc[];
}

export function isInteger(t: TypeDesc): t is Extract<TypeDesc, { kind: 'int' }> {
  return t.kind === 'int';
}

/** Types whose values are integers (compared, summed or indexed as such): ints, dates, timestamps, durations. */
export function isIntegerValued(t: TypeDesc): boolean {
  return t.kind === 'int' || t.kind === 'date' || t.kind === 'timestamp' || t.kind === 'duration';
}
export function isFloat(t: TypeDesc): t is Extract<TypeDesc, { kind: 'float' }> {
  return t.kind === 'float';
}
export function isNumeric(t: TypeDesc): boolean {
  return t.kind === 'int' || t.kind === 'float';
}
export function isTemporal(t: TypeDesc): boolean {
  return t.kind === 'date' || t.kind === 'timestamp';
}
export function isString(t: TypeDesc): boolean {
  return t.kind === 'utf8' || t.kind === 'largeUtf8';
}
export function isListLike(t: TypeDesc): t is Extract<TypeDesc, { kind: 'list' | 'largeList' | 'fixedSizeList' }> {
  return t.kind === 'list' || t.kind === 'largeList' || t.kind === 'fixedSizeList';
}

/** Human/SQL-ish rendering of a type for messages and explain(). */
export function typeToString(t: TypeDesc): string {
  switch (t.kind) {
    case 'int':
      return `${t.signed ? 'int' : 'uint'}${t.bits}`;
    case 'float':
      return `float${t.bits}`;
    case 'date':
      return t.unit === 'day' ? 'date32' : 'date64';
    case 'timestamp':
      return `timestamp[${t.unit}${t.timezone ? `, ${t.timezone}` : ''}]`;
    case 'duration':
      return `duration[${t.unit}]`;
    case 'decimal':
      return `decimal(${t.precision}, ${t.scale})`;
    case 'list':
    case 'largeList':
      return `${t.kind}<${typeToString(t.child.type)}>`;
    case 'fixedSizeList':
      return `fixedSizeList[${t.size}]<${typeToString(t.child.type)}>`;
    case 'struct':
      return `struct<${t.children.map((c) => `${c.name}: ${typeToString(c.type)}`).join(', ')}>`;
    case 'map':
      return `map<${t.child.type.kind === 'struct' ? t.child.type.children.map((c) => typeToString(c.type)).join(', ') : '?'}>`;
    default:
      return t.kind;
  }
}

export function typesEqual(a: TypeDesc, b: TypeDesc): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
