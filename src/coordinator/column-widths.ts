/** Byte widths of column types, for memory estimates and dense outputs. */
import type * as A from 'apache-arrow';
import { schemaFromArrow } from '../columns/arrow-types.js';
import type { TypeDesc } from '../types/column.js';

/** Bytes per row of a fixed-width column (0 for variable width: reported by the task). */
export function fixedWidth(t: TypeDesc): number {
  switch (t.kind) {
    case 'bool':
      return 1;
    case 'int':
    case 'float':
      return t.bits / 8;
    case 'date':
      return t.unit === 'day' ? 4 : 8;
    case 'timestamp':
    case 'duration':
      return 8;
    default:
      return 0;
  }
}

/**
 * Bytes per row of output columns as tasks route them: each value (variable width: a guess of
 * 16) and its NULL byte, plus the 4-byte row id.
 */
export function outputRowBytes(columns: ReadonlyArray<{ type: TypeDesc }>): number {
  return columns.reduce((s, c) => s + (fixedWidth(c.type) || 16) + 1, 4);
}

/** About how many bytes a value of type `t` takes in memory (variable width: a guess of 16). */
export function rowBytesOf(t: TypeDesc): number {
  return (fixedWidth(t) || 16) + 0.125;
}

/** rowBytesOf summed over a schema's columns. */
export function rowBytesOfSchema(schema: A.Schema): number {
  return schemaFromArrow(schema).reduce((s, f) => s + rowBytesOf(f.type), 0);
}
