/**
 * ASOF key types: how the two `on` columns are planned (`AsofKeyPlan`, from resolveAsof) and the
 * one comparable form both sides are normalized to (`NormalizedKey`), with the temporal units.
 *
 * - integer and temporal keys become exact integers in the plan's common unit (the finest of
 *   both sides and of the tolerance): doubles (`f64`, exact, |v| <= 2^52, or v - base with a
 *   common base) or three limbs (`wide`, v = h*2^64 + m*2^32 + l);
 * - float keys become doubles (`f64`, not exact; -0 is +0, NaN rows invalid);
 * - string keys keep their UTF-8 bytes and offsets (`utf8`), compared in byte order.
 * `valid` marks rows that can match (0 = NULL or NaN; those never match).
 */
import type { TimeUnit, TypeDesc } from '../types/column.js';

export type AsofKeyClass = 'integer' | 'float' | 'temporal' | 'string';
/** Temporal units, coarsest first; `day` is date32. */
export type AsofUnit = 'day' | TimeUnit;

/** How both key columns are brought to one comparable form (computed by resolveAsof). */
export interface AsofKeyPlan {
  cls: AsofKeyClass;
  /** temporal only: the common unit both sides are converted to (finest of sides and tolerance). */
  unit: AsofUnit | null;
  /** temporal only: zone of DATE midnights when the other side is a zoned TIMESTAMP; null = UTC. */
  dateZone: string | null;
}

export type NormalizedKey =
  /** doubles; `exact`: integers with |v| <= 2^52 (double arithmetic exact); else float keys. */
  | { kind: 'f64'; exact: boolean; values: Float64Array; valid: Uint8Array | null }
  /** exact integers v = h*2^64 + m*2^32 + l. */
  | { kind: 'wide'; h: Float64Array; m: Uint32Array; l: Uint32Array; valid: Uint8Array | null }
  /** UTF-8 strings; row i is bytes[offsets[i]..offsets[i+1]). */
  | { kind: 'utf8'; bytes: Uint8Array; offsets: Int32Array; valid: Uint8Array | null };


export const NS_PER_UNIT: Readonly<Record<AsofUnit, number>> = { day: 86_400e9, s: 1e9, ms: 1e6, us: 1e3, ns: 1 };
export const UNIT_RANK: Readonly<Record<AsofUnit, number>> = { day: 0, s: 1, ms: 2, us: 3, ns: 4 };

/** The temporal unit of a DATE/TIMESTAMP/DURATION type. */
export function temporalUnit(t: TypeDesc): AsofUnit {
  if (t.kind === 'date') return t.unit === 'day' ? 'day' : 'ms';
  if (t.kind === 'timestamp' || t.kind === 'duration') return t.unit;
  throw new Error(`not a temporal type: ${t.kind}`);
}

/** Number of rows of a normalized key. */
export function asofKeyLength(key: NormalizedKey): number {
  return key.kind === 'f64' ? key.values.length : key.kind === 'wide' ? key.h.length : key.offsets.length - 1;
}
