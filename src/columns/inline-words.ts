/**
 * A string's bytes as little-endian 32-bit words, zero past its end: how the tables that keep
 * short keys in place (the join's str layout, the group table's key store) read them.
 * A word is four byte loads joined and masked to the value's length, not a loop over bytes
 * with a bounds test each (measured: 13.7 -> 10.3 ns a row for two words of each of 312,500
 * keys); only a word within 4 bytes of the buffer's end is read byte by byte.
 */

/** The little-endian word of bytes[at..at+3], zero from `end` on. */
export function inlineWord(bytes: Uint8Array, at: number, end: number): number {
  const rem = end - at;
  if (rem <= 0) return 0;
  let x: number;
  if (at + 4 <= bytes.length) x = bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24);
  else {
    x = 0;
    for (let b = 0; b < 4 && at + b < bytes.length; b++) x |= bytes[at + b]! << (8 * b);
  }
  return rem >= 4 ? x : x & ((1 << (8 * rem)) - 1);
}

/** Bits of a word holding the first k bytes (k = 0..4) of a value, little-endian. */
const LOW_BYTES_MASK = Int32Array.of(0, 0xff, 0xffff, 0xffffff, -1);

/**
 * The first two words of bytes[at..end) (inlineWord of at and at + 4) into `out`: when the eight
 * bytes lie inside the buffer, read at once and masked by the length, without inlineWord's
 * tests per word (a matching loop over short keys spent a fifth of its time in them).
 */
export function inlinePair(bytes: Uint8Array, at: number, end: number, out: Int32Array): void {
  const len = end - at;
  if (at + 8 > bytes.length || len <= 0) {
    out[0] = inlineWord(bytes, at, end);
    out[1] = inlineWord(bytes, at + 4, end);
    return;
  }
  const w0 = bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24);
  const w1 = bytes[at + 4]! | (bytes[at + 5]! << 8) | (bytes[at + 6]! << 16) | (bytes[at + 7]! << 24);
  out[0] = len >= 4 ? w0 : w0 & LOW_BYTES_MASK[len]!;
  out[1] = len >= 8 ? w1 : len <= 4 ? 0 : w1 & LOW_BYTES_MASK[len - 4]!;
}

/** Words a row of inlineRecords. */
export const INLINE_RECORD_WORDS = 4;
/** Bytes of a value an inline record holds in place. */
export const INLINE_RECORD_BYTES = 12;
/** An inline record's length byte for a value of this many bytes or more: its length is read from the offsets. */
export const INLINE_LONG = 255;

/**
 * A utf8/binary column's rows as 16-byte records (`records`, INLINE_RECORD_WORDS words a row):
 * a value's first 12 bytes as three little-endian words (zero past its end) and its offset into
 * `bytes`; and each row's byte length in `lengths` (INLINE_LONG from 255 bytes on: then read
 * from the offsets). A random row then costs a read of its length in a table a quarter the
 * size of its offsets, and one of its record, instead of two (its offsets, then its bytes):
 * src/columns/gather gatherInlined.
 */
export function inlineRecords(bytes: Uint8Array, offs: Int32Array | Float64Array, rows: number, records: Int32Array, lengths: Uint8Array): void {
  for (let r = 0; r < rows; r++) {
    const a = offs[r]!;
    const e = offs[r + 1]!;
    const at = INLINE_RECORD_WORDS * r;
    lengths[r] = Math.min(e - a, INLINE_LONG);
    records[at] = inlineWord(bytes, a, e);
    records[at + 1] = inlineWord(bytes, a + 4, e);
    records[at + 2] = inlineWord(bytes, a + 8, e);
    records[at + 3] = a;
  }
}
