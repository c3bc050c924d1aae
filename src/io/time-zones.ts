/**
 * Time-zone arithmetic for zoned timestamps (`timestamp[ms, America/New_York]`), in one place:
 * the UTC offset of a zone at an instant, wall time → instant, and instant → wall-time text
 * with its offset. Zones are IANA names or fixed offsets (`+05:30`), as Arrow allows.
 *
 * The zone rules come from temporal-polyfill (the platform's tz database through Intl): each
 * zone's transitions between 1900 and 2100 are listed once (lazily, then cached), so an
 * offset is a binary search; instants outside that range ask Temporal directly.
 *
 * Wall times that a transition skips or repeats follow the rule of Temporal's, java.time's
 * and DuckDB's `compatible` disambiguation: a wall time in a gap (02:30 on a spring-forward day
 * in New York) is read with the offset in force before the gap, which lands it after the gap by
 * the gap's length (03:30 EDT); a wall time in an overlap (01:30 on the fall-back day) is the
 * earlier of its two instants (01:30 EDT). In Polars' terms: non_existent shifts forward,
 * ambiguous = 'earliest'.
 */
import { Temporal } from 'temporal-polyfill';
import { PlanError } from '../errors.js';
import { formatTimestamp, type Unit } from './temporal-text.js';

const PER_SECOND: Record<Unit, bigint> = { s: 1n, ms: 1000n, us: 1_000_000n, ns: 1_000_000_000n };
const FROM = Date.UTC(1900, 0, 1) / 1000;
const TO = Date.UTC(2100, 0, 1) / 1000;

interface ZoneRules {
  /** epoch seconds of each transition, ascending */
  at: number[];
  /** offsets in seconds: offsets[i] holds before at[i]; offsets[at.length] after the last */
  offsets: number[];
}

const rules = new Map<string, ZoneRules>();

function temporalOffset(zone: string, epochSeconds: number): number {
  return Temporal.Instant.fromEpochMilliseconds(epochSeconds * 1000).toZonedDateTimeISO(zone).offsetNanoseconds / 1e9;
}

function rulesOf(zone: string): ZoneRules {
  let r = rules.get(zone);
  if (r) return r;
  let zdt: Temporal.ZonedDateTime;
  try {
    zdt = Temporal.Instant.fromEpochMilliseconds(FROM * 1000).toZonedDateTimeISO(zone);
  } catch {
    throw new PlanError('UNKNOWN_TIME_ZONE', `Unknown time zone ${JSON.stringify(zone)}; use an IANA name such as "America/New_York" or an offset such as "+05:30"`, { zone });
  }
  const at: number[] = [];
  const offsets = [zdt.offsetNanoseconds / 1e9];
  for (;;) {
    const next = zdt.getTimeZoneTransition('next');
    if (!next || next.epochMilliseconds / 1000 >= TO) break;
    at.push(next.epochMilliseconds / 1000);
    offsets.push(next.offsetNanoseconds / 1e9);
    zdt = next;
  }
  r = { at, offsets };
  rules.set(zone, r);
  return r;
}

/** Throws PlanError UNKNOWN_TIME_ZONE unless `zone` is a zone Sluice can compute with. */
export function checkTimeZone(zone: string): void {
  rulesOf(zone);
}

/** UTC offset (seconds) of `zone` at the instant `epochSeconds`. */
export function offsetAt(zone: string, epochSeconds: number): number {
  if (epochSeconds < FROM || epochSeconds >= TO) return temporalOffset(zone, Math.floor(epochSeconds));
  const { at, offsets } = rulesOf(zone);
  let lo = 0;
  let hi = at.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (at[mid]! <= epochSeconds) lo = mid + 1;
    else hi = mid;
  }
  return offsets[lo]!;
}

/**
 * The offset (seconds) that turns the wall time `wallSeconds` (seconds since the epoch of the
 * local calendar) of `zone` into an instant: `instant = wall - offset`. Gaps and overlaps as
 * the header says.
 */
export function wallOffset(zone: string, wallSeconds: number): number {
  // the offsets in force a day either side bracket every transition near this wall time
  const before = offsetAt(zone, wallSeconds - 86_400);
  const after = offsetAt(zone, wallSeconds + 86_400);
  const fits = (o: number) => offsetAt(zone, wallSeconds - o) === o;
  if (before === after) return fits(before) ? before : offsetAt(zone, wallSeconds - before);
  const a = fits(before);
  const b = fits(after);
  if (a && b) return Math.max(before, after); // overlap: the earlier instant
  if (a) return before;
  if (b) return after;
  return before; // gap: the offset before it
}

/** A wall-time count of `unit` in `zone` → the instant, in the same unit. */
export function wallToInstant(wall: bigint, unit: Unit, zone: string): bigint {
  const per = PER_SECOND[unit];
  const secs = wall / per - (wall % per < 0n ? 1n : 0n);
  return wall - BigInt(wallOffset(zone, Number(secs))) * per;
}

function offsetText(seconds: number): string {
  const sign = seconds < 0 ? '-' : '+';
  const a = Math.abs(seconds);
  const h = Math.floor(a / 3600);
  const m = Math.floor(a / 60) % 60;
  const s = a % 60;
  const hm = `${sign}${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`;
  return s === 0 ? hm : `${hm}:${String(s).padStart(2, '0')}`;
}

const UTC_NAMES = new Set(['UTC', 'Etc/UTC', 'Z', 'utc', 'Etc/Universal', 'Universal', 'Zulu', 'Etc/Zulu']);

/**
 * An instant (a count of `unit` since the epoch) as ISO-8601 wall time in `zone` with its
 * offset: `2024-03-10T03:30:00-04:00`; `Z` for the UTC zone. Exact for every int64 value.
 */
export function formatInZone(value: bigint, unit: Unit, zone: string): string {
  if (UTC_NAMES.has(zone)) return formatTimestamp(value, unit, true);
  const per = PER_SECOND[unit];
  const secs = value / per - (value % per < 0n ? 1n : 0n);
  const offset = offsetAt(zone, Number(secs));
  return formatTimestamp(value + BigInt(offset) * per, unit, false) + offsetText(offset);
}
