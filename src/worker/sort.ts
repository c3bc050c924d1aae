/**
 * Stable LSD radix argsort over Uint32Array key words (most significant word first).
 *
 * Steps: (1) per word, the bits that vary (OR of w[i] ^ w[0]); constant words are dropped and
 * each word's digits cover only its varying span [low, high], split into the fewest digits of
 * at most MAX_DIGIT bits (equal widths); (2) for each word, least significant first: one read
 * pass builds the histograms of all its digits (counts do not depend on order), then one stable
 * counting-scatter pass per digit moves (key, row) pairs between ping-pong buffers allocated
 * once; the first word reads its keys in place (identity permutation), later words gather
 * their keys through the current permutation once; a digit whose histogram has a single bucket
 * is skipped; (3) n < SMALL uses a binary-insertion sort instead.
 * Invariants: stable (equal keys keep increasing row index), so rows fed in row-id order are
 * tie-broken by row id; the result is a permutation of 0..n-1.
 * argsortKeys encodes the keys (./sort-keys: range-reduced fields packed into few words), first
 * checking two shortcuts that stop at the first descent: input already in key order (identity)
 * and input already in order of the keys after `leading` (sort by `leading` only, stably).
 * Complexity: O(n * passes) with passes = sum over words of ceil(varying bits / MAX_DIGIT)
 * (11-bit digits measured best against 8, 12 and 16); temporaries (encoded words, 3 ping-pong
 * buffers) come from the task's scratch loan (./scratch) and are released on return, because
 * first-touching fresh memory costs more than a radix pass; only the result array is new
 * (or `out`, which tasks take from their scratch).
 */
import { iota } from '../columns/array-loops.js';
import { scratchMark, scratchRelease, scratchWords } from './scratch.js';
import { encodeKeyField, groupIdField, packFields, RADIX_DIGIT_BITS, type SortKeySpec } from './sort-keys.js';
import type { KeyField } from '../types/keys.js';

// Temporaries (encoded words, ping-pong buffers) come from the task's scratch loan with stack
// discipline: a call takes views above the mark and releases them on return.
// every buffer is written whole (a scatter or gather of all n rows) before it is read
const take = scratchWords;

const MAX_DIGIT = RADIX_DIGIT_BITS;
const SMALL = 64;

/** Lexicographic compare of rows a and b over words. */
function cmpRows(words: Uint32Array[], a: number, b: number): number {
  for (let k = 0; k < words.length; k++) {
    const w = words[k]!;
    const x = w[a]!;
    const y = w[b]!;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

function insertionSort(words: Uint32Array[], n: number, out: Uint32Array): Uint32Array {
  for (let i = 0; i < n; i++) {
    // binary search for the last position whose row is <= row i (stability)
    let lo = 0;
    let hi = i;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cmpRows(words, out[mid]!, i) <= 0) lo = mid + 1;
      else hi = mid;
    }
    for (let j = i; j > lo; j--) out[j] = out[j - 1]!;
    out[lo] = i;
  }
  return out;
}

interface Digit {
  shift: number;
  mask: number;
}

/** Digits covering the varying bits of a word (least significant first). */
function digitsOf(diff: number): Digit[] {
  const low = 31 - Math.clz32(diff & -diff);
  const high = 31 - Math.clz32(diff);
  const span = high - low + 1;
  const count = Math.ceil(span / MAX_DIGIT);
  const out: Digit[] = [];
  let shift = low;
  for (let d = 0; d < count; d++) {
    const width = Math.ceil((high + 1 - shift) / (count - d));
    out.push({ shift, mask: width === 32 ? 0xffffffff : (1 << width) - 1 });
    shift += width;
  }
  return out;
}

// Hot loops live in small monomorphic functions: V8 optimizes each once and reuses it, instead
// of deoptimizing a large function at every loop it has not run yet.

function varyingBits(w: Uint32Array, n: number): number {
  let d = 0;
  const w0 = w[0]!;
  for (let i = 1; i < n; i++) d |= w[i]! ^ w0;
  return d;
}

function hist1(word: Uint32Array, n: number, h0: Uint32Array, s0: number, m0: number): void {
  for (let i = 0; i < n; i++) h0[(word[i]! >>> s0) & m0]!++;
}

function hist2(word: Uint32Array, n: number, h0: Uint32Array, s0: number, m0: number, h1: Uint32Array, s1: number, m1: number): void {
  for (let i = 0; i < n; i++) {
    const x = word[i]!;
    h0[(x >>> s0) & m0]!++;
    h1[(x >>> s1) & m1]!++;
  }
}

function hist3(
  word: Uint32Array,
  n: number,
  h0: Uint32Array,
  s0: number,
  m0: number,
  h1: Uint32Array,
  s1: number,
  m1: number,
  h2: Uint32Array,
  s2: number,
  m2: number,
): void {
  for (let i = 0; i < n; i++) {
    const x = word[i]!;
    h0[(x >>> s0) & m0]!++;
    h1[(x >>> s1) & m1]!++;
    h2[(x >>> s2) & m2]!++;
  }
}

/** Exclusive prefix sums in place; returns true when one bucket holds all n rows. */
function prefix(h: Uint32Array, n: number): boolean {
  let single = false;
  let sum = 0;
  for (let b = 0; b < h.length; b++) {
    const c = h[b]!;
    if (c === n) single = true;
    h[b] = sum;
    sum += c;
  }
  return single;
}

function gather(word: Uint32Array, rows: Uint32Array, out: Uint32Array, n: number): void {
  for (let i = 0; i < n; i++) out[i] = word[rows[i]!]!;
}

/** Scatter row ids only; rows are the identity. */
function scatterIdRows(keys: Uint32Array, h: Uint32Array, shift: number, mask: number, dst: Uint32Array, n: number): void {
  for (let i = 0; i < n; i++) dst[h[(keys[i]! >>> shift) & mask]!++] = i;
}

/** Scatter row ids only. */
function scatterRows(keys: Uint32Array, src: Uint32Array, h: Uint32Array, shift: number, mask: number, dst: Uint32Array, n: number): void {
  for (let i = 0; i < n; i++) dst[h[(keys[i]! >>> shift) & mask]!++] = src[i]!;
}

/** Scatter (key, row) pairs; rows are the identity. */
function scatterIdPairs(keys: Uint32Array, h: Uint32Array, shift: number, mask: number, kd: Uint32Array, dst: Uint32Array, n: number): void {
  for (let i = 0; i < n; i++) {
    const x = keys[i]!;
    const p = h[(x >>> shift) & mask]!++;
    kd[p] = x;
    dst[p] = i;
  }
}

/** Scatter (key, row) pairs. */
function scatterPairs(
  keys: Uint32Array,
  src: Uint32Array,
  h: Uint32Array,
  shift: number,
  mask: number,
  kd: Uint32Array,
  dst: Uint32Array,
  n: number,
): void {
  for (let i = 0; i < n; i++) {
    const x = keys[i]!;
    const p = h[(x >>> shift) & mask]!++;
    kd[p] = x;
    dst[p] = src[i]!;
  }
}

function histograms(word: Uint32Array, n: number, digits: Digit[]): Uint32Array[] {
  const hists = digits.map((d) => new Uint32Array(d.mask + 1));
  const [d0, d1, d2] = digits;
  if (digits.length === 1) hist1(word, n, hists[0]!, d0!.shift, d0!.mask);
  else if (digits.length === 2) hist2(word, n, hists[0]!, d0!.shift, d0!.mask, hists[1]!, d1!.shift, d1!.mask);
  else if (digits.length === 3) hist3(word, n, hists[0]!, d0!.shift, d0!.mask, hists[1]!, d1!.shift, d1!.mask, hists[2]!, d2!.shift, d2!.mask);
  else for (let d = 0; d < digits.length; d++) hist1(word, n, hists[d]!, digits[d]!.shift, digits[d]!.mask);
  return hists;
}

/**
 * Stable argsort of rows 0..n-1 by the words (most significant first, compared unsigned).
 * Writes the permutation into `out` (length >= n) when given and returns it.
 */
export function argsortWords(words: Uint32Array[], n: number, out?: Uint32Array): Uint32Array {
  const mark = scratchMark();
  try {
    return argsortWordsInner(words, n, out);
  } finally {
    scratchRelease(mark);
  }
}

function argsortWordsInner(words: Uint32Array[], n: number, out?: Uint32Array): Uint32Array {
  const res = out ?? new Uint32Array(n);
  if (res.length < n) throw new RangeError(`argsortWords: out has length ${res.length}, need ${n}`);
  // (1) varying bits per word; drop constant words
  const live: Uint32Array[] = [];
  const diffs: number[] = [];
  for (const w of words) {
    if (w.length < n) throw new RangeError(`argsortWords: a key word has length ${w.length}, need ${n}`);
    const d = n > 0 ? varyingBits(w, n) : 0;
    if (d !== 0) {
      live.push(w);
      diffs.push(d);
    }
  }
  if (live.length === 0 || n < 2) return iota(res, n);
  if (n < SMALL) return insertionSort(live, n, res);

  const plans: Digit[][] = diffs.map(digitsOf);
  let passes = 0;
  for (const p of plans) passes += p.length;
  // the last pass must write its rows into res
  const tmp = take(n);
  let rowsDst = passes % 2 === 1 ? res : tmp;
  let rowsSrc = rowsDst === res ? tmp : res;
  let keysA: Uint32Array | null = null;
  let keysB: Uint32Array | null = null;
  let first = true; // rows are still the identity

  for (let k = live.length - 1; k >= 0; k--) {
    const word = live[k]!;
    const digits = plans[k]!;
    // (2a) histograms of all digits of this word in one pass
    const hists = histograms(word, n, digits);
    // keys of this word in the current row order
    let keys: Uint32Array;
    if (first) keys = word;
    else {
      keysA ??= take(n);
      gather(word, rowsSrc, keysA, n);
      keys = keysA;
    }
    // (2b) one stable scatter per digit
    for (let d = 0; d < digits.length; d++) {
      const { shift, mask } = digits[d]!;
      const h = hists[d]!;
      if (prefix(h, n)) {
        // nothing moves; keep the buffer parity by copying the rows (diff said bits vary: rare)
        if (first) iota(rowsDst, n);
        else rowsDst.set(rowsSrc.subarray(0, n));
      } else if (d === digits.length - 1) {
        // last digit of this word: only rows move
        if (first) scatterIdRows(keys, h, shift, mask, rowsDst, n);
        else scatterRows(keys, rowsSrc, h, shift, mask, rowsDst, n);
      } else {
        let kd: Uint32Array;
        if (keys === keysA) kd = keysB ??= take(n);
        else kd = keysA ??= take(n);
        if (first) scatterIdPairs(keys, h, shift, mask, kd, rowsDst, n);
        else scatterPairs(keys, rowsSrc, h, shift, mask, kd, rowsDst, n);
        keys = kd;
      }
      first = false;
      const t = rowsSrc;
      rowsSrc = rowsDst;
      rowsDst = t;
    }
  }
  return res;
}

/** Field values of row a <= row b, lexicographically over the fields. */
function rowLE(fields: KeyField[], a: number, b: number): boolean {
  for (let f = 0; f < fields.length; f++) {
    const { lo, hi } = fields[f]!;
    if (hi !== null && hi[a] !== hi[b]) return hi[a]! < hi[b]!;
    if (lo[a] !== lo[b]) return lo[a]! < lo[b]!;
  }
  return true;
}

function isSorted32(lo: Uint32Array, n: number): boolean {
  for (let i = 1; i < n; i++) if (lo[i - 1]! > lo[i]!) return false;
  return true;
}

/** Rows 0..n-1 are already in non-decreasing key order (stops at the first descent). */
function isSortedFields(fields: KeyField[], n: number): boolean {
  if (fields.length === 0) return true;
  if (fields.length === 1 && fields[0]!.hi === null) return isSorted32(fields[0]!.lo, n);
  for (let i = 1; i < n; i++) if (!rowLE(fields, i - 1, i)) return false;
  return true;
}

/**
 * Stable argsort of rows 0..n-1 by `leading` (e.g. dense group ids, most significant, ascending)
 * then the keys in order, each with its direction and NULL placement.
 * Shortcuts (each check stops at the first descent, so unsorted input pays ~nothing): input
 * already sorted by the whole key -> identity; input already sorted by the keys alone (e.g.
 * event logs in time order) -> a stable sort by `leading` only.
 */
export function argsortKeys(keys: SortKeySpec[], n: number, leading?: Uint32Array, out?: Uint32Array): Uint32Array {
  const mark = scratchMark();
  try {
    const lead = leading === undefined ? [] : groupIdField(leading, n, take);
    const rest: KeyField[] = [];
    for (const k of keys) rest.push(...encodeKeyField(k.column, k, n, take));
    const all = [...lead, ...rest];
    if (isSortedFields(all, n)) {
      return iota(out ?? new Uint32Array(n), n);
    }
    if (lead.length > 0 && isSortedFields(rest, n)) return argsortWords(packFields(lead, n, take), n, out);
    return argsortWords(packFields(all, n, take), n, out);
  } finally {
    scratchRelease(mark);
  }
}
