/**
 * TypeDesc ↔ apache-arrow DataType conversion, and parsing of type names for `cast`.
 *
 * Private minimal converter for src/expr until src/columns/shared.ts provides the shared one
 * (`typeFromArrow` / `typeToArrow`); the lead will dedupe.
 */
import * as arrow from 'apache-arrow';
import type { FieldDesc, TimeUnit, TypeDesc } from '../types/column.js';
import { PlanError } from '../errors.js';

const UNIT_TO_ARROW: Record<TimeUnit, arrow.TimeUnit> = {
  s: arrow.TimeUnit.SECOND,
  ms: arrow.TimeUnit.MILLISECOND,
  us: arrow.TimeUnit.MICROSECOND,
  ns: arrow.TimeUnit.NANOSECOND,
};
const UNIT_FROM_ARROW: TimeUnit[] = ['s', 'ms', 'us', 'ns'];

export function fieldToArrow(f: FieldDesc): arrow.Field {
  return new arrow.Field(f.name, typeToArrow(f.type), f.nullable);
}

export function typeToArrow(t: TypeDesc): arrow.DataType {
  switch (t.kind) {
    case 'null':
      return new arrow.Null();
    case 'bool':
      return new arrow.Bool();
    case 'int':
      return new arrow.Int(t.signed, t.bits);
    case 'float':
      return new arrow.Float(t.bits === 16 ? arrow.Precision.HALF : t.bits === 32 ? arrow.Precision.SINGLE : arrow.Precision.DOUBLE);
    case 'utf8':
      return new arrow.Utf8();
    case 'largeUtf8':
      return new arrow.LargeUtf8();
    case 'binary':
      return new arrow.Binary();
    case 'largeBinary':
      return new arrow.LargeBinary();
    case 'date':
      return t.unit === 'day' ? new arrow.DateDay() : new arrow.DateMillisecond();
    case 'timestamp':
      return new arrow.Timestamp(UNIT_TO_ARROW[t.unit], t.timezone ?? undefined);
    case 'duration':
      return new arrow.Duration(UNIT_TO_ARROW[t.unit]);
    case 'list':
      return new arrow.List(fieldToArrow(t.child));
    case 'largeList':
      return new arrow.LargeList(fieldToArrow(t.child));
    case 'fixedSizeList':
      return new arrow.FixedSizeList(t.size, fieldToArrow(t.child));
    case 'struct':
      return new arrow.Struct(t.children.map(fieldToArrow));
    case 'map':
      return new arrow.Map_(fieldToArrow(t.child) as arrow.Field<arrow.Struct>, t.keysSorted);
  }
}

export function fieldFromArrow(f: arrow.Field): FieldDesc {
  return { name: f.name, type: typeFromArrow(f.type), nullable: f.nullable };
}

export function typeFromArrow(dt: arrow.DataType): TypeDesc {
  const T = arrow.Type;
  switch (dt.typeId) {
    case T.Null:
      return { kind: 'null' };
    case T.Bool:
      return { kind: 'bool' };
    case T.Int:
    case T.Int8:
    case T.Int16:
    case T.Int32:
    case T.Int64:
    case T.Uint8:
    case T.Uint16:
    case T.Uint32:
    case T.Uint64: {
      const i = dt as arrow.Int;
      return { kind: 'int', bits: i.bitWidth as 8 | 16 | 32 | 64, signed: i.isSigned };
    }
    case T.Float:
    case T.Float16:
    case T.Float32:
    case T.Float64: {
      const p = (dt as arrow.Float).precision;
      return { kind: 'float', bits: p === arrow.Precision.HALF ? 16 : p === arrow.Precision.SINGLE ? 32 : 64 };
    }
    case T.Utf8:
      return { kind: 'utf8' };
    case T.LargeUtf8:
      return { kind: 'largeUtf8' };
    case T.Binary:
      return { kind: 'binary' };
    case T.LargeBinary:
      return { kind: 'largeBinary' };
    case T.Date:
    case T.DateDay:
    case T.DateMillisecond:
      return { kind: 'date', unit: (dt as arrow.Date_).unit === arrow.DateUnit.DAY ? 'day' : 'ms' };
    case T.Timestamp:
    case T.TimestampSecond:
    case T.TimestampMillisecond:
    case T.TimestampMicrosecond:
    case T.TimestampNanosecond: {
      const ts = dt as arrow.Timestamp;
      return { kind: 'timestamp', unit: UNIT_FROM_ARROW[ts.unit], timezone: ts.timezone ?? null };
    }
    case T.Duration:
    case T.DurationSecond:
    case T.DurationMillisecond:
    case T.DurationMicrosecond:
    case T.DurationNanosecond:
      return { kind: 'duration', unit: UNIT_FROM_ARROW[(dt as arrow.Duration).unit] };
    case T.List:
      return { kind: 'list', child: fieldFromArrow((dt as arrow.List).children[0]) };
    case T.LargeList:
      return { kind: 'largeList', child: fieldFromArrow((dt as arrow.LargeList).children[0]) };
    case T.FixedSizeList: {
      const l = dt as arrow.FixedSizeList;
      return { kind: 'fixedSizeList', size: l.listSize, child: fieldFromArrow(l.children[0]) };
    }
    case T.Struct:
      return { kind: 'struct', children: (dt as arrow.Struct).children.map(fieldFromArrow) };
    case T.Map: {
      const m = dt as arrow.Map_;
      return { kind: 'map', child: fieldFromArrow(m.children[0]), keysSorted: m.keysSorted };
    }
    default:
      throw new PlanError('UNSUPPORTED_TYPE', `Arrow type ${String(dt)} is not supported by Sluice`);
  }
}

const NAMED: Record<string, TypeDesc> = {
  bool: { kind: 'bool' },
  boolean: { kind: 'bool' },
  int8: { kind: 'int', bits: 8, signed: true },
  int16: { kind: 'int', bits: 16, signed: true },
  int32: { kind: 'int', bits: 32, signed: true },
  int64: { kind: 'int', bits: 64, signed: true },
  uint8: { kind: 'int', bits: 8, signed: false },
  uint16: { kind: 'int', bits: 16, signed: false },
  uint32: { kind: 'int', bits: 32, signed: false },
  uint64: { kind: 'int', bits: 64, signed: false },
  float32: { kind: 'float', bits: 32 },
  float64: { kind: 'float', bits: 64 },
  utf8: { kind: 'utf8' },
  string: { kind: 'utf8' },
  date32: { kind: 'date', unit: 'day' },
  date64: { kind: 'date', unit: 'ms' },
  // SQL spellings accepted by CAST(x AS …)
  tinyint: { kind: 'int', bits: 8, signed: true },
  smallint: { kind: 'int', bits: 16, signed: true },
  int: { kind: 'int', bits: 32, signed: true },
  integer: { kind: 'int', bits: 32, signed: true },
  bigint: { kind: 'int', bits: 64, signed: true },
  float: { kind: 'float', bits: 32 },
  real: { kind: 'float', bits: 32 },
  double: { kind: 'float', bits: 64 },
  varchar: { kind: 'utf8' },
  text: { kind: 'utf8' },
  date: { kind: 'date', unit: 'day' },
  timestamp: { kind: 'timestamp', unit: 'us', timezone: null },
};

export const TYPE_NAMES = [
  'bool', 'int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64', 'float32', 'float64',
  'utf8', 'string', 'date32', 'date64', 'timestamp[s|ms|us|ns]', 'timestamp[ms, UTC]',
];

/**
 * Parses a type name: 'bool', 'int8'…'int64', 'uint8'…'uint64', 'float32', 'float64',
 * 'utf8'/'string', 'date32', 'date64', 'timestamp[s|ms|us|ns]' optionally with a zone
 * ('timestamp[ms, UTC]'), and the SQL spellings (integer, bigint, double, varchar, date,
 * timestamp = timestamp[us]). Case-insensitive except for the zone. Returns null if unknown.
 */
export function parseTypeName(name: string): TypeDesc | null {
  const s = name.trim();
  const named = NAMED[s.toLowerCase()];
  if (named) return structuredClone(named);
  const m = /^timestamp\s*\[\s*(s|ms|us|ns)\s*(?:,\s*([^\]]*?)\s*)?\]$/i.exec(s);
  if (m) return { kind: 'timestamp', unit: m[1].toLowerCase() as TimeUnit, timezone: m[2] ? m[2] : null };
  return null;
}

/** Accepts a TypeDesc or a type name; throws PlanError 'UNKNOWN_TYPE' otherwise. */
export function toTypeDesc(t: TypeDesc | string): TypeDesc {
  if (typeof t !== 'string') {
    if (t && typeof t === 'object' && typeof (t as TypeDesc).kind === 'string') return t;
    throw new PlanError('UNKNOWN_TYPE', `cast expects a type name or a TypeDesc, got ${String(t)}`);
  }
  const d = parseTypeName(t);
  if (!d) throw new PlanError('UNKNOWN_TYPE', `Unknown type name ${JSON.stringify(t)}; expected one of ${TYPE_NAMES.join(', ')}`);
  return d;
}
