/**
 * ASOF tolerance: an exact, non-negative value in key units (the common unit for temporal keys),
 * with double brackets `lo <= value <= hi` (for double keys) and limbs `h, m, l` (for limb
 * keys), and the exact tails value - lo, hi - value that settle a gap rounding to lo or hi.
 * Built once per join (a few BigInts per tolerance, never per row).
 */

/**
 * An exact, non-negative tolerance in key units (the common unit for temporal keys).
 * `lo <= value <= hi` are doubles (equal when the value is a double); `h,m,l` its limbs.
 */
export interface NormalizedTolerance {
  readonly value: bigint | number;
  readonly unbounded: boolean;
  readonly lo: number;
  readonly hi: number;
  readonly h: number;
  readonly m: number;
  readonly l: number;
  /** value - lo and hi - value, exactly (0 when the value is a double); NaN when no double holds them. */
  readonly loTail: number;
  readonly hiTail: number;
}

/** Builds a tolerance from an exact non-negative value (number: finite or +Infinity; bigint). */
export function makeAsofTolerance(value: number | bigint): NormalizedTolerance {
  if (typeof value === 'number') {
    if (!(value >= 0)) throw new RangeError(`tolerance must be >= 0, got ${value}`);
    if (value === Infinity) return { value, unbounded: true, lo: Infinity, hi: Infinity, h: Infinity, m: 0, l: 0, loTail: 0, hiTail: 0 };
    const v = value === 0 ? 0 : value; // -0 → 0
    if (Number.isInteger(v) && v <= Number.MAX_SAFE_INTEGER * 2) {
      const [h, m, l] = limbsOfBig(BigInt(v));
      return { value: v, unbounded: false, lo: v, hi: v, h, m, l, loTail: 0, hiTail: 0 };
    }
    // a non-integer or huge double: limbs of its floor (only integer keys use limbs, and those
    // tolerances are integers or huge; huge doubles are integers)
    const f = BigInt(Math.floor(v));
    if (f >= 1n << 112n) return { value: v, unbounded: false, lo: v, hi: v, h: Infinity, m: 0, l: 0, loTail: 0, hiTail: 0 };
    const [h, m, l] = limbsOfBig(f);
    return { value: v, unbounded: false, lo: v, hi: v, h, m, l, loTail: 0, hiTail: 0 };
  }
  if (value < 0n) throw new RangeError(`tolerance must be >= 0, got ${value}`);
  const d = Number(value);
  let lo = d;
  let hi = d;
  if (Number.isFinite(d) && BigInt(d) !== value) {
    if (BigInt(d) > value) lo = nextDown(d);
    else hi = nextUp(d);
  } else if (!Number.isFinite(d)) {
    lo = Number.MAX_VALUE;
    hi = Infinity;
  }
  const loTail = exactTail(value - BigInt(lo));
  const hiTail = Number.isFinite(hi) ? exactTail(BigInt(hi) - value) : NaN;
  if (value >= 1n << 112n) return { value, unbounded: false, lo, hi, h: Infinity, m: 0, l: 0, loTail, hiTail };
  const [h, m, l] = limbsOfBig(value);
  return { value, unbounded: false, lo, hi, h, m, l, loTail, hiTail };
}

function nextUp(d: number): number {
  const f = new Float64Array([d]);
  const b = new BigInt64Array(f.buffer);
  b[0] = d >= 0 ? b[0]! + 1n : b[0]! - 1n;
  return f[0]!;
}
function nextDown(d: number): number {
  const f = new Float64Array([d]);
  const b = new BigInt64Array(f.buffer);
  b[0] = d > 0 ? b[0]! - 1n : b[0]! + 1n;
  return f[0]!;
}

/** t as a double when exactly one, else NaN. */
function exactTail(t: bigint): number {
  const d = Number(t);
  return Number.isFinite(d) && BigInt(d) === t ? d : NaN;
}

function limbsOfBig(v: bigint): [number, number, number] {
  return [Number(v >> 64n), Number((v >> 32n) & 0xffffffffn), Number(v & 0xffffffffn)];
}
