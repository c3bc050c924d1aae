/**
 * Float text. Exact (CSV, JSON, TSV): the shortest text that reads back to the same value of
 * the column's width (float32 by its own shortest digits, not float64's), with `NaN`, `inf`,
 * `-inf` and `-0`. Display (the table view only): at most 7 significant digits (6 for
 * float32/float16), trailing zeros dropped, the integer part never rounded below 1e15, so
 * `0.04999999999998295` shows as `0.05`.
 */
import { util } from 'apache-arrow';

export type FloatBits = 16 | 32 | 64;

function specialText(x: number): string | null {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  return null;
}

/** Shortest round-trip text of `x` stored with `bits`. */
export function exactFloat(x: number, bits: FloatBits): string {
  const special = specialText(x);
  if (special !== null) return special;
  if (bits === 64) return String(x);
  // float32 / float16: the fewest digits that round back to the same stored value
  const back = bits === 32 ? Math.fround : (v: number) => util.uint16ToFloat64(util.float64ToUint16(v));
  for (let p = 1; p <= 9; p++) {
    const s = x.toPrecision(p);
    if (back(Number(s)) === x) return String(Number(s));
  }
  return String(x);
}

function trimZeros(s: string): string {
  if (!s.includes('.')) return s;
  const e = s.indexOf('e');
  const mantissa = e < 0 ? s : s.slice(0, e);
  const exp = e < 0 ? '' : s.slice(e);
  return mantissa.replace(/\.?0+$/, '') + exp;
}

/** Display text of `x` for the table view. */
export function displayFloat(x: number, bits: FloatBits): string {
  const special = specialText(x);
  if (special !== null) return special;
  const digits = bits === 64 ? 7 : 6;
  const a = Math.abs(x);
  if (a >= 1e15 || a < 1e-5) return trimZeros(x.toExponential(digits - 1));
  if (a < 1) return String(Number(x.toPrecision(digits)));
  const intDigits = Math.floor(Math.log10(a)) + 1;
  return trimZeros(x.toFixed(Math.max(0, digits - intDigits)));
}
