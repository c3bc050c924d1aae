/**
 * `df.sort(...keys)` (API.md "Relational verbs"): keys as names or { column, descending?, nulls? }
 * resolved against the schema. Defaults: ASC NULLS FIRST, DESC NULLS LAST (as window orderBy).
 * A column given twice counts once, at its first place.
 */
import { PlanError } from '../errors.js';
import type { FieldDesc } from '../types/column.js';
import { findKey, type KeyRef } from './key-types.js';

export type SortKeyInput = string | { column: string; descending?: boolean; nulls?: 'first' | 'last' };

export interface ResolvedSortKey extends KeyRef {
  descending: boolean;
  nulls: 'first' | 'last';
}

export function resolveSortKeys(keys: SortKeyInput[], schema: FieldDesc[]): ResolvedSortKey[] {
  if (keys.length === 0) throw new PlanError('NO_SORT_KEYS', 'sort(): expected at least one sort key, e.g. sort(\'ts\') or sort({ column: \'ts\', descending: true })', {});
  const out: ResolvedSortKey[] = [];
  for (const k of keys) {
    const entry = typeof k === 'string' ? { column: k } : k;
    const ref = findKey(schema, entry.column, 'sort()');
    // A key given again cannot change the order (its first use already decides every tie it
    // could): skipped, as DuckDB's ORDER BY and Polars' sort take it.
    if (out.some((o) => o.index === ref.index)) continue;
    const descending = entry.descending === true;
    out.push({ ...ref, descending, nulls: entry.nulls ?? (descending ? 'last' : 'first') });
  }
  return out;
}

export function sortKeyText(k: ResolvedSortKey): string {
  return `${k.name} ${k.descending ? 'DESC' : 'ASC'} NULLS ${k.nulls.toUpperCase()}`;
}
