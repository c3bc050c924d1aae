/**
 * Test harness: plays the worker around the pure ASOF kernel on plain rows.
 * resolveAsof → KeyColumns from rows → normalizeAsofKey → group ids from `by` values →
 * sort each side by (group, asofSortFields' words, row id) with a simple comparator → permute keys →
 * asofMatch (checkPairs evaluates a JS condition over output rows) → right row index per left row.
 * With `keepInvalid`, rows with NULL/NaN keys stay in the sorted input at random positions of
 * their group (the kernel must treat them as absent).
 */
import { asofMatch } from '../../src/ops/asof-join.js';
import { asofSortFields, normalizeAsofKey, permuteAsofKey, type NormalizedKey } from '../../src/ops/asof-keys.js';
import { fieldWords } from '../../src/worker/sort-keys.js';
import { resolveAsof, type AsofOptions } from '../../src/ops/asof-spec.js';
import type { FieldDesc, TypeDesc } from '../../src/types/column.js';
import type { KeyColumn } from '../../src/types/keys.js';
import type { AsofRow } from '../support/asof-reference.js';

/** A key's sort fields as words, most significant first: their lexicographic order is the key order. */
export function asofSortWords(key: NormalizedKey): Uint32Array[] {
  return fieldWords(asofSortFields(key));
}

export function keyColumn(type: TypeDesc, values: unknown[]): KeyColumn {
  const n = values.length;
  const valid = new Uint8Array(n);
  values.forEach((v, i) => (valid[i] = v === null || v === undefined ? 0 : 1));
  const anyNull = valid.includes(0);
  // junk under NULLs (not 0), so code that reads a NULL row's value shows
  const big = (v: unknown) => (v === null || v === undefined ? -12_345n : typeof v === 'bigint' ? v : BigInt(v as number));
  const num = (v: unknown) => (v === null || v === undefined ? 77 : Number(v));
  let arr: KeyColumn['values'];
  let offsets: Int32Array | null = null;
  switch (type.kind) {
    case 'int': {
      if (type.bits === 64) arr = type.signed ? BigInt64Array.from(values, big) : BigUint64Array.from(values, big);
      else {
        const C = { 8: [Int8Array, Uint8Array], 16: [Int16Array, Uint16Array], 32: [Int32Array, Uint32Array] }[type.bits][type.signed ? 0 : 1]!;
        arr = C.from(values.map(num));
      }
      break;
    }
    case 'float':
      arr = type.bits === 32 ? Float32Array.from(values, num) : Float64Array.from(values, num);
      break;
    case 'date':
      arr = type.unit === 'day' ? Int32Array.from(values, num) : BigInt64Array.from(values, big);
      break;
    case 'timestamp':
      arr = BigInt64Array.from(values, big);
      break;
    case 'utf8':
    case 'largeUtf8': {
      const enc = values.map((v) => Buffer.from(typeof v === 'string' ? v : '', 'utf8'));
      // a non-zero first offset, as the KeyColumn contract allows
      const total = enc.reduce((a, b) => a + b.length, 0);
      arr = new Uint8Array(total + 3);
      offsets = new Int32Array(n + 1);
      let at = 3;
      offsets[0] = 3;
      enc.forEach((b, i) => {
        (arr as Uint8Array).set(b, at);
        at += b.length;
        offsets![i + 1] = at;
      });
      break;
    }
    default:
      throw new Error(`harness: unsupported key type ${type.kind}`);
  }
  return { type, length: n, values: arr, offsets, valid: anyNull ? valid : null };
}

function byToken(v: unknown): string {
  if (typeof v === 'number') return Number.isNaN(v) ? 'NaN' : `n${v + 0}`;
  if (typeof v === 'bigint') return `n${v}`;
  return `s${JSON.stringify(v)}`;
}

export interface HarnessOptions {
  keepInvalid?: boolean;
  seed?: number;
  /** observe checkPairs calls */
  onCheck?: (count: number) => void;
}

export function runAsofKernel(
  left: AsofRow[],
  right: AsofRow[],
  leftSchema: FieldDesc[],
  rightSchema: FieldDesc[],
  options: AsofOptions,
  condition?: (outRow: AsofRow) => boolean | null,
  h: HarnessOptions = {},
): Array<number | null> {
  const r = resolveAsof(options, leftSchema, rightSchema);
  let seed = h.seed ?? 12345;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x80000000;
  };
  const groupIds = new Map<string, number>();
  const prep = (rows: AsofRow[], schema: FieldDesc[], side: 'left' | 'right') => {
    const onRef = side === 'left' ? r.on.left : r.on.right;
    const col = keyColumn(onRef.type, rows.map((row) => row[onRef.name]));
    const key = normalizeAsofKey(col, r.key);
    const words = asofSortWords(key);
    const group = new Int32Array(rows.length).fill(-1);
    rows.forEach((row, i) => {
      const parts: string[] = [];
      for (const b of r.by) {
        const v = row[(side === 'left' ? b.left : b.right).name];
        if (v === null || v === undefined) {
          if (!r.nullsEqual) return;
          parts.push('NULL');
        } else parts.push(byToken(v));
      }
      const t = parts.join('|');
      let g = groupIds.get(t);
      if (g === undefined) groupIds.set(t, (g = groupIds.size));
      group[i] = g;
    });
    void schema;
    return { key, words, group };
  };
  const L = prep(left, leftSchema, 'left');
  const R = prep(right, rightSchema, 'right');
  const G = groupIds.size;

  const order = (s: ReturnType<typeof prep>, n: number) => {
    const isValid = (i: number) => s.key.valid === null || s.key.valid[i] === 1;
    const ids: number[] = [];
    for (let i = 0; i < n; i++) if (s.group[i]! >= 0 && (h.keepInvalid || isValid(i))) ids.push(i);
    const cmp = (a: number, b: number) => {
      if (s.group[a] !== s.group[b]) return s.group[a]! - s.group[b]!;
      for (const w of s.words) if (w[a] !== w[b]) return w[a]! < w[b]! ? -1 : 1;
      return a - b;
    };
    const valid = ids.filter(isValid).sort(cmp);
    // invalid rows go to random positions within their group
    for (const i of ids.filter((i) => !isValid(i))) {
      const g = s.group[i]!;
      const first = valid.findIndex((j) => s.group[j]! >= g);
      let end = valid.findIndex((j) => s.group[j]! > g);
      if (first < 0) end = valid.length;
      else if (end < 0) end = valid.length;
      const lo = first < 0 ? valid.length : first;
      valid.splice(lo + Math.floor(rand() * (end - lo + 1)), 0, i);
    }
    const starts = new Uint32Array(G + 1);
    for (const i of valid) starts[s.group[i]! + 1]!++;
    for (let g = 0; g < G; g++) starts[g + 1]! += starts[g]!;
    return { ord: Int32Array.from(valid), starts };
  };
  const lo = order(L, left.length);
  const ro = order(R, right.length);

  let checkPairs: ((lp: Int32Array, rp: Int32Array, count: number) => Uint8Array) | undefined;
  if (condition) {
    checkPairs = (lp, rp, count) => {
      h.onCheck?.(count);
      const out = new Uint8Array(count);
      for (let t = 0; t < count; t++) {
        const lrow = left[lo.ord[lp[t]!]!]!;
        const rrow = right[ro.ord[rp[t]!]!]!;
        const o: AsofRow = {};
        r.output.forEach((f, c) => {
          const src = r.outputSources[c]!;
          o[f.name] = src.side === 'left' ? lrow[leftSchema[src.index]!.name] : rrow[rightSchema[src.index]!.name];
        });
        out[t] = condition(o) === true ? 1 : 0;
      }
      return out;
    };
  }
  const res = asofMatch({
    left: { n: lo.ord.length, groupStarts: lo.starts, key: permuteAsofKey(L.key, lo.ord) },
    right: { n: ro.ord.length, groupStarts: ro.starts, key: permuteAsofKey(R.key, ro.ord) },
    direction: r.direction,
    tolerance: r.tolerance,
    allowExactMatches: r.allowExactMatches,
    checkPairs,
  });
  const out: Array<number | null> = new Array(left.length).fill(null);
  for (let p = 0; p < lo.ord.length; p++) {
    const m = res[p]!;
    out[lo.ord[p]!] = m < 0 ? null : ro.ord[m]!;
  }
  return out;
}
