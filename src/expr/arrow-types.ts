/**
 * Type names for `cast` (parseTypeName, toTypeDesc). TypeDesc <-> apache-arrow conversion lives
 * in src/columns/arrow-types.ts and is re-exported here for the expression modules.
 */
import type { TimeUnit, TypeDesc } from '../types/column.js';
import { PlanError } from '../errors.js';
import { suggest } from '../options/kit.js';

export { fieldFromArrow, fieldToArrow, typeFromArrow, typeToArrow } from '../columns/arrow-types.js';

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
 * The names a near miss is matched against ("int65": int64): the ones above first (the
 * timestamp pattern spelled out), then the SQL spellings.
 */
const TYPE_HINTS = [
  ...new Set([...TYPE_NAMES.flatMap((t) => (t === 'timestamp[s|ms|us|ns]' ? ['timestamp[s]', 'timestamp[ms]', 'timestamp[us]', 'timestamp[ns]'] : [t])), ...Object.keys(NAMED)]),
];

/** `; did you mean "int64"?` for a near miss of a type name (schemas, cast(), CAST), else nothing. */
export function typeNameHint(name: string): string {
  const hint = suggest(name.trim(), TYPE_HINTS);
  return hint ? `; did you mean ${JSON.stringify(hint)}?` : '';
}

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
  if (!d) throw new PlanError('UNKNOWN_TYPE', `Unknown type name ${JSON.stringify(t)}; expected one of ${TYPE_NAMES.join(', ')}${typeNameHint(t)}`);
  return d;
}
