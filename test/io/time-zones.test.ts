/**
 * time-zones.ts (and the zoned timestamp text built on it) against Temporal itself (the reference, with its 'compatible' disambiguation):
 * random wall times and instants in zones with DST (both hemispheres, half-hour offsets),
 * around transitions and outside the cached 1900–2100 range.
 */
import fc from 'fast-check';
import { Temporal } from 'temporal-polyfill';
import { describe, expect, it } from 'vitest';
import { timestampFormatter } from '../../src/io/text/time-text.js';
import { parseTimestamp, timestampWords } from '../../src/io/temporal-text.js';
import { wallOffset, zoneOffsets, type ZoneOffsets } from '../../src/io/time-zones.js';

const zone = (z: string): ZoneOffsets => zoneOffsets(z)!;
/** Wall seconds → instant seconds through the CSV reader's path: zone-less text read in the zone. */
function wallToInstant(wall: number, unit: 's' | 'ms', z: string): number {
  const text = new Date(wall * 1000).toISOString().slice(0, 19);
  expect(parseTimestamp(text, unit, (secs) => wallOffset(zone(z), secs))).toBeNull();
  return (timestampWords[0]! * 2 ** 32 + timestampWords[1]!) / (unit === 'ms' ? 1000 : 1);
}
const offsetAt = (z: string, secs: number) => zone(z).offsetSecondsAt(secs);
const formatInZone = (v: bigint, unit: 'us' | 'ms', z: string) => timestampFormatter(unit, z)(v);

const ZONES = ['America/New_York', 'Europe/London', 'Australia/Sydney', 'Asia/Kolkata', 'America/St_Johns', 'Pacific/Chatham', 'Europe/Dublin', '+05:30', 'UTC'];
const S = (y: number) => Date.UTC(y, 0, 1) / 1000;

/** Wall seconds since the local epoch → instant seconds, as Temporal reads it (compatible). */
function reference(zone: string, wall: number): number {
  const d = new Date(wall * 1000);
  const pdt = Temporal.PlainDateTime.from({
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
  });
  return pdt.toZonedDateTime(zone, { disambiguation: 'compatible' }).epochMilliseconds / 1000;
}

describe('time zones', () => {
  it('wall time → instant matches Temporal (random times, 1850–2300)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ZONES), fc.integer({ min: S(1850), max: S(2300) }), (zone, wall) => {
        expect(wallToInstant(wall, 's', zone)).toBe(reference(zone, wall));
      }),
      { numRuns: 400 },
    );
  });
  it('wall times in every hour around 2024 transitions match Temporal', () => {
    for (const zone of ZONES) {
      let zdt = Temporal.Instant.fromEpochMilliseconds(S(2024) * 1000).toZonedDateTimeISO(zone);
      for (let k = 0; k < 2; k++) {
        const next = zdt.getTimeZoneTransition('next');
        if (!next) break;
        const t = next.epochMilliseconds / 1000;
        for (let dt = -3 * 3600; dt <= 3 * 3600; dt += 900) {
          const wall = t + next.offsetNanoseconds / 1e9 + dt;
          expect(wallToInstant(wall, 'ms', zone), `${zone} ${wall}`).toBe(reference(zone, wall));
        }
        zdt = next;
      }
    }
  });
  it('offsets and text of instants match Temporal', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ZONES.filter((z) => z !== 'UTC')), fc.integer({ min: S(1850), max: S(2300) }), (zone, secs) => {
        const zdt = Temporal.Instant.fromEpochMilliseconds(secs * 1000).toZonedDateTimeISO(zone);
        expect(offsetAt(zone, secs)).toBe(zdt.offsetNanoseconds / 1e9);
        // Temporal rounds historic offsets with seconds to minutes in text; Sluice keeps them exact
        const off = zdt.offsetNanoseconds / 1e9;
        const sign = off < 0 ? '-' : '+';
        const a = Math.abs(off);
        const hm = `${sign}${String(Math.floor(a / 3600)).padStart(2, '0')}:${String(Math.floor(a / 60) % 60).padStart(2, '0')}`;
        const text = zdt.toPlainDateTime().toString() + (a % 60 === 0 ? hm : `${hm}:${String(a % 60).padStart(2, '0')}`);
        expect(formatInZone(BigInt(secs) * 1_000_000n, 'us', zone)).toBe(text);
      }),
      { numRuns: 300 },
    );
    expect(formatInZone(1_500n, 'ms', 'UTC')).toBe('1970-01-01T00:00:01.500Z');
  });
});
