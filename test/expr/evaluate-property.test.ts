/** Differential tests: vectorized evaluation against a naive row-by-row JS reference. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Data } from 'apache-arrow';
import type { TypeDesc } from '../../src/types/column.js';
import { bindExpr } from '../../src/expr/bind.js';
import { evaluate, evaluatePredicate } from '../../src/expr/evaluate.js';
import { col, lit } from '../../src/expr/builders.js';
import type { Expr } from '../../src/expr/builders.js';
import { T, column, values } from './helpers.js';

type Ref = (a: any, b: any) => unknown;
const OPTS = { numRuns: 120 };

/** A column of `vals`, built with `pad` extra rows on each side and sliced back (nonzero offset). */
function sliced(type: TypeDesc, vals: unknown[], pad: number, filler: unknown): Data {
  const all = [...Array(pad).fill(filler), ...vals, ...Array(pad).fill(null)];
  return column(type, all).slice(pad, vals.length);
}

function rows<V>(arb: fc.Arbitrary<V>) {
  return fc.array(fc.tuple(fc.option(arb, { nil: null }), fc.option(arb, { nil: null })), { maxLength: 40 });
}

function check<V>(type: TypeDesc, arb: fc.Arbitrary<V>, build: (a: Expr, b: Expr) => Expr, ref: Ref, scalar?: V) {
  fc.assert(
    fc.property(rows(arb), fc.nat(9), (rs, pad) => {
      const a = rs.map((r) => r[0]);
      const b = rs.map((r) => (scalar !== undefined ? scalar : r[1]));
      const schema = [{ name: 'a', type, nullable: true }, { name: 'b', type, nullable: true }];
      const e = build(col('a'), scalar !== undefined ? lit(scalar as never) : col('b'));
      const bound = bindExpr(e.node, schema);
      const cols = [sliced(type, a, pad, a[0] ?? null), sliced(type, b, pad % 3, null)];
      const got = values(evaluate(bound, cols, rs.length));
      const want = rs.map((_, i) => (a[i] === null || b[i] === null ? null : ref(a[i], b[i])));
      expect(got).toEqual(want);
    }),
    OPTS,
  );
}

const i32 = fc.oneof(fc.integer(), fc.constantFrom(-2147483648, 2147483647, 0, -1));
const i64 = fc.oneof(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), fc.constantFrom(-(2n ** 63n), 2n ** 63n - 1n, 0n, -1n, 1n));
const f64 = fc.oneof(fc.double(), fc.constantFrom(NaN, -0, 0, Infinity, -Infinity));
const str = fc.oneof(fc.string({ maxLength: 6, unit: 'grapheme' }), fc.constantFrom('', 'a', 'é', '😀', 'ab', 'z'));

const w32 = (x: number) => x | 0;
const w64 = (x: any) => BigInt.asIntN(64, x as bigint);
const norm0 = (x: number) => (x === 0 ? 0 : x);

function cmpTotal(x: number, y: number): number {
  if (Number.isNaN(x) || Number.isNaN(y)) return Number.isNaN(x) && Number.isNaN(y) ? 0 : Number.isNaN(x) ? 1 : -1;
  return x < y ? -1 : x > y ? 1 : 0;
}
const cmpBytes = (x: string, y: string) => Buffer.compare(Buffer.from(x, 'utf8'), Buffer.from(y, 'utf8'));
const cmpPlain = (x: any, y: any) => (x < y ? -1 : x > y ? 1 : 0);
const OPS = { eq: (c: number) => c === 0, ne: (c: number) => c !== 0, lt: (c: number) => c < 0, le: (c: number) => c <= 0, gt: (c: number) => c > 0, ge: (c: number) => c >= 0 };

describe('arithmetic vs reference', () => {
  it('int32 + - * wrap, / is float64 with NULL on 0, % keeps the dividend sign', () => {
    check(T.i32, i32, (a, b) => a.add(b), (x, y) => w32(x + y));
    check(T.i32, i32, (a, b) => a.sub(b), (x, y) => w32(x - y));
    check(T.i32, i32, (a, b) => a.mul(b), (x, y) => Math.imul(x, y));
    check(T.i32, i32, (a, b) => a.div(b), (x, y) => (y === 0 ? null : x / y));
    check(T.i32, i32, (a, b) => a.mod(b), (x, y) => (y === 0 ? null : norm0(x % y)));
    check(T.i32, i32, (a, b) => a.mul(b), (x, y) => Math.imul(x, y), 65537);
  });
  it('int64 wraps in 64 bits', () => {
    check(T.i64, i64, (a, b) => a.add(b), (x, y) => w64(x + y));
    check(T.i64, i64, (a, b) => a.sub(b), (x, y) => w64(x - y));
    check(T.i64, i64, (a, b) => a.mul(b), (x, y) => w64(x * y));
    check(T.i64, i64, (a, b) => a.mod(b), (x, y) => (y === 0n ? null : x % y));
    check(T.i64, i64, (a, b) => a.div(b), (x, y) => (y === 0n ? null : Number(x) / Number(y)));
    check(T.i64, i64, (a, b) => a.sub(b), (x) => w64(x - (2n ** 63n - 1n)), 2n ** 63n - 1n);
  });
  it('int64 and uint64 on 32-bit words: extremes, small and huge divisors, constants on either side', () => {
    const edge64 = fc.oneof(
      i64,
      fc.bigInt({ min: -(2n ** 53n), max: 2n ** 53n }),
      fc.bigInt({ min: -1000n, max: 1000n }),
      fc.constantFrom(-(2n ** 63n) + 1n, 2n ** 53n + 1n, -(2n ** 53n) - 1n, 2n ** 32n, -(2n ** 32n), 2n ** 32n - 1n, 4294967297n, 3n, -3n),
    );
    const u64 = fc.oneof(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), fc.bigInt({ min: 0n, max: 1000n }), fc.constantFrom(0n, 1n, 2n ** 63n, 2n ** 64n - 1n, 2n ** 32n, 2n ** 53n + 1n));
    const wu = (x: any) => BigInt.asUintN(64, x as bigint);
    check(T.i64, edge64, (a, b) => a.mod(b), (x, y) => (y === 0n ? null : x % y));
    check(T.i64, edge64, (a, b) => a.mul(b), (x, y) => w64(x * y));
    check(T.i64, edge64, (a, b) => a.add(b), (x, y) => w64(x + y));
    check(T.i64, edge64, (a, b) => a.mod(b), (x) => x % -1n, -1n);
    check(T.i64, edge64, (a, b) => a.mod(b), (x) => x % 7n, 7n);
    check(T.i64, edge64, (a, b) => a.mul(b), (x) => w64(x * -(2n ** 40n + 3n)), -(2n ** 40n + 3n));
    check(T.i64, edge64, (a, b) => b.sub(a), (x) => w64(-(2n ** 63n) - x), -(2n ** 63n));
    check(T.i64, edge64, (a, b) => b.mod(a), (x) => (x === 0n ? null : (2n ** 62n + 12345n) % x), 2n ** 62n + 12345n);
    check(T.u64, u64, (a, b) => a.mod(b), (x, y) => (y === 0n ? null : x % y));
    check(T.u64, u64, (a, b) => a.mul(b), (x, y) => wu(x * y));
    check(T.u64, u64, (a, b) => a.sub(b), (x, y) => wu(x - y));
    check(T.u64, u64, (a, b) => a.add(b), (x, y) => wu(x + y));
    check(T.u64, u64, (a, b) => a.mod(b), (x) => x % (2n ** 64n - 1n), 2n ** 64n - 1n);
    check(T.i64, edge64, (a) => a.neg(), (x) => w64(-x), 0n);
  });
  it('int8 wraps at 8 bits; uint8 - literal wraps', () => {
    check(T.i8, fc.integer({ min: -128, max: 127 }), (a, b) => a.add(b), (x, y) => ((x + y + 128) & 255) - 128);
    check(T.u8, fc.integer({ min: 0, max: 255 }), (a, b) => a.sub(b), (x) => (x - 1) & 255, 1);
  });
  it('float64 follows IEEE', () => {
    check(T.f64, f64, (a, b) => a.add(b), (x, y) => x + y);
    check(T.f64, f64, (a, b) => a.div(b), (x, y) => x / y);
    check(T.f64, f64, (a, b) => a.mod(b), (x, y) => x % y);
  });
  it('negation wraps', () => {
    check(T.i64, i64, (a) => a.neg(), (x) => w64(-x), 0n);
    check(T.i32, i32, (a) => a.neg(), (x) => w32(-x), 0);
  });
});

describe('comparisons vs reference', () => {
  for (const [op, f] of Object.entries(OPS)) {
    it(`${op} on int32, int64, float64 (NaN greatest), utf8 bytes`, () => {
      const m = (a: Expr, b: Expr) => (a as any)[op](b) as Expr;
      check(T.i32, i32, m, (x, y) => f(cmpPlain(x, y)));
      check(T.i64, i64, m, (x, y) => f(cmpPlain(x, y)));
      check(T.i64, i64, m, (x, y) => f(cmpPlain(x, y)), -1n);
      check(T.f64, f64, m, (x, y) => f(cmpTotal(x, y)));
      check(T.f64, f64, m, (x, y) => f(cmpTotal(x, y)), NaN);
      check(T.utf8, str, m, (x, y) => f(cmpBytes(x, y)));
      check(T.utf8, str, m, (x, y) => f(cmpBytes(x, y)), 'é');
      check(T.bool, fc.boolean(), m, (x, y) => f(cmpPlain(Number(x), Number(y))));
    });
  }
  it('int64 against uint64 is exact', () => {
    const schema = [{ name: 'a', type: T.i64, nullable: false }, { name: 'b', type: T.u64, nullable: false }];
    const a = [-1n, 2n ** 63n - 1n, 0n, -(2n ** 63n)];
    const b = [2n ** 64n - 1n, 2n ** 63n, 0n, 0n];
    const r = evaluate(bindExpr(col('a').lt(col('b')).node, schema), [column(T.i64, a), column(T.u64, b)], 4);
    expect(values(r)).toEqual([true, true, false, true]);
  });
});

describe('three-valued logic vs reference', () => {
  const and3 = (x: boolean | null, y: boolean | null) => (x === false || y === false ? false : x === null || y === null ? null : true);
  const or3 = (x: boolean | null, y: boolean | null) => (x === true || y === true ? true : x === null || y === null ? null : false);
  it('AND / OR / NOT and evaluatePredicate', () => {
    fc.assert(
      fc.property(rows(fc.boolean()), fc.nat(9), (rs, pad) => {
        const a = rs.map((r) => r[0]);
        const b = rs.map((r) => r[1]);
        const schema = [{ name: 'a', type: T.bool, nullable: true }, { name: 'b', type: T.bool, nullable: true }];
        const cols = [sliced(T.bool, a, pad, true), sliced(T.bool, b, pad + 3, false)];
        const n = rs.length;
        const ev = (e: Expr) => values(evaluate(bindExpr(e.node, schema), cols, n));
        expect(ev(col('a').and(col('b')))).toEqual(rs.map(([x, y]) => and3(x, y)));
        expect(ev(col('a').or(col('b')))).toEqual(rs.map(([x, y]) => or3(x, y)));
        expect(ev(col('a').not())).toEqual(a.map((x) => (x === null ? null : !x)));
        expect(ev(col('a').isNull())).toEqual(a.map((x) => x === null));
        expect(ev(col('a').and(lit(null)))).toEqual(a.map((x) => and3(x, null)));
        const p = evaluatePredicate(bindExpr(col('a').or(col('b').not()).node, schema), cols, n);
        expect([...p]).toEqual(rs.map(([x, y]) => (or3(x, y === null ? null : !y) === true ? 1 : 0)));
      }),
      OPTS,
    );
  });
});
