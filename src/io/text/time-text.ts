/**
 * Text of temporal values, exact at every unit, from their 32-bit words (src/io/temporal-text):
 * - DATE `YYYY-MM-DD` (a date64 that is not midnight shows its time too)
 * - TIMESTAMP without a zone: ISO-8601 wall time, `2024-03-10T01:30:00[.fraction]`
 * - TIMESTAMP with a zone: the zone's local wall time with its offset at that instant,
 *   `2024-03-10T03:30:00-04:00`; `Z` for UTC zones; a zone the time-zone database does not
 *   know shows the instant in UTC with `Z` (still the right instant)
 * - TIME `HH:MM:SS[.fraction]`
 * Fractions appear only when non-zero, with the unit's digits (3/6/9).
 */
import { divScratch, divWords } from '../../ops/int64-words.js';
import { civilScratch, formatCivil, formatDate, splitTimestamp, type Unit } from '../temporal-text.js';
import { formatOffset, zoneOffsets } from '../time-zones.js';

export type { Unit };

/** Arrow's TimeUnit enum order. */
export const UNITS: readonly Unit[] = ['s', 'ms', 'us', 'ns'];

export { formatDate };

/** A 64-bit value's words from a bigint (for callers holding one value, not a column). */
function hiOf(v: bigint): number {
  return Number(BigInt.asIntN(32, v >> 32n));
}
function loOf(v: bigint): number {
  return Number(v & 0xffffffffn);
}

/** Text of a date64 value (ms, as its words): a date, or a timestamp when not at midnight. */
export function formatDate64(hi: number, lo: number): string {
  divWords(hi, lo, 86_400_000);
  if (divScratch[1] === 0) return formatDate(divScratch[0]!);
  splitTimestamp(hi, lo, 'ms');
  return formatCivil(civilScratch[0]!, civilScratch[1]!, civilScratch[2]!, 'ms', false);
}

/**
 * A formatter for timestamps of `unit` in `zone` (null or '' for zone-less timestamps), taking
 * a value's 64-bit words (hi signed, lo unsigned).
 */
export function timestampWordsFormatter(unit: Unit, zone: string | null | undefined): (hi: number, lo: number) => string {
  const plain = zone === null || zone === undefined || zone === '';
  const offsets = plain ? null : zoneOffsets(zone);
  const utc = !plain && (offsets === null || offsets.isUtc);
  if (offsets === null || offsets.isUtc)
    return (hi, lo) => {
      splitTimestamp(hi, lo, unit);
      return formatCivil(civilScratch[0]!, civilScratch[1]!, civilScratch[2]!, unit, utc);
    };
  const suffixes = new Map<number, string>();
  return (hi, lo) => {
    splitTimestamp(hi, lo, unit);
    let days = civilScratch[0]!;
    const sod = civilScratch[1]!;
    // the instant's epoch second (rounded beyond 2^53 s, far past every zone transition)
    const offset = offsets.offsetSecondsAt(days * 86400 + sod);
    let local = sod + offset;
    while (local < 0) {
      local += 86400;
      days -= 1;
    }
    while (local >= 86400) {
      local -= 86400;
      days += 1;
    }
    let suffix = suffixes.get(offset);
    if (suffix === undefined) {
      suffix = formatOffset(offset);
      suffixes.set(offset, suffix);
    }
    return formatCivil(days, local, civilScratch[2]!, unit, false) + suffix;
  };
}

/** `timestampWordsFormatter` for one bigint value at a time. */
export function timestampFormatter(unit: Unit, zone: string | null | undefined): (value: bigint) => string {
  const f = timestampWordsFormatter(unit, zone);
  return (v) => f(hiOf(v), loOf(v));
}

/** Time of day from a count of `unit` since midnight (as its words). */
export function formatTimeOfDay(hi: number, lo: number, unit: Unit): string {
  splitTimestamp(hi, lo, unit);
  return formatCivil(civilScratch[0]!, civilScratch[1]!, civilScratch[2]!, unit, false).slice(11);
}
