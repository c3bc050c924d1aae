/**
 * Join key columns brought to one comparable representation (src/ops/join-spec KeyScale):
 * DATE/TIMESTAMP/DURATION keys of different units are scaled to the finer unit, as exact
 * 64-bit integers (16-bit limb products in doubles: every partial product < 2^47, no BigInt).
 * A value whose scaled form does not fit in int64 can equal no value of the other side: it is
 * flagged in `never`, and the join gives it no match.
 */
import type * as A from 'apache-arrow';
import { toKeyColumn } from '../columns/shared.js';
import type { KeyScale } from '../ops/join-spec.js';
import type { TypeDesc } from '../types/column.js';
import type { KeyColumn } from '../types/keys.js';
import { scratchAlloc } from './scratch.js';

/** One side's key columns in common units, and its rows that can match nothing (or null). */
export interface SideKeys {
  columns: KeyColumn[];
  never: Uint8Array | null;
}

export function sideKeys(columns: A.Data[], n: number, positions: number[], scales: KeyScale[], side: 'left' | 'right'): SideKeys {
  let never: Uint8Array | null = null;
  const keys = positions.map((p, k) => {
    const s = scales[k]!;
    const scaled = scaleKey(toKeyColumn(columns[p]!), side === 'left' ? s.left : s.right, s.type);
    if (scaled.never) {
      never ??= scratchAlloc(Uint8Array, n);
      for (let i = 0; i < n; i++) never[i]! |= scaled.never[i]!;
    }
    return scaled.column;
  });
  return { columns: keys, never };
}

/** Rows flagged in `never` get no group. */
export function clearNever(ids: Int32Array, never: Uint8Array | null): void {
  if (never === null) return;
  for (let i = 0; i < ids.length; i++) if (never[i] === 1) ids[i] = -1;
}

export interface ScaledKey {
  column: KeyColumn;
  /** 1 for rows that can match nothing (scaling overflowed), or null when there are none. */
  never: Uint8Array | null;
}

const TWO16 = 65536;

export function scaleKey(col: KeyColumn, factor: number, type: TypeDesc | null): ScaledKey {
  if (factor === 1 || type === null) return { column: type === null ? col : { ...col, type }, never: null };
  const n = col.length;
  const out = scratchAlloc(BigInt64Array, n);
  const o = new Uint32Array(out.buffer, out.byteOffset, 2 * n);
  let never: Uint8Array | null = null;
  const v = col.values;
  const wide = v instanceof BigInt64Array;
  const w = wide ? new Uint32Array(v.buffer, v.byteOffset, 2 * n) : null;
  const narrow = wide ? null : (v as Int32Array);
  for (let i = 0; i < n; i++) {
    let ml: number;
    let mh: number;
    let neg: boolean;
    if (w !== null) {
      const lo = w[2 * i]!;
      const hi = w[2 * i + 1]!;
      neg = hi >= 0x80000000;
      if (neg) {
        ml = (~lo + 1) >>> 0;
        mh = (~hi + (ml === 0 ? 1 : 0)) >>> 0;
      } else {
        ml = lo;
        mh = hi;
      }
    } else {
      const x = narrow![i]!;
      neg = x < 0;
      ml = neg ? -x : x;
      mh = 0;
    }
    // (mh, ml) × factor in four 16-bit limbs.
    let p = (ml & 0xffff) * factor;
    let c = Math.floor(p / TWO16);
    const r0 = p - c * TWO16;
    p = (ml >>> 16) * factor + c;
    c = Math.floor(p / TWO16);
    const r1 = p - c * TWO16;
    p = (mh & 0xffff) * factor + c;
    c = Math.floor(p / TWO16);
    const r2 = p - c * TWO16;
    p = (mh >>> 16) * factor + c;
    c = Math.floor(p / TWO16);
    const r3 = p - c * TWO16;
    if (c > 0 || r3 >= 0x8000) {
      never ??= scratchAlloc(Uint8Array, n);
      never[i] = 1;
      continue;
    }
    let lo = r1 * TWO16 + r0;
    let hi = r3 * TWO16 + r2;
    if (neg) {
      lo = (~lo + 1) >>> 0;
      hi = (~hi + (lo === 0 ? 1 : 0)) >>> 0;
    }
    o[2 * i] = lo;
    o[2 * i + 1] = hi;
  }
  return { column: { type, length: n, values: out, offsets: null, valid: col.valid }, never };
}
