/**
 * The memory of a broadcast-join table (src/worker/join-table builds it, the coordinator
 * reserves it): open-addressing slots for twice the build rows (so the table never grows and
 * stays where it was built), four int32 words each (eight in the str layout), the rows grouped
 * by key (order), and per key column the arrays a key view needs beyond the input's
 * own buffers (NULL bytes, bool or null-type value bytes, 32-bit offsets of large strings).
 */
import type { TypeDesc } from '../types/column.js';

/**
 * How a table's slots hold their keys (src/worker/join-table): `int` one integer-like key pair
 * compared as two words in the slot (fastIntKey); `str` one string (or binary) key pair whose
 * first bytes lie in the slot; `generic` a hash and the build row, compared with the build's
 * columns.
 */
export type JoinTableLayout = 'int' | 'str' | 'generic';

/** The layout of a table over these key pairs (`scaled`: the pair's common type when scaled). */
export function joinTableLayout(pairs: Array<{ left: TypeDesc; right: TypeDesc; scaled: TypeDesc | null }>): JoinTableLayout {
  if (pairs.length !== 1) return 'generic';
  const { left, right, scaled } = pairs[0]!;
  if (fastIntKey(left, right, scaled)) return 'int';
  const strClass = (t: TypeDesc): string | null => (t.kind === 'utf8' || t.kind === 'largeUtf8' ? 'utf8' : t.kind === 'binary' || t.kind === 'largeBinary' ? 'binary' : null);
  return scaled === null && strClass(left) !== null && strClass(left) === strClass(right) ? 'str' : 'generic';
}

/** Words of a str-layout key clustered for building or probing: its hash, byte length and first 12 bytes. */
export const REC_WORDS = 5;
/**
 * Scratch bytes a row takes while the str or int layout clusters it (src/worker/join-table): its
 * key's words (five; an int key two, and its two words read end to end first) and its row number.
 */
export const CLUSTER_SCRATCH_PER_ROW = 4 * REC_WORDS + 4;

/** int32 words per slot of a layout. */
export function joinSlotWords(layout: JoinTableLayout): number {
  return layout === 'str' ? 8 : 4;
}

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

/** Bytes of the whole table: the slots' words, the rows in group order, the key arrays. */
export function joinTableBytes(rows: number, keys: JoinTableKeyNeeds[], layout: JoinTableLayout): number {
  return 4 * joinSlotWords(layout) * joinTableSlots(rows) + aligned(4 * rows) + keys.reduce((t, k) => t + joinTableKeyBytes(rows, k), 0);
}

/** 64-bit key representations (BigInt64Array / BigUint64Array views), by type. */
function wideKey(t: TypeDesc): 'signed' | 'unsigned' | null {
  if (t.kind === 'int') return t.bits === 64 ? (t.signed ? 'signed' : 'unsigned') : null;
  if (t.kind === 'date') return t.unit === 'day' ? null : 'signed';
  if (t.kind === 'timestamp' || t.kind === 'duration') return 'signed';
  return null;
}

/**
 * One key pair whose two sides (as compared: `scaled` when the pair is scaled) are integers
 * of the same class and representation: up to 32 bits on both sides (ints, bool, date32), or
 * 64 bits of the same signedness. Their equality is equality of two 32-bit words, which the
 * table's int layout compares in place.
 */
export function fastIntKey(left: TypeDesc, right: TypeDesc, scaled: TypeDesc | null): boolean {
  const l = scaled ?? left;
  const r = scaled ?? right;
  const intLike = (t: TypeDesc): boolean => t.kind === 'int' || t.kind === 'bool' || t.kind === 'date' || t.kind === 'timestamp' || t.kind === 'duration';
  if (!intLike(l) || !intLike(r)) return false;
  const cls = (t: TypeDesc): string => (t.kind === 'int' ? 'int' : t.kind === 'date' ? `date-${t.unit}` : t.kind === 'timestamp' || t.kind === 'duration' ? `${t.kind}-${t.unit}` : t.kind);
  return cls(l) === cls(r) && wideKey(l) === wideKey(r);
}
