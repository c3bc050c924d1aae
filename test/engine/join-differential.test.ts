/**
 * join through the whole engine against the naive nested-loop reference
 * (test/support/relational-reference): every join type, nullsEqual on and off, one or two key
 * pairs out of integer (int8 with int16 / int64, uint32 with int64), float64 with float32, string,
 * bool, date32 with date64 and timestamp[ms] with timestamp[us] keys; NULL and NaN / -0 keys,
 * duplicates on both sides, empty sides. Output columns (names, USING key columns of right/full
 * joins) are built here from API.md's rules; rows must come in the promised order exactly, and
 * identically across thread counts, partition counts, batch sizes and budgets.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FieldDesc } from '../../src/types/column.js';
import { BATCH_SIZES, enginePool, SETTINGS } from '../support/engines.js';
import { rowArb, rowsOfTable, SCHEMA, tableOf } from '../support/relational-data.js';
import { refJoin, type JoinHowRef, type Row } from '../support/relational-reference.js';

const engineFor = enginePool();

const RIGHT: FieldDesc[] = [
  { name: 'i8', type: { kind: 'int', bits: 16, signed: true }, nullable: true },
  { name: 's', type: { kind: 'utf8' }, nullable: true },
  { name: 'k64', type: { kind: 'int', bits: 64, signed: true }, nullable: true },
  { name: 'd64', type: { kind: 'date', unit: 'ms' }, nullable: true },
  { name: 'tus', type: { kind: 'timestamp', unit: 'us', timezone: null }, nullable: true },
  { name: 'f64', type: { kind: 'float', bits: 32 }, nullable: true },
  { name: 'b', type: { kind: 'bool' }, nullable: true },
  { name: 'rv', type: { kind: 'int', bits: 32, signed: true }, nullable: true },
];

const nul = <T>(a: fc.Arbitrary<T>): fc.Arbitrary<T | null> => fc.oneof({ weight: 4, arbitrary: a }, { weight: 1, arbitrary: fc.constant(null) });
const rightRow: fc.Arbitrary<Row> = fc.record({
  i8: nul(fc.integer({ min: -3, max: 3 })),
  s: nul(fc.constantFrom('', 'a', 'b', 'é', '\u{1F600}')),
  k64: nul(fc.oneof(fc.bigInt({ min: -3n, max: 3n }), fc.constant(4294967295n))),
  d64: nul(fc.oneof(fc.integer({ min: -2, max: 2 }).map((d) => BigInt(d) * 86_400_000n), fc.constant(1n))),
  tus: nul(fc.oneof(fc.bigInt({ min: -2n, max: 2n }).map((t) => t * 1000n), fc.constant(1n))),
  f64: nul(fc.constantFrom(0, -0, 0.5, 2, NaN, 1.5)),
  b: nul(fc.boolean()),
  rv: nul(fc.integer({ min: -9, max: 9 })),
}) as fc.Arbitrary<Row>;

/** Key pairs: same names are USING keys. */
const PAIRS: Array<[string, string]> = [
  ['i8', 'i8'],
  ['s', 's'],
  ['i8', 'k64'],
  ['u32', 'k64'],
  // uint32 4294967295 against int8 -1: the same 32 bits, unequal values
  ['u32', 'i8'],
  ['d', 'd64'],
  ['ts', 'tus'],
  ['f64', 'f64'],
  ['b', 'b'],
];

/** Output column names per API.md: left names, then kept right names, collisions renamed. */
function outputNames(left: string[], right: string[], suffix: string): string[] {
  const taken = new Set(left);
  const seen = new Set<string>();
  const collide = right.map((n) => {
    const c = taken.has(n) || seen.has(n);
    seen.add(n);
    return c;
  });
  right.forEach((n, i) => !collide[i] && taken.add(n));
  return right.map((n, i) => {
    if (!collide[i]) return n;
    let name = n + suffix;
    for (let k = 2; taken.has(name); k++) name = `${n}${suffix}_${k}`;
    taken.add(name);
    return name;
  });
}

function expected(left: Row[], right: Row[], pairs: Array<[string, string]>, how: JoinHowRef, nullsEqual: boolean, suffix: string): Row[] {
  const out = refJoin(left, right, pairs, SCHEMA, RIGHT, how, nullsEqual);
  const leftNames = SCHEMA.map((f) => f.name);
  const shared = new Set(pairs.filter(([a, b]) => a === b).map(([a]) => a));
  const kept = RIGHT.map((f) => f.name).filter((n) => !shared.has(n));
  const names = outputNames(leftNames, kept, suffix);
  return out.map(([li, rj]) => {
    const row: Row = {};
    for (const n of leftNames) {
      const usingRight = shared.has(n) && li === null && rj !== null && (how === 'right' || how === 'full');
      row[n] = usingRight ? right[rj]![n]! : li === null ? null : left[li]![n]!;
    }
    if (how !== 'semi' && how !== 'anti') kept.forEach((n, k) => (row[names[k]!] = rj === null ? null : right[rj]![n]!));
    return row;
  });
}

describe('join through the engine vs the naive reference', () => {
  it('matches the reference for every join type, identical across settings', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(rowArb, { maxLength: 40 }),
        fc.array(rightRow, { maxLength: 40 }),
        fc.uniqueArray(fc.constantFrom(...PAIRS), { minLength: 1, maxLength: 2 }),
        fc.constantFrom<JoinHowRef>('inner', 'left', 'right', 'full', 'semi', 'anti'),
        fc.boolean(),
        fc.constantFrom('_right', '_r'),
        fc.constantFrom(...SETTINGS),
        fc.constantFrom(...SETTINGS),
        fc.constantFrom(...BATCH_SIZES),
        fc.constantFrom(...BATCH_SIZES),
        async (left, right, pairs, how, nullsEqual, suffix, s1, s2, b1, b2) => {
          const on = pairs.map(([a, b]) => (a === b ? a : ([a, b] as [string, string])));
          const run = async (s: (typeof SETTINGS)[number], b: number) => {
            const e = engineFor(s);
            return rowsOfTable(await e.fromArrow(tableOf(left, b)).join(e.fromArrow(tableOf(right, b, RIGHT)), { on, how, nullsEqual, suffix }).collect());
          };
          const got = await run(s1, b1);
          expect(got).toEqual(expected(left, right, pairs, how, nullsEqual, suffix));
          expect(await run(s2, b2)).toEqual(got);
        },
      ),
      { numRuns: 120 },
    );
  });
});
