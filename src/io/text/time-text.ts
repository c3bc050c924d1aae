/**
 * Text of temporal values, exact at every unit (bigint arithmetic of src/io/temporal-text):
 * - DATE `YYYY-MM-DD` (a date64 that is not midnight shows its time too)
 * - TIMESTAMP without a zone: ISO-8601 wall time, `2024-03-10T01:30:00[.fraction]`
 * - TIMESTAMP with a zone: the zone's local wall time with its offset at that instant,
 *   `2024-03-10T03:30:00-04:00`; `Z` for UTC zones; a zone the time-zone database does not
 *   know shows the instant in UTC with `Z` (still the right instant)
 * - TIME `HH:MM:SS[.fraction]`
 * Fractions appear only when non-zero, with the unit's digits (3/6/9).
 */
import { formatDate, formatTimestamp, type Unit } from '../temporal-text.js';
import { formatOffset, zoneOffsets } from '../time-zones.js';

export type { Unit };

/** Arrow's TimeUnit enum order. */
export const UNITS: readonly Unit[] = ['s', 'ms', 'us', 'ns'];

const PER_SECOND: Record<Unit, bigint> = { s: 1n, ms: 1_000n, us: 1_000_000n, ns: 1_000_000_000n };

export { formatDate };

/** Text of a date64 value (milliseconds): a date, or a timestamp when not at midnight. */
export function formatDate64(ms: bigint): string {
  return ms % 86_400_000n === 0n ? formatDate(Number(ms / 86_400_000n)) : formatTimestamp(ms, 'ms', false);
}

/** A formatter for timestamps of `unit` in `zone` (null or '' for zone-less timestamps). */
export function timestampFormatter(unit: Unit, zone: string | null | undefined): (value: bigint) => string {
  if (zone === null || zone === undefined || zone === '') return (v) => formatTimestamp(v, unit, false);
  const offsets = zoneOffsets(zone);
  if (offsets === null || offsets.isUtc) return (v) => formatTimestamp(v, unit, true);
  const perS = PER_SECOND[unit];
  const shifts = new Map<number, { by: bigint; suffix: string }>();
  return (v) => {
    let secs = v / perS;
    if (v % perS < 0n) secs -= 1n;
    const offset = offsets.offsetSecondsAt(Number(secs));
    let shift = shifts.get(offset);
    if (shift === undefined) {
      shift = { by: BigInt(offset) * perS, suffix: formatOffset(offset) };
      shifts.set(offset, shift);
    }
    return formatTimestamp(v + shift.by, unit, false) + shift.suffix;
  };
}

/** Time of day from a count of `unit` since midnight. */
export function formatTimeOfDay(value: bigint, unit: Unit): string {
  return formatTimestamp(value, unit, false).slice(11);
}
