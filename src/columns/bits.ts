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
  // Body: whole bytes.
  let byte = (offset + i) >> 3;
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
