/**
 * The memory of a broadcast-join table (src/worker/join-build-task carves it, the coordinator
 * reserves it): open-addressing slots for twice the build rows (so the table never grows and
 * stays where it was built), per build row its group's hash and first row, the rows grouped
 * by key (starts, order), and per key column the arrays a key view needs beyond the input's
 * own buffers (NULL bytes, bool or null-type value bytes, 32-bit offsets of large strings).
 */
import type { TypeDesc } from '../types/column.js';

/** What one build key column needs in the table besides views of its input buffers. */
export interface JoinTableKeyNeeds {
  type: TypeDesc;
  hasNulls: boolean;
}

/** Slots of a table over `rows` build rows: a power of two >= 2 × rows. */
export function joinTableSlots(rows: number): number {
  let cap = 1024;
  while (cap < 2 * rows) cap *= 2;
  return cap;
}

const aligned = (bytes: number): number => Math.ceil(bytes / 8) * 8;

/** Bytes of the arrays of one key column copied into the table. */
export function joinTableKeyBytes(rows: number, key: JoinTableKeyNeeds): number {
  let bytes = key.hasNulls ? aligned(rows) : 0;
  if (key.type.kind === 'bool' || key.type.kind === 'null') bytes += aligned(rows);
  if (key.type.kind === 'largeUtf8' || key.type.kind === 'largeBinary') bytes += aligned(4 * (rows + 1));
  return bytes;
}

/** Bytes of the whole table. */
export function joinTableBytes(rows: number, keys: JoinTableKeyNeeds[]): number {
  const perRow = aligned(4 * rows);
  return 4 * joinTableSlots(rows) + 4 * perRow + aligned(4 * (rows + 2)) + keys.reduce((t, k) => t + joinTableKeyBytes(rows, k), 0);
}
