// Radix argsort: equals a naive stable comparator sort (Array.prototype.sort is stable), for
// raw words of every bit width and for typed keys with a leading group id.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { KeyColumn } from '../../src/types/keys.js';
import { argsortKeys, argsortWords } from '../../src/worker/sort.js';

function naiveArgsort(n: number, cmp: (a: number, b: number) => number): number[] {
  return Array.from({ length: n }, (_, i) => i).sort((a, b) => cmp(a, b) || a - b);
}

function cmpWords(words: Uint32Array[], a: number, b: number): number {
  for (const w of words) if (w[a] !== w[b]) return w[a]! < w[b]! ? -1 : 1;
  return 0;
}

/** Words with a chosen number of random bits at a random offset, so ties and skipped digits happen. */
const wordsArb = fc
  .tuple(fc.integer({ min: 0, max: 400 }), fc.array(fc.tuple(fc.integer({ min: 0, max: 32 }), fc.integer({ min: 0, max: 31 })), { minLength: 0, maxLength: 3 }), fc.integer())
  .map(([n, shapes, seed]) => {
    let s = seed | 0;
    const rnd = () => {
      s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) | 0;
      return (s ^ (s >>> 13)) >>> 0;
    };
    const words = shapes.map(([bits, shift]) => {
      const w = new Uint32Array(n);
      const mask = bits === 32 ? 0xffffffff : (1 << bits) - 1;
      const base = rnd();
      for (let i = 0; i < n; i++) w[i] = (base & ~(mask << shift)) | ((rnd() & mask) << shift);
      return w;
    });
    return { n, words };
  });

describe('argsortWords', () => {
  it('equals a stable comparator sort', () => {
    fc.assert(
      fc.property(wordsArb, ({ n, words }) => {
        const got = Array.from(argsortWords(words, n));
        expect(got).toEqual(naiveArgsort(n, (a, b) => cmpWords(words, a, b)));
      }),
      { numRuns: 200 },
    );
  });

  it('writes into out and handles n = 0, 1, all-equal and large inputs', () => {
    expect(Array.from(argsortWords([], 0))).toEqual([]);
    expect(Array.from(argsortWords([new Uint32Array([9])], 1))).toEqual([0]);
    expect(Array.from(argsortWords([new Uint32Array(100).fill(3)], 100))).toEqual(Array.from({ length: 100 }, (_, i) => i));
    const n = 20000;
    const hi = Uint32Array.from({ length: n }, (_, i) => (i * 2654435761) % 37);
    const lo = Uint32Array.from({ length: n }, (_, i) => ((i * 40503) ^ (i >>> 3)) >>> 0);
    const out = new Uint32Array(n);
    const res = argsortWords([hi, lo], n, out);
    expect(res).toBe(out);
    expect(Array.from(out)).toEqual(naiveArgsort(n, (a, b) => cmpWords([hi, lo], a, b)));
    // repeated calls reuse scratch buffers: results must not depend on earlier calls
    const again = argsortWords([lo], n);
    expect(Array.from(again)).toEqual(naiveArgsort(n, (a, b) => cmpWords([lo], a, b)));
  });
});

const I64MIN = -(2n ** 63n);
const I64MAX = 2n ** 63n - 1n;

function cmpNullable<T>(a: T | null, b: T | null, desc: boolean, nullsFirst: boolean, cmp: (x: T, y: T) => number): number {
  if (a === null || b === null) return a === b ? 0 : (a === null) === nullsFirst ? -1 : 1;
  const c = cmp(a, b);
  return desc ? -c : c;
}
const cmpNum = (x: number, y: number) => (Number.isNaN(x) ? (Number.isNaN(y) ? 0 : 1) : Number.isNaN(y) ? -1 : x < y ? -1 : x > y ? 1 : 0);
const cmpBig = (x: bigint, y: bigint) => (x < y ? -1 : x > y ? 1 : 0);
const cmpStr = (x: string, y: string) => Buffer.compare(Buffer.from(x), Buffer.from(y));

function validOf(vals: unknown[]): Uint8Array | null {
  return vals.some((v) => v === null) ? Uint8Array.from(vals, (v) => (v === null ? 0 : 1)) : null;
}

describe('argsortKeys', () => {
  it('sorts (leading group id, int64 DESC, float64, utf8) like a stable naive sort', () => {
    const row = fc.record({
      g: fc.integer({ min: 0, max: 3 }),
      a: fc.option(fc.constantFrom(I64MIN, I64MAX, 0n, -1n, 7n, 2n ** 40n), { freq: 5 }),
      b: fc.option(fc.constantFrom(NaN, -0, 0, Infinity, -Infinity, 1.5, -2.25), { freq: 5 }),
      c: fc.option(fc.constantFrom('', 'a', '\uFFFD', '\u{1F600}', 'ab', 'é'), { freq: 5 }),
    });
    fc.assert(
      fc.property(fc.array(row, { maxLength: 300 }), fc.boolean(), fc.boolean(), fc.boolean(), fc.boolean(), (rows, d1, n1, d2, n2) => {
        const n = rows.length;
        const A = rows.map((r) => r.a);
        const B = rows.map((r) => r.b);
        const C = rows.map((r) => r.c);
        const parts = C.map((s) => Buffer.from(s ?? 'junk'));
        const offsets = new Int32Array(n + 1);
        parts.forEach((p, i) => (offsets[i + 1] = offsets[i]! + p.length));
        const colA: KeyColumn = { type: { kind: 'int', bits: 64, signed: true }, length: n, values: BigInt64Array.from(A, (v) => v ?? 99n), offsets: null, valid: validOf(A) };
        const colB: KeyColumn = { type: { kind: 'float', bits: 64 }, length: n, values: Float64Array.from(B, (v) => v ?? 3), offsets: null, valid: validOf(B) };
        const colC: KeyColumn = { type: { kind: 'utf8' }, length: n, values: new Uint8Array(Buffer.concat(parts)), offsets, valid: validOf(C) };
        const g = Uint32Array.from(rows, (r) => r.g);
        const got = argsortKeys(
          [
            { column: colA, descending: d1, nullsFirst: n1 },
            { column: colB, descending: d2, nullsFirst: n2 },
            { column: colC, descending: false, nullsFirst: false },
          ],
          n,
          g,
        );
        const want = naiveArgsort(
          n,
          (x, y) =>
            g[x]! - g[y]! ||
            cmpNullable(A[x]!, A[y]!, d1, n1, cmpBig) ||
            cmpNullable(B[x]!, B[y]!, d2, n2, cmpNum) ||
            cmpNullable(C[x]!, C[y]!, false, false, cmpStr),
        );
        expect(Array.from(got)).toEqual(want);
      }),
      { numRuns: 150 },
    );
  });

  it('takes the presorted shortcuts correctly (keys already in order, whole key in order)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 3 })), { maxLength: 200 }), fc.boolean(), (rows, desc) => {
        const n = rows.length;
        // timestamps non-decreasing in row order (DESC: non-increasing), group ids random
        let t = 1_700_000_000_000n;
        const ts = BigInt64Array.from(rows, ([, step]) => (t += desc ? -BigInt(step) : BigInt(step)));
        const g = Uint32Array.from(rows, ([gid]) => gid);
        const col: KeyColumn = { type: { kind: 'timestamp', unit: 'ms', timezone: null }, length: n, values: ts, offsets: null, valid: null };
        const spec = [{ column: col, descending: desc, nullsFirst: true }];
        const cmpTs = (x: number, y: number) => (desc ? -1 : 1) * cmpBig(ts[x]!, ts[y]!);
        expect(Array.from(argsortKeys(spec, n, g))).toEqual(naiveArgsort(n, (x, y) => g[x]! - g[y]! || cmpTs(x, y)));
        expect(Array.from(argsortKeys(spec, n))).toEqual(naiveArgsort(n, cmpTs));
        const sortedG = Uint32Array.from(g).sort();
        expect(Array.from(argsortKeys(spec, n, sortedG))).toEqual(naiveArgsort(n, (x, y) => sortedG[x]! - sortedG[y]! || cmpTs(x, y)));
      }),
      { numRuns: 150 },
    );
  });

  it('sorts a large (group id, timestamp) input with ties by row id', () => {
    const n = 50000;
    const g = Uint32Array.from({ length: n }, (_, i) => (i * 7919) % 613);
    const ts = BigInt64Array.from({ length: n }, (_, i) => 1_700_000_000_000n + BigInt(((i * 2654435761) >>> 0) % 100_000_000));
    const col: KeyColumn = { type: { kind: 'timestamp', unit: 'ms', timezone: null }, length: n, values: ts, offsets: null, valid: null };
    const got = argsortKeys([{ column: col, descending: false, nullsFirst: true }], n, g);
    const want = naiveArgsort(n, (x, y) => g[x]! - g[y]! || cmpBig(ts[x]!, ts[y]!));
    expect(Array.from(got)).toEqual(want);
  });
});
