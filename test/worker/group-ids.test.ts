// Group ids: dense, first-appearance order, equal to a naive Map over canonical key strings;
// matchGroupIds pairs build and probe keys across integer widths with the NULL rules.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { TypeDesc } from '../../src/types/column.js';
import type { KeyColumn } from '../../src/types/keys.js';
import { accessor, GROUP_IDS_BYTES_PER_ROW, groupIds, groupIdsFirstTableBytes, matchGroupIds, matchGroupIdsBytes, sameRowsEqual, stringKeyHash } from '../../src/worker/group-ids.js';
import { inlineWord } from '../../src/columns/inline-words.js';
import type { Allocator } from '../../src/types/keys.js';
import { dirtyWhenOverwritten } from '../support/dirty-allocator.js';

/** The dirty allocator (old bytes in 'overwritten' memory), counting the bytes it hands out. */
function countingAllocator(): { alloc: Allocator; bytes: () => number } {
  let bytes = 0;
  const alloc: Allocator = (ctor, length, fill) => {
    const a = dirtyWhenOverwritten(ctor, length, fill);
    bytes += a.byteLength;
    return a;
  };
  return { alloc, bytes: () => bytes };
}

type V = number | bigint | string | boolean | null;

function smallInts(bits: number, signed: boolean, xs: number[]): KeyColumn['values'] {
  if (bits === 8) return signed ? Int8Array.from(xs) : Uint8Array.from(xs);
  if (bits === 16) return signed ? Int16Array.from(xs) : Uint16Array.from(xs);
  return signed ? Int32Array.from(xs) : Uint32Array.from(xs);
}

function makeColumn(type: TypeDesc, vals: V[]): KeyColumn {
  const n = vals.length;
  const valid = vals.some((v) => v === null) ? Uint8Array.from(vals, (v) => (v === null ? 0 : 1)) : null;
  const num = (v: V) => (v === null ? 77 : typeof v === 'boolean' ? +v : Number(v));
  const big = (v: V) => (v === null ? 77n : (v as bigint));
  if (type.kind === 'utf8') {
    // A NULL's bytes differ from row to row and run past the key store's inline bytes: never its key.
    const parts = vals.map((v, i) => Buffer.from(v === null ? `junk-${i}-under-a-null` : (v as string)));
    const offsets = new Int32Array(n + 1);
    parts.forEach((p, i) => (offsets[i + 1] = offsets[i]! + p.length));
    return { type, length: n, values: new Uint8Array(Buffer.concat(parts)), offsets, valid };
  }
  let values: KeyColumn['values'];
  if (type.kind === 'int' && type.bits === 64) values = type.signed ? BigInt64Array.from(vals, big) : BigUint64Array.from(vals, big);
  else if (type.kind === 'int') {
    values = smallInts(type.bits, type.signed, vals.map(num));
  } else if (type.kind === 'float') {
    values = type.bits === 32 ? Float32Array.from(vals.map(num)) : Float64Array.from(vals.map(num));
    // vary NaN payloads
    const w = new Uint32Array(values.buffer);
    vals.forEach((v, i) => {
      if (typeof v === 'number' && Number.isNaN(v)) {
        if (type.bits === 32) w[i] = 0xffc00000 | (i & 0xff);
        else w[2 * i + 1] = (i % 2 ? 0xfff80000 : 0x7ff80000) | (i & 0xff);
      }
    });
  } else if (type.kind === 'bool') values = Uint8Array.from(vals, num);
  else if (type.kind === 'decimal') {
    // 128-bit two's complement, four little-endian words a row
    const w = new Uint32Array(4 * n);
    vals.forEach((v, i) => {
      let x = BigInt.asUintN(128, big(v));
      for (let k = 0; k < 4; k++, x >>= 32n) w[4 * i + k] = Number(x & 0xffffffffn);
    });
    values = w;
  }
  else if (type.kind === 'date' && type.unit === 'day') values = Int32Array.from(vals, num);
  else values = BigInt64Array.from(vals, big);
  return { type, length: n, values, offsets: null, valid };
}

/** Canonical text of a value: -0 -> 0, NaN -> NaN, ints by value. */
function canon(v: V): string {
  if (v === null) return 'NULL';
  if (typeof v === 'number') return Object.is(v, -0) ? 'n0' : `n${v}`;
  if (typeof v === 'bigint') return `n${v}`;
  return `${typeof v}:${String(v)}`;
}

function naiveGroups(cols: V[][], n: number, nullsEqual: boolean): { ids: number[]; groups: number } {
  const m = new Map<string, number>();
  const ids: number[] = [];
  let groups = 0;
  for (let i = 0; i < n; i++) {
    const row = cols.map((c) => c[i]!);
    if (!nullsEqual && row.some((v) => v === null)) {
      ids.push(groups++);
      continue;
    }
    const k = JSON.stringify(row.map(canon));
    let g = m.get(k);
    if (g === undefined) m.set(k, (g = groups++));
    ids.push(g);
  }
  return { ids, groups };
}

const TYPES: Array<[TypeDesc, fc.Arbitrary<Exclude<V, null>>]> = [
  [{ kind: 'int', bits: 64, signed: true }, fc.constantFrom(-(2n ** 63n), 2n ** 63n - 1n, 0n, -1n, 5n, 2n ** 32n, 2n ** 32n + 1n)],
  [{ kind: 'int', bits: 64, signed: false }, fc.constantFrom(0n, 2n ** 64n - 1n, 2n ** 63n, 5n)],
  [{ kind: 'timestamp', unit: 'ms', timezone: null }, fc.constantFrom(1_700_000_000_000n, 1_700_000_000_001n, -1n)],
  [{ kind: 'int', bits: 32, signed: true }, fc.constantFrom(-(2 ** 31), 2 ** 31 - 1, 0, -1, 5)],
  [{ kind: 'int', bits: 32, signed: false }, fc.constantFrom(0, 2 ** 32 - 1, 2 ** 31, 5)],
  [{ kind: 'int', bits: 8, signed: true }, fc.constantFrom(-128, 127, 0, -1)],
  [{ kind: 'bool' }, fc.boolean()],
  [{ kind: 'date', unit: 'day' }, fc.constantFrom(0, 19000, -5)],
  [{ kind: 'float', bits: 64 }, fc.constantFrom(NaN, -0, 0, Infinity, -Infinity, 1.5, 2 ** 60)],
  [{ kind: 'float', bits: 32 }, fc.constantFrom(NaN, -0, 0, Infinity, 1.5)],
  // Values of 8 bytes and longer that share their first 8 (the generic table's key store inlines 8).
  [{ kind: 'utf8' }, fc.constantFrom('', 'a', 'ab', '\uFFFD', '\u{1F600}', 'a\u0000', 'abcdefgh', 'abcdefgh\u0000', 'abcdefghij-long', 'abcdefghij-lonG')],
  [{ kind: 'decimal', precision: 38, scale: 2 }, fc.constantFrom(0n, -1n, 5n, 2n ** 100n, -(2n ** 100n), 2n ** 64n)],
];

const colArb = (k: number, n: number) => fc.array(fc.option(TYPES[k]![1], { freq: 4 }), { minLength: n, maxLength: n });

/** n rows in [minRows, maxRows] of one to maxColumns columns of random TYPES: [n, [type index, values][]]. */
const rowsArb = (minRows: number, maxRows: number, maxColumns: number) =>
  fc.integer({ min: minRows, max: maxRows }).chain((n) =>
    fc.tuple(
      fc.constant(n),
      fc.array(
        fc.integer({ min: 0, max: TYPES.length - 1 }).chain((k) => fc.tuple(fc.constant(k), colArb(k, n))),
        { minLength: 1, maxLength: maxColumns },
      ),
    ),
  );

describe('groupIds', () => {
  it('equals a naive map, in first-appearance order, for one to four columns of every type, within GROUP_IDS_BYTES_PER_ROW', () => {
    fc.assert(
      fc.property(
        rowsArb(0, 300, 4),
        fc.boolean(),
        ([n, specs], nullsEqual) => {
          const vals = specs.map(([, v]) => v);
          const cols = specs.map(([k, v]) => makeColumn(TYPES[k]![0], v));
          const scratch = countingAllocator();
          const got = groupIds(cols, n, nullsEqual, scratch.alloc);
          const want = naiveGroups(vals, n, nullsEqual);
          expect(got.groups).toBe(want.groups);
          expect(Array.from(got.ids)).toEqual(want.ids);
          // NULL flags of the rows (one byte a row) when NULLs are not equal.
          expect(scratch.bytes()).toBeLessThanOrEqual(n * (GROUP_IDS_BYTES_PER_ROW + (nullsEqual ? 0 : 1)) + groupIdsFirstTableBytes(n));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('decides by the keys alone when every row has the same hash', () => {
    // Given hashes that all collide, no group is found by its hash: each comparison of a row with
    // a group's first row must be exactly the naive equality (the key store, used past thousands
    // of groups, has a test of its own below).
    fc.assert(
      fc.property(rowsArb(0, 300, 4), fc.boolean(), fc.integer({ min: 0, max: 1 }), ([n, specs], nullsEqual, spread) => {
        const cols = specs.map(([k, v]) => makeColumn(TYPES[k]![0], v));
        // Equal keys must hash alike: one hash, or two by the parity of the key's canonical text.
        const text = (i: number) => JSON.stringify(specs.map(([, v]) => canon(v[i]!)));
        const hashes = Uint32Array.from({ length: n }, (_, i) => (spread === 0 ? 7 : text(i).length % 2));
        const got = groupIds(cols, n, nullsEqual, undefined, hashes);
        const want = naiveGroups(specs.map(([, v]) => v), n, nullsEqual);
        expect(got.groups).toBe(want.groups);
        expect(Array.from(got.ids)).toEqual(want.ids);
      }),
      { numRuns: 300 },
    );
  });

  it('moves to its key store past thousands of groups: the naive grouping, with hashes that collide or not', () => {
    // Builds compare through first rows until thousands of groups, then through the store's
    // entries (written then for the groups so far), past its capacity through first rows again.
    let seed = 12345;
    const rnd = (m: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) % m;
    const column = (n: number, type: TypeDesc, value: () => V): [TypeDesc, V[]] => [type, Array.from({ length: n }, value)];
    const cases = (n: number): Array<Array<[TypeDesc, V[]]>> => [
      [
        column(n, { kind: 'int', bits: 64, signed: true }, () => (rnd(12) === 0 ? null : BigInt(rnd(3000)) * 1_000_003n)),
        column(n, { kind: 'utf8' }, () => (rnd(20) === 0 ? null : `abcdefghij-${rnd(4)}`)),
      ],
      [
        column(n, { kind: 'int', bits: 32, signed: true }, () => rnd(5000) - 2500),
        column(n, { kind: 'float', bits: 64 }, () => [0, -0, NaN, 1.5, null][rnd(5)]!),
        column(n, { kind: 'decimal', precision: 38, scale: 2 }, () => [0n, -1n, 2n ** 100n][rnd(3)]!),
      ],
      [column(n, { kind: 'utf8' }, () => (rnd(30) === 0 ? null : `key-${rnd(40000)}${rnd(2) === 0 ? '' : '-with-a-long-tail'}`))],
    ];
    for (const [n, specs] of [...cases(40_000).slice(0, 2).map((c) => [40_000, c] as const), [100_000, cases(100_000)[2]!] as const]) {
      const vals = specs.map(([, v]) => v);
      const cols = specs.map(([t, v]) => makeColumn(t, v));
      const text = (i: number) => JSON.stringify(vals.map((v) => canon(v[i]!)));
      for (const nullsEqual of [true, false]) {
        const want = naiveGroups(vals, n, nullsEqual);
        expect(want.groups).toBeGreaterThan(specs.length > 1 ? 4096 : 16384);
        for (const collide of [false, true]) {
          // Colliding: 1,024 hash values (spread over the table, so its runs stay short), of the
          // canonical text's length and first 17 characters only, so keys that differ past the
          // store's 8 inline bytes ('key-1234' then '5-with-a-long-tail' or '6-...') share one.
          const bucket = (i: number) => { const t = text(i); let h = t.length; for (const ch of t.slice(0, 17)) h = (h * 31 + ch.charCodeAt(0)) % 1024; return h; };
          const hashes = collide ? Uint32Array.from({ length: n }, (_, i) => Math.imul(bucket(i) + 1, 0x9e3779b1) >>> 0) : null;
          const got = groupIds(cols, n, nullsEqual, undefined, hashes);
          expect(got.groups).toBe(want.groups);
          // The first row whose id differs (toEqual over 100,000 ids takes seconds).
          expect(want.ids.findIndex((id, i) => got.ids[i] !== id)).toBe(-1);
        }
      }
    }
  });

  it('handles many groups (table growth) on the fast and generic paths', () => {
    const n = 30000;
    const a = Array.from({ length: n }, (_, i) => BigInt((i * 7919) % 12000) * 1_000_003n);
    const b = Array.from({ length: n }, (_, i) => (i * 31) % 9000);
    const s = b.map((x) => `k${x % 5000}`);
    for (const cols of [
      [[{ kind: 'int', bits: 64, signed: true } as TypeDesc, a]],
      [[{ kind: 'int', bits: 32, signed: true } as TypeDesc, b]],
      [[{ kind: 'utf8' } as TypeDesc, s]],
      [
        [{ kind: 'int', bits: 64, signed: true } as TypeDesc, a],
        [{ kind: 'int', bits: 32, signed: true } as TypeDesc, b],
      ],
    ] as Array<Array<[TypeDesc, V[]]>>) {
      const got = groupIds(
        cols.map(([t, v]) => makeColumn(t, v)),
        n,
      );
      const want = naiveGroups(
        cols.map(([, v]) => v),
        n,
        true,
      );
      expect(got.groups).toBe(want.groups);
      expect(Array.from(got.ids)).toEqual(want.ids);
    }
  });
});

describe('sameRowsEqual', () => {
  // Through groupIds a wrong comparison hides behind the hash (rows that differ rarely share
  // one), so every pair of rows is compared here directly.
  it('compares every pair of rows as the naive canonical rows do, for one to six columns', () => {
    fc.assert(
      fc.property(rowsArb(1, 12, 6), ([n, specs]) => {
          const equal = sameRowsEqual(specs.map(([k, v]) => accessor(makeColumn(TYPES[k]![0], v))));
          const text = (i: number) => JSON.stringify(specs.map(([, v]) => canon(v[i]!)));
          for (let a = 0; a < n; a++) for (let b = 0; b < n; b++) expect(equal(a, b)).toBe(text(a) === text(b));
      }),
      { numRuns: 400 },
    );
  });
});

describe('groupIds and matchGroupIds on a small value range (the table indexed by value, 4,096 rows and more)', () => {
  const WIDE: Array<[TypeDesc, (x: number) => V]> = [
    [{ kind: 'int', bits: 64, signed: true }, (x) => BigInt(x)],
    // high words at the edge of the exact range (+-2^20), and one past it
    [{ kind: 'int', bits: 64, signed: true }, (x) => BigInt(x) - 2n ** 52n],
    [{ kind: 'int', bits: 64, signed: true }, (x) => BigInt(x) + 2n ** 52n + 2n ** 32n],
    [{ kind: 'int', bits: 64, signed: false }, (x) => BigInt(x + 200) + 2n ** 32n],
    [{ kind: 'int', bits: 64, signed: false }, (x) => BigInt(x + 200) + 2n ** 63n],
    [{ kind: 'timestamp', unit: 'ms', timezone: null }, (x) => 1_700_000_000_000n + BigInt(x)],
    [{ kind: 'int', bits: 32, signed: true }, (x) => x - 2 ** 31 + 300],
    [{ kind: 'int', bits: 32, signed: false }, (x) => x + 2 ** 32 - 800],
    [{ kind: 'int', bits: 16, signed: true }, (x) => x],
    [{ kind: 'int', bits: 16, signed: false }, (x) => x + 200],
    [{ kind: 'int', bits: 8, signed: true }, (x) => (x % 100) - 20],
    [{ kind: 'int', bits: 8, signed: false }, (x) => (x + 200) % 256],
    [{ kind: 'bool' }, (x) => x % 2 === 0],
    [{ kind: 'date', unit: 'day' }, (x) => x + 19000],
  ];

  it('equals the naive grouping, NULLs equal or not, dense or spread values', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: WIDE.length - 1 }),
        fc.integer({ min: 4096, max: 9000 }),
        fc.constantFrom(1, 50, 5000, 40000),
        fc.boolean(),
        fc.integer(),
        (t, n, spread, nullsEqual, seed) => {
          const [type, of] = WIDE[t]!;
          let x = seed | 0;
          const next = () => ((x = (Math.imul(x, 1103515245) + 12345) | 0) >>> 8);
          const vals: V[] = Array.from({ length: n }, () => (next() % 23 === 0 ? null : of((next() % spread) - 100)));
          const got = groupIds([makeColumn(type, vals)], n, nullsEqual, countingAllocator().alloc);
          const want = naiveGroups([vals], n, nullsEqual);
          expect(got.groups).toBe(want.groups);
          expect(Array.from(got.ids)).toEqual(want.ids);
          // probes: the build's values, values just outside its range, NULLs
          const probe: V[] = vals.map((v, i) => (i % 7 === 0 ? of(spread + 5) : i % 11 === 0 ? of(-103) : v));
          const scratch = countingAllocator();
          const r = matchGroupIds([makeColumn(type, vals)], [makeColumn(type, probe)], n, n, nullsEqual, scratch.alloc);
          expect(scratch.bytes()).toBeLessThanOrEqual(matchGroupIdsBytes(n, n));
          const ids = new Map<string, number>();
          const wantB = vals.map((v) => {
            if (!nullsEqual && v === null) return -1;
            const k = canon(v);
            if (!ids.has(k)) ids.set(k, ids.size);
            return ids.get(k)!;
          });
          expect(r.groups).toBe(ids.size);
          expect(Array.from(r.buildIds)).toEqual(wantB);
          expect(Array.from(r.probeIds)).toEqual(probe.map((v) => (!nullsEqual && v === null ? -1 : (ids.get(canon(v)) ?? -1))));
        },
      ),
      { numRuns: 60 },
    );
  });
});

/**
 * matchGroupIds' result for one key is the naive one: build ids numbered by first appearance
 * (NULL one group when nullsEqual, else -1), probe ids the build id of an equal value or -1.
 */
function expectNaiveMatch<V>(r: { buildIds: Int32Array; probeIds: Int32Array; groups: number }, build: Array<V | null>, probe: Array<V | null>, nullsEqual: boolean): void {
  const ids = new Map<V | null, number>();
  const wantB = build.map((v) => {
    if (!nullsEqual && v === null) return -1;
    if (!ids.has(v)) ids.set(v, ids.size);
    return ids.get(v)!;
  });
  const wantP = probe.map((v) => (!nullsEqual && v === null ? -1 : (ids.get(v) ?? -1)));
  expect(r.groups).toBe(ids.size);
  expect(Array.from(r.buildIds)).toEqual(wantB);
  expect(Array.from(r.probeIds)).toEqual(wantP);
}

/** Two distinct strings make(i), make(j) whose stringKeyHash is equal (of one length, or of two). */
function hashCollision(make: (i: number) => string, lengths: 'same' | 'different' = 'same'): [string, string] {
  const seen = new Map<number, string>();
  for (let i = 0; i < 1_000_000; i++) {
    const v = make(i);
    const bytes = Buffer.from(v);
    const h = stringKeyHash(bytes, 0, bytes.length, inlineWord(bytes, 0, bytes.length), inlineWord(bytes, 4, bytes.length));
    const other = seen.get(h);
    if (other !== undefined && (other.length === v.length) === (lengths === 'same')) return [other, v];
    seen.set(h, v);
  }
  throw new Error('no collision');
}

describe('matchGroupIds', () => {
  const INTS: TypeDesc[] = [
    { kind: 'int', bits: 8, signed: true },
    { kind: 'int', bits: 16, signed: false },
    { kind: 'int', bits: 32, signed: true },
    { kind: 'int', bits: 32, signed: false },
    { kind: 'int', bits: 64, signed: true },
    { kind: 'int', bits: 64, signed: false },
  ];
  const fits = (t: TypeDesc, v: number) =>
    t.kind === 'int' && (t.signed ? v >= -(2 ** (t.bits - 1)) && v < 2 ** (t.bits - 1) : v >= 0 && v < 2 ** t.bits);
  it('gives equal keys the same id across integer widths, -1 for absent keys and NULLs', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: INTS.length - 1 }),
        fc.integer({ min: 0, max: INTS.length - 1 }),
        fc.array(fc.option(fc.integer({ min: -3, max: 120 }), { freq: 5 }), { maxLength: 60 }),
        fc.array(fc.option(fc.integer({ min: -3, max: 120 }), { freq: 5 }), { maxLength: 60 }),
        fc.array(fc.option(fc.constantFrom('x', 'y', '\u{1F600}'), { freq: 5 }), { minLength: 120, maxLength: 120 }),
        fc.boolean(),
        (tb, tp, bv, pv, sv, nullsEqual) => {
          const tB = INTS[tb]!;
          const tP = INTS[tp]!;
          const B = bv.map((v) => (v === null || !fits(tB, v) ? null : v));
          const P = pv.map((v) => (v === null || !fits(tP, v) ? null : v));
          const bs = sv.slice(0, B.length);
          const ps = sv.slice(60, 60 + P.length);
          const conv = (t: TypeDesc, vs: Array<number | null>) => (t.kind === 'int' && t.bits === 64 ? vs.map((v) => (v === null ? null : BigInt(v))) : vs);
          const build = [makeColumn(tB, conv(tB, B)), makeColumn({ kind: 'utf8' }, bs)];
          const probe = [makeColumn(tP, conv(tP, P)), makeColumn({ kind: 'utf8' }, ps)];
          const scratch = countingAllocator();
          const r = matchGroupIds(build, probe, B.length, P.length, nullsEqual, scratch.alloc);
          expect(scratch.bytes()).toBeLessThanOrEqual(matchGroupIdsBytes(B.length, P.length));
          // build ids: naive grouping, with -1 for NULL rows when !nullsEqual
          const keyOf = (v: number | null, s: string | null) => JSON.stringify([v, s]);
          const ids = new Map<string, number>();
          let g = 0;
          const wantB = B.map((v, i) => {
            if (!nullsEqual && (v === null || bs[i] === null)) return -1;
            const k = keyOf(v, bs[i]!);
            if (!ids.has(k)) ids.set(k, g++);
            return ids.get(k)!;
          });
          const wantP = P.map((v, i) => {
            if (!nullsEqual && (v === null || ps[i] === null)) return -1;
            return ids.get(keyOf(v, ps[i]!)) ?? -1;
          });
          expect(r.groups).toBe(g);
          expect(Array.from(r.buildIds)).toEqual(wantB);
          expect(Array.from(r.probeIds)).toEqual(wantP);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('one integer key (the fast path when both sides share an array type): ids as the naive grouping', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: INTS.length - 1 }),
        fc.boolean(),
        fc.array(fc.option(fc.integer({ min: -40, max: 40 }), { freq: 6 }), { maxLength: 300 }),
        fc.array(fc.option(fc.integer({ min: -40, max: 40 }), { freq: 6 }), { maxLength: 300 }),
        fc.boolean(),
        (tb, same, bv, pv, nullsEqual) => {
          const tB = INTS[tb]!;
          const tP = same ? tB : INTS[(tb + 1) % INTS.length]!;
          const B = bv.map((v) => (v === null || !fits(tB, v) ? null : v));
          const P = pv.map((v) => (v === null || !fits(tP, v) ? null : v));
          const conv = (t: TypeDesc, vs: Array<number | null>) => (t.kind === 'int' && t.bits === 64 ? vs.map((v) => (v === null ? null : BigInt(v))) : vs);
          const scratch = countingAllocator();
          const r = matchGroupIds([makeColumn(tB, conv(tB, B))], [makeColumn(tP, conv(tP, P))], B.length, P.length, nullsEqual, scratch.alloc);
          expect(scratch.bytes()).toBeLessThanOrEqual(matchGroupIdsBytes(B.length, P.length));
          expectNaiveMatch(r, B, P, nullsEqual);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('one string key (the fast path: length and first 8 bytes as words, the rest compared): ids as the naive grouping', () => {
    // Values that tie on their first 8 bytes and length but not after, empty and multi-byte ones.
    const pool = ['', 'a', 'S0001', 'S0002', 'abcdefgh', 'abcdefghi', 'abcdefghj', 'abcdefgh-long-tail-1', 'abcdefgh-long-tail-2', '\u{1F600}x', 'a\u0000'];
    fc.assert(
      fc.property(
        fc.array(fc.option(fc.constantFrom(...pool), { freq: 6 }), { maxLength: 200 }),
        fc.array(fc.option(fc.constantFrom(...pool, 'absent', 'abcdefgh-long-tail-3'), { freq: 6 }), { maxLength: 200 }),
        fc.boolean(),
        fc.nat({ max: 7 }),
        (B, P, nullsEqual, skip) => {
          const build = makeColumn({ kind: 'utf8' }, B);
          const probe = makeColumn({ kind: 'utf8' }, P);
          // The probe's bytes start past `skip` junk bytes (offsets need not start at 0).
          const bytes = new Uint8Array(skip + probe.values.length).fill(0x41);
          bytes.set(probe.values as Uint8Array, skip);
          const shifted: KeyColumn = { ...probe, values: bytes, offsets: probe.offsets!.map((o) => o + skip) };
          const scratch = countingAllocator();
          const r = matchGroupIds([build], [shifted], B.length, P.length, nullsEqual, scratch.alloc);
          expect(scratch.bytes()).toBeLessThanOrEqual(matchGroupIdsBytes(B.length, P.length));
          expectNaiveMatch(r, B, P, nullsEqual);
        },
      ),
      { numRuns: 300 },
    );
    // Values whose 32-bit hashes collide (found by a birthday search) still differ: short ones by
    // their words, long ones with one first 8 bytes by their tails, long ones with one tail by
    // their words, and values of two lengths.
    const pairs = [
      hashCollision((i) => `s${(i % 1000).toString(36).padStart(3, '0')}${Math.floor(i / 1000).toString(36).padStart(4, '0')}`),
      hashCollision((i) => `abcdefgh${i.toString(36).padStart(6, '0')}`),
      hashCollision((i) => `${(i % 1000).toString(36).padStart(4, '0')}${Math.floor(i / 1000).toString(36).padStart(4, '0')}-same-tail`),
      hashCollision((i) => `abcdefgh${i.toString(36)}`, 'different'),
    ];
    for (const [x, y] of pairs) {
      const r = matchGroupIds([makeColumn({ kind: 'utf8' }, [x, y])], [makeColumn({ kind: 'utf8' }, [y, x, x])], 2, 3, true);
      expect(Array.from(r.buildIds)).toEqual([0, 1]);
      expect(Array.from(r.probeIds)).toEqual([1, 0, 0]);
    }
    // binary against binary, largeUtf8 against utf8 (offsets as int32 either way): by their bytes
    const asType = (c: KeyColumn, type: TypeDesc): KeyColumn => ({ ...c, type });
    const bb = matchGroupIds([asType(makeColumn({ kind: 'utf8' }, ['ab', 'c']), { kind: 'binary' })], [asType(makeColumn({ kind: 'utf8' }, ['c', 'x', 'ab']), { kind: 'binary' })], 2, 3, true);
    expect(Array.from(bb.probeIds)).toEqual([1, -1, 0]);
    const lu = matchGroupIds([asType(makeColumn({ kind: 'utf8' }, ['ab', 'c']), { kind: 'largeUtf8' })], [makeColumn({ kind: 'utf8' }, ['c', 'x', 'ab'])], 2, 3, true);
    expect(Array.from(lu.probeIds)).toEqual([1, -1, 0]);
    // utf8 never equals binary of the same bytes.
    const bin = { ...makeColumn({ kind: 'utf8' }, ['ab']), type: { kind: 'binary' } as TypeDesc };
    expect(Array.from(matchGroupIds([makeColumn({ kind: 'utf8' }, ['ab'])], [bin], 1, 1, true).probeIds)).toEqual([-1]);
  });

  it('no key columns: every row in one group when there is a build row, else none (from a dirty allocator)', () => {
    for (const [nb, np] of [[3, 4], [0, 4], [2, 0], [0, 0]] as const) {
      const r = matchGroupIds([], [], nb, np, true, dirtyWhenOverwritten);
      expect(r.groups).toBe(nb > 0 ? 1 : 0);
      expect(Array.from(r.buildIds)).toEqual(new Array(nb).fill(0));
      expect(Array.from(r.probeIds)).toEqual(new Array(np).fill(nb > 0 ? 0 : -1));
    }
  });

  it('one key of many distinct values (the table grows several times)', () => {
    const n = 20000;
    const b = BigInt64Array.from({ length: n }, (_, i) => BigInt(((i * 7919) % n) - 5000) * 4294967296n + BigInt(i % 3));
    const p = BigInt64Array.from({ length: n }, (_, i) => b[(i * 31) % n]! + (i % 5 === 0 ? 1n : 0n));
    const t: TypeDesc = { kind: 'int', bits: 64, signed: true };
    const scratch = countingAllocator();
    const r = matchGroupIds([makeColumn(t, Array.from(b))], [makeColumn(t, Array.from(p))], n, n, false, scratch.alloc);
    expect(scratch.bytes()).toBeLessThanOrEqual(matchGroupIdsBytes(n, n));
    const ids = new Map<bigint, number>();
    b.forEach((v) => ids.has(v) || ids.set(v, ids.size));
    expect(r.groups).toBe(ids.size);
    expect(Array.from(r.buildIds)).toEqual(Array.from(b, (v) => ids.get(v)!));
    expect(Array.from(r.probeIds)).toEqual(Array.from(p, (v) => ids.get(v) ?? -1));
  });

  it('one string key of many distinct values (its table grows several times), NULLs equal or not, within matchGroupIdsBytes', () => {
    const n = 20000;
    for (const nullsEqual of [false, true]) {
      const b = Array.from({ length: n }, (_, i) => (i % 997 === 5 ? null : `k${(i * 7919) % n}`));
      const p = Array.from({ length: n }, (_, i) => (i % 4 === 0 ? `x${i}` : i % 501 === 3 ? null : b[(i * 31) % n]!));
      const scratch = countingAllocator();
      const r = matchGroupIds([makeColumn({ kind: 'utf8' }, b)], [makeColumn({ kind: 'utf8' }, p)], n, n, nullsEqual, scratch.alloc);
      expect(scratch.bytes()).toBeLessThanOrEqual(matchGroupIdsBytes(n, n));
      expectNaiveMatch(r, b, p, nullsEqual);
    }
  });

  it('matches uint64 >= 2^63 only to itself, float32 to float64, and never across classes', () => {
    const b = [makeColumn({ kind: 'int', bits: 64, signed: false }, [2n ** 64n - 1n, 2n ** 63n, 5n])];
    const p = [makeColumn({ kind: 'int', bits: 64, signed: true }, [-1n, -(2n ** 63n), 5n])];
    expect(Array.from(matchGroupIds(b, p, 3, 3, true).probeIds)).toEqual([-1, -1, 2]);
    const neg = matchGroupIds([makeColumn({ kind: 'int', bits: 8, signed: true }, [-1, 1])], [makeColumn({ kind: 'int', bits: 64, signed: false }, [2n ** 64n - 1n, 1n])], 2, 2, true);
    expect(Array.from(neg.probeIds)).toEqual([-1, 1]);
    const p32 = [makeColumn({ kind: 'int', bits: 32, signed: false }, [2 ** 32 - 1, 5, 0])];
    expect(Array.from(matchGroupIds([makeColumn({ kind: 'int', bits: 64, signed: true }, [-1n, 2n ** 32n - 1n, 5n])], p32, 3, 3, true).probeIds)).toEqual([1, 2, -1]);
    const f = matchGroupIds(
      [makeColumn({ kind: 'float', bits: 64 }, [1.5, -0, NaN])],
      [makeColumn({ kind: 'float', bits: 32 }, [NaN, 0, 1.5, 2])],
      3,
      4,
      true,
    );
    expect(Array.from(f.probeIds)).toEqual([2, 1, 0, -1]);
    const d = matchGroupIds([makeColumn({ kind: 'date', unit: 'day' }, [5])], [makeColumn({ kind: 'int', bits: 32, signed: true }, [5])], 1, 1, true);
    expect(Array.from(d.probeIds)).toEqual([-1]);
  });
});
