/**
 * Seeded row hash of key columns, partition ids, and a stable counting scatter by partition.
 *
 * Steps (hashColumns): out[i] = fmix(seed); then column by column, out[i] = mix(out[i], words of
 * row i's value) (murmur3 x86_32 block mixing with Math.imul); finally out[i] = fmix(out[i] ^ k).
 * The words of a value (the hash "class" decides which values may be equal):
 *   - integers of every width/signedness: the 64-bit two's-complement (lo, hi) of the VALUE
 *     (int8 -1 == int64 -1), plus one extra word for uint64 values >= 2^63 so they never meet
 *     the negative int64 with the same bits. BigInt64 is read through a Uint32Array view.
 *   - floats (32 and 64): the canonical float64 bits (-0 -> +0, every NaN -> one quiet NaN),
 *     after a FLOAT class word; float32 is widened exactly, so float32 1.5 == float64 1.5.
 *   - bool, date32, date64, timestamp[unit], duration[unit]: a class word (unit included,
 *     zone excluded: zoned timestamps are instants) then the raw integer words.
 *   - utf8/binary: a class word, the UTF-8 bytes in little-endian 4-byte blocks, tail, length.
 *   - NULL: a single NULL_CODE word, a shorter path than any value's.
 * Invariants: deterministic for a seed; values that compare equal (see group-ids) hash equal.
 * partitionOf maps a hash to [0, partitions) by multiply-shift of the (well mixed) high bits.
 * countingScatter: histogram, exclusive prefix sums, stable scatter of row ids.
 * Complexity: O(n * words) time, no allocation per row.
 */
import type { KeyColumn } from '../types/keys.js';
import type { TypeDesc } from '../types/column.js';
import { ExecutionError } from '../errors.js';
import { words64 } from '../ops/int64-words.js';

const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;
const NULL_CODE = 0x6e756c6c; // 'null'
const BIG_U64 = 0x9e3779b9;

/** Hash class of a key type: two values can be equal only within one class. 0 = integers. */
export const KeyClass = {
  Int: 0,
  Float: 1,
  Bool: 2,
  Date32: 3,
  Date64: 4,
  Timestamp: 5, // + unit index
  Duration: 9, // + unit index
  Utf8: 13,
  Binary: 14,
  Null: 15,
  Decimal: 16,
} as const;

const UNIT_INDEX = { s: 0, ms: 1, us: 2, ns: 3 } as const;

/** Class of a key type, or throws ExecutionError UNSUPPORTED_KEY_TYPE. */
export function keyClass(t: TypeDesc): number {
  switch (t.kind) {
    case 'int':
      return KeyClass.Int;
    case 'float':
      if (t.bits === 16) break;
      return KeyClass.Float;
    case 'bool':
      return KeyClass.Bool;
    case 'date':
      return t.unit === 'day' ? KeyClass.Date32 : KeyClass.Date64;
    case 'timestamp':
      return KeyClass.Timestamp + UNIT_INDEX[t.unit];
    case 'duration':
      return KeyClass.Duration + UNIT_INDEX[t.unit];
    case 'utf8':
    case 'largeUtf8':
      return KeyClass.Utf8;
    case 'binary':
    case 'largeBinary':
      return KeyClass.Binary;
    case 'null':
      return KeyClass.Null;
    case 'decimal':
      return KeyClass.Decimal;
    default:
      break;
  }
  throw new ExecutionError('UNSUPPORTED_KEY_TYPE', `Unsupported key type ${JSON.stringify(t)}: expected an integer, float32/64, bool, date, timestamp, duration, utf8 or binary column`, {
    type: t.kind,
  });
}

/** The 32-bit word view of 64-bit columns is the kernels' (src/ops/int64-words). */
export { words64 };

function mix(h: number, k: number): number {
  k = Math.imul(k, C1);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, C2);
  h ^= k;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

/** Murmur3's finalizer: a bijection of 32-bit words that spreads every input bit (e.g. row ids to sample by). */
export function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * Seeded 32-bit hash per row of all `columns` (rows 0..n-1), combined in column order.
 * Writes into `out` (length >= n) when given.
 */
export function hashColumns(columns: KeyColumn[], n: number, seed: number, out?: Uint32Array): Uint32Array {
  const h = out ?? new Uint32Array(n);
  if (h.length < n) throw new RangeError(`hashColumns: out has length ${h.length}, need ${n}`);
  h.fill(fmix((seed ^ 0x5bd1e995) | 0), 0, n);
  for (const c of columns) hashColumnInto(c, n, h);
  const k = Math.imul(columns.length + 1, 0x27d4eb2f);
  for (let i = 0; i < n; i++) h[i] = fmix(h[i]! ^ k);
  return h;
}

function hashColumnInto(c: KeyColumn, n: number, h: Uint32Array): void {
  const t = c.type;
  const cls = keyClass(t);
  const valid = c.valid;
  if (cls === KeyClass.Null) {
    for (let i = 0; i < n; i++) h[i] = mix(h[i]!, NULL_CODE);
    return;
  }
  if (cls === KeyClass.Utf8 || cls === KeyClass.Binary) {
    hashBytes(c.values as Uint8Array, c.offsets!, valid, n, h, cls);
    return;
  }
  if (cls === KeyClass.Decimal) {
    hashWords(c.values as Uint32Array, 4, valid, n, h, cls);
    return;
  }
  if (cls === KeyClass.Float) {
    if ((t as { bits: number }).bits === 64) hashFloat64(words64(c.values as Float64Array), valid, n, h);
    else hashFloat32(c.values as Float32Array, valid, n, h);
    return;
  }
  const v = c.values;
  if (v instanceof BigInt64Array || v instanceof BigUint64Array) {
    hashInt64(words64(v), v instanceof BigUint64Array, valid, n, h, cls);
    return;
  }
  const signed = t.kind === 'int' ? t.signed : true;
  hashInt32(v as Int32Array, signed, valid, n, h, cls);
}

function hashInt32(v: ArrayLike<number>, signed: boolean, valid: Uint8Array | null, n: number, h: Uint32Array, cls: number): void {
  for (let i = 0; i < n; i++) {
    let x = h[i]!;
    if (valid !== null && valid[i] === 0) x = mix(x, NULL_CODE);
    else {
      const val = v[i]!;
      if (cls !== 0) x = mix(x, cls);
      x = mix(x, val | 0);
      x = mix(x, signed && val < 0 ? -1 : 0);
    }
    h[i] = x;
  }
}

function hashInt64(w: Uint32Array, unsigned: boolean, valid: Uint8Array | null, n: number, h: Uint32Array, cls: number): void {
  for (let i = 0; i < n; i++) {
    let x = h[i]!;
    if (valid !== null && valid[i] === 0) x = mix(x, NULL_CODE);
    else {
      const hi = w[2 * i + 1]! | 0;
      if (cls !== 0) x = mix(x, cls);
      x = mix(x, w[2 * i]! | 0);
      x = mix(x, hi);
      if (unsigned && hi < 0) x = mix(x, BIG_U64);
    }
    h[i] = x;
  }
}

/** Rows of `stride` 32-bit words (decimal128: 4), hashed word by word. */
function hashWords(w: Uint32Array, stride: number, valid: Uint8Array | null, n: number, h: Uint32Array, cls: number): void {
  for (let i = 0; i < n; i++) {
    let x = h[i]!;
    if (valid !== null && valid[i] === 0) x = mix(x, NULL_CODE);
    else {
      x = mix(x, cls);
      for (let k = 0; k < stride; k++) x = mix(x, w[i * stride + k]! | 0);
    }
    h[i] = x;
  }
}

function hashFloat64(w: Uint32Array, valid: Uint8Array | null, n: number, h: Uint32Array): void {
  for (let i = 0; i < n; i++) {
    let x = h[i]!;
    if (valid !== null && valid[i] === 0) x = mix(x, NULL_CODE);
    else {
      let lo = w[2 * i]! | 0;
      let hi = w[2 * i + 1]! | 0;
      const mag = hi & 0x7fffffff;
      if (mag >= 0x7ff00000 && (mag > 0x7ff00000 || lo !== 0)) {
        hi = 0x7ff80000; // NaN
        lo = 0;
      } else if (mag === 0 && lo === 0) hi = 0; // -0 -> +0
      x = mix(x, KeyClass.Float);
      x = mix(x, lo);
      x = mix(x, hi);
    }
    h[i] = x;
  }
}

function hashFloat32(v: Float32Array, valid: Uint8Array | null, n: number, h: Uint32Array): void {
  const f = new Float64Array(1);
  const w = new Uint32Array(f.buffer);
  for (let i = 0; i < n; i++) {
    let x = h[i]!;
    if (valid !== null && valid[i] === 0) x = mix(x, NULL_CODE);
    else {
      const val = v[i]!;
      let lo = 0;
      let hi = 0;
      if (val !== val) hi = 0x7ff80000;
      else if (val !== 0) {
        f[0] = val;
        lo = w[0]! | 0;
        hi = w[1]! | 0;
      }
      x = mix(x, KeyClass.Float);
      x = mix(x, lo);
      x = mix(x, hi);
    }
    h[i] = x;
  }
}

function hashBytes(b: Uint8Array, offs: Int32Array, valid: Uint8Array | null, n: number, h: Uint32Array, cls: number): void {
  for (let i = 0; i < n; i++) {
    let x = h[i]!;
    if (valid !== null && valid[i] === 0) x = mix(x, NULL_CODE);
    else {
      const s = offs[i]!;
      const e = offs[i + 1]!;
      x = mix(x, cls);
      let p = s;
      for (; p + 4 <= e; p += 4) x = mix(x, b[p]! | (b[p + 1]! << 8) | (b[p + 2]! << 16) | (b[p + 3]! << 24));
      let k = 0;
      for (let sh = 0; p < e; p++, sh += 8) k |= b[p]! << sh;
      x = mix(x, k);
      x = mix(x, e - s);
    }
    h[i] = x;
  }
}

/**
 * The hashes of split level `level` (1, 2, …): a bijective re-mix of the level-0 hash. Rows of
 * one level-0 partition share the high bits of their hash; a re-mix spreads them again, where
 * hashing anew with another seed would not (murmur-style seeds are weak: keys that collide in
 * the high bits under one seed tend to collide under another).
 */
export function remixHashes(h: Uint32Array, n: number, level: number): void {
  const salt = Math.imul(level, 0x9e3779b9);
  for (let i = 0; i < n; i++) h[i] = fmix((h[i]! ^ salt) + level);
}

/**
 * Partition id in [0, partitions) per row: floor(hash * partitions / 2^32), i.e. the high bits
 * of the hash (exact in doubles for partitions <= 2^21).
 */
export function partitionOf(hashes: Uint32Array, partitions: number, out?: Uint32Array): Uint32Array {
  if (!Number.isInteger(partitions) || partitions < 1 || partitions > 2 ** 21) {
    throw new RangeError(`partitionOf: partitions must be an integer from 1 to 2^21, got ${partitions}`);
  }
  const n = hashes.length;
  const o = out ?? new Uint32Array(n);
  const scale = partitions / 4294967296;
  for (let i = 0; i < n; i++) o[i] = Math.floor(hashes[i]! * scale);
  return o;
}

/** Keys an open-addressing table is first sized for; it doubles as it fills. */
export const FIRST_TABLE_KEYS = 4096;

/** Slots of an open-addressing table for `n` keys at most half full (16 to 4M, powers of two). */
export function openTableSlots(n: number): number {
  // Small for a few keys: a task's loan counts its tables, and a tiny partition's must stay tiny.
  let cap = 16;
  while (cap < 2 * n && cap < 4096 * 1024) cap *= 2;
  return cap;
}

/**
 * Row indices grouped by partition, stable in row order: rows of partition p are
 * order[offsets[p] .. offsets[p+1]), ascending.
 */
export function countingScatter(partIds: Uint32Array, partitions: number, out?: Uint32Array): { offsets: Uint32Array; order: Uint32Array } {
  const n = partIds.length;
  const offsets = partitionBounds(partIds, partitions);
  const order = out ?? new Uint32Array(n);
  scatterOrder(partIds, offsets.slice(0, partitions), order, n);
  return { offsets, order };
}

// The loops of the counting scatter are functions of their own (see src/ops/group-accumulate).

function scatterOrder(partIds: Uint32Array, next: Uint32Array, order: Uint32Array, n: number): void {
  for (let i = 0; i < n; i++) order[next[partIds[i]!]!++] = i;
}

function placeRows(partIds: Uint32Array, next: Uint32Array, positions: Uint32Array, n: number): void {
  for (let i = 0; i < n; i++) positions[i] = next[partIds[i]!]!++;
}

/**
 * The same grouping as countingScatter told the other way round: each row's place in that
 * order (positions[i] = k where order[k] = i), for callers that scatter rows instead of
 * gathering them. Returns the partitions' bounds.
 */
export function countingPositions(partIds: Uint32Array, partitions: number, positions: Uint32Array): Uint32Array {
  const n = partIds.length;
  const offsets = partitionBounds(partIds, partitions);
  placeRows(partIds, offsets.slice(0, partitions), positions, n);
  return offsets;
}

/** offsets[p] .. offsets[p + 1]: where partition p's rows go, by a histogram and its prefix sums. */
function partitionBounds(partIds: Uint32Array, partitions: number): Uint32Array {
  const offsets = new Uint32Array(partitions + 1);
  histogram(partIds, offsets, partIds.length);
  for (let p = 0; p < partitions; p++) offsets[p + 1]! += offsets[p]!;
  return offsets;
}

function histogram(partIds: Uint32Array, offsets: Uint32Array, n: number): void {
  for (let i = 0; i < n; i++) offsets[partIds[i]! + 1]!++;
}
