/**
 * Midnights of calendar days in an IANA zone, for DATE keys against zoned TIMESTAMP keys: a DATE
 * is the instant its day starts in the zone (in a DST gap at midnight the day starts at the
 * transition; days outside JS Date's range use UTC). Offsets come from Intl, cached per day.
 */
const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      era: 'short',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, f);
  }
  return f;
}

/** Largest |epoch seconds| handled through Intl (JS Date's range, with a margin). */
const MAX_ZONE_SEC = 8.64e12 - 4 * 86400;

/** local wall clock minus UTC, in seconds, at instant `sec` (epoch seconds). */
export function zoneOffsetSeconds(zone: string, sec: number): number {
  if (Math.abs(sec) > MAX_ZONE_SEC) return 0;
  const parts = formatter(zone).formatToParts(new Date(sec * 1000));
  let y = 0;
  let mo = 0;
  let d = 0;
  let hh = 0;
  let mi = 0;
  let ss = 0;
  let bc = false;
  for (const p of parts) {
    switch (p.type) {
      case 'year':
        y = Number(p.value);
        break;
      case 'month':
        mo = Number(p.value);
        break;
      case 'day':
        d = Number(p.value);
        break;
      case 'hour':
        hh = Number(p.value);
        break;
      case 'minute':
        mi = Number(p.value);
        break;
      case 'second':
        ss = Number(p.value);
        break;
      case 'era':
        bc = p.value === 'BC' || p.value === 'B';
        break;
    }
  }
  const date = new Date(0);
  date.setUTCFullYear(bc ? 1 - y : y, mo - 1, d);
  date.setUTCHours(hh, mi, ss, 0);
  return date.getTime() / 1000 - sec;
}

/** Start (epoch seconds) of local calendar day `day` (days since 1970-01-01) in a zone, cached. */
export class ZoneMidnights {
  private readonly cache = new Map<number, number>();
  constructor(readonly zone: string) {}
  startOfDay(day: number): number {
    const hit = this.cache.get(day);
    if (hit !== undefined) return hit;
    const L = day * 86400;
    let r: number;
    if (Math.abs(L) > MAX_ZONE_SEC) r = L;
    else {
      const o1 = zoneOffsetSeconds(this.zone, L);
      const o2 = zoneOffsetSeconds(this.zone, L - 86400);
      const o3 = zoneOffsetSeconds(this.zone, L + 86400);
      let best = Infinity;
      for (const o of [o1, o2, o3]) {
        const t = L - o;
        if (t < best && zoneOffsetSeconds(this.zone, t) === o) best = t;
      }
      // no local midnight (DST gap or skipped day): the day starts at the transition
      r = best !== Infinity ? best : L - Math.min(o1, o2, o3);
    }
    this.cache.set(day, r);
    return r;
  }
}
