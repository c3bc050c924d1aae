/**
 * Literal values in window specs: the `default` of lag/lead, and decimal numbers for RANGE
 * offsets over DECIMAL128 keys. Plain data only (no bigint, no class instance), so specs survive
 * structured clone and JSON.
 *
 * `parseLiteral` turns what the user gave (null, boolean, number, bigint, string, Uint8Array,
 * Date: as its ISO text) into a LiteralSpec; `resolveLiteral` checks it against the measure column's type and returns
 * the exact value in that type's representation (integers, temporal counts and decimal unscaled
 * values as decimal strings; floats as numbers; strings; bytes as hex). Failures are PlanErrors.
 */
import { PlanError, show } from '../errors.js';
import { typeToString, type TypeDesc } from '../types/column.js';
import { NANOS, parseDateTime } from '../expr/evaluate-datetime.js';

export type LiteralSpec =
  | { kind: 'null' }
  | { kind: 'bool'; value: boolean }
  /** An exact integer (from a bigint or an integral number), as a decimal string. */
  | { kind: 'int'; value: string }
  /** A non-integral or non-finite number. */
  | { kind: 'number'; value: number }
  | { kind: 'string'; value: string }
  | { kind: 'bytes'; hex: string };

/** A literal in a column type's own representation. */
export type ResolvedLiteral =
  | { kind: 'null' }
  | { kind: 'bool'; value: boolean }
  /** int / uint, date, timestamp, duration (count of the unit), decimal (unscaled): exact, as a decimal string. */
  | { kind: 'int'; value: string }
  | { kind: 'float'; value: number }
  | { kind: 'string'; value: string }
  | { kind: 'bytes'; hex: string };

function bad(what: string, expected: string, got: unknown): never {
  throw new PlanError('BAD_OPTION', `${what}: Expected ${expected}, got ${show(got)} (${got === null ? 'null' : typeof got})`, {});
}

export function parseLiteral(v: unknown, what: string): LiteralSpec {
  if (v === null || v === undefined) return { kind: 'null' };
  if (typeof v === 'boolean') return { kind: 'bool', value: v };
  if (typeof v === 'bigint') return { kind: 'int', value: v.toString() };
  // Only safe integers are exact integers; other numbers stay numbers (rejected for integer columns).
  if (typeof v === 'number') return Number.isSafeInteger(v) && !Object.is(v, -0) ? { kind: 'int', value: BigInt(v).toString() } : { kind: 'number', value: v };
  if (typeof v === 'string') return { kind: 'string', value: v };
  if (v instanceof Uint8Array) return { kind: 'bytes', hex: Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex') };
  // A Date is an instant (as lit() takes it): its ISO text, which date and timestamp columns read.
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? bad(what, 'a valid Date', String(v)) : { kind: 'string', value: v.toISOString() };
  return bad(what, 'a literal (null, boolean, number, bigint, string, Uint8Array or Date)', v);
}

/** Validates a hand-written literal spec (job file, JSON). */
export function checkLiteralSpec(o: unknown, what: string): LiteralSpec {
  if (typeof o !== 'object' || o === null || o instanceof Uint8Array) return parseLiteral(o, what);
  const s = o as { kind?: unknown; value?: unknown; hex?: unknown };
  switch (s.kind) {
    case 'null':
      return { kind: 'null' };
    case 'bool':
      if (typeof s.value === 'boolean') return { kind: 'bool', value: s.value };
      break;
    case 'int':
      if (typeof s.value === 'string' && /^[+-]?\d+$/.test(s.value)) return { kind: 'int', value: BigInt(s.value).toString() };
      break;
    case 'number':
      if (typeof s.value === 'number') return parseLiteral(s.value, what);
      break;
    case 'string':
      if (typeof s.value === 'string') return { kind: 'string', value: s.value };
      break;
    case 'bytes':
      if (typeof s.hex === 'string' && /^([0-9a-fA-F]{2})*$/.test(s.hex)) return { kind: 'bytes', hex: s.hex.toLowerCase() };
      break;
  }
  return bad(what, 'a literal', JSON.stringify(o));
}

const INT_RANGE: Record<number, [bigint, bigint, bigint, bigint]> = {
  8: [-128n, 127n, 0n, 255n],
  16: [-32768n, 32767n, 0n, 65535n],
  32: [-(2n ** 31n), 2n ** 31n - 1n, 0n, 2n ** 32n - 1n],
  64: [-(2n ** 63n), 2n ** 63n - 1n, 0n, 2n ** 64n - 1n],
};

/** The exact unscaled integer of decimal text at `scale`, or null when it needs more digits. */
export function parseDecimalText(text: string, scale: number): bigint | null {
  const m = /^\s*([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?\s*$/.exec(text);
  if (!m || (m[2] === '' && (m[3] === undefined || m[3] === ''))) return null;
  const digits = `${m[2]}${m[3] ?? ''}`;
  let exp = -(m[3]?.length ?? 0) + (m[4] ? Number(m[4]) : 0) + scale;
  let v = BigInt(digits === '' ? '0' : digits);
  if (exp >= 0) v *= 10n ** BigInt(exp);
  else {
    const d = 10n ** BigInt(-exp);
    if (v % d !== 0n) return null;
    v /= d;
    exp = 0;
  }
  return m[1] === '-' ? -v : v;
}

function fitsDecimal(v: bigint, precision: number): boolean {
  const lim = 10n ** BigInt(precision);
  return v < lim && v > -lim;
}

/**
 * `lit` as a value of `type`: integers (bigints or safe-integer numbers) must fit the type's
 * range; decimals take numbers (by their shortest decimal text), bigints (whole values) and
 * decimal strings, exact at the type's scale and within its precision.
 */
export function resolveLiteral(lit: LiteralSpec, type: TypeDesc, what: string): ResolvedLiteral {
  const expected = (e: string): never => {
    const got = lit.kind === 'null' ? 'null' : lit.kind === 'bytes' ? `bytes 0x${lit.hex}` : show(lit.value);
    throw new PlanError('BAD_OPTION', `${what}: Expected ${e} for the ${typeToString(type)} column, got ${got}`, {});
  };
  if (lit.kind === 'null') return lit;
  switch (type.kind) {
    case 'bool':
      if (lit.kind === 'bool') return lit;
      return expected('a boolean');
    case 'int': {
      if (lit.kind !== 'int') return expected('an integer (a bigint, or a safe-integer number)');
      const [smin, smax, umin, umax] = INT_RANGE[type.bits]!;
      const v = BigInt(lit.value);
      const lo = type.signed ? smin : umin;
      const hi = type.signed ? smax : umax;
      if (v < lo || v > hi) return expected(`an integer from ${lo} to ${hi}`);
      return { kind: 'int', value: v.toString() };
    }
    case 'date':
    case 'timestamp':
    case 'duration': {
      const unit = type.kind === 'date' ? (type.unit === 'day' ? 'days' : 'milliseconds') : `${type.unit} units`;
      const text = type.kind === 'duration' ? '' : ', a Date or ISO date/time text';
      let v: bigint;
      if (lit.kind === 'int') v = BigInt(lit.value);
      else if (lit.kind === 'string' && type.kind !== 'duration') {
        // ISO text (offset-free text is the wall clock of a naive column, UTC for a zoned one), exact in the column's unit
        const ns = parseDateTime(lit.value);
        const per = NANOS[type.kind === 'date' ? (type.unit === 'day' ? 'day' : 'ms') : type.unit];
        if (ns === null || ns % per !== 0n) return expected(`an integer count of ${unit}${text} exact in that unit`);
        v = ns / per;
      } else return expected(`an integer count of ${unit} (a bigint or a safe-integer number${text})`);
      const [lo, hi] = type.kind === 'date' && type.unit === 'day' ? [INT_RANGE[32]![0], INT_RANGE[32]![1]] : [INT_RANGE[64]![0], INT_RANGE[64]![1]];
      if (v < lo || v > hi) return expected(`an integer count of ${unit} from ${lo} to ${hi}`);
      return { kind: 'int', value: v.toString() };
    }
    case 'float':
      if (lit.kind === 'number') return { kind: 'float', value: lit.value };
      if (lit.kind === 'int') return { kind: 'float', value: Number(BigInt(lit.value)) };
      return expected('a number');
    case 'decimal': {
      let v: bigint | null = null;
      if (lit.kind === 'int') v = BigInt(lit.value) * 10n ** BigInt(type.scale);
      else if (lit.kind === 'number') v = Number.isFinite(lit.value) ? parseDecimalText(String(lit.value), type.scale) : null;
      else if (lit.kind === 'string') v = parseDecimalText(lit.value, type.scale);
      else return expected('a number, bigint or decimal string');
      if (v === null) return expected(`a decimal with at most ${type.scale} digits after the point`);
      if (!fitsDecimal(v, type.precision)) return expected(`a decimal of at most ${type.precision} digits`);
      return { kind: 'int', value: v.toString() };
    }
    case 'utf8':
    case 'largeUtf8':
      if (lit.kind === 'string') return lit;
      return expected('a string');
    case 'binary':
    case 'largeBinary':
      if (lit.kind === 'bytes') return lit;
      if (lit.kind === 'string') return { kind: 'bytes', hex: Buffer.from(lit.value, 'utf8').toString('hex') };
      return expected('a Uint8Array (or a string, taken as UTF-8 bytes)');
    default:
      return expected('null (only NULL defaults are supported for this type)');
  }
}
