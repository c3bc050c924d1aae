/**
 * Differential tests: computeWindow (fed with rows sorted here) against the naive reference
 * (test/support/window-reference.ts) on random tables, and computeWindowNaive against
 * computeWindow bit for bit.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { avg, count, max, min, sum, type WindowFn } from '../../src/expr/aggregates.js';
import { computeWindow, computeWindowNaive } from '../../src/ops/window.js';
import { PlanError } from '../../src/errors.js';
import type { FieldDesc, TypeDesc } from '../../src/types/column.js';
import type { WindowOptions } from '../../src/ops/window-spec.js';
import {
  compareWindowResults,
  kernelOutputToRows,
  windowKernelInputFromRows,
  type RefRow,
  type RefValue,
} from '../support/window-reference.js';

const I64_MAX = (1n << 63n) - 1n;
const I64_MIN = -(1n << 63n);
const U64_MAX = (1n << 64n) - 1n;

const int = (bits: 8 | 16 | 32 | 64, signed = true): TypeDesc => ({ kind: 'int', bits, signed });
const SCHEMA: FieldDesc[] = [
  { name: 'g', type: int(32), nullable: true },
  { name: 'h', type: { kind: 'utf8' }, nullable: true },
  { name: 'k_i32', type: int(32), nullable: true },
  { name: 'k_i64', type: int(64), nullable: true },
  { name: 'k_u8', type: int(8, false), nullable: true },
  { name: 'k_f64', type: { kind: 'float', bits: 64 }, nullable: true },
  { name: 'k_ts', type: { kind: 'timestamp', unit: 'ms', timezone: null }, nullable: true },
  { name: 'k_d32', type: { kind: 'date', unit: 'day' }, nullable: true },
  { name: 'k_str', type: { kind: 'utf8' }, nullable: true },
  { name: 'm_i32', type: int(32), nullable: true },
  { name: 'm_i64', type: int(64), nullable: true },
  { name: 'm_u64', type: int(64, false), nullable: true },
  { name: 'm_i8', type: int(8), nullable: false },
  { name: 'm_f64', type: { kind: 'float', bits: 64 }, nullable: true },
  { name: 'm_f32', type: { kind: 'float', bits: 32 }, nullable: true },
  { name: 'm_bool', type: { kind: 'bool' }, nullable: true },
  { name: 'm_ts', type: { kind: 'timestamp', unit: 'ms', timezone: null }, nullable: true },
];

const nullable = <T>(arb: fc.Arbitrary<T>, freq = 5): fc.Arbitrary<T | null> => fc.option(arb, { freq, nil: null });

const specialFloats = [0, -0, 1, -1, 0.1, 0.5, 2.5, 1e20, -1e20, 1e-300, 2 ** 53, NaN, Infinity, -Infinity];
const floatVal = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...specialFloats) },
  { weight: 4, arbitrary: fc.double({ min: -1e6, max: 1e6, noNaN: true }) },
  { weight: 3, arbitrary: fc.integer({ min: -5, max: 5 }) },
);
const finiteFloat = fc.oneof(
  fc.constantFrom(0, -0, 1, -1, 0.1, 0.5, 2.5, 1e20, -1e20, 1e-300),
  fc.double({ min: -1e6, max: 1e6, noNaN: true }),
);
const i64Val = fc.oneof(
  fc.constantFrom(I64_MAX, I64_MIN, I64_MAX - 1n, I64_MIN + 1n, 0n, -1n, 1n),
  fc.bigInt({ min: -100n, max: 100n }),
  fc.bigInt({ min: I64_MIN, max: I64_MAX }),
);
const tsBase = 1_700_000_000_000n;

const rowArb: fc.Arbitrary<RefRow> = fc.record({
  g: nullable(fc.integer({ min: 0, max: 2 }), 4),
  h: nullable(fc.constantFrom('a', 'b'), 4),
  k_i32: nullable(fc.oneof(fc.integer({ min: -4, max: 4 }), fc.constantFrom(2147483647, -2147483648)), 5),
  k_i64: nullable(fc.oneof(fc.bigInt({ min: -4n, max: 4n }), fc.constantFrom(I64_MAX, I64_MIN, I64_MAX - 2n, I64_MIN + 3n)), 5),
  k_u8: nullable(fc.integer({ min: 0, max: 6 }), 6),
  k_f64: nullable(fc.oneof(fc.constantFrom(NaN, 0, -0, Infinity, -Infinity, 0.5, 1.5), fc.integer({ min: -4, max: 4 })), 5),
  k_ts: nullable(fc.oneof(fc.bigInt({ min: 0n, max: 20n }).map((x) => tsBase + x), fc.constantFrom(I64_MIN, I64_MAX)), 6),
  k_d32: nullable(fc.integer({ min: 19000, max: 19010 }), 6),
  k_str: nullable(fc.constantFrom('', 'a', 'ab', 'b', 'é', '😀', 'z'), 5),
  m_i32: nullable(fc.oneof(fc.integer({ min: -10, max: 10 }), fc.constantFrom(2147483647, -2147483648)), 4),
  m_i64: nullable(i64Val, 4),
  m_u64: nullable(fc.oneof(fc.constantFrom(U64_MAX, U64_MAX - 1n, 0n, 1n, 1n << 63n), fc.bigInt({ min: 0n, max: 50n })), 4),
  m_i8: fc.integer({ min: -128, max: 127 }),
  m_f64: nullable(floatVal, 4),
  m_f32: nullable(finiteFloat.map((x) => Math.fround(x)), 4),
  m_bool: nullable(fc.boolean(), 4),
  m_ts: nullable(fc.bigInt({ min: 0n, max: 99n }).map((x) => tsBase + x), 4),
});

type Off = number | bigint | string;
const rowsOff: fc.Arbitrary<Off> = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: -3, max: 8 }) },
  { weight: 2, arbitrary: fc.constant('unbounded') },
  { weight: 1, arbitrary: fc.constantFrom(I64_MAX, 1n << 70n, -I64_MAX, 3n) },
);

interface OrderChoice {
  keys: Array<{ column: string; descending?: boolean; nulls?: 'first' | 'last' }>;
}
const orderKeyArb = fc.record({
  column: fc.constantFrom('k_i32', 'k_i64', 'k_u8', 'k_f64', 'k_ts', 'k_d32', 'k_str'),
  descending: fc.boolean(),
  nulls: fc.constantFrom<'first' | 'last' | undefined>('first', 'last', undefined),
});

function rangeOffsetArb(column: string): fc.Arbitrary<Off> {
  const unb = fc.constant('unbounded');
  switch (column) {
    case 'k_f64':
      return fc.oneof(fc.constantFrom(0, 0.5, 1, 1.5, 3, -1, 1e300), unb);
    case 'k_ts':
      return fc.oneof(fc.constantFrom('0ms', '2ms', '5ms', '-1ms', '1s', 3n, 0, I64_MAX), unb);
    case 'k_d32':
      return fc.oneof(fc.constantFrom('1d', '2d', '0d', '-1d', '1w', '48h', 1, 0), unb);
    case 'k_i64':
      return fc.oneof(fc.constantFrom(0, 1, 2, 3, -1, I64_MAX, 1n << 64n, 5n), unb);
    default:
      return fc.oneof(fc.integer({ min: -2, max: 4 }), fc.constantFrom(1n << 40n), unb);
  }
}

const fnArb = fc.constantFrom('sum', 'count', 'count()', 'avg', 'min', 'max');
const measureFor: Record<string, string[]> = {
  sum: ['m_i32', 'm_i64', 'm_u64', 'm_i8', 'm_f64', 'm_f32'],
  avg: ['m_i32', 'm_i64', 'm_u64', 'm_i8', 'm_f64', 'm_f32'],
  count: ['m_i32', 'm_f64', 'm_bool', 'm_ts', 'h'],
  'count()': [''],
  min: ['m_i32', 'm_i64', 'm_u64', 'm_f64', 'm_f32', 'm_bool', 'm_ts', 'm_i8'],
  max: ['m_i32', 'm_i64', 'm_u64', 'm_f64', 'm_f32', 'm_bool', 'm_ts', 'm_i8'],
};

function build(fn: string, measure: string): WindowFn {
  switch (fn) {
    case 'sum':
      return sum(measure);
    case 'avg':
      return avg(measure);
    case 'count':
      return count(measure);
    case 'count()':
      return count();
    case 'min':
      return min(measure);
    default:
      return max(measure);
  }
}

/** A random but valid window call: frames are fitted to the chosen order keys. */
const optionsArb: fc.Arbitrary<WindowOptions> = fc
  .record({
    partition: fc.constantFrom<string[]>([], ['g'], ['g', 'h']),
    order: fc.array(orderKeyArb, { minLength: 0, maxLength: 2 }),
    cols: fc.array(
      fc.record({
        fn: fnArb,
        pick: fc.nat(),
        mode: fc.constantFrom('rows', 'range', 'default', 'rows', 'range'),
        seedP: fc.nat(),
        seedF: fc.nat(),
      }),
      { minLength: 1, maxLength: 5 },
    ),
    rowsP: fc.array(rowsOff, { minLength: 5, maxLength: 5 }),
    rowsF: fc.array(rowsOff, { minLength: 5, maxLength: 5 }),
    rangeP: fc.array(fc.nat(), { minLength: 5, maxLength: 5 }),
  })
  .chain((o) => {
    const single = o.order.length === 1 && o.order[0]!.column !== 'k_str';
    const offs = single ? fc.array(rangeOffsetArb(o.order[0]!.column), { minLength: 10, maxLength: 10 }) : fc.constant([] as Off[]);
    return offs.map((rangeOffs) => {
      const columns: Record<string, WindowFn> = {};
      o.cols.forEach((c, i) => {
        const ms = measureFor[c.fn]!;
        let f = build(c.fn, ms[c.pick % ms.length]!);
        const noOrder = o.order.length === 0;
        if (c.mode === 'rows') {
          let p = o.rowsP[i]!;
          let q = o.rowsF[i]!;
          if (noOrder) p = q = 'unbounded';
          f = tryFrame(() => f.rows(p, q), () => f.rows(p, 'unbounded'));
        } else if (c.mode === 'range') {
          if (single) {
            const p = rangeOffs[(2 * i) % rangeOffs.length]!;
            const q = rangeOffs[(2 * i + 1) % rangeOffs.length]!;
            f = tryFrame(() => f.range(p, q), () => f.range(p, 'unbounded'));
          } else f = f.range('unbounded', [0, 'unbounded'][c.seedF % 2] as Off);
        }
        columns[`c${i}`] = f;
      });
      return {
        partitionBy: o.partition,
        orderBy: dedupe(o.order),
        columns,
      } satisfies WindowOptions;
    });
  });

function dedupe(keys: OrderChoice['keys']): OrderChoice['keys'] {
  const seen = new Set<string>();
  return keys.filter((k) => !seen.has(k.column) && seen.add(k.column));
}

function tryFrame(f: () => WindowFn, fallback: () => WindowFn): WindowFn {
  try {
    return f();
  } catch (e) {
    if (e instanceof PlanError) return fallback();
    throw e;
  }
}

/** Drops frames that resolution rejects for this schema (e.g. '48h' is fine, '1s' on date32 is not). */
function validOptions(o: WindowOptions): WindowOptions | null {
  const cols: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(o.columns)) {
    try {
      windowKernelInputFromRows([], SCHEMA, { ...o, columns: { [name]: fn } });
      cols[name] = fn;
    } catch (e) {
      if (!(e instanceof PlanError)) throw e;
    }
  }
  return Object.keys(cols).length ? { ...o, columns: cols } : null;
}

function runKernel(rows: RefRow[], options: WindowOptions, naive = false) {
  const h = windowKernelInputFromRows(rows, SCHEMA, options);
  const outs = naive ? computeWindowNaive(h.input) : computeWindow(h.input);
  return { h, outs, values: kernelOutputToRows(outs, h) };
}

const tableArb = fc.array(rowArb, { minLength: 0, maxLength: 40 });

describe('computeWindow vs the naive reference', () => {
  it('matches on random tables, frames and orders', () => {
    let checked = 0;
    fc.assert(
      fc.property(tableArb, optionsArb, (rows, raw) => {
        const options = validOptions(raw);
        if (!options) return;
        checked++;
        const { values } = runKernel(rows, options);
        const msgs = compareWindowResults(values, rows, SCHEMA, options);
        expect(msgs, JSON.stringify(options, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v))).toEqual([]);
      }),
      { numRuns: 200 },
    );
    expect(checked).toBeGreaterThan(100);
  });

  it('matches with one long partition (frames much shorter and longer than partitions)', () => {
    fc.assert(
      fc.property(fc.array(rowArb, { minLength: 50, maxLength: 120 }), optionsArb, (rows, raw) => {
        const options = validOptions({ ...raw, partitionBy: [] });
        if (!options) return;
        const { values } = runKernel(rows, options);
        expect(compareWindowResults(values, rows, SCHEMA, options)).toEqual([]);
      }),
      { numRuns: 60 },
    );
  });
});

function sameBits(a: unknown, b: unknown): boolean {
  return Object.is(a, b);
}

describe('computeWindowNaive', () => {
  it('returns exactly the same bits as computeWindow', () => {
    fc.assert(
      fc.property(tableArb, optionsArb, (rows, raw) => {
        const options = validOptions(raw);
        if (!options) return;
        const fast = runKernel(rows, options);
        const naive = runKernel(rows, options, true);
        fast.outs.forEach((o, c) => {
          const q = naive.outs[c]!;
          expect(q.values.constructor).toBe(o.values.constructor);
          expect(q.type).toEqual(o.type);
          for (let r = 0; r < rows.length; r++) {
            const va = o.valid ? o.valid[r] : 1;
            const vb = q.valid ? q.valid[r] : 1;
            expect(vb).toBe(va);
            if (va) expect(sameBits(q.values[r], o.values[r]), `column ${c} row ${r}`).toBe(true);
          }
        });
      }),
      { numRuns: 150 },
    );
  });
});

describe('float sums depend only on the frame values', () => {
  it('gives bit-identical sums for equal frames at different positions', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -1e12, max: 1e12, noNaN: true }), { minLength: 1, maxLength: 30 }),
        fc.array(fc.double({ min: -1e12, max: 1e12, noNaN: true }), { minLength: 0, maxLength: 40 }),
        fc.integer({ min: 1, max: 20 }),
        (frameVals, prefix, extra) => {
          // Partition: prefix values, then the frame's values; the last row's ROWS frame is
          // exactly frameVals. A second partition holds frameVals alone after `extra` filler rows.
          const w = frameVals.length - 1;
          const filler = Array.from({ length: extra }, (_, i) => i * 3.7 - 11);
          const rows: RefRow[] = [];
          let t = 0;
          for (const v of [...prefix, ...frameVals]) rows.push({ g: 1, k_i32: t++, m_f64: v } as RefRow);
          t = 0;
          for (const v of [...filler, ...frameVals]) rows.push({ g: 2, k_i32: t++, m_f64: v } as RefRow);
          const options: WindowOptions = { partitionBy: ['g'], orderBy: ['k_i32'], columns: { s: sum('m_f64').rows(w) } };
          const full = rows.map((r) => ({ ...Object.fromEntries(SCHEMA.map((f) => [f.name, null as RefValue])), m_i8: 0, ...r }));
          const { values } = runKernel(full, options);
          const a = values.s![prefix.length + frameVals.length - 1];
          const b = values.s![rows.length - 1];
          expect(Object.is(a, b)).toBe(true);
        },
      ),
      { numRuns: 150 },
    );
  });
});
