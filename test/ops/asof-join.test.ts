/**
 * Named ASOF cases, most from Spark SPARK-60196: every case runs through the kernel (via the
 * harness) and through the naive reference, and both must give the expected right row.
 */
import { describe, expect, it } from 'vitest';
import type { FieldDesc, TypeDesc } from '../../src/types/column.js';
import type { AsofOptions } from '../../src/ops/asof-spec.js';
import { referenceAsof, referenceStartOfDay, type AsofRow } from '../support/asof-reference.js';
import { runAsofKernel } from './asof-harness.js';

const I32: TypeDesc = { kind: 'int', bits: 32, signed: true };
const I64: TypeDesc = { kind: 'int', bits: 64, signed: true };
const U64: TypeDesc = { kind: 'int', bits: 64, signed: false };
const I8: TypeDesc = { kind: 'int', bits: 8, signed: true };
const F64: TypeDesc = { kind: 'float', bits: 64 };
const F32: TypeDesc = { kind: 'float', bits: 32 };
const STR: TypeDesc = { kind: 'utf8' };
const D32: TypeDesc = { kind: 'date', unit: 'day' };
const D64: TypeDesc = { kind: 'date', unit: 'ms' };
const ts = (unit: 's' | 'ms' | 'us' | 'ns', timezone: string | null = null): TypeDesc => ({ kind: 'timestamp', unit, timezone });

function f(name: string, type: TypeDesc): FieldDesc {
  return { name, type, nullable: true };
}

/** Runs kernel and reference on one left key against right keys; returns both answers. */
function run(
  lt: TypeDesc,
  rt: TypeDesc,
  leftKeys: unknown[],
  rightKeys: unknown[],
  opts: Omit<AsofOptions, 'on'> = {},
  condition?: (o: AsofRow) => boolean | null,
): Array<number | null> {
  const ls = [f('id', I32), f('k', lt)];
  const rs = [f('rid', I32), f('k', rt), f('v', I32)];
  const left = leftKeys.map((k, i) => ({ id: i, k }));
  const right = rightKeys.map((k, i) => ({ rid: i, k, v: i * 10 }));
  const options = { on: 'k', ...opts } as AsofOptions;
  const got = runAsofKernel(left, right, ls, rs, options, condition);
  const ref = referenceAsof(left, right, ls, rs, options, condition);
  expect(got).toEqual(ref);
  return got;
}

describe('SPARK-60196 nearest scan', () => {
  it('left 10, right [1, 1, 9]: nearest finds 9 (no early stop after duplicate keys)', () => {
    expect(run(I32, I32, [10], [1, 1, 9], { direction: 'nearest' })).toEqual([2]);
    expect(run(I64, I64, [10n], [1n, 1n, 9n], { direction: 'nearest' })).toEqual([2]);
  });

  it('DOUBLE left 1.0, right -1e20 and 1e20: 1e20 is closer (both gaps round to 1e20)', () => {
    expect(1 - -1e20).toBe(1e20 - 1); // the trap: both gaps are the same double
    expect(run(F64, F64, [1.0], [-1e20, 1e20], { direction: 'nearest' })).toEqual([1]);
    expect(run(F64, F64, [1.0], [1e20, -1e20], { direction: 'nearest' })).toEqual([0]);
  });

  it('mirror: DOUBLE left -1.0, right -1e20 and 1e20: -1e20 is closer', () => {
    expect(run(F64, F64, [-1.0], [-1e20, 1e20], { direction: 'nearest' })).toEqual([0]);
    expect(run(F64, F64, [-1.0], [1e20, -1e20], { direction: 'nearest' })).toEqual([1]);
  });

  it('int64 extremes: left 0, right INT64_MIN and INT64_MAX → INT64_MAX wins', () => {
    const MIN = -(2n ** 63n);
    const MAX = 2n ** 63n - 1n;
    expect(run(I64, I64, [0n], [MIN, MAX], { direction: 'nearest' })).toEqual([1]);
    expect(run(I64, I64, [0n], [MAX, MIN], { direction: 'nearest' })).toEqual([0]);
    expect(run(I64, I64, [-1n], [MIN, MAX], { direction: 'nearest' })).toEqual([0]); // equal gaps → predecessor
    // uint64 against int64, compared as integers
    expect(run(I64, U64, [MAX], [2n ** 64n - 1n, 0n], { direction: 'nearest' })).toEqual([1]);
    expect(run(I64, U64, [MIN], [2n ** 64n - 1n], { direction: 'forward' })).toEqual([0]);
    expect(run(I64, U64, [MIN], [2n ** 64n - 1n], { direction: 'backward' })).toEqual([null]);
    expect(run(U64, I8, [2n ** 64n - 1n], [-128, 127], { direction: 'nearest' })).toEqual([1]);
  });

  it('exact matches win (the last exact duplicate); excluded exact matches with nearest', () => {
    expect(run(I32, I32, [5], [4, 5, 5, 6], { direction: 'nearest' })).toEqual([2]);
    expect(run(I32, I32, [5], [4, 5, 5, 6], { direction: 'nearest', allowExactMatches: false })).toEqual([0]);
    expect(run(I32, I32, [5], [3, 5, 5, 6], { direction: 'nearest', allowExactMatches: false })).toEqual([3]);
    expect(run(I32, I32, [5], [5, 5], { direction: 'nearest', allowExactMatches: false })).toEqual([null]);
    expect(run(I32, I32, [5], [4, 5, 5, 6], { direction: 'backward', allowExactMatches: false })).toEqual([0]);
    expect(run(I32, I32, [5], [4, 5, 5, 6], { direction: 'forward', allowExactMatches: false })).toEqual([3]);
  });

  it('equal gaps take the predecessor; backward takes the last and forward the first equal key', () => {
    expect(run(I32, I32, [5], [7, 3, 3, 7], { direction: 'nearest' })).toEqual([2]);
    expect(run(I32, I32, [5], [7, 3, 3, 7], { direction: 'backward' })).toEqual([2]);
    expect(run(I32, I32, [5], [7, 3, 3, 7], { direction: 'forward' })).toEqual([0]);
    expect(run(F64, F64, [0.5], [0.25, 0.75], { direction: 'nearest' })).toEqual([0]);
  });

  it('a condition that makes the nearest row ineligible walks on to the next eligible row', () => {
    // nearest is 9 (rid 2) but v != 20 is required: next candidates are 12 (gap 2) vs 1 (gap 9)
    const cond = (o: AsofRow) => o['v'] !== 20;
    expect(run(I32, I32, [10], [1, 1, 9, 12], { direction: 'nearest' }, cond)).toEqual([3]);
    expect(run(I32, I32, [10], [1, 1, 9, 12], { direction: 'backward' }, cond)).toEqual([1]);
    expect(run(I32, I32, [10], [1, 1, 9, 12], { direction: 'forward' }, (o) => o['v'] !== 30)).toEqual([null]);
    // NULL counts as not TRUE
    expect(run(I32, I32, [10], [1, 9], { direction: 'backward' }, (o) => (o['v'] === 10 ? null : true))).toEqual([0]);
    // condition plus tolerance: the walk stops at the tolerance
    expect(run(I32, I32, [10], [1, 9], { direction: 'backward', tolerance: 5 }, (o) => o['v'] !== 10)).toEqual([null]);
    // a left-only condition that is FALSE rejects every pair (the row stays unmatched)
    expect(run(I32, I32, [10, 11], [1, 9], { direction: 'nearest' }, (o) => o['id'] === 1)).toEqual([null, 1]);
  });

  it('nearest with a condition: rejected exact match, then equal-gap tie goes to the predecessor', () => {
    const cond = (o: AsofRow) => o['v'] !== 20;
    expect(run(I32, I32, [5], [3, 4, 5, 6, 7], { direction: 'nearest' }, cond)).toEqual([1]);
    expect(run(I32, I32, [5], [3, 4, 5, 6, 7], { direction: 'nearest' }, (o) => o['v'] !== 20 && o['v'] !== 10)).toEqual([3]);
  });
});

describe('tolerance', () => {
  it('is inclusive in every direction, whatever allowExactMatches', () => {
    expect(run(I32, I32, [10], [7], { tolerance: 3 })).toEqual([0]);
    expect(run(I32, I32, [10], [7], { tolerance: 2 })).toEqual([null]);
    expect(run(I32, I32, [10], [13], { direction: 'forward', tolerance: 3 })).toEqual([0]);
    expect(run(I32, I32, [10], [13], { direction: 'forward', tolerance: 2 })).toEqual([null]);
    expect(run(I32, I32, [10], [7, 13], { direction: 'nearest', tolerance: 3, allowExactMatches: false })).toEqual([0]);
    expect(run(I32, I32, [10], [6, 13], { direction: 'nearest', tolerance: 3 })).toEqual([1]);
  });

  it('0 means exact matches only', () => {
    expect(run(I32, I32, [10, 11], [9, 10, 10, 12], { tolerance: 0 })).toEqual([2, null]);
    expect(run(I32, I32, [10, 11], [9, 10, 10, 12], { direction: 'forward', tolerance: 0 })).toEqual([1, null]);
    expect(run(I32, I32, [10], [10], { tolerance: 0, allowExactMatches: false })).toEqual([null]);
  });

  it('is exact for doubles (no rounding at the boundary) and for int64 gaps beyond 2^63', () => {
    // 1 - 2^-60 is not a double; 1 - (-2^-60) rounds to 1 but the exact gap exceeds 1
    const tiny = 2 ** -60;
    expect(1 + tiny).toBe(1);
    expect(run(F64, F64, [1.0], [-tiny], { tolerance: 1 })).toEqual([null]);
    expect(run(F64, F64, [1.0], [0], { tolerance: 1 })).toEqual([0]);
    expect(run(F64, F64, [1.0], [tiny], { tolerance: 1 })).toEqual([0]);
    // exact 0.3 - 0.1 = 0.19999999999999998335 < 0.2 (the double 0.2000000000000000111)
    expect(run(F64, F64, [0.3], [0.1], { tolerance: 0.2 })).toEqual([0]);
    // here the exact gap is the double 0.19999999999999998: one ulp less of tolerance fails
    expect(run(F64, F64, [0.1], [0.3], { direction: 'forward', tolerance: 0.19999999999999998 })).toEqual([0]);
    expect(run(F64, F64, [0.1], [0.3], { direction: 'forward', tolerance: 0.19999999999999996 })).toEqual([null]);
    const MIN = -(2n ** 63n);
    const MAX = 2n ** 63n - 1n;
    expect(run(I64, I64, [MAX], [MIN], { tolerance: 2n ** 64n - 1n })).toEqual([0]);
    expect(run(I64, I64, [MAX], [MIN], { tolerance: 2n ** 64n - 2n })).toEqual([null]);
    expect(run(I64, I64, [MAX], [MIN], { tolerance: Infinity })).toEqual([0]);
  });

  it('handles infinities: +Inf equals +Inf, gaps to infinities are infinite', () => {
    expect(run(F64, F64, [Infinity], [1, Infinity], { direction: 'nearest', tolerance: 0 })).toEqual([1]);
    expect(run(F64, F64, [Infinity], [1e308, -Infinity], { direction: 'nearest' })).toEqual([0]);
    expect(run(F64, F64, [0], [-Infinity, Infinity], { direction: 'nearest' })).toEqual([0]);
    expect(run(F64, F64, [0], [-Infinity, 5], { direction: 'nearest', tolerance: 1e308 })).toEqual([1]);
    expect(run(F64, F32, [-0], [0], { tolerance: 0, allowExactMatches: true })).toEqual([0]);
    expect(run(F64, F64, [-0], [0], { allowExactMatches: false })).toEqual([null]);
    expect(run(F64, F64, [NaN, 1], [NaN, 0], { direction: 'nearest' })).toEqual([null, 1]);
  });
});

describe('temporal keys', () => {
  const E = 1_700_000_000n; // 2023-11-14T22:13:20Z in seconds
  const dirs = ['backward', 'forward', 'nearest'] as const;

  it('TIMESTAMP ns (zoned) in all three directions, different zones compare as instants', () => {
    const l = [E * 1_000_000_000n + 5n];
    const r = [E * 1_000_000_000n + 4n, E * 1_000_000_000n + 5n, E * 1_000_000_000n + 7n, E * 1_000_000_000n + 5n];
    expect(run(ts('ns', 'UTC'), ts('ns', 'Asia/Tokyo'), l, r, { direction: 'backward' })).toEqual([3]);
    expect(run(ts('ns', 'UTC'), ts('ns', 'Asia/Tokyo'), l, r, { direction: 'forward' })).toEqual([1]);
    expect(run(ts('ns', 'UTC'), ts('ns', 'Asia/Tokyo'), l, r, { direction: 'nearest' })).toEqual([3]);
    for (const direction of dirs) {
      expect(run(ts('ns', 'UTC'), ts('ns', 'UTC'), l, r, { direction, allowExactMatches: false })).toEqual(
        [{ backward: 0, forward: 2, nearest: 0 }[direction]],
      );
      // 1ns tolerance
      expect(run(ts('ns', 'UTC'), ts('us', 'UTC'), [E * 1_000_000_000n + 1n], [E * 1_000_000n], { direction, tolerance: '1ns' })).toEqual(
        [direction === 'forward' ? null : 0],
      );
    }
  });

  it('TIMESTAMP without zone, mixed units, in all three directions', () => {
    const l = [E * 1000n + 1500n]; // ms: E + 1.5 s
    const r = [E + 1n, E + 2n, E]; // s
    expect(run(ts('ms'), ts('s'), l, r, { direction: 'backward' })).toEqual([0]);
    expect(run(ts('ms'), ts('s'), l, r, { direction: 'forward' })).toEqual([1]);
    expect(run(ts('ms'), ts('s'), l, r, { direction: 'nearest' })).toEqual([0]); // equal gaps of 500ms
    expect(run(ts('ms'), ts('s'), l, r, { direction: 'nearest', tolerance: '499ms' })).toEqual([null]);
    expect(run(ts('ms'), ts('s'), l, r, { direction: 'nearest', tolerance: '500ms' })).toEqual([0]);
  });

  it('year 2500 timestamp[s] against timestamp[ns] (ns counts beyond int64)', () => {
    const y2500s = 16_725_225_600n; // 2500-01-01T00:00:00Z
    expect(y2500s * 1_000_000_000n > 2n ** 63n).toBe(true);
    const r = [9_000_000_000_000_000_000n, 9_223_372_036_854_775_807n, 0n]; // ns, year ~2255/2262/1970
    for (const direction of dirs) {
      expect(run(ts('s'), ts('ns'), [y2500s], r, { direction })).toEqual([{ backward: 1, forward: null, nearest: 1 }[direction]]);
      expect(run(ts('ns'), ts('s'), r, [y2500s, 0n], { direction })).toEqual(
        direction === 'backward' ? [1, 1, 1] : [0, 0, 1],
      );
    }
    expect(run(ts('s'), ts('ns'), [y2500s], r, { direction: 'backward', tolerance: '1w' })).toEqual([null]);
    expect(run(ts('s', 'UTC'), ts('ns', 'UTC'), [y2500s, -y2500s], [-(2n ** 63n), 2n ** 63n - 1n], { direction: 'nearest' })).toEqual([1, 0]);
  });

  it('DATE against DATE (date32/date64) in all three directions with day tolerances', () => {
    const day = 19_700;
    for (const direction of dirs) {
      expect(run(D32, D32, [day], [day - 2, day + 1, day + 3], { direction })).toEqual([{ backward: 0, forward: 1, nearest: 1 }[direction]]);
      expect(run(D32, D64, [day], [BigInt(day - 2) * 86_400_000n, BigInt(day + 1) * 86_400_000n], { direction, tolerance: '1d' })).toEqual([
        direction === 'backward' ? null : 1,
      ]);
      expect(run(D32, D32, [day], [day - 1, day + 1], { direction, tolerance: 1 })).toEqual([direction === 'forward' ? 1 : 0]);
      expect(run(D32, D32, [day], [day - 1], { direction, tolerance: '23h' })).toEqual([null]);
    }
  });

  it('DATE against zone-less TIMESTAMP uses UTC midnight; nanosecond keys', () => {
    const day = 19_700n;
    const mid = day * 86_400n * 1_000_000_000n;
    for (const direction of dirs) {
      expect(run(D32, ts('ns'), [Number(day)], [mid - 1n, mid + 1n, mid], { direction, allowExactMatches: false })).toEqual([
        { backward: 0, forward: 1, nearest: 0 }[direction],
      ]);
      expect(run(ts('ns'), D32, [mid + 1n, mid - 1n], [Number(day)], { direction })).toEqual(
        direction === 'backward' ? [0, null] : direction === 'forward' ? [null, 0] : [0, 0],
      );
    }
  });

  it('DATE against zoned TIMESTAMP uses midnight in timeZone', () => {
    // 2024-03-10 in America/New_York starts at 05:00Z (EST, -05:00)
    const day = 19_792;
    const utcMid = BigInt(day) * 86_400_000_000_000n;
    const nyMid = utcMid + 5n * 3_600_000_000_000n;
    expect(referenceStartOfDay('America/New_York', day)).toBe(day * 86400 + 5 * 3600);
    const r = [utcMid, nyMid - 1n, nyMid, nyMid + 1n];
    const tz = ts('ns', 'America/New_York');
    for (const direction of dirs) {
      expect(run(D32, tz, [day], r, { direction, timeZone: 'America/New_York' })).toEqual([2]);
      expect(run(D32, tz, [day], r, { direction, timeZone: 'America/New_York', allowExactMatches: false })).toEqual([
        { backward: 1, forward: 3, nearest: 1 }[direction],
      ]);
      // default timeZone UTC: midnight is utcMid
      expect(run(D32, tz, [day], r, { direction })).toEqual([{ backward: 0, forward: 0, nearest: 0 }[direction]]);
      expect(run(tz, D64, [nyMid - 1n, nyMid], [BigInt(day) * 86_400_000n], { direction, timeZone: 'America/New_York' })).toEqual(
        direction === 'backward' ? [null, 0] : direction === 'forward' ? [0, 0] : [0, 0],
      );
    }
  });

  it('DATE midnight in a zone whose day starts in a DST gap or is skipped', () => {
    // America/Sao_Paulo 2018-11-04: clocks jumped 00:00 → 01:00 (-03 → -02); the day starts at 03:00Z
    const day = Math.floor(Date.UTC(2018, 10, 4) / 86_400_000);
    expect(referenceStartOfDay('America/Sao_Paulo', day)).toBe(day * 86400 + 3 * 3600);
    const tz = ts('s', 'America/Sao_Paulo');
    const start = BigInt(day * 86400 + 3 * 3600);
    expect(run(D32, tz, [day], [start - 1n, start, start + 1n], { timeZone: 'America/Sao_Paulo', allowExactMatches: false, direction: 'nearest' })).toEqual([0]);
    // Pacific/Apia skipped 2011-12-30: that day "starts" when 2011-12-31 starts (10:00Z on the 30th)
    const skipped = Math.floor(Date.UTC(2011, 11, 30) / 86_400_000);
    const s2 = BigInt(skipped * 86400 + 10 * 3600);
    expect(referenceStartOfDay('Pacific/Apia', skipped)).toBe(Number(s2));
    expect(run(D32, ts('s', 'Pacific/Apia'), [skipped], [s2 - 1n, s2], { timeZone: 'Pacific/Apia', direction: 'backward' })).toEqual([1]);
  });
});

describe('other key types', () => {
  it('strings compare in UTF-8 byte order (backward/forward)', () => {
    // UTF-16 order would put U+FF5E (～) after U+1F600 (😀); UTF-8 byte order puts it before
    const r = ['\uff5e', '😀', 'a', '10', '2'];
    expect(run(STR, STR, ['\uffff'], r, { direction: 'backward' })).toEqual([0]);
    expect(run(STR, STR, ['\uffff'], r, { direction: 'forward' })).toEqual([1]);
    expect(run(STR, STR, ['3'], r, { direction: 'backward' })).toEqual([4]);
    expect(run(STR, STR, ['10'], r, { direction: 'backward', allowExactMatches: false })).toEqual([null]);
    expect(run(STR, STR, ['', 'a', null], ['', 'a', 'a', null], { direction: 'backward' })).toEqual([0, 2, null]);
    expect(run(STR, STR, ['', 'a'], ['', 'a', 'a'], { direction: 'forward' })).toEqual([0, 1]);
  });

  it('float32 against float64', () => {
    expect(run(F32, F64, [0.1], [Math.fround(0.1), 0.1], { direction: 'backward' })).toEqual([0]);
    expect(run(F32, F64, [0.1], [Math.fround(0.1), 0.1], { direction: 'forward', allowExactMatches: false })).toEqual([null]);
  });

  it('NULL keys never match', () => {
    expect(run(I32, I32, [null, 5], [null, 4], { direction: 'nearest' })).toEqual([null, 1]);
  });
});
