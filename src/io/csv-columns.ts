/**
 * CSV text → Arrow columns, one batch at a time, into pre-sized typed arrays (no Arrow
 * builders, no per-row allocation beyond the strings papaparse hands us).
 *
 * Every column gets a `Filler` sized for the batch: `set(i, text)` parses one non-empty field
 * (returning an error text when it does not parse), `setNull(i)`, then `finish(n)` makes the
 * arrow `Data` (validity bitmap only when there are NULLs). Strings become plain Utf8 (or
 * LargeUtf8), never Dictionary.
 *
 * Accepted text: integers `[+-]digits` (range-checked, int64 exact through BigInt); floats as
 * JS decimal/exponent notation plus `inf`, `-inf`, `infinity`, `nan` (any case); booleans
 * `true`/`false` (any case) and `1`/`0`; DATE and TIMESTAMP as ISO-8601 (temporal-text.ts; for
 * a zoned column, text without an offset is wall time in the column's zone: time-zones.ts);
 * durations as integer counts. An empty field is NULL for every type.
 *
 * Inference (no schema): over the sampled rows, a column is int64 if every non-NULL value
 * is an integer within int64, else float64 if every one is a float, else bool if every one is
 * true/false; with date inference on, else date32 if every one is `YYYY-MM-DD`, else a
 * timestamp if every one is an ISO-8601 date or timestamp (timestamp[us], or [ns] when a value
 * has more than 6 fraction digits; zoned 'UTC' when every value has an offset, text when only
 * some do); else utf8. A column with no non-NULL value is utf8. Inferred columns are nullable.
 */
import {
  Bool,
  DataType,
  DateDay,
  Float64,
  Int64,
  Int8,
  LargeUtf8,
  makeData,
  Null,
  Timestamp,
  TimeUnit,
  Type,
  Utf8,
  type Data,
  type Date_,
  DateUnit,
  type Float,
  Precision,
} from 'apache-arrow';
import { build } from '../columns/gather.js';
import { PlanError } from '../errors.js';
import { limbScratch, limbsOfWords, TWO32, words64 } from '../ops/int64-words.js';
import { parseDate, parseTimestamp, timestampWords, type Unit } from './temporal-text.js';
import { checkTimeZone, wallOffset } from './time-zones.js';

export interface Filler {
  set(i: number, s: string): string | null;
  setNull(i: number): void;
  finish(length: number): Data;
}

const INT_RE = /^[+-]?\d+$/;
const FLOAT_RE = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const SPECIAL_FLOAT: Record<string, number> = {
  inf: Infinity,
  '+inf': Infinity,
  '-inf': -Infinity,
  infinity: Infinity,
  '+infinity': Infinity,
  '-infinity': -Infinity,
  nan: NaN,
  '+nan': NaN,
  '-nan': NaN,
};

export function parseFloatText(s: string): number | null {
  if (FLOAT_RE.test(s)) return Number(s);
  const v = SPECIAL_FLOAT[s.toLowerCase()];
  return v === undefined ? null : v;
}

export function parseBoolText(s: string): boolean | null {
  if (s === '1') return true;
  if (s === '0') return false;
  const l = s.length <= 5 ? s.toLowerCase() : '';
  return l === 'true' ? true : l === 'false' ? false : null;
}

/** Validity bitmap shared by all fillers; allocated lazily on the first NULL. */
class Validity {
  bits: Uint8Array | null = null;
  nulls = 0;
  constructor(private readonly capacity: number) {}
  setNull(i: number): void {
    if (this.bits === null) this.bits = new Uint8Array((this.capacity + 7) >> 3).fill(0xff);
    this.bits[i >> 3]! &= ~(1 << (i & 7));
    this.nulls++;
  }
  /** The bitmap as build() properties: none without a NULL. */
  bitmapProps(length: number): { nullBitmap?: Uint8Array } {
    return this.bits === null ? {} : { nullBitmap: this.bits.subarray(0, (length + 7) >> 3) };
  }
}

type NumArray = Int8Array | Int16Array | Int32Array | Uint8Array | Uint16Array | Uint32Array | Float32Array | Float64Array;

function numberFiller(type: DataType, values: NumArray, parse: (s: string) => number | string, cap: number): Filler {
  const v = new Validity(cap);
  return {
    set(i, s) {
      const x = parse(s);
      if (typeof x === 'string') return x;
      values[i] = x;
      return null;
    },
    setNull: (i) => v.setNull(i),
    finish: (n) => build({ type, length: n, nullCount: v.nulls, ...v.bitmapProps(n), data: values.subarray(0, n) }),
  };
}

/**
 * A 64-bit column filled from its values' 32-bit words: `parse` returns an error text or null
 * and leaves the value's words [hi, lo] in `words` (no BigInt per value).
 */
function bigFiller(type: DataType, values: BigInt64Array | BigUint64Array, parse: (s: string) => string | null, words: Float64Array, cap: number): Filler {
  const v = new Validity(cap);
  const w = words64(values);
  return {
    set(i, s) {
      const err = parse(s);
      if (err !== null) return err;
      w[2 * i] = words[1]!;
      w[2 * i + 1] = words[0]!;
      return null;
    },
    setNull: (i) => v.setNull(i),
    finish: (n) => build({ type, length: n, nullCount: v.nulls, ...v.bitmapProps(n), data: values.subarray(0, n) }),
  };
}

function intParser(min: number, max: number, name: string): (s: string) => number | string {
  return (s) => {
    if (!INT_RE.test(s)) return `not an integer`;
    const x = Number(s);
    return x >= min && x <= max ? x : `out of range for ${name}`;
  };
}

/** Scratch [hi, lo] words of the last integer or date64 value parsed. */
const parsedWords = new Float64Array(2);

function setWords(x: number): void {
  const hi = Math.floor(x / TWO32);
  parsedWords[0] = hi;
  parsedWords[1] = x - hi * TWO32;
}

/** 64-bit integer text into `parsedWords`: up to 15 digits through a double (exact), longer through a BigInt. */
function bigIntParser(min: bigint, max: bigint, name: string): (s: string) => string | null {
  const unsigned = min === 0n;
  return (s) => {
    if (!INT_RE.test(s)) return `not an integer`;
    if (s.length <= 15) {
      const x = Number(s);
      if (unsigned && x < 0) return `out of range for ${name}`;
      setWords(x);
      return null;
    }
    const x = BigInt(s); // 16 digits and more: rare
    if (x < min || x > max) return `out of range for ${name}`;
    parsedWords[0] = Number(BigInt.asIntN(32, x >> 32n));
    parsedWords[1] = Number(x & 0xffffffffn);
    return null;
  };
}

const floatParser = (s: string): number | string => parseFloatText(s) ?? 'not a number';

function boolFiller(type: DataType, cap: number): Filler {
  const v = new Validity(cap);
  const bits = new Uint8Array((cap + 7) >> 3);
  return {
    set(i, s) {
      const b = parseBoolText(s);
      if (b === null) return 'not a boolean (true/false)';
      if (b) bits[i >> 3]! |= 1 << (i & 7);
      return null;
    },
    setNull: (i) => v.setNull(i),
    finish: (n) => build({ type, length: n, nullCount: v.nulls, ...v.bitmapProps(n), data: bits.subarray(0, (n + 7) >> 3) }),
  };
}

function stringFiller(type: Utf8 | LargeUtf8, cap: number): Filler {
  const v = new Validity(cap);
  const strs: string[] = new Array<string>(cap).fill('');
  return {
    set(i, s) {
      strs[i] = s;
      return null;
    },
    setNull(i) {
      strs[i] = '';
      v.setNull(i);
    },
    finish(n) {
      let total = 0;
      for (let i = 0; i < n; i++) total += Buffer.byteLength(strs[i]!, 'utf8');
      const bytes = new Uint8Array(total);
      const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      const large = type instanceof LargeUtf8;
      if (large ? false : total > 0x7fffffff) throw new RangeError('string column batch over 2 GiB; use a smaller batchRows');
      const offsets = large ? new BigInt64Array(n + 1) : new Int32Array(n + 1);
      // large offsets through their words (pos < 2^53), no BigInt per row
      const words = large ? words64(offsets as BigInt64Array) : null;
      let pos = 0;
      for (let i = 0; i < n; i++) {
        const s = strs[i]!;
        if (s.length > 0) pos += buf.write(s, pos, 'utf8');
        if (words) {
          const hi = Math.floor(pos / TWO32);
          words[2 * i + 2] = pos - hi * TWO32;
          words[2 * i + 3] = hi;
        } else (offsets as Int32Array)[i + 1] = pos;
      }
      return build({ type, length: n, nullCount: v.nulls, ...v.bitmapProps(n), valueOffsets: offsets, data: bytes });
    },
  };
}

function nullFiller(type: Null): Filler {
  return {
    set: () => 'not empty (the column type is null)',
    setNull: () => {},
    finish: (n) => makeData({ type, length: n }),
  };
}

const UNIT_NAME: Record<number, Unit> = {
  [TimeUnit.SECOND]: 's',
  [TimeUnit.MILLISECOND]: 'ms',
  [TimeUnit.MICROSECOND]: 'us',
  [TimeUnit.NANOSECOND]: 'ns',
};

/** A filler for `type`, sized for `cap` rows; throws PlanError for types CSV cannot hold. */
export function makeFiller(type: DataType, cap: number, column: string): Filler {
  switch (type.typeId) {
    case Type.Null:
      return nullFiller(type as Null);
    case Type.Bool:
      return boolFiller(type, cap);
    case Type.Int: {
      const t = type as Int8;
      const bits = (t as unknown as { bitWidth: number }).bitWidth;
      const signed = (t as unknown as { isSigned: boolean }).isSigned;
      const name = `${signed ? 'int' : 'uint'}${bits}`;
      if (bits === 64) {
        return signed
          ? bigFiller(type, new BigInt64Array(cap), bigIntParser(-(2n ** 63n), 2n ** 63n - 1n, name), parsedWords, cap)
          : bigFiller(type, new BigUint64Array(cap), bigIntParser(0n, 2n ** 64n - 1n, name), parsedWords, cap);
      }
      const min = signed ? -(2 ** (bits - 1)) : 0;
      const max = signed ? 2 ** (bits - 1) - 1 : 2 ** bits - 1;
      const arr = new (type.ArrayType as new (n: number) => NumArray)(cap);
      return numberFiller(type, arr, intParser(min, max, name), cap);
    }
    case Type.Float: {
      if ((type as Float).precision === Precision.SINGLE) return numberFiller(type, new Float32Array(cap), floatParser, cap);
      if ((type as Float).precision === Precision.DOUBLE) return numberFiller(type, new Float64Array(cap), floatParser, cap);
      break;
    }
    case Type.Utf8:
    case Type.LargeUtf8:
      return stringFiller(type as Utf8 | LargeUtf8, cap);
    case Type.Date: {
      if ((type as Date_).unit === DateUnit.DAY) {
        return numberFiller(type, new Int32Array(cap), (s) => parseDate(s) ?? 'not a date (YYYY-MM-DD)', cap);
      }
      return bigFiller(
        type,
        new BigInt64Array(cap),
        (s) => {
          const d = parseDate(s);
          if (d === null) return 'not a date (YYYY-MM-DD)';
          // |d| < 2^31: d * 86,400,000 < 2^58, exact as limbs
          limbsOfWords(d < 0 ? -1 : 0, d >>> 0, 86_400_000);
          parsedWords[0] = limbScratch[1]! | 0;
          parsedWords[1] = limbScratch[2]!;
          return null;
        },
        parsedWords,
        cap,
      );
    }
    case Type.Timestamp: {
      const unit = UNIT_NAME[(type as Timestamp).unit]!;
      const zone = (type as Timestamp).timezone;
      if (!zone) return bigFiller(type, new BigInt64Array(cap), (s) => parseTimestamp(s, unit), timestampWords, cap);
      const offsets = checkTimeZone(zone);
      if (offsets.isUtc) return bigFiller(type, new BigInt64Array(cap), (s) => parseTimestamp(s, unit), timestampWords, cap);
      // text with an offset is an instant; without one, wall time in the column's zone
      const inZone = (wallSeconds: number): number => wallOffset(offsets, wallSeconds);
      return bigFiller(type, new BigInt64Array(cap), (s) => parseTimestamp(s, unit, inZone), timestampWords, cap);
    }
    case Type.Duration:
      return bigFiller(type, new BigInt64Array(cap), bigIntParser(-(2n ** 63n), 2n ** 63n - 1n, 'duration'), parsedWords, cap);
  }
  throw new PlanError('CSV_UNSUPPORTED_TYPE', `CSV column ${column} cannot have type ${String(type)}`, { column });
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

const OFFSET_RE = /(?:Z|z|[+-]\d{2}(?::?\d{2})?)$/;

/** Infer one column's type from its sample values (see the header comment); '' is skipped. */
export function inferType(values: Iterable<string>, opts: { dates?: boolean } = {}): DataType {
  let isInt = true;
  let isFloat = true;
  let isBool = true;
  let isDate = opts.dates ?? false;
  let isTs = isDate;
  let nanos = false;
  let zoned = 0;
  let n = 0;
  for (const s of values) {
    if (s === '') continue;
    n++;
    if (isInt) {
      if (!INT_RE.test(s)) isInt = false;
      else if (s.length > 18) {
        const x = BigInt(s);
        if (x < INT64_MIN || x > INT64_MAX) isInt = false;
      }
    }
    if (isFloat && !isInt && parseFloatText(s) === null) isFloat = false;
    if (isBool) {
      const l = s.length <= 5 ? s.toLowerCase() : '';
      if (l !== 'true' && l !== 'false') isBool = false;
    }
    if (isDate && parseDate(s) === null) isDate = false;
    if (isTs && !isDate) {
      if (parseTimestamp(s, 'ns') !== null) isTs = false;
      else {
        if (parseTimestamp(s, 'us') !== null) nanos = true;
        if (s.length > 10 && OFFSET_RE.test(s)) zoned++;
      }
    }
    if (!isInt && !isFloat && !isBool && !isTs) break;
  }
  if (n === 0) return new Utf8();
  if (isInt) return new Int64();
  if (isFloat) return new Float64();
  if (isBool) return new Bool();
  if (isDate) return new DateDay();
  // every value has an offset (instants: UTC) or none does (wall times); a mix stays text
  if (isTs && (zoned === 0 || zoned === n)) return new Timestamp(nanos ? TimeUnit.NANOSECOND : TimeUnit.MICROSECOND, zoned > 0 ? 'UTC' : null);
  return new Utf8();
}
