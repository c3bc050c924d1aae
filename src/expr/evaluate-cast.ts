/**
 * CAST kernels. A value that cannot be represented in the target type becomes NULL (like
 * Polars `strict=False` / Spark `try_cast`): out-of-range integers, NaN/±Inf/out-of-range
 * floats to ints, unparsable strings, timestamps that overflow a finer unit. Details:
 * - float → int truncates toward zero; int/float → bool is `x != 0`; bool → number is 1/0.
 * - int64/uint64 → float64 is correctly rounded (hi·2^32 + lo with one rounding).
 * - number → string: ints exactly; floats in the shortest form that reads back, with '.0' for
 *   integral values ('1.0', '-0.0', '1e+21', 'NaN', 'inf', '-inf', as the text writers); bool → 'true'/'false'.
 * - string → int: optional spaces and sign, decimal digits; → float: JS number syntax plus
 *   'inf'/'infinity'/'nan' (any case); → bool: true/false/t/f/1/0/yes/no (any case).
 * - date/timestamp ↔ date/timestamp: to a finer unit multiplies, to a coarser one floors (so
 *   timestamp → date gives the UTC calendar day); changing only the zone keeps the instant.
 * - int ↔ date/timestamp reinterprets the stored count (days, or units since the epoch).
 * - date/timestamp → string: the one temporal text renderer (src/io/temporal-text) with a space
 *   between date and time ('2024-03-10 01:30:00[.fraction]', 'Z' for zoned, the instant in UTC);
 *   string → date/timestamp: see evaluate-datetime.ts.
 */
import type { Data } from 'apache-arrow';
import type { TypeDesc, TimeUnit } from '../types/column.js';
import { isString, typesEqual } from '../types/column.js';
import { exactFloat } from '../io/text/float-text.js';
import type { Alloc } from './evaluate-data.js';
import {
  allocBits, boolBitsOf, ByteBuilder, ctorOf, decodeUtf8, getBit, halves, is64, makeResult, strViewOf, unpackBits, validityOf,
} from './evaluate-data.js';
import { civilScratch, formatCivil, formatDate, splitTimestamp } from '../io/temporal-text.js';
import { divScratch, divWords, divWordsWide, extendsSign, limbScratch, limbsOfWords, wideDivScratch, words64 } from '../ops/int64-words.js';
import { floorDiv, NANOS, parseDateTime } from './evaluate-datetime.js';
import { nullColumn } from './evaluate-value.js';

type IntType = Extract<TypeDesc, { kind: 'int' }>;
const TWO32 = 4294967296;

export function cast(from: TypeDesc, to: TypeDesc, a: Data, n: number, alloc: Alloc): Data {
  if (typesEqual(from, to)) return a;
  if (from.kind === 'null') return nullColumn(to, n, alloc);
  const valid = ownValidity(a, n, alloc);
  if (isString(to)) return toStrings(from, to, a, n, valid, alloc);
  if (isString(from)) return fromStrings(to, a, n, valid, alloc);
  const temporal = (t: TypeDesc) => t.kind === 'date' || t.kind === 'timestamp';
  if (temporal(from) && temporal(to)) return temporalToTemporal(from, to, a, n, valid, alloc);
  if (temporal(from)) return numeric(physical(from), to, a, n, valid, alloc);
  if (temporal(to)) {
    const p = physical(to);
    const d = numeric(from, p, a, n, valid, alloc);
    return makeResult(to, n, validityOf(d), { data: d.values });
  }
  return numeric(from, to, a, n, valid, alloc);
}

function physical(t: TypeDesc): IntType {
  return { kind: 'int', bits: t.kind === 'date' && t.unit === 'day' ? 32 : 64, signed: true };
}

/** An owned, all-ones-when-absent validity bitmap that kernels may clear bits in. */
function ownValidity(a: Data, n: number, alloc: Alloc): Uint8Array {
  const out = allocBits(alloc, n);
  const v = validityOf(a);
  if (v) out.set(v.subarray(0, out.length));
  else out.fill(0xff);
  return out;
}

function clear(valid: Uint8Array, i: number): void {
  valid[i >> 3] &= ~(1 << (i & 7));
}

/** Source values as doubles (bool → 0/1, 64-bit via halves, correctly rounded). */
function asNumbers(from: TypeDesc, a: Data, n: number): ArrayLike<number> {
  if (from.kind === 'bool') return unpackBits(boolBitsOf(a), n, new Uint8Array(n));
  if (!is64(from)) return (a.values as Float64Array).subarray(0, n);
  const { lo, hi, uhi } = halves(a.values as BigInt64Array);
  const h = from.kind === 'int' && !from.signed ? uhi : hi;
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = h[2 * i + 1] * TWO32 + lo[2 * i];
  return out;
}

const RANGE: Record<string, [number, number]> = {
  i8: [-128, 127], i16: [-32768, 32767], i32: [-2147483648, 2147483647],
  u8: [0, 255], u16: [0, 65535], u32: [0, 4294967295],
};

function numeric(from: TypeDesc, to: TypeDesc, a: Data, n: number, valid: Uint8Array, alloc: Alloc): Data {
  if (to.kind === 'bool') {
    const bytes = new Uint8Array(n);
    if (is64(from)) {
      const { lo, hi } = halves(a.values as BigInt64Array);
      for (let i = 0; i < n; i++) bytes[i] = lo[2 * i] !== 0 || hi[2 * i + 1] !== 0 ? 1 : 0;
    } else {
      const src = asNumbers(from, a, n);
      for (let i = 0; i < n; i++) bytes[i] = src[i] !== 0 ? 1 : 0;
    }
    const bits = allocBits(alloc, n);
    for (let i = 0; i < n; i++) if (bytes[i]) bits[i >> 3] |= 1 << (i & 7);
    return makeResult(to, n, valid, { data: bits });
  }
  const out = alloc(ctorOf(to), n);
  if (to.kind === 'float') {
    (out as Float64Array).set(asNumbers(from, a, n) as Float64Array);
    return makeResult(to, n, valid, { data: out });
  }
  if (to.kind !== 'int') throw new Error(`cast: unexpected target ${to.kind}`);
  if (to.bits < 64) {
    const [min, max] = RANGE[`${to.signed ? 'i' : 'u'}${to.bits}`];
    const src = asNumbers(from, a, n);
    const o = out as Float64Array;
    const isFloat = from.kind === 'float';
    for (let i = 0; i < n; i++) {
      const x = isFloat ? Math.trunc(src[i]) : src[i];
      if (x >= min && x <= max) o[i] = x;
      else clear(valid, i); // also NaN
    }
    return makeResult(to, n, valid, { data: out });
  }
  // 64-bit targets, written as Int32 halves
  const h = halves(out as BigInt64Array);
  const olo = h.lo;
  const ohi = h.hi;
  if (is64(from)) {
    const s = halves(a.values as BigInt64Array);
    const fromSigned = !(from.kind === 'int' && !from.signed);
    for (let i = 0; i < n; i++) {
      const hi = s.hi[2 * i + 1];
      if (hi < 0 && fromSigned !== to.signed) clear(valid, i); // negative → unsigned, or ≥ 2^63 → signed
      olo[2 * i] = s.lo[2 * i];
      ohi[2 * i + 1] = hi;
    }
    return makeResult(to, n, valid, { data: out });
  }
  const src = asNumbers(from, a, n);
  const min = to.signed ? -9223372036854775808 : 0;
  const max = to.signed ? 9223372036854775808 : 18446744073709551616; // exclusive
  for (let i = 0; i < n; i++) {
    const x = Math.trunc(src[i]);
    if (x >= min && x < max) {
      const hi = Math.floor(x / TWO32);
      olo[2 * i] = x - hi * TWO32;
      ohi[2 * i + 1] = hi;
    } else {
      clear(valid, i);
    }
  }
  return makeResult(to, n, valid, { data: out });
}

function temporalToTemporal(from: TypeDesc, to: TypeDesc, a: Data, n: number, valid: Uint8Array, alloc: Alloc): Data {
  const f = NANOS[unitOf(from)];
  const t = NANOS[unitOf(to)];
  const out = alloc(ctorOf(to), n);
  // 64-bit counts as their 32-bit words (exact, no BigInt per value); date32 days as int32
  const src64 = is64(from) ? words64(a.values as BigInt64Array) : null;
  const src32 = src64 ? null : (a.values as Int32Array);
  const dst64 = is64(to) ? words64(out as BigInt64Array) : null;
  const dst32 = dst64 ? null : (out as Int32Array);
  const finer = f >= t;
  const k = Number(finer ? f / t : t / f); // <= 86400e9 < 2^47
  // a divisor above divWordsWide's 2^37 (ns -> day) divides in two exact floor steps
  const k1 = !finer && k > 2 ** 37 ? 1e6 : k;
  const k2 = k / k1;
  for (let i = 0; i < n; i++) {
    if (!getBit(valid, i)) continue;
    const hi = src64 ? src64[2 * i + 1]! | 0 : src32![i]! < 0 ? -1 : 0;
    const lo = src64 ? src64[2 * i]! : src32![i]! >>> 0;
    let rh: number;
    let rl: number;
    if (finer) {
      limbsOfWords(hi, lo, k);
      const h = limbScratch[0]!;
      const m = limbScratch[1]!;
      // the product fits int64 when its top limb only extends the sign of the middle one
      if (!extendsSign(h, m)) {
        clear(valid, i);
        continue;
      }
      rh = m | 0;
      rl = limbScratch[2]!;
    } else {
      divWordsWide(hi, lo, k1);
      if (k2 !== 1) divWordsWide(wideDivScratch[0]!, wideDivScratch[1]!, k2);
      rh = wideDivScratch[0]!;
      rl = wideDivScratch[1]!;
    }
    if (dst64) {
      dst64[2 * i] = rl;
      dst64[2 * i + 1] = rh;
    } else if (extendsSign(rh, rl)) {
      dst32![i] = rl | 0;
    } else {
      clear(valid, i);
    }
  }
  return makeResult(to, n, valid, { data: out });
}

function unitOf(t: TypeDesc): TimeUnit | 'day' {
  if (t.kind === 'date') return t.unit === 'day' ? 'day' : 'ms';
  if (t.kind === 'timestamp') return t.unit;
  throw new Error(`unitOf: ${t.kind}`);
}

/**
 * Shortest text that reads back to the same float (float32 aware): the text writers' digits
 * (src/io/text/float-text, so NaN, inf and -inf read the same everywhere), with '.0' when integral.
 */
export function formatFloat(x: number, bits: number): string {
  const s = exactFloat(x, bits === 32 ? 32 : bits === 16 ? 16 : 64);
  if (s === '-0') return '-0.0';
  return /[.eEna]/.test(s) ? s : `${s}.0`;
}

function toStrings(from: TypeDesc, to: TypeDesc, a: Data, n: number, valid: Uint8Array, alloc: Alloc): Data {
  const b = new ByteBuilder();
  const offsets = alloc(Int32Array, n + 1) as Int32Array;
  const put = (i: number) => (offsets[i + 1] = b.length);
  if (isString(from) || from.kind === 'binary' || from.kind === 'largeBinary') {
    const s = strViewOf(a);
    for (let i = 0; i < n; i++) {
      if (getBit(valid, i)) b.append(s.bytes, s.offsets[i], s.offsets[i + 1]);
      put(i);
    }
  } else if (from.kind === 'bool') {
    const bits = boolBitsOf(a);
    for (let i = 0; i < n; i++) {
      if (getBit(valid, i)) b.appendString(getBit(bits, i) ? 'true' : 'false');
      put(i);
    }
  } else if (from.kind === 'float') {
    const v = a.values as Float64Array;
    for (let i = 0; i < n; i++) {
      if (getBit(valid, i)) b.appendString(formatFloat(v[i], from.bits));
      put(i);
    }
  } else if (from.kind === 'date' && from.unit === 'day') {
    const v = a.values as Int32Array;
    for (let i = 0; i < n; i++) {
      if (getBit(valid, i)) b.appendString(formatDate(v[i]));
      put(i);
    }
  } else if (from.kind === 'date' || from.kind === 'timestamp') {
    // one renderer for temporal text (src/io/temporal-text), from the values' words
    const w = words64(a.values as BigInt64Array);
    const unit = from.kind === 'date' ? 'ms' : from.unit;
    const zoned = from.kind === 'timestamp' && from.timezone !== null;
    for (let i = 0; i < n; i++) {
      if (getBit(valid, i)) {
        const hi = w[2 * i + 1]! | 0;
        const lo = w[2 * i]!;
        if (from.kind === 'date') {
          // date64: the calendar day of the milliseconds
          divWords(hi, lo, 86_400_000);
          b.appendString(formatDate(divScratch[0]!));
        } else {
          splitTimestamp(hi, lo, unit);
          b.appendString(formatCivil(civilScratch[0]!, civilScratch[1]!, civilScratch[2]!, unit, zoned, ' '));
        }
      }
      put(i);
    }
  } else {
    const v = a.values as Float64Array; // ints: numbers or bigints, String() prints both exactly
    for (let i = 0; i < n; i++) {
      if (getBit(valid, i)) b.appendString(String(v[i]));
      put(i);
    }
  }
  const bytes = b.finish(alloc);
  if (to.kind === 'largeUtf8' || to.kind === 'largeBinary') {
    const big = alloc(BigInt64Array, n + 1) as BigInt64Array;
    for (let i = 0; i <= n; i++) big[i] = BigInt(offsets[i]);
    return makeResult(to, n, valid, { data: bytes, valueOffsets: big });
  }
  return makeResult(to, n, valid, { data: bytes, valueOffsets: offsets });
}

const INT_TEXT = /^\s*[+-]?\d+\s*$/;
const FLOAT_TEXT = /^\s*[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?|inf|infinity|nan)\s*$/i;
const TRUE_TEXT = new Set(['true', 't', '1', 'yes', 'y']);
const FALSE_TEXT = new Set(['false', 'f', '0', 'no', 'n']);
const INT_BOUNDS: Record<string, [bigint, bigint]> = {
  i8: [-128n, 127n], i16: [-32768n, 32767n], i32: [-2147483648n, 2147483647n], i64: [-(2n ** 63n), 2n ** 63n - 1n],
  u8: [0n, 255n], u16: [0n, 65535n], u32: [0n, 4294967295n], u64: [0n, 2n ** 64n - 1n],
};

function parseFloatText(t: string): number {
  const s = t.trim().toLowerCase();
  const neg = s.startsWith('-');
  const body = s.replace(/^[+-]/, '');
  if (body === 'nan') return NaN;
  if (body === 'inf' || body === 'infinity') return neg ? -Infinity : Infinity;
  return Number(s);
}

function fromStrings(to: TypeDesc, a: Data, n: number, valid: Uint8Array, alloc: Alloc): Data {
  const s = strViewOf(a);
  const text = (i: number) => decodeUtf8(s.bytes, s.offsets[i], s.offsets[i + 1]);
  if (to.kind === 'bool') {
    const bits = allocBits(alloc, n);
    for (let i = 0; i < n; i++) {
      if (!getBit(valid, i)) continue;
      const t = text(i).trim().toLowerCase();
      if (TRUE_TEXT.has(t)) bits[i >> 3] |= 1 << (i & 7);
      else if (!FALSE_TEXT.has(t)) clear(valid, i);
    }
    return makeResult(to, n, valid, { data: bits });
  }
  const out = alloc(ctorOf(to), n);
  if (to.kind === 'int') {
    const [min, max] = INT_BOUNDS[`${to.signed ? 'i' : 'u'}${to.bits}`];
    for (let i = 0; i < n; i++) {
      if (!getBit(valid, i)) continue;
      const t = text(i);
      const v = INT_TEXT.test(t) ? BigInt(t.trim()) : null;
      if (v === null || v < min || v > max) clear(valid, i);
      else if (to.bits === 64) (out as BigInt64Array)[i] = v;
      else (out as Float64Array)[i] = Number(v);
    }
  } else if (to.kind === 'float') {
    for (let i = 0; i < n; i++) {
      if (!getBit(valid, i)) continue;
      const t = text(i);
      if (FLOAT_TEXT.test(t)) (out as Float64Array)[i] = parseFloatText(t);
      else clear(valid, i);
    }
  } else if (to.kind === 'date' || to.kind === 'timestamp') {
    const per = NANOS[unitOf(to)];
    const big = is64(to);
    for (let i = 0; i < n; i++) {
      if (!getBit(valid, i)) continue;
      const ns = parseDateTime(text(i));
      if (ns === null) {
        clear(valid, i);
        continue;
      }
      const v = floorDiv(ns, per);
      if (big ? BigInt.asIntN(64, v) !== v : v < -2147483648n || v > 2147483647n) clear(valid, i);
      else if (big) (out as BigInt64Array)[i] = v;
      else (out as Int32Array)[i] = Number(v);
    }
  } else {
    throw new Error(`cast: string to ${to.kind} is not supported`);
  }
  return makeResult(to, n, valid, { data: out });
}
