/**
 * Naive, row-at-a-time reference of the whole window contract (API.md "window"), written from
 * API.md alone: it imports no engine code (only the plain type descriptions of src/types), and
 * it reads the user's raw arguments (RefFn, built alongside the engine's WindowFn by
 * test/support/window-fns.ts), so a bug in the engine's frame resolution (units, defaults,
 * saturation, peer groups) shows up as a difference.
 *
 * Values are plain JS: int8..int32/uint8..uint32/float/date32 numbers; int64/uint64/date64/
 * timestamp/duration bigint (numbers accepted); decimal128 the unscaled bigint (value =
 * unscaled / 10^scale); strings strings; binary Uint8Array; bool boolean; NULL null/undefined.
 *
 * Semantics implemented:
 * - partitions: equal partition-key tuples (NULL one partition, -0 = 0, NaN = NaN); each sorted
 *   stably by the order keys (ASC NULLS FIRST, DESC NULLS LAST by default; NaN above every
 *   number, -0 = +0; strings by code point = UTF-8 bytes; binary by bytes; decimals by value).
 * - frames: default = RANGE UNBOUNDED PRECEDING .. CURRENT ROW with peers (the whole partition
 *   without orderBy). ROWS(p, f): rows i-p..i+f, offsets saturated to ±(2^63-1). GROUPS(p, f):
 *   the peer groups g-p..g+f. RANGE(p, f) over one numeric/temporal/decimal key: keys in
 *   [k - p, k + f] (ASC) or [k - f, k + p] (DESC), exact (BigInt; durations as nanoseconds; decimal
 *   offsets as exact decimals), float keys with float64 arithmetic; NULL and NaN keys are their own
 *   peer group and are reached by other rows only through an unbounded side. Bounds that are only
 *   CURRENT ROW / UNBOUNDED make a RANGE or GROUPS frame of peer groups (any keys).
 * - functions: as listed in API.md; each frame is folded from scratch: integer sums in exact
 *   BigInt then wrapped to 64 bits; decimal sums exact (NULL beyond 38 digits); int and
 *   decimal avg and every integer/decimal variance = the correctly rounded exact rational (own
 *   BigInt rounding); duration avg = exact mean rounded half to even;
 *   float sums/avg/variances are checked against exact rationals within error bounds.
 * - plan errors: refPlanErrors() gives the PlanError code the contract demands for a call (or
 *   null); the differential tests demand the engine throw exactly when the reference does.
 */
import type { FieldDesc, TypeDesc } from '../../src/types/column.js';

export type RefValue = number | bigint | string | boolean | Uint8Array | null;
export type RefRow = Record<string, RefValue | undefined>;
export type RefOut = RefValue;
export type RefOffset = number | bigint | string;

export interface RefFn {
  fn: string;
  column?: string;
  frame?: { mode: 'rows' | 'range' | 'groups'; preceding: RefOffset; following: RefOffset };
  n?: number | bigint;
  default?: unknown;
  ignoreNulls?: boolean;
  minPeriods?: number;
}

export type RefOrderKeyInput = string | { column: string; descending?: boolean; nulls?: 'first' | 'last' };

export interface RefWindowOptions {
  partitionBy?: string | string[];
  orderBy?: RefOrderKeyInput | RefOrderKeyInput[];
  columns: Record<string, RefFn>;
}

export class RefPlanError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(`${code}: ${message}`);
  }
}

const INT64_MAX = (1n << 63n) - 1n;
const RANKING = new Set(['rowNumber', 'rank', 'denseRank', 'percentRank', 'cumeDist', 'ntile']);
const OFFSET_FNS = new Set(['lag', 'lead']);
const VALUE_FNS = new Set(['first', 'last', 'nthValue']);
const AGGREGATES = new Set(['sum', 'count', 'avg', 'min', 'max', 'stddev', 'variance', 'stddevPop', 'varPop', 'countDistinct']);
const VARIANCES = new Set(['stddev', 'variance', 'stddevPop', 'varPop']);

// ------------------------------------------------------------------------------------------
// Ordering
// ------------------------------------------------------------------------------------------

function cmpStrings(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const ca = a.codePointAt(i)!;
    const cb = b.codePointAt(j)!;
    if (ca !== cb) return ca < cb ? -1 : 1;
    i += ca > 0xffff ? 2 : 1;
    j += cb > 0xffff ? 2 : 1;
  }
  return i < a.length ? 1 : j < b.length ? -1 : 0;
}

function cmpBytes(a: Uint8Array, b: Uint8Array): number {
  const m = Math.min(a.length, b.length);
  for (let k = 0; k < m; k++) if (a[k] !== b[k]) return a[k]! < b[k]! ? -1 : 1;
  return a.length - b.length;
}

/** Comparison of two non-NULL values of one column: NaN above every number, -0 = +0. */
export function cmpValues(a: RefValue, b: RefValue): number {
  if (typeof a === 'string' && typeof b === 'string') return cmpStrings(a, b);
  if (a instanceof Uint8Array && b instanceof Uint8Array) return cmpBytes(a, b);
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b ? 0 : a ? 1 : -1;
  if (typeof a === 'bigint' || typeof b === 'bigint') {
    const x = BigInt(a as bigint | number);
    const y = BigInt(b as bigint | number);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  const x = a as number;
  const y = b as number;
  if (Number.isNaN(x)) return Number.isNaN(y) ? 0 : 1;
  if (Number.isNaN(y)) return -1;
  return x < y ? -1 : x > y ? 1 : 0;
}

interface OrderKey {
  column: string;
  descending: boolean;
  nulls: 'first' | 'last';
  type: TypeDesc;
}

function cmpKey(a: RefValue, b: RefValue, k: OrderKey): number {
  if (a === null || b === null) {
    if (a === null && b === null) return 0;
    const first = k.nulls === 'first';
    return a === null ? (first ? -1 : 1) : first ? 1 : -1;
  }
  const c = cmpValues(a, b);
  return k.descending ? -c : c;
}

function identity(v: RefValue): string {
  if (v === null) return 'null';
  if (v instanceof Uint8Array) return `bytes:${Buffer.from(v).toString('hex')}`;
  if (typeof v === 'number') return Number.isNaN(v) ? 'nan' : v === 0 ? 'n:0' : `n:${v}`;
  if (typeof v === 'bigint') return `n:${v}`;
  return `${typeof v}:${String(v)}`;
}

const get = (row: RefRow, c: string): RefValue => row[c] ?? null;

// ------------------------------------------------------------------------------------------
// Plan checks (what must be a PlanError, from API.md)
// ------------------------------------------------------------------------------------------

function typeOf(schema: FieldDesc[], name: string, role: string): TypeDesc {
  const f = schema.find((x) => x.name === name);
  if (!f) throw new RefPlanError('UNKNOWN_COLUMN', `${role} ${name}`);
  return f.type;
}

function isPrimitive(t: TypeDesc): boolean {
  return ['int', 'bool', 'utf8', 'largeUtf8', 'binary', 'largeBinary', 'date', 'timestamp', 'duration', 'decimal', 'null'].includes(t.kind) || (t.kind === 'float' && t.bits !== 16);
}
function isNumeric(t: TypeDesc): boolean {
  return t.kind === 'int' || (t.kind === 'float' && t.bits !== 16) || t.kind === 'decimal';
}
function isRangeKey(t: TypeDesc): boolean {
  return isNumeric(t) || t.kind === 'date' || t.kind === 'timestamp' || t.kind === 'duration';
}

function orderKeysOf(o: RefWindowOptions, schema: FieldDesc[]): OrderKey[] {
  const raw = o.orderBy === undefined ? [] : Array.isArray(o.orderBy) ? o.orderBy : [o.orderBy];
  return raw.map((x) => {
    const e = typeof x === 'string' ? { column: x } : x;
    const type = typeOf(schema, e.column, 'orderBy');
    if (!isPrimitive(type)) throw new RefPlanError('ORDER_KEY_TYPE', e.column);
    const descending = e.descending === true;
    return { column: e.column, descending, nulls: e.nulls ?? (descending ? 'last' : 'first'), type };
  });
}

function partitionKeysOf(o: RefWindowOptions, schema: FieldDesc[]): string[] {
  const raw = o.partitionBy === undefined ? [] : Array.isArray(o.partitionBy) ? o.partitionBy : [o.partitionBy];
  for (const c of raw) if (!isPrimitive(typeOf(schema, c, 'partitionBy'))) throw new RefPlanError('PARTITION_KEY_TYPE', c);
  return raw;
}

const NS: Record<string, bigint> = { ns: 1n, us: 1000n, µs: 1000n, ms: 1_000_000n, s: 1_000_000_000n, m: 60_000_000_000n, h: 3_600_000_000_000n, d: 86_400_000_000_000n, w: 604_800_000_000_000n };

/** A parsed offset: unbounded, an exact rational num/den, a float, or a duration in ns. */
type Off = { u: true } | { u: false; kind: 'exact'; num: bigint; den: bigint } | { u: false; kind: 'float'; x: number } | { u: false; kind: 'duration'; ns: bigint };

function parseOff(v: RefOffset, mode: string): Off {
  if (typeof v === 'string' && v.trim().toLowerCase() === 'unbounded') return { u: true };
  if (typeof v === 'bigint') return { u: false, kind: 'exact', num: v, den: 1n };
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new RefPlanError('INVALID_OFFSET', String(v));
    if (Number.isInteger(v)) return { u: false, kind: 'exact', num: BigInt(v), den: 1n };
    if (mode !== 'range') throw new RefPlanError('INVALID_OFFSET', String(v));
    return { u: false, kind: 'float', x: v };
  }
  if (typeof v === 'string') {
    const t = v.trim();
    if (/^[+-]?\d*(\.\d+)?\s*(mo|mon|mons|month|months|y|yr|yrs|year|years|M|Y)$/.test(t)) throw new RefPlanError('CALENDAR_UNIT', v);
    let m = /^([+-]?)(\d+)(?:\.(\d*))?$/.exec(t) ?? /^([+-]?)()\.(\d+)$/.exec(t);
    if (m) {
      const frac = m[3] ?? '';
      if (frac !== '' && mode !== 'range') throw new RefPlanError('INVALID_OFFSET', v);
      const num = BigInt(`${m[2] || '0'}${frac}`) * (m[1] === '-' ? -1n : 1n);
      return { u: false, kind: 'exact', num, den: 10n ** BigInt(frac.length) };
    }
    m = /^([+-]?)(\d+)\s*(ns|us|µs|ms|s|m|h|d|w)$/.exec(t);
    if (!m) throw new RefPlanError('INVALID_OFFSET', v);
    if (mode !== 'range') throw new RefPlanError('INVALID_OFFSET', v);
    return { u: false, kind: 'duration', ns: BigInt(m[2]!) * NS[m[3]!]! * (m[1] === '-' ? -1n : 1n) };
  }
  throw new RefPlanError('INVALID_OFFSET', String(v));
}

function isZero(o: Off): boolean {
  return !o.u && (o.kind === 'exact' ? o.num === 0n : o.kind === 'float' ? o.x === 0 : o.ns === 0n);
}

/** Nanoseconds per unit of a temporal key. */
function keyUnitNs(t: TypeDesc): bigint | null {
  if (t.kind === 'date') return t.unit === 'day' ? NS.d! : NS.ms!;
  if (t.kind === 'timestamp' || t.kind === 'duration') return NS[t.unit]!;
  return null;
}

/** A RANGE offset in the key's own value space: exact (rational, key units) or float. */
type KeyOff = { u: true } | { u: false; exact: true; num: bigint; den: bigint } | { u: false; exact: false; x: number };

function toKeyOff(o: Off, t: TypeDesc): KeyOff {
  if (o.u) return o;
  if (t.kind === 'float') {
    if (o.kind === 'duration') throw new RefPlanError('INVALID_OFFSET', 'duration on a numeric key');
    return { u: false, exact: false, x: o.kind === 'float' ? o.x : Number(o.num) / Number(o.den) };
  }
  if (t.kind === 'decimal') {
    if (o.kind === 'duration') throw new RefPlanError('INVALID_OFFSET', 'duration on a numeric key');
    let num: bigint;
    let den: bigint;
    if (o.kind === 'float') {
      const p = parseOff(String(o.x), 'range') as { num: bigint; den: bigint };
      num = p.num;
      den = p.den;
    } else ({ num, den } = o);
    // key units are 10^-scale: the offset must be a whole number of them
    const scaled = num * 10n ** BigInt(t.scale);
    if (scaled % den !== 0n) throw new RefPlanError('INVALID_OFFSET', 'more decimals than the key scale');
    return { u: false, exact: true, num: scaled / den, den: 1n };
  }
  const unit = keyUnitNs(t);
  if (o.kind === 'float' || (o.kind === 'exact' && o.den !== 1n)) throw new RefPlanError('INVALID_OFFSET', 'non-integer offset');
  if (o.kind === 'exact') return { u: false, exact: true, num: o.num, den: 1n };
  if (unit === null) throw new RefPlanError('INVALID_OFFSET', 'duration on a numeric key');
  if (o.ns % unit !== 0n) throw new RefPlanError('INVALID_OFFSET', 'duration not a whole number of key units');
  return { u: false, exact: true, num: o.ns / unit, den: 1n };
}

function sat(v: bigint): bigint {
  return v > INT64_MAX ? INT64_MAX : v < -INT64_MAX ? -INT64_MAX : v;
}

/** A frame ready to evaluate. */
type RefFrame =
  | { mode: 'peers'; pUnb: boolean; fUnb: boolean }
  | { mode: 'rows' | 'groups'; p: bigint | null; f: bigint | null }
  | { mode: 'range'; key: OrderKey; p: KeyOff; f: KeyOff };

function resolveFrame(spec: RefFn, keys: OrderKey[]): RefFrame {
  const fr = spec.frame;
  if (!fr) return { mode: 'peers', pUnb: true, fUnb: false };
  const p = parseOff(fr.preceding, fr.mode);
  const f = parseOff(fr.following, fr.mode);
  if (fr.mode !== 'range') {
    const ps = p.u ? null : sat((p as { num: bigint }).num);
    const fs = f.u ? null : sat((f as { num: bigint }).num);
    if (ps !== null && fs !== null && -ps > fs) throw new RefPlanError('FRAME_START_AFTER_END', 'rows/groups');
    const peersOnly = fr.mode === 'groups' && (ps === null || ps === 0n) && (fs === null || fs === 0n);
    if (keys.length === 0 && !peersOnly && (ps !== null || fs !== null)) throw new RefPlanError('FRAME_WITHOUT_ORDER', 'bounded');
    return { mode: fr.mode, p: ps, f: fs };
  }
  if ((p.u || isZero(p)) && (f.u || isZero(f))) return { mode: 'peers', pUnb: p.u, fUnb: f.u };
  if (keys.length === 0) throw new RefPlanError('FRAME_WITHOUT_ORDER', 'range');
  if (keys.length > 1) throw new RefPlanError('RANGE_ORDER_KEYS', 'range');
  const key = keys[0]!;
  if (!isRangeKey(key.type)) throw new RefPlanError('RANGE_KEY_TYPE', key.column);
  const kp = toKeyOff(p, key.type);
  const kf = toKeyOff(f, key.type);
  if (!kp.u && !kf.u) {
    const after = kp.exact && kf.exact ? -kp.num * kf.den > kf.num * kp.den : -(kp.exact ? Number(kp.num) : kp.x) > (kf.exact ? Number(kf.num) : kf.x);
    if (after) throw new RefPlanError('FRAME_START_AFTER_END', 'range');
  }
  return { mode: 'range', key, p: kp, f: kf };
}

function measureAllowed(fn: string, t: TypeDesc): boolean {
  switch (fn) {
    case 'sum':
    case 'avg':
      return isNumeric(t) || t.kind === 'duration';
    case 'stddev':
    case 'variance':
    case 'stddevPop':
    case 'varPop':
      return isNumeric(t);
    case 'min':
    case 'max':
    case 'countDistinct':
      return isPrimitive(t);
    default:
      return true;
  }
}

const INT_RANGES: Record<number, [bigint, bigint]> = { 8: [-128n, 127n], 16: [-32768n, 32767n], 32: [-(2n ** 31n), 2n ** 31n - 1n], 64: [-(2n ** 63n), 2n ** 63n - 1n] };

/** lag/lead default as a value of the column type (API: a literal of the column's type). */
function defaultValue(d: unknown, t: TypeDesc): RefValue {
  const bad = (): never => {
    throw new RefPlanError('BAD_OPTION', `default ${String(d)} for ${t.kind}`);
  };
  if (d === null || d === undefined) return null;
  const asInt = (): bigint => {
    if (typeof d === 'bigint') return d;
    if (typeof d === 'number' && Number.isSafeInteger(d)) return BigInt(d);
    return bad();
  };
  switch (t.kind) {
    case 'int': {
      const v = asInt();
      const [lo, hi] = t.signed ? INT_RANGES[t.bits]! : [0n, 2n ** BigInt(t.bits) - 1n];
      if (v < lo || v > hi) bad();
      return t.bits === 64 ? v : Number(v);
    }
    case 'float':
      if (typeof d === 'number') return t.bits === 32 ? Math.fround(d) : d;
      if (typeof d === 'bigint') return Number(d);
      return bad();
    case 'bool':
      return typeof d === 'boolean' ? d : bad();
    case 'utf8':
    case 'largeUtf8':
      return typeof d === 'string' ? d : bad();
    case 'binary':
    case 'largeBinary':
      if (d instanceof Uint8Array) return d;
      if (typeof d === 'string') return new TextEncoder().encode(d);
      return bad();
    case 'date':
    case 'timestamp':
    case 'duration': {
      const v = asInt();
      if (t.kind === 'date' && t.unit === 'day') {
        if (v < INT_RANGES[32]![0] || v > INT_RANGES[32]![1]) bad();
        return Number(v);
      }
      if (v < INT_RANGES[64]![0] || v > INT_RANGES[64]![1]) bad();
      return v;
    }
    case 'decimal': {
      let text: string;
      if (typeof d === 'bigint') text = d.toString();
      else if (typeof d === 'number' && Number.isFinite(d)) text = String(d);
      else if (typeof d === 'string') text = d;
      else return bad();
      const m = /^\s*([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?\s*$/.exec(text);
      if (!m || (m[2] === '' && !m[3])) return bad();
      let num = BigInt(`${m[2] || '0'}${m[3] ?? ''}`);
      let exp = Number(m[4] ?? 0) - (m[3]?.length ?? 0) + t.scale;
      if (exp >= 0) num *= 10n ** BigInt(exp);
      else {
        const den = 10n ** BigInt(-exp);
        if (num % den !== 0n) return bad();
        num /= den;
        exp = 0;
      }
      if (m[1] === '-') num = -num;
      const lim = 10n ** BigInt(t.precision);
      if (num >= lim || num <= -lim) bad();
      return num;
    }
    default:
      return bad();
  }
}

interface RefColumn {
  name: string;
  spec: RefFn;
  type: TypeDesc | null;
  frame: RefFrame | null;
  dflt: RefValue;
  back: bigint;
  nth: bigint;
}

/** What the builders reject (before any schema is known): offsets, argument values, modifiers. */
function builderCheck(spec: RefFn): void {
  const fn = spec.fn;
  if ((fn === 'nthValue' || fn === 'ntile') && BigInt(spec.n ?? 0) < 1n) throw new RefPlanError('BAD_OPTION', `${fn} n`);
  if (spec.frame) {
    const { mode } = spec.frame;
    const p = parseOff(spec.frame.preceding, mode);
    const f = parseOff(spec.frame.following, mode);
    if (!p.u && !f.u) {
      let after = false;
      if (mode !== 'range') after = -sat((p as { num: bigint }).num) > sat((f as { num: bigint }).num);
      else if (p.kind === 'duration' && f.kind === 'duration') after = -p.ns > f.ns;
      else if (p.kind === 'exact' && f.kind === 'exact') after = -p.num * f.den > f.num * p.den;
      else if (p.kind !== 'duration' && f.kind !== 'duration') {
        const pv = p.kind === 'exact' ? Number(p.num) / Number(p.den) : p.x;
        const fv = f.kind === 'exact' ? Number(f.num) / Number(f.den) : f.x;
        after = -pv > fv;
      }
      if (after) throw new RefPlanError('FRAME_START_AFTER_END', 'builder');
    }
    if (RANKING.has(fn) || OFFSET_FNS.has(fn)) throw new RefPlanError('FRAME_NOT_ALLOWED', fn);
  }
  if (spec.minPeriods !== undefined && (!Number.isSafeInteger(spec.minPeriods) || spec.minPeriods < 0)) throw new RefPlanError('BAD_OPTION', 'minPeriods');
  if (spec.minPeriods !== undefined && (RANKING.has(fn) || OFFSET_FNS.has(fn))) throw new RefPlanError('INVALID_WINDOW_FN', 'minPeriods');
  if (spec.ignoreNulls && !VALUE_FNS.has(fn) && !OFFSET_FNS.has(fn)) throw new RefPlanError('INVALID_WINDOW_FN', 'ignoreNulls');
}

/** Resolves every column against the schema; throws RefPlanError where the contract demands a PlanError. */
function resolveColumns(o: RefWindowOptions, schema: FieldDesc[], keys: OrderKey[]): RefColumn[] {
  const out: RefColumn[] = [];
  for (const [name, spec] of Object.entries(o.columns)) {
    const fn = spec.fn;
    if (schema.some((f) => f.name === name)) throw new RefPlanError('NAME_CLASH', name);
    let type: TypeDesc | null = null;
    if (spec.column !== undefined) {
      type = typeOf(schema, spec.column, 'measure');
      if (!measureAllowed(fn, type)) throw new RefPlanError('MEASURE_TYPE', `${fn}(${spec.column})`);
    }
    const frame = RANKING.has(fn) || OFFSET_FNS.has(fn) ? null : resolveFrame(spec, keys);
    const n = BigInt(spec.n ?? 1);
    out.push({
      name,
      spec,
      type,
      frame,
      dflt: OFFSET_FNS.has(fn) ? defaultValue(spec.default, type!) : null,
      back: fn === 'lag' ? n : fn === 'lead' ? -n : 0n,
      nth: n,
    });
  }
  return out;
}

/** Everything the contract checks, in the order a user meets it: builders, then the window call. */
function resolveAll(o: RefWindowOptions, schema: FieldDesc[]): { keys: OrderKey[]; pcols: string[]; cols: RefColumn[] } {
  for (const spec of Object.values(o.columns)) builderCheck(spec);
  const pcols = partitionKeysOf(o, schema);
  const keys = orderKeysOf(o, schema);
  if (Object.keys(o.columns).length === 0) throw new RefPlanError('NO_WINDOW_COLUMNS', '');
  return { keys, pcols, cols: resolveColumns(o, schema, keys) };
}

/** The PlanError code the contract demands for this window call, or null. */
export function refPlanError(o: RefWindowOptions, schema: FieldDesc[]): string | null {
  try {
    resolveAll(o, schema);
    return null;
  } catch (e) {
    if (e instanceof RefPlanError) return e.code;
    throw e;
  }
}

// ------------------------------------------------------------------------------------------
// Partitions and frames
// ------------------------------------------------------------------------------------------

function sortedPartitions(rows: RefRow[], pcols: string[], keys: OrderKey[]): number[][] {
  const parts = new Map<string, number[]>();
  rows.forEach((row, i) => {
    const k = pcols.map((c) => identity(get(row, c))).join('\u0000');
    let list = parts.get(k);
    if (!list) parts.set(k, (list = []));
    list.push(i);
  });
  const out: number[][] = [];
  for (const list of parts.values()) {
    out.push(
      [...list].sort((x, y) => {
        for (const k of keys) {
          const c = cmpKey(get(rows[x]!, k.column), get(rows[y]!, k.column), k);
          if (c !== 0) return c;
        }
        return x - y;
      }),
    );
  }
  return out;
}

function isSpecial(v: RefValue): number {
  if (v === null) return 1;
  if (typeof v === 'number' && Number.isNaN(v)) return 2;
  return 0;
}

/** Peer group number (from 0) of each sorted position of a partition. */
function peerGroups(rows: RefRow[], part: number[], keys: OrderKey[]): number[] {
  const g: number[] = [];
  for (let j = 0; j < part.length; j++) {
    if (j === 0) g.push(0);
    else {
      const same = keys.every((k) => cmpKey(get(rows[part[j - 1]!]!, k.column), get(rows[part[j]!]!, k.column), k) === 0);
      g.push(g[j - 1]! + (same ? 0 : 1));
    }
  }
  return g;
}

/** Sorted positions (within the partition) of the frame of sorted position i. */
function frameMembers(rows: RefRow[], part: number[], peers: number[], i: number, frame: RefFrame): number[] {
  const members: number[] = [];
  const N = part.length;
  if (frame.mode === 'peers') {
    for (let j = 0; j < N; j++) if ((frame.pUnb || peers[j]! >= peers[i]!) && (frame.fUnb || peers[j]! <= peers[i]!)) members.push(j);
    return members;
  }
  if (frame.mode === 'rows' || frame.mode === 'groups') {
    const at = (j: number) => BigInt(frame.mode === 'rows' ? j : peers[j]!);
    for (let j = 0; j < N; j++) {
      const d = at(j) - at(i);
      if ((frame.p === null || d >= -frame.p) && (frame.f === null || d <= frame.f)) members.push(j);
    }
    return members;
  }
  const rf = frame as Extract<RefFrame, { mode: 'range' }>;
  const k = rf.key;
  const key = (j: number) => get(rows[part[j]!]!, k.column);
  const si = isSpecial(key(i));
  if (si !== 0) {
    for (let j = 0; j < N; j++) {
      const own = isSpecial(key(j)) === si;
      if (own || (j < i && rf.p.u) || (j > i && rf.f.u)) members.push(j);
    }
    return members;
  }
  // Key space: ASC covers [x - p, x + f], DESC covers [x - f, x + p].
  const lowerOff = k.descending ? rf.f : rf.p;
  const upperOff = k.descending ? rf.p : rf.f;
  const x = key(i)!;
  for (let j = 0; j < N; j++) {
    const y = key(j);
    if (isSpecial(y) !== 0) {
      if ((j < i && rf.p.u) || (j > i && rf.f.u)) members.push(j);
      continue;
    }
    let ok = true;
    if (k.type.kind === 'float') {
      const xv = x as number;
      const yv = y as number;
      if (!lowerOff.u) ok &&= yv >= xv - (lowerOff as { x: number }).x;
      if (!upperOff.u) ok &&= yv <= xv + (upperOff as { x: number }).x;
    } else {
      const xv = BigInt(x as number | bigint);
      const yv = BigInt(y as number | bigint);
      if (!lowerOff.u) ok &&= yv >= xv - (lowerOff as { num: bigint }).num;
      if (!upperOff.u) ok &&= yv <= xv + (upperOff as { num: bigint }).num;
    }
    if (ok) members.push(j);
  }
  return members;
}

// ------------------------------------------------------------------------------------------
// Exact rounding (own implementation)
// ------------------------------------------------------------------------------------------

/** The float64 nearest to the rational num/den (ties to even), by bisection on doubles. */
export function nearestDouble(num: bigint, den: bigint): number {
  if (den < 0n) {
    num = -num;
    den = -den;
  }
  if (num === 0n) return 0;
  const neg = num < 0n;
  if (neg) num = -num;
  // Exact comparison of a finite double d with num/den.
  const cmp = (d: number): number => {
    const s = scaledExact(d); // d * 2^1074
    const lhs = s * den;
    const rhs = num << 1074n;
    return lhs < rhs ? -1 : lhs > rhs ? 1 : 0;
  };
  let guess = Number(num) / Number(den);
  if (!Number.isFinite(guess) || guess === 0) guess = Number((num << 200n) / den) / 2 ** 200;
  // Walk to the pair of neighbours (lo <= x < hi).
  let lo = guess;
  while (cmp(lo) > 0) lo = prevDouble(lo);
  let hi = nextDouble(lo);
  while (cmp(hi) <= 0) {
    lo = hi;
    hi = nextDouble(hi);
  }
  if (cmp(lo) === 0) return neg ? -lo : lo;
  // Midpoint test: 2x vs lo + hi, exactly.
  const two = (scaledExact(lo) + scaledExact(hi)) * den;
  const x2 = (num << 1074n) * 2n;
  let r: number;
  if (x2 < two) r = lo;
  else if (x2 > two) r = hi;
  else r = evenMantissa(lo) ? lo : hi;
  return neg ? -r : r;
}

const F64 = new Float64Array(1);
const U32 = new Uint32Array(F64.buffer);
const BIG = new BigInt64Array(F64.buffer);

function nextDouble(x: number): number {
  F64[0] = x;
  BIG[0] = BIG[0]! + 1n;
  return F64[0]!;
}
function prevDouble(x: number): number {
  F64[0] = x;
  BIG[0] = BIG[0]! - 1n;
  return F64[0]!;
}
function evenMantissa(x: number): boolean {
  F64[0] = x;
  return (U32[0]! & 1) === 0;
}

/** x · 2^1074 as an exact BigInt (x finite). */
export function scaledExact(x: number): bigint {
  F64[0] = x;
  const lo = U32[0]!;
  const hi = U32[1]!;
  const sign = hi >>> 31 ? -1n : 1n;
  const exp = (hi >>> 20) & 0x7ff;
  const mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  const m = exp === 0 ? mant : mant | (1n << 52n);
  const shift = exp === 0 ? 0n : BigInt(exp - 1);
  return sign * (m << shift);
}

// ------------------------------------------------------------------------------------------
// The reference
// ------------------------------------------------------------------------------------------

export interface ReferenceDetail {
  values: Record<string, RefOut[]>;
  /** For float sum/avg/variance columns: the non-NULL frame values of each row. */
  floatFrames: Record<string, (number[] | null)[]>;
  columns: RefColumn[];
}

function intOut(v: bigint): bigint {
  return v;
}

export function referenceWindowDetailed(rows: RefRow[], schema: FieldDesc[], o: RefWindowOptions): ReferenceDetail {
  const { keys, pcols, cols } = resolveAll(o, schema);
  const parts = sortedPartitions(rows, pcols, keys);
  const values: Record<string, RefOut[]> = {};
  const floatFrames: Record<string, (number[] | null)[]> = {};
  for (const c of cols) {
    const out: RefOut[] = new Array(rows.length).fill(null);
    const fn = c.spec.fn;
    const mcol = c.spec.column;
    const t = c.type;
    const isFloat = t?.kind === 'float';
    const frames: (number[] | null)[] | null = isFloat && (fn === 'sum' || fn === 'avg' || VARIANCES.has(fn)) ? new Array(rows.length).fill(null) : null;
    const minP = c.spec.minPeriods ?? 0;
    for (const part of parts) {
      const N = part.length;
      const peers = peerGroups(rows, part, keys);
      const val = (j: number): RefValue => (mcol === undefined ? true : get(rows[part[j]!]!, mcol));
      for (let i = 0; i < N; i++) {
        const target = part[i]!;
        if (RANKING.has(fn)) {
          const firstPeer = peers.indexOf(peers[i]!);
          const lastPeer = peers.lastIndexOf(peers[i]!);
          const rank = firstPeer + 1;
          if (fn === 'rowNumber') out[target] = BigInt(i + 1);
          else if (fn === 'rank') out[target] = BigInt(rank);
          else if (fn === 'denseRank') out[target] = BigInt(peers[i]! + 1);
          else if (fn === 'percentRank') out[target] = N === 1 ? 0 : (rank - 1) / (N - 1);
          else if (fn === 'cumeDist') out[target] = (lastPeer + 1) / N;
          else {
            // ntile: sizes q+1 for the first N mod b buckets, q for the rest
            const b = BigInt(c.nth);
            const q = BigInt(N) / b;
            const R = BigInt(N) % b;
            let start = 0n;
            let bucket = 0n;
            for (let k = 1n; k <= b; k++) {
              const size = q + (k <= R ? 1n : 0n);
              if (BigInt(i) < start + size) {
                bucket = k;
                break;
              }
              start += size;
            }
            out[target] = bucket;
          }
          continue;
        }
        if (OFFSET_FNS.has(fn)) {
          const back = c.back;
          let found: number | null = null;
          if (back === 0n) found = i;
          else if (!c.spec.ignoreNulls) {
            const j = BigInt(i) - back;
            if (j >= 0n && j < BigInt(N)) found = Number(j);
          } else {
            const step = back > 0n ? -1 : 1;
            let want = back > 0n ? back : -back;
            for (let j = i + step; j >= 0 && j < N; j += step) {
              if (val(j) === null) continue;
              if (--want === 0n) {
                found = j;
                break;
              }
            }
          }
          out[target] = found === null ? c.dflt : val(found);
          continue;
        }
        const members = frameMembers(rows, part, peers, i, c.frame!);
        const all = members.map(val);
        const vals = all.filter((v) => v !== null);
        if (vals.length < minP) continue; // NULL (minPeriods)
        if (VALUE_FNS.has(fn)) {
          const seq = c.spec.ignoreNulls ? vals : all;
          const nth = fn === 'nthValue' ? Number(c.nth) : 1;
          if (seq.length >= nth) out[target] = fn === 'last' ? seq[seq.length - 1]! : seq[nth - 1]!;
          continue;
        }
        if (fn === 'count') {
          out[target] = BigInt(vals.length);
          continue;
        }
        if (fn === 'countDistinct') {
          out[target] = BigInt(new Set(vals.map(identity)).size);
          continue;
        }
        const sample = fn === 'variance' || fn === 'stddev';
        if (vals.length === 0 || (sample && vals.length < 2)) continue; // NULL
        if (fn === 'min' || fn === 'max') {
          let best = vals[0]!;
          for (const v of vals) if (fn === 'min' ? minMaxLess(v, best) : minMaxLess(best, v)) best = v;
          out[target] = best;
          continue;
        }
        if (isFloat) {
          const xs = vals as number[];
          frames![target] = xs;
          if (fn === 'sum' || fn === 'avg') {
            let acc = xs[0]!;
            for (let q = 1; q < xs.length; q++) acc += xs[q]!;
            out[target] = fn === 'sum' ? acc : acc / xs.length;
          } else out[target] = floatVariance(xs, fn);
          continue;
        }
        const xs = vals.map((v) => BigInt(v as number | bigint));
        const m = BigInt(xs.length);
        const S = xs.reduce((a, b) => a + b, 0n);
        const scale = t!.kind === 'decimal' ? BigInt(t.scale) : 0n;
        if (fn === 'sum') {
          if (t!.kind === 'decimal') out[target] = S >= 10n ** 38n || S <= -(10n ** 38n) ? null : S;
          else if (t!.kind === 'int' && t.bits === 64 && !t.signed) out[target] = BigInt.asUintN(64, S);
          else out[target] = intOut(BigInt.asIntN(64, S));
        } else if (fn === 'avg') {
          if (t!.kind === 'decimal') out[target] = nearestDouble(S, m * 10n ** scale);
          else if (t!.kind === 'duration') out[target] = roundHalfEven(S, m);
          else out[target] = nearestDouble(S, m);
        } else {
          const S2 = xs.reduce((a, b) => a + b * b, 0n);
          const N2 = m * S2 - S * S;
          const D = (sample ? m * (m - 1n) : m * m) * 10n ** (2n * scale);
          const v = nearestDouble(N2, D);
          out[target] = fn === 'stddev' || fn === 'stddevPop' ? Math.sqrt(v) : v;
        }
      }
    }
    values[c.name] = out;
    if (frames) floatFrames[c.name] = frames;
  }
  return { values, floatFrames, columns: cols };
}

function roundHalfEven(a: bigint, b: bigint): bigint {
  let q = a / b;
  let r = a % b;
  if (r < 0n) {
    q -= 1n;
    r += b;
  }
  if (2n * r > b || (2n * r === b && q % 2n !== 0n)) q += 1n;
  return q;
}

/** Total order for min/max: -0 < +0, NaN above every number. */
function minMaxLess(a: RefValue, b: RefValue): boolean {
  if (typeof a === 'number' && typeof b === 'number') {
    if (Number.isNaN(a)) return false;
    if (Number.isNaN(b)) return true;
    if (a === b) return Object.is(a, -0) && Object.is(b, 0);
    return a < b;
  }
  return cmpValues(a, b) < 0;
}

/** Float variance computed naively in double (a plausible value; the check uses exact bounds). */
function floatVariance(xs: number[], fn: string): number {
  if (xs.some((x) => !Number.isFinite(x))) return NaN;
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const m2 = xs.reduce((a, b) => a + (b - mean) * (b - mean), 0);
  const v = m2 / (fn === 'variance' || fn === 'stddev' ? xs.length - 1 : xs.length);
  return fn === 'stddev' || fn === 'stddevPop' ? Math.sqrt(v) : v;
}

/** The reference: output columns in input row order. */
export function referenceWindow(rows: RefRow[], schema: FieldDesc[], o: RefWindowOptions): Record<string, RefOut[]> {
  return referenceWindowDetailed(rows, schema, o).values;
}

// ------------------------------------------------------------------------------------------
// Comparison
// ------------------------------------------------------------------------------------------

function specialSum(values: number[]): number | null {
  let nan = false;
  let pos = false;
  let neg = false;
  for (const v of values) {
    if (Number.isNaN(v)) nan = true;
    else if (v === Infinity) pos = true;
    else if (v === -Infinity) neg = true;
  }
  if (nan || (pos && neg)) return NaN;
  if (pos) return Infinity;
  if (neg) return -Infinity;
  return null;
}

/** |actual - Σ values| ≤ (m-1)·2^-53·Σ|values| exactly (NaN/±Inf must match the fold). */
export function floatSumWithinBound(actual: number, values: number[]): boolean {
  const sp = specialSum(values);
  if (sp !== null) return Object.is(actual, sp);
  if (!Number.isFinite(actual)) return false;
  let S = 0n;
  let A = 0n;
  for (const v of values) {
    const s = scaledExact(v);
    S += s;
    A += s < 0n ? -s : s;
  }
  const d = scaledExact(actual) - S;
  const m = BigInt(values.length);
  return (d < 0n ? -d : d) << 53n <= (m - 1n) * A;
}

/** avg = rnd(sum / m) with the sum within the bound above. */
export function floatAvgWithinBound(actual: number, values: number[]): boolean {
  const sp = specialSum(values);
  if (sp !== null) return Object.is(actual, sp);
  if (!Number.isFinite(actual)) return false;
  let S = 0n;
  let A = 0n;
  for (const v of values) {
    const s = scaledExact(v);
    S += s;
    A += s < 0n ? -s : s;
  }
  const m = BigInt(values.length);
  const d = scaledExact(actual) * m - S;
  const lhs = (d < 0n ? -d : d) << 106n;
  const rhs = (A << 53n) + (m - 1n) * A + (((m - 1n) * A) << 53n);
  // Subnormal quotients may carry an extra absolute error of half an ulp of the smallest subnormal.
  return lhs <= rhs + (m << 106n);
}

/**
 * Float variance within a pairwise bound of the exact value V (from the exact rationals of the
 * values): |v - V| <= 8·(log2 m + 2)·2^-53·Σx²/(m - ddof) (covers ill-conditioned frames, where
 * the mean dominates) plus 16·(m + 1)·2^-1074 for underflow; stddev is checked through its
 * square; NaN exactly when a value is NaN or infinite.
 */
export function floatVarianceWithinBound(actual: number, values: number[], fn: string): boolean {
  if (values.some((x) => !Number.isFinite(x))) return Number.isNaN(actual);
  const sample = fn === 'variance' || fn === 'stddev';
  const m = BigInt(values.length);
  const ddof = m - (sample ? 1n : 0n);
  const xs = values.map(scaledExact); // x · 2^1074
  const S = xs.reduce((a, b) => a + b, 0n);
  const S2 = xs.reduce((a, b) => a + b * b, 0n);
  // V · 2^2148 = (m·S2 - S²) / (m · ddof)
  const vNum = m * S2 - S * S;
  const vDen = m * ddof;
  const isStd = fn === 'stddev' || fn === 'stddevPop';
  if (!Number.isFinite(actual) || actual < 0) return false;
  const a = isStd ? actual * actual : actual; // stddev: compare its square (one more rounding)
  const aScaled = scaledExact(a); // a · 2^1074
  // |a - V| · 2^2148 · vDen vs bound
  const diff = aScaled * (1n << 1074n) * vDen - vNum;
  const absDiff = diff < 0n ? -diff : diff;
  const logm = BigInt(Math.ceil(Math.log2(values.length)) + 2);
  const sumSq = S2 * m; // Σx² · 2^2148 · m, compared as bound · vDen / ddof... kept simple:
  // bound · 2^2148 · vDen = 8·logm·2^-53·(S2 / ddof)·vDen = 8·logm·S2·m >> 53
  let bound = (8n * logm * sumSq) >> 53n;
  // Underflow: products of tiny values lose up to ~2^-1074 each (absolute, in variance units).
  bound += 16n * (m + 1n) * (1n << 1074n) * vDen;
  if (isStd) bound += (aScaled * (1n << 1074n) * vDen) >> 50n; // the square of a rounded root
  return absDiff <= bound + 1n;
}

function showValue(v: unknown): string {
  if (typeof v === 'bigint') return `${v}n`;
  if (typeof v === 'number' && Object.is(v, -0)) return '-0';
  if (v instanceof Uint8Array) return `bytes(${Buffer.from(v).toString('hex')})`;
  return typeof v === 'string' ? JSON.stringify(v) : String(v);
}

export function sameValue(a: unknown, e: unknown): boolean {
  if (a instanceof Uint8Array && e instanceof Uint8Array) return cmpBytes(a, e) === 0;
  return Object.is(a, e) || (typeof a === 'bigint' && typeof e === 'bigint' && a === e);
}

/**
 * Compares kernel/engine results (input order) against the reference; returns mismatch
 * messages (empty = equal). Float sum/avg/variance: within the bounds above; everything else:
 * identical (Object.is for numbers, so -0 ≠ +0 and NaN = NaN; bytes by content).
 */
export function compareWindowResults(actual: Record<string, RefOut[]>, rows: RefRow[], schema: FieldDesc[], o: RefWindowOptions, maxMessages = 10): string[] {
  const ref = referenceWindowDetailed(rows, schema, o);
  const msgs: string[] = [];
  for (const col of ref.columns) {
    const exp = ref.values[col.name]!;
    const act = actual[col.name];
    if (!act) {
      msgs.push(`column ${col.name}: missing`);
      continue;
    }
    if (act.length !== exp.length) {
      msgs.push(`column ${col.name}: ${act.length} rows, expected ${exp.length}`);
      continue;
    }
    const frames = ref.floatFrames[col.name];
    const fn = col.spec.fn;
    for (let r = 0; r < exp.length && msgs.length < maxMessages; r++) {
      const e = exp[r]!;
      const a = act[r]!;
      let ok: boolean;
      if (frames && e !== null && frames[r]) {
        const vals = frames[r]!;
        ok =
          typeof a === 'number' &&
          (fn === 'sum' ? floatSumWithinBound(a, vals) : fn === 'avg' ? floatAvgWithinBound(a, vals) : floatVarianceWithinBound(a, vals, fn));
      } else ok = sameValue(a, e);
      if (!ok) msgs.push(`column ${col.name} (${JSON.stringify(col.spec, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v))}) row ${r}: got ${showValue(a)}, expected ${showValue(e)}`);
    }
  }
  return msgs;
}
