/**
 * A routing reply cut into one chunk per destination that received rows. Workers describe the
 * gathered columns once with the destinations' bounds (types/tasks.ts RoutedChunks); the
 * coordinator makes the chunks here, views of the same shared regions.
 */
import { descSlicer } from '../columns/shared.js';
import type { ChunkDesc, RoutedChunks } from '../types/tasks.js';

export type RoutedPart = { partition: number; chunk: ChunkDesc };

/** `only`: the destinations wanted (default all): a caller that needs a few does not cut the rest. */
export function routedParts(r: RoutedChunks, only: (d: number) => boolean = () => true): RoutedPart[] {
  if (!r.rowIds) return [];
  const ids = descSlicer(r.rowIds);
  const columns = r.columns.map(descSlicer);
  const parts: RoutedPart[] = [];
  for (let d = 0; d + 1 < r.bounds.length; d++) {
    const start = r.bounds[d]!;
    const length = r.bounds[d + 1]! - start;
    if (length === 0 || !only(d)) continue;
    parts.push({ partition: d, chunk: { length, rowIds: ids(start, length), columns: columns.map((cut) => cut(start, length)) } });
  }
  return parts;
}

/** Rows of a reply, all destinations. */
export function routedTotal(r: RoutedChunks): number {
  return r.bounds.length > 0 ? r.bounds[r.bounds.length - 1]! - r.bounds[0]! : 0;
}
