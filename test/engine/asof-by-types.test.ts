/**
 * Types of ASOF `by` keys (API.md: "`by` arity or type mismatch (integers of any width and
 * signedness pair with each other …)" are PlanErrors): pairs that compare by value match by
 * value (int32 with int64, uint8 with int64, float32 with float64, utf8 with largeUtf8, zoned
 * timestamps of one unit whatever their zone strings) at every thread count; pairs whose
 * stored values mean different things (timestamps or dates of different units, durations of
 * different units, utf8 vs int, zoned vs zone-less) are a PlanError BY_TYPE_MISMATCH naming
 * both columns and types, before any row is read, rather than silently never matching.
 * Also `on` keys of different timestamp units compare as elapsed time, with no overflow.
 */
import * as A from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { col, Engine, PlanError } from '../../src/index.js';
import type { FieldDesc, TypeDesc } from '../../src/types/column.js';
import { columnValues, makeTable, type JsValue } from '../support/tables.js';

const ts = (unit: 's' | 'ms' | 'us' | 'ns', timezone: string | null = null): TypeDesc => ({ kind: 'timestamp', unit, timezone });
const int = (bits: 8 | 16 | 32 | 64, signed = true): TypeDesc => ({ kind: 'int', bits, signed });

/** left (g, t, lv) and right (g, t, rv) with the given `by` types; t is int64 on both. */
function sides(e: Engine, lg: TypeDesc, lvals: JsValue[], rg: TypeDesc, rvals: JsValue[]) {
  const l: FieldDesc[] = [
    { name: 'g', type: lg, nullable: true },
    { name: 't', type: int(64), nullable: true },
    { name: 'lv', type: int(32), nullable: true },
  ];
  const r: FieldDesc[] = [
    { name: 'g', type: rg, nullable: true },
    { name: 't', type: int(64), nullable: true },
    { name: 'rv', type: int(32), nullable: true },
  ];
  const left = makeTable(l, { g: lvals, t: lvals.map(() => 10n), lv: lvals.map((_, i) => i) });
  const right = makeTable(r, { g: rvals, t: rvals.map(() => 5n), rv: rvals.map((_, i) => 100 + i) });
  return { left: e.fromArrow(left), right: e.fromArrow(right) };
}

async function failure(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  return null;
}

describe.each([0, 2])('threads %i', (threads) => {
  const matching: Array<[string, TypeDesc, JsValue[], TypeDesc, JsValue[], Array<number | null>]> = [
    ['int32 with int64', int(32), [1, -2, 3, 7], int(64), [3n, 1n, -2n, 5n], [101, 102, 100, null]],
    ['uint8 with int64 (negative never equals a large unsigned)', int(8, false), [255, 1], int(64), [-1n, 255n, 1n], [101, 102]],
    ['uint64 with int64 beyond 2^63', int(64, false), [(1n << 64n) - 1n, 5n], int(64), [-1n, 5n], [null, 101]],
    ['float32 with float64', { kind: 'float', bits: 32 }, [0.5, 0.1, -0], { kind: 'float', bits: 64 }, [0.1, 0.5, 0], [101, null, 102]],
    ['zoned timestamps of one unit with different zones', ts('ms', 'America/New_York'), [1000n, 2000n], ts('ms', 'UTC'), [2000n, 1000n], [101, 100]],
  ];
  it.each(matching)('%s: match by value', async (_, lg, lvals, rg, rvals, want) => {
    const e = new Engine({ threads, partitions: 4 });
    try {
      const { left, right } = sides(e, lg, lvals, rg, rvals);
      const out = await left.asofJoin(right, { on: 't', by: 'g' }).collect();
      expect(columnValues(out, 'rv')).toEqual(want);
      expect(columnValues(out, 'lv')).toEqual(lvals.map((_v, i) => i));
    } finally {
      await e.close();
    }
  });

  it('utf8 with largeUtf8: match by value', async () => {
    const e = new Engine({ threads, partitions: 4 });
    try {
      const left = new A.Table({ g: A.vectorFromArray(['a', 'bb', 'c', null], new A.Utf8()), t: A.vectorFromArray([10n, 10n, 10n, 10n], new A.Int64()) });
      const right = new A.Table({
        g: A.vectorFromArray(['bb', 'a', 'zz', null], new A.LargeUtf8()),
        t: A.vectorFromArray([5n, 5n, 5n, 5n], new A.Int64()),
        rv: A.vectorFromArray([100, 101, 102, 103], new A.Int32()),
      });
      const out = await e.fromArrow(left).asofJoin(e.fromArrow(right), { on: 't', by: 'g' }).collect();
      expect(columnValues(out, 'rv')).toEqual([101, 100, null, null]);
    } finally {
      await e.close();
    }
  });
});

describe('by keys whose stored values mean different things', () => {
  const mismatched: Array<[string, TypeDesc, TypeDesc]> = [
    ['timestamp[ms] vs timestamp[us]', ts('ms'), ts('us')],
    ['timestamp[s] vs timestamp[ns]', ts('s'), ts('ns')],
    ['zoned timestamp[ms] vs zoned timestamp[ns]', ts('ms', 'UTC'), ts('ns', 'Europe/Paris')],
    ['date32 vs date64', { kind: 'date', unit: 'day' }, { kind: 'date', unit: 'ms' }],
    ['duration[ms] vs duration[s]', { kind: 'duration', unit: 'ms' }, { kind: 'duration', unit: 's' }],
    ['zoned vs zone-less timestamps', ts('ms', 'UTC'), ts('ms')],
    ['utf8 vs int64', { kind: 'utf8' }, int(64)],
    ['int32 vs float64', int(32), { kind: 'float', bits: 64 }],
    ['date32 vs timestamp[ms]', { kind: 'date', unit: 'day' }, ts('ms')],
  ];
  it.each(mismatched)('%s is a PlanError BY_TYPE_MISMATCH naming both types, before any row is read', async (_, lg, rg) => {
    const e = new Engine({ threads: 0 });
    try {
      const value = (t: TypeDesc): JsValue => (t.kind === 'utf8' ? 'x' : t.kind === 'float' || (t.kind === 'int' && t.bits < 64) || (t.kind === 'date' && t.unit === 'day') ? 1 : 1n);
      const { left, right } = sides(e, lg, [value(lg)], rg, [value(rg)]);
      const plan = left.asofJoin(right, { on: 't', by: 'g' });
      for (const action of [() => plan.collect(), () => plan.explain()]) {
        const err = await failure(action());
        expect(err).toBeInstanceOf(PlanError);
        expect((err as PlanError).code).toBe('BY_TYPE_MISMATCH');
        const msg = (err as Error).message;
        expect(msg).toContain('"g"');
        for (const t of [lg, rg]) {
          const name = t.kind === 'timestamp' ? `timestamp[${t.unit}` : t.kind === 'duration' ? `duration[${t.unit}]` : t.kind === 'date' ? 'date' : t.kind;
          expect(msg).toContain(name);
        }
      }
    } finally {
      await e.close();
    }
  });

  it('the cast the message suggests makes timestamps of different units match by instant', async () => {
    const e = new Engine({ threads: 0 });
    try {
      const { left, right } = sides(e, ts('us'), [1_000_000n, 1_500_000n, 2_000_001n], ts('ms'), [1500n, 1000n, 2000n]);
      const err = await failure(left.asofJoin(right, { on: 't', by: 'g' }).collect());
      const hint = /on the (left|right) input withColumns\(\{ "g": col\("g"\)\.cast\('([^']+)'\) \}\)/.exec((err as Error).message);
      expect(hint?.slice(1)).toEqual(['right', 'timestamp[us]']);
      const out = await left.asofJoin(right.withColumns({ g: col('g').cast(hint![2]!) }), { on: 't', by: 'g' }).collect();
      expect(columnValues(out, 'rv')).toEqual([101, 100, null]);
    } finally {
      await e.close();
    }
  });
});

describe('on keys of different timestamp units', () => {
  it('compare as elapsed time, exactly and without overflow (timestamp[s] in year 2500 against timestamp[ns])', async () => {
    const e = new Engine({ threads: 0 });
    try {
      const year2500 = 16_725_225_600n; // 2500-01-01T00:00:00Z in seconds
      const maxNs = (1n << 63n) - 1n; // 2262-04-11T23:47:16.854775807Z
      const left = makeTable([{ name: 't', type: ts('s'), nullable: true }, { name: 'lv', type: int(32), nullable: true }], {
        t: [1n, 2n, year2500, -1n, 0n],
        lv: [0, 1, 2, 3, 4],
      });
      const right = makeTable([{ name: 't', type: ts('ns'), nullable: true }, { name: 'rv', type: int(32), nullable: true }], {
        t: [999_999_999n, 1_000_000_000n, 1_000_000_001n, maxNs, -(1n << 63n), -1_000_000_001n],
        rv: [100, 101, 102, 103, 104, 105],
      });
      const back = await e.fromArrow(left).asofJoin(e.fromArrow(right), { on: 't' }).collect();
      // 1s: the exact 1e9 ns; 2s: the greatest key below; year 2500: INT64_MAX ns; -1s and 0: -1_000_000_001 ns
      expect(columnValues(back, 'rv')).toEqual([101, 102, 103, 105, 105]);
      const fwd = await e.fromArrow(left).asofJoin(e.fromArrow(right), { on: 't', direction: 'forward' }).collect();
      expect(columnValues(fwd, 'rv')).toEqual([101, 103, null, 100, 100]);
      // a tolerance finer than either side's gaps: 1s against 1e9 ± 1 ns; nothing else is that close
      const tol = await e.fromArrow(left).asofJoin(e.fromArrow(right), { on: 't', direction: 'nearest', tolerance: '1ns', allowExactMatches: false }).collect();
      expect(columnValues(tol, 'rv')).toEqual([100, null, null, 105, null]);
    } finally {
      await e.close();
    }
  });

  it('zoned vs zone-less on keys are a PlanError', async () => {
    const e = new Engine({ threads: 0 });
    try {
      const l = makeTable([{ name: 't', type: ts('ms', 'UTC'), nullable: true }], { t: [1n] });
      const r = makeTable([{ name: 't', type: ts('us'), nullable: true }], { t: [1n] });
      const err = await failure(e.fromArrow(l).asofJoin(e.fromArrow(r), { on: 't' }).collect());
      expect(err).toBeInstanceOf(PlanError);
    } finally {
      await e.close();
    }
  });
});
