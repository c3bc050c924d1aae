/**
 * Named cases for the window functions added after the seed (API.md "More functions"): ranking,
 * lag/lead, first/last/nthValue, variances, countDistinct, minPeriods, GROUPS frames, string /
 * binary / decimal / duration types. Expected values are worked out by hand (or are the
 * examples of the DuckDB, Spark and Polars documentation); every case also runs the naive kernel
 * and the reference.
 */
import { describe, expect, it } from 'vitest';
import type { FieldDesc, TypeDesc } from '../../src/types/column.js';
import { engineOptions, refOptions, W, type BothOptions } from '../support/window-fns.js';
import { runKernelOnRows } from '../support/window-harness.js';
import { compareWindowResults, type RefOut, type RefRow } from '../support/window-reference.js';

const MAX = (1n << 63n) - 1n;
const MIN = -(1n << 63n);
const I32: TypeDesc = { kind: 'int', bits: 32, signed: true };
const I64: TypeDesc = { kind: 'int', bits: 64, signed: true };
const F64: TypeDesc = { kind: 'float', bits: 64 };
const field = (name: string, type: TypeDesc): FieldDesc => ({ name, type, nullable: true });

function run(rows: RefRow[], schema: FieldDesc[], options: BothOptions): Record<string, RefOut[]> {
  const fast = runKernelOnRows(rows, schema, engineOptions(options)).values;
  const naive = runKernelOnRows(rows, schema, engineOptions(options), true).values;
  expect(naive).toEqual(fast);
  expect(compareWindowResults(fast, rows, schema, refOptions(options))).toEqual([]);
  return fast;
}

const seq = (vals: Array<RefRow[string]>, col = 'v') => vals.map((v, i) => ({ t: i, [col]: v }) as RefRow);

describe('ranking', () => {
  const schema = [field('p', I32), field('k', I32), field('t', I32)];
  const rows = [1, 1, 2, 3, 3, 3, 4].map((k, t) => ({ k, t }));
  it('rowNumber, rank (gaps), denseRank, percentRank, cumeDist over peers', () => {
    const out = run(rows, schema, {
      orderBy: 'k',
      columns: { rn: W.rowNumber(), r: W.rank(), dr: W.denseRank(), pr: W.percentRank(), cd: W.cumeDist() },
    });
    expect(out.rn).toEqual([1n, 2n, 3n, 4n, 5n, 6n, 7n]);
    expect(out.r).toEqual([1n, 1n, 3n, 4n, 4n, 4n, 7n]);
    expect(out.dr).toEqual([1n, 1n, 2n, 3n, 3n, 3n, 4n]);
    expect(out.pr).toEqual([0, 0, 2 / 6, 3 / 6, 3 / 6, 3 / 6, 1]);
    expect(out.cd).toEqual([2 / 7, 2 / 7, 3 / 7, 6 / 7, 6 / 7, 6 / 7, 1]);
  });

  it('ntile gives remainder rows to the first buckets; more buckets than rows: one row each', () => {
    const out = run(rows, schema, { orderBy: 't', columns: { n3: W.ntile(3), n10: W.ntile(10), n1: W.ntile(1), n7: W.ntile(7n) } });
    expect(out.n3).toEqual([1n, 1n, 1n, 2n, 2n, 3n, 3n]);
    expect(out.n10).toEqual([1n, 2n, 3n, 4n, 5n, 6n, 7n]);
    expect(out.n1).toEqual(new Array(7).fill(1n));
    expect(out.n7).toEqual([1n, 2n, 3n, 4n, 5n, 6n, 7n]);
  });

  it('percentRank of a one-row partition is 0; cumeDist is 1', () => {
    const out = run([{ p: 1, k: 5 }, { p: 2, k: 1 }, { p: 2, k: 2 }], schema, { partitionBy: 'p', orderBy: 'k', columns: { pr: W.percentRank(), cd: W.cumeDist() } });
    expect(out.pr).toEqual([0, 0, 1]);
    expect(out.cd).toEqual([1, 0.5, 1]);
  });

  it('without orderBy every row is a peer; rowNumber follows input order', () => {
    const out = run(rows, schema, { columns: { rn: W.rowNumber(), r: W.rank(), cd: W.cumeDist() } });
    expect(out.rn).toEqual([1n, 2n, 3n, 4n, 5n, 6n, 7n]);
    expect(out.r).toEqual(new Array(7).fill(1n));
    expect(out.cd).toEqual(new Array(7).fill(1));
  });

  it('NULL order keys are peers (DESC NULLS LAST by default)', () => {
    const out = run(seq([null, 2, null, 1], 'k'), schema, { orderBy: { column: 'k', descending: true }, columns: { r: W.rank(), dr: W.denseRank() } });
    // DESC: 2, 1, NULL, NULL
    expect(out.r).toEqual([3n, 1n, 3n, 2n]);
    expect(out.dr).toEqual([3n, 1n, 3n, 2n]);
  });
});

describe('lag and lead', () => {
  const schema = [field('t', I32), field('v', I32), field('s', { kind: 'utf8' }), field('w', I64)];
  it('by rows in the partition order, with defaults', () => {
    const out = run(seq([1, 2, 3, 4]), schema, {
      orderBy: 't',
      columns: { l1: W.lag('v'), l2: W.lag('v', 2, 0), d1: W.lead('v', 1, -1), l0: W.lag('v', 0), lneg: W.lag('v', -1), far: W.lead('v', 1n << 62n, 9) },
    });
    expect(out.l1).toEqual([null, 1, 2, 3]);
    expect(out.l2).toEqual([0, 0, 1, 2]);
    expect(out.d1).toEqual([2, 3, 4, -1]);
    expect(out.l0).toEqual([1, 2, 3, 4]);
    expect(out.lneg).toEqual([2, 3, 4, null]);
    expect(out.far).toEqual([9, 9, 9, 9]);
  });

  it('keep NULL values unless ignoreNulls, which counts non-NULL rows only', () => {
    const out = run(seq([1, null, null, 4, null, 6]), schema, {
      orderBy: 't',
      columns: { l: W.lag('v'), li: W.lag('v').ignoreNulls(), di: W.lead('v').ignoreNulls(), l2i: W.lag('v', 2).ignoreNulls() },
    });
    expect(out.l).toEqual([null, 1, null, null, 4, null]);
    expect(out.li).toEqual([null, 1, 1, 1, 4, 4]);
    expect(out.di).toEqual([4, 4, 4, 6, 6, null]);
    expect(out.l2i).toEqual([null, null, null, null, 1, 1]);
  });

  it('take any type: strings, with a string default; int64 defaults from safe numbers', () => {
    const rows = ['a', null, 'é', ''].map((s, t) => ({ t, s, w: BigInt(t) * MAX / 3n }));
    const out = run(rows, schema, { orderBy: 't', columns: { ls: W.lag('s', 1, '-'), lw: W.lead('w', 1, 42) } });
    expect(out.ls).toEqual(['-', 'a', null, 'é']);
    expect(out.lw).toEqual([MAX / 3n, (2n * MAX) / 3n, MAX, 42n]);
  });

  it('stay inside the partition', () => {
    const rows = [{ p: 1, t: 0, v: 1 }, { p: 2, t: 0, v: 2 }, { p: 1, t: 1, v: 3 }, { p: 2, t: 1, v: 4 }];
    const out = run(rows, [field('p', I32), ...schema], { partitionBy: 'p', orderBy: 't', columns: { l: W.lag('v'), d: W.lead('v') } });
    expect(out.l).toEqual([null, null, 1, 2]);
    expect(out.d).toEqual([3, 4, null, null]);
  });
});

describe('first, last, nthValue', () => {
  const schema = [field('t', I32), field('k', I32), field('v', I32)];
  it('over the default frame the last value is the last peer (SQL RANGE ... CURRENT ROW)', () => {
    const rows = [1, 2, 2, 3].map((k, t) => ({ t, k, v: 10 * (t + 1) }));
    const out = run(rows, schema, { orderBy: 'k', columns: { f: W.first('v'), l: W.last('v'), n2: W.nthValue('v', 2) } });
    expect(out.f).toEqual([10, 10, 10, 10]);
    expect(out.l).toEqual([10, 30, 30, 40]);
    expect(out.n2).toEqual([null, 20, 20, 20]);
  });

  it('over ROWS frames, NULL included unless ignoreNulls', () => {
    const out = run(seq([null, 2, null, 4, 5]), schema, {
      orderBy: 't',
      columns: {
        f: W.first('v').rows(1, 1),
        fi: W.first('v').rows(1, 1).ignoreNulls(),
        l: W.last('v').rows(1, 1),
        li: W.last('v').rows(1, 1).ignoreNulls(),
        n4: W.nthValue('v', 4).rows('unbounded', 0),
        n2i: W.nthValue('v', 2).rows('unbounded', 0).ignoreNulls(),
      },
    });
    expect(out.f).toEqual([null, null, 2, null, 4]);
    expect(out.fi).toEqual([2, 2, 2, 4, 4]);
    expect(out.l).toEqual([2, null, 4, 5, 5]);
    expect(out.li).toEqual([2, 2, 4, 5, 5]);
    expect(out.n4).toEqual([null, null, null, 4, 4]);
    expect(out.n2i).toEqual([null, null, null, 4, 4]);
  });
});

describe('variances', () => {
  const schema = [field('t', I32), field('v', I64), field('f', F64)];
  it('sample and population forms (hand-checked: [2,4,4,4,5,5,7,9] has population stddev 2)', () => {
    const vals = [2, 4, 4, 4, 5, 5, 7, 9];
    const out = run(vals.map((x, t) => ({ t, v: BigInt(x), f: x })), schema, {
      orderBy: 't',
      columns: { sp: W.stddevPop('v').rows('unbounded', 'unbounded'), vs: W.variance('v').rows('unbounded', 'unbounded'), fsp: W.stddevPop('f').rows('unbounded', 'unbounded') },
    });
    expect(out.sp).toEqual(new Array(8).fill(2));
    expect(out.vs).toEqual(new Array(8).fill(32 / 7));
    expect(out.fsp).toEqual(new Array(8).fill(2));
  });

  it('one value: NULL for the sample forms, 0 for the population forms', () => {
    const out = run(seq([5n, null, 7n]), schema, { orderBy: 't', columns: { s: W.stddev('v').rows(0), va: W.variance('v').rows(0), p: W.varPop('v').rows(0), q: W.stddevPop('v').rows(0) } });
    expect(out.s).toEqual([null, null, null]);
    expect(out.va).toEqual([null, null, null]);
    expect(out.p).toEqual([0, null, 0]);
    expect(out.q).toEqual([0, null, 0]);
  });

  it('integer variance near 2^63 is the correctly rounded exact rational', () => {
    // variance([MAX, MIN]) = 2·(2^63 - 1/2)^2 = 2^127 - 2^64 + 1/2, which rounds to 2^127
    const out = run(seq([MAX, MIN, MAX - 1n, MAX]), schema, { orderBy: 't', columns: { va: W.variance('v').rows(1), s: W.stddev('v').rows(1), p: W.varPop('v').rows(2, 0) } });
    expect(out.va![1]).toBe(2 ** 127);
    expect(out.s![1]).toBe(Math.sqrt(2 ** 127));
    // rows (MAX-1, MAX): variance 1/2 exactly, although both are 2^63 as doubles
    expect(out.va![3]).toBe(0.5);
    // population variance of (MIN, MAX-1, MAX): exact mean = (2^63 - 3)/3
    const a = [MIN, MAX - 1n, MAX];
    const m = 3n;
    const S = a.reduce((x, y) => x + y, 0n);
    const S2 = a.reduce((x, y) => x + y * y, 0n);
    const num = m * S2 - S * S;
    const den = m * m;
    // num / den within half an ulp, and the neighbours are farther
    const v = out.p![3] as number;
    const err = (x: number) => {
      const e = BigInt(x) * den - num; // x is an integer here (about 8.5e37)
      return e < 0n ? -e : e;
    };
    expect(err(v) <= err(v * (1 + 2 ** -52))).toBe(true);
    expect(err(v) <= err(v * (1 - 2 ** -52))).toBe(true);
  });

  it('large equal-spaced integers: exact (a float formula would cancel)', () => {
    const base = 2n ** 60n;
    const out = run(seq([base, base + 1n, base + 2n, base + 3n]), schema, { orderBy: 't', columns: { va: W.variance('v').rows(2, 0), p: W.varPop('v').rows(1, 0) } });
    expect(out.va).toEqual([null, 0.5, 1, 1]);
    expect(out.p).toEqual([0, 0.25, 0.25, 0.25]);
  });

  it('NaN and ±Inf give NaN; minPeriods raises the threshold', () => {
    const out = run(seq([1, NaN, 2, Infinity, 3, 4, 5], 'f'), schema, { orderBy: 't', columns: { s: W.stddev('f').rows(1), m: W.varPop('f').rows(2).minPeriods(3) } });
    expect(out.s!.slice(0, 5)).toEqual([null, NaN, NaN, NaN, NaN]);
    expect(out.s![6]).toBe(Math.SQRT1_2);
    expect(out.m!.slice(0, 2)).toEqual([null, null]);
    expect(out.m![6]).toBe(2 / 3);
  });
});

describe('minPeriods', () => {
  const schema = [field('t', I32), field('v', I32)];
  it('NULL when the frame holds fewer than k non-NULL values (rows, for count())', () => {
    const out = run(seq([1, null, 3, 4]), schema, {
      orderBy: 't',
      columns: { s: W.sum('v').rows(2).minPeriods(2), c: W.count().rows(2).minPeriods(2), cv: W.count('v').rows(2).minPeriods(2), mx: W.max('v').rows(1).minPeriods(2), f: W.first('v').rows(1).minPeriods(1), z: W.sum('v').rows(0).minPeriods(0) },
    });
    expect(out.s).toEqual([null, null, 4n, 7n]);
    expect(out.c).toEqual([null, 2n, 3n, 3n]);
    expect(out.cv).toEqual([null, null, 2n, 2n]);
    expect(out.mx).toEqual([null, null, null, 4]);
    expect(out.f).toEqual([1, 1, null, 3]);
    expect(out.z).toEqual([1n, null, 3n, 4n]);
  });
});

describe('GROUPS frames', () => {
  const schema = [field('k', I32), field('v', I32)];
  it('offsets count peer groups (a NULL key group counts like any other)', () => {
    // groups: NULL{1}, 1{2,4}, 2{8}, 3{16,32}
    const rows = [
      { k: 1, v: 2 },
      { k: null, v: 1 },
      { k: 3, v: 16 },
      { k: 1, v: 4 },
      { k: 2, v: 8 },
      { k: 3, v: 32 },
    ];
    const out = run(rows, schema, { orderBy: 'k', columns: { a: W.sum('v').groups(1, 0), b: W.sum('v').groups(0, 1), c: W.count().groups(1, -1), d: W.sum('v').groups('unbounded', -1) } });
    expect(out.a).toEqual([7n, 1n, 56n, 7n, 14n, 56n]);
    expect(out.b).toEqual([14n, 7n, 48n, 14n, 56n, 48n]);
    expect(out.c).toEqual([1n, 0n, 1n, 1n, 2n, 1n]);
    expect(out.d).toEqual([1n, null, 15n, 1n, 7n, 15n]);
  });
});

describe('countDistinct', () => {
  it('ignores NULL; NaN equals NaN and -0 equals 0', () => {
    const schema = [field('t', I32), field('f', F64), field('s', { kind: 'utf8' })];
    const out = run(
      [0, -0, NaN, NaN, null, 1].map((f, t) => ({ t, f, s: ['a', 'b', 'a', null, 'b', 'c'][t]! })),
      schema,
      { orderBy: 't', columns: { cf: W.countDistinct('f').rows('unbounded'), cs: W.countDistinct('s').rows(2) } },
    );
    expect(out.cf).toEqual([1n, 1n, 2n, 2n, 2n, 3n]);
    expect(out.cs).toEqual([1n, 2n, 2n, 2n, 2n, 2n]);
  });
});

describe('types', () => {
  it('min/max over strings in UTF-8 byte order and over binary by bytes', () => {
    const schema = [field('t', I32), field('s', { kind: 'utf8' }), field('b', { kind: 'binary' })];
    const rows = ['b', 'z', 'é', 'ab', null].map((s, t) => ({ t, s, b: s === null ? null : new TextEncoder().encode(s) }));
    const out = run(rows, schema, { orderBy: 't', columns: { lo: W.min('s').rows(1), hi: W.max('s').rows(1), bhi: W.max('b').rows('unbounded') } });
    expect(out.lo).toEqual(['b', 'b', 'z', 'ab', 'ab']);
    expect(out.hi).toEqual(['b', 'z', 'é', 'é', 'ab']);
    expect((out.bhi as Uint8Array[]).map((x) => new TextDecoder().decode(x))).toEqual(['b', 'z', 'é', 'é', 'é']);
  });

  it('decimal sums are exact decimal128(38, s), NULL beyond 38 digits; avg is the correctly rounded exact mean', () => {
    const D: TypeDesc = { kind: 'decimal', precision: 38, scale: 1 };
    const schema = [field('t', I32), field('d', D)];
    const big = 10n ** 37n * 6n; // 6e37 unscaled: two of them exceed 38 digits
    const out = run(seq([1n, 2n, big, big, -big], 'd'), schema, { orderBy: 't', columns: { s: W.sum('d').rows(1), a: W.avg('d').rows(1), mn: W.min('d').rows('unbounded') } });
    expect(out.s).toEqual([1n, 3n, big + 2n, null, 0n]);
    // avg(0.1, 0.2) = 0.15 exactly rounded (a float fold would give 0.15000000000000002)
    expect(out.a![1]).toBe(0.15);
    expect(out.mn).toEqual([1n, 1n, 1n, 1n, -big]);
  });

  it('decimal order keys: RANGE offsets in the key units, as numbers or decimal strings', () => {
    const schema = [field('k', { kind: 'decimal', precision: 10, scale: 2 }), field('v', I32)];
    const rows = [100n, 125n, 150n, 300n].map((k, i) => ({ k, v: 1 << i }));
    const out = run(rows, schema, { orderBy: 'k', columns: { a: W.sum('v').range('0.5'), b: W.sum('v').range(0.25, 0.25), c: W.sum('v').range(2n) } });
    expect(out.a).toEqual([1n, 3n, 7n, 8n]);
    expect(out.b).toEqual([3n, 7n, 6n, 8n]);
    expect(out.c).toEqual([1n, 3n, 7n, 15n]);
  });

  it('duration measures: sum wraps in the same type, avg is the exact mean rounded half to even', () => {
    const schema = [field('t', I32), field('d', { kind: 'duration', unit: 'ms' })];
    const out = run(seq([1n, 2n, 4n, -1n, -2n, MAX, 1n], 'd'), schema, { orderBy: 't', columns: { a: W.avg('d').rows(1), s: W.sum('d').rows(1) } });
    // pairs: (1), (1,2)=1.5→2, (2,4)=3, (4,-1)=1.5→2, (-1,-2)=-1.5→-2, (-2,MAX), (MAX,1)
    expect(out.a!.slice(0, 5)).toEqual([1n, 2n, 3n, 2n, -2n]);
    expect(out.a![6]).toBe(MAX / 2n + 1n); // (MAX + 1) / 2 = 2^62 exactly
    expect(out.s![6]).toBe(MIN);
  });

  it('duration order keys: RANGE durations in the key unit', () => {
    const schema = [field('k', { kind: 'duration', unit: 's' }), field('v', I32)];
    const rows = [0n, 1n, 60n, 61n, 200n].map((k, i) => ({ k, v: 1 << i }));
    const out = run(rows, schema, { orderBy: 'k', columns: { a: W.sum('v').range('1m'), b: W.sum('v').range('1s', '1s') } });
    expect(out.a).toEqual([1n, 3n, 7n, 14n, 16n]);
    expect(out.b).toEqual([3n, 3n, 12n, 12n, 16n]);
  });
});

describe('int64 sums past the float prefix', () => {
  // A sum of |values| past 2^52 takes the limbs; the one-pass prefix hands its memory to two of
  // them (src/ops/window-sum intPrefix), with and without NULLs. Wrapping sums, as a row fold.
  const schema = [field('v', I64), field('t', I32)];
  const wrap = (x: bigint): bigint => BigInt.asIntN(64, x);
  for (const withNull of [false, true]) {
    it(`sum over ROWS 1 PRECEDING of values near 2^63${withNull ? ', with a NULL' : ''}`, () => {
      const vals: Array<bigint | null> = [MAX, MAX, -5n, withNull ? null : 7n, MIN, 3n];
      const out = run(seq(vals), schema, { orderBy: 't', columns: { s: W.sum('v').rows(1) } });
      const want = vals.map((v, i) => {
        const frame = vals.slice(Math.max(0, i - 1), i + 1).filter((x): x is bigint => x !== null);
        return frame.length === 0 ? null : wrap(frame.reduce((a, b) => a + b, 0n));
      });
      expect(out.s).toEqual(want);
    });
  }
});
