/**
 * asofJoin options: validation, key plan and output schema (API.md "asofJoin").
 *
 * `resolveAsof(options, leftSchema, rightSchema)` checks every option and throws `PlanError`
 * before any row is read; it returns a `ResolvedAsof` the worker and kernel trust.
 *
 * Key classes: integer (any widths/signedness together), float (float32/float64), temporal
 * (DATE and TIMESTAMP of any unit; zoned and zone-less TIMESTAMPs do not mix; DURATIONs of any
 * unit pair only with each other, compared as elapsed time), string
 * (utf8/largeUtf8; backward/forward, no tolerance). Temporal keys are converted to one common
 * unit: the finest of both keys' units and of the tolerance's unit (date32 counts as `day`,
 * date64 as `ms`), so the tolerance is an exact integer count of that unit.
 *
 * Tolerance: number or bigint (>= 0; integers for integer keys; +Infinity = unbounded); for
 * temporal keys a duration string ('250ms', '5s', '2m', '1h', '3d', '1w', '10us', '5ns',
 * compounds like '1h30m') or a number/bigint counted in the keys' unit when both keys have the
 * same unit (date32: days). Calendar units (months, quarters, years) vary in length: rejected.
 *
 * Output naming rule: output = left columns in order, then the right columns in order except
 * the right `by` columns. Names taken = the left names plus every kept right name that collides
 * with nothing (those are never renamed). Each colliding right column (its name equals a left
 * name or an earlier right name), in order, becomes `name + suffix`, or if that is taken
 * `name + suffix + '_2'`, `'_3'`, … the first free one; each new name is then taken.
 * Right columns are nullable in a left join.
 *
 * Complexity: O(columns) (names looked up through maps).
 */
import { PlanError, show } from '../errors.js';
import type { FieldDesc, TypeDesc } from '../types/column.js';
import { typeToString } from '../types/column.js';
import {
  makeAsofTolerance,
  NS_PER_UNIT,
  temporalUnit,
  UNIT_RANK,
  type AsofKeyClass,
  type AsofKeyPlan,
  type AsofUnit,
  type NormalizedTolerance,
} from './asof-keys.js';
import { rightOutputNames } from './join-names.js';

export type AsofDirection = 'backward' | 'forward' | 'nearest';

export interface AsofOptions {
  on: string | [leftKey: string, rightKey: string];
  by?: string | Array<string | [leftCol: string, rightCol: string]>;
  direction?: AsofDirection;
  tolerance?: number | bigint | string;
  allowExactMatches?: boolean;
  /** Expr | string: bound elsewhere against the output schema; carried through opaquely. */
  condition?: unknown;
  how?: 'left' | 'inner';
  nullsEqual?: boolean;
  timeZone?: string;
  suffix?: string;
  /** false: rows come out in left-partition order instead of left input order (see the README). */
  preserveOrder?: boolean;
}

export interface AsofColumnRef {
  /** index into the schema */
  index: number;
  name: string;
  type: TypeDesc;
}

export interface ResolvedAsof {
  on: { left: AsofColumnRef; right: AsofColumnRef };
  by: Array<{ left: AsofColumnRef; right: AsofColumnRef }>;
  key: AsofKeyPlan;
  direction: AsofDirection;
  /** exact, in key units (the common unit `key.unit` for temporal keys); null = none */
  tolerance: NormalizedTolerance | null;
  /** the tolerance as the user gave it, for messages and explain() */
  toleranceText: string | null;
  allowExactMatches: boolean;
  how: 'left' | 'inner';
  nullsEqual: boolean;
  timeZone: string;
  suffix: string;
  condition?: unknown;
  output: FieldDesc[];
  /** for each output column, the input column it copies */
  outputSources: Array<{ side: 'left' | 'right'; index: number }>;
}

const KNOWN = new Set([
  'on', 'by', 'direction', 'tolerance', 'allowExactMatches', 'condition', 'how', 'nullsEqual', 'timeZone', 'suffix', 'preserveOrder',
]);

function fail(code: string, message: string, details: Record<string, unknown> = {}): never {
  throw new PlanError(code, `asofJoin: ${message}`, details);
}

function describe(v: unknown): string {
  return `\`${show(v)}\` (${v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v})`;
}

function lookup(schema: FieldDesc[], name: unknown, side: 'left' | 'right', what: string): AsofColumnRef {
  if (typeof name !== 'string' || name === '') fail('BAD_OPTION', `${what} must name a ${side} column, got ${describe(name)}`, { side });
  let found = -1;
  for (let i = 0; i < schema.length; i++) {
    if (schema[i]!.name === name) {
      if (found >= 0) fail('AMBIGUOUS_COLUMN', `${what} column ${show(name)} appears more than once in the ${side} input`, { column: name, side });
      found = i;
    }
  }
  if (found < 0) {
    fail(
      'UNKNOWN_COLUMN',
      `${what} column ${show(name)} is not in the ${side} input; ${side} columns are ${schema.map((f) => show(f.name)).join(', ') || '(none)'}`,
      { column: name, side },
    );
  }
  return { index: found, name, type: schema[found]!.type };
}

function keyClass(t: TypeDesc): AsofKeyClass | null {
  switch (t.kind) {
    case 'int':
      return 'integer';
    case 'float':
      return t.bits === 16 ? null : 'float';
    case 'date':
    case 'timestamp':
    case 'duration':
      return 'temporal';
    case 'utf8':
    case 'largeUtf8':
      return 'string';
    default:
      return null;
  }
}

/** The unit of a date, timestamp or duration type (null for other types). */
function unitOf(t: TypeDesc): string | null {
  return t.kind === 'date' || t.kind === 'timestamp' || t.kind === 'duration' ? t.unit : null;
}

const UNIT_ORDER = ['day', 's', 'ms', 'us', 'ns'];

/** For dates and timestamps: the cast that brings the coarser side to the finer unit (exact). */
function unitHint(l: AsofColumnRef, r: AsofColumnRef): string {
  if (l.type.kind !== 'date' && l.type.kind !== 'timestamp') return '';
  const leftCoarser = UNIT_ORDER.indexOf(unitOf(l.type)!) < UNIT_ORDER.indexOf(unitOf(r.type)!);
  const [coarse, fine] = leftCoarser ? [l, r] : [r, l];
  const to = typeToString(fine.type.kind === 'timestamp' && coarse.type.kind === 'timestamp' ? { ...fine.type, timezone: coarse.type.timezone } : fine.type);
  return `, e.g. on the ${leftCoarser ? 'left' : 'right'} input withColumns({ ${show(coarse.name)}: col(${show(coarse.name)}).cast('${to}') })`;
}

/** Equality class of a `by` column type, or null when it cannot be a `by` column. */
function byClass(t: TypeDesc): string | null {
  switch (t.kind) {
    case 'int':
      return 'integer';
    case 'float':
      return t.bits === 16 ? null : 'float';
    // Hashing and grouping compare stored values, and equal times are equal values only within
    // one unit: dates, timestamps and durations pair with the same unit only (Polars raises on
    // such a dtype mismatch too). A zone string changes nothing: the instant is what is stored.
    case 'date':
      return `date[${t.unit}]`;
    case 'timestamp':
      return `timestamp[${t.unit}] (${t.timezone === null ? 'zone-less' : 'zoned'})`;
    case 'duration':
      return `duration[${t.unit}]`;
    case 'utf8':
    case 'largeUtf8':
      return 'string';
    case 'binary':
    case 'largeBinary':
      return 'binary';
    case 'bool':
      return 'bool';
    default:
      return null;
  }
}

const DURATION_UNITS: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
  d: 86_400_000_000_000n,
  w: 604_800_000_000_000n,
};
const CALENDAR = /^(mo|mon|month|months|q|quarter|quarters|y|yr|year|years)$/;

/** Parses a duration string into nanoseconds; throws PlanError. */
export function parseAsofDuration(text: string): bigint {
  const s = text.trim();
  const re = /(\d+)\s*([a-zµ]+)\s*/gy;
  let total = 0n;
  let matched = 0;
  let at = 0;
  if (s.startsWith('-')) fail('BAD_TOLERANCE', `tolerance must not be negative, got ${show(text)}`, { value: text });
  for (let m = re.exec(s); m !== null; m = re.exec(s)) {
    const unit = m[2]!;
    if (CALENDAR.test(unit)) {
      fail('CALENDAR_TOLERANCE', `tolerance ${show(text)} uses the calendar unit ${show(unit)}, whose length varies; use a fixed duration such as '30d'`, { value: text });
    }
    const ns = DURATION_UNITS[unit];
    if (ns === undefined) {
      fail('BAD_TOLERANCE', `tolerance ${show(text)} has the unknown unit ${show(unit)}; expected ns, us, ms, s, m, h, d or w`, { value: text });
    }
    total += BigInt(m[1]!) * ns;
    matched++;
    at = re.lastIndex;
  }
  if (matched === 0 || at !== s.length) {
    fail('BAD_TOLERANCE', `tolerance ${show(text)} is not a duration; expected e.g. '250ms', '5s', '2m', '1h', '3d', '1w'`, { value: text });
  }
  return total;
}

/** Coarsest unit in which `ns` is a whole number (for the common temporal unit). */
function coarsestUnit(ns: bigint): AsofUnit {
  for (const u of ['day', 's', 'ms', 'us'] as const) if (ns % BigInt(NS_PER_UNIT[u]) === 0n) return u;
  return 'ns';
}

function finer(a: AsofUnit, b: AsofUnit): AsofUnit {
  return UNIT_RANK[a] >= UNIT_RANK[b] ? a : b;
}

export function resolveAsof(options: AsofOptions, leftSchema: FieldDesc[], rightSchema: FieldDesc[]): ResolvedAsof {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    fail('BAD_OPTION', `options must be an object, got ${describe(options)}`);
  }
  for (const k of Object.keys(options)) {
    if (!KNOWN.has(k)) fail('UNKNOWN_OPTION', `unknown option ${show(k)}; expected one of ${[...KNOWN].join(', ')}`, { option: k });
  }
  const o = options as AsofOptions & Record<string, unknown>;

  // --- on
  let onL: unknown;
  let onR: unknown;
  if (typeof o.on === 'string') onL = onR = o.on;
  else if (Array.isArray(o.on) && o.on.length === 2) [onL, onR] = o.on;
  else fail('BAD_OPTION', `\`on\` must be a column name or [leftKey, rightKey], got ${describe(o.on)}`);
  const left = lookup(leftSchema, onL, 'left', '`on`');
  const right = lookup(rightSchema, onR, 'right', '`on`');

  // --- direction, how, flags, suffix, timeZone
  const direction = o.direction ?? 'backward';
  if (direction !== 'backward' && direction !== 'forward' && direction !== 'nearest') {
    fail('BAD_DIRECTION', `\`direction\` must be 'backward', 'forward' or 'nearest', got ${describe(direction)}`);
  }
  const how = o.how ?? 'left';
  if (how !== 'left' && how !== 'inner') fail('BAD_HOW', `\`how\` must be 'left' or 'inner', got ${describe(how)}`);
  const allowExactMatches = o.allowExactMatches ?? true;
  if (typeof allowExactMatches !== 'boolean') fail('BAD_OPTION', `\`allowExactMatches\` must be a boolean, got ${describe(allowExactMatches)}`);
  const nullsEqual = o.nullsEqual ?? false;
  if (typeof nullsEqual !== 'boolean') fail('BAD_OPTION', `\`nullsEqual\` must be a boolean, got ${describe(nullsEqual)}`);
  const suffix = o.suffix ?? '_right';
  if (typeof suffix !== 'string' || suffix === '') fail('BAD_SUFFIX', `\`suffix\` must be a non-empty string, got ${describe(suffix)}`);
  const timeZone = o.timeZone ?? 'UTC';
  if (typeof timeZone !== 'string') fail('BAD_TIMEZONE', `\`timeZone\` must be an IANA zone name such as 'UTC' or 'Europe/Paris', got ${describe(timeZone)}`);
  let canonicalZone: string;
  try {
    canonicalZone = new Intl.DateTimeFormat('en-US', { timeZone }).resolvedOptions().timeZone;
  } catch {
    fail('BAD_TIMEZONE', `\`timeZone\` ${show(timeZone)} is not a time zone known to Intl; expected an IANA name such as 'UTC' or 'Europe/Paris'`, { value: timeZone });
  }
  if (o.condition !== undefined && typeof o.condition !== 'string' && (typeof o.condition !== 'object' || o.condition === null)) {
    fail('BAD_OPTION', `\`condition\` must be an expression or an SQL string, got ${describe(o.condition)}`);
  }

  // --- key types
  const lc = keyClass(left.type);
  const rc = keyClass(right.type);
  for (const [c, ref, side] of [[lc, left, 'left'], [rc, right, 'right']] as const) {
    if (c === null) {
      fail(
        'UNSUPPORTED_KEY_TYPE',
        `\`on\` column ${show(ref.name)} of the ${side} input has type ${typeToString(ref.type)}; expected an integer, float32/float64, date, timestamp, duration or string column`,
        { column: ref.name, side, type: typeToString(ref.type) },
      );
    }
  }
  if (lc !== rc) {
    fail(
      'KEY_TYPE_MISMATCH',
      `\`on\` keys ${show(left.name)} (${typeToString(left.type)}) and ${show(right.name)} (${typeToString(right.type)}) cannot be compared; expected both integer, both float, both date/timestamp or both string (cast one side)`,
      { column: left.name, leftType: typeToString(left.type), rightType: typeToString(right.type) },
    );
  }
  const cls = lc!;
  if ((left.type.kind === 'duration') !== (right.type.kind === 'duration')) {
    fail(
      'KEY_TYPE_MISMATCH',
      `\`on\` keys ${show(left.name)} (${typeToString(left.type)}) and ${show(right.name)} (${typeToString(right.type)}) cannot be compared: a duration (elapsed time) pairs only with a duration`,
      { column: left.name, leftType: typeToString(left.type), rightType: typeToString(right.type) },
    );
  }
  const lZoned = left.type.kind === 'timestamp' && left.type.timezone !== null;
  const rZoned = right.type.kind === 'timestamp' && right.type.timezone !== null;
  if (left.type.kind === 'timestamp' && right.type.kind === 'timestamp' && lZoned !== rZoned) {
    fail(
      'MIXED_TIMEZONE_KEYS',
      `\`on\` keys ${show(left.name)} (${typeToString(left.type)}) and ${show(right.name)} (${typeToString(right.type)}) mix a zoned and a zone-less timestamp; expected both zoned (instants) or both zone-less (wall clock): cast one side`,
      { column: left.name, leftType: typeToString(left.type), rightType: typeToString(right.type) },
    );
  }
  if (cls === 'string' && direction === 'nearest') {
    fail('NEAREST_ON_STRING', `direction 'nearest' needs a distance, but the \`on\` keys ${show(left.name)}/${show(right.name)} are strings; use 'backward' or 'forward'`, { column: left.name });
  }

  // --- tolerance
  let toleranceText: string | null = null;
  let tolExact: bigint | number | null = null; // in key units, or ns for temporal durations
  let tolUnit: AsofUnit | null = null;
  const tol = o.tolerance;
  if (tol !== undefined && tol !== null) {
    toleranceText = typeof tol === 'bigint' ? `${tol}` : String(tol);
    if (cls === 'string') {
      fail('TOLERANCE_ON_STRING', `\`tolerance\` ${show(tol)} needs a distance, but the \`on\` keys ${show(left.name)}/${show(right.name)} are strings; remove it`, { column: left.name, value: tol });
    }
    if (typeof tol === 'string') {
      if (cls !== 'temporal') {
        fail('BAD_TOLERANCE', `duration tolerance ${show(tol)} needs date/timestamp/duration keys, but ${show(left.name)} is ${typeToString(left.type)}; give a number`, { column: left.name, value: tol });
      }
      const ns = parseAsofDuration(tol);
      tolExact = ns;
      tolUnit = coarsestUnit(ns);
    } else if (typeof tol === 'number' || typeof tol === 'bigint') {
      if (typeof tol === 'number' && Number.isNaN(tol)) fail('BAD_TOLERANCE', `\`tolerance\` must be a non-negative number, got ${describe(tol)}`, { value: tol });
      if (tol < 0) fail('BAD_TOLERANCE', `\`tolerance\` must be non-negative, got ${describe(tol)}`, { value: tol });
      if (typeof tol === 'number' && cls !== 'float' && tol !== Infinity && !Number.isInteger(tol)) {
        fail('BAD_TOLERANCE', `\`tolerance\` for ${typeToString(left.type)} keys must be a whole number, got ${describe(tol)}`, { column: left.name, value: tol });
      }
      if (cls === 'temporal') {
        const lu = temporalUnit(left.type);
        const ru = temporalUnit(right.type);
        if (lu !== ru) {
          fail(
            'BAD_TOLERANCE',
            `a numeric \`tolerance\` (${show(tol)}) is ambiguous for keys of different units (${typeToString(left.type)} and ${typeToString(right.type)}); give a duration string such as '5s'`,
            { column: left.name, value: tol },
          );
        }
        tolUnit = lu;
      }
      tolExact = tol;
    } else {
      fail('BAD_TOLERANCE', `\`tolerance\` must be a number, bigint or duration string, got ${describe(tol)}`, { value: tol as unknown });
    }
  }

  // --- key plan
  let unit: AsofUnit | null = null;
  let dateZone: string | null = null;
  if (cls === 'temporal') {
    unit = finer(temporalUnit(left.type), temporalUnit(right.type));
    if (tolUnit !== null && typeof toleranceText === 'string' && typeof tol === 'string') unit = finer(unit, tolUnit);
    const dateVsZoned = (left.type.kind === 'date' && rZoned) || (right.type.kind === 'date' && lZoned);
    if (dateVsZoned && canonicalZone !== 'UTC' && canonicalZone !== 'Etc/UTC') {
      dateZone = canonicalZone;
      unit = finer(unit, 's');
    }
  }
  const key: AsofKeyPlan = { cls, unit, dateZone };

  let tolerance: NormalizedTolerance | null = null;
  if (tolExact !== null) {
    if (cls === 'temporal') {
      if (typeof tol === 'string') {
        tolerance = makeAsofTolerance((tolExact as bigint) / BigInt(NS_PER_UNIT[unit!]));
      } else if (tolExact === Infinity) tolerance = makeAsofTolerance(Infinity);
      else {
        // a count of the keys' unit, converted to the common unit
        const factor = BigInt(NS_PER_UNIT[tolUnit!] / NS_PER_UNIT[unit!]);
        tolerance = makeAsofTolerance(BigInt(tolExact) * factor);
      }
    } else if (cls === 'integer' && typeof tolExact === 'number' && tolExact !== Infinity) {
      tolerance = makeAsofTolerance(BigInt(tolExact));
    } else tolerance = makeAsofTolerance(tolExact);
  }

  // --- by
  const by: ResolvedAsof['by'] = [];
  if (o.by !== undefined && o.by !== null) {
    const items: unknown[] = typeof o.by === 'string' ? [o.by] : Array.isArray(o.by) ? o.by : [o.by];
    if (typeof o.by !== 'string' && !Array.isArray(o.by)) {
      fail('BY_ARITY', `\`by\` must be a column name, a list of names, or a list of [leftCol, rightCol] pairs, got ${describe(o.by)}`);
    }
    for (const item of items) {
      let ln: unknown;
      let rn: unknown;
      if (typeof item === 'string') ln = rn = item;
      else if (Array.isArray(item)) {
        if (item.length !== 2) {
          fail('BY_ARITY', `each \`by\` pair must be [leftCol, rightCol], got ${item.length} names ${describe(item)}`, { value: item });
        }
        [ln, rn] = item;
      } else fail('BY_ARITY', `each \`by\` entry must be a name or a [leftCol, rightCol] pair, got ${describe(item)}`, { value: item });
      const bl = lookup(leftSchema, ln, 'left', '`by`');
      const br = lookup(rightSchema, rn, 'right', '`by`');
      const cl = byClass(bl.type);
      const cr = byClass(br.type);
      for (const [c, ref, side] of [[cl, bl, 'left'], [cr, br, 'right']] as const) {
        if (c === null) {
          fail(
            'UNSUPPORTED_KEY_TYPE',
            `\`by\` column ${show(ref.name)} of the ${side} input has type ${typeToString(ref.type)}; expected an integer, float, date, timestamp, string, binary or bool column`,
            { column: ref.name, side, type: typeToString(ref.type) },
          );
        }
      }
      if (cl !== cr) {
        fail(
          'BY_TYPE_MISMATCH',
          bl.type.kind === br.type.kind && unitOf(bl.type) !== unitOf(br.type)
            ? `\`by\` columns ${show(bl.name)} (${typeToString(bl.type)}) and ${show(br.name)} (${typeToString(br.type)}) have different units; \`by\` values match as stored, so both sides need the same unit: convert one side first${unitHint(bl, br)}`
            : `\`by\` columns ${show(bl.name)} (${typeToString(bl.type)}, ${cl}) and ${show(br.name)} (${typeToString(br.type)}, ${cr}) are not comparable; expected the same type class`,
          { column: bl.name, leftType: typeToString(bl.type), rightType: typeToString(br.type) },
        );
      }
      if (by.some((b) => b.left.index === bl.index && b.right.index === br.index)) {
        fail('DUPLICATE_BY', `\`by\` lists ${show(bl.name)}/${show(br.name)} twice`, { column: bl.name });
      }
      by.push({ left: bl, right: br });
    }
  }

  // --- output schema
  const output: FieldDesc[] = [];
  const outputSources: ResolvedAsof['outputSources'] = [];
  for (let i = 0; i < leftSchema.length; i++) {
    output.push({ ...leftSchema[i]! });
    outputSources.push({ side: 'left', index: i });
  }
  const rightBy = new Set(by.map((b) => b.right.index));
  const kept: number[] = [];
  for (let i = 0; i < rightSchema.length; i++) if (!rightBy.has(i)) kept.push(i);
  const names = rightOutputNames(leftSchema.map((f) => f.name), kept.map((i) => rightSchema[i]!.name), suffix);
  kept.forEach((i, k) => {
    const f = rightSchema[i]!;
    output.push({ name: names[k]!, type: f.type, nullable: how === 'left' ? true : f.nullable });
    outputSources.push({ side: 'right', index: i });
  });

  const resolved: ResolvedAsof = {
    on: { left, right },
    by,
    key,
    direction,
    tolerance,
    toleranceText,
    allowExactMatches,
    how,
    nullsEqual,
    timeZone: canonicalZone,
    suffix,
    output,
    outputSources,
  };
  if (o.condition !== undefined) resolved.condition = o.condition;
  return resolved;
}
