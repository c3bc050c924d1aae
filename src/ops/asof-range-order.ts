/**
 * The order ASOF key ranges split rows by: (by keys, on key) tuples compared lexicographically.
 * By values compare as a sort orders them (src/ops/sort-compare: NULL first, -0 = +0, NaN
 * last; strings by bytes); the on key compares normalized (src/ops/asof-keys), NULL/NaN first.
 * Rows equal in every by key are one by group, and a group's rows are ordered by the on key,
 * so a range of tuples holds whole groups but maybe its first and last ones, cut by on key.
 * Tuples carry no row id: equal (by, on) tuples always share a range (the boundary rows a
 * range borrows from its neighbours are then the last / first of their equal keys).
 *
 * `alignByColumn` gives two sides' by columns one comparable layout: integers of 32 bits or
 * fewer compare as numbers; a 32-bit side facing a signed 64-bit one is widened to int64.
 */
import type { TypeDesc } from '../types/column.js';
import type { KeyColumn } from '../types/keys.js';
import { compareAsofKeys, type NormalizedKey } from './asof-keys.js';
import { valueCompare } from './sort-compare.js';

function is64(c: KeyColumn): boolean {
  return c.values instanceof BigInt64Array || c.values instanceof BigUint64Array;
}

/** Whether by columns of these two types can be ordered against each other (see alignByColumn). */
export function byTypesOrderable(a: TypeDesc, b: TypeDesc): boolean {
  if (a.kind === 'int' && b.kind === 'int') {
    if (a.bits <= 32 && b.bits <= 32) return true;
    if (a.bits === 64 && b.bits === 64) return a.signed === b.signed;
    return (a.bits === 64 ? a : b).signed;
  }
  return a.kind === b.kind;
}

/** `c` in the layout of `like` (a narrow integer column widened to int64), or `c` itself. */
export function alignByColumn(c: KeyColumn, like: KeyColumn): KeyColumn {
  if (is64(c) || !is64(like)) return c;
  const src = c.values as unknown as ArrayLike<number>;
  const out = new BigInt64Array(c.length);
  const w = new Int32Array(out.buffer);
  for (let i = 0; i < c.length; i++) {
    const x = src[i]!;
    w[2 * i] = x | 0;
    w[2 * i + 1] = x < 0 ? -1 : 0;
  }
  return { ...c, values: out };
}

/**
 * compare(a, b) of row a of side A with row b of side B: negative when A's tuple comes first.
 * `aBy` and `bBy` must be aligned (alignByColumn).
 */
export function asofTupleComparer(aBy: KeyColumn[], aOn: NormalizedKey, bBy: KeyColumn[], bOn: NormalizedKey): (a: number, b: number) => number {
  const cmps = aBy.map((c, k) => valueCompare(c, bBy[k]!));
  const k = aBy.length;
  const av = aOn.valid;
  const bv = bOn.valid;
  return (a, b) => {
    for (let c = 0; c < k; c++) {
      const ca = aBy[c]!;
      const cb = bBy[c]!;
      const an = ca.type.kind === 'null' || (ca.valid !== null && ca.valid[a] === 0);
      const bn = cb.type.kind === 'null' || (cb.valid !== null && cb.valid[b] === 0);
      if (an || bn) {
        if (an && bn) continue;
        return an ? -1 : 1;
      }
      const d = cmps[c]!(a, b);
      if (d !== 0) return d;
    }
    const ai = av === null || av[a] === 1;
    const bi = bv === null || bv[b] === 1;
    if (!ai || !bi) return ai === bi ? 0 : ai ? 1 : -1;
    return compareAsofKeys(aOn, a, bOn, b);
  };
}
