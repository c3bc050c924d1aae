/**
 * TypeDesc (plain, thread-safe) <-> apache-arrow DataType, and the same for fields and schemas.
 * Dictionary columns are described by their value type: sources decode them on the way in.
 */
import * as A from 'apache-arrow';
import { PlanError } from '../errors.js';
import type { FieldDesc, SchemaDesc, TimeUnit, TypeDesc } from '../types/column.js';

const unitFromArrow: Record<number, TimeUnit> = {
  [A.TimeUnit.SECOND]: 's',
  [A.TimeUnit.MILLISECOND]: 'ms',
  [A.TimeUnit.MICROSECOND]: 'us',
  [A.TimeUnit.NANOSECOND]: 'ns',
};
const unitToArrow: Record<TimeUnit, A.TimeUnit> = {
  s: A.TimeUnit.SECOND,
  ms: A.TimeUnit.MILLISECOND,
  us: A.TimeUnit.MICROSECOND,
  ns: A.TimeUnit.NANOSECOND,
};

export function typeFromArrow(t: A.DataType): TypeDesc {
  switch (t.typeId) {
    case A.Type.Null:
      return { kind: 'null' };
    case A.Type.Bool:
      return { kind: 'bool' };
    // Arrow-js reports the generic id (Int, Float, …); the specific ones are accepted too.
    case A.Type.Int:
    case A.Type.Int8:
    case A.Type.Int16:
    case A.Type.Int32:
    case A.Type.Int64:
    case A.Type.Uint8:
    case A.Type.Uint16:
    case A.Type.Uint32:
    case A.Type.Uint64: {
      const it = t as A.Int;
      return { kind: 'int', bits: it.bitWidth as 8 | 16 | 32 | 64, signed: it.isSigned };
    }
    case A.Type.Float:
    case A.Type.Float16:
    case A.Type.Float32:
    case A.Type.Float64: {
      const p = (t as A.Float).precision;
      return { kind: 'float', bits: p === A.Precision.HALF ? 16 : p === A.Precision.SINGLE ? 32 : 64 };
    }
    case A.Type.Utf8:
      return { kind: 'utf8' };
    case A.Type.LargeUtf8:
      return { kind: 'largeUtf8' };
    case A.Type.Binary:
      return { kind: 'binary' };
    case A.Type.LargeBinary:
      return { kind: 'largeBinary' };
    case A.Type.Date:
    case A.Type.DateDay:
    case A.Type.DateMillisecond:
      return { kind: 'date', unit: (t as A.Date_).unit === A.DateUnit.DAY ? 'day' : 'ms' };
    case A.Type.Timestamp:
    case A.Type.TimestampSecond:
    case A.Type.TimestampMillisecond:
    case A.Type.TimestampMicrosecond:
    case A.Type.TimestampNanosecond: {
      const ts = t as A.Timestamp;
      return { kind: 'timestamp', unit: unitFromArrow[ts.unit]!, timezone: ts.timezone ?? null };
    }
    case A.Type.Duration:
    case A.Type.DurationSecond:
    case A.Type.DurationMillisecond:
    case A.Type.DurationMicrosecond:
    case A.Type.DurationNanosecond:
      return { kind: 'duration', unit: unitFromArrow[(t as A.Duration).unit]! };
    case A.Type.Decimal: {
      const d = t as A.Decimal;
      if (d.bitWidth !== 128) break;
      return { kind: 'decimal', precision: d.precision, scale: d.scale };
    }
    case A.Type.List:
      return { kind: 'list', child: fieldFromArrow((t as A.List).children[0]!) };
    case A.Type.LargeList:
      return { kind: 'largeList', child: fieldFromArrow((t as A.LargeList).children[0]!) };
    case A.Type.FixedSizeList: {
      const f = t as A.FixedSizeList;
      return { kind: 'fixedSizeList', size: f.listSize, child: fieldFromArrow(f.children[0]!) };
    }
    case A.Type.Struct:
      return { kind: 'struct', children: (t as A.Struct).children.map(fieldFromArrow) };
    case A.Type.Map: {
      const m = t as A.Map_;
      return { kind: 'map', child: fieldFromArrow(m.children[0]!), keysSorted: m.keysSorted };
    }
    case A.Type.Dictionary:
      return typeFromArrow((t as A.Dictionary).dictionary);
    default:
      break;
  }
  throw new PlanError('UNSUPPORTED_TYPE', `Sluice does not support Arrow type ${String(t)} (type id ${t.typeId})`);
}

export function typeToArrow(t: TypeDesc): A.DataType {
  switch (t.kind) {
    case 'null':
      return new A.Null();
    case 'bool':
      return new A.Bool();
    case 'int':
      return new A.Int(t.signed, t.bits);
    case 'float':
      return new A.Float(t.bits === 16 ? A.Precision.HALF : t.bits === 32 ? A.Precision.SINGLE : A.Precision.DOUBLE);
    case 'utf8':
      return new A.Utf8();
    case 'largeUtf8':
      return new A.LargeUtf8();
    case 'binary':
      return new A.Binary();
    case 'largeBinary':
      return new A.LargeBinary();
    case 'date':
      return t.unit === 'day' ? new A.DateDay() : new A.DateMillisecond();
    case 'timestamp':
      return new A.Timestamp(unitToArrow[t.unit], t.timezone);
    case 'duration':
      return new A.Duration(unitToArrow[t.unit]);
    case 'decimal':
      return new A.Decimal(t.scale, t.precision, 128);
    case 'list':
      return new A.List(fieldToArrow(t.child));
    case 'largeList':
      return new A.LargeList(fieldToArrow(t.child));
    case 'fixedSizeList':
      return new A.FixedSizeList(t.size, fieldToArrow(t.child));
    case 'struct':
      return new A.Struct(t.children.map(fieldToArrow));
    case 'map':
      return new A.Map_(fieldToArrow(t.child) as A.Field<A.Struct<{ key: A.DataType; value: A.DataType }>>, t.keysSorted);
  }
}

export function fieldFromArrow(f: A.Field): FieldDesc {
  return { name: f.name, type: typeFromArrow(f.type), nullable: f.nullable };
}
export function fieldToArrow(f: FieldDesc): A.Field {
  return new A.Field(f.name, typeToArrow(f.type), f.nullable);
}
export function schemaFromArrow(s: A.Schema): SchemaDesc {
  return s.fields.map(fieldFromArrow);
}
export function schemaToArrow(s: SchemaDesc): A.Schema {
  return new A.Schema(s.map(fieldToArrow));
}
