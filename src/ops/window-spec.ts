/**
 * Window plan resolution: `df.window({ partitionBy, orderBy, columns })` → `ResolvedWindow`.
 *
 * Function classes: aggregates (sum count avg min max stddev variance stddevPop varPop
 * countDistinct) and value functions (first last nthValue) run over a frame; offset functions
 * (lag lead) and ranking functions (rowNumber rank denseRank percentRank cumeDist ntile) take
 * none (a frame on them is a PlanError). `.minPeriods(k)` is for aggregates and value
 * functions, `.ignoreNulls()` for value and offset functions.
 *
 * Steps: (1) parse each column's function spec (shape, offsets, units, arguments) → (2) resolve
 * partition and order columns against the schema, normalising orderBy to {column, descending,
 * nulls} (ASC NULLS FIRST, DESC NULLS LAST by default) → (3) per output column check the measure
 * type, compute the output type and resolve the frame: ROWS and GROUPS offsets saturate to
 * ±(2^63-1); RANGE offsets become exact integers in the order key's unit (date32 days, date64 ms,
 * timestamp/duration unit, decimal unscaled units) or float64 numbers for float keys; lag/lead
 * defaults become exact values of the measure type → (4) check frame start ≤ end and name
 * clashes.
 * Every failure is a PlanError raised before any row is read. The result is plain data
 * (no bigint, no class instance): it survives structured clone and JSON.
 */
import { PlanError, show } from '../errors.js';
import { isNumeric, typeToString, type FieldDesc, type TypeDesc } from '../types/column.js';
import { checkLiteralSpec, parseDecimalText, resolveLiteral, type LiteralSpec, type ResolvedLiteral } from './window-literal.js';

// ---------------------------------------------------------------------------------------------
// Function specs (built by src/expr/aggregates.ts, or written by hand / read from a job file)
// ---------------------------------------------------------------------------------------------

export type WindowFnName =
  | 'sum' | 'count' | 'avg' | 'min' | 'max'
  | 'stddev' | 'variance' | 'stddevPop' | 'varPop' | 'countDistinct'
  | 'first' | 'last' | 'nthValue'
  | 'lag' | 'lead'
  | 'rowNumber' | 'rank' | 'denseRank' | 'percentRank' | 'cumeDist' | 'ntile';

/** aggregate / value: over a frame; offset (lag, lead) and ranking: over the partition order. */
export type WindowFnClass = 'aggregate' | 'value' | 'offset' | 'ranking';

export const FN_CLASS: Readonly<Record<WindowFnName, WindowFnClass>> = {
  sum: 'aggregate',
  count: 'aggregate',
  avg: 'aggregate',
  min: 'aggregate',
  max: 'aggregate',
  stddev: 'aggregate',
  variance: 'aggregate',
  stddevPop: 'aggregate',
  varPop: 'aggregate',
  countDistinct: 'aggregate',
  first: 'value',
  last: 'value',
  nthValue: 'value',
  lag: 'offset',
  lead: 'offset',
  rowNumber: 'ranking',
  rank: 'ranking',
  denseRank: 'ranking',
  percentRank: 'ranking',
  cumeDist: 'ranking',
  ntile: 'ranking',
};

/** Functions whose measure is optional (count) or absent (ranking). */
export function takesFrame(fn: WindowFnName): boolean {
  const c = FN_CLASS[fn];
  return c === 'aggregate' || c === 'value';
}
export type DurationUnit = 'ns' | 'us' | 'ms' | 's' | 'm' | 'h' | 'd' | 'w';

/** A frame offset as given by the user, in plain data. */
export type OffsetSpec =
  | { kind: 'unbounded' }
  /** An exact integer (from a bigint or an integral number), as a decimal string. */
  | { kind: 'int'; value: string }
  /** A finite non-integral number (RANGE over float keys only). */
  | { kind: 'number'; value: number }
  /** A duration: integer `value` (decimal string, may be negative) of `unit`. */
  | { kind: 'duration'; value: string; unit: DurationUnit; text: string }
  /** A decimal number written as text ('1.25'), for RANGE over DECIMAL128 (or float) keys. */
  | { kind: 'decimal'; text: string };

export type FrameMode = 'rows' | 'range' | 'groups';

export interface FrameSpec {
  mode: FrameMode;
  /** start = current - preceding ('unbounded' = UNBOUNDED PRECEDING). */
  preceding: OffsetSpec;
  /** end = current + following ('unbounded' = UNBOUNDED FOLLOWING). */
  following: OffsetSpec;
}

export interface WindowFnSpec {
  fn: WindowFnName;
  /** Measure column; null for `count()` (counts rows) and the ranking functions. */
  column: string | null;
  /** null = SQL's default frame (always null for offset and ranking functions). */
  frame: FrameSpec | null;
  /** nthValue: n (from 1); lag/lead: rows (default 1); ntile: buckets. An exact integer as a decimal string. */
  n?: string;
  /** lag/lead: the value where the offset row is outside the partition (default NULL). */
  default?: LiteralSpec;
  /** first/last/nthValue/lag/lead: skip NULL values. */
  ignoreNulls?: boolean;
  /** Aggregates and value functions: NULL when the frame holds fewer than k non-NULL values. */
  minPeriods?: number;
}

export type OffsetInput = number | bigint | string;

const FN_NAMES = Object.keys(FN_CLASS) as WindowFnName[];
export const INT64_MAX = (1n << 63n) - 1n;

const UNIT_NS: Record<DurationUnit, bigint> = {
  ns: 1n,
  us: 1_000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
  d: 86_400_000_000_000n,
  w: 604_800_000_000_000n,
};

const DURATION_RE = /^\s*([+-]?)(\d+)\s*(ns|us|µs|ms|s|m|h|d|w)\s*$/;
const DECIMAL_RE = /^\s*[+-]?(\d+\.?\d*|\.\d+)\s*$/;
const CALENDAR_RE = /^\s*[+-]?\d*(\.\d+)?\s*(mo|mon|mons|month|months|y|yr|yrs|year|years|M|Y)\s*$/;

/**
 * Parses one offset argument of `.rows()` / `.range()` / `.groups()` (or of a hand-written spec)
 * into an OffsetSpec. ROWS and GROUPS offsets must be integers and saturate to ±(2^63-1).
 */
export function parseOffset(value: unknown, mode: FrameMode, what: string): OffsetSpec {
  if (value === 'unbounded' || (typeof value === 'string' && value.trim().toLowerCase() === 'unbounded')) {
    return { kind: 'unbounded' };
  }
  if (typeof value === 'bigint') return intOffset(value, mode);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) {
      throw new PlanError('INVALID_OFFSET', `${what}: expected a finite number, a bigint, a duration or 'unbounded', got ${show(value)}`, {
        value: String(value),
      });
    }
    if (Number.isInteger(value)) return intOffset(BigInt(value), mode);
    if (mode !== 'range') {
      throw new PlanError('INVALID_OFFSET', `${what}: ${mode.toUpperCase()} offsets must be integers, got ${show(value)}`, { value });
    }
    return { kind: 'number', value };
  }
  if (typeof value === 'string') {
    if (CALENDAR_RE.test(value)) {
      throw new PlanError(
        'CALENDAR_UNIT',
        `${what}: calendar units (months, years) have no fixed length and are not supported, got ${show(value)}; use days or weeks`,
        { value },
      );
    }
    if (DECIMAL_RE.test(value)) {
      const t = value.trim();
      if (/^[+-]?\d+$/.test(t)) return intOffset(BigInt(t), mode);
      if (mode !== 'range') {
        throw new PlanError('INVALID_OFFSET', `${what}: ${mode.toUpperCase()} offsets must be integers, got ${show(value)}`, { value });
      }
      return { kind: 'decimal', text: t.replace(/^\+/, '') };
    }
    const m = DURATION_RE.exec(value);
    if (!m) {
      throw new PlanError(
        'INVALID_OFFSET',
        `${what}: expected a number, a bigint, 'unbounded' or a duration such as '250ms', '5s', '2m', '1h', '3d', '1w', got ${show(value)}`,
        { value },
      );
    }
    if (mode !== 'range') {
      throw new PlanError('INVALID_OFFSET', `${what}: ${mode.toUpperCase()} offsets count ${mode === 'rows' ? 'rows' : 'peer groups'} and take integers, not the duration ${show(value)}`, {
        value,
      });
    }
    const unit = (m[3] === 'µs' ? 'us' : m[3]) as DurationUnit;
    const amount = BigInt(m[2]!) * (m[1] === '-' ? -1n : 1n);
    return { kind: 'duration', value: amount.toString(), unit, text: value.trim() };
  }
  throw new PlanError('INVALID_OFFSET', `${what}: expected a number, a bigint, a duration string or 'unbounded', got ${show(value)} (${typeof value})`, {
    value: String(value),
  });
}

function intOffset(v: bigint, mode: FrameMode): OffsetSpec {
  if (mode !== 'range') {
    if (v > INT64_MAX) v = INT64_MAX;
    if (v < -INT64_MAX) v = -INT64_MAX;
  }
  return { kind: 'int', value: v.toString() };
}

/** Validates a (possibly hand-written) offset spec; returns a normalised copy. */
function checkOffsetSpec(o: unknown, mode: FrameMode, what: string): OffsetSpec {
  if (typeof o !== 'object' || o === null) return parseOffset(o, mode, what);
  const spec = o as { kind?: unknown; value?: unknown; unit?: unknown };
  switch (spec.kind) {
    case 'unbounded':
      return { kind: 'unbounded' };
    case 'int':
      if (typeof spec.value === 'string' && /^[+-]?\d+$/.test(spec.value)) return intOffset(BigInt(spec.value), mode);
      break;
    case 'number':
      if (typeof spec.value === 'number') return parseOffset(spec.value, mode, what);
      break;
    case 'duration':
      if (typeof spec.value === 'string' && /^[+-]?\d+$/.test(spec.value) && typeof spec.unit === 'string') {
        return parseOffset(`${spec.value}${spec.unit}`, mode, what);
      }
      break;
    case 'decimal':
      if (typeof (spec as { text?: unknown }).text === 'string') return parseOffset((spec as { text: string }).text, mode, what);
      break;
  }
  throw new PlanError('INVALID_OFFSET', `${what}: malformed offset ${safeJson(o)}`, {});
}

/** Offset value comparable across kinds when no key unit is needed (for early start>end checks). */
function comparableNs(o: OffsetSpec): { v: bigint | number; family: 'plain' | 'duration' } | null {
  if (o.kind === 'int') return { v: BigInt(o.value), family: 'plain' };
  if (o.kind === 'number') return { v: o.value, family: 'plain' };
  if (o.kind === 'duration') return { v: BigInt(o.value) * UNIT_NS[o.unit], family: 'duration' };
  if (o.kind === 'decimal') return { v: Number(o.text), family: 'plain' };
  return null;
}

/** Throws FRAME_START_AFTER_END when current - preceding > current + following is certain. */
export function checkFrameOrder(frame: FrameSpec, what: string): void {
  const p = comparableNs(frame.preceding);
  const f = comparableNs(frame.following);
  if (!p || !f || p.family !== f.family) return;
  const startAfterEnd = typeof p.v === 'bigint' && typeof f.v === 'bigint' ? -p.v > f.v : -Number(p.v) > Number(f.v);
  if (startAfterEnd) throw startAfterEndError(frame, what);
}

/** FRAME_START_AFTER_END, the bounds said in words (not as `current + -1`). */
function startAfterEndError(frame: FrameSpec, what: string): PlanError {
  return new PlanError(
    'FRAME_START_AFTER_END',
    `${what}: the frame starts after it ends (${describeFrame(frame)}): it starts ${describeBound(frame.preceding, true, frame.mode)} but ends ${describeBound(frame.following, false, frame.mode)}`,
    {},
  );
}

/** Validates and normalises a function spec (from a WindowFn or written by hand). */
export function normalizeFnSpec(raw: unknown, what: string): WindowFnSpec {
  let spec = raw as { spec?: unknown };
  if (spec && typeof spec === 'object' && 'spec' in spec && spec.spec && typeof spec.spec === 'object') spec = spec.spec as typeof spec;
  const s = spec as { fn?: unknown; column?: unknown; frame?: unknown; n?: unknown; default?: unknown; ignoreNulls?: unknown; minPeriods?: unknown };
  if (!s || typeof s !== 'object' || !FN_NAMES.includes(s.fn as WindowFnName)) {
    throw new PlanError(
      'INVALID_WINDOW_FN',
      `${what}: expected a window function built with ${FN_NAMES.join('/')} (e.g. sum('x').rows(6)), got ${safeJson(raw)}`,
      {},
    );
  }
  const fn = s.fn as WindowFnName;
  const column = s.column ?? null;
  if (column !== null && typeof column !== 'string') {
    throw new PlanError('INVALID_WINDOW_FN', `${what}: the measure column must be a column name, got ${safeJson(column)}`, {});
  }
  let frame: FrameSpec | null = null;
  if (s.frame !== null && s.frame !== undefined) {
    const fr = s.frame as { mode?: unknown; preceding?: unknown; following?: unknown };
    if (typeof fr !== 'object' || (fr.mode !== 'rows' && fr.mode !== 'range' && fr.mode !== 'groups')) {
      throw new PlanError('INVALID_WINDOW_FN', `${what}: malformed frame ${safeJson(s.frame)}; expected mode 'rows', 'range' or 'groups'`, {});
    }
    const mode = fr.mode;
    frame = {
      mode,
      preceding: checkOffsetSpec(fr.preceding, mode, `${what}: frame start`),
      following: checkOffsetSpec(fr.following ?? { kind: 'int', value: '0' }, mode, `${what}: frame end`),
    };
    checkFrameOrder(frame, what);
  }
  const out: WindowFnSpec = { fn, column: column as string | null, frame };
  if (s.n !== undefined && s.n !== null) out.n = parseFnInteger(s.n, `${what}: ${fn}() argument n`);
  if (s.default !== undefined) out.default = checkLiteralSpec(s.default, `${what}: ${fn}() default`);
  if (s.ignoreNulls !== undefined && s.ignoreNulls !== false) {
    if (s.ignoreNulls !== true) throw new PlanError('BAD_OPTION', `${what}: ignoreNulls: Expected a boolean, got ${safeJson(s.ignoreNulls)}`, {});
    out.ignoreNulls = true;
  }
  if (s.minPeriods !== undefined && s.minPeriods !== null) out.minPeriods = checkMinPeriods(s.minPeriods, `${what}: minPeriods`);
  checkFnShape(out, what);
  return out;
}

/** An exact integer argument (number or bigint or integer text) as a decimal string. */
export function parseFnInteger(v: unknown, what: string): string {
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number' && Number.isSafeInteger(v)) return String(v);
  if (typeof v === 'string' && /^[+-]?\d+$/.test(v.trim())) return BigInt(v.trim()).toString();
  throw new PlanError('BAD_OPTION', `${what}: Expected an integer (a safe-integer number or a bigint), got ${show(v)} (${typeof v})`, {});
}

export function checkMinPeriods(k: unknown, what: string): number {
  if (typeof k !== 'number' || !Number.isSafeInteger(k) || k < 0) {
    throw new PlanError('BAD_OPTION', `${what}: Expected a non-negative integer, got ${show(k)} (${typeof k})`, {});
  }
  return k;
}

/** Which arguments and modifiers each function takes (shared by the builders and normalizeFnSpec). */
export function checkFnShape(spec: WindowFnSpec, what: string): void {
  const { fn } = spec;
  const cls = FN_CLASS[fn];
  // the builders' `what` is the call itself (`rank()`): not "rank(): rank() takes no frame"
  const subject = what.startsWith(`${fn}(`) ? what : `${what}: ${fn}()`;
  if (cls === 'ranking') {
    if (spec.column !== null) throw new PlanError('INVALID_WINDOW_FN', `${subject} takes no column, got ${show(spec.column)}`, {});
  } else if (spec.column === null && fn !== 'count') {
    throw new PlanError('INVALID_WINDOW_FN', `${what}: ${fn}() needs a measure column (only count() may omit it)`, {});
  }
  if (spec.frame !== null && !takesFrame(fn)) {
    throw new PlanError(
      'FRAME_NOT_ALLOWED',
      `${subject} takes no frame (${describeFrame(spec.frame)}): ${cls === 'ranking' ? 'ranking functions work over the whole partition in its order' : 'lag and lead count rows in the partition order'}`,
      {},
    );
  }
  if (spec.n !== undefined) {
    const n = BigInt(spec.n);
    if (fn === 'nthValue' || fn === 'ntile') {
      if (n < 1n) throw new PlanError('BAD_OPTION', `${what}: ${fn}() argument n: Expected an integer >= 1, got ${spec.n}`, {});
    } else if (fn !== 'lag' && fn !== 'lead') {
      throw new PlanError('INVALID_WINDOW_FN', `${subject} takes no argument n`, {});
    }
  } else if (fn === 'nthValue' || fn === 'ntile') {
    throw new PlanError('BAD_OPTION', `${what}: ${fn}() argument n: Expected an integer >= 1, got nothing`, {});
  }
  if (spec.default !== undefined && fn !== 'lag' && fn !== 'lead') {
    throw new PlanError('INVALID_WINDOW_FN', `${what}: only lag() and lead() take a default, not ${fn}()`, {});
  }
  if (spec.ignoreNulls && cls !== 'value' && cls !== 'offset') {
    throw new PlanError('INVALID_WINDOW_FN', `${what}: .ignoreNulls() is for first/last/nthValue/lag/lead, not ${fn}() (aggregates already skip NULLs)`, {});
  }
  if (spec.minPeriods !== undefined && !takesFrame(fn)) {
    throw new PlanError('INVALID_WINDOW_FN', `${what}: .minPeriods() is for aggregates and first/last/nthValue, not ${fn}()`, {});
  }
}

export function describeOffset(o: OffsetSpec): string {
  switch (o.kind) {
    case 'unbounded':
      return 'unbounded';
    case 'int':
      return o.value;
    case 'number':
      return String(o.value);
    case 'duration':
      return `${o.value}${o.unit}`;
    case 'decimal':
      return o.text;
  }
}

export function describeFrame(frame: FrameSpec | null): string {
  if (!frame) return 'default frame';
  const side = (o: OffsetSpec, start: boolean): string => {
    if (o.kind === 'unbounded') return start ? 'UNBOUNDED PRECEDING' : 'UNBOUNDED FOLLOWING';
    let text = describeOffset(o);
    let neg = text.startsWith('-');
    if (neg) text = text.slice(1);
    if (/^0+(\.0*)?([a-z]*)$/.test(text)) return 'CURRENT ROW';
    // start = current - preceding: a positive preceding is PRECEDING; end = current + following.
    if (!start) neg = !neg;
    return `${text} ${neg ? 'FOLLOWING' : 'PRECEDING'}`;
  };
  return `${frame.mode.toUpperCase()} BETWEEN ${side(frame.preceding, true)} AND ${side(frame.following, false)}`;
}

/** Where a bounded frame edge lies: "at the current row", "1 row before the current row", "2h after the current row's key". */
function describeBound(o: OffsetSpec, start: boolean, mode: FrameMode): string {
  const current = mode === 'rows' ? 'the current row' : mode === 'groups' ? "the current row's peer group" : "the current row's key";
  if (o.kind === 'unbounded') return start ? 'at the first row of the partition' : 'at the last row of the partition';
  let amount = describeOffset(o);
  const negative = amount.startsWith('-');
  if (negative || amount.startsWith('+')) amount = amount.slice(1);
  if (/^0+(\.0*)?([a-z]*)$/.test(amount)) return `at ${current}`;
  // start = current - preceding, end = current + following
  const before = start !== negative;
  const unit = mode === 'rows' ? (amount === '1' ? ' row' : ' rows') : mode === 'groups' ? (amount === '1' ? ' peer group' : ' peer groups') : '';
  return `${amount}${unit} ${before ? 'before' : 'after'} ${current}`;
}

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x)) ?? String(v);
  } catch {
    return String(v);
  }
}

// ---------------------------------------------------------------------------------------------
// Resolved plan (plain data passed to the worker and the kernel)
// ---------------------------------------------------------------------------------------------

export interface ResolvedColumnRef {
  column: string;
  /** Index in the input schema. */
  index: number;
  type: TypeDesc;
  nullable: boolean;
}

export interface ResolvedOrderKey extends ResolvedColumnRef {
  descending: boolean;
  nulls: 'first' | 'last';
}

/**
 * An offset after resolution: `int` is an exact integer (decimal string) in rows (ROWS), peer
 * groups (GROUPS) or the order key's unit (RANGE over int/temporal/decimal keys); `float` is for
 * RANGE over float keys.
 */
export type ResolvedOffset = { int: string } | { float: number };

export interface ResolvedFrame {
  /**
   * 'rows': physical offsets; 'groups': offsets in peer groups; 'range': offsets on the single
   * order key; 'peers': a RANGE or GROUPS frame whose bounds are only CURRENT ROW / UNBOUNDED,
   * i.e. peer groups over all order keys (the whole partition when there is no order key).
   */
  mode: 'rows' | 'range' | 'groups' | 'peers';
  /** start = current - preceding (in order direction); null = UNBOUNDED PRECEDING. */
  preceding: ResolvedOffset | null;
  /** end = current + following; null = UNBOUNDED FOLLOWING. */
  following: ResolvedOffset | null;
}

export interface ResolvedWindowColumn {
  name: string;
  fn: WindowFnName;
  /** Index into ResolvedWindow.measures; -1 for count() of rows and the ranking functions. */
  measure: number;
  /** null for lag/lead and the ranking functions (they take no frame). */
  frame: ResolvedFrame | null;
  /** Output type: int64 / uint64 / float64 / decimal128(38, s) / duration, or the measure's type. */
  type: TypeDesc;
  nullable: boolean;
  /** Human text of the frame, for explain(). */
  frameText: string;
  /** NULL when the frame holds fewer than minPeriods non-NULL values (0: no condition). */
  minPeriods: number;
  /** first/last/nthValue/lag/lead: skip NULL values. */
  ignoreNulls: boolean;
  /**
   * nthValue: n >= 1; ntile: buckets >= 1; lag/lead: signed rows back (lag n = n, lead n = -n);
   * 0 otherwise. Saturated to ±2^40 (beyond any row count), so it is an exact JS number.
   */
  n: number;
  /** lag/lead: the value for rows whose offset row is outside the partition. */
  default: ResolvedLiteral | null;
}

export interface ResolvedWindow {
  partitionBy: ResolvedColumnRef[];
  orderBy: ResolvedOrderKey[];
  /** Distinct measure columns, in order of first use. */
  measures: ResolvedColumnRef[];
  /** Output columns in spec order. */
  columns: ResolvedWindowColumn[];
  /** Input fields followed by the new columns. */
  outputSchema: FieldDesc[];
}

export type OrderByInput = string | Array<string | { column: string; descending?: boolean; nulls?: 'first' | 'last' }>;

export interface WindowOptions {
  partitionBy?: string | string[];
  orderBy?: OrderByInput | { column: string; descending?: boolean; nulls?: 'first' | 'last' };
  columns: Record<string, unknown>;
  /** false: rows come out in partition order instead of input order (see the README). */
  preserveOrder?: boolean;
}

const INT64: TypeDesc = { kind: 'int', bits: 64, signed: true };
const UINT64: TypeDesc = { kind: 'int', bits: 64, signed: false };
const FLOAT64: TypeDesc = { kind: 'float', bits: 64 };
/** Beyond any row count (rows are numbered with 32 bits), exact as a JS number. */
const COUNT_LIMIT = 2n ** 40n;

/** Key unit in nanoseconds for temporal order keys (null for numeric keys). */
function keyUnitNs(t: TypeDesc): { ns: bigint; name: string } | null {
  switch (t.kind) {
    case 'date':
      return t.unit === 'day' ? { ns: UNIT_NS.d, name: 'days' } : { ns: UNIT_NS.ms, name: 'milliseconds' };
    case 'timestamp':
    case 'duration':
      return { ns: UNIT_NS[t.unit], name: { s: 'seconds', ms: 'milliseconds', us: 'microseconds', ns: 'nanoseconds' }[t.unit] };
    default:
      return null;
  }
}

function isOrderable(t: TypeDesc): boolean {
  switch (t.kind) {
    case 'int':
    case 'bool':
    case 'utf8':
    case 'largeUtf8':
    case 'binary':
    case 'largeBinary':
    case 'date':
    case 'timestamp':
    case 'duration':
    case 'decimal':
    // the all-NULL type: every row one key (one partition, all peers), as groupBy and DuckDB take it
    case 'null':
      return true;
    case 'float':
      return t.bits !== 16;
    default:
      return false;
  }
}

function isRangeKey(t: TypeDesc): boolean {
  return (
    t.kind === 'int' ||
    (t.kind === 'float' && t.bits !== 16) ||
    t.kind === 'date' ||
    t.kind === 'timestamp' ||
    t.kind === 'duration' ||
    t.kind === 'decimal'
  );
}

function findColumn(schema: FieldDesc[], name: unknown, role: string): ResolvedColumnRef {
  if (typeof name !== 'string') {
    throw new PlanError('INVALID_OPTION', `window ${role}: expected a column name (string), got ${safeJson(name)}`, {});
  }
  const index = schema.findIndex((f) => f.name === name);
  if (index < 0) {
    throw new PlanError(
      'UNKNOWN_COLUMN',
      `window ${role}: unknown column ${show(name)}; available columns: ${schema.map((f) => f.name).join(', ') || '(none)'}`,
      { column: name },
    );
  }
  const f = schema[index]!;
  return { column: name, index, type: f.type, nullable: f.nullable };
}

function resolveOffset(o: OffsetSpec, mode: FrameMode, key: ResolvedOrderKey | null, what: string): ResolvedOffset | null {
  if (o.kind === 'unbounded') return null;
  if (mode !== 'range') {
    if (o.kind !== 'int') throw new PlanError('INVALID_OFFSET', `${what}: ${mode.toUpperCase()} offsets must be integers, got ${describeOffset(o)}`, {});
    return { int: o.value };
  }
  // RANGE with an offset: the key exists here (checked by the caller).
  const k = key!;
  const t = k.type;
  const keyText = `order key ${show(k.column)} (${typeToString(t)})`;
  const durationOnNumeric = (text: string): never => {
    throw new PlanError('INVALID_OFFSET', `${what}: duration ${show(text)} needs a temporal order key, but ${keyText} is numeric; give a number`, {
      column: k.column,
    });
  };
  if (t.kind === 'float') {
    if (o.kind === 'duration') return durationOnNumeric(o.text);
    return { float: o.kind === 'number' ? o.value : o.kind === 'decimal' ? Number(o.text) : Number(BigInt(o.value)) };
  }
  if (t.kind === 'decimal') {
    if (o.kind === 'duration') return durationOnNumeric(o.text);
    const text = o.kind === 'int' ? o.value : o.kind === 'decimal' ? o.text : String(o.value);
    const v = parseDecimalText(text, t.scale);
    if (v === null) {
      throw new PlanError('INVALID_OFFSET', `${what}: the offset ${text} has more than the ${t.scale} decimal places of ${keyText}`, { column: k.column });
    }
    return { int: v.toString() };
  }
  const unit = keyUnitNs(t);
  if (o.kind === 'number' || o.kind === 'decimal') {
    const text = o.kind === 'number' ? String(o.value) : o.text;
    throw new PlanError('INVALID_OFFSET', `${what}: ${keyText} takes integer offsets${unit ? ` (in ${unit.name}) or durations` : ''}, got the non-integer ${text}`, {
      column: k.column,
    });
  }
  if (o.kind === 'int') return { int: o.value };
  if (!unit) return durationOnNumeric(o.text);
  const ns = BigInt(o.value) * UNIT_NS[o.unit];
  if (ns % unit.ns !== 0n) {
    throw new PlanError('INVALID_OFFSET', `${what}: duration ${show(o.text)} is not a whole number of ${unit.name}, the unit of ${keyText}`, {
      column: k.column,
    });
  }
  return { int: (ns / unit.ns).toString() };
}

function offsetIsZero(o: OffsetSpec): boolean {
  if (o.kind === 'int' || o.kind === 'duration') return BigInt(o.value) === 0n;
  if (o.kind === 'decimal') return Number(o.text) === 0;
  return o.kind === 'number' && o.value === 0;
}

function offsetSign(o: ResolvedOffset | null): number {
  if (o === null) return 1;
  if ('int' in o) {
    const v = BigInt(o.int);
    return v > 0n ? 1 : v < 0n ? -1 : 0;
  }
  return Math.sign(o.float);
}

function measureTypeError(fn: WindowFnName, m: ResolvedColumnRef, expected: string, what: string): never {
  throw new PlanError('MEASURE_TYPE', `${what}: ${fn}(${show(m.column)}) needs ${expected}, but ${show(m.column)} is ${typeToString(m.type)}`, {
    column: m.column,
  });
}

function isSummable(t: TypeDesc): boolean {
  return (isNumeric(t) && !(t.kind === 'float' && t.bits === 16)) || t.kind === 'decimal' || t.kind === 'duration';
}

function outputType(fn: WindowFnName, measure: ResolvedColumnRef | null, what: string): TypeDesc {
  switch (fn) {
    case 'count':
    case 'countDistinct':
    case 'rowNumber':
    case 'rank':
    case 'denseRank':
    case 'ntile':
      if (fn === 'countDistinct' && !isOrderable(measure!.type)) {
        measureTypeError(fn, measure!, 'a column of a primitive type (number, bool, string, binary, temporal, decimal)', what);
      }
      return INT64;
    case 'percentRank':
    case 'cumeDist':
      return FLOAT64;
    default:
      break;
  }
  const m = measure!;
  const t = m.type;
  switch (fn) {
    case 'sum':
    case 'avg':
      if (!isSummable(t)) measureTypeError(fn, m, 'an integer, float32, float64, decimal or duration column', what);
      if (t.kind === 'duration') return t;
      if (t.kind === 'decimal') return fn === 'sum' ? { kind: 'decimal', precision: 38, scale: t.scale } : FLOAT64;
      if (fn === 'avg' || t.kind === 'float') return FLOAT64;
      return t.kind === 'int' && t.bits === 64 && !t.signed ? UINT64 : INT64;
    case 'stddev':
    case 'variance':
    case 'stddevPop':
    case 'varPop':
      if (!isSummable(t) || t.kind === 'duration') measureTypeError(fn, m, 'an integer, float32, float64 or decimal column', what);
      return FLOAT64;
    case 'min':
    case 'max':
      if (!isOrderable(t)) measureTypeError(fn, m, 'a numeric (not float16), temporal, bool, string, binary or decimal column', what);
      return t;
    default:
      // first / last / nthValue / lag / lead: any type
      return t;
  }
}

/**
 * Validates one `df.window(...)` call against the input schema and resolves it to plain data.
 * Throws PlanError (UNKNOWN_COLUMN, FRAME_START_AFTER_END, RANGE_ORDER_KEYS, RANGE_KEY_TYPE,
 * CALENDAR_UNIT, FRAME_WITHOUT_ORDER, FRAME_NOT_ALLOWED, MEASURE_TYPE, NAME_CLASH,
 * INVALID_OFFSET, INVALID_WINDOW_FN, INVALID_OPTION, BAD_OPTION, ORDER_KEY_TYPE,
 * PARTITION_KEY_TYPE, NO_WINDOW_COLUMNS).
 */
export function resolveWindow(options: WindowOptions, schema: FieldDesc[]): ResolvedWindow {
  if (!options || typeof options !== 'object') {
    throw new PlanError('INVALID_OPTION', `window: expected an options object { partitionBy?, orderBy, columns }, got ${safeJson(options)}`, {});
  }
  // Partition keys
  const pb = options.partitionBy === undefined || options.partitionBy === null ? [] : Array.isArray(options.partitionBy) ? options.partitionBy : [options.partitionBy];
  const partitionBy = pb.map((c) => {
    const ref = findColumn(schema, c, 'partitionBy');
    if (!isOrderable(ref.type)) {
      throw new PlanError('PARTITION_KEY_TYPE', `window partitionBy: column ${show(ref.column)} has type ${typeToString(ref.type)}, which cannot be a partition key; expected a primitive type`, {
        column: ref.column,
      });
    }
    return ref;
  });

  // Order keys
  const obRaw = options.orderBy;
  const ob: unknown[] = obRaw === undefined || obRaw === null ? [] : Array.isArray(obRaw) ? obRaw : [obRaw];
  const orderBy: ResolvedOrderKey[] = ob.map((o) => {
    const entry = typeof o === 'string' ? { column: o } : (o as { column?: unknown; descending?: unknown; nulls?: unknown });
    if (!entry || typeof entry !== 'object') {
      throw new PlanError('INVALID_OPTION', `window orderBy: expected a column name or { column, descending?, nulls? }, got ${safeJson(o)}`, {});
    }
    const ref = findColumn(schema, entry.column, 'orderBy');
    if (entry.descending !== undefined && typeof entry.descending !== 'boolean') {
      throw new PlanError('INVALID_OPTION', `window orderBy ${show(ref.column)}: descending must be a boolean, got ${safeJson(entry.descending)}`, {
        column: ref.column,
      });
    }
    if (entry.nulls !== undefined && entry.nulls !== 'first' && entry.nulls !== 'last') {
      throw new PlanError('INVALID_OPTION', `window orderBy ${show(ref.column)}: nulls must be 'first' or 'last', got ${safeJson(entry.nulls)}`, {
        column: ref.column,
      });
    }
    if (!isOrderable(ref.type)) {
      throw new PlanError('ORDER_KEY_TYPE', `window orderBy: column ${show(ref.column)} has type ${typeToString(ref.type)}, which cannot be ordered`, {
        column: ref.column,
      });
    }
    const descending = entry.descending === true;
    const nulls = (entry.nulls as 'first' | 'last' | undefined) ?? (descending ? 'last' : 'first');
    return { ...ref, descending, nulls };
  });

  // Columns
  const cols = options.columns;
  if (!cols || typeof cols !== 'object' || Array.isArray(cols)) {
    throw new PlanError('INVALID_OPTION', `window: columns must be an object { name: sum('x').rows(6), ... }, got ${safeJson(cols)}`, {});
  }
  const entries = Object.entries(cols);
  if (entries.length === 0) throw new PlanError('NO_WINDOW_COLUMNS', 'window: columns is empty; give at least one output column', {});

  const measures: ResolvedColumnRef[] = [];
  const columns: ResolvedWindowColumn[] = [];
  for (const [name, raw] of entries) {
    const what = `window column ${show(name)}`;
    if (schema.some((f) => f.name === name)) {
      throw new PlanError('NAME_CLASH', `${what}: the name is already an input column; choose another output name`, { column: name });
    }
    const spec = normalizeFnSpec(raw, what);
    let measureRef: ResolvedColumnRef | null = null;
    let measure = -1;
    if (spec.column !== null) {
      measureRef = findColumn(schema, spec.column, `column ${show(name)} measure`);
      measure = measures.findIndex((m) => m.column === measureRef!.column);
      if (measure < 0) {
        measure = measures.length;
        measures.push(measureRef);
      }
    }
    const type = outputType(spec.fn, measureRef, what);
    const cls = FN_CLASS[spec.fn];
    const frame = takesFrame(spec.fn) ? resolveFrame(spec.frame, orderBy, what) : null;
    const minPeriods = spec.minPeriods ?? 0;
    columns.push({
      name,
      fn: spec.fn,
      measure,
      frame,
      type,
      nullable: outputNullable(spec.fn, frame, measureRef, minPeriods),
      frameText: cls === 'ranking' || cls === 'offset' ? 'over the partition order' : describeFrame(spec.frame),
      minPeriods,
      ignoreNulls: spec.ignoreNulls === true,
      n: resolvedN(spec),
      default: cls === 'offset' && spec.default !== undefined ? resolveLiteral(spec.default, measureRef!.type, `${what}: ${spec.fn}() default`) : null,
    });
  }

  const outputSchema: FieldDesc[] = [...schema.map((f) => ({ ...f })), ...columns.map((c) => ({ name: c.name, type: c.type, nullable: c.nullable }))];
  return { partitionBy, orderBy, measures, columns, outputSchema };
}

function resolvedN(spec: WindowFnSpec): number {
  const clamp = (v: bigint): number => Number(v > COUNT_LIMIT ? COUNT_LIMIT : v < -COUNT_LIMIT ? -COUNT_LIMIT : v);
  switch (spec.fn) {
    case 'lag':
      return clamp(BigInt(spec.n ?? '1'));
    case 'lead':
      return clamp(-BigInt(spec.n ?? '1'));
    case 'nthValue':
    case 'ntile':
      return clamp(BigInt(spec.n!));
    default:
      return 0;
  }
}

function outputNullable(fn: WindowFnName, frame: ResolvedFrame | null, measure: ResolvedColumnRef | null, minPeriods: number): boolean {
  switch (FN_CLASS[fn]) {
    case 'ranking':
      return false;
    case 'offset':
      return true;
    default:
      break;
  }
  if (fn === 'count' || fn === 'countDistinct') return minPeriods > 0;
  if (fn === 'stddev' || fn === 'variance' || fn === 'nthValue') return true;
  const f = frame!;
  const containsCurrent = offsetSign(f.preceding) >= 0 && offsetSign(f.following) >= 0;
  return !containsCurrent || (measure?.nullable ?? true) || minPeriods > 1;
}

function resolveFrame(spec: FrameSpec | null, orderBy: ResolvedOrderKey[], what: string): ResolvedFrame {
  const ZERO: ResolvedOffset = { int: '0' };
  if (spec === null) {
    // SQL default: RANGE UNBOUNDED PRECEDING .. CURRENT ROW (peers); whole partition without ORDER BY.
    return { mode: 'peers', preceding: null, following: ZERO };
  }
  const { preceding: p, following: f } = spec;
  const text = describeFrame(spec);
  const peersOnly = (p.kind === 'unbounded' || offsetIsZero(p)) && (f.kind === 'unbounded' || offsetIsZero(f));
  if (spec.mode === 'rows' || (spec.mode === 'groups' && !peersOnly)) {
    if (orderBy.length === 0 && (p.kind !== 'unbounded' || f.kind !== 'unbounded')) {
      throw new PlanError(
        'FRAME_WITHOUT_ORDER',
        `${what}: the bounded frame ${text} needs orderBy (without it, only ${spec.mode}('unbounded', 'unbounded') is allowed)`,
        {},
      );
    }
    const frame: ResolvedFrame = { mode: spec.mode, preceding: resolveOffset(p, spec.mode, null, what), following: resolveOffset(f, spec.mode, null, what) };
    checkResolvedOrder(frame, spec, what);
    return frame;
  }
  // RANGE, or GROUPS of whole peer groups
  if (peersOnly) {
    return { mode: 'peers', preceding: p.kind === 'unbounded' ? null : ZERO, following: f.kind === 'unbounded' ? null : ZERO };
  }
  if (orderBy.length === 0) {
    throw new PlanError('FRAME_WITHOUT_ORDER', `${what}: the bounded frame ${text} needs orderBy with one numeric or temporal key`, {});
  }
  if (orderBy.length !== 1) {
    throw new PlanError(
      'RANGE_ORDER_KEYS',
      `${what}: a RANGE frame with an offset (${text}) needs exactly one order key, got ${orderBy.length}: ${orderBy.map((o) => o.column).join(', ')}`,
      {},
    );
  }
  const key = orderBy[0]!;
  if (!isRangeKey(key.type)) {
    throw new PlanError(
      'RANGE_KEY_TYPE',
      `${what}: a RANGE frame with an offset (${text}) needs a numeric, decimal or temporal order key, but ${show(key.column)} is ${typeToString(key.type)}`,
      { column: key.column },
    );
  }
  const frame: ResolvedFrame = { mode: 'range', preceding: resolveOffset(p, 'range', key, what), following: resolveOffset(f, 'range', key, what) };
  checkResolvedOrder(frame, spec, what);
  return frame;
}

function checkResolvedOrder(frame: ResolvedFrame, spec: FrameSpec, what: string): void {
  const p = frame.preceding;
  const f = frame.following;
  if (p === null || f === null) return;
  let after: boolean;
  if ('int' in p && 'int' in f) after = -BigInt(p.int) > BigInt(f.int);
  else after = -toNum(p) > toNum(f);
  if (after) throw startAfterEndError(spec, what);
}

function toNum(o: ResolvedOffset): number {
  return 'int' in o ? Number(BigInt(o.int)) : o.float;
}
