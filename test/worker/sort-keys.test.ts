// Encoders: the lexicographic unsigned order of the words equals a naive comparator's order,
// for every key type, NULLS FIRST/LAST and DESC; constant columns produce no words.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { TypeDesc } from '../../src/types/column.js';
import type { KeyColumn, KeyField } from '../../src/types/keys.js';
import { encodeGroupIdKey, encodeSortKey, encodeSortWords, packFields, packGroupAndExact, packGroupAndScaled } from '../../src/worker/sort-keys.js';

type V = number | bigint | string | boolean | null;
interface Spec {
  type: TypeDesc;
  arb: fc.Arbitrary<Exclude<V, null>>;
}

const I64MIN = -(2n ** 63n);
const I64MAX = 2n ** 63n - 1n;
const U64MAX = 2n ** 64n - 1n;
const int = (bits: 8 | 16 | 32, signed: boolean): Spec => ({
  type: { kind: 'int', bits, signed },
  arb: signed ? fc.integer({ min: -(2 ** (bits - 1)), max: 2 ** (bits - 1) - 1 }) : fc.integer({ min: 0, max: 2 ** bits - 1 }),
});
const i64 = fc.oneof(fc.constantFrom(I64MIN, I64MAX, 0n, -1n, 1n, I64MIN + 1n), fc.bigInt({ min: I64MIN, max: I64MAX }));
const specialDoubles = fc.constantFrom(NaN, -0, 0, Infinity, -Infinity, Number.MIN_VALUE, -Number.MIN_VALUE, Number.MAX_VALUE, -Number.MAX_VALUE, 1, -1);
const SPECS: Spec[] = [
  int(8, true),
  int(8, false),
  int(16, true),
  int(16, false),
  int(32, true),
  int(32, false),
  { type: { kind: 'int', bits: 64, signed: true }, arb: i64 },
  { type: { kind: 'int', bits: 64, signed: false }, arb: fc.oneof(fc.constantFrom(0n, U64MAX, 2n ** 63n, 2n ** 63n - 1n), fc.bigInt({ min: 0n, max: U64MAX })) },
  { type: { kind: 'float', bits: 32 }, arb: fc.oneof(specialDoubles.map(Math.fround), fc.float()) },
  { type: { kind: 'float', bits: 64 }, arb: fc.oneof(specialDoubles, fc.double()) },
  { type: { kind: 'bool' }, arb: fc.boolean() },
  { type: { kind: 'date', unit: 'day' }, arb: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }) },
  { type: { kind: 'date', unit: 'ms' }, arb: i64 },
  { type: { kind: 'timestamp', unit: 'ms', timezone: null }, arb: fc.oneof(i64, fc.bigInt({ min: 1_600_000_000_000n, max: 1_800_000_000_000n })) },
  { type: { kind: 'duration', unit: 'ns' }, arb: i64 },
  {
    type: { kind: 'utf8' },
    arb: fc.oneof(fc.constantFrom('', 'a', '\uFFFD', '\u{1F600}', '\uFF61', '\u{10000}', 'ab', 'a\u0000'), fc.string({ unit: 'binary', maxLength: 4 })),
  },
];

const enc = new TextEncoder();

function smallInts(bits: number, signed: boolean, xs: number[]): KeyColumn['values'] {
  if (bits === 8) return signed ? Int8Array.from(xs) : Uint8Array.from(xs);
  if (bits === 16) return signed ? Int16Array.from(xs) : Uint16Array.from(xs);
  return signed ? Int32Array.from(xs) : Uint32Array.from(xs);
}

/** Build a KeyColumn; NULL rows get junk values (they must be ignored); NaNs get varied payloads. */
function makeColumn(type: TypeDesc, vals: V[]): KeyColumn {
  const n = vals.length;
  const valid = vals.some((v) => v === null) ? Uint8Array.from(vals, (v) => (v === null ? 0 : 1)) : null;
  if (type.kind === 'utf8') {
    const parts = vals.map((v) => enc.encode(v === null ? 'junk' : (v as string)));
    const offsets = new Int32Array(n + 1);
    for (let i = 0; i < n; i++) offsets[i + 1] = offsets[i]! + parts[i]!.length;
    const bytes = new Uint8Array(offsets[n]!);
    parts.forEach((p, i) => bytes.set(p, offsets[i]!));
    return { type, length: n, values: bytes, offsets, valid };
  }
  let values: KeyColumn['values'];
  const num = (v: V, junk: number) => (v === null ? junk : typeof v === 'boolean' ? (v ? 1 : 0) : Number(v));
  const big = (v: V) => (v === null ? 12345n : (v as bigint));
  switch (type.kind) {
    case 'int':
      if (type.bits === 64) values = type.signed ? BigInt64Array.from(vals, big) : BigUint64Array.from(vals, big);
      else {
        values = smallInts(type.bits, type.signed, vals.map((v) => num(v, 7)));
      }
      break;
    case 'float':
      values = type.bits === 32 ? Float32Array.from(vals, (v) => num(v, 7)) : Float64Array.from(vals, (v) => num(v, 7));
      {
        // NaN payloads and signs vary
        const w = new Uint32Array(values.buffer);
        vals.forEach((v, i) => {
          if (typeof v === 'number' && Number.isNaN(v)) {
            if (type.bits === 32) w[i] = (i % 2 ? 0xff800000 : 0x7f800000) | ((i * 7919 + 1) & 0x7fffff) | 1;
            else w[2 * i + 1] = (i % 2 ? 0xfff00000 : 0x7ff00000) | ((i * 7919) & 0xfffff) | 0x80000;
          }
        });
      }
      break;
    case 'bool':
      values = Uint8Array.from(vals, (v) => num(v, 1));
      break;
    case 'date':
      values = type.unit === 'day' ? Int32Array.from(vals, (v) => num(v, 7)) : BigInt64Array.from(vals, big);
      break;
    default:
      values = BigInt64Array.from(vals, big);
  }
  return { type, length: n, values, offsets: null, valid };
}

function bytesCmp(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** Naive comparator: total order, NaN greatest, -0 == +0, strings by UTF-8 bytes. */
function cmpValue(a: V, b: V, desc: boolean, nullsFirst: boolean): number {
  if (a === null || b === null) {
    if (a === b) return 0;
    return (a === null) === nullsFirst ? -1 : 1;
  }
  let c: number;
  if (typeof a === 'string') c = bytesCmp(a, b as string);
  else if (typeof a === 'number' && (Number.isNaN(a) || Number.isNaN(b as number))) c = Number.isNaN(a) ? (Number.isNaN(b as number) ? 0 : 1) : -1;
  else c = a < b! ? -1 : a > b! ? 1 : 0;
  return desc ? -c : c;
}

const sgn = (x: number): number => (x < 0 ? -1 : x > 0 ? 1 : 0);

function cmpWords(words: Uint32Array[], i: number, j: number): number {
  for (const w of words) if (w[i] !== w[j]) return w[i]! < w[j]! ? -1 : 1;
  return 0;
}

/** Values drawn from a small pool so duplicates are common, with some NULLs. */
function rowsOf(spec: Spec) {
  return fc
    .tuple(fc.array(spec.arb, { minLength: 1, maxLength: 6 }), fc.array(fc.nat(), { minLength: 0, maxLength: 40 }), fc.integer({ min: 0, max: 3 }))
    .map(([pool, picks, nullEvery]) => picks.map((p, i): V => (nullEvery > 0 && (p + i) % (nullEvery + 2) === 0 ? null : pool[p % pool.length]!)));
}

describe('encodeSortKey', () => {
  for (const spec of SPECS) {
    const name = JSON.stringify(spec.type);
    it(`orders ${name} like the naive comparator (ASC/DESC, NULLS FIRST/LAST)`, () => {
      fc.assert(
        fc.property(rowsOf(spec), fc.boolean(), fc.boolean(), (vals, descending, nullsFirst) => {
          const col = makeColumn(spec.type, vals);
          const words = encodeSortKey(col, { descending, nullsFirst }, vals.length);
          for (const w of words) expect(w.length).toBeGreaterThanOrEqual(vals.length);
          for (let i = 0; i < vals.length; i++) {
            for (let j = 0; j < vals.length; j++) {
              const want = sgn(cmpValue(vals[i]!, vals[j]!, descending, nullsFirst));
              const got = cmpWords(words, i, j);
              if (got !== want) expect({ i, j, a: String(vals[i]), b: String(vals[j]), got }).toEqual({ i, j, a: String(vals[i]), b: String(vals[j]), got: want });
            }
          }
        }),
        { numRuns: 60 },
      );
    });
  }

  it('drops constant columns and range-reduces to few words', () => {
    const ts = makeColumn({ kind: 'timestamp', unit: 'ms', timezone: null }, [1_700_000_000_000n, 1_700_000_000_005n, 1_700_000_000_001n]);
    const w = encodeSortKey(ts, { descending: false, nullsFirst: true });
    expect(w.length).toBe(1);
    expect(Array.from(w[0]!)).toEqual([0, 5, 1]);
    const constant = makeColumn({ kind: 'int', bits: 64, signed: true }, [5n, 5n, 5n]);
    expect(encodeSortKey(constant, { descending: true, nullsFirst: true })).toEqual([]);
    const allNull = makeColumn({ kind: 'int', bits: 32, signed: true }, [null, null]);
    expect(encodeSortKey(allNull, { descending: false, nullsFirst: false })).toEqual([]);
    expect(encodeGroupIdKey(new Uint32Array([3, 3, 3]))).toEqual([]);
    // full 64-bit range plus NULL: needs an extra bit, so 3 words
    const full = makeColumn({ kind: 'int', bits: 64, signed: true }, [I64MIN, I64MAX, null]);
    const fw = encodeSortKey(full, { descending: false, nullsFirst: false });
    expect(fw.length).toBe(3);
    expect(cmpWords(fw, 0, 1)).toBe(-1);
    expect(cmpWords(fw, 1, 2)).toBe(-1);
  });

  it('carries into the high word when NULLS FIRST shifts a full 32-bit range', () => {
    for (const [type, vals] of [
      [{ kind: 'int', bits: 32, signed: false }, [0xffffffff, 0, null, 0xfffffffe, 1]],
      [{ kind: 'int', bits: 32, signed: true }, [2 ** 31 - 1, -(2 ** 31), null, 0]],
      [{ kind: 'int', bits: 64, signed: true }, [0xffffffffn, 0n, null, 0x100000000n, 0xfffffffen]],
      [{ kind: 'int', bits: 64, signed: true }, [0n, -1n, I64MAX, null]],
    ] as Array<[TypeDesc, V[]]>) {
      for (const nullsFirst of [true, false]) {
        for (const descending of [false, true]) {
          const words = encodeSortKey(makeColumn(type, vals), { descending, nullsFirst });
          for (let i = 0; i < vals.length; i++) {
            for (let j = 0; j < vals.length; j++) expect(cmpWords(words, i, j)).toBe(sgn(cmpValue(vals[i]!, vals[j]!, descending, nullsFirst)));
          }
        }
      }
    }
  });

  it('packs several keys into shared words (11-bit group id + 33-bit timestamp = 2 words)', () => {
    const n = 300;
    const gid = Uint32Array.from({ length: n }, (_, i) => (i * 7) % 2000);
    const tsVals = Array.from({ length: n }, (_, i) => 1_700_000_000_000n + BigInt((i * 2654435761) % 8_000_000_000));
    const ts = makeColumn({ kind: 'timestamp', unit: 'ms', timezone: null }, tsVals);
    const words = encodeSortWords([{ column: ts, descending: false, nullsFirst: true }], n, gid);
    expect(words.length).toBe(2);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j += 7) {
        const want = gid[i] !== gid[j] ? (gid[i]! < gid[j]! ? -1 : 1) : sgn(cmpValue(tsVals[i]!, tsVals[j]!, false, true));
        expect(cmpWords(words, i, j)).toBe(want);
      }
    }
  });

  it('multi-key words equal the lexicographic naive order (every type pair, NULLs, DESC)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: SPECS.length - 1 }),
        fc.integer({ min: 0, max: SPECS.length - 1 }),
        fc.boolean(),
        fc.boolean(),
        fc.boolean(),
        fc.boolean(),
        fc.integer({ min: 1, max: 30 }),
        fc.integer(),
        (a, b, d1, n1, d2, n2, n, seed) => {
          const A = fc.sample(rowsOf(SPECS[a]!), { numRuns: 1, seed })[0]!.slice(0, n);
          const B = fc.sample(rowsOf(SPECS[b]!), { numRuns: 1, seed: seed + 1 })[0]!.slice(0, n);
          const m = Math.min(A.length, B.length);
          const ca = makeColumn(SPECS[a]!.type, A.slice(0, m));
          const cb = makeColumn(SPECS[b]!.type, B.slice(0, m));
          const words = encodeSortWords(
            [
              { column: ca, descending: d1, nullsFirst: n1 },
              { column: cb, descending: d2, nullsFirst: n2 },
            ],
            m,
          );
          for (let i = 0; i < m; i++) {
            for (let j = 0; j < m; j++) {
              const want = sgn(cmpValue(A[i]!, A[j]!, d1, n1) || cmpValue(B[i]!, B[j]!, d2, n2));
              expect(cmpWords(words, i, j)).toBe(want);
            }
          }
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('packFields', () => {
  /** The fields' values of a row concatenated into one BigInt, most significant field first. */
  const concat = (fields: KeyField[], i: number): bigint =>
    fields.reduce((v, f) => (v << BigInt(f.bits)) | (BigInt(f.hi === null ? 0 : f.hi[i]!) << 32n) | BigInt(f.lo[i]!), 0n);
  const wordsValue = (words: Uint32Array[], widths: number[], i: number): bigint =>
    words.reduce((v, w, k) => (v << BigInt(widths[k]!)) | BigInt(w[i]!), 0n);
  const field = (bits: number, values: bigint[]): KeyField => ({
    bits,
    lo: Uint32Array.from(values, (v) => Number(v & 0xffffffffn)),
    hi: bits > 32 ? Uint32Array.from(values, (v) => Number(v >> 32n)) : null,
  });
  const fieldArb = (n: number) =>
    fc.integer({ min: 1, max: 40 }).chain((bits) => fc.array(fc.bigInt({ min: 0n, max: 2n ** BigInt(bits) - 1n }), { minLength: n, maxLength: n }).map((v) => field(bits, v)));

  it('44 bits (a 7-bit group and a 37-bit key) as 22 + 22: four radix digits, not 32 + 12 in five', () => {
    const n = 200;
    const g = Array.from({ length: n }, (_, i) => BigInt(i % 97));
    const k = Array.from({ length: n }, (_, i) => (BigInt(i) * 0x9e3779b97n) % 2n ** 37n);
    const fields = [field(7, g), field(37, k)];
    const words = packFields(fields, n);
    expect(words).toHaveLength(2);
    for (let i = 0; i < n; i++) {
      expect(words[0]![i]!).toBeLessThan(2 ** 22);
      expect(words[1]![i]!).toBeLessThan(2 ** 22);
      expect(wordsValue(words, [22, 22], i)).toBe(concat(fields, i));
    }
  });

  it('33 bits as 11 + 22 (one field or two), 65 as 21 + 22 + 22, 44 in three fields as 22 + 22, 76 as 32 + 22 + 22; 40 bits stay 8 + 32; zero-bit fields drop out', () => {
    const n = 64;
    const vals = (bits: number) => Array.from({ length: n }, (_, i) => (BigInt(i + 7) * 0x2545f4914f6cdd1dn) % 2n ** BigInt(bits));
    const cases: Array<{ fields: KeyField[]; widths: number[] }> = [
      { fields: [field(1, vals(1)), field(32, vals(32))], widths: [11, 22] },
      { fields: [field(1, vals(1)), field(32, vals(32)), field(32, vals(32))], widths: [21, 22, 22] },
      { fields: [field(8, vals(8)), field(32, vals(32))], widths: [8, 32] },
      { fields: [field(33, vals(33))], widths: [11, 22] },
      { fields: [field(10, vals(10)), field(17, vals(17)), field(17, vals(17))], widths: [22, 22] },
      { fields: [field(12, vals(12)), field(32, vals(32)), field(32, vals(32))], widths: [32, 22, 22] },
      { fields: [{ bits: 0, lo: new Uint32Array(n), hi: null }, field(32, vals(32)), field(32, vals(32))], widths: [32, 32] },
    ];
    for (const { fields, widths } of cases) {
      const words = packFields(fields, n);
      expect(words).toHaveLength(widths.length);
      for (let i = 0; i < n; i++) {
        expect(wordsValue(words, widths, i)).toBe(concat(fields, i));
        words.forEach((w, k) => expect(w[i]!).toBeLessThan(2 ** widths[k]!));
      }
    }
  });

  it('packGroupAndExact gives the words of packFields([group, v - min]) for every total up to 53 bits, a negative group as `missing`', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 20 }),
        fc.integer({ min: 0, max: 52 }),
        fc.integer({ min: 1, max: 40 }),
        fc.integer(),
        fc.boolean(),
        (groupBits, keyBits0, n, seed, nulls) => {
          const keyBits = Math.min(keyBits0, 53 - groupBits);
          let x = seed >>> 0;
          const next = (): number => ((x = (Math.imul(x, 1664525) + 1013904223) >>> 0), x);
          const span = 2 ** keyBits - 1;
          const min = -(2 ** 51) + (next() % 1000);
          // group ids below 2^groupBits, some -1 (no group), which count as `missing`
          const missing = groupBits === 0 ? 0 : next() % 2 ** groupBits;
          const group = Int32Array.from({ length: n }, () => (next() % 7 === 0 ? -1 : groupBits === 0 ? 0 : next() % 2 ** groupBits));
          const groupWord = Uint32Array.from(group, (g) => (g < 0 ? missing : g));
          const valid = Uint8Array.from({ length: n }, () => (nulls && next() % 5 === 0 ? 0 : 1));
          // the least valid value is min and (for some row) the greatest is min + span
          const v = Float64Array.from({ length: n }, (_, i) => (i === 0 ? min : i === 1 ? min + span : min + Math.floor((span * next()) / 2 ** 32)));
          valid[0] = 1;
          valid[Math.min(1, n - 1)] = 1;
          const d = Array.from(v, (y, i) => (valid[i] === 0 ? 0n : BigInt(y - min)));
          const expected = packFields([{ bits: groupBits, lo: groupWord, hi: null }, field(keyBits, d)], n);
          const got = packGroupAndExact(group, missing, groupBits, v, nulls ? valid : null, min, keyBits, n);
          expect(got.length).toBe(groupBits + keyBits > 32 ? 2 : 1);
          if (expected.length === 0) expect(got.every((w) => w.every((y) => y === 0))).toBe(true);
          else expect(got.map((w) => Array.from(w))).toEqual(expected.map((w) => Array.from(w)));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('packGroupAndScaled gives packGroupAndExact\'s words for the doubles (hi * 2^32 + lo) * factor of 64-bit words', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 12 }),
        fc.constantFrom(1, 1000, 1_000_000),
        fc.array(fc.bigInt({ min: -(2n ** 31n), max: 2n ** 31n }), { minLength: 1, maxLength: 60 }),
        fc.double({ min: -1, max: 1, noNaN: true }),
        fc.integer(),
        (groupBits, factor, offsets, where, seed) => {
          // raw values around `at` (anywhere within ±2^52 / factor), so that every (raw * factor) stays within ±2^52
          const limit = 2n ** 52n / BigInt(factor);
          const at = BigInt(Math.trunc(where * Number(limit)));
          const raw = BigInt64Array.from(offsets, (o) => {
            const r = at + o;
            return r > limit ? limit : r < -limit ? -limit : r;
          });
          const n = raw.length;
          const v = Float64Array.from(raw, (r) => Number(r) * factor);
          let min = Infinity;
          let max = -Infinity;
          for (const y of v) {
            min = Math.min(min, y);
            max = Math.max(max, y);
          }
          const keyBits = max === min ? 0 : Math.ceil(Math.log2(max - min + 1));
          fc.pre(groupBits + keyBits <= 53);
          let x = seed >>> 0;
          const next = (): number => ((x = (Math.imul(x, 1664525) + 1013904223) >>> 0), x);
          const missing = groupBits === 0 ? 0 : next() % 2 ** groupBits;
          const group = Int32Array.from({ length: n }, () => (next() % 7 === 0 ? -1 : groupBits === 0 ? 0 : next() % 2 ** groupBits));
          const lo32 = new Uint32Array(raw.buffer);
          const hi32 = new Int32Array(raw.buffer);
          const want = packGroupAndExact(group, missing, groupBits, v, null, min, keyBits, n);
          const got = packGroupAndScaled(group, missing, groupBits, lo32, hi32, factor, min, keyBits, n);
          expect(got.map((w) => Array.from(w))).toEqual(want.map((w) => Array.from(w)));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('random fields: the words order rows as the concatenated fields; the two-field pass equals the general one', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 30 }).chain((n) => fc.tuple(fc.constant(n), fc.array(fieldArb(n), { minLength: 1, maxLength: 4 }))),
        ([n, fields]) => {
          const words = packFields(fields, n);
          const cmpWords = (a: number, b: number): number => {
            for (const w of words) if (w[a] !== w[b]) return w[a]! < w[b]! ? -1 : 1;
            return 0;
          };
          for (let a = 0; a < n; a++)
            for (let b = 0; b < n; b++) {
              const x = concat(fields, a);
              const y = concat(fields, b);
              expect(cmpWords(a, b)).toBe(x < y ? -1 : x > y ? 1 : 0);
            }
          // the same bits as three fields (the second cut in two) go through the general path
          const last = fields[fields.length - 1]!;
          if (fields.length === 2 && last.bits > 1) {
            const cut = Math.floor(last.bits / 2);
            const high = field(last.bits - cut, Array.from({ length: n }, (_, i) => concat([last], i) >> BigInt(cut)));
            const low = field(cut, Array.from({ length: n }, (_, i) => concat([last], i) & ((1n << BigInt(cut)) - 1n)));
            expect(packFields([fields[0]!, high, low], n).map((w) => Array.from(w))).toEqual(words.map((w) => Array.from(w)));
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
