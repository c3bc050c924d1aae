/**
 * 64-bit integer arithmetic kernels on 32-bit words (src/ops/int64-words), never a BigInt per
 * value: `+ - *` wrap in 64 bits (two's complement, identical for int64 and uint64), `%` is the
 * remainder of truncated division (sign of the dividend for int64; unsigned for uint64), unary
 * minus wraps (-MIN = MIN). Constants (bigints) are split into words once per call.
 *
 * `%` divides magnitudes: an exact double remainder when both fit 2^53, else a few rounds of
 * q = an under-estimate of r / d in doubles, r -= q*d in exact words, until r < d.
 * The caller marks zero divisors NULL; their output words are left 0.
 */
import { TWO32, words64 } from '../ops/int64-words.js';

type Big = BigInt64Array | BigUint64Array;
const TWO53 = 2 ** 53;

/** lo and hi words of a bigint constant, wrapped to 64 bits (as the typed array would store it). */
function constWords(v: bigint): [number, number] {
  const u = BigInt.asUintN(64, v);
  return [Number(u & 0xffffffffn), Number(u >> 32n)];
}

/** High 32 bits of the 64-bit product of two uint32 values. */
function mulHi32(a: number, b: number): number {
  const al = a & 0xffff;
  const ah = a >>> 16;
  const bl = b & 0xffff;
  const bh = b >>> 16;
  const lh = al * bh;
  const hl = ah * bl;
  const mid = ((al * bl) >>> 16) + (lh & 0xffff) + (hl & 0xffff);
  return (ah * bh + (lh >>> 16) + (hl >>> 16) + (mid >>> 16)) >>> 0;
}

export function add64(out: Big, A: Big | null, B: Big | null, sa: bigint, sb: bigint, n: number): void {
  const o = words64(out);
  const a = A ? words64(A) : null;
  const b = B ? words64(B) : null;
  const [ca0, ca1] = A ? [0, 0] : constWords(sa);
  const [cb0, cb1] = B ? [0, 0] : constWords(sb);
  for (let i = 0; i < n; i++) {
    const a0 = a ? a[2 * i]! : ca0;
    const a1 = a ? a[2 * i + 1]! : ca1;
    const b0 = b ? b[2 * i]! : cb0;
    const b1 = b ? b[2 * i + 1]! : cb1;
    const l = a0 + b0;
    o[2 * i] = l;
    o[2 * i + 1] = a1 + b1 + (l >= TWO32 ? 1 : 0);
  }
}

export function sub64(out: Big, A: Big | null, B: Big | null, sa: bigint, sb: bigint, n: number): void {
  const o = words64(out);
  const a = A ? words64(A) : null;
  const b = B ? words64(B) : null;
  const [ca0, ca1] = A ? [0, 0] : constWords(sa);
  const [cb0, cb1] = B ? [0, 0] : constWords(sb);
  for (let i = 0; i < n; i++) {
    const a0 = a ? a[2 * i]! : ca0;
    const a1 = a ? a[2 * i + 1]! : ca1;
    const b0 = b ? b[2 * i]! : cb0;
    const b1 = b ? b[2 * i + 1]! : cb1;
    o[2 * i] = a0 - b0; // the Uint32Array store wraps
    o[2 * i + 1] = a1 - b1 - (a0 < b0 ? 1 : 0);
  }
}

export function mul64(out: Big, A: Big | null, B: Big | null, sa: bigint, sb: bigint, n: number): void {
  const o = words64(out);
  const a = A ? words64(A) : null;
  const b = B ? words64(B) : null;
  const [ca0, ca1] = A ? [0, 0] : constWords(sa);
  const [cb0, cb1] = B ? [0, 0] : constWords(sb);
  for (let i = 0; i < n; i++) {
    const a0 = a ? a[2 * i]! : ca0;
    const a1 = a ? a[2 * i + 1]! : ca1;
    const b0 = b ? b[2 * i]! : cb0;
    const b1 = b ? b[2 * i + 1]! : cb1;
    // low 64 bits of (a1*2^32 + a0)(b1*2^32 + b0): a0*b0 + ((a0*b1 + a1*b0) << 32)
    o[2 * i] = Math.imul(a0, b0);
    o[2 * i + 1] = mulHi32(a0, b0) + Math.imul(a0, b1) + Math.imul(a1, b0);
  }
}

export function neg64(out: Big, A: Big, n: number): void {
  const o = words64(out);
  const a = words64(A);
  for (let i = 0; i < n; i++) {
    const a0 = a[2 * i]!;
    o[2 * i] = -a0;
    o[2 * i + 1] = -a[2 * i + 1]! - (a0 !== 0 ? 1 : 0);
  }
}

/** Scratch: [lo, hi] of the last `remMagnitude` result. */
const rem = new Float64Array(2);

/** (rh, rl) mod (dh, dl) for unsigned 64-bit magnitudes (d > 0), into `rem`. */
function remMagnitude(rh: number, rl: number, dh: number, dl: number): void {
  const d = dh * TWO32 + dl; // rounded when d > 2^53
  for (;;) {
    // r < d exactly?
    if (rh < dh || (rh === dh && rl < dl)) break;
    const r = rh * TWO32 + rl;
    if (r < TWO53 && d < TWO53) {
      const x = r % d; // exact
      rh = Math.floor(x / TWO32);
      rl = x - rh * TWO32;
      break;
    }
    // q <= floor(r / d): the doubles' relative errors are < 2^-51 together
    let q = Math.floor((r / d) * (1 - 2 ** -50));
    if (q < 1) q = 1;
    // r -= q*d in words (q*d <= r < 2^64, so its low 64 bits are all of it)
    const qh = Math.floor(q / TWO32);
    const ql = q - qh * TWO32;
    const pl = Math.imul(ql, dl) >>> 0;
    const ph = (mulHi32(ql, dl) + Math.imul(ql, dh) + Math.imul(qh, dl)) >>> 0;
    const nl = rl - pl;
    rh = rh - ph - (nl < 0 ? 1 : 0);
    rl = nl < 0 ? nl + TWO32 : nl;
  }
  rem[0] = rl;
  rem[1] = rh;
}

/**
 * Remainders of truncated division into `out`; returns the bits of the rows whose divisor is
 * zero (left unwritten; the caller NULLs them), or null when there are none.
 */
export function mod64(out: Big, A: Big | null, B: Big | null, sa: bigint, sb: bigint, n: number, unsigned: boolean): Uint8Array | null {
  const o = words64(out);
  const a = A ? words64(A) : null;
  const b = B ? words64(B) : null;
  const [ca0, ca1] = A ? [0, 0] : constWords(sa);
  const [cb0, cb1] = B ? [0, 0] : constWords(sb);
  let zeros: Uint8Array | null = null;
  for (let i = 0; i < n; i++) {
    let a0 = a ? a[2 * i]! : ca0;
    let a1 = a ? a[2 * i + 1]! : ca1;
    let b0 = b ? b[2 * i]! : cb0;
    let b1 = b ? b[2 * i + 1]! : cb1;
    if (b0 === 0 && b1 === 0) {
      zeros ??= new Uint8Array((n + 7) >> 3);
      zeros[i >> 3] |= 1 << (i & 7);
      continue;
    }
    let negA = false;
    if (!unsigned) {
      // magnitudes (|MIN| = 2^63 is representable unsigned)
      if (a1 >= 0x80000000) {
        negA = true;
        a1 = (a0 === 0 ? -a1 : -a1 - 1) >>> 0;
        a0 = (-a0) >>> 0;
      }
      if (b1 >= 0x80000000) {
        b1 = (b0 === 0 ? -b1 : -b1 - 1) >>> 0;
        b0 = (-b0) >>> 0;
      }
    }
    remMagnitude(a1, a0, b1, b0);
    let r0 = rem[0]!;
    let r1 = rem[1]!;
    if (negA) {
      r1 = r0 === 0 ? -r1 : -r1 - 1;
      r0 = -r0;
    }
    o[2 * i] = r0;
    o[2 * i + 1] = r1;
  }
  return zeros;
}
