/**
 * `left.join(right, { on, how, suffix, nullsEqual })` resolved against both schemas (API.md
 * "Relational verbs"); every problem is a PlanError before any row is read.
 *
 * Keys: `on` is a name (same on both sides), a list of names, or [leftCol, rightCol] pairs (a
 * list may mix both). Key types pair as asofJoin `by` columns do: integers of any width and
 * signedness together (compared by value), float32/float64, bool, strings, binary, dates
 * (date32/date64 compared as elapsed time), timestamps of any unit (zoned with zoned: instants;
 * zone-less with zone-less), durations of any unit. Mixed units are compared in the finer unit
 * (the worker scales the coarser side; a value that overflows the finer unit matches nothing).
 * Keys compare as groupBy groups them: NaN = NaN, -0 = 0; NULL matches only with nullsEqual.
 *
 * Output: the left columns, then the right columns except the right key of each pair whose two
 * names are equal (SQL USING); colliding right names get `suffix`, then `_2`, `_3`… (as in
 * asofJoin). For `right`/`full`, each such shared key column holds the key of whichever side has
 * the row, typed as the wider of the two key types. `semi`/`anti`: the left columns only.
 * Nullability: right columns in left/full joins, left columns in right/full joins.
 */
import { PlanError, show } from '../errors.js';
import { typeToString, typesEqual, type FieldDesc, type TimeUnit, type TypeDesc } from '../types/column.js';
import { findKey, type KeyRef } from './key-types.js';
import { rightOutputNames } from './join-names.js';

export type JoinHow = 'inner' | 'left' | 'right' | 'full' | 'semi' | 'anti';

export interface JoinOptions {
  on: string | Array<string | [leftColumn: string, rightColumn: string]>;
  how?: JoinHow;
  suffix?: string;
  nullsEqual?: boolean;
}

/** How the worker brings both sides of a key pair to one comparable representation. */
export interface KeyScale {
  /** Multiply this side's raw integer values by `left` / `right` (1: as is). */
  left: number;
  right: number;
  /** The type of the scaled values (null: no scaling). */
  type: TypeDesc | null;
}

export interface JoinKeyPair {
  left: KeyRef;
  right: KeyRef;
  /** Same names: the right key is not an output column (USING). */
  shared: boolean;
  scale: KeyScale;
}

export interface ResolvedJoin {
  how: JoinHow;
  keys: JoinKeyPair[];
  nullsEqual: boolean;
  suffix: string;
  output: FieldDesc[];
  /** For each output column: a left input column, or a right input column. */
  sources: Array<{ side: 'left' | 'right'; index: number }>;
  /** right/full: output positions of shared key columns, with the right key that fills them. */
  usingColumns: Array<{ out: number; right: number; type: TypeDesc }>;
}

const UNIT_NS: Record<TimeUnit, number> = { s: 1e9, ms: 1e6, us: 1e3, ns: 1 };

function fail(code: string, message: string, details: Record<string, unknown> = {}): never {
  throw new PlanError(code, `join(): ${message}`, details);
}

/** Equality class of a key type: two keys can be compared only within one class. */
function keyClass(t: TypeDesc): string {
  switch (t.kind) {
    case 'int':
      return 'integer';
    case 'float':
      return 'float';
    case 'utf8':
    case 'largeUtf8':
      return 'string';
    case 'binary':
    case 'largeBinary':
      return 'binary';
    case 'timestamp':
      return t.timezone === null ? 'timestamp (zone-less)' : 'timestamp (zoned)';
    case 'decimal':
      // compared by their unscaled 128-bit words: only at one scale
      return `decimal of scale ${t.scale}`;
    default:
      return t.kind;
  }
}

function unitOf(t: TypeDesc): TimeUnit | 'day' {
  if (t.kind === 'date') return t.unit === 'day' ? 'day' : 'ms';
  if (t.kind === 'timestamp' || t.kind === 'duration') return t.unit;
  return 'ns';
}

function scaleOf(l: TypeDesc, r: TypeDesc): KeyScale {
  if (l.kind === 'date' && r.kind === 'date' && l.unit !== r.unit) {
    return { left: l.unit === 'day' ? 86_400_000 : 1, right: r.unit === 'day' ? 86_400_000 : 1, type: { kind: 'date', unit: 'ms' } };
  }
  if ((l.kind === 'timestamp' && r.kind === 'timestamp') || (l.kind === 'duration' && r.kind === 'duration')) {
    const lu = unitOf(l) as TimeUnit;
    const ru = unitOf(r) as TimeUnit;
    if (lu === ru) return { left: 1, right: 1, type: null };
    const fine: TimeUnit = UNIT_NS[lu] < UNIT_NS[ru] ? lu : ru;
    const type: TypeDesc = l.kind === 'timestamp' ? { kind: 'timestamp', unit: fine, timezone: l.timezone } : { kind: 'duration', unit: fine };
    return { left: UNIT_NS[lu] / UNIT_NS[fine], right: UNIT_NS[ru] / UNIT_NS[fine], type };
  }
  return { left: 1, right: 1, type: null };
}

/** The type a shared (USING) key column takes in a right/full join, or null when there is none. */
function widerType(l: TypeDesc, r: TypeDesc): TypeDesc | null {
  if (typesEqual(l, r)) return l;
  if (l.kind === 'null') return r;
  if (r.kind === 'null') return l;
  if (l.kind === 'int' && r.kind === 'int') {
    if (l.signed === r.signed) return { kind: 'int', bits: Math.max(l.bits, r.bits) as 8 | 16 | 32 | 64, signed: l.signed };
    const [s, u] = l.signed ? [l, r] : [r, l];
    if (s.bits > u.bits) return s;
    if (u.bits === 64) return null;
    return { kind: 'int', bits: (u.bits * 2) as 16 | 32 | 64, signed: true };
  }
  if (l.kind === 'float' && r.kind === 'float') return { kind: 'float', bits: Math.max(l.bits, r.bits) as 32 | 64 };
  if (l.kind === 'decimal' && r.kind === 'decimal' && l.scale === r.scale) return { kind: 'decimal', precision: Math.max(l.precision, r.precision), scale: l.scale };
  if (l.kind === 'date' && r.kind === 'date') return { kind: 'date', unit: 'ms' };
  if (l.kind === 'timestamp' && r.kind === 'timestamp') {
    const fine = UNIT_NS[l.unit] <= UNIT_NS[r.unit] ? l.unit : r.unit;
    return { kind: 'timestamp', unit: fine, timezone: l.timezone };
  }
  return null;
}

function keyList(on: unknown): Array<[unknown, unknown]> {
  if (typeof on === 'string') return [[on, on]];
  if (!Array.isArray(on) || on.length === 0) fail('BAD_OPTION', `\`on\`: Expected a column name, a non-empty list of names, or [leftColumn, rightColumn] pairs, got ${show(on)}`, { option: 'on' });
  return on.map((item: unknown) => {
    if (typeof item === 'string') return [item, item] as [unknown, unknown];
    if (Array.isArray(item) && item.length === 2) return [item[0], item[1]] as [unknown, unknown];
    return fail('BAD_OPTION', `\`on\`: each key must be a column name or a [leftColumn, rightColumn] pair, got ${show(item)}`, { option: 'on' });
  });
}

export function resolveJoin(options: JoinOptions, leftSchema: FieldDesc[], rightSchema: FieldDesc[]): ResolvedJoin {
  const how: JoinHow = options.how ?? 'inner';
  const nullsEqual = options.nullsEqual ?? false;
  const suffix = options.suffix ?? '_right';
  const keys: JoinKeyPair[] = [];
  for (const [ln, rn] of keyList(options.on)) {
    const left = findKey(leftSchema, ln, 'join() `on` (left side)');
    const right = findKey(rightSchema, rn, 'join() `on` (right side)');
    const lc = keyClass(left.type);
    const rc = keyClass(right.type);
    if (lc !== rc && left.type.kind !== 'null' && right.type.kind !== 'null') {
      fail(
        'KEY_TYPE_MISMATCH',
        `keys ${show(left.name)} (${typeToString(left.type)}, ${lc}) and ${show(right.name)} (${typeToString(right.type)}, ${rc}) cannot be compared; expected the same type class (integers of any width pair with each other): cast one side`,
        { column: left.name, leftType: typeToString(left.type), rightType: typeToString(right.type) },
      );
    }
    if (keys.some((k) => k.left.index === left.index && k.right.index === right.index)) {
      fail('DUPLICATE_KEY', `\`on\` lists ${show(left.name)} = ${show(right.name)} twice`, { column: left.name });
    }
    keys.push({ left, right, shared: left.name === right.name, scale: scaleOf(left.type, right.type) });
  }

  const leftNullable = how === 'right' || how === 'full';
  const rightNullable = how === 'left' || how === 'full';
  const output: FieldDesc[] = [];
  const sources: ResolvedJoin['sources'] = [];
  const usingColumns: ResolvedJoin['usingColumns'] = [];
  leftSchema.forEach((f, i) => {
    const pair = keys.find((k) => k.shared && k.left.index === i);
    let field: FieldDesc = { ...f, nullable: f.nullable || leftNullable };
    if (pair && leftNullable) {
      const type = widerType(pair.left.type, pair.right.type);
      if (type === null) {
        fail(
          'USING_KEY_TYPE',
          `the shared key column ${show(f.name)} of a ${how} join must hold both sides' keys, but no one type holds ${typeToString(pair.left.type)} and ${typeToString(pair.right.type)}; cast one side, or rename one key so both columns are kept`,
          { column: f.name },
        );
      }
      field = { name: f.name, type, nullable: pair.left.nullable || pair.right.nullable };
      usingColumns.push({ out: output.length, right: pair.right.index, type });
    }
    output.push(field);
    sources.push({ side: 'left', index: i });
  });
  if (how !== 'semi' && how !== 'anti') {
    const dropped = new Set(keys.filter((k) => k.shared).map((k) => k.right.index));
    const kept = rightSchema.map((_, i) => i).filter((i) => !dropped.has(i));
    const names = rightOutputNames(leftSchema.map((f) => f.name), kept.map((i) => rightSchema[i]!.name), suffix);
    kept.forEach((i, k) => {
      const f = rightSchema[i]!;
      output.push({ name: names[k]!, type: f.type, nullable: f.nullable || rightNullable });
      sources.push({ side: 'right', index: i });
    });
  }
  return { how, keys, nullsEqual, suffix, output, sources, usingColumns };
}

export function joinKeysText(keys: JoinKeyPair[]): string {
  return keys.map((k) => (k.shared ? k.left.name : `${k.left.name} = ${k.right.name}`)).join(', ');
}
