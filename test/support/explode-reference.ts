/**
 * Naive, row-at-a-time reference of zip-style explode on plain JS values (the test oracle).
 *
 * columns: the input columns, column-major (columns[c][r]); lists: per explode input, per row,
 * a JS array (MAP: array of [key, value] pairs) or null. Output is column-major, one array per
 * `sources` entry. Semantics (API.md): per row every list must have the same effective length
 * (null = empty = 0), checked for all rows first, whatever ignoreEmptyAndNull; a mismatch throws
 * ReferenceMismatch with the global row. Length L > 0: L rows, element e of every list paired;
 * L = 0: nothing when ignoreEmptyAndNull, else one row with NULL in every exploded output and
 * in the ordinality.
 */
import type { ExplodeSource } from '../../src/ops/explode-spec.js';

export class ReferenceMismatch extends Error {
  constructor(
    readonly row: number,
    readonly lengths: number[],
  ) {
    super(`reference: row ${row} lengths ${lengths.join(', ')}`);
  }
}

export interface ReferenceSpec {
  sources: ExplodeSource[];
  ignoreEmptyAndNull: boolean;
}

export function referenceExplode(
  columns: readonly (readonly unknown[])[],
  lists: readonly (readonly (readonly unknown[] | null)[])[],
  spec: ReferenceSpec,
  rowBase = 0,
): unknown[][] {
  const n = lists[0].length;
  for (let r = 0; r < n; r++) {
    const lengths = lists.map((l) => (l[r] === null ? 0 : (l[r] as unknown[]).length));
    if (lengths.some((x) => x !== lengths[0])) throw new ReferenceMismatch(rowBase + r, lengths);
  }
  const out: unknown[][] = spec.sources.map(() => []);
  const emit = (r: number, e: number | null): void => {
    spec.sources.forEach((s, k) => {
      let v: unknown;
      switch (s.kind) {
        case 'column':
          v = columns[s.column][r];
          break;
        case 'element':
          v = e === null ? null : (lists[s.input][r] as unknown[])[e];
          break;
        case 'mapKey':
        case 'mapValue': {
          const pair = e === null ? null : ((lists[s.input][r] as unknown[])[e] as [unknown, unknown]);
          v = pair === null ? null : pair[s.kind === 'mapKey' ? 0 : 1];
          break;
        }
        case 'ordinality':
          v = e === null ? null : e + 1;
          break;
      }
      out[k].push(v);
    });
  };
  for (let r = 0; r < n; r++) {
    const list = lists[0][r];
    const len = list === null ? 0 : list.length;
    if (len === 0) {
      if (!spec.ignoreEmptyAndNull) emit(r, null);
      continue;
    }
    for (let e = 0; e < len; e++) emit(r, e);
  }
  return out;
}
