/**
 * The broadcast join's hash table: built once over the right rows, probed from every thread.
 *
 * Open addressing over `slots`, four int32 words per slot, linear probing from hash & mask,
 * at least twice as many slots as build rows (it never grows, so probe tasks can view it where
 * it was built). A slot whose `len` word is 0 is empty. Two layouts:
 * - int: one integer-like key on both sides with the same representation (src/ops/
 *   join-table-layout fastIntKey): [lo, hi, run, len], the key's two 32-bit words compared in
 *   place: one slot read per probe, no second lookup; built and probed cluster by cluster as
 *   the str layout is (1M sparse int64 keys, 1M probes: 70 -> 50 ns a row);
 * - direct: the int layout's keys when they are dense (max - min below twice the slots, every
 *   key within ±2^52; span and values read by src/ops/dense-int-keys, as the group-id tables
 *   do): [run, len] at word 2 × (key - min), no hash and no compare, and a quarter of the
 *   memory a probe touches (DuckDB's perfect hash join);
 * - str: one utf8 (or binary) key on both sides: [hash, first build row, run, len, byte
 *   length, its first 12 bytes as three little-endian words (zero past the end)]: a probe
 *   compares in the slot, and reads the build's bytes only past 12 (DuckDB's string_t inlines
 *   12 bytes too): one miss a row where the generic layout has three (the slot, the build
 *   offsets, its bytes). Rows are built and probed cluster by cluster of their home slot
 *   (clusterStrKeys), so those misses stay in a part of the table the caches hold (1M keys of
 *   9 bytes, 1M probes, one thread: 130-270 ns a row probed in input order, 86-100 ns
 *   clustered, hashing and clustering included);
 * - generic: [hash, first build row, run, len]; on equal hashes the rows compare with
 *   ./group-ids rowsEqual (NaN = NaN, -0 = 0, integers by value across widths, bytes).
 * `run` is the build row itself when `len` is 1, else the start of the group's rows in `order`
 * (right input order, one stable counting scatter). NULL keys: with nullsEqual, the int and str
 * layouts keep their rows apart as `nulls` ({run, len}) and the generic one groups them like any key;
 * without, they are in no group (and probe NULLs match nothing).
 * Cost: O(build rows) to build, O(1) expected per probe row; no allocation per row.
 */
import { denseKeySpan, intValues, valueAt, type DenseSpan, type IntValues } from '../ops/dense-int-keys.js';
import { joinSlotWords, REC_WORDS, type JoinTableLayout } from '../ops/join-table-layout.js';
import { countingScatter, hashColumns, words64 } from '../shuffle/hash.js';
import { inlineWord } from '../columns/inline-words.js';
import { readAheadSink } from '../columns/read-ahead.js';
import type { Allocator, KeyColumn } from '../types/keys.js';
import { accessor, GROUP_SEED, hash64, nullRows, rowsEqual } from './group-ids.js';

export interface JoinTableArrays {
  slots: Int32Array;
  order: Uint32Array;
}

export interface BuiltJoinTable {
  groups: number;
  maxGroup: number;
  /** Direct layout: the least key, and how many keys from it the table spans (0: not direct). */
  directMin: number;
  directSpan: number;
  /** int and str layouts with nullsEqual: the NULL-key rows' run (len 0: none). */
  nullRun: number;
  nullLen: number;
}

/** The key's two words as int32s, for either representation (ints of up to 32 bits, or 64-bit words). */
interface IntKey {
  w: Uint32Array | null;
  num: ArrayLike<number>;
  valid: Uint8Array | null;
}

function intKey(c: KeyColumn): IntKey {
  const v = c.values;
  const wide = v instanceof BigInt64Array || v instanceof BigUint64Array;
  return { w: wide ? words64(v) : null, num: wide ? new Uint8Array(0) : (v as ArrayLike<number>), valid: c.valid };
}

/** Bytes of a string key the str layout keeps in its slot. */
const INLINE_BYTES = 12;


/** Bytes x[a..a+len) equal y[b..b+len). */
function bytesEqual(x: Uint8Array, a: number, y: Uint8Array, b: number, len: number): boolean {
  for (let k = 0; k < len; k++) if (x[a + k] !== y[b + k]) return false;
  return true;
}

/**
 * Whether str-layout slot `s` holds the key of hash `h`, byte length `len` and first words
 * w0..w2 of row `row` of (bytes, offs); past 12 bytes the rest is compared with the slot's
 * first build row (in bBytes / bOffs). The row's offset is read only then: in cluster order
 * it is a random read, a cache miss a probe for keys that fit the slot.
 */
function strSlotHolds(slots: Int32Array, s: number, h: number, len: number, w0: number, w1: number, w2: number, bytes: Uint8Array, offs: Int32Array, row: number, bBytes: Uint8Array, bOffs: Int32Array): boolean {
  if (slots[s] !== h || slots[s + 4] !== len || slots[s + 5] !== w0 || slots[s + 6] !== w1 || slots[s + 7] !== w2) return false;
  return len <= INLINE_BYTES || bytesEqual(bytes, offs[row]! + INLINE_BYTES, bBytes, bOffs[slots[s + 1]!]! + INLINE_BYTES, len - INLINE_BYTES);
}

/** Probes whose home slots are read ahead of the lookups (see touchSlots). */
const TOUCH_AHEAD = 16;

/**
 * XOR of the length word of the home slot of clustered probes from..to-1 (`slotWords` words a
 * slot, the hash at rec[stride * t] or, for int keys, the key words there): the probes' reading
 * ahead (src/columns/read-ahead).
 */
function touchSlots(slots: Int32Array, rec: Int32Array, stride: number, intKeys: boolean, mask: number, slotWords: number, from: number, to: number): number {
  let x = 0;
  for (let t = from; t < to; t++) {
    const h = intKeys ? hash64(rec[stride * t]!, rec[stride * t + 1]!) : rec[stride * t]!;
    x ^= slots[(h & mask) * slotWords + 3]!;
  }
  return x;
}

/**
 * The ids of the build rows with a NULL key (the int and str layouts set them apart): one group
 * numbered `next` when NULLs are equal, else -1 each. Returns that group, or -1 when none.
 */
function nullKeyIds(valid: Uint8Array | null, n: number, nullsEqual: boolean, ids: Int32Array, next: number): number {
  let group = -1;
  if (valid === null) return group;
  for (let j = 0; j < n; j++) {
    if (valid[j] !== 0) continue;
    if (nullsEqual) group = next;
    ids[j] = group;
  }
  return group;
}

/** The probe rows with a NULL key get the NULL rows' run (`len` 0 when NULLs match nothing). */
function nullProbes(valid: Uint8Array | null, np: number, nullRun: number, nullLen: number, run: Int32Array, len: Int32Array): void {
  if (valid === null) return;
  for (let i = 0; i < np; i++) {
    if (valid[i] !== 0) continue;
    run[i] = nullRun;
    len[i] = nullLen;
  }
}

/** Bits of the home slot the str layout clusters rows by. */
const CLUSTER_BITS = 7;

/** Clusters of a table of mask + 1 slots (the top CLUSTER_BITS of a home slot), and the shift that gives a slot's cluster. */
function clusterShape(mask: number): { shift: number; clusters: number } {
  const slotBits = 31 - Math.clz32(mask + 1);
  const bits = Math.min(CLUSTER_BITS, slotBits);
  return { shift: slotBits - bits, clusters: 1 << bits };
}

/**
 * The non-NULL rows' keys as str-layout words, grouped (stably) by the top CLUSTER_BITS of their
 * home slot: one sequential pass over the key bytes, then lookups cluster by cluster.
 */
function clusterStrKeys(k: KeyColumn, n: number, hashes: Uint32Array, mask: number, alloc: Allocator): { rec: Int32Array; rows: Uint32Array; count: number } {
  const { shift, clusters } = clusterShape(mask);
  const starts = new Uint32Array(clusters + 1);
  const valid = k.valid;
  for (let i = 0; i < n; i++) if (valid === null || valid[i] !== 0) starts[((hashes[i]! & mask) >>> shift) + 1]!++;
  for (let c = 0; c < clusters; c++) starts[c + 1]! += starts[c]!;
  const count = starts[clusters]!;
  const rec = alloc(Int32Array, REC_WORDS * count, 'overwritten');
  const rows = alloc(Uint32Array, count, 'overwritten');
  const bytes = k.values as Uint8Array;
  const offs = k.offsets!;
  for (let i = 0; i < n; i++) {
    if (valid !== null && valid[i] === 0) continue;
    const h = hashes[i]! | 0;
    const at = starts[(h & mask) >>> shift]!++;
    const a = offs[i]!;
    const e = offs[i + 1]!;
    const r = REC_WORDS * at;
    rec[r] = h;
    rec[r + 1] = e - a;
    rec[r + 2] = inlineWord(bytes, a, e);
    rec[r + 3] = inlineWord(bytes, a + 4, e);
    rec[r + 4] = inlineWord(bytes, a + 8, e);
    rows[at] = i;
  }
  return { rec, rows, count };
}

/** The non-NULL rows' int keys as two words each, grouped (stably) by the cluster of their home slot (see clusterStrKeys). */
function clusterIntKeys(k: IntKey, n: number, mask: number, alloc: Allocator): { rec: Int32Array; rows: Uint32Array; count: number } {
  // The key's words first, end to end (64-bit keys as stored, narrower ones sign-extended):
  // the passes below then read one array whatever the key's width.
  const words = alloc(Int32Array, 2 * n, 'overwritten');
  if (k.w !== null) words.set(new Int32Array(k.w.buffer, k.w.byteOffset, 2 * n));
  else {
    const num = k.num;
    for (let i = 0; i < n; i++) {
      // The high word is the sign of the value itself (a uint32 above 2^31 is not negative).
      const x = num[i]!;
      words[2 * i] = x | 0;
      words[2 * i + 1] = x < 0 ? -1 : 0;
    }
  }
  const { shift, clusters } = clusterShape(mask);
  const starts = new Uint32Array(clusters + 1);
  const valid = k.valid;
  for (let i = 0; i < n; i++) if (valid === null || valid[i] !== 0) starts[((hash64(words[2 * i]!, words[2 * i + 1]!) & mask) >>> shift) + 1]!++;
  for (let c = 0; c < clusters; c++) starts[c + 1]! += starts[c]!;
  const count = starts[clusters]!;
  const rec = alloc(Int32Array, 2 * count, 'overwritten');
  const rows = alloc(Uint32Array, count, 'overwritten');
  for (let i = 0; i < n; i++) {
    if (valid !== null && valid[i] === 0) continue;
    const lo = words[2 * i]!;
    const hi = words[2 * i + 1]!;
    const at = starts[(hash64(lo, hi) & mask) >>> shift]!++;
    rec[2 * at] = lo;
    rec[2 * at + 1] = hi;
    rows[at] = i;
  }
  return { rec, rows, count };
}

/**
 * Builds the table over rows 0..n-1 of `keys` into `t` (slots zeroed by the caller's
 * allocator); `ids` and `hashes` are scratch of n entries, `alloc` gives the str layout's
 * clustered keys (src/ops/join-table-layout CLUSTER_SCRATCH_PER_ROW).
 */
export function buildJoinTable(keys: KeyColumn[], n: number, nullsEqual: boolean, layout: JoinTableLayout, t: JoinTableArrays, ids: Int32Array, hashes: Uint32Array, alloc: Allocator): BuiltJoinTable {
  const slots = t.slots;
  const words = joinSlotWords(layout);
  const mask = slots.length / words - 1;
  if (slots.length / words < 2 * n || (mask & (mask + 1)) !== 0) throw new RangeError(`buildJoinTable: ${slots.length / words} slots for ${n} rows`);
  let groups = 0;
  let nullGroup = -1;
  let direct: DenseSpan | null = null;
  if (layout === 'str') {
    const k = keys[0]!;
    const bytes = k.values as Uint8Array;
    const offs = k.offsets!;
    nullGroup = nullKeyIds(k.valid, n, nullsEqual, ids, groups);
    if (nullGroup >= 0) groups++;
    hashColumns(keys, n, GROUP_SEED, hashes);
    const { rec, rows, count } = clusterStrKeys(k, n, hashes, mask, alloc);
    for (let t = 0; t < count; t++) {
      const r = REC_WORDS * t;
      const h = rec[r]!;
      const len = rec[r + 1]!;
      const w0 = rec[r + 2]!;
      const w1 = rec[r + 3]!;
      const w2 = rec[r + 4]!;
      const j = rows[t]!;
      let p = h & mask;
      for (;;) {
        const s = p << 3;
        if (slots[s + 3] === 0) {
          slots[s] = h;
          slots[s + 1] = j;
          slots[s + 2] = groups;
          slots[s + 3] = 1;
          slots[s + 4] = len;
          slots[s + 5] = w0;
          slots[s + 6] = w1;
          slots[s + 7] = w2;
          ids[j] = groups++;
          break;
        }
        if (strSlotHolds(slots, s, h, len, w0, w1, w2, bytes, offs, j, bytes, offs)) {
          ids[j] = slots[s + 2]!;
          break;
        }
        p = (p + 1) & mask;
      }
    }
  } else if (layout === 'int') {
    const k = intKey(keys[0]!);
    const { valid } = k;
    direct = denseKeySpan(keys[0]!, n, slots.length / 2);
    const values = intValues(keys[0]!);
    const min = direct === null ? 0 : direct.min;
    nullGroup = nullKeyIds(valid, n, nullsEqual, ids, groups);
    if (nullGroup >= 0) groups++;
    if (direct !== null) {
      for (let j = 0; j < n; j++) {
        if (valid !== null && valid[j] === 0) continue;
        // Entry e: [group, seen] until the runs are set below.
        const e = 2 * (valueAt(values, j) - min);
        if (slots[e + 1] === 0) {
          slots[e] = groups;
          slots[e + 1] = 1;
          ids[j] = groups++;
        } else ids[j] = slots[e]!;
      }
    } else {
      const { rec, rows, count } = clusterIntKeys(k, n, mask, alloc);
      for (let t = 0; t < count; t++) {
        const lo = rec[2 * t]!;
        const hi = rec[2 * t + 1]!;
        const j = rows[t]!;
        let p = hash64(lo, hi) & mask;
        for (;;) {
          const s = p << 2;
          if (slots[s + 3] === 0) {
            slots[s] = lo;
            slots[s + 1] = hi;
            slots[s + 2] = groups;
            slots[s + 3] = 1;
            ids[j] = groups++;
            break;
          }
          if (slots[s] === lo && slots[s + 1] === hi) {
            ids[j] = slots[s + 2]!;
            break;
          }
          p = (p + 1) & mask;
        }
      }
    }
  } else {
    const accs = keys.map(accessor);
    hashColumns(keys, n, GROUP_SEED, hashes);
    const nulls = nullsEqual ? null : nullRows(keys, n);
    for (let j = 0; j < n; j++) {
      if (nulls !== null && nulls[j] === 1) {
        ids[j] = -1;
        continue;
      }
      const h = hashes[j]! | 0;
      let p = h & mask;
      for (;;) {
        const s = p << 2;
        if (slots[s + 3] === 0) {
          slots[s] = h;
          slots[s + 1] = j;
          slots[s + 2] = groups;
          slots[s + 3] = 1;
          ids[j] = groups++;
          break;
        }
        if (slots[s] === h && rowsEqual(accs, j, accs, slots[s + 1]!)) {
          ids[j] = slots[s + 2]!;
          break;
        }
        p = (p + 1) & mask;
      }
    }
  }

  // Rows by group, stable; then each slot's (entry's) run: words [.., .., group, len] per slot, or [group, len] per entry.
  const bucket = new Uint32Array(ids.buffer, ids.byteOffset, n);
  for (let j = 0; j < n; j++) if (ids[j]! < 0) bucket[j] = groups;
  const { offsets } = countingScatter(bucket, groups + 1, t.order);
  const order = t.order;
  const step = direct === null ? words : 2;
  const end = direct === null ? slots.length : 2 * direct.span;
  let maxGroup = 0;
  for (let s = direct === null ? 2 : 0; s < end; s += step) {
    if (slots[s + 1] === 0) continue;
    const g = slots[s]!;
    const a = offsets[g]!;
    const len = offsets[g + 1]! - a;
    slots[s] = len === 1 ? order[a]! : a;
    slots[s + 1] = len;
    if (len > maxGroup) maxGroup = len;
  }
  let nullRun = 0;
  let nullLen = 0;
  if (nullGroup >= 0) {
    nullRun = offsets[nullGroup]!;
    nullLen = offsets[nullGroup + 1]! - nullRun;
    if (nullLen === 1) nullRun = order[nullRun]!;
    if (nullLen > maxGroup) maxGroup = nullLen;
  }
  return { groups, maxGroup, nullRun, nullLen, directMin: direct === null ? 0 : direct.min, directSpan: direct === null ? 0 : direct.span };
}

/**
 * For each probe row i: run[i] and len[i] of its build rows (len 0: none; see the file comment
 * for `run`). `never` rows (keys that can equal nothing) get none.
 */
export function probeJoinTable(
  buildKeys: KeyColumn[],
  table: { slots: Int32Array; layout: JoinTableLayout; nullRun: number; nullLen: number; directMin: number; directSpan: number },
  probe: KeyColumn[],
  np: number,
  nullsEqual: boolean,
  never: Uint8Array | null,
  run: Int32Array,
  len: Int32Array,
  hashes: Uint32Array,
  alloc: Allocator,
): void {
  const slots = table.slots;
  const mask = slots.length / joinSlotWords(table.layout) - 1;
  if (table.directSpan > 0) probeDirect(intValues(probe[0]!), probe[0]!.valid, slots, table.directMin, table.directSpan, table.nullRun, nullsEqual ? table.nullLen : 0, run, len, np);
  else if (table.layout === 'str') {
    hashColumns(probe, np, GROUP_SEED, hashes);
    probeStr(buildKeys[0]!, table, probe[0]!, np, nullsEqual, run, len, hashes, mask, alloc);
  } else if (table.layout === 'int') {
    probeInt(table, intKey(probe[0]!), np, nullsEqual, run, len, mask, alloc);
  } else {
    const baccs = buildKeys.map(accessor);
    const paccs = probe.map(accessor);
    hashColumns(probe, np, GROUP_SEED, hashes);
    const nulls = nullsEqual ? null : nullRows(probe, np);
    for (let i = 0; i < np; i++) {
      let found = 0;
      let at = 0;
      if (nulls === null || nulls[i] === 0) {
        const h = hashes[i]! | 0;
        let p = h & mask;
        for (;;) {
          const s = p << 2;
          const l = slots[s + 3]!;
          if (l === 0) break;
          if (slots[s] === h && rowsEqual(paccs, i, baccs, slots[s + 1]!)) {
            found = l;
            at = slots[s + 2]!;
            break;
          }
          p = (p + 1) & mask;
        }
      }
      run[i] = at;
      len[i] = found;
    }
  }
  if (never !== null) for (let i = 0; i < np; i++) if (never[i] === 1) len[i] = 0;
}

/**
 * probeJoinTable of the direct layout: each probe's entry at 2 × (key - min) (a loop of its own,
 * as the other layouts': see src/ops/group-accumulate).
 */
function probeDirect(values: IntValues, valid: Uint8Array | null, slots: Int32Array, min: number, span: number, nullRun: number, nullLen: number, run: Int32Array, len: Int32Array, np: number): void {
  for (let i = 0; i < np; i++) {
    if (valid !== null && valid[i] === 0) {
      run[i] = nullRun;
      len[i] = nullLen;
      continue;
    }
    // NaN (a value far out) is no entry, as is a value outside the span.
    const e = valueAt(values, i) - min;
    if (e >= 0 && e < span) {
      run[i] = slots[2 * e]!;
      len[i] = slots[2 * e + 1]!;
    } else {
      run[i] = 0;
      len[i] = 0;
    }
  }
}

/**
 * probeJoinTable of the str layout. The probe rows go in order of their home slot's cluster
 * (clusterStrKeys), so each cluster's lookups stay within 1/128 of the table: in a table
 * bigger than the caches, probing row by row in input order waits on a cache and TLB miss a row.
 */
function probeStr(b: KeyColumn, table: { slots: Int32Array; nullRun: number; nullLen: number }, k: KeyColumn, np: number, nullsEqual: boolean, run: Int32Array, len: Int32Array, hashes: Uint32Array, mask: number, alloc: Allocator): void {
  const slots = table.slots;
  const bytes = k.values as Uint8Array;
  const offs = k.offsets!;
  const valid = k.valid;
  const bBytes = b.values as Uint8Array;
  const bOffs = b.offsets!;
  nullProbes(valid, np, table.nullRun, nullsEqual ? table.nullLen : 0, run, len);
  const { rec, rows, count } = clusterStrKeys(k, np, hashes, mask, alloc);
  let touchedTo = 0;
  for (let t = 0; t < count; t++) {
    if (t >= touchedTo) {
      touchedTo = Math.min(count, t + TOUCH_AHEAD);
      readAheadSink[0] ^= touchSlots(slots, rec, REC_WORDS, false, mask, 8, t, touchedTo);
    }
    const r = REC_WORDS * t;
    const h = rec[r]!;
    const n = rec[r + 1]!;
    const w0 = rec[r + 2]!;
    const w1 = rec[r + 3]!;
    const w2 = rec[r + 4]!;
    let p = h & mask;
    let found = 0;
    let at = 0;
    for (;;) {
      const s = p << 3;
      const l = slots[s + 3]!;
      if (l === 0) break;
      if (strSlotHolds(slots, s, h, n, w0, w1, w2, bytes, offs, rows[t]!, bBytes, bOffs)) {
        found = l;
        at = slots[s + 2]!;
        break;
      }
      p = (p + 1) & mask;
    }
    const i = rows[t]!;
    run[i] = at;
    len[i] = found;
  }
}

/** probeJoinTable of the hashed int layout, cluster by cluster of the home slot (see probeStr). */
function probeInt(table: { slots: Int32Array; nullRun: number; nullLen: number }, k: IntKey, np: number, nullsEqual: boolean, run: Int32Array, len: Int32Array, mask: number, alloc: Allocator): void {
  const slots = table.slots;
  nullProbes(k.valid, np, table.nullRun, nullsEqual ? table.nullLen : 0, run, len);
  const { rec, rows, count } = clusterIntKeys(k, np, mask, alloc);
  let touchedTo = 0;
  for (let t = 0; t < count; t++) {
    if (t >= touchedTo) {
      touchedTo = Math.min(count, t + TOUCH_AHEAD);
      readAheadSink[0] ^= touchSlots(slots, rec, 2, true, mask, 4, t, touchedTo);
    }
    const lo = rec[2 * t]!;
    const hi = rec[2 * t + 1]!;
    let p = hash64(lo, hi) & mask;
    let found = 0;
    let at = 0;
    for (;;) {
      const s = p << 2;
      const l = slots[s + 3]!;
      if (l === 0) break;
      if (slots[s] === lo && slots[s + 1] === hi) {
        found = l;
        at = slots[s + 2]!;
        break;
      }
      p = (p + 1) & mask;
    }
    const i = rows[t]!;
    run[i] = at;
    len[i] = found;
  }
}
