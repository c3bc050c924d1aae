/**
 * Named cases from the seed (Spark PR 58926, prefix-difference rewrite) and the API's window
 * section. Small expected values are hand-checked; larger cases compare with the reference.
 */
import { describe, expect, it } from 'vitest';
import { computeWindow, type WindowAlloc } from '../../src/ops/window.js';
import { wideToNumber } from '../../src/ops/window-sum.js';
import type { FieldDesc, TypeDesc } from '../../src/types/column.js';
import { engineOptions, refOptions, W, type BothOptions } from '../support/window-fns.js';
import { kernelOutputToRows, runKernelOnRows, windowKernelInputFromRows } from '../support/window-harness.js';
import { compareWindowResults, referenceWindow, type RefOut, type RefRow } from '../support/window-reference.js';

const MAX = (1n << 63n) - 1n;
const MIN = -(1n << 63n);
const I64: TypeDesc = { kind: 'int', bits: 64, signed: true };
const I32: TypeDesc = { kind: 'int', bits: 32, signed: true };
const F64: TypeDesc = { kind: 'float', bits: 64 };
const TS_MS: TypeDesc = { kind: 'timestamp', unit: 'ms', timezone: null };

function field(name: string, type: TypeDesc): FieldDesc {
  return { name, type, nullable: true };
}

function run(rows: RefRow[], schema: FieldDesc[], options: BothOptions): Record<string, RefOut[]> {
  const fast = runKernelOnRows(rows, schema, engineOptions(options)).values;
  const naive = runKernelOnRows(rows, schema, engineOptions(options), true).values;
  expect(naive).toEqual(fast);
  expect(compareWindowResults(fast, rows, schema, refOptions(options))).toEqual([]);
  return fast;
}

const seq = (vals: Array<number | bigint | null>, col = 'v') => vals.map((v, i) => ({ t: i, [col]: v }) as RefRow);

describe('64-bit prefix overflow', () => {
  const schema = [field('t', I32), field('v', I64)];
  it('wraps like a row-by-row fold: [MAX, 1] gives MIN', () => {
    const out = run(seq([MAX, 1n, 1n, MIN, -1n]), schema, {
      orderBy: 't',
      columns: { w2: W.sum('v').rows(1), run: W.sum('v').rows('unbounded') },
    });
    expect(out.w2).toEqual([MAX, MIN, 2n, MIN + 1n, MAX]);
    // running: MAX, MIN, MIN+1, 1, 0
    expect(out.run).toEqual([MAX, MIN, MIN + 1n, 1n, 0n]);
  });

  it('is bit-identical when the running prefix overflows many times but frames do not', () => {
    const vals: bigint[] = [];
    for (let i = 0; i < 300; i++) vals.push(i % 3 === 0 ? MAX - BigInt(i) : i % 3 === 1 ? MAX / 2n : -(MAX / 3n));
    const rows = seq(vals);
    const out = run(rows, schema, { orderBy: 't', columns: { a: W.sum('v').rows(2), b: W.sum('v').rows(29), c: W.avg('v').rows(6), d: W.sum('v').rows(0, 2) } });
    // Hand rule for the 1-row frame: the value itself.
    const one = run(rows, schema, { orderBy: 't', columns: { x: W.sum('v').rows(0) } });
    expect(one.x).toEqual(vals);
    expect(out.a!.length).toBe(300);
  });

  it('avg of [MAX, MAX] divides the exact sum', () => {
    const out = run(seq([MAX, MAX]), schema, { orderBy: 't', columns: { a: W.avg('v').rows(1), s: W.sum('v').rows(1) } });
    expect(out.a).toEqual([9.223372036854776e18, 9.223372036854776e18]);
    expect(out.s).toEqual([MAX, -2n]);
  });

  it('uint64 sums wrap in uint64', () => {
    const U64_MAX = (1n << 64n) - 1n;
    const out = run(
      [
        { t: 0, v: U64_MAX },
        { t: 1, v: 1n },
      ],
      [field('t', I32), field('v', { kind: 'int', bits: 64, signed: false })],
      { orderBy: 't', columns: { s: W.sum('v').rows(1), a: W.avg('v').rows(1) } },
    );
    expect(out.s).toEqual([U64_MAX, 0n]);
    expect(out.a).toEqual([Number(U64_MAX), 2 ** 63]);
  });

  it('wideToNumber is correctly rounded like Number(BigInt)', () => {
    const cases: Array<[number, number, number]> = [
      [0, 0, 1],
      [-1, 4294967295, 4294967295],
      [1048575, 4294967295, 4294967295],
      [1048576, 1, 2],
      [-2147483648, 0, 1],
      [2147483647, 4294967295, 4294967295],
      [0, 2097151, 4294967295],
      [0, 2097152, 1],
      [0, 2097152, 2049],
    ];
    for (const [h, m, l] of cases) {
      const exact = (BigInt(h) << 64n) + (BigInt(m) << 32n) + BigInt(l);
      expect(wideToNumber(h, m, l), `${h},${m},${l}`).toBe(Number(exact));
    }
  });
});

describe('NULLs', () => {
  const schema = [field('t', I32), field('v', I32)];
  it('an all-NULL frame gives NULL, count 0; a zero sum is not NULL', () => {
    const out = run(seq([null, null, 3, -3, null]), schema, {
      orderBy: 't',
      columns: { s: W.sum('v').rows(1), c: W.count('v').rows(1), n: W.count().rows(1), a: W.avg('v').rows(1), lo: W.min('v').rows(1) },
    });
    expect(out.s).toEqual([null, null, 3n, 0n, -3n]);
    expect(out.c).toEqual([0n, 0n, 1n, 2n, 1n]);
    expect(out.n).toEqual([1n, 2n, 2n, 2n, 2n]);
    expect(out.a).toEqual([null, null, 3, 0, -3]);
    expect(out.lo).toEqual([null, null, 3, -3, -3]);
  });

  it('an empty frame gives NULL (lag-style frames before the first row)', () => {
    const out = run(seq([1, 2, 3, 4]), schema, { orderBy: 't', columns: { s: W.sum('v').rows(3, -2), c: W.count('v').rows(3, -2) } });
    expect(out.s).toEqual([null, null, 1n, 3n]);
    expect(out.c).toEqual([0n, 0n, 1n, 2n]);
  });

  it('NULL partition keys form one partition', () => {
    const rows: RefRow[] = [
      { p: null, t: 0, v: 1 },
      { p: 1, t: 0, v: 10 },
      { p: null, t: 1, v: 2 },
    ];
    const out = run(rows, [field('p', I32), field('t', I32), field('v', I32)], {
      partitionBy: 'p',
      orderBy: 't',
      columns: { s: W.sum('v').rows('unbounded') },
    });
    expect(out.s).toEqual([1n, 10n, 3n]);
  });
});

describe('partitions and widths', () => {
  const schema = [field('p', I32), field('t', I32), field('v', I32), field('w', I64)];
  it('handles partitions shorter than the frame width', () => {
    const rows: RefRow[] = [];
    for (let p = 0; p < 6; p++) for (let t = 0; t < p; t++) rows.push({ p, t, v: t + 1, w: BigInt(p * 100 + t) });
    const out = run(rows, schema, { partitionBy: 'p', orderBy: 't', columns: { s: W.sum('v').rows(29), c: W.count('v').rows(29, 29) } });
    // Running totals 1, 1+2, 1+2+3 … inside each partition; counts = partition size.
    const expS = rows.map((r) => BigInt(((r.t as number) + 1) * ((r.t as number) + 2) / 2));
    expect(out.s).toEqual(expS);
    expect(out.c).toEqual(rows.map((r) => BigInt(r.p as number)));
  });

  it('keeps input order among duplicate (partition, order) keys', () => {
    const rows: RefRow[] = [
      { p: 1, t: 5, v: 1 },
      { p: 1, t: 5, v: 10 },
      { p: 1, t: 3, v: 100 },
      { p: 1, t: 5, v: 1000 },
    ];
    const out = run(rows, schema, { partitionBy: 'p', orderBy: 't', columns: { s: W.sum('v').rows(1), d: W.sum('v') } });
    // sorted: 100 (t3), 1, 10, 1000 (t5 in input order)
    expect(out.s).toEqual([101n, 11n, 100n, 1010n]);
    // default frame: RANGE UNBOUNDED PRECEDING .. CURRENT ROW includes all peers
    expect(out.d).toEqual([1111n, 1111n, 100n, 1111n]);
  });

  it('several widths and several measures in one call', () => {
    const rows: RefRow[] = [];
    let x = 7;
    for (let i = 0; i < 400; i++) {
      x = (x * 1103515245 + 12345) % 2147483648;
      rows.push({ p: x % 3, t: i, v: (x % 1000) - 500, w: i % 7 === 0 ? null : BigInt(x) * 4294967296n });
    }
    const columns: BothOptions['columns'] = {};
    for (const n of [2, 6, 29, 89, 179]) {
      columns[`v_${n}`] = W.sum('v').rows(n);
      columns[`w_${n}`] = W.sum('w').rows(n);
      columns[`wa_${n}`] = W.avg('w').rows(n);
    }
    const out = run(rows, schema, { partitionBy: 'p', orderBy: 't', columns });
    expect(Object.keys(out).length).toBe(15);
  });

  it('count() without orderBy counts the whole partition', () => {
    const rows: RefRow[] = [
      { p: 1, t: 0, v: 1 },
      { p: 2, t: 0, v: 1 },
      { p: 1, t: 0, v: 1 },
    ];
    const out = run(rows, schema, { partitionBy: 'p', columns: { c: W.count(), s: W.sum('v') } });
    expect(out.c).toEqual([2n, 1n, 2n]);
    expect(out.s).toEqual([2n, 1n, 2n]);
  });
});

describe('float sums', () => {
  const schema = [field('t', I32), field('v', F64)];
  it('does not difference float prefixes ([1e20, 1, 1, 3] pattern)', () => {
    // A prefix difference would give P3 - P1 = 1e20 - 1e20 = 0 for the frame [1, 1].
    const out = run(seq([1e20, 1, 1, 3]), schema, { orderBy: 't', columns: { s1: W.sum('v').rows(1), s0: W.sum('v').rows(0), r: W.sum('v').rows('unbounded') } });
    expect(out.s1).toEqual([1e20, 1e20, 2, 4]);
    expect(out.s0).toEqual([1e20, 1, 1, 3]);
  });

  it('cancels exactly inside a frame ([1e20, 1, -1e20, 1] repeated)', () => {
    const vals: number[] = [];
    for (let i = 0; i < 40; i++) vals.push(...[1e20, 1, -1e20, 1]);
    const out = run(seq(vals), schema, { orderBy: 't', columns: { s: W.sum('v').rows(0, 1), a: W.avg('v').rows(0, 1) } });
    for (let i = 0; i + 1 < vals.length; i++) {
      // each frame is {1e20, 1} or {1, -1e20} or {-1e20, 1} or {1, 1e20}: exact value rounds to ±1e20
      expect(out.s![i]).toBe(vals[i]! + vals[i + 1]!);
    }
  });

  it('propagates NaN and ±Inf like a fold', () => {
    const out = run(seq([1, Infinity, -Infinity, 2, NaN, 3]), schema, { orderBy: 't', columns: { s: W.sum('v').rows(1) } });
    expect(out.s).toEqual([1, Infinity, NaN, -Infinity, NaN, NaN]);
  });

  it('keeps -0 for a frame of -0 only', () => {
    const out = run(seq([-0, -0, 0]), schema, { orderBy: 't', columns: { s: W.sum('v').rows(0), m: W.min('v').rows(1), x: W.max('v').rows(1) } });
    expect(Object.is(out.s![0], -0)).toBe(true);
    expect(Object.is(out.s![2], 0)).toBe(true);
    expect(out.m!.map((v) => Object.is(v, -0))).toEqual([true, true, true]);
    expect(out.x!.map((v) => Object.is(v, 0))).toEqual([false, false, true]);
  });

  it('orders NaN above every number for min/max', () => {
    const out = run(seq([NaN, 1, Infinity, NaN]), schema, { orderBy: 't', columns: { lo: W.min('v').rows(1), hi: W.max('v').rows(1) } });
    expect(out.lo).toEqual([NaN, 1, 1, Infinity]);
    expect(out.hi).toEqual([NaN, NaN, Infinity, NaN]);
  });
});

describe('RANGE frames', () => {
  it("range('7d') on a timestamp covers [t - 7d, t] inclusive", () => {
    const D = 86_400_000n;
    const rows: RefRow[] = [0n, 1n, 7n, 8n, 8n, 20n].map((d, i) => ({ ts: d * D, v: i + 1 }));
    const schema = [field('ts', TS_MS), field('v', I32)];
    const out = run(rows, schema, { orderBy: 'ts', columns: { s: W.sum('v').range('7d'), f: W.sum('v').range(0, '1d') } });
    // frames: {1}, {1,2}, {1,2,3}, {2,3,4,5}, {2,3,4,5}, {6}
    expect(out.s).toEqual([1n, 3n, 6n, 14n, 14n, 6n]);
    // [t, t + 1d]: {1,2}, {2}, {3,4,5}, {4,5}, {4,5}, {6}
    expect(out.f).toEqual([3n, 2n, 12n, 9n, 9n, 6n]);
  });

  it('DESC flips PRECEDING; NULL and NaN keys are their own peer group', () => {
    const rows: RefRow[] = [
      { k: 1, v: 1 },
      { k: 2, v: 2 },
      { k: null, v: 4 },
      { k: NaN, v: 8 },
      { k: 3, v: 16 },
      { k: NaN, v: 32 },
    ];
    const schema = [field('k', F64), field('v', I32)];
    const out = run(rows, schema, { orderBy: { column: 'k', descending: true }, columns: { s: W.sum('v').range(1), u: W.sum('v').range('unbounded') } });
    // DESC NULLS LAST: NaN(8), NaN(32), 3(16), 2(2), 1(1), NULL(4)
    expect(out.s).toEqual([3n, 18n, 4n, 40n, 16n, 40n]);
    expect(out.u).toEqual([59n, 58n, 63n, 40n, 56n, 40n]);
  });

  it('saturates RANGE bounds on int64 keys near the extremes', () => {
    const rows: RefRow[] = [MIN, MIN + 1n, -1n, 0n, MAX - 1n, MAX].map((k, i) => ({ k, v: 1 << i }));
    const schema = [field('k', I64), field('v', I32)];
    const out = run(rows, schema, { orderBy: 'k', columns: { a: W.sum('v').range(MAX), b: W.sum('v').range(0, 1n), c: W.sum('v').range(MAX, MAX) } });
    expect(out.a).toEqual([1n, 3n, 7n, 14n, 28n, 56n]);
    expect(out.b).toEqual([3n, 2n, 12n, 8n, 48n, 32n]);
    expect(out.c).toEqual([7n, 15n, 31n, 62n, 60n, 56n]);
  });
});

describe('allocator', () => {
  it('allocates every output through the given allocator (e.g. SharedArrayBuffer)', () => {
    const rows = seq([1, null, 3]);
    const schema = [field('t', I32), field('v', I32)];
    const opts: BothOptions = { orderBy: 't', columns: { s: W.sum('v').rows(1), m: W.max('v').rows(0), c: W.count('v'), r: W.rank(), l: W.lag('v') } };
    const h = windowKernelInputFromRows(rows, schema, engineOptions(opts));
    const alloc: WindowAlloc = (C, len) => new C(new SharedArrayBuffer(len * C.BYTES_PER_ELEMENT));
    const outs = computeWindow(h.input, alloc);
    for (const o of outs) {
      if (o.kind === 'values') {
        expect(o.values.buffer).toBeInstanceOf(SharedArrayBuffer);
        if (o.valid) expect(o.valid.buffer).toBeInstanceOf(SharedArrayBuffer);
      } else expect(o.index.buffer).toBeInstanceOf(SharedArrayBuffer);
    }
    expect(kernelOutputToRows(outs, h)).toEqual(referenceWindow(rows, schema, refOptions(opts)));
  });
});
