/**
 * DECIMAL128 values as exact decimal text: the unscaled 128-bit two's-complement integer (four
 * little-endian 32-bit words per row) with `scale` digits after the point ("-0.05", "120.00").
 * One BigInt per value: for text output, where a string is made per value anyway.
 */
export function decimalText(words: Uint32Array, row: number, scale: number): string {
  const k = 4 * row;
  const u = (BigInt(words[k + 3]!) << 96n) | (BigInt(words[k + 2]!) << 64n) | (BigInt(words[k + 1]!) << 32n) | BigInt(words[k]!);
  const v = BigInt.asIntN(128, u);
  const neg = v < 0n;
  let digits = (neg ? -v : v).toString();
  if (scale > 0) {
    digits = digits.padStart(scale + 1, '0');
    digits = `${digits.slice(0, digits.length - scale)}.${digits.slice(digits.length - scale)}`;
  } else if (scale < 0) digits = v === 0n ? '0' : digits + '0'.repeat(-scale);
  return neg ? `-${digits}` : digits;
}
