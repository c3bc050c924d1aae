/**
 * Time-zone offsets of Arrow timestamp zones (`timestamp[ms, America/New_York]`), for showing a
 * zoned instant as the zone's local wall time with its offset, and for reading wall-clock text
 * as an instant (`wallOffset`: the CSV reader subtracts it from zone-less text's seconds).
 *
 * The zone rules come from temporal-polyfill (the IANA database of the Intl implementation).
 * Asking Temporal per value would build a ZonedDateTime per row, so each zone keeps the
 * intervals of constant offset it has been asked about (from one transition to the next) and
 * answers from them by binary search; a column of nearby instants touches a handful of
 * intervals. Zone names accepted: IANA names (`Europe/Paris`), `UTC` (any case, `Z`,
 * `Etc/UTC`), and fixed offsets (`+05:30`, `-08:00`), as Arrow allows.
 */
import { Temporal } from 'temporal-polyfill';
import { PlanError } from '../errors.js';

/** Temporal's instant range: ±10^8 days around the epoch, in seconds. */
const LIMIT_S = 8.64e12;

export interface ZoneOffsets {
  /** the zone as Temporal names it */
  readonly id: string;
  /** true when the offset is zero at every instant (`UTC`, `+00:00`) */
  readonly isUtc: boolean;
  /** offset from UTC in seconds at the instant `epochSeconds` (local = UTC + offset) */
  offsetSecondsAt(epochSeconds: number): number;
}

interface Interval {
  /** inclusive start and exclusive end, epoch seconds (±Infinity at the ends of the rules) */
  start: number;
  end: number;
  offset: number;
}

class CachedZone implements ZoneOffsets {
  readonly isUtc: boolean;
  /** sorted, disjoint */
  private readonly intervals: Interval[] = [];
  private last: Interval | undefined;

  constructor(readonly id: string) {
    const fixed = this.lookup(0);
    this.isUtc = fixed.offset === 0 && fixed.start === -Infinity && fixed.end === Infinity;
  }

  offsetSecondsAt(epochSeconds: number): number {
    const s = Math.min(LIMIT_S - 1, Math.max(-LIMIT_S, epochSeconds));
    const last = this.last;
    if (last !== undefined && s >= last.start && s < last.end) return last.offset;
    return this.lookup(s).offset;
  }

  private lookup(s: number): Interval {
    const list = this.intervals;
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (list[mid]!.end <= s) lo = mid + 1;
      else hi = mid;
    }
    const found = list[lo];
    if (found !== undefined && found.start <= s) {
      this.last = found;
      return found;
    }
    const interval = computeInterval(this.id, s);
    list.splice(lo, 0, interval);
    this.last = interval;
    return interval;
  }
}

function computeInterval(zone: string, s: number): Interval {
  const ns = BigInt(Math.floor(s)) * 1_000_000_000n;
  const at = Temporal.Instant.fromEpochNanoseconds(ns).toZonedDateTimeISO(zone);
  // the transition at or before `s` (asked from 1 ns later: 'previous' is strictly before)
  const prev = Temporal.Instant.fromEpochNanoseconds(ns + 1n).toZonedDateTimeISO(zone).getTimeZoneTransition('previous');
  const next = at.getTimeZoneTransition('next');
  return {
    start: prev ? Number(prev.epochNanoseconds / 1_000_000_000n) : -Infinity,
    end: next ? Number(next.epochNanoseconds / 1_000_000_000n) : Infinity,
    offset: at.offsetNanoseconds / 1e9,
  };
}

const zones = new Map<string, ZoneOffsets | null>();

/** The offsets of `zone`, or null when no time-zone database knows it. Cached per name. */
export function zoneOffsets(zone: string): ZoneOffsets | null {
  let z = zones.get(zone);
  if (z !== undefined) return z;
  z = null;
  const name = zone === 'Z' || zone === 'z' ? 'UTC' : zone;
  try {
    z = new CachedZone(Temporal.Instant.fromEpochNanoseconds(0n).toZonedDateTimeISO(name).timeZoneId);
  } catch {
    z = null;
  }
  zones.set(zone, z);
  return z;
}

/** `+HH:MM` (or `+HH:MM:SS` for historic local-mean-time offsets) for an offset in seconds. */
export function formatOffset(offsetSeconds: number): string {
  const sign = offsetSeconds < 0 ? '-' : '+';
  const a = Math.abs(offsetSeconds);
  const hh = String(Math.floor(a / 3600)).padStart(2, '0');
  const mm = String(Math.floor(a / 60) % 60).padStart(2, '0');
  const ss = a % 60;
  return `${sign}${hh}:${mm}${ss !== 0 ? `:${String(ss).padStart(2, '0')}` : ''}`;
}

/** The offsets of `zone`; PlanError UNKNOWN_TIME_ZONE when no time-zone database knows it. */
export function checkTimeZone(zone: string): ZoneOffsets {
  const z = zoneOffsets(zone);
  if (z === null) {
    throw new PlanError('UNKNOWN_TIME_ZONE', `Unknown time zone ${JSON.stringify(zone)}; use an IANA name such as "America/New_York" or an offset such as "+05:30"`, { zone });
  }
  return z;
}

/**
 * The offset (seconds) that turns the wall time `wallSeconds` (seconds since the epoch of the
 * local calendar) into an instant: `instant = wall - offset`.
 *
 * Wall times that a transition skips or repeats follow the `compatible` rule of Temporal,
 * java.time and DuckDB: a wall time in a gap (02:30 on a spring-forward day in New York) is
 * read with the offset in force before the gap, which lands it after the gap by the gap's
 * length (03:30 EDT); a wall time in an overlap (01:30 on the fall-back day) is the earlier of
 * its two instants (01:30 EDT). In Polars' terms: non_existent shifts forward, ambiguous =
 * 'earliest'.
 */
export function wallOffset(zone: ZoneOffsets, wallSeconds: number): number {
  // the offsets in force a day either side bracket every transition near this wall time
  const before = zone.offsetSecondsAt(wallSeconds - 86_400);
  const after = zone.offsetSecondsAt(wallSeconds + 86_400);
  const fits = (o: number) => zone.offsetSecondsAt(wallSeconds - o) === o;
  if (before === after) return fits(before) ? before : zone.offsetSecondsAt(wallSeconds - before);
  const a = fits(before);
  const b = fits(after);
  if (a && b) return Math.max(before, after); // overlap: the earlier instant
  if (a) return before;
  if (b) return after;
  return before; // gap: the offset before it
}

