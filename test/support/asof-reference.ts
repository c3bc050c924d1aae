/**
 * Naive ASOF join reference (the oracle), written from API.md alone, independent of src/ops.
 *
 * For each left row it scans every right row, keeps the eligible ones and picks by the rules:
 * same `by` values (NULL equals NULL only with `nullsEqual`; NaN equals NaN, -0 equals 0, numbers
 * and bigints compare by value, temporal `by` values as elapsed time), neither key NULL nor NaN,
 * |x - k| <= tolerance, k != x when exact matches are excluded, condition TRUE.
 * backward: greatest k <= x, last such right row; forward: least k >= x, first such right row;
 * nearest: the forward choice only if its gap is strictly smaller than the backward choice's.
 * Keys are exact: integers as BigInt, temporal values as BigInt nanoseconds (DURATION = elapsed time; DATE = midnight:
 * in `timeZone` against a zoned TIMESTAMP, found by binary search on Intl's local date; UTC
 * otherwise), floats as BigInt multiples of 2^-1074 with a separate infinity flag.
 *
 * Rows are plain objects keyed by column name: int8..int32/uint8..uint32/float/date32 values
 * are numbers, int64/uint64/timestamp/date64/duration values bigint (numbers accepted), strings strings,
 * NULL is null or undefined. O(n * m) time.
 */
import type { FieldDesc, TypeDesc } from '../../src/types/column.js';

export type AsofRow = Record<string, unknown>;
type Row = AsofRow;

export interface ReferenceAsofOptions {
  on: string | [string, string];
  by?: string | Array<string | [string, string]>;
  direction?: 'backward' | 'forward' | 'nearest';
  tolerance?: number | bigint | string;
  allowExactMatches?: boolean;
  how?: 'left' | 'inner';
  nullsEqual?: boolean;
  timeZone?: string;
  suffix?: string;
  condition?: unknown;
}

/** An exact key: inf = -1/+1 for infinities, else v (BigInt, in the key class's scale). */
interface Exact {
  inf: number;
  v: bigint;
  str?: Buffer;
}
type Gap = { inf: boolean; v: bigint };

const NS: Record<string, bigint> = { s: 1_000_000_000n, ms: 1_000_000n, us: 1_000n, ns: 1n };
const DAY_NS = 86_400_000_000_000n;

function floatExact(x: number): bigint {
  // x = m / 2^e with m an integer double
  let m = x;
  let e = 0;
  while (!Number.isInteger(m)) {
    m *= 2;
    e++;
  }
  return BigInt(m) << BigInt(1074 - e);
}

function toBig(v: unknown): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  throw new Error(`reference: not an integer: ${String(v)}`);
}

const dayFormatters = new Map<string, Intl.DateTimeFormat>();
function localDay(zone: string, sec: number): number {
  let f = dayFormatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: zone, era: 'short', year: 'numeric', month: 'numeric', day: 'numeric' });
    dayFormatters.set(zone, f);
  }
  const parts = f.formatToParts(new Date(sec * 1000));
  const get = (t: string) => parts.find((p) => p.type === t)?.value ?? '';
  const era = get('era');
  const y = Number(get('year'));
  const d = new Date(0);
  d.setUTCFullYear(era === 'BC' || era === 'B' ? 1 - y : y, Number(get('month')) - 1, Number(get('day')));
  return Math.round(d.getTime() / 86_400_000);
}

/** Smallest whole second whose local date in `zone` is >= day. */
export function referenceStartOfDay(zone: string, day: number): number {
  const L = day * 86400;
  if (Math.abs(L) > 8.64e12 - 4 * 86400) return L;
  let lo = L - 40 * 3600; // local date < day here
  let hi = L + 40 * 3600; // local date >= day here
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (localDay(zone, mid) >= day) hi = mid;
    else lo = mid;
  }
  return hi;
}

function isZoned(t: TypeDesc): boolean {
  return t.kind === 'timestamp' && t.timezone !== null;
}

/** Temporal value → BigInt ns. `zone` non-null: DATE midnights in that zone. */
function temporalNs(t: TypeDesc, v: unknown, zone: string | null): bigint {
  if (t.kind === 'timestamp' || t.kind === 'duration') return toBig(v) * NS[t.unit]!;
  if (t.kind === 'date') {
    let day: bigint;
    let rem = 0n;
    if (t.unit === 'day') day = toBig(v);
    else {
      const ms = toBig(v);
      day = ms / 86_400_000n;
      if (day * 86_400_000n > ms) day -= 1n;
      rem = (ms - day * 86_400_000n) * 1_000_000n;
    }
    if (zone === null) return day * DAY_NS + rem;
    return BigInt(referenceStartOfDay(zone, Number(day))) * 1_000_000_000n + rem;
  }
  throw new Error(`reference: not temporal: ${t.kind}`);
}

function keyOf(t: TypeDesc, v: unknown, zone: string | null): Exact | null {
  if (v === null || v === undefined) return null;
  switch (t.kind) {
    case 'int':
      return { inf: 0, v: toBig(v) };
    case 'float': {
      const x = t.bits === 32 ? Math.fround(v as number) : (v as number);
      if (Number.isNaN(x)) return null;
      if (x === Infinity) return { inf: 1, v: 0n };
      if (x === -Infinity) return { inf: -1, v: 0n };
      return { inf: 0, v: floatExact(x) };
    }
    case 'date':
    case 'timestamp':
    case 'duration':
      return { inf: 0, v: temporalNs(t, v, zone) };
    case 'utf8':
    case 'largeUtf8':
      return { inf: 0, v: 0n, str: Buffer.from(v as string, 'utf8') };
    default:
      throw new Error(`reference: unsupported key type ${t.kind}`);
  }
}

function cmpKey(a: Exact, b: Exact): number {
  if (a.str !== undefined && b.str !== undefined) return Buffer.compare(a.str, b.str);
  if (a.inf !== b.inf) return a.inf < b.inf ? -1 : 1;
  if (a.inf !== 0) return 0;
  return a.v < b.v ? -1 : a.v > b.v ? 1 : 0;
}

function gap(a: Exact, b: Exact): Gap {
  if (a.inf !== 0 || b.inf !== 0) return a.inf === b.inf ? { inf: false, v: 0n } : { inf: true, v: 0n };
  const d = a.v - b.v;
  return { inf: false, v: d < 0n ? -d : d };
}

function cmpGap(a: Gap, b: Gap): number {
  if (a.inf || b.inf) return a.inf === b.inf ? 0 : a.inf ? 1 : -1;
  return a.v < b.v ? -1 : a.v > b.v ? 1 : 0;
}

function parseDurationNs(s: string): bigint {
  const units: Record<string, bigint> = {
    ns: 1n, us: 1_000n, µs: 1_000n, ms: 1_000_000n, s: 1_000_000_000n,
    m: 60_000_000_000n, h: 3_600_000_000_000n, d: DAY_NS, w: 7n * DAY_NS,
  };
  let total = 0n;
  const re = /(\d+)\s*([a-zµ]+)/g;
  for (const m of s.matchAll(re)) total += BigInt(m[1]!) * units[m[2]!]!;
  return total;
}

function unitNs(t: TypeDesc): bigint {
  if (t.kind === 'date') return t.unit === 'day' ? DAY_NS : 1_000_000n;
  if (t.kind === 'timestamp' || t.kind === 'duration') return NS[t.unit]!;
  throw new Error('not temporal');
}

/** Tolerance as a gap in the key scale, or null for none. */
function toleranceOf(t: TypeDesc, tol: unknown): Gap | null {
  if (tol === undefined || tol === null) return null;
  if (tol === Infinity) return { inf: true, v: 0n };
  if (t.kind === 'float') return { inf: false, v: typeof tol === 'bigint' ? tol << 1074n : floatExact(tol as number) };
  if (t.kind === 'int') return { inf: false, v: toBig(tol) };
  if (typeof tol === 'string') return { inf: false, v: parseDurationNs(tol) };
  return { inf: false, v: toBig(tol) * unitNs(t) };
}

/** Value used to compare `by` columns: null stays null. */
function byValue(t: TypeDesc, v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (t.kind === 'date' || t.kind === 'timestamp' || t.kind === 'duration') return temporalNs(t, v, null);
  if (t.kind === 'int') return toBig(v);
  if (t.kind === 'float') return Number.isNaN(v) ? 'NaN' : (v as number) + 0;
  if (v instanceof Uint8Array) return Buffer.from(v).toString('hex');
  return v;
}

function byEqual(a: unknown, b: unknown, nullsEqual: boolean): boolean {
  if (a === null || b === null) return nullsEqual && a === null && b === null;
  return a === b;
}

/** Output column names: left names, then right names except the right `by` columns, renamed on collision. */
export function referenceOutputNames(leftSchema: FieldDesc[], rightSchema: FieldDesc[], rightBy: Set<string>, suffix: string): Array<{ side: 'left' | 'right'; source: string; name: string }> {
  const out: Array<{ side: 'left' | 'right'; source: string; name: string }> = leftSchema.map((f) => ({ side: 'left', source: f.name, name: f.name }));
  const kept = rightSchema.filter((f) => !rightBy.has(f.name));
  const leftNames = new Set(leftSchema.map((f) => f.name));
  const collide = kept.map((f, i) => leftNames.has(f.name) || kept.slice(0, i).some((g) => g.name === f.name));
  const taken = new Set([...leftNames, ...kept.filter((_, i) => !collide[i]).map((f) => f.name)]);
  kept.forEach((f, i) => {
    let name = f.name;
    if (collide[i]) {
      name = f.name + suffix;
      let k = 2;
      while (taken.has(name)) name = `${f.name}${suffix}_${k++}`;
      taken.add(name);
    }
    out.push({ side: 'right', source: f.name, name });
  });
  return out;
}

export function referenceAsof(
  left: Row[],
  right: Row[],
  leftSchema: FieldDesc[],
  rightSchema: FieldDesc[],
  options: ReferenceAsofOptions,
  condition?: (outRow: Row) => boolean | null,
): Array<number | null> {
  const [lOn, rOn] = typeof options.on === 'string' ? [options.on, options.on] : options.on;
  const byList = options.by === undefined ? [] : typeof options.by === 'string' ? [options.by] : options.by;
  const by = byList.map((b) => (typeof b === 'string' ? [b, b] : b)) as Array<[string, string]>;
  const direction = options.direction ?? 'backward';
  const allowExact = options.allowExactMatches ?? true;
  const nullsEqual = options.nullsEqual ?? false;
  const zone = options.timeZone ?? 'UTC';
  const suffix = options.suffix ?? '_right';
  const field = (s: FieldDesc[], n: string) => {
    const f = s.find((x) => x.name === n);
    if (!f) throw new Error(`reference: no column ${n}`);
    return f;
  };
  const lt = field(leftSchema, lOn).type;
  const rt = field(rightSchema, rOn).type;
  const lZone = lt.kind === 'date' && isZoned(rt) ? zone : null;
  const rZone = rt.kind === 'date' && isZoned(lt) ? zone : null;
  const tol = toleranceOf(lt.kind === 'date' && rt.kind === 'timestamp' ? rt : lt, options.tolerance);
  const names = referenceOutputNames(leftSchema, rightSchema, new Set(by.map((b) => b[1])), suffix);
  const rKeys = right.map((r) => keyOf(rt, r[rOn], rZone));
  const rBy = right.map((r) => by.map(([, rc]) => byValue(field(rightSchema, rc).type, r[rc])));

  return left.map((lrow) => {
    const x = keyOf(lt, lrow[lOn], lZone);
    if (x === null) return null;
    const lBy = by.map(([lc]) => byValue(field(leftSchema, lc).type, lrow[lc]));
    let P = -1;
    let S = -1;
    for (let j = 0; j < right.length; j++) {
      const k = rKeys[j]!;
      if (k === null) continue;
      if (!lBy.every((v, t) => byEqual(v, rBy[j]![t], nullsEqual))) continue;
      const c = cmpKey(k, x);
      if (c === 0 && !allowExact) continue;
      if (tol !== null && k.str === undefined && cmpGap(gap(x, k), tol) > 0) continue;
      if (condition) {
        const out: Row = {};
        for (const n of names) out[n.name] = n.side === 'left' ? lrow[n.source] : right[j]![n.source];
        if (condition(out) !== true) continue;
      }
      if (c <= 0 && (P < 0 || cmpKey(k, rKeys[P]!) >= 0)) P = j; // greatest, last among equal
      if (c >= 0 && (S < 0 || cmpKey(k, rKeys[S]!) < 0)) S = j; // least, first among equal
    }
    if (direction === 'backward') return P < 0 ? null : P;
    if (direction === 'forward') return S < 0 ? null : S;
    if (P < 0) return S < 0 ? null : S;
    if (S < 0) return P;
    return cmpGap(gap(rKeys[S]!, x), gap(x, rKeys[P]!)) < 0 ? S : P;
  });
}
