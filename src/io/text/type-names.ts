/**
 * Short lowercase type names, as job files and `cast` spell them where they can: int64,
 * float64, utf8, bool, date32, timestamp[ms, UTC], time64[us], decimal(10, 2), list<utf8>,
 * struct<a: int32>, map<utf8, int64>, dictionary<utf8>.
 */
import { Type, type DataType } from 'apache-arrow';
import { UNITS } from './time-text.js';

interface TypeFields {
  isSigned?: boolean;
  bitWidth?: number;
  precision?: number;
  scale?: number;
  byteWidth?: number;
  listSize?: number;
  unit?: number;
  timezone?: string | null;
  dictionary?: DataType;
}

export function typeName(t: DataType): string {
  const a = t as DataType & TypeFields;
  switch (t.typeId) {
    case Type.Null:
      return 'null';
    case Type.Bool:
      return 'bool';
    case Type.Int:
      return `${a.isSigned ? 'int' : 'uint'}${a.bitWidth}`;
    case Type.Float:
      return ['float16', 'float32', 'float64'][a.precision!] ?? 'float';
    case Type.Utf8:
      return 'utf8';
    case Type.LargeUtf8:
      return 'large_utf8';
    case Type.Utf8View:
      return 'utf8_view';
    case Type.Binary:
      return 'binary';
    case Type.LargeBinary:
      return 'large_binary';
    case Type.BinaryView:
      return 'binary_view';
    case Type.FixedSizeBinary:
      return `fixed_size_binary[${a.byteWidth}]`;
    case Type.Date:
      return a.unit === 0 ? 'date32' : 'date64';
    case Type.Timestamp:
      return `timestamp[${UNITS[a.unit!]}${a.timezone ? `, ${a.timezone}` : ''}]`;
    case Type.Time:
      return `time${a.bitWidth}[${UNITS[a.unit!]}]`;
    case Type.Duration:
      return `duration[${UNITS[a.unit!]}]`;
    case Type.Decimal:
      return `decimal(${a.precision}, ${a.scale})`;
    case Type.List:
      return `list<${typeName(t.children[0]!.type)}>`;
    case Type.LargeList:
      return `large_list<${typeName(t.children[0]!.type)}>`;
    case Type.FixedSizeList:
      return `fixed_size_list<${typeName(t.children[0]!.type)}, ${a.listSize}>`;
    case Type.Struct:
      return `struct<${t.children.map((f) => `${f.name}: ${typeName(f.type)}`).join(', ')}>`;
    case Type.Map: {
      const kv = t.children[0]!.type.children;
      return `map<${typeName(kv[0]!.type)}, ${typeName(kv[1]!.type)}>`;
    }
    case Type.Dictionary:
      return `dictionary<${typeName(a.dictionary!)}>`;
    default:
      return String(t).toLowerCase();
  }
}
