/** Byte widths of column types, for memory estimates and dense outputs. */
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

