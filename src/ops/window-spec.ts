/**
 * Window plan resolution: `df.window({ partitionBy, orderBy, columns })` → `ResolvedWindow`.
 *
 * Steps: (1) parse each column's function spec (shape, offsets, units) → (2) resolve partition
 * and order columns against the schema, normalising orderBy to {column, descending, nulls}
 * (ASC NULLS FIRST, DESC NULLS LAST by default) → (3) per output column check the measure type,
 * compute the output type and resolve the frame: ROWS offsets saturate to ±(2^63-1); RANGE
 * offsets become exact integers in the order key's unit (date32 days, date64 ms, timestamp
 * unit) or float64 numbers for float keys → (4) check frame start ≤ end and name clashes.
 * Every failure is a PlanError raised before any row is read. The result is plain data
 * (no bigint, no class instance): it survives structured clone and JSON.
 */
import { PlanError, show } from '../errors.js';
import { isNumeric, typeToString, type FieldDesc, type TypeDesc } from '../types/column.js';

// ---------------------------------------------------------------------------------------------
// Function specs (built by src/expr/aggregates.ts, or written by hand / read from a job file)
// ---------------------------------------------------------------------------------------------

export type WindowFnName = 'sum' | 'count' | 'avg' | 'min' | 'max' | GroupOnlyFnName;
/** Builders that exist for groupBy().agg() but are not window functions on this branch yet. */
export type GroupOnlyFnName = 'first' | 'last' | 'countDistinct';
export type DurationUnit = 'ns' | 'us' | 'ms' | 's' | 'm' | 'h' | 'd' | 'w';

/** A frame offset as given by the user, in plain data. */
export type OffsetSpec =
  | { kind: 'unbounded' }
  /** An exact integer (from a bigint or an integral number), as a decimal string. */
  | { kind: 'int'; value: string }
  /** A finite non-integral number (RANGE over float keys only). */
  | { kind: 'number'; value: number }
  /** A duration: integer `value` (decimal string, may be negative) of `unit`. */
  | { kind: 'duration'; value: string; unit: DurationUnit; text: string };

export interface FrameSpec {
  mode: 'rows' | 'range';
  /** start = current - preceding ('unbounded' = UNBOUNDED PRECEDING). */
  preceding: OffsetSpec;
  /** end = current + following ('unbounded' = UNBOUNDED FOLLOWING). */
  following: OffsetSpec;
}

export interface WindowFnSpec {
  fn: WindowFnName;
  /** Measure column; null only for `count()` (counts rows). */
  column: string | null;
  /** null = SQL's default frame. */
  frame: FrameSpec | null;
}

export type OffsetInput = number | bigint | string;

const FN_NAMES: readonly WindowFnName[] = ['sum', 'count', 'avg', 'min', 'max'] satisfies Array<Exclude<WindowFnName, GroupOnlyFnName>>;
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
const CALENDAR_RE = /^\s*[+-]?\d*(\.\d+)?\s*(mo|mon|mons|month|months|y|yr|yrs|year|years|M|Y)\s*$/;

/**
 * Parses one offset argument of `.rows()` / `.range()` (or of a hand-written spec) into an
 * OffsetSpec. ROWS offsets must be integers and saturate to ±(2^63-1).
 */
export function parseOffset(value: unknown, mode: 'rows' | 'range', what: string): OffsetSpec {
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
    if (mode === 'rows') {
      throw new PlanError('INVALID_OFFSET', `${what}: ROWS offsets must be integers, got ${show(value)}`, { value });
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
    const m = DURATION_RE.exec(value);
    if (!m) {
      throw new PlanError(
        'INVALID_OFFSET',
        `${what}: expected a number, a bigint, 'unbounded' or a duration such as '250ms', '5s', '2m', '1h', '3d', '1w', got ${show(value)}`,
        { value },
      );
    }
    if (mode === 'rows') {
      throw new PlanError('INVALID_OFFSET', `${what}: ROWS offsets count rows and take integers, not the duration ${show(value)}`, {
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

function intOffset(v: bigint, mode: 'rows' | 'range'): OffsetSpec {
  if (mode === 'rows') {
    if (v > INT64_MAX) v = INT64_MAX;
    if (v < -INT64_MAX) v = -INT64_MAX;
  }
  return { kind: 'int', value: v.toString() };
}

/** Validates a (possibly hand-written) offset spec; returns a normalised copy. */
function checkOffsetSpec(o: unknown, mode: 'rows' | 'range', what: string): OffsetSpec {
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
  }
  throw new PlanError('INVALID_OFFSET', `${what}: malformed offset ${safeJson(o)}`, {});
}

/** Offset value comparable across kinds when no key unit is needed (for early start>end checks). */
function comparableNs(o: OffsetSpec): { v: bigint | number; family: 'plain' | 'duration' } | null {
  if (o.kind === 'int') return { v: BigInt(o.value), family: 'plain' };
  if (o.kind === 'number') return { v: o.value, family: 'plain' };
  if (o.kind === 'duration') return { v: BigInt(o.value) * UNIT_NS[o.unit], family: 'duration' };
  return null;
}

/** Throws FRAME_START_AFTER_END when current - preceding > current + following is certain. */
export function checkFrameOrder(frame: FrameSpec, what: string): void {
  const p = comparableNs(frame.preceding);
  const f = comparableNs(frame.following);
  if (!p || !f || p.family !== f.family) return;
  const startAfterEnd = typeof p.v === 'bigint' && typeof f.v === 'bigint' ? -p.v > f.v : -Number(p.v) > Number(f.v);
  if (startAfterEnd) {
    throw new PlanError(
      'FRAME_START_AFTER_END',
      `${what}: the frame starts after it ends (${describeFrame(frame)}): start = current - ${describeOffset(frame.preceding)}, end = current + ${describeOffset(frame.following)}`,
      {},
    );
  }
}

/** Validates and normalises a function spec (from a WindowFn or written by hand). */
export function normalizeFnSpec(raw: unknown, what: string): WindowFnSpec {
  let spec = raw as { spec?: unknown };
  if (spec && typeof spec === 'object' && 'spec' in spec && spec.spec && typeof spec.spec === 'object') spec = spec.spec as typeof spec;
  const s = spec as { fn?: unknown; column?: unknown; frame?: unknown };
  if (!s || typeof s !== 'object' || !FN_NAMES.includes(s.fn as WindowFnName)) {
    throw new PlanError(
      'INVALID_WINDOW_FN',
      `${what}: expected a window function built with sum/count/avg/min/max (e.g. sum('x').rows(6)), got ${safeJson(raw)}`,
      {},
    );
  }
  const fn = s.fn as WindowFnName;
  const column = s.column ?? null;
  if (column !== null && typeof column !== 'string') {
    throw new PlanError('INVALID_WINDOW_FN', `${what}: the measure column must be a column name, got ${safeJson(column)}`, {});
  }
  if (column === null && fn !== 'count') {
    throw new PlanError('INVALID_WINDOW_FN', `${what}: ${fn}() needs a measure column (only count() may omit it)`, {});
  }
  let frame: FrameSpec | null = null;
  if (s.frame !== null && s.frame !== undefined) {
    const fr = s.frame as { mode?: unknown; preceding?: unknown; following?: unknown };
    if (typeof fr !== 'object' || (fr.mode !== 'rows' && fr.mode !== 'range')) {
      throw new PlanError('INVALID_WINDOW_FN', `${what}: malformed frame ${safeJson(s.frame)}; expected mode 'rows' or 'range'`, {});
    }
    const mode = fr.mode;
    frame = {
      mode,
      preceding: checkOffsetSpec(fr.preceding, mode, `${what}: frame start`),
      following: checkOffsetSpec(fr.following ?? { kind: 'int', value: '0' }, mode, `${what}: frame end`),
    };
    checkFrameOrder(frame, what);
  }
  return { fn, column: column as string | null, frame };
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
  }
}

export function describeFrame(frame: FrameSpec | null): string {
  if (!frame) return 'default frame';
  const side = (o: OffsetSpec, start: boolean): string => {
    if (o.kind === 'unbounded') return start ? 'UNBOUNDED PRECEDING' : 'UNBOUNDED FOLLOWING';
    let text = describeOffset(o);
    let neg = text.startsWith('-');
    if (neg) text = text.slice(1);
    if (/^0+([a-z]*)$/.test(text)) return 'CURRENT ROW';
    // start = current - preceding: a positive preceding is PRECEDING; end = current + following.
    if (!start) neg = !neg;
    return `${text} ${neg ? 'FOLLOWING' : 'PRECEDING'}`;
  };
  return `${frame.mode.toUpperCase()} BETWEEN ${side(frame.preceding, true)} AND ${side(frame.following, false)}`;
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
 * An offset after resolution: `int` is an exact integer (decimal string) in rows (ROWS) or in
 * the order key's unit (RANGE over int/temporal keys); `float` is for RANGE over float keys.
 */
export type ResolvedOffset = { int: string } | { float: number };

export interface ResolvedFrame {
  /**
   * 'rows': physical offsets; 'range': offsets on the single order key; 'peers': a RANGE frame
   * whose bounds are only CURRENT ROW / UNBOUNDED, i.e. peer groups over all order keys (the
   * whole partition when there is no order key).
   */
  mode: 'rows' | 'range' | 'peers';
  /** start = current - preceding (in order direction); null = UNBOUNDED PRECEDING. */
  preceding: ResolvedOffset | null;
  /** end = current + following; null = UNBOUNDED FOLLOWING. */
  following: ResolvedOffset | null;
}

export interface ResolvedWindowColumn {
  name: string;
  fn: WindowFnName;
  /** Index into ResolvedWindow.measures; -1 for count() of rows. */
  measure: number;
  frame: ResolvedFrame;
  /** Output type: int64 / uint64 / float64, or the input type for min/max. */
  type: TypeDesc;
  nullable: boolean;
  /** Human text of the frame, for explain(). */
  frameText: string;
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
}

const INT64: TypeDesc = { kind: 'int', bits: 64, signed: true };
const UINT64: TypeDesc = { kind: 'int', bits: 64, signed: false };
const FLOAT64: TypeDesc = { kind: 'float', bits: 64 };

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
      return true;
    case 'float':
      return t.bits !== 16;
    default:
      return false;
  }
}

function isRangeKey(t: TypeDesc): boolean {
  return t.kind === 'int' || (t.kind === 'float' && t.bits !== 16) || t.kind === 'date' || t.kind === 'timestamp' || t.kind === 'duration';
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

function resolveOffset(
  o: OffsetSpec,
  mode: 'rows' | 'range',
  key: ResolvedOrderKey | null,
  what: string,
): ResolvedOffset | null {
  if (o.kind === 'unbounded') return null;
  if (mode === 'rows') {
    if (o.kind !== 'int') throw new PlanError('INVALID_OFFSET', `${what}: ROWS offsets must be integers, got ${describeOffset(o)}`, {});
    return { int: o.value };
  }
  // RANGE with an offset: the key exists here (checked by the caller).
  const k = key!;
  const t = k.type;
  const keyText = `order key ${show(k.column)} (${typeToString(t)})`;
  if (t.kind === 'float') {
    if (o.kind === 'duration') {
      throw new PlanError('INVALID_OFFSET', `${what}: duration ${show(o.text)} needs a temporal order key, but ${keyText} is numeric; give a number`, {
        column: k.column,
      });
    }
    return { float: o.kind === 'number' ? o.value : Number(BigInt(o.value)) };
  }
  const unit = keyUnitNs(t);
  if (o.kind === 'number') {
    throw new PlanError(
      'INVALID_OFFSET',
      `${what}: ${keyText} takes integer offsets${unit ? ` (in ${unit.name}) or durations` : ''}, got the non-integer ${o.value}`,
      { column: k.column },
    );
  }
  if (o.kind === 'int') return { int: o.value };
  if (!unit) {
    throw new PlanError('INVALID_OFFSET', `${what}: duration ${show(o.text)} needs a temporal order key, but ${keyText} is numeric; give a number`, {
      column: k.column,
    });
  }
  const ns = BigInt(o.value) * UNIT_NS[o.unit];
  if (ns % unit.ns !== 0n) {
    throw new PlanError('INVALID_OFFSET', `${what}: duration ${show(o.text)} is not a whole number of ${unit.name}, the unit of ${keyText}`, {
      column: k.column,
    });
  }
  return { int: (ns / unit.ns).toString() };
}

function offsetIsZero(o: OffsetSpec): boolean {
  return (o.kind === 'int' && BigInt(o.value) === 0n) || (o.kind === 'duration' && BigInt(o.value) === 0n);
}

function offsetSign(o: ResolvedOffset | null): number {
  if (o === null) return 1;
  if ('int' in o) {
    const v = BigInt(o.int);
    return v > 0n ? 1 : v < 0n ? -1 : 0;
  }
  return Math.sign(o.float);
}

function outputType(fn: WindowFnName, measure: ResolvedColumnRef | null, what: string): TypeDesc {
  if (fn === 'count') return INT64;
  const m = measure!;
  const t = m.type;
  const bad = (expected: string): never => {
    throw new PlanError('MEASURE_TYPE', `${what}: ${fn}(${show(m.column)}) needs ${expected}, but ${show(m.column)} is ${typeToString(t)}`, {
      column: m.column,
    });
  };
  if (fn === 'sum' || fn === 'avg') {
    if (!isNumeric(t) || (t.kind === 'float' && t.bits === 16)) bad('an integer, float32 or float64 column');
    if (fn === 'avg') return FLOAT64;
    if (t.kind === 'float') return FLOAT64;
    return t.kind === 'int' && t.bits === 64 && !t.signed ? UINT64 : INT64;
  }
  // min / max
  const ok = t.kind === 'int' || t.kind === 'bool' || t.kind === 'date' || t.kind === 'timestamp' || t.kind === 'duration' || (t.kind === 'float' && t.bits !== 16);
  if (!ok) bad('a numeric (not float16), temporal or bool column');
  return t;
}

/**
 * Validates one `df.window(...)` call against the input schema and resolves it to plain data.
 * Throws PlanError (UNKNOWN_COLUMN, FRAME_START_AFTER_END, RANGE_ORDER_KEYS, RANGE_KEY_TYPE,
 * CALENDAR_UNIT, FRAME_WITHOUT_ORDER, MEASURE_TYPE, NAME_CLASH, INVALID_OFFSET,
 * INVALID_WINDOW_FN, INVALID_OPTION, ORDER_KEY_TYPE, PARTITION_KEY_TYPE, NO_WINDOW_COLUMNS).
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
    const frame = resolveFrame(spec.frame, orderBy, what);
    const containsCurrent = offsetSign(frame.preceding) >= 0 && offsetSign(frame.following) >= 0;
    const nullable = spec.fn === 'count' ? false : !containsCurrent || (measureRef?.nullable ?? true);
    columns.push({ name, fn: spec.fn, measure, frame, type, nullable, frameText: describeFrame(spec.frame) });
  }

  const outputSchema: FieldDesc[] = [...schema.map((f) => ({ ...f })), ...columns.map((c) => ({ name: c.name, type: c.type, nullable: c.nullable }))];
  return { partitionBy, orderBy, measures, columns, outputSchema };
}

function resolveFrame(spec: FrameSpec | null, orderBy: ResolvedOrderKey[], what: string): ResolvedFrame {
  const ZERO: ResolvedOffset = { int: '0' };
  if (spec === null) {
    // SQL default: RANGE UNBOUNDED PRECEDING .. CURRENT ROW (peers); whole partition without ORDER BY.
    return { mode: 'peers', preceding: null, following: ZERO };
  }
  const { preceding: p, following: f } = spec;
  const text = describeFrame(spec);
  if (spec.mode === 'rows') {
    if (orderBy.length === 0 && (p.kind !== 'unbounded' || f.kind !== 'unbounded')) {
      throw new PlanError(
        'FRAME_WITHOUT_ORDER',
        `${what}: the bounded frame ${text} needs orderBy (without it, only rows('unbounded', 'unbounded') is allowed)`,
        {},
      );
    }
    const frame: ResolvedFrame = { mode: 'rows', preceding: resolveOffset(p, 'rows', null, what), following: resolveOffset(f, 'rows', null, what) };
    checkResolvedOrder(frame, text, what);
    return frame;
  }
  // RANGE
  const peersOnly = (p.kind === 'unbounded' || offsetIsZero(p)) && (f.kind === 'unbounded' || offsetIsZero(f));
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
      `${what}: a RANGE frame with an offset (${text}) needs a numeric or temporal order key, but ${show(key.column)} is ${typeToString(key.type)}`,
      { column: key.column },
    );
  }
  const frame: ResolvedFrame = { mode: 'range', preceding: resolveOffset(p, 'range', key, what), following: resolveOffset(f, 'range', key, what) };
  checkResolvedOrder(frame, text, what);
  return frame;
}

function checkResolvedOrder(frame: ResolvedFrame, text: string, what: string): void {
  const p = frame.preceding;
  const f = frame.following;
  if (p === null || f === null) return;
  let after: boolean;
  if ('int' in p && 'int' in f) after = -BigInt(p.int) > BigInt(f.int);
  else after = -toNum(p) > toNum(f);
  if (after) {
    throw new PlanError(
      'FRAME_START_AFTER_END',
      `${what}: the frame starts after it ends (${text}): start = current - ${'int' in p ? p.int : p.float}, end = current + ${'int' in f ? f.int : f.float}`,
      {},
    );
  }
}

function toNum(o: ResolvedOffset): number {
  return 'int' in o ? Number(BigInt(o.int)) : o.float;
}
