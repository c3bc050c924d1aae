/** resolveAsof: every PlanError of API.md's asofJoin, key plans, tolerances and the output schema. */
import { describe, expect, it } from 'vitest';
import { PlanError } from '../../src/errors.js';
import { parseAsofDuration, resolveAsof, type AsofOptions } from '../../src/ops/asof-spec.js';
import type { FieldDesc, TypeDesc } from '../../src/types/column.js';

const I32: TypeDesc = { kind: 'int', bits: 32, signed: true };
const U64: TypeDesc = { kind: 'int', bits: 64, signed: false };
const I16: TypeDesc = { kind: 'int', bits: 16, signed: true };
const F64: TypeDesc = { kind: 'float', bits: 64 };
const F32: TypeDesc = { kind: 'float', bits: 32 };
const F16: TypeDesc = { kind: 'float', bits: 16 };
const STR: TypeDesc = { kind: 'utf8' };
const LSTR: TypeDesc = { kind: 'largeUtf8' };
const BOOL: TypeDesc = { kind: 'bool' };
const D32: TypeDesc = { kind: 'date', unit: 'day' };
const D64: TypeDesc = { kind: 'date', unit: 'ms' };
const ts = (unit: 's' | 'ms' | 'us' | 'ns', timezone: string | null = null): TypeDesc => ({ kind: 'timestamp', unit, timezone });
const LIST: TypeDesc = { kind: 'list', child: { name: 'item', type: I32, nullable: true } };

const f = (name: string, type: TypeDesc, nullable = false): FieldDesc => ({ name, type, nullable });

function schemas(lk: TypeDesc, rk: TypeDesc): [FieldDesc[], FieldDesc[]] {
  return [
    [f('t', lk), f('sym', STR), f('px', F64), f('n', I32), f('flag', BOOL), f('tags', LIST)],
    [f('t', rk), f('sym', STR), f('px', F64), f('venue', LSTR), f('code', I16), f('flag', BOOL), f('tags', LIST)],
  ];
}

function planError(fn: () => unknown): PlanError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(PlanError);
    return e as PlanError;
  }
  throw new Error('expected a PlanError');
}

function expectPlanError(lk: TypeDesc, rk: TypeDesc, opts: Partial<AsofOptions>, code: string, ...mentions: string[]): void {
  const [ls, rs] = schemas(lk, rk);
  const e = planError(() => resolveAsof({ on: 't', ...opts } as AsofOptions, ls, rs));
  expect(e.code).toBe(code);
  for (const m of mentions) expect(e.message).toContain(m);
}

describe('resolveAsof PlanErrors', () => {
  it('unknown columns name the column and the side', () => {
    expectPlanError(I32, I32, { on: 'nope' }, 'UNKNOWN_COLUMN', '"nope"', 'left');
    expectPlanError(I32, I32, { on: ['t', 'nope'] }, 'UNKNOWN_COLUMN', '"nope"', 'right');
    expectPlanError(I32, I32, { by: 'n' }, 'UNKNOWN_COLUMN', '"n"', 'right');
    expectPlanError(I32, I32, { by: [['sym', 'nope']] }, 'UNKNOWN_COLUMN', '"nope"');
  });

  it('integer vs float keys', () => {
    expectPlanError(I32, F64, {}, 'KEY_TYPE_MISMATCH', 'int32', 'float64');
    expectPlanError(F32, U64, {}, 'KEY_TYPE_MISMATCH');
    expectPlanError(I32, ts('s'), {}, 'KEY_TYPE_MISMATCH');
    expectPlanError(STR, D32, {}, 'KEY_TYPE_MISMATCH');
  });

  it('zoned vs zone-less timestamps', () => {
    expectPlanError(ts('s', 'UTC'), ts('ns'), {}, 'MIXED_TIMEZONE_KEYS', 'timestamp[s, UTC]', 'timestamp[ns]');
    expectPlanError(ts('ms'), ts('ms', 'Europe/Paris'), {}, 'MIXED_TIMEZONE_KEYS');
  });

  it('nearest or tolerance on strings', () => {
    expectPlanError(STR, LSTR, { direction: 'nearest' }, 'NEAREST_ON_STRING', "'nearest'");
    expectPlanError(STR, STR, { tolerance: 3 }, 'TOLERANCE_ON_STRING', '3');
    expectPlanError(STR, STR, { tolerance: '1s' }, 'TOLERANCE_ON_STRING');
  });

  it('negative, NaN, non-integer (integer keys) and malformed tolerances', () => {
    expectPlanError(I32, I32, { tolerance: -1 }, 'BAD_TOLERANCE', '-1');
    expectPlanError(I32, I32, { tolerance: -1n }, 'BAD_TOLERANCE', '-1n');
    expectPlanError(F64, F64, { tolerance: NaN }, 'BAD_TOLERANCE', 'NaN');
    expectPlanError(F64, F64, { tolerance: -0.5 }, 'BAD_TOLERANCE');
    expectPlanError(I32, U64, { tolerance: 1.5 }, 'BAD_TOLERANCE', '1.5', 'whole');
    expectPlanError(ts('s'), ts('s'), { tolerance: 2.5 }, 'BAD_TOLERANCE');
    expectPlanError(ts('s'), ts('s'), { tolerance: '-5s' }, 'BAD_TOLERANCE', '-5s');
    expectPlanError(ts('s'), ts('s'), { tolerance: '5 parsecs' }, 'BAD_TOLERANCE', 'parsecs');
    expectPlanError(ts('s'), ts('s'), { tolerance: 'soon' }, 'BAD_TOLERANCE');
    expectPlanError(ts('s'), ts('s'), { tolerance: '1.5h' }, 'BAD_TOLERANCE');
    expectPlanError(I32, I32, { tolerance: '5s' }, 'BAD_TOLERANCE', 'int32');
    expectPlanError(I32, I32, { tolerance: true as never }, 'BAD_TOLERANCE');
    // a number is ambiguous when the temporal units differ
    expectPlanError(ts('s'), ts('ms'), { tolerance: 5 }, 'BAD_TOLERANCE', 'duration');
  });

  it('calendar tolerances', () => {
    expectPlanError(ts('s'), ts('s'), { tolerance: '1mo' }, 'CALENDAR_TOLERANCE', '1mo');
    expectPlanError(D32, D32, { tolerance: '1y' }, 'CALENDAR_TOLERANCE');
    expectPlanError(D32, ts('s'), { tolerance: '2 years' }, 'CALENDAR_TOLERANCE');
    expectPlanError(D32, D32, { tolerance: '1q' }, 'CALENDAR_TOLERANCE');
  });

  it('unsupported key types', () => {
    expectPlanError(BOOL, BOOL, {}, 'UNSUPPORTED_KEY_TYPE', 'bool');
    expectPlanError(LIST, LIST, {}, 'UNSUPPORTED_KEY_TYPE', 'list<int32>');
    expectPlanError(F16, F16, {}, 'UNSUPPORTED_KEY_TYPE', 'float16');
    expectPlanError(I32, { kind: 'binary' }, {}, 'UNSUPPORTED_KEY_TYPE', 'right');
    expectPlanError(I32, I32, { by: 'tags' }, 'UNSUPPORTED_KEY_TYPE', '"tags"');
  });

  it('by arity and type mismatches', () => {
    expectPlanError(I32, I32, { by: [['sym']] as never }, 'BY_ARITY', '1 names');
    expectPlanError(I32, I32, { by: [['sym', 'sym', 'px']] as never }, 'BY_ARITY');
    expectPlanError(I32, I32, { by: 5 as never }, 'BY_ARITY');
    expectPlanError(I32, I32, { by: [['sym', 'code']] }, 'BY_TYPE_MISMATCH', '"sym"', '"code"');
    expectPlanError(I32, I32, { by: [['px', 'code']] }, 'BY_TYPE_MISMATCH', 'float', 'integer');
    expectPlanError(I32, I32, { by: [['flag', 'sym']] }, 'BY_TYPE_MISMATCH');
    expectPlanError(I32, I32, { by: ['sym', 'sym'] }, 'DUPLICATE_BY');
  });

  it('bad option values', () => {
    expectPlanError(I32, I32, { direction: 'closest' as never }, 'BAD_DIRECTION', 'closest');
    expectPlanError(I32, I32, { how: 'outer' as never }, 'BAD_HOW', 'outer');
    expectPlanError(I32, I32, { allowExactMatches: 'yes' as never }, 'BAD_OPTION', 'allowExactMatches');
    expectPlanError(I32, I32, { nullsEqual: 1 as never }, 'BAD_OPTION', 'nullsEqual');
    expectPlanError(I32, I32, { suffix: '' }, 'BAD_SUFFIX');
    expectPlanError(I32, I32, { timeZone: 'Mars/Olympus' }, 'BAD_TIMEZONE', 'Mars/Olympus');
    expectPlanError(I32, I32, { on: ['t'] as never }, 'BAD_OPTION', '`on`');
    expectPlanError(I32, I32, { tolerence: 5 } as never, 'UNKNOWN_OPTION', 'tolerence');
    expectPlanError(I32, I32, { condition: 5 as never }, 'BAD_OPTION', 'condition');
  });
});

describe('resolveAsof plans', () => {
  it('accepts every documented key pair and picks the common temporal unit', () => {
    const r = (lk: TypeDesc, rk: TypeDesc, o: Partial<AsofOptions> = {}) => {
      const [ls, rs] = schemas(lk, rk);
      return resolveAsof({ on: 't', ...o } as AsofOptions, ls, rs);
    };
    expect(r(I16, U64).key).toEqual({ cls: 'integer', unit: null, dateZone: null });
    expect(r(F32, F64).key.cls).toBe('float');
    expect(r(STR, LSTR).key.cls).toBe('string');
    expect(r(ts('s', 'Asia/Tokyo'), ts('ns', 'UTC')).key).toEqual({ cls: 'temporal', unit: 'ns', dateZone: null });
    expect(r(D32, D32).key.unit).toBe('day');
    expect(r(D32, D32, { tolerance: '12h' }).key.unit).toBe('s');
    expect(r(D32, D64).key.unit).toBe('ms');
    expect(r(D32, ts('s', 'America/New_York'), { timeZone: 'America/New_York' }).key).toEqual({
      cls: 'temporal',
      unit: 's',
      dateZone: 'America/New_York',
    });
    expect(r(D32, ts('s', 'America/New_York')).key.dateZone).toBe(null); // default UTC
    expect(r(D32, ts('s'), { timeZone: 'Asia/Tokyo' }).key.dateZone).toBe(null); // zone-less: UTC midnight
  });

  it('normalizes tolerances exactly into key units', () => {
    const r = (lk: TypeDesc, rk: TypeDesc, tolerance: AsofOptions['tolerance']) => {
      const [ls, rs] = schemas(lk, rk);
      return resolveAsof({ on: 't', tolerance }, ls, rs);
    };
    expect(r(ts('s'), ts('ns'), '250ms').tolerance!.value).toBe(250_000_000n);
    expect(r(ts('s'), ts('s'), '1h30m').tolerance!.value).toBe(5400n);
    expect(r(D32, D32, '1w').tolerance!.value).toBe(7n);
    expect(r(D32, D32, 3).tolerance!.value).toBe(3n);
    expect(r(ts('us'), ts('us'), 5n).tolerance!.value).toBe(5n);
    expect(r(I32, I32, 2 ** 60).tolerance!.value).toBe(2n ** 60n);
    expect(r(F64, F64, 0.25).tolerance!.value).toBe(0.25);
    expect(r(F64, F64, Infinity).tolerance!.unbounded).toBe(true);
    expect(r(I32, I32, undefined).tolerance).toBe(null);
    expect(parseAsofDuration('2m')).toBe(120_000_000_000n);
    expect(parseAsofDuration('10us')).toBe(10_000n);
    expect(parseAsofDuration('5ns')).toBe(5n);
    expect(parseAsofDuration('3d')).toBe(3n * 86_400_000_000_000n);
  });

  it('builds the output schema: left columns, right columns except right by, suffix then _2, _3', () => {
    const ls = [f('t', I32), f('sym', STR), f('px', F64), f('px_right', F64)];
    const rs = [f('t', I32), f('sym', STR), f('px', F64, false), f('venue', STR), f('px_right', I32)];
    const r = resolveAsof({ on: 't', by: 'sym' }, ls, rs);
    expect(r.output.map((x) => x.name)).toEqual(['t', 'sym', 'px', 'px_right', 't_right', 'px_right_2', 'venue', 'px_right_right']);
    expect(r.outputSources).toEqual([
      { side: 'left', index: 0 },
      { side: 'left', index: 1 },
      { side: 'left', index: 2 },
      { side: 'left', index: 3 },
      { side: 'right', index: 0 },
      { side: 'right', index: 2 },
      { side: 'right', index: 3 },
      { side: 'right', index: 4 },
    ]);
    expect(r.output.slice(4).every((x) => x.nullable)).toBe(true); // left join
    const inner = resolveAsof({ on: 't', by: [['sym', 'sym']], how: 'inner', suffix: '_r' }, ls, rs);
    expect(inner.output.map((x) => x.name)).toEqual(['t', 'sym', 'px', 'px_right', 't_r', 'px_r', 'venue', 'px_right_r']);
    expect(inner.output[5]!.nullable).toBe(false);
    // a non-colliding right name is never renamed, even when a suffixed name would take it
    const r2 = resolveAsof({ on: 't' }, [f('t', I32), f('a', I32)], [f('t', I32), f('a', I32), f('a_right', I32)]);
    expect(r2.output.map((x) => x.name)).toEqual(['t', 'a', 't_right', 'a_right_2', 'a_right']);
  });

  it('carries defaults, the condition and the resolved columns', () => {
    const [ls, rs] = schemas(I32, I32);
    const cond = { kind: 'opaque' };
    const r = resolveAsof({ on: ['t', 't'], by: [['sym', 'venue']], condition: cond }, ls, rs);
    expect(r.direction).toBe('backward');
    expect(r.allowExactMatches).toBe(true);
    expect(r.how).toBe('left');
    expect(r.nullsEqual).toBe(false);
    expect(r.timeZone).toBe('UTC');
    expect(r.suffix).toBe('_right');
    expect(r.condition).toBe(cond);
    expect(r.by[0]!.left.index).toBe(1);
    expect(r.by[0]!.right.index).toBe(3);
    expect(r.on.right.index).toBe(0);
  });
});
