/**
 * Builders and plan resolution of the window functions beyond sum/count/avg/min/max: argument
 * checks, plain-data specs, output types and nullability, GROUPS / decimal / duration frames,
 * lag/lead defaults, and every PlanError (raised before any row is read).
 */
import { describe, expect, it } from 'vitest';
import * as F from '../../src/expr/aggregates.js';
import { PlanError } from '../../src/errors.js';
import * as Api from '../../src/index.js';
import { resolveWindow, type WindowOptions } from '../../src/ops/window-spec.js';
import type { FieldDesc, TypeDesc } from '../../src/types/column.js';

const f = (name: string, type: TypeDesc, nullable = true): FieldDesc => ({ name, type, nullable });
const SCHEMA: FieldDesc[] = [
  f('ts', { kind: 'timestamp', unit: 'ms', timezone: null }),
  f('i', { kind: 'int', bits: 32, signed: true }, false),
  f('i64', { kind: 'int', bits: 64, signed: true }),
  f('x', { kind: 'float', bits: 64 }),
  f('s', { kind: 'utf8' }),
  f('b', { kind: 'binary' }),
  f('d', { kind: 'decimal', precision: 10, scale: 2 }),
  f('dur', { kind: 'duration', unit: 'ms' }),
  f('flag', { kind: 'bool' }),
  f('tags', { kind: 'list', child: f('item', { kind: 'utf8' }) }),
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
const col = (fn: F.WindowFn, orderBy: WindowOptions['orderBy'] = 'ts') => resolve({ orderBy, columns: { out: fn } }).columns[0]!;

describe('exports', () => {
  it('index exports every window builder named in API.md', () => {
    for (const name of ['sum', 'count', 'avg', 'min', 'max', 'stddev', 'stddevPop', 'variance', 'varPop', 'first', 'last', 'nthValue', 'countDistinct', 'lag', 'lead', 'rowNumber', 'rank', 'denseRank', 'percentRank', 'cumeDist', 'ntile']) {
      expect(typeof (Api as Record<string, unknown>)[name], name).toBe('function');
    }
  });
});

describe('builders', () => {
  it('keep specs plain data with the arguments as given', () => {
    const specs = [F.lag('i', 2n ** 70n, 5n), F.nthValue('x', 3).rows(2, 2).ignoreNulls().minPeriods(1), F.ntile(4), F.lead('s', 1, 'z'), F.lag('b', 1, Uint8Array.of(1, 2))];
    for (const fn of specs) {
      expect(JSON.parse(JSON.stringify(fn.spec))).toEqual(fn.spec);
      expect(structuredClone(fn.spec)).toEqual(fn.spec);
      expect(Object.isFrozen(fn.spec)).toBe(true);
    }
    expect(F.lag('i', 2n ** 70n, 5n).spec).toEqual({ fn: 'lag', column: 'i', frame: null, n: String(2n ** 70n), default: { kind: 'int', value: '5' } });
    expect(F.lag('b', 1, Uint8Array.of(1, 255)).spec.default).toEqual({ kind: 'bytes', hex: '01ff' });
    expect(F.rank().spec).toEqual({ fn: 'rank', column: null, frame: null });
    expect(F.first('x').ignoreNulls().ignoreNulls(false).spec.ignoreNulls).toBeUndefined();
    expect(F.sum('x').groups(1, 'unbounded').spec.frame).toEqual({ mode: 'groups', preceding: { kind: 'int', value: '1' }, following: { kind: 'unbounded' } });
    expect(F.sum('x').groups(2n ** 80n).spec.frame!.preceding).toEqual({ kind: 'int', value: '9223372036854775807' });
    expect(F.sum('d').range('0.25', '1.5').spec.frame).toEqual({ mode: 'range', preceding: { kind: 'decimal', text: '0.25' }, following: { kind: 'decimal', text: '1.5' } });
  });

  it('ranking functions and lag/lead take no frame', () => {
    for (const fn of [F.rowNumber(), F.rank(), F.denseRank(), F.percentRank(), F.cumeDist(), F.ntile(2), F.lag('i'), F.lead('i', 2)]) {
      planError(() => fn.rows(1), 'FRAME_NOT_ALLOWED', fn.spec.fn);
      planError(() => fn.range('unbounded', 0), 'FRAME_NOT_ALLOWED');
      planError(() => fn.groups(0, 0), 'FRAME_NOT_ALLOWED');
    }
    // from a hand-written spec (job file) too
    planError(() => resolve({ orderBy: 'ts', columns: { a: { fn: 'rank', column: null, frame: { mode: 'rows', preceding: { kind: 'int', value: '1' }, following: { kind: 'int', value: '0' } } } } }), 'FRAME_NOT_ALLOWED');
  });

  it('reject bad arguments and misplaced modifiers', () => {
    planError(() => F.nthValue('x', 0), 'BAD_OPTION', 'n');
    planError(() => F.nthValue('x', 1.5), 'BAD_OPTION', '1.5');
    planError(() => F.ntile(0), 'BAD_OPTION');
    planError(() => F.ntile(-3n), 'BAD_OPTION');
    planError(() => F.ntile('2' as unknown as number).rows(1), 'FRAME_NOT_ALLOWED'); // integer text is accepted, the frame is not
    planError(() => F.lag('x', 2 ** 60), 'BAD_OPTION');
    planError(() => F.lag('x', NaN), 'BAD_OPTION');
    planError(() => F.lag('x', 1, {} as unknown as number), 'BAD_OPTION');
    planError(() => F.sum('x').minPeriods(-1), 'BAD_OPTION', '-1');
    planError(() => F.sum('x').minPeriods(1.5), 'BAD_OPTION');
    planError(() => F.rank().minPeriods(1), 'INVALID_WINDOW_FN', 'minPeriods');
    planError(() => F.lag('x').minPeriods(1), 'INVALID_WINDOW_FN');
    planError(() => F.sum('x').ignoreNulls(), 'INVALID_WINDOW_FN', 'ignoreNulls');
    planError(() => F.rank().ignoreNulls(), 'INVALID_WINDOW_FN');
    planError(() => F.first('x').ignoreNulls('yes' as unknown as boolean), 'BAD_OPTION');
    planError(() => F.first(undefined as unknown as string), 'BAD_OPTION', 'column');
    planError(() => F.sum('x').groups(1.5), 'INVALID_OFFSET', 'GROUPS');
    planError(() => F.sum('x').groups('1d'), 'INVALID_OFFSET');
    planError(() => F.sum('x').groups(-2, 1), 'FRAME_START_AFTER_END');
  });
});

describe('resolution', () => {
  it('output types', () => {
    const t = (fn: F.WindowFn) => col(fn).type;
    const I64: TypeDesc = { kind: 'int', bits: 64, signed: true };
    const F64: TypeDesc = { kind: 'float', bits: 64 };
    for (const fn of [F.rowNumber(), F.rank(), F.denseRank(), F.ntile(3), F.countDistinct('s')]) expect(t(fn)).toEqual(I64);
    for (const fn of [F.percentRank(), F.cumeDist(), F.stddev('i'), F.variance('d'), F.stddevPop('x'), F.varPop('i64'), F.avg('d')]) expect(t(fn)).toEqual(F64);
    expect(t(F.sum('d'))).toEqual({ kind: 'decimal', precision: 38, scale: 2 });
    expect(t(F.sum('dur'))).toEqual({ kind: 'duration', unit: 'ms' });
    expect(t(F.avg('dur'))).toEqual({ kind: 'duration', unit: 'ms' });
    expect(t(F.min('s'))).toEqual({ kind: 'utf8' });
    expect(t(F.max('b'))).toEqual({ kind: 'binary' });
    expect(t(F.max('d'))).toEqual(SCHEMA[6]!.type);
    expect(t(F.first('tags'))).toEqual(SCHEMA[9]!.type);
    expect(t(F.lag('flag'))).toEqual({ kind: 'bool' });
  });

  it('nullability: ranking never NULL; lag/lead, nthValue and sample variances may be', () => {
    expect(col(F.rank()).nullable).toBe(false);
    expect(col(F.lag('i')).nullable).toBe(true);
    expect(col(F.nthValue('i', 1).rows(0)).nullable).toBe(true);
    expect(col(F.variance('i').rows(3)).nullable).toBe(true);
    expect(col(F.varPop('i').rows(3)).nullable).toBe(false);
    expect(col(F.sum('i').rows(3).minPeriods(2)).nullable).toBe(true);
    expect(col(F.count().rows(3)).nullable).toBe(false);
    expect(col(F.count().rows(3).minPeriods(2)).nullable).toBe(true);
  });

  it('lag/lead offsets: lead n counts ahead, saturated beyond any row count', () => {
    expect(col(F.lag('i', 3)).n).toBe(3);
    expect(col(F.lead('i', 3)).n).toBe(-3);
    expect(col(F.lag('i')).n).toBe(1);
    expect(col(F.lag('i', 2n ** 70n)).n).toBe(2 ** 40);
    expect(col(F.lead('i', -(2n ** 70n))).n).toBe(2 ** 40);
  });

  it('defaults are exact values of the measure type', () => {
    expect(col(F.lag('i64', 1, 2n ** 62n)).default).toEqual({ kind: 'int', value: String(2n ** 62n) });
    expect(col(F.lag('i64', 1, 7)).default).toEqual({ kind: 'int', value: '7' });
    expect(col(F.lag('d', 1, '1.5')).default).toEqual({ kind: 'int', value: '150' });
    expect(col(F.lag('d', 1, 0.25)).default).toEqual({ kind: 'int', value: '25' });
    expect(col(F.lag('d', 1, 3n)).default).toEqual({ kind: 'int', value: '300' });
    expect(col(F.lag('x', 1, 2n)).default).toEqual({ kind: 'float', value: 2 });
    expect(col(F.lag('b', 1, 'hi')).default).toEqual({ kind: 'bytes', hex: '6869' });
    expect(col(F.lag('ts', 1, 5n)).default).toEqual({ kind: 'int', value: '5' });
    planError(() => col(F.lag('i', 1, 2 ** 40)), 'BAD_OPTION', 'int32');
    planError(() => col(F.lag('i64', 1, 2 ** 60)), 'BAD_OPTION', 'safe');
    planError(() => col(F.lag('i', 1, 1.5)), 'BAD_OPTION');
    planError(() => col(F.lag('i', 1, 'x')), 'BAD_OPTION');
    planError(() => col(F.lag('s', 1, 1)), 'BAD_OPTION', 'string');
    planError(() => col(F.lag('d', 1, '1.234')), 'BAD_OPTION', '2 digits');
    planError(() => col(F.lag('d', 1, 10n ** 9n)), 'BAD_OPTION', '10 digits');
    planError(() => col(F.lag('tags', 1, 'a')), 'BAD_OPTION');
    expect(col(F.lag('tags', 1, null)).default).toEqual({ kind: 'null' });
  });

  it('GROUPS frames resolve to peer-group offsets; 0/unbounded bounds are peer frames', () => {
    expect(col(F.sum('i').groups(2, 1)).frame).toEqual({ mode: 'groups', preceding: { int: '2' }, following: { int: '1' } });
    expect(col(F.sum('i').groups('unbounded', 0)).frame).toEqual({ mode: 'peers', preceding: null, following: { int: '0' } });
    expect(resolve({ columns: { a: F.sum('i').groups(0, 0) } }).columns[0]!.frame!.mode).toBe('peers');
    planError(() => resolve({ columns: { a: F.sum('i').groups(1, 0) } }), 'FRAME_WITHOUT_ORDER');
    // any order keys, of any type
    expect(col(F.sum('i').groups(1, 1), ['s', 'x']).frame!.mode).toBe('groups');
  });

  it('RANGE over decimal keys takes offsets in the key units; over durations, durations', () => {
    expect(col(F.sum('i').range('0.5', 1), 'd').frame).toEqual({ mode: 'range', preceding: { int: '50' }, following: { int: '100' } });
    expect(col(F.sum('i').range(0.25, 2n), 'd').frame).toEqual({ mode: 'range', preceding: { int: '25' }, following: { int: '200' } });
    planError(() => col(F.sum('i').range('0.001'), 'd'), 'INVALID_OFFSET', '2 decimal places');
    planError(() => col(F.sum('i').range('1s'), 'd'), 'INVALID_OFFSET', 'temporal');
    expect(col(F.sum('i').range('2s', '1m'), 'dur').frame).toEqual({ mode: 'range', preceding: { int: '2000' }, following: { int: '60000' } });
    planError(() => col(F.sum('i').range('0.5'), 'dur'), 'INVALID_OFFSET');
    expect(col(F.sum('i').range('0.5'), 'x').frame!.preceding).toEqual({ float: 0.5 });
    planError(() => col(F.sum('i').range('0.5'), 'i'), 'INVALID_OFFSET', '0.5');
  });

  it('measure types', () => {
    planError(() => col(F.stddev('s')), 'MEASURE_TYPE', 'stddev', 'utf8');
    planError(() => col(F.variance('dur')), 'MEASURE_TYPE', 'duration');
    planError(() => col(F.sum('flag')), 'MEASURE_TYPE');
    planError(() => col(F.min('tags')), 'MEASURE_TYPE', 'list');
    planError(() => col(F.countDistinct('tags')), 'MEASURE_TYPE');
    expect(() => col(F.countDistinct('d'))).not.toThrow();
    expect(() => col(F.lead('tags'))).not.toThrow();
  });
});
