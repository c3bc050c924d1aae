/** Validity and boolean bitmaps (Arrow LSB order) <-> one byte per row. */

/** Bits [offset, offset + length) of an Arrow bitmap as bytes 0/1. A missing bitmap means all set. */
export function bitmapToBytes(bitmap: Uint8Array | null | undefined, offset: number, length: number, out?: Uint8Array): Uint8Array {
  const bytes = out ?? new Uint8Array(length);
  if (!bitmap || bitmap.length === 0) return bytes.fill(1, 0, length);
  let i = 0;
  // Head: unaligned bits up to a byte boundary.
  while (i < length && ((offset + i) & 7) !== 0) {
    const b = offset + i;
    bytes[i++] = (bitmap[b >> 3]! >> (b & 7)) & 1;
  }
  // Body: whole bytes; each as two 32-bit stores of its eight 0/1 bytes where the output allows.
  let byte = (offset + i) >> 3;
  if (((bytes.byteOffset + i) & 3) === 0) {
    const whole = (length - i) >> 3;
    expandBytes(bitmap, byte, new Uint32Array(bytes.buffer, bytes.byteOffset + i, 2 * whole), whole);
    byte += whole;
    i += whole << 3;
  }
  for (; i + 8 <= length; i += 8) {
    const v = bitmap[byte++]!;
    bytes[i] = v & 1;
    bytes[i + 1] = (v >> 1) & 1;
    bytes[i + 2] = (v >> 2) & 1;
    bytes[i + 3] = (v >> 3) & 1;
    bytes[i + 4] = (v >> 4) & 1;
    bytes[i + 5] = (v >> 5) & 1;
    bytes[i + 6] = (v >> 6) & 1;
    bytes[i + 7] = (v >> 7) & 1;
  }
  for (; i < length; i++) {
    const b = offset + i;
    bytes[i] = (bitmap[b >> 3]! >> (b & 7)) & 1;
  }
  return bytes;
}

/**
 * `whole` bitmap bytes from `byte` on as eight 0/1 bytes each (two words); a loop of its own
 * (see src/ops/group-accumulate).
 */
function expandBytes(bitmap: Uint8Array, byte: number, out32: Uint32Array, whole: number): void {
  for (let k = 0; k < whole; k++) {
    const v = bitmap[byte + k]!;
    out32[2 * k] = EXPAND_LO[v]!;
    out32[2 * k + 1] = EXPAND_HI[v]!;
  }
}

/** Bits 0-3 (EXPAND_LO) and 4-7 (EXPAND_HI) of a byte as the four 0/1 bytes of a word. */
const EXPAND_LO = new Uint32Array(256);
const EXPAND_HI = new Uint32Array(256);
{
  // Filled byte by byte: a word then holds its four bytes in memory order on any platform.
  const lo = new Uint8Array(EXPAND_LO.buffer);
  const hi = new Uint8Array(EXPAND_HI.buffer);
  for (let v = 0; v < 256; v++) {
    for (let k = 0; k < 4; k++) {
      lo[4 * v + k] = (v >> k) & 1;
      hi[4 * v + k] = (v >> (k + 4)) & 1;
    }
  }
}

/** Bytes (non-zero = set) to a bitmap starting at bit 0; returns the count of set bits too. */
export function bytesToBitmap(bytes: ArrayLike<number>, length: number, out?: Uint8Array): { bitmap: Uint8Array; set: number } {
  const bitmap = out ?? new Uint8Array((length + 7) >> 3);
  let set = 0;
  let i = 0;
  for (let byte = 0; i + 8 <= length; byte++, i += 8) {
    const v =
      (bytes[i] ? 1 : 0) |
      (bytes[i + 1] ? 2 : 0) |
      (bytes[i + 2] ? 4 : 0) |
      (bytes[i + 3] ? 8 : 0) |
      (bytes[i + 4] ? 16 : 0) |
      (bytes[i + 5] ? 32 : 0) |
      (bytes[i + 6] ? 64 : 0) |
      (bytes[i + 7] ? 128 : 0);
    bitmap[byte] = v;
    set += POPCOUNT[v]!;
  }
  if (i < length) {
    let v = 0;
    for (let k = 0; i + k < length; k++) if (bytes[i + k]) v |= 1 << k;
    bitmap[i >> 3] = v;
    set += POPCOUNT[v]!;
  }
  return { bitmap, set };
}


/** Number of set bits in [offset, offset + length) of a bitmap. */
export function countSet(bitmap: Uint8Array, offset: number, length: number): number {
  let set = 0;
  let i = 0;
  while (i < length && ((offset + i) & 7) !== 0) {
    const b = offset + i++;
    set += (bitmap[b >> 3]! >> (b & 7)) & 1;
  }
  let byte = (offset + i) >> 3;
  for (; i + 8 <= length; i += 8) set += POPCOUNT[bitmap[byte++]!]!;
  for (; i < length; i++) {
    const b = offset + i;
    set += (bitmap[b >> 3]! >> (b & 7)) & 1;
  }
  return set;
}

/** Copy bits [offset, offset + length) into a new bitmap that starts at bit 0. */
export function sliceBitmap(bitmap: Uint8Array, offset: number, length: number, out?: Uint8Array): Uint8Array {
  const dst = out ?? new Uint8Array((length + 7) >> 3);
  if ((offset & 7) === 0) {
    dst.set(bitmap.subarray(offset >> 3, (offset >> 3) + ((length + 7) >> 3)));
    return dst;
  }
  const shift = offset & 7;
  const first = offset >> 3;
  const nbytes = (length + 7) >> 3;
  for (let k = 0; k < nbytes; k++) {
    const lo = bitmap[first + k]! >>> shift;
    const hi = first + k + 1 < bitmap.length ? (bitmap[first + k + 1]! << (8 - shift)) & 0xff : 0;
    dst[k] = lo | hi;
  }
  return dst;
}

const POPCOUNT = (() => {
  const t = new Uint8Array(256);
  for (let i = 0; i < 256; i++) t[i] = (i & 1) + t[i >> 1]!;
  return t;
})();

/** Sets bits [from, from + length) of `dst`. */
export function setBitRange(dst: Uint8Array, from: number, length: number): void {
  let i = from;
  const end = from + length;
  while (i < end && (i & 7) !== 0) {
    dst[i >> 3]! |= 1 << (i & 7);
    i++;
  }
  const whole = (end - i) >> 3;
  if (whole > 0) {
    const b = i >> 3;
    if (whole > 16) dst.fill(0xff, b, b + whole);
    else for (let k = b; k < b + whole; k++) dst[k] = 0xff;
    i += whole << 3;
  }
  for (; i < end; i++) dst[i >> 3]! |= 1 << (i & 7);
}

/**
 * dst bits [d, d + length) = src bits [s, s + length), at any bit alignment of either side;
 * those dst bits are 0 before the call (other dst bits are kept). A byte at a time in the body.
 */
export function copyBitRange(src: Uint8Array, s: number, dst: Uint8Array, d: number, length: number): void {
  let left = length;
  while (left > 0 && (d & 7) !== 0) {
    if ((src[s >> 3]! >> (s & 7)) & 1) dst[d >> 3]! |= 1 << (d & 7);
    s++;
    d++;
    left--;
  }
  const whole = left >> 3;
  if (whole > 0) {
    const sh = s & 7;
    const sb = s >> 3;
    const db = d >> 3;
    if (sh === 0) {
      if (whole > 16) dst.set(src.subarray(sb, sb + whole), db);
      else for (let k = 0; k < whole; k++) dst[db + k] = src[sb + k]!;
    } else {
      const last = src.length - 1;
      for (let k = 0; k < whole; k++) {
        const x = sb + k;
        dst[db + k] = ((src[x]! >>> sh) | (x < last ? src[x + 1]! << (8 - sh) : 0)) & 0xff;
      }
    }
    s += whole << 3;
    d += whole << 3;
    left -= whole << 3;
  }
  for (; left > 0; left--, s++, d++) if ((src[s >> 3]! >> (s & 7)) & 1) dst[d >> 3]! |= 1 << (d & 7);
}
