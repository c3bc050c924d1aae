/**
 * Random tables and random window calls for the window differential tests (kernel and engine):
 * a schema with every order-key and measure type, rows with NULLs, ties, int64 extremes,
 * NaN/±Inf, and calls of every window function with random frames, modifiers and arguments
 * (sometimes invalid, so plan errors are compared too). `buildCall` builds the engine's side
 * (catching the PlanError code), `refCall` the reference's raw description of the same call.
 */
import fc from 'fast-check';
import { PlanError } from '../../src/errors.js';
import type { FieldDesc, TypeDesc } from '../../src/types/column.js';
import { Both, engineOptions, W, type BothOptions } from './window-fns.js';
import { windowKernelInputFromRows } from './window-harness.js';
import type { RefOffset, RefRow, RefWindowOptions } from './window-reference.js';

const I64_MAX = (1n << 63n) - 1n;
const I64_MIN = -(1n << 63n);
const U64_MAX = (1n << 64n) - 1n;

const int = (bits: 8 | 16 | 32 | 64, signed = true): TypeDesc => ({ kind: 'int', bits, signed });
const DEC_K: TypeDesc = { kind: 'decimal', precision: 10, scale: 2 };
const DEC_M: TypeDesc = { kind: 'decimal', precision: 20, scale: 3 };
export const SCHEMA: FieldDesc[] = [
  { name: 'g', type: int(32), nullable: true },
  { name: 'h', type: { kind: 'utf8' }, nullable: true },
  { name: 'k_i32', type: int(32), nullable: true },
  { name: 'k_i64', type: int(64), nullable: true },
  { name: 'k_u8', type: int(8, false), nullable: true },
  { name: 'k_f64', type: { kind: 'float', bits: 64 }, nullable: true },
  { name: 'k_ts', type: { kind: 'timestamp', unit: 'ms', timezone: null }, nullable: true },
  { name: 'k_d32', type: { kind: 'date', unit: 'day' }, nullable: true },
  { name: 'k_str', type: { kind: 'utf8' }, nullable: true },
  { name: 'k_dec', type: DEC_K, nullable: true },
  { name: 'k_dur', type: { kind: 'duration', unit: 's' }, nullable: true },
  { name: 'm_i32', type: int(32), nullable: true },
  { name: 'm_i64', type: int(64), nullable: true },
  { name: 'm_u64', type: int(64, false), nullable: true },
  { name: 'm_i8', type: int(8), nullable: false },
  { name: 'm_f64', type: { kind: 'float', bits: 64 }, nullable: true },
  { name: 'm_f32', type: { kind: 'float', bits: 32 }, nullable: true },
  { name: 'm_bool', type: { kind: 'bool' }, nullable: true },
  { name: 'm_ts', type: { kind: 'timestamp', unit: 'ms', timezone: null }, nullable: true },
  { name: 'm_str', type: { kind: 'utf8' }, nullable: true },
  { name: 'm_bin', type: { kind: 'binary' }, nullable: true },
  { name: 'm_dec', type: DEC_M, nullable: true },
  { name: 'm_dur', type: { kind: 'duration', unit: 'us' }, nullable: true },
];

const nullable = <T>(arb: fc.Arbitrary<T>, freq = 5): fc.Arbitrary<T | null> => fc.option(arb, { freq, nil: null });

const specialFloats = [0, -0, 1, -1, 0.1, 0.5, 2.5, 1e20, -1e20, 1e-300, 2 ** 53, NaN, Infinity, -Infinity];
const floatVal = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...specialFloats) },
  { weight: 4, arbitrary: fc.double({ min: -1e6, max: 1e6, noNaN: true }) },
  { weight: 3, arbitrary: fc.integer({ min: -5, max: 5 }) },
);
const finiteFloat = fc.oneof(fc.constantFrom(0, -0, 1, -1, 0.1, 0.5, 2.5, 1e20, -1e20, 1e-300), fc.double({ min: -1e6, max: 1e6, noNaN: true }));
const i64Val = fc.oneof(
  fc.constantFrom(I64_MAX, I64_MIN, I64_MAX - 1n, I64_MIN + 1n, 0n, -1n, 1n),
  fc.bigInt({ min: -100n, max: 100n }),
  fc.bigInt({ min: I64_MIN, max: I64_MAX }),
);
const decVal = fc.oneof(
  fc.bigInt({ min: -5000n, max: 5000n }),
  fc.constantFrom(10n ** 20n - 1n, -(10n ** 20n - 1n), 10n ** 19n, 0n, 1n, -1n),
  fc.bigInt({ min: -(10n ** 20n - 1n), max: 10n ** 20n - 1n }),
);
const tsBase = 1_700_000_000_000n;

export const rowArb: fc.Arbitrary<RefRow> = fc.record({
  g: nullable(fc.integer({ min: 0, max: 2 }), 4),
  h: nullable(fc.constantFrom('a', 'b'), 4),
  k_i32: nullable(fc.oneof(fc.integer({ min: -4, max: 4 }), fc.constantFrom(2147483647, -2147483648)), 5),
  k_i64: nullable(fc.oneof(fc.bigInt({ min: -4n, max: 4n }), fc.constantFrom(I64_MAX, I64_MIN, I64_MAX - 2n, I64_MIN + 3n)), 5),
  k_u8: nullable(fc.integer({ min: 0, max: 6 }), 6),
  k_f64: nullable(fc.oneof(fc.constantFrom(NaN, 0, -0, Infinity, -Infinity, 0.5, 1.5), fc.integer({ min: -4, max: 4 })), 5),
  k_ts: nullable(fc.oneof(fc.bigInt({ min: 0n, max: 20n }).map((x) => tsBase + x), fc.constantFrom(I64_MIN, I64_MAX)), 6),
  k_d32: nullable(fc.integer({ min: 19000, max: 19010 }), 6),
  k_str: nullable(fc.constantFrom('', 'a', 'ab', 'b', 'é', '😀', 'z'), 5),
  k_dec: nullable(fc.oneof(fc.bigInt({ min: -500n, max: 500n }), fc.constantFrom(9999999999n, -9999999999n, 0n, 150n, 125n)), 5),
  k_dur: nullable(fc.oneof(fc.bigInt({ min: -5n, max: 90n }), fc.constantFrom(I64_MIN, I64_MAX)), 5),
  m_i32: nullable(fc.oneof(fc.integer({ min: -10, max: 10 }), fc.constantFrom(2147483647, -2147483648)), 4),
  m_i64: nullable(i64Val, 4),
  m_u64: nullable(fc.oneof(fc.constantFrom(U64_MAX, U64_MAX - 1n, 0n, 1n, 1n << 63n), fc.bigInt({ min: 0n, max: 50n })), 4),
  m_i8: fc.integer({ min: -128, max: 127 }),
  m_f64: nullable(floatVal, 4),
  m_f32: nullable(finiteFloat.map((x) => Math.fround(x)), 4),
  m_bool: nullable(fc.boolean(), 4),
  m_ts: nullable(fc.bigInt({ min: 0n, max: 99n }).map((x) => tsBase + x), 4),
  m_str: nullable(fc.constantFrom('', 'a', 'ab', 'b', 'é', '😀', 'z', 'aa'), 4),
  m_bin: nullable(fc.constantFrom(Uint8Array.of(), Uint8Array.of(0), Uint8Array.of(0, 1), Uint8Array.of(255), Uint8Array.of(1, 255, 3)), 4),
  m_dec: nullable(decVal, 4),
  m_dur: nullable(fc.oneof(fc.bigInt({ min: -1000n, max: 1000n }), fc.constantFrom(I64_MAX, I64_MIN, 3_600_000_000n)), 4),
});

const MEASURES = SCHEMA.filter((f) => f.name.startsWith('m_')).map((f) => f.name);
const FNS = [
  'sum', 'avg', 'count', 'count()', 'min', 'max', 'stddev', 'variance', 'stddevPop', 'varPop', 'countDistinct',
  'first', 'last', 'nthValue', 'lag', 'lead', 'rowNumber', 'rank', 'denseRank', 'percentRank', 'cumeDist', 'ntile',
] as const;

/** Measures each function takes (plus an occasional wrong one, to check MEASURE_TYPE). */
const MEASURES_FOR: Record<string, string[]> = {
  sum: ['m_i32', 'm_i64', 'm_u64', 'm_i8', 'm_f64', 'm_f32', 'm_dec', 'm_dur'],
  avg: ['m_i32', 'm_i64', 'm_u64', 'm_i8', 'm_f64', 'm_f32', 'm_dec', 'm_dur'],
  stddev: ['m_i32', 'm_i64', 'm_u64', 'm_i8', 'm_f64', 'm_f32', 'm_dec'],
  min: ['m_i32', 'm_i64', 'm_u64', 'm_f64', 'm_f32', 'm_bool', 'm_ts', 'm_i8', 'm_str', 'm_bin', 'm_dec', 'm_dur'],
};
MEASURES_FOR.max = MEASURES_FOR.min!;
MEASURES_FOR.countDistinct = MEASURES_FOR.min!;
for (const f of ['variance', 'stddevPop', 'varPop']) MEASURES_FOR[f] = MEASURES_FOR.stddev!;

/** A literal for lag/lead's default, matching the measure's type most of the time. */
function defaultFor(measure: string, seed: number): unknown {
  if (seed % 11 === 0) return 'wrong';
  switch (measure) {
    case 'm_i32':
    case 'm_i8':
      return seed % 7;
    case 'm_i64':
    case 'm_u64':
      return seed % 2 ? BigInt(seed) : 42;
    case 'm_f64':
    case 'm_f32':
      return seed % 3 ? 0.5 : -0;
    case 'm_bool':
      return seed % 2 === 0;
    case 'm_ts':
    case 'm_dur':
      return BigInt(seed);
    case 'm_str':
      return seed % 2 ? 'dflt' : '';
    case 'm_bin':
      return Uint8Array.of(9, seed % 256);
    case 'm_dec':
      return seed % 3 === 0 ? '1.25' : seed % 3 === 1 ? 2 : 0.5;
    default:
      return null;
  }
}

function rowsOffsetArb(): fc.Arbitrary<RefOffset> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min: -3, max: 8 }) },
    { weight: 2, arbitrary: fc.constant('unbounded') },
    { weight: 1, arbitrary: fc.constantFrom<RefOffset>(I64_MAX, 1n << 70n, -I64_MAX, 3n, '2', 1.5, '1s') },
  );
}

function rangeOffsetArb(column: string | undefined): fc.Arbitrary<RefOffset> {
  const unb = fc.constant<RefOffset>('unbounded');
  switch (column) {
    case 'k_f64':
      return fc.oneof(fc.constantFrom<RefOffset>(0, 0.5, 1, 1.5, 3, -1, 1e300, '0.25'), unb);
    case 'k_ts':
      return fc.oneof(fc.constantFrom<RefOffset>('0ms', '2ms', '5ms', '-1ms', '1s', 3n, 0, I64_MAX, '5us', '1mo'), unb);
    case 'k_d32':
      return fc.oneof(fc.constantFrom<RefOffset>('1d', '2d', '0d', '-1d', '1w', '48h', 1, 0, '36h'), unb);
    case 'k_i64':
      return fc.oneof(fc.constantFrom<RefOffset>(0, 1, 2, 3, -1, I64_MAX, 1n << 64n, 5n, 0.5), unb);
    case 'k_dec':
      return fc.oneof(fc.constantFrom<RefOffset>(0, 1, 2, '0.5', '1.25', 0.25, '0.001', -1, '1e1', 10n ** 12n), unb);
    case 'k_dur':
      return fc.oneof(fc.constantFrom<RefOffset>(0, 1, 5, '2s', '1m', '1ms', -2, I64_MAX), unb);
    default:
      return fc.oneof(fc.integer({ min: -2, max: 4 }), fc.constantFrom<RefOffset>(1n << 40n, '1d'), unb);
  }
}

interface ColChoice {
  fn: (typeof FNS)[number];
  pick: number;
  mode: 'rows' | 'range' | 'groups' | 'default';
  p: RefOffset;
  f: RefOffset;
  minPeriods: number | null;
  ignoreNulls: boolean;
  n: number | bigint;
  seed: number;
}

const NO_FRAME = new Set(['lag', 'lead', 'rowNumber', 'rank', 'denseRank', 'percentRank', 'cumeDist', 'ntile']);
const TAKES_IGNORE_NULLS = new Set(['first', 'last', 'nthValue', 'lag', 'lead']);

/** Most calls are valid: modifiers a function does not take are dropped unless seed % 13 === 0. */
function effective(c: ColChoice): ColChoice {
  if (c.seed % 13 === 0) return c;
  const e = { ...c };
  if (NO_FRAME.has(c.fn)) {
    e.mode = 'default';
    e.minPeriods = null;
  }
  if (!TAKES_IGNORE_NULLS.has(c.fn)) e.ignoreNulls = false;
  if ((c.fn === 'nthValue' || c.fn === 'ntile') && BigInt(c.n) < 1n) e.n = 1 - Number(c.n); // 0, -1, -2 → 1, 2, 3
  return e;
}

function buildBoth(raw: ColChoice): Both {
  const c = effective(raw);
  const pool = MEASURES_FOR[c.fn] ?? MEASURES;
  // one call in 25 takes any measure (MEASURE_TYPE errors must match the reference)
  const measure = c.seed % 25 === 0 ? MEASURES[c.pick % MEASURES.length]! : pool[c.pick % pool.length]!;
  let b: Both;
  switch (c.fn) {
    case 'count()':
      b = W.count();
      break;
    case 'count':
      b = W.count(measure);
      break;
    case 'nthValue':
      b = W.nthValue(measure, c.n);
      break;
    case 'lag':
    case 'lead':
      b = c.seed % 3 === 0 ? W[c.fn](measure) : c.seed % 3 === 1 ? W[c.fn](measure, c.n) : W[c.fn](measure, c.n, defaultFor(measure, c.seed));
      break;
    case 'ntile':
      b = W.ntile(c.n);
      break;
    case 'rowNumber':
    case 'rank':
    case 'denseRank':
    case 'percentRank':
    case 'cumeDist':
      b = W[c.fn]();
      break;
    default:
      b = W[c.fn](measure);
  }
  if (c.mode === 'rows') b = b.rows(c.p, c.f);
  else if (c.mode === 'range') b = b.range(c.p, c.f);
  else if (c.mode === 'groups') b = b.groups(c.p, c.f);
  if (c.minPeriods !== null) b = b.minPeriods(c.minPeriods);
  if (c.ignoreNulls) b = b.ignoreNulls();
  return b;
}

const orderKeyArb = fc.record({
  column: fc.constantFrom('k_i32', 'k_i64', 'k_u8', 'k_f64', 'k_ts', 'k_d32', 'k_str', 'k_dec', 'k_dur'),
  descending: fc.boolean(),
  nulls: fc.constantFrom<'first' | 'last' | undefined>('first', 'last', undefined),
});

export interface Call {
  partitionBy: string[];
  orderBy: Array<{ column: string; descending: boolean; nulls?: 'first' | 'last' }>;
  cols: ColChoice[];
}

export const callArb: fc.Arbitrary<Call> = fc
  .record({
    partitionBy: fc.constantFrom<string[]>([], ['g'], ['g', 'h'], ['k_dec']),
    orderBy: fc.array(orderKeyArb, { minLength: 0, maxLength: 2 }).map((keys) => {
      const seen = new Set<string>();
      return keys.filter((k) => !seen.has(k.column) && seen.add(k.column)).map((k) => (k.nulls === undefined ? { column: k.column, descending: k.descending } : k));
    }),
  })
  .chain((o) => {
    const single = o.orderBy.length === 1 ? o.orderBy[0]!.column : undefined;
    const mode = fc.constantFrom<ColChoice['mode']>('rows', 'range', 'groups', 'default', 'rows', 'range');
    const col = mode.chain((m) =>
      fc.record({
        fn: fc.constantFrom(...FNS),
        pick: fc.nat(),
        mode: fc.constant(m),
        p: m === 'range' ? rangeOffsetArb(single) : rowsOffsetArb(),
        f: m === 'range' ? rangeOffsetArb(single) : rowsOffsetArb(),
        minPeriods: fc.option(fc.integer({ min: 0, max: 3 }), { freq: 3, nil: null }),
        ignoreNulls: fc.boolean(),
        n: fc.oneof(fc.integer({ min: -2, max: 5 }), fc.constantFrom<number | bigint>(1n << 62n, 0)),
        seed: fc.nat(),
      }),
    );
    return fc.array(col, { minLength: 1, maxLength: 4 }).map((cols) => ({ ...o, cols }));
  });

/** Builds the call; returns the plan error code the engine raised (builders or resolution), or the options. */
export function buildCall(call: Call): { error: string } | { both: BothOptions } {
  const columns: Record<string, Both> = {};
  try {
    call.cols.forEach((c, i) => {
      columns[`c${i}`] = buildBoth(c);
    });
    // no order keys: no orderBy option (an empty list is a BAD_OPTION)
    const both: BothOptions = { partitionBy: call.partitionBy, ...(call.orderBy.length ? { orderBy: call.orderBy } : {}), columns };
    windowKernelInputFromRows([], SCHEMA, engineOptions(both));
    return { both };
  } catch (e) {
    if (e instanceof PlanError) return { error: e.code };
    throw e;
  }
}

/** The reference's description of the same call, from the raw choices (never from the engine). */
export function refCall(call: Call): RefWindowOptions {
  const columns: RefWindowOptions['columns'] = {};
  call.cols.forEach((raw, i) => {
    const c = effective(raw);
    const pool = MEASURES_FOR[c.fn] ?? MEASURES;
    const measure = c.seed % 25 === 0 ? MEASURES[c.pick % MEASURES.length]! : pool[c.pick % pool.length]!;
    const base = c.fn === 'count()' ? { fn: 'count' } : ['rowNumber', 'rank', 'denseRank', 'percentRank', 'cumeDist', 'ntile'].includes(c.fn) ? { fn: c.fn } : { fn: c.fn, column: measure };
    const spec: RefWindowOptions['columns'][string] = { ...base };
    if (c.fn === 'nthValue' || c.fn === 'ntile') spec.n = c.n;
    if ((c.fn === 'lag' || c.fn === 'lead') && c.seed % 3 !== 0) {
      spec.n = c.n;
      if (c.seed % 3 === 2) spec.default = defaultFor(measure, c.seed);
    }
    if (c.mode !== 'default') spec.frame = { mode: c.mode, preceding: c.p, following: c.f };
    if (c.minPeriods !== null) spec.minPeriods = c.minPeriods;
    if (c.ignoreNulls) spec.ignoreNulls = true;
    columns[`c${i}`] = spec;
  });
  return { partitionBy: call.partitionBy, ...(call.orderBy.length ? { orderBy: call.orderBy } : {}), columns };
}

export const show = (v: unknown) => JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x instanceof Uint8Array ? `bytes:${[...x]}` : x));
