/**
 * Window builders (src/expr/aggregates.ts) and plan resolution (src/ops/window-spec.ts):
 * normalisation, output types, offset units, and every PlanError path.
 */
import { describe, expect, it } from 'vitest';
import { avg, count, max, min, sum, WindowFn } from '../../src/expr/aggregates.js';
import { PlanError } from '../../src/errors.js';
import { resolveWindow, type WindowOptions } from '../../src/ops/window-spec.js';
import type { FieldDesc, TypeDesc } from '../../src/types/column.js';

const f = (name: string, type: TypeDesc, nullable = true): FieldDesc => ({ name, type, nullable });
const SCHEMA: FieldDesc[] = [
  f('user', { kind: 'utf8' }),
  f('ts', { kind: 'timestamp', unit: 'ms', timezone: null }),
  f('ts_s', { kind: 'timestamp', unit: 's', timezone: 'UTC' }),
  f('day', { kind: 'date', unit: 'day' }),
  f('day64', { kind: 'date', unit: 'ms' }),
  f('i', { kind: 'int', bits: 32, signed: true }, false),
  f('u64', { kind: 'int', bits: 64, signed: false }),
  f('i64', { kind: 'int', bits: 64, signed: true }),
  f('u8', { kind: 'int', bits: 8, signed: false }),
  f('x', { kind: 'float', bits: 64 }),
  f('x32', { kind: 'float', bits: 32 }),
  f('h16', { kind: 'float', bits: 16 }),
  f('flag', { kind: 'bool' }),
  f('tags', { kind: 'list', child: f('item', { kind: 'utf8' }) }),
  f('st', { kind: 'struct', children: [f('a', { kind: 'int', bits: 32, signed: true })] }),
];

function planError(fn: () => unknown, code: string, ...mentions: string[]): PlanError {
  let err: unknown;
  try {
    fn();
  } catch (e) {
    err = e;
  }
  expect(err, `expected PlanError ${code}`).toBeInstanceOf(PlanError);
  const pe = err as PlanError;
  expect(pe.code).toBe(code);
  for (const m of mentions) expect(pe.message).toContain(m);
  return pe;
}

const resolve = (o: Partial<WindowOptions> & { columns: WindowOptions['columns'] }) => resolveWindow(o as WindowOptions, SCHEMA);

describe('builders', () => {
  it('are immutable and return new functions', () => {
    const base = sum('i');
    const framed = base.rows(6);
    expect(framed).not.toBe(base);
    expect(base.spec.frame).toBeNull();
    expect(Object.isFrozen(framed.spec)).toBe(true);
    expect(framed.spec).toEqual({ fn: 'sum', column: 'i', frame: { mode: 'rows', preceding: { kind: 'int', value: '6' }, following: { kind: 'int', value: '0' } } });
    expect(() => ((framed.spec as { fn: string }).fn = 'max')).toThrow();
  });

  it('keep specs plain data (JSON and structured clone)', () => {
    const fn = avg('x').range(2n ** 70n, 'unbounded');
    const json = JSON.parse(JSON.stringify(fn.spec));
    expect(json).toEqual(fn.spec);
    expect(structuredClone(fn.spec)).toEqual(fn.spec);
    const kinds = new Set<string>();
    const walk = (v: unknown): void => {
      kinds.add(typeof v);
      if (v && typeof v === 'object') Object.values(v).forEach(walk);
    };
    walk(fn.spec);
    expect([...kinds].sort()).toEqual(['object', 'string']);
    expect(Object.getPrototypeOf(fn.spec)).toBe(Object.prototype);
    expect(sum('i').range('1s', '-250ms').spec.frame).toEqual({
      mode: 'range',
      preceding: { kind: 'duration', value: '1', unit: 's', text: '1s' },
      following: { kind: 'duration', value: '-250', unit: 'ms', text: '-250ms' },
    });
  });

  it('saturate ROWS offsets at 2^63-1', () => {
    expect(sum('i').rows(2n ** 80n).spec.frame!.preceding).toEqual({ kind: 'int', value: '9223372036854775807' });
    planError(() => sum('i').rows(0, -(2n ** 64n)), 'FRAME_START_AFTER_END');
    expect(sum('i').rows(1e30, 'unbounded').spec.frame!.preceding).toEqual({ kind: 'int', value: '9223372036854775807' });
    expect(sum('i').rows(-(2n ** 70n), 2n ** 70n).spec.frame!.preceding).toEqual({ kind: 'int', value: '-9223372036854775807' });
  });

  it('count() has no column; the others need one', () => {
    expect(count().spec.column).toBeNull();
    expect(count('x').spec.column).toBe('x');
    // a wrong argument type is BAD_OPTION (API.md "Errors")
    planError(() => sum(undefined as unknown as string), 'BAD_OPTION');
    planError(() => min(42 as unknown as string), 'BAD_OPTION', '42');
    expect(max('x')).toBeInstanceOf(WindowFn);
  });

  it('reject bad offsets with PlanErrors', () => {
    planError(() => sum('i').rows(1.5), 'INVALID_OFFSET', '1.5');
    planError(() => sum('i').rows(NaN), 'INVALID_OFFSET', 'NaN');
    planError(() => sum('i').rows(Infinity), 'INVALID_OFFSET', 'Infinity');
    planError(() => sum('i').rows('5s'), 'INVALID_OFFSET', '5s');
    planError(() => sum('i').range('five'), 'INVALID_OFFSET', 'five');
    planError(() => sum('i').range('1.5h'), 'INVALID_OFFSET', '1.5h');
    planError(() => sum('i').range({} as unknown as number), 'BAD_OPTION', 'preceding');
    planError(() => sum('i').rows(undefined as unknown as number), 'BAD_OPTION', 'preceding');
    planError(() => sum('i').rows(1, true as unknown as number), 'BAD_OPTION', 'following');
  });

  it('reject calendar units', () => {
    planError(() => sum('i').range('1mo'), 'CALENDAR_UNIT', '1mo');
    planError(() => sum('i').range('2y'), 'CALENDAR_UNIT', '2y');
    planError(() => sum('i').range('1d', '3months'), 'CALENDAR_UNIT', '3months');
  });

  it('reject a frame that starts after it ends', () => {
    planError(() => sum('i').rows(-3, 2), 'FRAME_START_AFTER_END');
    planError(() => sum('i').rows(10, -11), 'FRAME_START_AFTER_END');
    planError(() => sum('i').range('7d', '-8d'), 'FRAME_START_AFTER_END');
    planError(() => sum('i').range(1.5, -2), 'FRAME_START_AFTER_END');
    expect(sum('i').rows(10, -10).spec.frame).not.toBeNull();
    expect(sum('i').rows(-2, 5).spec.frame).not.toBeNull();
  });
});

describe('resolveWindow', () => {
  it('normalises orderBy (ASC NULLS FIRST, DESC NULLS LAST) and partitionBy', () => {
    const w = resolve({ partitionBy: 'user', orderBy: ['ts', { column: 'i', descending: true }, { column: 'x', nulls: 'last' }], columns: { c: count() } });
    expect(w.partitionBy.map((p) => p.column)).toEqual(['user']);
    expect(w.orderBy.map(({ column, descending, nulls }) => ({ column, descending, nulls }))).toEqual([
      { column: 'ts', descending: false, nulls: 'first' },
      { column: 'i', descending: true, nulls: 'last' },
      { column: 'x', descending: false, nulls: 'last' },
    ]);
    expect(w.orderBy[1]!.index).toBe(5);
  });

  it('computes output types and shares measures', () => {
    const w = resolve({
      orderBy: 'ts',
      columns: {
        a: sum('i').rows(6),
        b: sum('u64').rows(6),
        c: sum('x32').rows(6),
        d: count('tags'),
        e: avg('i64'),
        g: min('day'),
        h: max('flag').rows(1),
        k: sum('i').rows(29),
        l: sum('u8'),
      },
    });
    const types = Object.fromEntries(w.columns.map((c) => [c.name, c.type]));
    expect(types).toEqual({
      a: { kind: 'int', bits: 64, signed: true },
      b: { kind: 'int', bits: 64, signed: false },
      c: { kind: 'float', bits: 64 },
      d: { kind: 'int', bits: 64, signed: true },
      e: { kind: 'float', bits: 64 },
      g: { kind: 'date', unit: 'day' },
      h: { kind: 'bool' },
      k: { kind: 'int', bits: 64, signed: true },
      l: { kind: 'int', bits: 64, signed: true },
    });
    expect(w.measures.map((m) => m.column)).toEqual(['i', 'u64', 'x32', 'tags', 'i64', 'day', 'flag', 'u8']);
    expect(w.columns.find((c) => c.name === 'k')!.measure).toBe(0);
    expect(w.outputSchema.slice(SCHEMA.length).map((x) => x.name)).toEqual(['a', 'b', 'c', 'd', 'e', 'g', 'h', 'k', 'l']);
    // a non-nullable measure with a frame that holds the current row never gives NULL
    expect(w.columns[0]!.nullable).toBe(false);
    expect(resolve({ orderBy: 'ts', columns: { a: sum('i').rows(3, -1) } }).columns[0]!.nullable).toBe(true);
    expect(w.columns.find((c) => c.name === 'd')!.nullable).toBe(false);
  });

  it('resolves default frames and peer-only RANGE frames', () => {
    const w = resolve({ orderBy: ['user', 'ts'], columns: { a: sum('i'), b: sum('i').range('unbounded', 0), c: sum('i').range(0, 'unbounded') } });
    expect(w.columns.map((c) => c.frame)).toEqual([
      { mode: 'peers', preceding: null, following: { int: '0' } },
      { mode: 'peers', preceding: null, following: { int: '0' } },
      { mode: 'peers', preceding: { int: '0' }, following: null },
    ]);
    const np = resolve({ columns: { a: sum('i'), b: count().rows('unbounded', 'unbounded') } });
    expect(np.columns[0]!.frame!.mode).toBe('peers');
    expect(np.columns[1]!.frame).toEqual({ mode: 'rows', preceding: null, following: null });
  });

  it('resolves RANGE durations into the key unit', () => {
    const off = (orderBy: string, fn: WindowFn) => resolve({ orderBy, columns: { a: fn } }).columns[0]!.frame!;
    expect(off('ts', sum('i').range('7d'))).toEqual({ mode: 'range', preceding: { int: String(7 * 86_400_000) }, following: { int: '0' } });
    expect(off('ts', sum('i').range('250ms', '1s')).following).toEqual({ int: '1000' });
    expect(off('ts_s', sum('i').range('2m')).preceding).toEqual({ int: '120' });
    expect(off('day', sum('i').range('1w', '48h'))).toEqual({ mode: 'range', preceding: { int: '7' }, following: { int: '2' } });
    expect(off('day64', sum('i').range('1d')).preceding).toEqual({ int: '86400000' });
    expect(off('ts', sum('i').range(5n)).preceding).toEqual({ int: '5' });
    expect(off('x', sum('i').range(1.5, 2n)).following).toEqual({ float: 2 });
    expect(off('i', sum('i').range(3, -1)).following).toEqual({ int: '-1' });
    planError(() => off('ts', sum('i').range('5us')), 'INVALID_OFFSET', '5us', 'milliseconds');
    expect(off('ts', sum('i').range('5000us', '0ns')).preceding).toEqual({ int: '5' });
  });

  it('accepts hand-written specs (e.g. from a job file)', () => {
    const w = resolve({ orderBy: 'ts', columns: { a: { fn: 'sum', column: 'i', frame: { mode: 'rows', preceding: { kind: 'int', value: '6' }, following: { kind: 'int', value: '0' } } } } });
    expect(w.columns[0]!.frame).toEqual({ mode: 'rows', preceding: { int: '6' }, following: { int: '0' } });
    const w2 = resolve({ orderBy: 'ts', columns: { a: JSON.parse(JSON.stringify(sum('i').range('3d').spec)) } });
    expect(w2.columns[0]!.frame!.preceding).toEqual({ int: String(3 * 86_400_000) });
    expect(JSON.parse(JSON.stringify(w2))).toEqual(w2);
  });

  describe('PlanErrors', () => {
    it('UNKNOWN_COLUMN names the column', () => {
      planError(() => resolve({ partitionBy: 'nope', orderBy: 'ts', columns: { a: count() } }), 'UNKNOWN_COLUMN', '"nope"');
      planError(() => resolve({ orderBy: ['ts', 'gone'], columns: { a: count() } }), 'UNKNOWN_COLUMN', '"gone"');
      planError(() => resolve({ orderBy: 'ts', columns: { a: sum('missing').rows(2) } }), 'UNKNOWN_COLUMN', '"missing"');
    });

    it('FRAME_START_AFTER_END after unit resolution', () => {
      // '1d' and -2 are only comparable once the key unit (days) is known.
      planError(() => resolve({ orderBy: 'day', columns: { a: sum('i').range('1d', -2) } }), 'FRAME_START_AFTER_END', '"a"');
      planError(
        () => resolve({ orderBy: 'ts', columns: { a: { fn: 'sum', column: 'i', frame: { mode: 'rows', preceding: { kind: 'int', value: '-5' }, following: { kind: 'int', value: '4' } } } } }),
        'FRAME_START_AFTER_END',
      );
    });

    it('RANGE_ORDER_KEYS for an offset RANGE over two keys', () => {
      planError(() => resolve({ orderBy: ['ts', 'i'], columns: { a: sum('i').range('7d') } }), 'RANGE_ORDER_KEYS', 'ts, i');
    });

    it('RANGE_KEY_TYPE for a string (or bool) key', () => {
      planError(() => resolve({ orderBy: 'user', columns: { a: sum('i').range(1) } }), 'RANGE_KEY_TYPE', '"user"', 'utf8');
      planError(() => resolve({ orderBy: 'flag', columns: { a: sum('i').range(1) } }), 'RANGE_KEY_TYPE', '"flag"');
    });

    it('CALENDAR_UNIT from a hand-written spec', () => {
      planError(
        () => resolve({ orderBy: 'ts', columns: { a: { fn: 'sum', column: 'i', frame: { mode: 'range', preceding: { kind: 'duration', value: '1', unit: 'mo' }, following: { kind: 'int', value: '0' } } } } }),
        'CALENDAR_UNIT',
      );
    });

    it('FRAME_WITHOUT_ORDER for bounded frames without orderBy', () => {
      planError(() => resolve({ columns: { a: sum('i').rows(6) } }), 'FRAME_WITHOUT_ORDER', 'ROWS BETWEEN 6 PRECEDING AND CURRENT ROW');
      planError(() => resolve({ orderBy: [], columns: { a: sum('i').range(3) } }), 'FRAME_WITHOUT_ORDER');
      planError(() => resolve({ columns: { a: sum('i').rows('unbounded', 0) } }), 'FRAME_WITHOUT_ORDER');
    });

    it('MEASURE_TYPE names the column, its type and what was expected', () => {
      planError(() => resolve({ orderBy: 'ts', columns: { a: sum('user') } }), 'MEASURE_TYPE', '"user"', 'utf8');
      planError(() => resolve({ orderBy: 'ts', columns: { a: avg('flag') } }), 'MEASURE_TYPE', '"flag"', 'bool');
      planError(() => resolve({ orderBy: 'ts', columns: { a: sum('ts') } }), 'MEASURE_TYPE', 'timestamp');
      planError(() => resolve({ orderBy: 'ts', columns: { a: min('tags') } }), 'MEASURE_TYPE', 'list');
      planError(() => resolve({ orderBy: 'ts', columns: { a: max('st') } }), 'MEASURE_TYPE');
      planError(() => resolve({ orderBy: 'ts', columns: { a: sum('h16') } }), 'MEASURE_TYPE', 'float16');
    });

    it('NAME_CLASH with an input column', () => {
      planError(() => resolve({ orderBy: 'ts', columns: { x: sum('i').rows(2) } }), 'NAME_CLASH', '"x"');
    });

    it('INVALID_OFFSET for units that do not fit the key', () => {
      planError(() => resolve({ orderBy: 'i', columns: { a: sum('i').range('1d') } }), 'INVALID_OFFSET', '"i"', 'numeric');
      planError(() => resolve({ orderBy: 'x', columns: { a: sum('i').range('1s') } }), 'INVALID_OFFSET', '"x"');
      planError(() => resolve({ orderBy: 'i', columns: { a: sum('i').range(1.5) } }), 'INVALID_OFFSET', '1.5');
      planError(() => resolve({ orderBy: 'ts', columns: { a: sum('i').range(0.5) } }), 'INVALID_OFFSET', '0.5');
      planError(() => resolve({ orderBy: 'day', columns: { a: sum('i').range('36h') } }), 'INVALID_OFFSET', '36h', 'days');
      planError(() => resolve({ orderBy: 'ts_s', columns: { a: sum('i').range('250ms') } }), 'INVALID_OFFSET', '250ms', 'seconds');
    });

    it('INVALID_WINDOW_FN for things that are not window functions', () => {
      planError(() => resolve({ orderBy: 'ts', columns: { a: 42 } }), 'INVALID_WINDOW_FN', '"a"', '42');
      planError(() => resolve({ orderBy: 'ts', columns: { a: { fn: 'median', column: 'i', frame: null } } }), 'INVALID_WINDOW_FN', 'median');
      planError(() => resolve({ orderBy: 'ts', columns: { a: { fn: 'sum', column: null, frame: null } } }), 'INVALID_WINDOW_FN');
      planError(() => resolve({ orderBy: 'ts', columns: { a: { fn: 'sum', column: 'i', frame: { mode: 'slide' } } } }), 'INVALID_WINDOW_FN', 'slide');
    });

    it('INVALID_OPTION, ORDER_KEY_TYPE, PARTITION_KEY_TYPE, NO_WINDOW_COLUMNS', () => {
      planError(() => resolve({ orderBy: { column: 'ts', nulls: 'middle' as 'first' }, columns: { a: count() } }), 'INVALID_OPTION', 'middle');
      planError(() => resolve({ orderBy: { column: 'ts', descending: 'yes' as unknown as boolean }, columns: { a: count() } }), 'INVALID_OPTION');
      planError(() => resolve({ orderBy: 'tags', columns: { a: count() } }), 'ORDER_KEY_TYPE', '"tags"');
      planError(() => resolve({ orderBy: 'h16', columns: { a: count() } }), 'ORDER_KEY_TYPE', 'float16');
      planError(() => resolve({ partitionBy: 'st', orderBy: 'ts', columns: { a: count() } }), 'PARTITION_KEY_TYPE', '"st"');
      planError(() => resolve({ orderBy: 'ts', columns: {} }), 'NO_WINDOW_COLUMNS');
      planError(() => resolveWindow(null as unknown as WindowOptions, SCHEMA), 'INVALID_OPTION');
      planError(() => resolve({ orderBy: 'ts', columns: [] as unknown as WindowOptions['columns'] }), 'INVALID_OPTION');
    });
  });
});
