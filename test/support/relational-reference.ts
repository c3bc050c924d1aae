/**
 * Naive, row-at-a-time references of the relational verbs (API.md "Relational verbs"), written
 * from the contract alone, on plain JS rows (test/support/tables: 64-bit integers, date64 and
 * timestamps as bigint, other numbers as numbers, strings, booleans, null):
 *
 * - sort: Array.prototype.sort with a comparator (stable): ASC NULLS FIRST / DESC NULLS LAST by
 *   default, NaN above every number, -0 = +0, strings in UTF-8 byte order;
 * - groupBy: a Map keyed by the key tuple (NULL keys one group, NaN = NaN, -0 = 0), groups in
 *   order of first appearance; sums in exact BigInt then wrapped to int64 (uint64 for uint64),
 *   int avg = the float64 nearest the exact mean (ties to even); float sums are checked against the exact sum within
 *   (m - 1)·2^-53·Σ|x| (window-reference's bound); first/last by input order, NULL included;
 *   count() rows, count(x) and countDistinct(x) non-NULL values;
 * - join: nested loops over both sides, keys equal as groupBy compares them (integers by value
 *   whatever their width, dates and timestamps as elapsed time), NULL only with nullsEqual;
 *   output order by (left input order, right input order), then unmatched right rows;
 * - distinct: the first row of each distinct tuple, in input order.
 */
import type { FieldDesc, TypeDesc } from '../../src/types/column.js';
import type { JsValue } from './tables.js';
import { cmpValues, floatAvgWithinBound, floatSumWithinBound, nearestDouble } from './window-reference.js';

export type Row = Record<string, JsValue>;

export interface RefSortKey {
  column: string;
  descending?: boolean;
  nulls?: 'first' | 'last';
}

/** Input row indices in sorted order. */
export function refSort(rows: Row[], keys: RefSortKey[]): number[] {
  const idx = rows.map((_, i) => i);
  return idx.sort((a, b) => {
    for (const k of keys) {
      const x = rows[a]![k.column]!;
      const y = rows[b]![k.column]!;
      const desc = k.descending === true;
      const nullsFirst = (k.nulls ?? (desc ? 'last' : 'first')) === 'first';
      if (x === null || y === null) {
        if (x === null && y === null) continue;
        return (x === null) === nullsFirst ? -1 : 1;
      }
      const c = cmpValues(x, y);
      if (c !== 0) return desc ? -c : c;
    }
    return 0;
  });
}

const NS: Record<string, bigint> = { s: 1_000_000_000n, ms: 1_000_000n, us: 1_000n, ns: 1n };

/** A key value in a canonical text: equal keys (as API.md compares them) give equal text. */
export function keyText(v: JsValue, type: TypeDesc): string {
  if (v === null) return 'NULL';
  switch (type.kind) {
    case 'int':
      return `i${BigInt(v as number | bigint)}`;
    case 'float': {
      const x = v as number;
      return Number.isNaN(x) ? 'fNaN' : `f${x === 0 ? 0 : x}`;
    }
    case 'date':
      return `d${type.unit === 'day' ? BigInt(v as number) * 86_400_000n : BigInt(v as bigint)}`;
    case 'timestamp':
      return `t${BigInt(v as bigint) * NS[type.unit]!}`;
    case 'duration':
      return `u${BigInt(v as bigint) * NS[type.unit]!}`;
    default:
      return `${typeof v}:${String(v)}`;
  }
}

function tupleText(row: Row, cols: string[], types: Map<string, TypeDesc>): string {
  return cols.map((c) => keyText(row[c]!, types.get(c)!)).join('\u0001');
}

export interface RefAgg {
  name: string;
  fn: 'sum' | 'count' | 'avg' | 'min' | 'max' | 'first' | 'last' | 'countDistinct';
  column: string | null;
}

/** Row indices of each group, groups in order of their first row. */
export function refGroups(rows: Row[], keys: string[], schema: FieldDesc[]): number[][] {
  const types = new Map(schema.map((f) => [f.name, f.type]));
  const groups = new Map<string, number[]>();
  rows.forEach((r, i) => {
    const k = tupleText(r, keys, types);
    let g = groups.get(k);
    if (!g) groups.set(k, (g = []));
    g.push(i);
  });
  const out = [...groups.values()];
  if (keys.length === 0 && out.length === 0) out.push([]);
  return out;
}

type Expect = { kind: 'exact'; value: JsValue } | { kind: 'floatSum' | 'floatAvg'; values: number[] } | { kind: 'sameNumber'; value: JsValue };

function aggregate(rows: Row[], members: number[], agg: RefAgg, schema: FieldDesc[]): Expect {
  const vals = members.map((i) => (agg.column === null ? 1 : rows[i]![agg.column]!));
  const nonNull = vals.filter((v) => v !== null) as Exclude<JsValue, null>[];
  const type = agg.column === null ? null : schema.find((f) => f.name === agg.column)!.type;
  switch (agg.fn) {
    case 'count':
      return { kind: 'exact', value: BigInt(agg.column === null ? members.length : nonNull.length) };
    case 'countDistinct':
      return { kind: 'exact', value: BigInt(new Set(nonNull.map((v) => keyText(v, type!))).size) };
    case 'first':
      return { kind: 'exact', value: vals.length > 0 ? vals[0]! : null };
    case 'last':
      return { kind: 'exact', value: vals.length > 0 ? vals[vals.length - 1]! : null };
    case 'min':
    case 'max': {
      if (nonNull.length === 0) return { kind: 'exact', value: null };
      let best = nonNull[0]!;
      for (const v of nonNull.slice(1)) {
        const c = cmpValues(v, best);
        if (agg.fn === 'min' ? c < 0 : c > 0) best = v;
      }
      return { kind: 'sameNumber', value: best };
    }
    case 'sum':
    case 'avg': {
      if (nonNull.length === 0) return { kind: 'exact', value: null };
      if (type!.kind === 'float') return { kind: agg.fn === 'sum' ? 'floatSum' : 'floatAvg', values: nonNull as number[] };
      let s = 0n;
      for (const v of nonNull) s += BigInt(v as number | bigint);
      if (agg.fn === 'avg') return { kind: 'exact', value: nearestDouble(s, BigInt(nonNull.length)) };
      const unsigned = type!.kind === 'int' && type!.bits === 64 && !type!.signed;
      return { kind: 'exact', value: unsigned ? BigInt.asUintN(64, s) : BigInt.asIntN(64, s) };
    }
  }
}

function same(a: JsValue, b: JsValue): boolean {
  if (typeof a === 'number' && typeof b === 'number') return Object.is(a, b);
  return a === b;
}

function show(v: unknown): string {
  if (typeof v === 'bigint') return `${v}n`;
  if (typeof v === 'number' && Object.is(v, -0)) return '-0';
  return typeof v === 'string' ? JSON.stringify(v) : String(v);
}

/**
 * Compares a groupBy result (rows in output order) with the reference; returns mismatch
 * messages (empty: equal).
 */
export function checkGroupBy(actual: Row[], rows: Row[], keys: string[], aggs: RefAgg[], schema: FieldDesc[]): string[] {
  const groups = refGroups(rows, keys, schema);
  const msgs: string[] = [];
  if (actual.length !== groups.length) return [`${actual.length} groups, expected ${groups.length}`];
  groups.forEach((members, g) => {
    const out = actual[g]!;
    for (const k of keys) {
      const want = rows[members[0]!]![k]!;
      if (!same(out[k]!, want)) msgs.push(`group ${g} key ${k}: ${show(out[k])}, expected ${show(want)} (first row ${members[0]})`);
    }
    for (const a of aggs) {
      const e = aggregate(rows, members, a, schema);
      const got = out[a.name]!;
      const ok =
        e.kind === 'exact'
          ? same(got, e.value)
          : e.kind === 'sameNumber'
            ? same(got, e.value) || (typeof got === 'number' && got === e.value)
            : typeof got === 'number' && (e.kind === 'floatSum' ? floatSumWithinBound(got, e.values) : floatAvgWithinBound(got, e.values));
      if (!ok) msgs.push(`group ${g} ${a.name} = ${a.fn}(${a.column ?? '*'}): ${show(got)}, expected ${e.kind === 'exact' || e.kind === 'sameNumber' ? show(e.value) : `${e.kind} of [${e.values.map(show).join(', ')}]`}`);
    }
  });
  return msgs.slice(0, 10);
}

/** Row indices of the first row of each distinct tuple of `cols`, in input order. */
export function refDistinct(rows: Row[], cols: string[], schema: FieldDesc[]): number[] {
  return refGroups(rows, cols, schema).map((g) => g[0]!).filter((i) => i !== undefined);
}

export type JoinHowRef = 'inner' | 'left' | 'right' | 'full' | 'semi' | 'anti';

/** Output rows of a join as (left row | null, right row | null) index pairs, in output order. */
export function refJoin(
  left: Row[],
  right: Row[],
  pairs: Array<[string, string]>,
  leftSchema: FieldDesc[],
  rightSchema: FieldDesc[],
  how: JoinHowRef,
  nullsEqual: boolean,
): Array<[number | null, number | null]> {
  const lt = new Map(leftSchema.map((f) => [f.name, f.type]));
  const rt = new Map(rightSchema.map((f) => [f.name, f.type]));
  const matches = (l: Row, r: Row): boolean =>
    pairs.every(([a, b]) => {
      const x = l[a]!;
      const y = r[b]!;
      if (x === null || y === null) return nullsEqual && x === null && y === null;
      return keyText(x, lt.get(a)!) === keyText(y, rt.get(b)!);
    });
  const out: Array<[number | null, number | null]> = [];
  const rightMatched = new Array<boolean>(right.length).fill(false);
  left.forEach((l, i) => {
    const ms: number[] = [];
    right.forEach((r, j) => {
      if (matches(l, r)) ms.push(j);
    });
    for (const j of ms) rightMatched[j] = true;
    if (how === 'semi') {
      if (ms.length > 0) out.push([i, null]);
    } else if (how === 'anti') {
      if (ms.length === 0) out.push([i, null]);
    } else if (ms.length === 0) {
      if (how === 'left' || how === 'full') out.push([i, null]);
    } else for (const j of ms) out.push([i, j]);
  });
  if (how === 'right' || how === 'full') right.forEach((_, j) => !rightMatched[j] && out.push([null, j]));
  return out;
}
