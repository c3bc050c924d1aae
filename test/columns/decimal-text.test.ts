/** DECIMAL128 as exact text (CSV and CLI output). */
import { describe, expect, it } from 'vitest';
import { decimalText } from '../../src/columns/decimal-text.js';

const words = (vals: bigint[]) => {
  const w = new Uint32Array(4 * vals.length);
  vals.forEach((v, i) => {
    const u = BigInt.asUintN(128, v);
    for (let k = 0; k < 4; k++) w[4 * i + k] = Number((u >> BigInt(32 * k)) & 0xffffffffn);
  });
  return w;
};

describe('decimalText', () => {
  it('places the point by the scale, keeps trailing zeros and the sign', () => {
    const w = words([150n, -5n, 0n, 10n ** 37n * 9n, -(10n ** 38n - 1n), 7n]);
    expect([0, 1, 2].map((i) => decimalText(w, i, 2))).toEqual(['1.50', '-0.05', '0.00']);
    expect(decimalText(w, 3, 0)).toBe('9' + '0'.repeat(37));
    expect(decimalText(w, 4, 38)).toBe('-0.' + '9'.repeat(38));
    expect(decimalText(w, 5, -2)).toBe('700');
  });
});
